/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "rcp-app-page.h"
#include "rc-error.h"
#include "rc-api-keys.h"

#include "rcp-feedback.h"
#include "rcp-format.h"
#include "rcp-limit-effects.h"
#include "rcp-priority.h"
#include "rcp-recent-changes.h"

struct _RcpAppPage
{
  AdwBin parent_instance;

  RcpClient    *client;
  RcpApp       *app;
  GCancellable *cancellable;   /* calls made for this app */
  gulong        changed_id;
  gboolean      updating;      /* the page follows the app: no writes */

  /* what the controls last showed, so that a refresh does not overwrite
   * what the user is typing */
  guint64 shown_weight;
  guint64 shown_memory_max;
  guint32 shown_quota;

  AdwPreferencesPage  *preferences_page;
  AdwPreferencesGroup *status_group;
  GtkWidget           *error_label;
  AdwActionRow        *usage_row;
  AdwActionRow        *freeze_row;
  RcpLimitEffects     *effects;
  GtkWidget           *freeze_button;
  GtkWidget           *priority_buttons[RCP_N_PRESETS + 1];
  AdwActionRow        *priority_row;
  AdwActionRow        *custom_row;
  GtkWidget           *custom_spin;
  GtkWidget           *custom_apply;
  GtkWidget           *memory_spin;
  GtkWidget           *would_kill_box;
  GtkWidget           *would_kill_label;
  guint64              would_kill_bytes;
  GtkWidget           *quota_spin;
  RcpRecentChanges    *recent_changes;
};

G_DEFINE_TYPE (RcpAppPage, rcp_app_page, ADW_TYPE_BIN)

typedef enum
{
  WRITE_PLAIN,
  WRITE_MEMORY,   /* a WouldKill answer offers "Limit anyway" */
} WriteKind;

typedef struct
{
  RcpAppPage *page;
  char       *what;      /* "Could not ..." */
  char       *success;   /* the toast */
  WriteKind   kind;
  guint64     bytes;
} WriteCall;

static void
write_call_free (WriteCall *call)
{
  g_object_unref (call->page);
  g_free (call->what);
  g_free (call->success);
  g_free (call);
}

static void
write_cb (GObject      *source,
          GAsyncResult *result,
          gpointer      user_data)
{
  WriteCall *call = user_data;
  RcpAppPage *self = call->page;
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) reply = rcp_client_call_finish (RCP_CLIENT (source), result, &error);

  if (reply == NULL && call->kind == WRITE_MEMORY && g_error_matches (error, RC_ERROR, RC_ERROR_WOULD_KILL))
    {
      g_autofree char *message = rcp_client_error_message (error);

      /* the daemon's reason, and the choice to insist */
      self->would_kill_bytes = call->bytes;
      gtk_label_set_text (GTK_LABEL (self->would_kill_label), message);
      gtk_widget_set_visible (self->would_kill_box, TRUE);
    }
  else
    {
      rcp_feedback_reply (GTK_WIDGET (self), self->error_label, reply, error, call->success, call->what);
    }
  write_call_free (call);
}

static void
send_write (RcpAppPage *self,
            const char *method,
            GVariant   *params,
            WriteKind   kind,
            const char *what,
            char       *success,
            guint64     bytes)
{
  WriteCall *call = g_new0 (WriteCall, 1);

  call->page = g_object_ref (self);
  call->what = g_strdup (what);
  call->success = success;
  call->kind = kind;
  call->bytes = bytes;
  rcp_client_call (self->client, method, params, TRUE, self->cancellable, write_cb, call);
}

static const char *
app_id (RcpAppPage *self)
{
  return rcp_app_get_app_id (self->app);
}

static void
set_weight (RcpAppPage *self,
            guint64     weight)
{
  g_autofree char *label = rcp_format_weight (weight);

  send_write (self, "SetWeight", g_variant_new ("(st)", app_id (self), weight), WRITE_PLAIN,
              "Could not set the priority",
              g_strdup_printf ("%s: priority %s", rcp_app_get_name (self->app), label), 0);
}

static void
priority_toggled_cb (GtkToggleButton *button,
                     RcpAppPage      *self)
{
  RcpPriority priority = GPOINTER_TO_INT (g_object_get_data (G_OBJECT (button), "priority"));

  if (!gtk_toggle_button_get_active (button))
    return;
  gtk_widget_set_sensitive (GTK_WIDGET (self->custom_row), priority == RCP_PRIORITY_CUSTOM);
  if (self->updating || self->app == NULL || priority == RCP_PRIORITY_CUSTOM)
    return;
  set_weight (self, rcp_priority_to_weight (priority));
}

static void
custom_apply_cb (RcpAppPage *self)
{
  if (self->app != NULL)
    set_weight (self, (guint64) gtk_spin_button_get_value_as_int (GTK_SPIN_BUTTON (self->custom_spin)));
}

static void
memory_apply_cb (RcpAppPage *self)
{
  guint64 mib = (guint64) gtk_spin_button_get_value_as_int (GTK_SPIN_BUTTON (self->memory_spin));
  guint64 bytes = mib == 0 ? G_MAXUINT64 : mib * RCP_MIB;
  g_autofree char *shown = rcp_format_bytes (bytes, "none");
  if (self->app == NULL)
    return;
  gtk_widget_set_visible (self->would_kill_box, FALSE);
  send_write (self, "SetMemoryLimit", g_variant_new ("(st)", app_id (self), bytes), WRITE_MEMORY,
              "Could not set the memory limit",
              g_strdup_printf ("%s: memory limit %s", rcp_app_get_name (self->app), shown), bytes);
}

static void
limit_anyway_cb (RcpAppPage *self)
{
  GVariantBuilder limits, options;
  g_autofree char *shown = rcp_format_bytes (self->would_kill_bytes, "none");

  if (self->app == NULL)
    return;
  gtk_widget_set_visible (self->would_kill_box, FALSE);
  g_variant_builder_init (&limits, G_VARIANT_TYPE_VARDICT);
  g_variant_builder_add (&limits, "{sv}", RC_KEY_MEMORY_LIMIT, g_variant_new_uint64 (self->would_kill_bytes));
  g_variant_builder_init (&options, G_VARIANT_TYPE_VARDICT);
  g_variant_builder_add (&options, "{sv}", "force", g_variant_new_boolean (TRUE));
  send_write (self, "SetLimits", g_variant_new ("(sa{sv}a{sv})", app_id (self), &limits, &options),
              WRITE_PLAIN, "Could not set the memory limit",
              g_strdup_printf ("%s: memory limit %s", rcp_app_get_name (self->app), shown), 0);
}

static void
quota_apply_cb (RcpAppPage *self)
{
  guint32 quota = (guint32) gtk_spin_button_get_value_as_int (GTK_SPIN_BUTTON (self->quota_spin));
  GVariantBuilder limits;

  if (self->app == NULL)
    return;
  g_variant_builder_init (&limits, G_VARIANT_TYPE_VARDICT);
  g_variant_builder_add (&limits, "{sv}", RC_KEY_CPU_QUOTA, g_variant_new_uint32 (quota));
  send_write (self, "SetLimits", g_variant_new ("(sa{sv}a{sv})", app_id (self), &limits, NULL),
              WRITE_PLAIN, "Could not set the CPU limit",
              quota == 0 ? g_strdup_printf ("%s: no CPU limit", rcp_app_get_name (self->app))
                    : g_strdup_printf ("%s: CPU limit %u %%", rcp_app_get_name (self->app), quota), 0);
}

static void
freeze_cb (RcpAppPage *self)
{
  gboolean frozen;

  if (self->app == NULL)
    return;
  frozen = rcp_app_get_frozen (self->app);
  send_write (self, frozen ? "Thaw" : "Freeze", g_variant_new ("(s)", app_id (self)), WRITE_PLAIN,
              frozen ? "Could not resume" : "Could not freeze",
              g_strdup_printf (frozen ? "%s resumed" : "%s frozen", rcp_app_get_name (self->app)), 0);
}

static void
keep_cb (RcpAppPage *self)
{
  GVariantBuilder limits;
  guint64 memory_max;
  guint32 quota;

  if (self->app == NULL)
    return;
  /* the limits the app has now, as the daemon reported them */
  g_variant_builder_init (&limits, G_VARIANT_TYPE_VARDICT);
  g_variant_builder_add (&limits, "{sv}", RC_KEY_CPU_WEIGHT,
                         g_variant_new_uint64 (rcp_app_get_uint64 (self->app, RC_KEY_CPU_WEIGHT, 100)));
  quota = rcp_app_get_cpu_quota (self->app);
  if (quota != 0)
    g_variant_builder_add (&limits, "{sv}", RC_KEY_CPU_QUOTA, g_variant_new_uint32 (quota));
  memory_max = rcp_app_get_uint64 (self->app, RC_KEY_MEMORY_MAX, G_MAXUINT64);
  if (memory_max != G_MAXUINT64)
    g_variant_builder_add (&limits, "{sv}", RC_KEY_MEMORY_LIMIT, g_variant_new_uint64 (memory_max));
  send_write (self, "SetRule", g_variant_new ("(sa{sv})", app_id (self), &limits), WRITE_PLAIN,
              "Could not keep the settings",
              g_strdup_printf ("%s keeps these settings", rcp_app_get_name (self->app)), 0);
}

static void
reset_cb (RcpAppPage *self)
{
  if (self->app == NULL)
    return;
  send_write (self, "ResetLimits", g_variant_new ("(s)", app_id (self)), WRITE_PLAIN,
              "Could not reset", g_strdup_printf ("%s: back to the defaults", rcp_app_get_name (self->app)), 0);
}

static void
app_changed_cb (RcpAppPage *self)
{
  RcpApp *app = self->app;
  guint64 weight = rcp_app_get_uint64 (app, RC_KEY_CPU_WEIGHT, 100);
  guint64 memory_max = rcp_app_get_uint64 (app, RC_KEY_MEMORY_MAX, G_MAXUINT64);
  guint32 quota = rcp_app_get_cpu_quota (app);
  gboolean frozen = rcp_app_get_frozen (app);
  g_autofree char *usage = NULL;
  g_autofree char *priority = NULL;
  g_autofree char *now = NULL;
  /* a group's title and description are always Pango markup (libadwaita 1.2 has no
   * switch for them): escaped, the desktop file's name shows as written */
  g_autofree char *name = g_markup_escape_text (rcp_app_get_name (app), -1);
  g_autofree char *app_id = g_markup_escape_text (rcp_app_get_app_id (app), -1);

  self->updating = TRUE;
  adw_preferences_group_set_title (self->status_group, name);
  adw_preferences_group_set_description (self->status_group, app_id);
  usage = rcp_format_usage (rcp_app_get_n_instances (app), rcp_app_get_cpu_percent (app),
                            rcp_app_get_memory_current (app), memory_max);
  adw_action_row_set_subtitle (self->usage_row, usage);
  rcp_limit_effects_update (self->effects, app);

  adw_action_row_set_subtitle (self->freeze_row, frozen ? "Frozen" : "Running");
  gtk_button_set_label (GTK_BUTTON (self->freeze_button), frozen ? "Resume" : "Freeze");
  gtk_widget_set_sensitive (self->freeze_button, frozen || rcp_client_get_freeze_supported (self->client));

  if (weight != self->shown_weight)
    {
      RcpPriority p = rcp_priority_from_weight (weight);

      self->shown_weight = weight;
      gtk_toggle_button_set_active (GTK_TOGGLE_BUTTON (self->priority_buttons[p]), TRUE);
      gtk_spin_button_set_value (GTK_SPIN_BUTTON (self->custom_spin), (double) weight);
    }
  priority = rcp_format_weight (weight);
  now = g_strdup_printf ("Now: %s", priority);
  adw_action_row_set_subtitle (self->priority_row, now);
  if (memory_max != self->shown_memory_max)
    {
      self->shown_memory_max = memory_max;
      gtk_spin_button_set_value (GTK_SPIN_BUTTON (self->memory_spin),
                                 memory_max == G_MAXUINT64 ? 0 : (double) (memory_max / RCP_MIB));
    }
  if (quota != self->shown_quota)
    {
      self->shown_quota = quota;
      gtk_spin_button_set_value (GTK_SPIN_BUTTON (self->quota_spin), quota);
    }
  self->updating = FALSE;
}

void
rcp_app_page_set_app (RcpAppPage *self,
                      RcpApp     *app)
{
  if (self->app == app)
    return;
  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  self->cancellable = g_cancellable_new ();
  if (self->app != NULL)
    g_clear_signal_handler (&self->changed_id, self->app);
  g_set_object (&self->app, app);
  gtk_widget_set_visible (self->would_kill_box, FALSE);
  gtk_widget_set_visible (self->error_label, FALSE);
  rcp_recent_changes_set_app (self->recent_changes, app);
  if (app == NULL)
    return;
  self->shown_weight = 0;
  self->shown_memory_max = 0;
  self->shown_quota = G_MAXUINT32;
  self->changed_id = g_signal_connect_swapped (app, "changed", G_CALLBACK (app_changed_cb), self);
  app_changed_cb (self);
}

RcpApp *
rcp_app_page_get_app (RcpAppPage *self)
{
  return self->app;
}

/* A row with a number entry and an "Apply" button; Enter in the entry applies too. */
static AdwActionRow *
spin_row (const char *title,
          const char *subtitle,
          const char *apply_label,
          double      lower,
          double      upper,
          GtkWidget **out_spin,
          GtkWidget **out_apply)
{
  AdwActionRow *row = ADW_ACTION_ROW (adw_action_row_new ());
  GtkWidget *spin = gtk_spin_button_new_with_range (lower, upper, 1);
  GtkWidget *apply = gtk_button_new_with_label ("Apply");

  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), title);
  adw_action_row_set_subtitle (row, subtitle);
  gtk_widget_set_valign (spin, GTK_ALIGN_CENTER);
  gtk_widget_set_valign (apply, GTK_ALIGN_CENTER);
  gtk_accessible_update_property (GTK_ACCESSIBLE (spin), GTK_ACCESSIBLE_PROPERTY_LABEL, title, -1);
  gtk_accessible_update_property (GTK_ACCESSIBLE (apply), GTK_ACCESSIBLE_PROPERTY_LABEL, apply_label, -1);
  adw_action_row_add_suffix (row, spin);
  adw_action_row_add_suffix (row, apply);
  *out_spin = spin;
  if (out_apply != NULL)
    *out_apply = apply;
  return row;
}

static GtkWidget *
button (const char *label,
        const char *accessible_label)
{
  GtkWidget *b = gtk_button_new_with_label (label);

  gtk_widget_set_valign (b, GTK_ALIGN_CENTER);
  if (accessible_label != NULL)
    gtk_accessible_update_property (GTK_ACCESSIBLE (b), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                    accessible_label, -1);
  return b;
}

/* A row with a button at its end: @clicked_cb (@self) when pressed. */
static GtkWidget *
button_row (RcpAppPage *self,
            const char *title,
            const char *subtitle,
            const char *label,
            const char *accessible_label,
            GCallback   clicked_cb)
{
  AdwActionRow *row = ADW_ACTION_ROW (adw_action_row_new ());
  GtkWidget *b = button (label, accessible_label);

  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), title);
  adw_action_row_set_subtitle (row, subtitle);
  g_signal_connect_swapped (b, "clicked", clicked_cb, self);
  adw_action_row_add_suffix (row, b);
  return GTK_WIDGET (row);
}

static void
build (RcpAppPage *self)
{
  AdwPreferencesPage *page = ADW_PREFERENCES_PAGE (adw_preferences_page_new ());
  AdwPreferencesGroup *group;
  AdwActionRow *row;
  GtkWidget *box, *apply, *anyway;

  /* status */
  self->status_group = ADW_PREFERENCES_GROUP (adw_preferences_group_new ());
  self->error_label = rcp_feedback_label_new ();
  adw_preferences_group_add (self->status_group, self->error_label);
  self->usage_row = ADW_ACTION_ROW (adw_action_row_new ());
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (self->usage_row), "Use");
  adw_preferences_group_add (self->status_group, GTK_WIDGET (self->usage_row));
  self->freeze_row = ADW_ACTION_ROW (adw_action_row_new ());
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (self->freeze_row), "State");
  self->freeze_button = button ("Freeze", NULL);
  adw_action_row_add_suffix (self->freeze_row, self->freeze_button);
  g_signal_connect_swapped (self->freeze_button, "clicked", G_CALLBACK (freeze_cb), self);
  adw_preferences_group_add (self->status_group, GTK_WIDGET (self->freeze_row));
  adw_preferences_page_add (page, self->status_group);
  self->effects = RCP_LIMIT_EFFECTS (rcp_limit_effects_new ());
  adw_preferences_page_add (page, ADW_PREFERENCES_GROUP (self->effects));

  /* priority */
  group = ADW_PREFERENCES_GROUP (adw_preferences_group_new ());
  adw_preferences_group_set_title (group, "Priority");
  adw_preferences_group_set_description (group, "The app's share of the CPU when the CPU is busy");
  row = ADW_ACTION_ROW (adw_action_row_new ());
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), "CPU priority");
  self->priority_row = row;
  box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 0);
  gtk_widget_add_css_class (box, "linked");
  gtk_widget_set_valign (box, GTK_ALIGN_CENTER);
  for (guint i = 0; i <= RCP_N_PRESETS; i++)
    {
      GtkWidget *toggle = gtk_toggle_button_new_with_label (rcp_priority_to_label (i));
      g_autofree char *a11y = g_strdup_printf ("Priority %s", rcp_priority_to_label (i));

      gtk_accessible_update_property (GTK_ACCESSIBLE (toggle), GTK_ACCESSIBLE_PROPERTY_LABEL, a11y, -1);
      g_object_set_data (G_OBJECT (toggle), "priority", GINT_TO_POINTER (i));
      if (i > 0)
        gtk_toggle_button_set_group (GTK_TOGGLE_BUTTON (toggle),
                                     GTK_TOGGLE_BUTTON (self->priority_buttons[0]));
      g_signal_connect (toggle, "toggled", G_CALLBACK (priority_toggled_cb), self);
      gtk_box_append (GTK_BOX (box), toggle);
      self->priority_buttons[i] = toggle;
    }
  adw_action_row_add_suffix (row, box);
  adw_preferences_group_add (group, GTK_WIDGET (row));
  self->custom_row = spin_row ("Custom weight", NULL, "Apply custom weight", 1, 10000,
                               &self->custom_spin, &self->custom_apply);
  gtk_widget_set_sensitive (GTK_WIDGET (self->custom_row), FALSE);
  g_signal_connect_swapped (self->custom_apply, "clicked", G_CALLBACK (custom_apply_cb), self);
  g_signal_connect_swapped (gtk_editable_get_delegate (GTK_EDITABLE (self->custom_spin)), "activate", G_CALLBACK (custom_apply_cb), self);
  adw_preferences_group_add (group, GTK_WIDGET (self->custom_row));
  adw_preferences_page_add (page, group);

  /* limits */
  group = ADW_PREFERENCES_GROUP (adw_preferences_group_new ());
  adw_preferences_group_set_title (group, "Limits");
  row = spin_row ("Memory limit in MiB", "0 for no limit; the app is reclaimed above 7/8 of it",
                  "Apply memory limit", 0, 1024 * 1024, &self->memory_spin, &apply);
  g_signal_connect_swapped (apply, "clicked", G_CALLBACK (memory_apply_cb), self);
  g_signal_connect_swapped (gtk_editable_get_delegate (GTK_EDITABLE (self->memory_spin)), "activate", G_CALLBACK (memory_apply_cb), self);
  adw_preferences_group_add (group, GTK_WIDGET (row));

  self->would_kill_box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 12);
  gtk_widget_set_margin_top (self->would_kill_box, 6);
  gtk_widget_set_margin_bottom (self->would_kill_box, 6);
  self->would_kill_label = gtk_label_new (NULL);
  gtk_label_set_wrap (GTK_LABEL (self->would_kill_label), TRUE);
  gtk_label_set_xalign (GTK_LABEL (self->would_kill_label), 0);
  gtk_widget_set_hexpand (self->would_kill_label, TRUE);
  gtk_widget_add_css_class (self->would_kill_label, "warning");
  gtk_box_append (GTK_BOX (self->would_kill_box), self->would_kill_label);
  anyway = button ("Limit anyway", NULL);
  gtk_widget_add_css_class (anyway, "destructive-action");
  g_signal_connect_swapped (anyway, "clicked", G_CALLBACK (limit_anyway_cb), self);
  gtk_box_append (GTK_BOX (self->would_kill_box), anyway);
  gtk_widget_set_visible (self->would_kill_box, FALSE);
  adw_preferences_group_add (group, self->would_kill_box);

  row = spin_row ("CPU limit in percent", "Of one CPU; 0 for no limit", "Apply CPU limit",
                  0, 100.0 * g_get_num_processors (), &self->quota_spin, &apply);
  g_signal_connect_swapped (apply, "clicked", G_CALLBACK (quota_apply_cb), self);
  g_signal_connect_swapped (gtk_editable_get_delegate (GTK_EDITABLE (self->quota_spin)), "activate", G_CALLBACK (quota_apply_cb), self);
  adw_preferences_group_add (group, GTK_WIDGET (row));
  adw_preferences_page_add (page, group);

  /* keep, reset */
  group = ADW_PREFERENCES_GROUP (adw_preferences_group_new ());
  adw_preferences_group_add (group, button_row (self, "Keep these settings for this app",
                                                "Also for instances started later (a rule)", "Keep",
                                                "Keep these settings for this app", G_CALLBACK (keep_cb)));
  adw_preferences_group_add (group, button_row (self, "Reset", "Normal priority, no limits", "Reset",
                                                "Reset to defaults", G_CALLBACK (reset_cb)));
  adw_preferences_page_add (page, group);

  self->preferences_page = page;
  adw_bin_set_child (ADW_BIN (self), GTK_WIDGET (page));
}

static void
rcp_app_page_dispose (GObject *object)
{
  RcpAppPage *self = RCP_APP_PAGE (object);

  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  if (self->app != NULL)
    g_clear_signal_handler (&self->changed_id, self->app);
  g_clear_object (&self->app);
  g_clear_object (&self->client);
  G_OBJECT_CLASS (rcp_app_page_parent_class)->dispose (object);
}

static void
rcp_app_page_class_init (RcpAppPageClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = rcp_app_page_dispose;
}

static void
rcp_app_page_init (RcpAppPage *self)
{
  self->cancellable = g_cancellable_new ();
  build (self);
}

GtkWidget *
rcp_app_page_new (RcpClient *client)
{
  RcpAppPage *self = g_object_new (RCP_TYPE_APP_PAGE, NULL);

  self->client = g_object_ref (client);
  /* last: a history below the controls it explains */
  self->recent_changes = RCP_RECENT_CHANGES (rcp_recent_changes_new (client));
  adw_preferences_page_add (self->preferences_page, ADW_PREFERENCES_GROUP (self->recent_changes));
  return GTK_WIDGET (self);
}
