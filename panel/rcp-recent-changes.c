/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "rcp-recent-changes.h"

#include "rcp-format.h"

/* "5 min ago" moves on while the page is shown; a minute is its step. */
#define CLOCK_SECONDS 30

struct _RcpRecentChanges
{
  AdwPreferencesGroup parent_instance;

  RcpClient    *client;
  RcpApp       *app;
  GCancellable *cancellable;   /* the GetActions of this app and daemon */
  GPtrArray    *entries;       /* GVariant (tsssssss), newest first */
  GPtrArray    *rows;          /* AdwActionRow of each entry (the group owns them) */
  GPtrArray    *time_labels;   /* GtkLabel "5 min ago" of each row */
  GtkWidget    *empty_row;
  gboolean      loaded;        /* GetActions answered: no entry means none */
  guint         clock_id;
};

G_DEFINE_TYPE (RcpRecentChanges, rcp_recent_changes, ADW_TYPE_PREFERENCES_GROUP)

static guint64
entry_time (GVariant *action)
{
  guint64 time_usec;

  g_variant_get_child (action, 0, "t", &time_usec);
  return time_usec;
}

/* Whether @action is of the app shown: GetActions matches the AppID or the
 * unit the same way; an app without AppID goes by its unit name. */
static gboolean
is_of_app (RcpRecentChanges *self,
           GVariant         *action)
{
  const char *unit, *app_id;
  const char *shown;

  if (self->app == NULL)
    return FALSE;
  shown = rcp_app_get_app_id (self->app);
  g_variant_get (action, "(t&s&s&s&s&s&s&s)", NULL, &unit, &app_id, NULL, NULL, NULL, NULL, NULL);
  return g_str_equal (app_id, shown) || g_str_equal (unit, shown) ||
         rcp_app_has_instance (self->app, unit);
}

/* Keeps @action in its place by time, once: a signal that came while
 * GetActions was on its way is in its reply too. Returns whether the
 * rows change. */
static gboolean
add_entry (RcpRecentChanges *self,
           GVariant         *action)
{
  guint64 time_usec = entry_time (action);
  guint position = self->entries->len;

  for (guint i = 0; i < self->entries->len; i++)
    {
      GVariant *entry = g_ptr_array_index (self->entries, i);

      if (g_variant_equal (entry, action))
        return FALSE;
      if (position == self->entries->len && entry_time (entry) < time_usec)
        position = i;
    }
  if (position >= RCP_RECENT_CHANGES_MAX)
    return FALSE;
  g_ptr_array_insert (self->entries, (gint) position, g_variant_ref (action));
  if (self->entries->len > RCP_RECENT_CHANGES_MAX)
    g_ptr_array_remove_index (self->entries, self->entries->len - 1);
  return TRUE;
}

static void
update_times (RcpRecentChanges *self)
{
  gint64 now = g_get_real_time ();

  for (guint i = 0; i < self->entries->len; i++)
    {
      GVariant *action = g_ptr_array_index (self->entries, i);
      GtkWidget *row = g_ptr_array_index (self->rows, i);
      g_autofree char *ago = rcp_format_ago (entry_time (action), now);
      g_autofree char *description = g_strdup_printf ("%s, %s: %s",
                                                      adw_preferences_row_get_title (ADW_PREFERENCES_ROW (row)),
                                                      ago,
                                                      adw_action_row_get_subtitle (ADW_ACTION_ROW (row)));

      gtk_label_set_text (g_ptr_array_index (self->time_labels, i), ago);
      gtk_accessible_update_property (GTK_ACCESSIBLE (row), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION,
                                      description, -1);
    }
}

static GtkWidget *
entry_row (GVariant   *action,
           GtkWidget **out_time_label)
{
  const char *kind, *key, *old_value, *new_value, *reason;
  GtkWidget *row = adw_action_row_new ();
  GtkWidget *time_label = gtk_label_new (NULL);
  g_autofree char *what = NULL;

  g_variant_get (action, "(t&s&s&s&s&s&s&s)", NULL, NULL, NULL, &kind, &key, &old_value,
                 &new_value, &reason);
  what = rcp_format_action (kind, key, old_value, new_value);
  /* the daemon's words, and a rule file's name among them: text, not markup */
  adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (row), FALSE);
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), what);
  adw_action_row_set_subtitle (ADW_ACTION_ROW (row), reason);
  gtk_widget_add_css_class (time_label, "dim-label");
  adw_action_row_add_suffix (ADW_ACTION_ROW (row), time_label);
  *out_time_label = time_label;
  return row;
}

static void
show_entries (RcpRecentChanges *self)
{
  for (guint i = 0; i < self->rows->len; i++)
    adw_preferences_group_remove (ADW_PREFERENCES_GROUP (self), g_ptr_array_index (self->rows, i));
  g_ptr_array_set_size (self->rows, 0);
  g_ptr_array_set_size (self->time_labels, 0);
  for (guint i = 0; i < self->entries->len; i++)
    {
      GtkWidget *time_label;
      GtkWidget *row = entry_row (g_ptr_array_index (self->entries, i), &time_label);

      adw_preferences_group_add (ADW_PREFERENCES_GROUP (self), row);
      g_ptr_array_add (self->rows, row);
      g_ptr_array_add (self->time_labels, time_label);
    }
  gtk_widget_set_visible (self->empty_row, self->loaded && self->entries->len == 0);
  update_times (self);
}

static void
get_actions_cb (GObject      *source,
                GAsyncResult *result,
                gpointer      user_data)
{
  g_autoptr(RcpRecentChanges) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) reply = rcp_client_call_finish (RCP_CLIENT (source), result, &error);
  g_autoptr(GVariant) actions = NULL;
  GVariantIter iter;
  GVariant *action;

  if (reply == NULL)
    {
      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED) ||
          g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_CONNECTED))
        return;
      /* a daemon that keeps no record: nothing to show, rather than "none" */
      g_debug ("GetActions: %s", error->message);
      gtk_widget_set_visible (GTK_WIDGET (self), FALSE);
      return;
    }
  actions = g_variant_get_child_value (reply, 0);
  g_variant_iter_init (&iter, actions);
  while ((action = g_variant_iter_next_value (&iter)) != NULL)
    {
      add_entry (self, action);
      g_variant_unref (action);
    }
  self->loaded = TRUE;
  show_entries (self);
}

/* Reads the record again: a new app, or a new daemon (its record starts
 * empty; what the old one held went with it). */
static void
reload (RcpRecentChanges *self)
{
  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  self->cancellable = g_cancellable_new ();
  g_ptr_array_set_size (self->entries, 0);
  self->loaded = FALSE;
  gtk_widget_set_visible (GTK_WIDGET (self), TRUE);
  show_entries (self);
  if (self->app == NULL || !rcp_client_get_available (self->client))
    return;
  rcp_client_call (self->client, "GetActions",
                   g_variant_new ("(st)", rcp_app_get_app_id (self->app), (guint64) 0), FALSE,
                   self->cancellable, get_actions_cb, g_object_ref (self));
}

static void
action_taken_cb (RcpRecentChanges *self,
                 GVariant         *action)
{
  if (is_of_app (self, action) && add_entry (self, action))
    show_entries (self);
}

static void
available_cb (RcpRecentChanges *self)
{
  if (rcp_client_get_available (self->client))
    reload (self);
  else
    g_cancellable_cancel (self->cancellable);
}

void
rcp_recent_changes_set_app (RcpRecentChanges *self,
                            RcpApp           *app)
{
  if (self->app == app)
    return;
  g_set_object (&self->app, app);
  reload (self);
}

static gboolean
clock_cb (gpointer user_data)
{
  update_times (user_data);
  return G_SOURCE_CONTINUE;
}

/* The clock runs only while the group can be seen: a hidden panel does not wake up. */
static void
rcp_recent_changes_map (GtkWidget *widget)
{
  RcpRecentChanges *self = RCP_RECENT_CHANGES (widget);

  GTK_WIDGET_CLASS (rcp_recent_changes_parent_class)->map (widget);
  update_times (self);
  if (self->clock_id == 0)
    self->clock_id = g_timeout_add_seconds (CLOCK_SECONDS, clock_cb, self);
}

static void
rcp_recent_changes_unmap (GtkWidget *widget)
{
  RcpRecentChanges *self = RCP_RECENT_CHANGES (widget);

  g_clear_handle_id (&self->clock_id, g_source_remove);
  GTK_WIDGET_CLASS (rcp_recent_changes_parent_class)->unmap (widget);
}

static void
rcp_recent_changes_dispose (GObject *object)
{
  RcpRecentChanges *self = RCP_RECENT_CHANGES (object);

  g_clear_handle_id (&self->clock_id, g_source_remove);
  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  if (self->client != NULL)
    g_signal_handlers_disconnect_by_data (self->client, self);
  g_clear_object (&self->client);
  g_clear_object (&self->app);
  G_OBJECT_CLASS (rcp_recent_changes_parent_class)->dispose (object);
}

static void
rcp_recent_changes_finalize (GObject *object)
{
  RcpRecentChanges *self = RCP_RECENT_CHANGES (object);

  g_ptr_array_unref (self->entries);
  g_ptr_array_unref (self->rows);
  g_ptr_array_unref (self->time_labels);
  G_OBJECT_CLASS (rcp_recent_changes_parent_class)->finalize (object);
}

static void
rcp_recent_changes_class_init (RcpRecentChangesClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = rcp_recent_changes_dispose;
  object_class->finalize = rcp_recent_changes_finalize;
  widget_class->map = rcp_recent_changes_map;
  widget_class->unmap = rcp_recent_changes_unmap;
}

static void
rcp_recent_changes_init (RcpRecentChanges *self)
{
  AdwPreferencesGroup *group = ADW_PREFERENCES_GROUP (self);

  self->cancellable = g_cancellable_new ();
  self->entries = g_ptr_array_new_with_free_func ((GDestroyNotify) g_variant_unref);
  self->rows = g_ptr_array_new ();
  self->time_labels = g_ptr_array_new ();
  adw_preferences_group_set_title (group, "Recent changes");
  adw_preferences_group_set_description (group, "What the system changed for this app by itself, and why");
  self->empty_row = adw_action_row_new ();
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (self->empty_row), "No automatic changes");
  gtk_widget_set_visible (self->empty_row, FALSE);
  adw_preferences_group_add (group, self->empty_row);
}

GtkWidget *
rcp_recent_changes_new (RcpClient *client)
{
  RcpRecentChanges *self = g_object_new (RCP_TYPE_RECENT_CHANGES, NULL);

  self->client = g_object_ref (client);
  g_signal_connect_swapped (client, "action-taken", G_CALLBACK (action_taken_cb), self);
  g_signal_connect_swapped (client, "notify::available", G_CALLBACK (available_cb), self);
  return GTK_WIDGET (self);
}
