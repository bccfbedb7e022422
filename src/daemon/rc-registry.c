/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "rc-registry.h"
#include "rc-cgroup.h"
#include "rc-api-keys.h"
#include "rc-error.h"
#include "rc-names.h"
#include "rc-proc-reader.h"
#include "rc-settings-watch.h"
#include "rc-unit-name.h"
#include "rc-unit-tracker.h"

#include <string.h>
#include <systemd/sd-login.h>
#include <unistd.h>

/* The app registry: an RcApp for each unit the tracker reads as active. */
struct _RcRegistry {
  GObject          parent_instance;
  RcSystemd       *systemd;
  RcUnitTracker   *tracker;
  RcSettingsWatch *settings;    /* NULL: limits are never kept */
  GCancellable    *cancellable;
  GHashTable      *apps;        /* unit name -> RcApp */
  GHashTable      *by_path;     /* object path -> RcApp (owned) */
  /* object path -> RcApp (owned) whose desktop file is being read: an app
   * is announced, and listed, once its Name and Icon are known */
  GHashTable *describing;
  gboolean    tracker_ready;
  gboolean    ready;
};

enum {
  SIGNAL_READY,
  SIGNAL_APP_ADDED,
  SIGNAL_APP_REMOVED,
  SIGNAL_APP_CHANGED,
  SIGNAL_LIMITS_CHANGED,
  N_SIGNALS
};
static guint signals[N_SIGNALS];

G_DEFINE_TYPE (RcRegistry, rc_registry, G_TYPE_OBJECT);

/* What the registry reads of a unit, in the order of read_props' values. */
enum { PROP_SOURCE_PATH, PROP_ACTIVE_STATE, PROP_SLICE, PROP_CONTROL_GROUP, PROP_FREEZER_STATE,
       N_PROPS };
static const char * const prop_keys[N_PROPS] = {
  "SourcePath", "ActiveState", "Slice", "ControlGroup", "FreezerState",
};

/* The string values of @props for prop_keys ("" when absent), in one pass:
 * g_variant_lookup parses its format string and walks the dictionary at
 * every call, and this runs for every app at start. The strings live as
 * long as @props. */
static void
read_props (GVariant   *props,
            const char *values[N_PROPS])
{
  gsize n = g_variant_n_children (props);

  for (guint i = 0; i < N_PROPS; i++)
    values[i] = "";
  for (gsize i = 0; i < n; i++)
    {
      g_autoptr(GVariant) entry = g_variant_get_child_value (props, i);
      g_autoptr(GVariant) key = g_variant_get_child_value (entry, 0);
      g_autoptr(GVariant) boxed = g_variant_get_child_value (entry, 1);
      g_autoptr(GVariant) value = g_variant_get_variant (boxed);
      const char *name = g_variant_get_string (key, NULL);

      if (!g_variant_is_of_type (value, G_VARIANT_TYPE_STRING))
        continue;
      for (guint k = 0; k < N_PROPS; k++)
        if (strcmp (name, prop_keys[k]) == 0)
          values[k] = g_variant_get_string (value, NULL);
    }
}

static void become_ready (RcRegistry *self);

typedef struct {
  RcRegistry *registry;
  RcApp      *app;
} Describing;

/* Its desktop file is read (or given up): the app is listed and announced. */
static void
described_cb (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  Describing *describing = user_data;
  g_autoptr(RcRegistry) self = describing->registry;
  g_autoptr(RcApp) app = describing->app;

  g_free (describing);
  if (!rc_app_describe_finish (app, result, NULL) || self->describing == NULL ||
      g_hash_table_lookup (self->describing, app->object_path) != app)
    return;   /* the registry is gone, or the unit went down meanwhile */
  g_hash_table_steal (self->describing, app->object_path);
  g_hash_table_insert (self->by_path, app->object_path, app);
  g_hash_table_insert (self->apps, app->unit, app);
  g_debug ("App added: %s (%s, %s)", app->unit, app->app_id, app->slice);
  g_signal_emit (self, signals[SIGNAL_APP_ADDED], 0, app);
  become_ready (self);
}

/* An app not yet announced, or one listed. */
static RcApp *
lookup_path (RcRegistry *self,
             const char *object_path)
{
  RcApp *app = g_hash_table_lookup (self->by_path, object_path);

  return app != NULL ? app : g_hash_table_lookup (self->describing, object_path);
}

static void
unit_read_cb (RcUnitTracker *tracker,
              const char    *object_path,
              const char    *id,
              const char    *app_id,
              const char    *launcher,
              GVariant      *props,
              RcRegistry    *self)
{
  RcApp *app = lookup_path (self, object_path);
  const char *values[N_PROPS];

  read_props (props, values);
  if (app == NULL)
    {
      Describing *describing = g_new0 (Describing, 1);

      app = rc_app_new (id, object_path, app_id, launcher);
      /* Nothing would tell when its limits change: read them every time. */
      if (self->settings == NULL)
        app->limits_settling = 1;
      g_hash_table_insert (self->describing, app->object_path, app);
      describing->registry = g_object_ref (self);
      describing->app = rc_app_ref (app);
      rc_app_describe_async (app, values[PROP_SOURCE_PATH], self->cancellable, described_cb,
                             describing);
    }
  rc_app_set (app, &app->active_state, values[PROP_ACTIVE_STATE]);
  rc_app_set (app, &app->slice, values[PROP_SLICE]);
  rc_app_set_control_group (app, values[PROP_CONTROL_GROUP]);
  if (*values[PROP_FREEZER_STATE] != '\0')
    rc_app_set (app, &app->freezer_state, values[PROP_FREEZER_STATE]);
}

static void
unit_down_cb (RcUnitTracker *tracker,
              const char    *object_path,
              RcRegistry    *self)
{
  RcApp *app = NULL;

  /* never announced: nothing to say */
  if (g_hash_table_remove (self->describing, object_path))
    {
      become_ready (self);
      return;
    }
  if (!g_hash_table_steal_extended (self->by_path, object_path, NULL, (gpointer *) &app))
    return;
  g_hash_table_remove (self->apps, app->unit);
  g_debug ("App removed: %s", app->unit);
  g_signal_emit (self, signals[SIGNAL_APP_REMOVED], 0, app);
  rc_app_unref (app);
}

static void
unit_active_state_cb (RcUnitTracker *tracker,
                      const char    *object_path,
                      const char    *active_state,
                      RcRegistry    *self)
{
  RcApp *app = lookup_path (self, object_path);

  if (app != NULL)
    rc_app_set (app, &app->active_state, active_state);
}

static void
set_freezer_state (RcRegistry *self,
                   RcApp      *app,
                   const char *freezer_state)
{
  g_auto(GVariantDict) dict = G_VARIANT_DICT_INIT (NULL);

  if (g_strcmp0 (freezer_state, app->freezer_state) == 0)
    return;
  rc_app_set (app, &app->freezer_state, freezer_state);
  g_variant_dict_insert (&dict, RC_KEY_FREEZER_STATE, "s", freezer_state);
  g_signal_emit (self, signals[SIGNAL_APP_CHANGED], 0, app, g_variant_dict_end (&dict));
}

void
rc_registry_app_changed (RcRegistry *self,
                         RcApp      *app,
                         GVariant   *changed)
{
  g_autoptr(GVariant) owned = g_variant_ref_sink (changed);

  g_signal_emit (self, signals[SIGNAL_APP_CHANGED], 0, app, owned);
}

static void
unit_freezer_cb (RcUnitTracker *tracker,
                 const char    *object_path,
                 const char    *freezer_state,
                 RcRegistry    *self)
{
  RcApp *app = g_hash_table_lookup (self->by_path, object_path);

  if (app != NULL)
    set_freezer_state (self, app, freezer_state);
  else if ((app = g_hash_table_lookup (self->describing, object_path)) != NULL)
    rc_app_set (app, &app->freezer_state, freezer_state);   /* announced with it */
}

/* systemd answered FreezeUnit/ThawUnit: the state is reached, whether or
 * not its PropertiesChanged has arrived yet. */
static void
freezer_reached_cb (RcSystemd  *systemd,
                    const char *unit,
                    const char *freezer_state,
                    RcRegistry *self)
{
  RcApp *app = g_hash_table_lookup (self->apps, unit);

  if (app != NULL)
    set_freezer_state (self, app, freezer_state);
}

/* ---- keeping limits exact ---------------------------------------------- */

typedef struct {
  RcRegistry *registry;
  GPtrArray  *apps;
} Settling;

static void
settled_cb (GObject      *source,
            GAsyncResult *result,
            gpointer      user_data)
{
  Settling *settling = user_data;
  g_autofree char *ignored = rc_systemd_get_control_group_finish (RC_SYSTEMD (source), result,
                                                                  NULL);

  for (guint i = 0; i < settling->apps->len; i++)
    {
      RcApp *app = g_ptr_array_index (settling->apps, i);

      app->limits_settling--;
      rc_app_forget_limits (app);
      g_signal_emit (settling->registry, signals[SIGNAL_LIMITS_CHANGED], 0, app);
    }
  g_ptr_array_unref (settling->apps);
  g_object_unref (settling->registry);
  g_free (settling);
}

/* systemd wrote new settings of @unit (NULL: of any unit) and applies them
 * to the cgroup in the same step, but the file may be seen before the
 * cgroup has them. Its answer to a call made now comes after that step:
 * until then the limits are read at every record, not kept. */
static void
read_limits_until_applied (RcRegistry *self,
                           const char *unit)
{
  Settling *settling;
  RcApp *app;

  if (unit != NULL && (app = g_hash_table_lookup (self->apps, unit)) == NULL)
    return;
  settling = g_new0 (Settling, 1);
  settling->registry = g_object_ref (self);
  settling->apps = unit != NULL ? g_ptr_array_new_with_free_func ((GDestroyNotify) rc_app_unref)
                                : rc_registry_get_apps (self);
  if (unit != NULL)
    g_ptr_array_add (settling->apps, rc_app_ref (app));
  for (guint i = 0; i < settling->apps->len; i++)
    {
      app = g_ptr_array_index (settling->apps, i);
      app->limits_settling++;
      rc_app_forget_limits (app);
    }
  rc_systemd_get_control_group_async (self->systemd, self->cancellable, settled_cb, settling);
}

static void
settings_changed_cb (RcSettingsWatch *watch,
                     const char      *unit,
                     RcRegistry      *self)
{
  read_limits_until_applied (self, unit);
}

static void
reloaded_cb (RcSystemd  *systemd,
             RcRegistry *self)
{
  read_limits_until_applied (self, NULL);
}

/* systemd answered a SetUnitProperties: the cgroup has what it applied. */
static void
settings_applied_cb (RcSystemd  *systemd,
                     const char *unit,
                     RcRegistry *self)
{
  RcApp *app = g_hash_table_lookup (self->apps, unit);

  if (app == NULL)
    return;
  rc_app_forget_limits (app);
  g_signal_emit (self, signals[SIGNAL_LIMITS_CHANGED], 0, app);
}

/* The first listing is complete once the tracker has read every unit and
 * every app found then is described: the call gate holds calls until then. */
static void
become_ready (RcRegistry *self)
{
  if (self->ready || !self->tracker_ready || g_hash_table_size (self->describing) > 0)
    return;
  g_debug ("App registry ready: %u apps", g_hash_table_size (self->apps));
  self->ready = TRUE;
  g_signal_emit (self, signals[SIGNAL_READY], 0);
}

static void
tracker_ready_cb (RcUnitTracker *tracker,
                  RcRegistry    *self)
{
  self->tracker_ready = TRUE;
  become_ready (self);
}

gboolean
rc_registry_is_ready (RcRegistry *self)
{
  g_return_val_if_fail (RC_IS_REGISTRY (self), FALSE);

  return self->ready;
}

RcRegistry *
rc_registry_new (RcSystemd *systemd)
{
  RcRegistry *self = g_object_new (RC_TYPE_REGISTRY, NULL);

  self->systemd = g_object_ref (systemd);
  self->tracker = rc_unit_tracker_new (systemd);
  g_signal_connect_object (self->tracker, "ready", G_CALLBACK (tracker_ready_cb), self, 0);
  g_signal_connect_object (self->tracker, "unit-read", G_CALLBACK (unit_read_cb), self, 0);
  g_signal_connect_object (self->tracker, "unit-down", G_CALLBACK (unit_down_cb), self, 0);
  g_signal_connect_object (self->tracker, "unit-active-state", G_CALLBACK (unit_active_state_cb),
                           self, 0);
  g_signal_connect_object (self->tracker, "unit-freezer", G_CALLBACK (unit_freezer_cb), self, 0);
  g_signal_connect_object (systemd, "freezer-reached", G_CALLBACK (freezer_reached_cb), self, 0);
  g_signal_connect_object (systemd, "settings-applied", G_CALLBACK (settings_applied_cb), self, 0);
  g_signal_connect_object (systemd, "reloaded", G_CALLBACK (reloaded_cb), self, 0);
  self->settings = rc_settings_watch_new_for_user ();
  if (rc_settings_watch_is_working (self->settings))
    g_signal_connect_object (self->settings, "changed", G_CALLBACK (settings_changed_cb), self, 0);
  else
    g_clear_object (&self->settings);
  return self;
}

static gint
compare_apps (gconstpointer a,
              gconstpointer b)
{
  const RcApp *app_a = *(RcApp **) a;
  const RcApp *app_b = *(RcApp **) b;

  return strcmp (app_a->unit, app_b->unit);
}

GPtrArray *
rc_registry_get_apps (RcRegistry *self)
{
  GPtrArray *apps = g_ptr_array_new_full (g_hash_table_size (self->apps),
                                          (GDestroyNotify) rc_app_unref);
  GHashTableIter iter;
  RcApp *app;

  g_hash_table_iter_init (&iter, self->apps);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &app))
    g_ptr_array_add (apps, rc_app_ref (app));
  g_ptr_array_sort (apps, compare_apps);
  return apps;
}

RcApp *
rc_registry_lookup_unit (RcRegistry *self,
                         const char *unit)
{
  return g_hash_table_lookup (self->apps, unit);
}

RcApp *
rc_registry_lookup_cgroup (RcRegistry *self,
                           const char *cgroup)
{
  GHashTableIter iter;
  RcApp *app;

  g_hash_table_iter_init (&iter, self->apps);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &app))
    if (app->control_group != NULL && *app->control_group != '\0' &&
        rc_cgroup_path_contains (app->control_group, cgroup))
      return app;
  return NULL;
}

RcApp *
rc_registry_find_pid (RcRegistry *self,
                      guint32     pid,
                      GError    **error)
{
  g_autoptr(RcProc) proc = rc_proc_read (pid);
  g_autofree char *unit = NULL;
  RcApp *app = NULL;

  if (proc == NULL)
    {
      g_set_error (error, RC_ERROR, RC_ERROR_NO_SUCH_APP, "There is no process %u", pid);
      return NULL;
    }
  /* another user's process is in that user's units, never in ours */
  if (proc->uid == getuid () && sd_pid_get_user_unit ((pid_t) pid, &unit) >= 0)
    app = rc_registry_lookup_unit (self, unit);
  if (app == NULL && proc->uid != getuid ())
    {
      g_set_error (error, RC_ERROR, RC_ERROR_NO_SUCH_APP,
                   "Process %u (%s) belongs to user %u, whose apps this daemon does not manage",
                   pid, proc->comm, proc->uid);
      return NULL;
    }
  /* a unit systemd names by an alias, or a cgroup below the unit's own */
  if (app == NULL)
    app = rc_registry_lookup_cgroup (self, proc->cgroup);
  if (app == NULL)
    g_set_error (error, RC_ERROR, RC_ERROR_NO_SUCH_APP, "Process %u (%s) is in no app: it runs in %s",
                 pid, proc->comm,
                 unit != NULL ? unit : *proc->cgroup != '\0' ? proc->cgroup : "no cgroup");
  return app;
}

RcApp *
rc_registry_lookup_pid (RcRegistry *self,
                        guint32     pid)
{
  return rc_registry_find_pid (self, pid, NULL);
}

static GPtrArray *
find_apps (RcRegistry *self,
           const char *app,
           gboolean    by_unit)
{
  GPtrArray *found = g_ptr_array_new_with_free_func ((GDestroyNotify) rc_app_unref);
  g_autoptr(GPtrArray) all = NULL;
  RcApp *match;

  if (by_unit)
    {
      match = g_hash_table_lookup (self->apps, app);
      if (match != NULL)
        g_ptr_array_add (found, rc_app_ref (match));
      return found;
    }
  all = rc_registry_get_apps (self);
  for (guint i = 0; i < all->len; i++)
    {
      RcApp *candidate = g_ptr_array_index (all, i);

      if (g_str_equal (candidate->app_id, app))
        g_ptr_array_add (found, rc_app_ref (candidate));
    }
  return found;
}

static gboolean
check_controllable (GPtrArray *apps,
                    GError   **error)
{
  for (guint i = 0; i < apps->len; i++)
    {
      RcApp *app = g_ptr_array_index (apps, i);

      if (!rc_app_is_controllable_slice (app->slice))
        {
          g_set_error (error, RC_ERROR, RC_ERROR_PROTECTED,
                       "%s runs in %s: only apps in app.slice or background.slice can be "
                       "controlled", app->unit, *app->slice != '\0' ? app->slice : "no slice");
          return FALSE;
        }
    }
  return TRUE;
}

static void
get_unit_cb (GObject      *source,
             GAsyncResult *result,
             gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  g_autoptr(GError) error = NULL;
  g_autofree char *path = NULL;
  const char *unit = g_task_get_task_data (task);

  path = rc_systemd_get_unit_finish (RC_SYSTEMD (source), result, &error);
  if (path != NULL)
    g_task_return_new_error (task, RC_ERROR, RC_ERROR_PROTECTED,
                             "%s is not an app: only app units (app-…-RANDOM.scope, "
                             "app-…@RANDOM.service) in app.slice or background.slice can be "
                             "controlled", unit);
  else if (g_error_matches (error, RC_ERROR, RC_ERROR_NO_SUCH_APP))
    g_task_return_new_error (task, RC_ERROR, RC_ERROR_NO_SUCH_APP,
                             "No unit %s is loaded", unit);
  else
    g_task_return_error (task, g_steal_pointer (&error));
}

void
rc_registry_resolve_async (RcRegistry         *self,
                           const char         *app,
                           gboolean            for_control,
                           GCancellable       *cancellable,
                           GAsyncReadyCallback callback,
                           gpointer            user_data)
{
  g_autoptr(GTask) task = g_task_new (self, cancellable, callback, user_data);
  g_autoptr(GPtrArray) found = NULL;
  g_autoptr(RcUnitName) parsed = NULL;
  GError *error = NULL;
  gboolean is_unit;

  g_task_set_source_tag (task, rc_registry_resolve_async);
  if (!rc_unit_name_check_app_argument (app, &error))
    {
      g_task_return_error (task, error);
      return;
    }

  is_unit = rc_unit_name_is_valid (app);
  found = find_apps (self, app, is_unit);
  if (found->len > 0)
    {
      if (for_control && !check_controllable (found, &error))
        g_task_return_error (task, error);
      else
        g_task_return_pointer (task, g_steal_pointer (&found), (GDestroyNotify) g_ptr_array_unref);
      return;
    }

  parsed = is_unit ? rc_unit_name_parse (app) : NULL;
  if (!is_unit || parsed != NULL)
    {
      g_task_return_new_error (task, RC_ERROR, RC_ERROR_NO_SUCH_APP,
                               is_unit ? "App unit %s is not running"
                                       : "No instance of app %s is running", app);
      return;
    }

  /* A unit name that is not an app: Protected if such a unit exists at all. */
  g_task_set_task_data (task, g_strdup (app), g_free);
  rc_systemd_get_unit_async (self->systemd, app, cancellable, get_unit_cb,
                             g_steal_pointer (&task));
}

GPtrArray *
rc_registry_resolve_finish (RcRegistry   *self,
                            GAsyncResult *result,
                            GError      **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

static void
rc_registry_dispose (GObject *object)
{
  RcRegistry *self = RC_REGISTRY (object);

  if (self->tracker != NULL)
    {
      /* its reads in flight end as cancelled, and tell us nothing more */
      g_signal_handlers_disconnect_by_data (self->tracker, self);
      g_object_run_dispose (G_OBJECT (self->tracker));
    }
  if (self->systemd != NULL)
    g_signal_handlers_disconnect_by_data (self->systemd, self);
  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->settings);
  g_clear_object (&self->cancellable);
  g_clear_object (&self->tracker);
  g_clear_pointer (&self->apps, g_hash_table_unref);
  g_clear_pointer (&self->by_path, g_hash_table_unref);
  g_clear_pointer (&self->describing, g_hash_table_unref);
  g_clear_object (&self->systemd);
  G_OBJECT_CLASS (rc_registry_parent_class)->dispose (object);
}

static void
rc_registry_class_init (RcRegistryClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = rc_registry_dispose;

  signals[SIGNAL_READY] =
    g_signal_new ("ready", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                  NULL, NULL, NULL, G_TYPE_NONE, 0);
  signals[SIGNAL_APP_ADDED] =
    g_signal_new ("app-added", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                  NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_POINTER);
  signals[SIGNAL_APP_REMOVED] =
    g_signal_new ("app-removed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                  NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_POINTER);
  signals[SIGNAL_APP_CHANGED] =
    g_signal_new ("app-changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                  NULL, NULL, NULL, G_TYPE_NONE, 2, G_TYPE_POINTER, G_TYPE_VARIANT);
  signals[SIGNAL_LIMITS_CHANGED] =
    g_signal_new ("limits-changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                  NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_POINTER);
}

static void
rc_registry_init (RcRegistry *self)
{
  self->cancellable = g_cancellable_new ();
  self->apps = g_hash_table_new (g_str_hash, g_str_equal);
  self->by_path = g_hash_table_new_full (g_str_hash, g_str_equal, NULL,
                                         (GDestroyNotify) rc_app_unref);
  self->describing = g_hash_table_new_full (g_str_hash, g_str_equal, NULL,
                                            (GDestroyNotify) rc_app_unref);
}
