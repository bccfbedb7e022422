/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "rcp-rules-page.h"
#include "rc-limit-table.h"

#include "rcp-feedback.h"

struct _RcpRulesPage
{
  AdwBin parent_instance;

  RcpClient           *client;
  GCancellable        *cancellable;
  gboolean             loading;
  AdwPreferencesPage  *page;
  AdwPreferencesGroup *group;   /* replaced at each reload */
  GtkWidget           *error_label;
};

G_DEFINE_TYPE (RcpRulesPage, rcp_rules_page, ADW_TYPE_BIN)

static void
remove_cb (GObject      *source,
           GAsyncResult *result,
           gpointer      user_data)
{
  g_autoptr(RcpRulesPage) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) reply = rcp_client_call_finish (RCP_CLIENT (source), result, &error);

  if (rcp_feedback_reply (GTK_WIDGET (self), self->error_label, reply, error, "Rule removed",
                          "Could not remove the rule"))
    rcp_rules_page_reload (self);
}

static void
remove_clicked_cb (GtkWidget    *button,
                   RcpRulesPage *self)
{
  const char *app_id = g_object_get_data (G_OBJECT (button), "app-id");

  rcp_client_call (self->client, "RemoveRule", g_variant_new ("(s)", app_id), TRUE,
                   self->cancellable, remove_cb, g_object_ref (self));
}

static void
show_rules (RcpRulesPage *self,
            GVariant     *rules)
{
  GVariantIter iter;
  const char *app_id;
  GVariant *keys;
  gboolean any = FALSE;

  if (self->group != NULL)
    adw_preferences_page_remove (self->page, self->group);
  self->group = ADW_PREFERENCES_GROUP (adw_preferences_group_new ());
  adw_preferences_group_set_title (self->group, "Rules");
  adw_preferences_group_set_description (self->group,
                                         "Settings every instance of an app gets, also when it starts later");
  g_variant_iter_init (&iter, rules);
  while (g_variant_iter_loop (&iter, "{&s@a{sv}}", &app_id, &keys))
    {
      AdwActionRow *row = ADW_ACTION_ROW (adw_action_row_new ());
      GtkWidget *button = gtk_button_new_from_icon_name ("user-trash-symbolic");
      g_autofree char *label = g_strdup_printf ("Remove rule for %s", app_id);
      /* The words `resourcectl rule list` uses too (common's table). */
      g_autofree char *description = rc_limit_format_rule (keys, " ", " · ");

      adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (row), FALSE);
      adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), app_id);
      adw_action_row_set_subtitle (row, description);
      gtk_widget_set_valign (button, GTK_ALIGN_CENTER);
      gtk_widget_add_css_class (button, "flat");
      gtk_accessible_update_property (GTK_ACCESSIBLE (button), GTK_ACCESSIBLE_PROPERTY_LABEL, label, -1);
      gtk_widget_set_tooltip_text (button, label);
      g_object_set_data_full (G_OBJECT (button), "app-id", g_strdup (app_id), g_free);
      g_signal_connect (button, "clicked", G_CALLBACK (remove_clicked_cb), self);
      adw_action_row_add_suffix (row, button);
      adw_preferences_group_add (self->group, GTK_WIDGET (row));
      any = TRUE;
    }
  if (!any)
    {
      AdwActionRow *row = ADW_ACTION_ROW (adw_action_row_new ());

      adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), "No rules");
      adw_action_row_set_subtitle (row, "“Keep these settings for this app” on an app's page makes one");
      adw_preferences_group_add (self->group, GTK_WIDGET (row));
    }
  adw_preferences_page_add (self->page, self->group);
}

static void
list_rules_cb (GObject      *source,
               GAsyncResult *result,
               gpointer      user_data)
{
  g_autoptr(RcpRulesPage) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) reply = rcp_client_call_finish (RCP_CLIENT (source), result, &error);
  g_autoptr(GVariant) rules = NULL;

  self->loading = FALSE;
  if (!rcp_feedback_reply (GTK_WIDGET (self), self->error_label, reply, error, NULL,
                           "Could not list the rules"))
    return;
  rules = g_variant_get_child_value (reply, 0);
  show_rules (self, rules);
}

void
rcp_rules_page_reload (RcpRulesPage *self)
{
  if (self->loading)
    return;
  self->loading = TRUE;
  rcp_client_call (self->client, "ListRules", NULL, FALSE, self->cancellable, list_rules_cb,
                   g_object_ref (self));
}

static void
rcp_rules_page_dispose (GObject *object)
{
  RcpRulesPage *self = RCP_RULES_PAGE (object);

  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  g_clear_object (&self->client);
  G_OBJECT_CLASS (rcp_rules_page_parent_class)->dispose (object);
}

static void
rcp_rules_page_class_init (RcpRulesPageClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = rcp_rules_page_dispose;
}

static void
rcp_rules_page_init (RcpRulesPage *self)
{
  AdwPreferencesGroup *group = ADW_PREFERENCES_GROUP (adw_preferences_group_new ());

  self->cancellable = g_cancellable_new ();
  self->page = ADW_PREFERENCES_PAGE (adw_preferences_page_new ());
  self->error_label = rcp_feedback_label_new ();
  adw_preferences_group_add (group, self->error_label);
  adw_preferences_page_add (self->page, group);
  adw_bin_set_child (ADW_BIN (self), GTK_WIDGET (self->page));
}

GtkWidget *
rcp_rules_page_new (RcpClient *client)
{
  RcpRulesPage *self = g_object_new (RCP_TYPE_RULES_PAGE, NULL);

  self->client = g_object_ref (client);
  return GTK_WIDGET (self);
}
