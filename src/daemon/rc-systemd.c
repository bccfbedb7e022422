/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "rc-systemd.h"
#include "rc-systemd-bus.h"
#include "rc-subscription.h"
#include "rc-start-jobs.h"
#include "rc-error.h"
#include "rc-names.h"

#include <systemd/sd-bus.h>

struct _RcSystemd {
  GObject          parent_instance;
  GDBusConnection *connection;
  guint            name_watch_id;
  guint            unit_new_id;
  guint            unit_removed_id;
  guint            unit_changed_id;
  guint            reloading_id;
  guint            startup_finished_id;
  RcStartJobs     *starts;   /* transient units being started, waiting for their jobs */
  gboolean         present;
};

enum {
  SIGNAL_APPEARED,
  SIGNAL_VANISHED,
  SIGNAL_UNIT_NEW,
  SIGNAL_UNIT_REMOVED,
  SIGNAL_UNIT_CHANGED,
  SIGNAL_FREEZER_REACHED,
  SIGNAL_SETTINGS_APPLIED,
  SIGNAL_RELOADED,
  SIGNAL_START_ENDED,
  N_SIGNALS
};
static guint signals[N_SIGNALS];

G_DEFINE_TYPE (RcSystemd, rc_systemd, G_TYPE_OBJECT);

static void
call_cb (GObject      *source,
         GAsyncResult *result,
         gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  g_autoptr(GError) error = NULL;
  GVariant *reply;

  reply = g_dbus_connection_call_finish (G_DBUS_CONNECTION (source), result, &error);
  if (reply == NULL)
    g_task_return_error (task, rc_systemd_error_from_dbus (error));
  else
    g_task_return_pointer (task, reply, (GDestroyNotify) g_variant_unref);
}

static void
call_systemd (RcSystemd          *self,
              const char         *object_path,
              const char         *interface,
              const char         *method,
              GVariant           *parameters,
              const GVariantType *reply_type,
              GCancellable       *cancellable,
              gpointer            source_tag,
              GAsyncReadyCallback callback,
              gpointer            user_data)
{
  GTask *task = g_task_new (self, cancellable, callback, user_data);

  g_task_set_source_tag (task, source_tag);
  /* Never start a service manager by asking it something. */
  g_dbus_connection_call (self->connection, SYSTEMD_DBUS_NAME, object_path, interface,
                          method, parameters, reply_type, G_DBUS_CALL_FLAGS_NO_AUTO_START,
                          RC_SYSTEMD_TIMEOUT_MSEC, cancellable, call_cb, task);
}

/* Whether @result is the task of one of @self's calls, the one @source_tag made. */
static gboolean
is_call_of (RcSystemd    *self,
            GAsyncResult *result,
            gpointer      source_tag)
{
  return g_task_is_valid (result, self) && g_task_get_source_tag (G_TASK (result)) == source_tag;
}

static GVariant *
call_systemd_finish (RcSystemd    *self,
                     GAsyncResult *result,
                     gpointer      source_tag,
                     GError      **error)
{
  g_return_val_if_fail (is_call_of (self, result, source_tag), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

/* For methods that return nothing. */
static gboolean
call_systemd_finish_empty (RcSystemd    *self,
                           GAsyncResult *result,
                           gpointer      source_tag,
                           GError      **error)
{
  g_autoptr(GVariant) reply = call_systemd_finish (self, result, source_tag, error);

  return reply != NULL;
}

/* For the calls whose task returns a boolean. */
static gboolean
task_finish_boolean (RcSystemd    *self,
                     GAsyncResult *result,
                     gpointer      source_tag,
                     GError      **error)
{
  g_return_val_if_fail (is_call_of (self, result, source_tag), FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}

static void
call_manager (RcSystemd          *self,
              const char         *method,
              GVariant           *parameters,
              const GVariantType *reply_type,
              GCancellable       *cancellable,
              gpointer            source_tag,
              GAsyncReadyCallback callback,
              gpointer            user_data)
{
  call_systemd (self, SYSTEMD_DBUS_PATH, SYSTEMD_MANAGER_INTERFACE, method, parameters,
                reply_type, cancellable, source_tag, callback, user_data);
}

void
rc_systemd_subscribe_async (RcSystemd          *self,
                            GCancellable       *cancellable,
                            GAsyncReadyCallback callback,
                            gpointer            user_data)
{
  call_manager (self, "Subscribe", NULL, G_VARIANT_TYPE_UNIT, cancellable,
                rc_systemd_subscribe_async, callback, user_data);
}

gboolean
rc_systemd_subscribe_finish (RcSystemd    *self,
                             GAsyncResult *result,
                             GError      **error)
{
  return call_systemd_finish_empty (self, result, rc_systemd_subscribe_async, error);
}

void
rc_systemd_list_units_async (RcSystemd          *self,
                             const char * const *states,
                             const char * const *patterns,
                             GCancellable       *cancellable,
                             GAsyncReadyCallback callback,
                             gpointer            user_data)
{
  call_manager (self, "ListUnitsByPatterns",
                g_variant_new ("(^as^as)", states, patterns),
                G_VARIANT_TYPE ("(a(ssssssouso))"), cancellable,
                rc_systemd_list_units_async, callback, user_data);
}

GVariant *
rc_systemd_list_units_finish (RcSystemd    *self,
                              GAsyncResult *result,
                              GError      **error)
{
  g_autoptr(GVariant) reply = call_systemd_finish (self, result, rc_systemd_list_units_async, error);

  return reply != NULL ? g_variant_get_child_value (reply, 0) : NULL;
}

typedef struct {
  GVariantDict        dict;
  const char * const *keys;
  guint               pending;
  GError             *error;
} GetAllData;

static void
get_all_data_free (GetAllData *data)
{
  g_variant_dict_clear (&data->dict);
  g_clear_error (&data->error);
  g_free (data);
}

/* Child by child, not with g_variant_iter_loop ("{&sv}"): that parses its
 * format string for each of some 250 properties, and its "&s" makes GLib
 * serialise the whole reply (GDBus builds it as a tree) first. */
static void
merge_properties (GetAllData *data,
                  GVariant   *props)
{
  gsize n = g_variant_n_children (props);

  for (gsize i = 0; i < n; i++)
    {
      g_autoptr(GVariant) entry = g_variant_get_child_value (props, i);
      g_autoptr(GVariant) key = g_variant_get_child_value (entry, 0);
      const char *name = g_variant_get_string (key, NULL);
      g_autoptr(GVariant) boxed = NULL;
      g_autoptr(GVariant) value = NULL;

      if (data->keys != NULL && !g_strv_contains (data->keys, name))
        continue;
      boxed = g_variant_get_child_value (entry, 1);
      value = g_variant_get_variant (boxed);
      g_variant_dict_insert_value (&data->dict, name, value);
    }
}

/* One reply of the unit's GetAll or of a Get of its type interface. */
typedef struct {
  GTask      *task;
  const char *key;    /* the property a Get asked for; NULL for GetAll */
} PropertiesCall;

static void
get_all_cb (GObject      *source,
            GAsyncResult *result,
            gpointer      user_data)
{
  PropertiesCall *call = user_data;
  g_autoptr(GTask) task = call->task;
  GetAllData *data = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) reply = NULL;

  reply = g_dbus_connection_call_finish (G_DBUS_CONNECTION (source), result, &error);
  if (reply == NULL && data->error == NULL)
    data->error = rc_systemd_error_from_dbus (error);
  if (reply != NULL)
    {
      g_autoptr(GVariant) child = g_variant_get_child_value (reply, 0);

      if (call->key == NULL)
        merge_properties (data, child);
      else
        {
          g_autoptr(GVariant) value = g_variant_get_variant (child);

          g_variant_dict_insert_value (&data->dict, call->key, value);
        }
    }
  g_free (call);

  if (--data->pending > 0)
    return;
  if (data->error != NULL)
    g_task_return_error (task, g_steal_pointer (&data->error));
  else
    g_task_return_pointer (task, g_variant_ref_sink (g_variant_dict_end (&data->dict)),
                           (GDestroyNotify) g_variant_unref);
}

static void
call_properties (RcSystemd    *self,
                 GTask        *task,
                 const char   *object_path,
                 const char   *interface,
                 const char   *key,
                 GCancellable *cancellable)
{
  PropertiesCall *call = g_new0 (PropertiesCall, 1);

  call->task = g_object_ref (task);
  call->key = key;
  g_dbus_connection_call (self->connection, SYSTEMD_DBUS_NAME, object_path,
                          DBUS_PROPERTIES_INTERFACE, key == NULL ? "GetAll" : "Get",
                          key == NULL ? g_variant_new ("(s)", interface)
                                      : g_variant_new ("(ss)", interface, key),
                          key == NULL ? G_VARIANT_TYPE ("(a{sv})") : G_VARIANT_TYPE ("(v)"),
                          G_DBUS_CALL_FLAGS_NO_AUTO_START, RC_SYSTEMD_TIMEOUT_MSEC,
                          cancellable, get_all_cb, call);
}

void
rc_systemd_get_unit_properties_async (RcSystemd          *self,
                                      const char         *object_path,
                                      const char         *type_interface,
                                      const char * const *type_keys,
                                      const char * const *keys,
                                      GCancellable       *cancellable,
                                      GAsyncReadyCallback callback,
                                      gpointer            user_data)
{
  GTask *task = g_task_new (self, cancellable, callback, user_data);
  GetAllData *data = g_new0 (GetAllData, 1);
  guint n_type_keys = type_interface != NULL ? g_strv_length ((char **) type_keys) : 0;

  g_task_set_source_tag (task, rc_systemd_get_unit_properties_async);
  g_variant_dict_init (&data->dict, NULL);
  data->keys = keys;
  data->pending = (keys != NULL ? 1 : 0) + n_type_keys;
  g_task_set_task_data (task, data, (GDestroyNotify) get_all_data_free);

  g_return_if_fail (data->pending > 0);
  if (keys != NULL)
    call_properties (self, task, object_path, SYSTEMD_UNIT_INTERFACE, NULL, cancellable);
  /* Not GetAll of the type interface: systemd would compute some 170
   * properties for it, reading the unit's cgroup files for the usage ones. */
  for (guint i = 0; i < n_type_keys; i++)
    call_properties (self, task, object_path, type_interface, type_keys[i], cancellable);
  g_object_unref (task);
}

GVariant *
rc_systemd_get_unit_properties_finish (RcSystemd    *self,
                                       GAsyncResult *result,
                                       GError      **error)
{
  return call_systemd_finish (self, result, rc_systemd_get_unit_properties_async, error);
}

void
rc_systemd_get_unit_async (RcSystemd          *self,
                           const char         *unit,
                           GCancellable       *cancellable,
                           GAsyncReadyCallback callback,
                           gpointer            user_data)
{
  call_manager (self, "GetUnit", g_variant_new ("(s)", unit), G_VARIANT_TYPE ("(o)"),
                cancellable, rc_systemd_get_unit_async, callback, user_data);
}

char *
rc_systemd_get_unit_finish (RcSystemd    *self,
                            GAsyncResult *result,
                            GError      **error)
{
  g_autoptr(GVariant) reply = call_systemd_finish (self, result, rc_systemd_get_unit_async, error);
  char *path = NULL;

  if (reply != NULL)
    g_variant_get (reply, "(o)", &path);
  return path;
}

/* The source tag of the call itself. */
static void
set_unit_properties_async (void)
{
}

/* Applied, or refused (perhaps in part): systemd changed the cgroup before
 * it answered, so the unit's settings are to be read anew. */
static void
set_unit_properties_cb (GObject      *source,
                        GAsyncResult *result,
                        gpointer      user_data)
{
  RcSystemd *self = RC_SYSTEMD (source);
  g_autoptr(GTask) task = user_data;
  GError *error = NULL;

  g_signal_emit (self, signals[SIGNAL_SETTINGS_APPLIED], 0, g_task_get_task_data (task));
  if (call_systemd_finish_empty (self, result, set_unit_properties_async, &error))
    g_task_return_boolean (task, TRUE);
  else
    g_task_return_error (task, error);
}

void
rc_systemd_set_unit_properties_async (RcSystemd          *self,
                                      const char         *unit,
                                      GVariant           *properties,
                                      GCancellable       *cancellable,
                                      GAsyncReadyCallback callback,
                                      gpointer            user_data)
{
  GTask *task = g_task_new (self, cancellable, callback, user_data);

  g_task_set_source_tag (task, rc_systemd_set_unit_properties_async);
  g_task_set_task_data (task, g_strdup (unit), g_free);
  /* runtime=true: limits last while the app runs and vanish with it. */
  call_manager (self, "SetUnitProperties",
                g_variant_new ("(sb@a(sv))", unit, TRUE, properties),
                G_VARIANT_TYPE_UNIT, cancellable, set_unit_properties_async, set_unit_properties_cb,
                task);
}

gboolean
rc_systemd_set_unit_properties_finish (RcSystemd    *self,
                                       GAsyncResult *result,
                                       GError      **error)
{
  return task_finish_boolean (self, result, rc_systemd_set_unit_properties_async, error);
}

typedef struct {
  char    *unit;
  gboolean freeze;
} FreezeData;

static void
freeze_data_free (FreezeData *data)
{
  g_free (data->unit);
  g_free (data);
}

static void
freeze_unit_cb (GObject      *source,
                GAsyncResult *result,
                gpointer      user_data)
{
  RcSystemd *self = RC_SYSTEMD (source);
  g_autoptr(GTask) task = user_data;
  FreezeData *data = g_task_get_task_data (task);
  GError *error = NULL;

  if (!call_systemd_finish_empty (self, result, freeze_unit_cb, &error))
    {
      g_task_return_error (task, error);
      return;
    }
  /* The state is reached, whether or not its PropertiesChanged has come:
   * the one who keeps the apps' freezer state hears it before the caller. */
  g_signal_emit (self, signals[SIGNAL_FREEZER_REACHED], 0, data->unit,
                 data->freeze ? "frozen" : "running");
  g_task_return_boolean (task, TRUE);
}

void
rc_systemd_freeze_unit_async (RcSystemd          *self,
                              const char         *unit,
                              gboolean            freeze,
                              GCancellable       *cancellable,
                              GAsyncReadyCallback callback,
                              gpointer            user_data)
{
  GTask *task = g_task_new (self, cancellable, callback, user_data);
  FreezeData *data = g_new0 (FreezeData, 1);

  g_task_set_source_tag (task, rc_systemd_freeze_unit_async);
  data->unit = g_strdup (unit);
  data->freeze = freeze;
  g_task_set_task_data (task, data, (GDestroyNotify) freeze_data_free);
  call_manager (self, freeze ? "FreezeUnit" : "ThawUnit", g_variant_new ("(s)", unit),
                G_VARIANT_TYPE_UNIT, cancellable, freeze_unit_cb, freeze_unit_cb, task);
}

gboolean
rc_systemd_freeze_unit_finish (RcSystemd    *self,
                               GAsyncResult *result,
                               GError      **error)
{
  return task_finish_boolean (self, result, rc_systemd_freeze_unit_async, error);
}

/* ---- starting transient units (RcStartJobs waits for their jobs) ------- */

static void
start_done_cb (GObject      *source,
               GAsyncResult *result,
               gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  GError *error = NULL;

  if (rc_start_jobs_start_finish (RC_START_JOBS (source), result, &error))
    g_task_return_boolean (task, TRUE);
  else
    g_task_return_error (task, error);
}

void
rc_systemd_start_transient_unit_async (RcSystemd          *self,
                                       const char         *unit,
                                       GVariant           *properties,
                                       GUnixFDList        *fds,
                                       GCancellable       *cancellable,
                                       GAsyncReadyCallback callback,
                                       gpointer            user_data)
{
  GTask *task = g_task_new (self, cancellable, callback, user_data);

  g_task_set_source_tag (task, rc_systemd_start_transient_unit_async);
  rc_start_jobs_start_async (self->starts, unit, properties, fds, cancellable, start_done_cb,
                             task);
}

gboolean
rc_systemd_start_transient_unit_finish (RcSystemd    *self,
                                        GAsyncResult *result,
                                        GError      **error)
{
  return task_finish_boolean (self, result, rc_systemd_start_transient_unit_async, error);
}

void
rc_systemd_attach_processes_async (RcSystemd          *self,
                                   const char         *unit,
                                   GVariant           *pids,
                                   GCancellable       *cancellable,
                                   GAsyncReadyCallback callback,
                                   gpointer            user_data)
{
  call_manager (self, "AttachProcessesToUnit", g_variant_new ("(ss@au)", unit, "", pids),
                G_VARIANT_TYPE_UNIT, cancellable, rc_systemd_attach_processes_async, callback,
                user_data);
}

gboolean
rc_systemd_attach_processes_finish (RcSystemd    *self,
                                    GAsyncResult *result,
                                    GError      **error)
{
  return call_systemd_finish_empty (self, result, rc_systemd_attach_processes_async, error);
}

/* A Get of the manager's own @property. */
static void
get_manager_property (RcSystemd          *self,
                      const char         *property,
                      GCancellable       *cancellable,
                      gpointer            source_tag,
                      GAsyncReadyCallback callback,
                      gpointer            user_data)
{
  call_systemd (self, SYSTEMD_DBUS_PATH, DBUS_PROPERTIES_INTERFACE, "Get",
                g_variant_new ("(ss)", SYSTEMD_MANAGER_INTERFACE, property),
                G_VARIANT_TYPE ("(v)"), cancellable, source_tag, callback, user_data);
}

/* The value get_manager_property read, if it has the @type expected. */
static GVariant *
get_manager_property_finish (RcSystemd          *self,
                             GAsyncResult       *result,
                             gpointer            source_tag,
                             const char         *property,
                             const GVariantType *type,
                             GError            **error)
{
  g_autoptr(GVariant) reply = call_systemd_finish (self, result, source_tag, error);
  g_autoptr(GVariant) value = NULL;

  if (reply == NULL)
    return NULL;
  g_variant_get (reply, "(v)", &value);
  if (!g_variant_is_of_type (value, type))
    {
      g_autofree char *expected = g_variant_type_dup_string (type);

      g_set_error (error, RC_ERROR, RC_ERROR_FAILED, "systemd: %s has type %s, expected %s",
                   property, g_variant_get_type_string (value), expected);
      return NULL;
    }
  return g_steal_pointer (&value);
}

void
rc_systemd_get_control_group_async (RcSystemd          *self,
                                    GCancellable       *cancellable,
                                    GAsyncReadyCallback callback,
                                    gpointer            user_data)
{
  get_manager_property (self, "ControlGroup", cancellable, rc_systemd_get_control_group_async,
                        callback, user_data);
}

char *
rc_systemd_get_control_group_finish (RcSystemd    *self,
                                     GAsyncResult *result,
                                     GError      **error)
{
  g_autoptr(GVariant) value = get_manager_property_finish (self, result,
                                                           rc_systemd_get_control_group_async,
                                                           "ControlGroup", G_VARIANT_TYPE_STRING,
                                                           error);

  return value != NULL ? g_variant_dup_string (value, NULL) : NULL;
}

void
rc_systemd_get_default_tasks_max_async (RcSystemd          *self,
                                        GCancellable       *cancellable,
                                        GAsyncReadyCallback callback,
                                        gpointer            user_data)
{
  get_manager_property (self, "DefaultTasksMax", cancellable,
                        rc_systemd_get_default_tasks_max_async, callback, user_data);
}

gboolean
rc_systemd_get_default_tasks_max_finish (RcSystemd    *self,
                                         GAsyncResult *result,
                                         guint64      *out_value,
                                         GError      **error)
{
  g_autoptr(GVariant) value = get_manager_property_finish (self, result,
                                                           rc_systemd_get_default_tasks_max_async,
                                                           "DefaultTasksMax", G_VARIANT_TYPE_UINT64,
                                                           error);

  if (value == NULL)
    return FALSE;
  *out_value = g_variant_get_uint64 (value);
  return TRUE;
}

static void
unit_properties_changed_cb (GDBusConnection *connection,
                            const char      *sender_name,
                            const char      *object_path,
                            const char      *interface_name,
                            const char      *signal_name,
                            GVariant        *parameters,
                            gpointer         user_data)
{
  RcSystemd *self = user_data;
  g_autoptr(GVariant) changed = NULL;

  if (!g_variant_is_of_type (parameters, G_VARIANT_TYPE ("(sa{sv}as)")))
    return;
  changed = g_variant_get_child_value (parameters, 1);
  g_signal_emit (self, signals[SIGNAL_UNIT_CHANGED], 0, object_path, changed);
}

static void
manager_signal_cb (GDBusConnection *connection,
                   const char      *sender_name,
                   const char      *object_path,
                   const char      *interface_name,
                   const char      *signal_name,
                   GVariant        *parameters,
                   gpointer         user_data)
{
  RcSystemd *self = user_data;
  const char *id, *path;

  if (!g_variant_is_of_type (parameters, G_VARIANT_TYPE ("(so)")))
    return;
  g_variant_get (parameters, "(&s&o)", &id, &path);
  g_signal_emit (self,
                 signals[g_str_equal (signal_name, "UnitNew") ? SIGNAL_UNIT_NEW : SIGNAL_UNIT_REMOVED],
                 0, id, path);
}

/* Reloading(false): a daemon-reload is done, and every unit's settings
 * were read again from its files. StartupFinished: the manager's start-up
 * is over, and units with a StartupCPUWeight= (…) got their CPUWeight=. */
static void
reloading_cb (GDBusConnection *connection,
              const char      *sender_name,
              const char      *object_path,
              const char      *interface_name,
              const char      *signal_name,
              GVariant        *parameters,
              gpointer         user_data)
{
  gboolean active = FALSE;

  if (g_str_equal (signal_name, "Reloading"))
    {
      if (!g_variant_is_of_type (parameters, G_VARIANT_TYPE ("(b)")))
        return;
      g_variant_get (parameters, "(b)", &active);
    }
  if (!active)
    g_signal_emit (user_data, signals[SIGNAL_RELOADED], 0);
}

static void
name_appeared_cb (GDBusConnection *connection,
                  const char      *name,
                  const char      *name_owner,
                  gpointer         user_data)
{
  RcSystemd *self = user_data;

  g_debug ("systemd appeared on the bus as %s", name_owner);
  self->present = TRUE;
  g_signal_emit (self, signals[SIGNAL_APPEARED], 0);
}

static void
name_vanished_cb (GDBusConnection *connection,
                  const char      *name,
                  gpointer         user_data)
{
  RcSystemd *self = user_data;

  if (self->present)
    g_message ("The systemd user manager left the session bus; waiting for it to come back");
  else
    g_message ("The systemd user manager is not on the session bus; waiting for it");
  self->present = FALSE;
  rc_start_jobs_fail_all (self->starts);
  g_signal_emit (self, signals[SIGNAL_VANISHED], 0);
}

static void
start_ended_cb (RcStartJobs *starts,
                const char  *unit,
                RcSystemd   *self)
{
  g_signal_emit (self, signals[SIGNAL_START_ENDED], 0, unit);
}

RcSystemd *
rc_systemd_new (GDBusConnection *connection)
{
  RcSystemd *self = g_object_new (RC_TYPE_SYSTEMD, NULL);

  self->connection = g_object_ref (connection);
  self->unit_new_id =
    rc_systemd_subscribe_manager (connection, "UnitNew", manager_signal_cb, self);
  self->unit_removed_id =
    rc_systemd_subscribe_manager (connection, "UnitRemoved", manager_signal_cb, self);
  /* One match for every unit: a match per unit would come too late for a
   * unit that starts right after its UnitNew. */
  self->unit_changed_id =
    g_dbus_connection_signal_subscribe (connection, SYSTEMD_DBUS_NAME, DBUS_PROPERTIES_INTERFACE,
                                        "PropertiesChanged", NULL, SYSTEMD_UNIT_INTERFACE,
                                        G_DBUS_SIGNAL_FLAGS_NONE, unit_properties_changed_cb,
                                        self, NULL);
  self->starts = rc_start_jobs_new (connection);
  g_signal_connect_object (self->starts, "ended", G_CALLBACK (start_ended_cb), self, 0);
  self->reloading_id =
    rc_systemd_subscribe_manager (connection, "Reloading", reloading_cb, self);
  self->startup_finished_id =
    rc_systemd_subscribe_manager (connection, "StartupFinished", reloading_cb, self);
  /* "appeared" fires once systemd is (or comes) on the bus: the registry
   * subscribes and lists units then, and again after a daemon-reexec. */
  self->name_watch_id =
    g_bus_watch_name_on_connection (connection, SYSTEMD_DBUS_NAME, G_BUS_NAME_WATCHER_FLAGS_NONE,
                                    name_appeared_cb, name_vanished_cb, self, NULL);
  return self;
}

gboolean
rc_systemd_is_present (RcSystemd *self)
{
  return self->present;
}

gboolean
rc_systemd_is_starting (RcSystemd  *self,
                        const char *unit)
{
  return rc_start_jobs_is_starting (self->starts, unit);
}

char *
rc_systemd_unit_path (const char *unit)
{
  char *path = NULL;

  if (sd_bus_path_encode (SYSTEMD_DBUS_PATH "/unit", unit, &path) < 0)
    return NULL;
  return path;
}

static void
rc_systemd_dispose (GObject *object)
{
  RcSystemd *self = RC_SYSTEMD (object);

  g_clear_handle_id (&self->name_watch_id, g_bus_unwatch_name);
  rc_clear_subscription (self->connection, &self->unit_new_id);
  rc_clear_subscription (self->connection, &self->unit_removed_id);
  rc_clear_subscription (self->connection, &self->unit_changed_id);
  rc_clear_subscription (self->connection, &self->reloading_id);
  rc_clear_subscription (self->connection, &self->startup_finished_id);
  if (self->starts != NULL)
    g_object_run_dispose (G_OBJECT (self->starts));
  g_clear_object (&self->starts);
  g_clear_object (&self->connection);
  G_OBJECT_CLASS (rc_systemd_parent_class)->dispose (object);
}

static void
rc_systemd_class_init (RcSystemdClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = rc_systemd_dispose;

  signals[SIGNAL_APPEARED] =
    g_signal_new ("appeared", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                  NULL, NULL, NULL, G_TYPE_NONE, 0);
  signals[SIGNAL_VANISHED] =
    g_signal_new ("vanished", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                  NULL, NULL, NULL, G_TYPE_NONE, 0);
  signals[SIGNAL_UNIT_NEW] =
    g_signal_new ("unit-new", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                  NULL, NULL, NULL, G_TYPE_NONE, 2, G_TYPE_STRING, G_TYPE_STRING);
  signals[SIGNAL_UNIT_REMOVED] =
    g_signal_new ("unit-removed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                  NULL, NULL, NULL, G_TYPE_NONE, 2, G_TYPE_STRING, G_TYPE_STRING);
  signals[SIGNAL_UNIT_CHANGED] =
    g_signal_new ("unit-changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                  NULL, NULL, NULL, G_TYPE_NONE, 2, G_TYPE_STRING, G_TYPE_VARIANT);
  signals[SIGNAL_FREEZER_REACHED] =
    g_signal_new ("freezer-reached", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                  NULL, NULL, NULL, G_TYPE_NONE, 2, G_TYPE_STRING, G_TYPE_STRING);
  signals[SIGNAL_SETTINGS_APPLIED] =
    g_signal_new ("settings-applied", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                  NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);
  signals[SIGNAL_RELOADED] =
    g_signal_new ("reloaded", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                  NULL, NULL, NULL, G_TYPE_NONE, 0);
  signals[SIGNAL_START_ENDED] =
    g_signal_new ("start-ended", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                  NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);
}

static void
rc_systemd_init (RcSystemd *self)
{
}
