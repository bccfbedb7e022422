/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "rcp-battery-page.h"
#include "rc-api-keys.h"

#include "rcp-energy-chart.h"
#include "rcp-feedback.h"
#include "rcp-format.h"

#define USEC_PER_HOUR  (G_USEC_PER_SEC * (gint64) 3600)
/* GetEnergyUsage's since_usec for all the history the daemon keeps (7 days) */
#define SINCE_ALL_DAYS 0
#define WEEK_CALL      RCP_ENERGY_CHART_HOURS

struct _RcpBatteryPage
{
  AdwBin parent_instance;

  RcpClient    *client;
  GCancellable *cancellable;

  /* One load: a GetEnergyUsage per hour of the chart (the daemon gives
   * totals since a time; an hour's energy is the difference of two) and,
   * for "Last 7 days", one more since the start of the history. */
  guint     pending;
  gboolean  load_again;
  gboolean  load_week;              /* the load has WEEK_CALL */
  gint64    loaded_at;              /* monotonic; 0: never */
  gint64    first_hour_usec;
  GVariant *replies[RCP_ENERGY_CHART_HOURS + 1];
  GError   *load_error;

  GtkWidget           *error_label;
  GtkWidget           *reason_label;
  AdwPreferencesGroup *chart_group;
  RcpEnergyChart      *chart;
  AdwPreferencesGroup *apps_group;
  GtkWidget           *apps_list;
  GtkWidget           *empty_label; /* GTK 4.8 leaves a list placeholder out of the accessibility tree */
  GtkWidget           *day_toggle;
  GtkWidget           *week_toggle;
};

G_DEFINE_TYPE (RcpBatteryPage, rcp_battery_page, ADW_TYPE_BIN)

enum { SIGNAL_OPEN_APP, N_SIGNALS };
static guint signals[N_SIGNALS];

typedef struct
{
  RcpBatteryPage *self;
  guint           index;   /* an hour of the chart, or WEEK_CALL */
} Call;

static gboolean
showing_week (RcpBatteryPage *self)
{
  return gtk_toggle_button_get_active (GTK_TOGGLE_BUTTON (self->week_toggle));
}

static void
open_app_cb (GtkWidget      *widget,
             RcpBatteryPage *self)
{
  const char *app_id = g_object_get_data (G_OBJECT (widget), "app-id");

  g_signal_emit (self, signals[SIGNAL_OPEN_APP], 0, app_id);
}

static GtkWidget *
app_icon (GtkWidget  *widget,
          const char *icon_name)
{
  GtkIconTheme *theme = gtk_icon_theme_get_for_display (gtk_widget_get_display (widget));
  GtkWidget *image;

  if (icon_name != NULL && g_path_is_absolute (icon_name))
    {
      g_autoptr(GFile) file = g_file_new_for_path (icon_name);
      g_autoptr(GIcon) icon = g_file_icon_new (file);

      image = gtk_image_new_from_gicon (icon);
    }
  else
    {
      /* a themed icon the theme lacks would show the "missing" image */
      if (icon_name == NULL || *icon_name == '\0' || !gtk_icon_theme_has_icon (theme, icon_name))
        icon_name = "application-x-executable";
      image = gtk_image_new_from_icon_name (icon_name);
    }
  gtk_image_set_icon_size (GTK_IMAGE (image), GTK_ICON_SIZE_LARGE);
  return image;
}

/* One app of GetEnergyUsage: name, icon, share, Wh, foreground and
 * background; its page opens from here while it runs. */
static GtkWidget *
app_row (RcpBatteryPage *self,
         GVariant       *usage)
{
  const char *app_id = "", *name = NULL, *icon = NULL;
  double energy = 0, foreground = 0, background = 0, share = 0;
  gboolean running = FALSE;
  g_autofree char *total_text = NULL;
  g_autofree char *foreground_text = NULL;
  g_autofree char *background_text = NULL;
  g_autofree char *subtitle = NULL;
  g_autofree char *share_text = NULL;
  g_autofree char *bar_label = NULL;
  g_autofree char *open_label = NULL;
  GtkWidget *row, *share_label, *bar, *open;

  g_variant_lookup (usage, RC_KEY_APP_ID, "&s", &app_id);
  g_variant_lookup (usage, RC_KEY_NAME, "&s", &name);
  g_variant_lookup (usage, RC_KEY_ICON, "&s", &icon);
  g_variant_lookup (usage, "Energy", "d", &energy);
  g_variant_lookup (usage, "ForegroundEnergy", "d", &foreground);
  g_variant_lookup (usage, "BackgroundEnergy", "d", &background);
  g_variant_lookup (usage, "Share", "d", &share);
  g_variant_lookup (usage, "Running", "b", &running);
  if (name == NULL || *name == '\0')
    name = app_id;
  share = CLAMP (share, 0.0, 1.0);

  row = adw_action_row_new ();
  /* names and numbers are text, never Pango markup */
  adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (row), FALSE);
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), name);
  total_text = rcp_format_energy (energy);
  foreground_text = rcp_format_energy (foreground);
  background_text = rcp_format_energy (background);
  subtitle = g_strdup_printf ("%s · foreground %s · background %s",
                              total_text, foreground_text, background_text);
  adw_action_row_set_subtitle (ADW_ACTION_ROW (row), subtitle);
  adw_action_row_add_prefix (ADW_ACTION_ROW (row), app_icon (GTK_WIDGET (self), icon));

  share_text = rcp_format_share (share);
  share_label = gtk_label_new (share_text);
  gtk_label_set_width_chars (GTK_LABEL (share_label), 5);
  gtk_label_set_xalign (GTK_LABEL (share_label), 1);
  gtk_widget_add_css_class (share_label, "numeric");
  adw_action_row_add_suffix (ADW_ACTION_ROW (row), share_label);
  bar = gtk_level_bar_new_for_interval (0, 1);
  /* one colour for every share: the default offsets would paint a small share as a warning */
  gtk_level_bar_remove_offset_value (GTK_LEVEL_BAR (bar), GTK_LEVEL_BAR_OFFSET_LOW);
  gtk_level_bar_remove_offset_value (GTK_LEVEL_BAR (bar), GTK_LEVEL_BAR_OFFSET_HIGH);
  gtk_level_bar_remove_offset_value (GTK_LEVEL_BAR (bar), GTK_LEVEL_BAR_OFFSET_FULL);
  gtk_level_bar_set_value (GTK_LEVEL_BAR (bar), share);
  gtk_widget_set_size_request (bar, 96, -1);
  gtk_widget_set_valign (bar, GTK_ALIGN_CENTER);
  bar_label = g_strdup_printf ("Share of %s", name);
  gtk_accessible_update_property (GTK_ACCESSIBLE (bar), GTK_ACCESSIBLE_PROPERTY_LABEL, bar_label, -1);
  adw_action_row_add_suffix (ADW_ACTION_ROW (row), bar);

  open = gtk_button_new_from_icon_name ("go-next-symbolic");
  gtk_widget_set_valign (open, GTK_ALIGN_CENTER);
  gtk_widget_add_css_class (open, "flat");
  open_label = g_strdup_printf ("Open %s", name);
  gtk_accessible_update_property (GTK_ACCESSIBLE (open), GTK_ACCESSIBLE_PROPERTY_LABEL, open_label, -1);
  /* an app that has stopped has no page: its history is all there is */
  gtk_widget_set_sensitive (open, running);
  gtk_widget_set_tooltip_text (open, running ? open_label : "Not running");
  g_object_set_data_full (G_OBJECT (open), "app-id", g_strdup (app_id), g_free);
  g_object_set_data_full (G_OBJECT (row), "app-id", g_strdup (app_id), g_free);
  g_signal_connect (open, "clicked", G_CALLBACK (open_app_cb), self);
  adw_action_row_add_suffix (ADW_ACTION_ROW (row), open);
  if (running)
    {
      gtk_list_box_row_set_activatable (GTK_LIST_BOX_ROW (row), TRUE);
      g_signal_connect (row, "activated", G_CALLBACK (open_app_cb), self);
    }
  return row;
}

static void
show_apps (RcpBatteryPage *self,
           GVariant       *reply)
{
  g_autoptr(GVariant) usage = g_variant_get_child_value (reply, 0);
  GtkWidget *child;
  GVariantIter iter;
  GVariant *one;
  gboolean empty = g_variant_n_children (usage) == 0;

  gtk_widget_set_visible (self->apps_list, !empty);
  gtk_widget_set_visible (self->empty_label, empty);
  while ((child = gtk_widget_get_first_child (self->apps_list)) != NULL)
    gtk_list_box_remove (GTK_LIST_BOX (self->apps_list), child);
  /* the daemon's order: most energy first */
  g_variant_iter_init (&iter, usage);
  while ((one = g_variant_iter_next_value (&iter)) != NULL)
    {
      gtk_list_box_append (GTK_LIST_BOX (self->apps_list), app_row (self, one));
      g_variant_unref (one);
    }
}

static double
total_energy (GVariant *reply)
{
  g_autoptr(GVariant) totals = g_variant_get_child_value (reply, 1);
  double energy = 0;

  g_variant_lookup (totals, "Energy", "d", &energy);
  return energy;
}

static void
show_source (RcpBatteryPage *self,
             GVariant       *reply)
{
  g_autoptr(GVariant) totals = g_variant_get_child_value (reply, 1);
  const char *source = "", *reason = NULL;

  g_variant_lookup (totals, "Source", "&s", &source);
  g_variant_lookup (totals, "Reason", "&s", &reason);
  if (*source == '\0')
    {
      g_autofree char *text = g_strdup_printf ("No battery or energy meter this user can read: %s",
                                               reason != NULL ? reason : "the daemon does not say why");

      gtk_label_set_text (GTK_LABEL (self->reason_label), text);
    }
  gtk_widget_set_visible (self->reason_label, *source == '\0');
  if (g_strcmp0 (source, "upower") == 0)
    adw_preferences_group_set_description (self->chart_group, "Measured on the battery while it discharges");
  else if (g_strcmp0 (source, "rapl") == 0)
    adw_preferences_group_set_description (self->chart_group, "Measured by the processor's energy counters");
  else
    adw_preferences_group_set_description (self->chart_group, NULL);
}

/* Every call of the load answered. */
static void
show_load (RcpBatteryPage *self)
{
  double hours[RCP_ENERGY_CHART_HOURS];

  self->loaded_at = g_get_monotonic_time ();
  if (self->load_error != NULL)
    {
      rcp_feedback_reply (GTK_WIDGET (self), self->error_label, NULL, self->load_error, NULL,
                          "Could not read the energy use");
      return;
    }
  gtk_widget_set_visible (self->error_label, FALSE);
  /* replies[i] holds the energy since hour i: hour i's own is what hour i + 1 does not hold */
  for (guint i = 0; i < RCP_ENERGY_CHART_HOURS; i++)
    {
      double since_this = total_energy (self->replies[i]);
      double since_next = i + 1 < RCP_ENERGY_CHART_HOURS ? total_energy (self->replies[i + 1]) : 0;

      /* a sample between two of the calls could make it negative */
      hours[i] = MAX (since_this - since_next, 0.0);
    }
  rcp_energy_chart_set_hours (self->chart, hours, self->first_hour_usec);
  show_source (self, self->replies[0]);
  show_apps (self, self->replies[self->load_week ? WEEK_CALL : 0]);
}

static void
clear_load (RcpBatteryPage *self)
{
  for (guint i = 0; i < G_N_ELEMENTS (self->replies); i++)
    g_clear_pointer (&self->replies[i], g_variant_unref);
  g_clear_error (&self->load_error);
}

static void
get_energy_usage_cb (GObject      *source,
                     GAsyncResult *result,
                     gpointer      user_data)
{
  g_autofree Call * call = user_data;
  g_autoptr(RcpBatteryPage) self = call->self;
  g_autoptr(GError) error = NULL;
  GVariant *reply = rcp_client_call_finish (RCP_CLIENT (source), result, &error);

  if (reply != NULL)
    self->replies[call->index] = reply;
  else if (self->load_error == NULL)
    self->load_error = g_steal_pointer (&error);
  if (--self->pending > 0)
    return;
  /* disposed (the window closed) while the calls were out: nothing to show, nothing to ask */
  if (self->client == NULL)
    {
      clear_load (self);
      return;
    }
  show_load (self);
  clear_load (self);
  if (self->load_again)
    {
      self->load_again = FALSE;
      rcp_battery_page_reload (self, TRUE);
    }
}

static void
call_get_energy_usage (RcpBatteryPage *self,
                       guint           index,
                       guint64         since_usec)
{
  Call *call = g_new0 (Call, 1);

  call->self = g_object_ref (self);
  call->index = index;
  self->pending++;
  rcp_client_call (self->client, "GetEnergyUsage", g_variant_new ("(t)", since_usec), FALSE,
                   self->cancellable, get_energy_usage_cb, call);
}

void
rcp_battery_page_reload (RcpBatteryPage *self,
                         gboolean        force)
{
  gint64 hour_now = g_get_real_time () / USEC_PER_HOUR;

  if (self->pending > 0)
    {
      self->load_again = self->load_again || force;
      return;
    }
  if (!force && self->loaded_at != 0 &&
      g_get_monotonic_time () - self->loaded_at < RCP_BATTERY_PAGE_REFRESH_SECONDS * G_USEC_PER_SEC)
    return;
  /* the chart's 24 hours end with the current one; "Last 24 hours" is the same hours */
  self->first_hour_usec = (hour_now - (RCP_ENERGY_CHART_HOURS - 1)) * USEC_PER_HOUR;
  for (guint i = 0; i < RCP_ENERGY_CHART_HOURS; i++)
    call_get_energy_usage (self, i, self->first_hour_usec + i * USEC_PER_HOUR);
  self->load_week = showing_week (self);
  if (self->load_week)
    call_get_energy_usage (self, WEEK_CALL, SINCE_ALL_DAYS);
}

static void
period_toggled_cb (RcpBatteryPage *self)
{
  gboolean week = showing_week (self);

  adw_preferences_group_set_title (self->apps_group, week ? "Apps, last 7 days" : "Apps, last 24 hours");
  rcp_battery_page_reload (self, TRUE);
}

static void
rcp_battery_page_dispose (GObject *object)
{
  RcpBatteryPage *self = RCP_BATTERY_PAGE (object);

  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  g_clear_object (&self->client);
  clear_load (self);
  G_OBJECT_CLASS (rcp_battery_page_parent_class)->dispose (object);
}

static void
rcp_battery_page_class_init (RcpBatteryPageClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = rcp_battery_page_dispose;
  signals[SIGNAL_OPEN_APP] = g_signal_new ("open-app", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                           0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);
}

static GtkWidget *
period_switch (RcpBatteryPage *self)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 0);

  gtk_widget_add_css_class (box, "linked");
  gtk_widget_set_valign (box, GTK_ALIGN_CENTER);
  self->day_toggle = gtk_toggle_button_new_with_label ("Last 24 hours");
  self->week_toggle = gtk_toggle_button_new_with_label ("Last 7 days");
  gtk_toggle_button_set_group (GTK_TOGGLE_BUTTON (self->week_toggle), GTK_TOGGLE_BUTTON (self->day_toggle));
  gtk_toggle_button_set_active (GTK_TOGGLE_BUTTON (self->day_toggle), TRUE);
  /* of the pair, one toggles at each switch */
  g_signal_connect_swapped (self->week_toggle, "toggled", G_CALLBACK (period_toggled_cb), self);
  gtk_box_append (GTK_BOX (box), self->day_toggle);
  gtk_box_append (GTK_BOX (box), self->week_toggle);
  return box;
}

static void
rcp_battery_page_init (RcpBatteryPage *self)
{
  AdwPreferencesPage *page = ADW_PREFERENCES_PAGE (adw_preferences_page_new ());
  AdwPreferencesGroup *group = ADW_PREFERENCES_GROUP (adw_preferences_group_new ());

  self->cancellable = g_cancellable_new ();
  self->error_label = rcp_feedback_label_new ();
  adw_preferences_group_add (group, self->error_label);
  /* the daemon's reason, as plain text */
  self->reason_label = gtk_label_new (NULL);
  gtk_label_set_wrap (GTK_LABEL (self->reason_label), TRUE);
  gtk_label_set_xalign (GTK_LABEL (self->reason_label), 0);
  gtk_widget_set_visible (self->reason_label, FALSE);
  adw_preferences_group_add (group, self->reason_label);
  adw_preferences_page_add (page, group);

  self->chart_group = ADW_PREFERENCES_GROUP (adw_preferences_group_new ());
  adw_preferences_group_set_title (self->chart_group, "Energy by hour, last 24 hours");
  self->chart = RCP_ENERGY_CHART (rcp_energy_chart_new ());
  adw_preferences_group_add (self->chart_group, GTK_WIDGET (self->chart));
  adw_preferences_page_add (page, self->chart_group);

  self->apps_group = ADW_PREFERENCES_GROUP (adw_preferences_group_new ());
  adw_preferences_group_set_title (self->apps_group, "Apps, last 24 hours");
  adw_preferences_group_set_header_suffix (self->apps_group, period_switch (self));
  self->empty_label = gtk_label_new ("No energy measured in this time");
  gtk_widget_add_css_class (self->empty_label, "dim-label");
  gtk_widget_set_margin_top (self->empty_label, 18);
  gtk_widget_set_margin_bottom (self->empty_label, 18);
  gtk_widget_set_visible (self->empty_label, FALSE);
  self->apps_list = gtk_list_box_new ();
  gtk_list_box_set_selection_mode (GTK_LIST_BOX (self->apps_list), GTK_SELECTION_NONE);
  gtk_widget_add_css_class (self->apps_list, "boxed-list");
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->apps_list), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  "Apps by share of the energy", -1);
  adw_preferences_group_add (self->apps_group, self->apps_list);
  adw_preferences_group_add (self->apps_group, self->empty_label);
  adw_preferences_page_add (page, self->apps_group);
  adw_bin_set_child (ADW_BIN (self), GTK_WIDGET (page));
}

GtkWidget *
rcp_battery_page_new (RcpClient *client)
{
  RcpBatteryPage *self = g_object_new (RCP_TYPE_BATTERY_PAGE, NULL);

  self->client = g_object_ref (client);
  return GTK_WIDGET (self);
}
