/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "rcp-app-row.h"
#include "rc-api-keys.h"

#include "rcp-format.h"
#include "rcp-sparkline.h"

struct _RcpAppRow
{
  AdwActionRow parent_instance;

  RcpApp    *app;
  GtkImage  *icon;
  GtkWidget *frozen_badge;
  GtkWidget *held_mark;
  GtkWidget *open_button;
};

G_DEFINE_TYPE (RcpAppRow, rcp_app_row, ADW_TYPE_ACTION_ROW)

enum { SIGNAL_OPEN, N_SIGNALS };
static guint signals[N_SIGNALS];

static void
update_icon (RcpAppRow *self)
{
  const char *icon_name = rcp_app_get_icon (self->app);
  GtkIconTheme *theme = gtk_icon_theme_get_for_display (gtk_widget_get_display (GTK_WIDGET (self)));

  if (icon_name != NULL && g_path_is_absolute (icon_name))
    {
      g_autoptr(GFile) file = g_file_new_for_path (icon_name);
      g_autoptr(GIcon) icon = g_file_icon_new (file);

      gtk_image_set_from_gicon (self->icon, icon);
      return;
    }
  /* A themed icon the theme lacks would show the "missing" image. */
  if (icon_name == NULL || !gtk_icon_theme_has_icon (theme, icon_name))
    icon_name = "application-x-executable";
  gtk_image_set_from_icon_name (self->icon, icon_name);
}

static void
app_changed_cb (RcpAppRow *self)
{
  g_autofree char *usage = NULL;
  g_autofree char *open_label = NULL;
  g_autofree char *held = NULL;

  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (self), rcp_app_get_name (self->app));
  usage = rcp_format_usage (rcp_app_get_n_instances (self->app),
                            rcp_app_get_cpu_percent (self->app),
                            rcp_app_get_memory_current (self->app),
                            rcp_app_get_uint64 (self->app, RC_KEY_MEMORY_MAX, G_MAXUINT64));
  adw_action_row_set_subtitle (ADW_ACTION_ROW (self), usage);
  gtk_widget_set_visible (self->frozen_badge, rcp_app_get_frozen (self->app));
  held = rcp_format_held (rcp_app_get_held (self->app));
  if (held != NULL)
    {
      gtk_widget_set_tooltip_text (self->held_mark, held);
      gtk_accessible_update_property (GTK_ACCESSIBLE (self->held_mark),
                                      GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, held, -1);
    }
  gtk_widget_set_visible (self->held_mark, held != NULL);
  open_label = g_strdup_printf ("Open %s", rcp_app_get_name (self->app));
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->open_button),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, open_label, -1);
  update_icon (self);
}

static void
open_cb (RcpAppRow *self)
{
  g_signal_emit (self, signals[SIGNAL_OPEN], 0);
}

static void
rcp_app_row_dispose (GObject *object)
{
  RcpAppRow *self = RCP_APP_ROW (object);

  g_clear_object (&self->app);
  G_OBJECT_CLASS (rcp_app_row_parent_class)->dispose (object);
}

static void
rcp_app_row_class_init (RcpAppRowClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = rcp_app_row_dispose;
  signals[SIGNAL_OPEN] = g_signal_new ("open", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                       0, NULL, NULL, NULL, G_TYPE_NONE, 0);
}

static void
rcp_app_row_init (RcpAppRow *self)
{
  /* the name is the desktop file's: text, never markup */
  adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (self), FALSE);
}

GtkWidget *
rcp_app_row_new (RcpApp *app)
{
  RcpAppRow *self = g_object_new (RCP_TYPE_APP_ROW, "activatable", TRUE,
                                  "title-lines", 1, NULL);

  self->app = g_object_ref (app);
  self->icon = GTK_IMAGE (gtk_image_new ());
  gtk_image_set_icon_size (self->icon, GTK_ICON_SIZE_LARGE);
  adw_action_row_add_prefix (ADW_ACTION_ROW (self), GTK_WIDGET (self->icon));

  self->frozen_badge = gtk_label_new ("Frozen");
  gtk_widget_add_css_class (self->frozen_badge, "rcp-badge");
  gtk_widget_set_valign (self->frozen_badge, GTK_ALIGN_CENTER);
  adw_action_row_add_suffix (ADW_ACTION_ROW (self), self->frozen_badge);
  self->held_mark = gtk_image_new_from_icon_name ("dialog-warning-symbolic");
  gtk_widget_add_css_class (self->held_mark, "warning");
  gtk_widget_set_valign (self->held_mark, GTK_ALIGN_CENTER);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->held_mark), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  "Held back by its limits", -1);
  adw_action_row_add_suffix (ADW_ACTION_ROW (self), self->held_mark);
  adw_action_row_add_suffix (ADW_ACTION_ROW (self), rcp_sparkline_new (app));

  self->open_button = gtk_button_new_from_icon_name ("go-next-symbolic");
  gtk_widget_set_valign (self->open_button, GTK_ALIGN_CENTER);
  gtk_widget_add_css_class (self->open_button, "flat");
  adw_action_row_add_suffix (ADW_ACTION_ROW (self), self->open_button);
  g_signal_connect_swapped (self->open_button, "clicked", G_CALLBACK (open_cb), self);
  g_signal_connect (self, "activated", G_CALLBACK (open_cb), NULL);

  g_signal_connect_object (app, "changed", G_CALLBACK (app_changed_cb), self, G_CONNECT_SWAPPED);
  app_changed_cb (self);
  return GTK_WIDGET (self);
}

RcpApp *
rcp_app_row_get_app (RcpAppRow *self)
{
  return self->app;
}
