/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "rcp-client.h"

#include "rc-error.h"
#include "rc-generated.h"
#include "rc-api-keys.h"
#include "rc-names.h"

/* Reads answer at once; a write may wait for the user at a polkit dialog. */
#define READ_TIMEOUT_MS        25000
#define INTERACTIVE_TIMEOUT_MS (5 * 60 * 1000)

struct _RcpClient
{
  GObject parent_instance;

  GBusType               bus_type;
  guint                  watch_id;
  GDBusConnection       *connection;
  RcDBusResourceControl *proxy;
  GCancellable          *cancellable;   /* everything of one daemon instance */
  GListStore            *apps;          /* RcpApp, sorted by AppID */
  GHashTable            *apps_by_id;    /* AppID -> RcpApp (owned by apps) */
  gboolean               available;
  gboolean               refreshing;
};

G_DEFINE_TYPE (RcpClient, rcp_client, G_TYPE_OBJECT)

enum { PROP_0, PROP_AVAILABLE, N_PROPS };
static GParamSpec *properties[N_PROPS];

enum { SIGNAL_REFRESHED, SIGNAL_STATUS_CHANGED, SIGNAL_ACTION_TAKEN, N_SIGNALS };
static guint signals[N_SIGNALS];

static gint
compare_apps (gconstpointer a,
              gconstpointer b,
              gpointer      user_data)
{
  return g_strcmp0 (rcp_app_get_app_id ((RcpApp *) a), rcp_app_get_app_id ((RcpApp *) b));
}

static const char *
record_app_id (GVariant *record)
{
  const char *app_id = NULL;

  if (g_variant_lookup (record, RC_KEY_APP_ID, "&s", &app_id) && *app_id != '\0')
    return app_id;
  if (g_variant_lookup (record, RC_KEY_UNIT, "&s", &app_id))
    return app_id;
  return NULL;
}

static RcpApp *
ensure_app (RcpClient  *self,
            const char *app_id)
{
  RcpApp *app = g_hash_table_lookup (self->apps_by_id, app_id);

  if (app == NULL)
    {
      g_autoptr(RcpApp) created = rcp_app_new (app_id);

      app = created;
      g_hash_table_insert (self->apps_by_id, g_strdup (app_id), app);
      g_list_store_insert_sorted (self->apps, created, compare_apps, NULL);
    }
  return app;
}

static void
remove_app (RcpClient *self,
            RcpApp    *app)
{
  guint position;

  g_hash_table_remove (self->apps_by_id, rcp_app_get_app_id (app));
  if (g_list_store_find (self->apps, app, &position))
    g_list_store_remove (self->apps, position);
}

static RcpApp *
app_for_unit (RcpClient  *self,
              const char *unit)
{
  GHashTableIter iter;
  gpointer value;

  g_hash_table_iter_init (&iter, self->apps_by_id);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    if (rcp_app_has_instance (value, unit))
      return value;
  return NULL;
}

static void
set_available (RcpClient *self,
               gboolean   available)
{
  if (self->available == available)
    return;
  self->available = available;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_AVAILABLE]);
}

static void
apply_listing (RcpClient *self,
               GVariant  *records)
{
  g_autoptr(GHashTable) units = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr(GPtrArray) gone = g_ptr_array_new ();
  gint64 now = g_get_monotonic_time ();
  GVariantIter iter;
  GVariant *record;

  g_variant_iter_init (&iter, records);
  while ((record = g_variant_iter_next_value (&iter)) != NULL)
    {
      const char *app_id = record_app_id (record);
      const char *unit = NULL;

      if (app_id != NULL && g_variant_lookup (record, RC_KEY_UNIT, "&s", &unit))
        {
          g_hash_table_add (units, (gpointer) unit);
          rcp_app_update_instance (ensure_app (self, app_id), record);
        }
      g_variant_unref (record);
    }
  for (guint i = 0; i < g_list_model_get_n_items (G_LIST_MODEL (self->apps)); i++)
    {
      g_autoptr(RcpApp) app = g_list_model_get_item (G_LIST_MODEL (self->apps), i);

      rcp_app_retain_instances (app, units);
      if (rcp_app_get_n_instances (app) == 0)
        g_ptr_array_add (gone, app);
      else
        rcp_app_sample (app, now);
    }
  for (guint i = 0; i < gone->len; i++)
    remove_app (self, g_ptr_array_index (gone, i));
  g_signal_emit (self, signals[SIGNAL_REFRESHED], 0);
  g_signal_emit (self, signals[SIGNAL_STATUS_CHANGED], 0);
}

static void
list_apps_cb (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  g_autoptr(RcpClient) self = user_data;
  g_autoptr(GVariant) records = NULL;
  g_autoptr(GError) error = NULL;

  self->refreshing = FALSE;
  if (!rc_dbus_resource_control_call_list_app_records_finish (RC_DBUS_RESOURCE_CONTROL (source),
                                                              &records, result, &error))
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        g_warning ("ListAppRecords: %s", error->message);
      return;
    }
  apply_listing (self, records);
  set_available (self, TRUE);
}

void
rcp_client_refresh (RcpClient *self)
{
  if (self->proxy == NULL || self->refreshing)
    return;
  self->refreshing = TRUE;
  rc_dbus_resource_control_call_list_app_records (self->proxy, self->cancellable, list_apps_cb,
                                                  g_object_ref (self));
}

static void
app_added_cb (RcDBusResourceControl *proxy,
              const char            *unit,
              GVariant              *record,
              RcpClient             *self)
{
  const char *app_id = record_app_id (record);

  if (app_id != NULL)
    rcp_app_update_instance (ensure_app (self, app_id), record);
  g_signal_emit (self, signals[SIGNAL_STATUS_CHANGED], 0);
}

static void
app_removed_cb (RcDBusResourceControl *proxy,
                const char            *unit,
                RcpClient             *self)
{
  RcpApp *app = app_for_unit (self, unit);

  if (app == NULL)
    return;
  rcp_app_remove_instance (app, unit);
  if (rcp_app_get_n_instances (app) == 0)
    remove_app (self, app);
  g_signal_emit (self, signals[SIGNAL_STATUS_CHANGED], 0);
}

static void
app_changed_cb (RcDBusResourceControl *proxy,
                const char            *unit,
                GVariant              *changed,
                RcpClient             *self)
{
  RcpApp *app = app_for_unit (self, unit);
  g_autoptr(GVariant) audio = g_variant_lookup_value (changed, RC_KEY_AUDIO, NULL);

  if (app != NULL)
    rcp_app_apply_changes (app, unit, changed);
  if (audio != NULL)
    g_signal_emit (self, signals[SIGNAL_STATUS_CHANGED], 0);
}

static void
action_taken_cb (RcDBusResourceControl *proxy,
                 guint64                time_usec,
                 const char            *unit,
                 const char            *app_id,
                 const char            *kind,
                 const char            *key,
                 const char            *old_value,
                 const char            *new_value,
                 const char            *reason,
                 RcpClient             *self)
{
  g_autoptr(GVariant) action = g_variant_ref_sink (g_variant_new ("(tsssssss)", time_usec, unit,
                                                                  app_id, kind, key, old_value,
                                                                  new_value, reason));

  g_signal_emit (self, signals[SIGNAL_ACTION_TAKEN], 0, action);
}

static void
properties_changed_cb (RcpClient *self)
{
  g_signal_emit (self, signals[SIGNAL_STATUS_CHANGED], 0);
}

static void
proxy_ready_cb (GObject      *source,
                GAsyncResult *result,
                gpointer      user_data)
{
  g_autoptr(RcpClient) self = user_data;
  g_autoptr(GError) error = NULL;
  RcDBusResourceControl *proxy = rc_dbus_resource_control_proxy_new_finish (result, &error);

  if (proxy == NULL)
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        g_warning ("Cannot reach %s: %s", RC_DBUS_NAME, error->message);
      return;
    }
  g_clear_object (&self->proxy);
  self->proxy = proxy;
  g_dbus_proxy_set_default_timeout (G_DBUS_PROXY (proxy), READ_TIMEOUT_MS);
  g_signal_connect_object (proxy, "app-added", G_CALLBACK (app_added_cb), self, 0);
  g_signal_connect_object (proxy, "app-removed", G_CALLBACK (app_removed_cb), self, 0);
  g_signal_connect_object (proxy, "app-changed", G_CALLBACK (app_changed_cb), self, 0);
  g_signal_connect_object (proxy, "action-taken", G_CALLBACK (action_taken_cb), self, 0);
  g_signal_connect_object (proxy, "g-properties-changed", G_CALLBACK (properties_changed_cb), self,
                           G_CONNECT_SWAPPED);
  rcp_client_refresh (self);
}

static void
forget_daemon (RcpClient *self)
{
  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  self->cancellable = g_cancellable_new ();
  self->refreshing = FALSE;
  if (self->proxy != NULL)
    g_signal_handlers_disconnect_by_data (self->proxy, self);
  g_clear_object (&self->proxy);
  g_hash_table_remove_all (self->apps_by_id);
  g_list_store_remove_all (self->apps);
}

static void
name_appeared_cb (GDBusConnection *connection,
                  const char      *name,
                  const char      *name_owner,
                  gpointer         user_data)
{
  RcpClient *self = user_data;

  /* A new daemon instance: nothing of the old one's state is valid. */
  forget_daemon (self);
  g_set_object (&self->connection, connection);
  rc_dbus_resource_control_proxy_new (connection, G_DBUS_PROXY_FLAGS_DO_NOT_AUTO_START,
                                      name_owner, RC_DBUS_PATH, self->cancellable,
                                      proxy_ready_cb, g_object_ref (self));
}

static void
name_vanished_cb (GDBusConnection *connection,
                  const char      *name,
                  gpointer         user_data)
{
  RcpClient *self = user_data;

  /* first "not running" (also the first time: news even when it never ran),
   * so that the window leaves an app's page before its app goes */
  self->available = FALSE;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_AVAILABLE]);
  forget_daemon (self);
}

gboolean
rcp_client_get_available (RcpClient *self)
{
  return self->available;
}

gboolean
rcp_client_get_freeze_supported (RcpClient *self)
{
  return self->proxy == NULL || rc_dbus_resource_control_get_freeze_supported (self->proxy);
}

/* A property an older daemon may not have: NULL. */
static char *
dup_string_property (RcpClient  *self,
                     const char *name)
{
  g_autoptr(GVariant) value = NULL;

  if (self->proxy == NULL)
    return NULL;
  value = g_dbus_proxy_get_cached_property (G_DBUS_PROXY (self->proxy), name);
  if (value == NULL || !g_variant_is_of_type (value, G_VARIANT_TYPE_STRING))
    return NULL;
  return g_variant_dup_string (value, NULL);
}

/* " · Held back for the focused app: Name (CPU weight 25), ...": the
 * daemon's GuardHeld, when it holds any. */
static void
append_guard_held (RcpClient *self,
                   GString   *text)
{
  g_autoptr(GVariant) held = NULL;
  GVariantIter iter;
  const char *app_id;
  guint32 weight;
  guint n = 0;

  if (self->proxy != NULL)
    held = g_dbus_proxy_get_cached_property (G_DBUS_PROXY (self->proxy), "GuardHeld");
  if (held == NULL || !g_variant_is_of_type (held, G_VARIANT_TYPE ("a(ssu)")))
    return;
  g_variant_iter_init (&iter, held);
  while (g_variant_iter_next (&iter, "(&s&su)", NULL, &app_id, &weight))
    {
      RcpApp *app = rcp_client_lookup_app (self, app_id);

      g_string_append_printf (text, "%s%s (CPU weight %u)",
                              n++ > 0 ? ", " : " · Held back for the focused app: ",
                              app != NULL ? rcp_app_get_name (app) : app_id, weight);
    }
}

char *
rcp_client_dup_status (RcpClient *self)
{
  g_autofree char *focus = dup_string_property (self, "FocusSource");
  g_autofree char *profile = dup_string_property (self, "PowerProfile");
  g_autoptr(GVariant) battery = NULL;
  GString *text = g_string_new (NULL);
  guint held = 0;

  if (self->proxy != NULL)
    battery = g_dbus_proxy_get_cached_property (G_DBUS_PROXY (self->proxy), "OnBattery");
  g_string_append_printf (text, "Focus: %s", focus != NULL && *focus != '\0' ? focus : "unknown");
  g_string_append_printf (text, " · Power profile: %s",
                          profile == NULL ? "unknown" : *profile != '\0' ? profile : "none");
  if (battery != NULL && g_variant_is_of_type (battery, G_VARIANT_TYPE_BOOLEAN))
    g_string_append (text, g_variant_get_boolean (battery) ? ", on battery" : ", on mains power");
  g_string_append (text, " · Held for audio: ");
  for (guint i = 0; i < g_list_model_get_n_items (G_LIST_MODEL (self->apps)); i++)
    {
      g_autoptr(RcpApp) app = g_list_model_get_item (G_LIST_MODEL (self->apps), i);

      if (rcp_app_get_audio (app))
        g_string_append_printf (text, "%s%s", held++ > 0 ? ", " : "", rcp_app_get_name (app));
    }
  if (held == 0)
    g_string_append (text, "none");
  append_guard_held (self, text);
  return g_string_free (text, FALSE);
}

GListModel *
rcp_client_get_apps (RcpClient *self)
{
  return G_LIST_MODEL (self->apps);
}

RcpApp *
rcp_client_lookup_app (RcpClient  *self,
                       const char *app_id)
{
  return g_hash_table_lookup (self->apps_by_id, app_id);
}

static void
call_cb (GObject      *source,
         GAsyncResult *result,
         gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  GError *error = NULL;
  GVariant *reply = g_dbus_proxy_call_finish (G_DBUS_PROXY (source), result, &error);

  if (reply == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, reply, (GDestroyNotify) g_variant_unref);
}

void
rcp_client_call (RcpClient          *self,
                 const char         *method,
                 GVariant           *parameters,
                 gboolean            interactive,
                 GCancellable       *cancellable,
                 GAsyncReadyCallback callback,
                 gpointer            user_data)
{
  g_autoptr(GTask) task = g_task_new (self, cancellable, callback, user_data);
  g_autoptr(GVariant) params = parameters != NULL ? g_variant_ref_sink (parameters) : NULL;

  g_task_set_source_tag (task, rcp_client_call);
  if (self->proxy == NULL)
    {
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_NOT_CONNECTED,
                               "resource-controld is not running");
      return;
    }
  g_dbus_proxy_call (G_DBUS_PROXY (self->proxy), method, params,
                     interactive ? G_DBUS_CALL_FLAGS_ALLOW_INTERACTIVE_AUTHORIZATION
                                 : G_DBUS_CALL_FLAGS_NONE,
                     interactive ? INTERACTIVE_TIMEOUT_MS : READ_TIMEOUT_MS,
                     cancellable, call_cb, g_steal_pointer (&task));
}

GVariant *
rcp_client_call_finish (RcpClient    *self,
                        GAsyncResult *result,
                        GError      **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

char *
rcp_client_error_message (const GError *error)
{
  g_autoptr(GError) copy = g_error_copy (error);

  g_dbus_error_strip_remote_error (copy);
  return g_strdup (copy->message);
}

static void
rcp_client_get_property (GObject    *object,
                         guint       prop_id,
                         GValue     *value,
                         GParamSpec *pspec)
{
  RcpClient *self = RCP_CLIENT (object);

  switch (prop_id)
    {
    case PROP_AVAILABLE:
      g_value_set_boolean (value, self->available);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
rcp_client_dispose (GObject *object)
{
  RcpClient *self = RCP_CLIENT (object);

  if (self->watch_id != 0)
    {
      g_bus_unwatch_name (self->watch_id);
      self->watch_id = 0;
    }
  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  g_clear_object (&self->proxy);
  g_clear_object (&self->connection);
  g_clear_pointer (&self->apps_by_id, g_hash_table_unref);
  g_clear_object (&self->apps);
  G_OBJECT_CLASS (rcp_client_parent_class)->dispose (object);
}

static void
rcp_client_class_init (RcpClientClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->get_property = rcp_client_get_property;
  object_class->dispose = rcp_client_dispose;

  properties[PROP_AVAILABLE] = g_param_spec_boolean ("available", NULL, NULL, FALSE,
                                                     G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  signals[SIGNAL_REFRESHED] = g_signal_new ("refreshed", G_TYPE_FROM_CLASS (klass),
                                            G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                            G_TYPE_NONE, 0);
  signals[SIGNAL_STATUS_CHANGED] = g_signal_new ("status-changed", G_TYPE_FROM_CLASS (klass),
                                                 G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                                 G_TYPE_NONE, 0);
  signals[SIGNAL_ACTION_TAKEN] = g_signal_new ("action-taken", G_TYPE_FROM_CLASS (klass),
                                               G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                               G_TYPE_NONE, 1, G_TYPE_VARIANT);
}

static void
rcp_client_init (RcpClient *self)
{
  /* Registers the daemon's named errors: its replies arrive as RC_ERROR codes. */
  (void) RC_ERROR;
  self->cancellable = g_cancellable_new ();
  self->apps = g_list_store_new (RCP_TYPE_APP);
  self->apps_by_id = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
}

RcpClient *
rcp_client_new (GBusType bus_type)
{
  RcpClient *self = g_object_new (RCP_TYPE_CLIENT, NULL);

  self->bus_type = bus_type;
  self->watch_id = g_bus_watch_name (bus_type, RC_DBUS_NAME, G_BUS_NAME_WATCHER_FLAGS_NONE,
                                     name_appeared_cb, name_vanished_cb, self, NULL);
  return self;
}
