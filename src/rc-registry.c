/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "rc-registry.h"
#include "rc-error.h"
#include "rc-names.h"
#include "rc-unit-name.h"

#include <string.h>

/* One unit that may be an app: every loaded unit whose name parses as one.
 * It becomes an RcApp while its ActiveState is active or reloading.
 *
 * A unit is read (GetAll) only while systemd says it is active or
 * activating. Reading the object of a unit systemd has collected makes it
 * load the unit again and send UnitNew; if UnitNew led to a read, the two
 * would keep the user manager busy loading and collecting it for ever.
 * So UnitNew only starts tracking; the unit's PropertiesChanged, and a
 * ListUnitsByPatterns (which loads nothing), say when it is worth a read.
 * systemctl daemon-reload sends UnitRemoved and UnitNew for every unit,
 * with no state change: a live unit's UnitRemoved is checked the same way
 * before its app is dropped. */
typedef struct {
  RcRegistry   *registry;
  char         *id;
  char         *object_path;
  char         *app_id;
  char         *launcher;
  RcUnitKind    kind;
  guint         generation;
  gboolean      live;         /* active or activating, last we heard */
  const char   *state;        /* that ActiveState, interned; NULL before the first */
  GCancellable *cancellable;
  RcApp        *app;
  gboolean      queued;       /* waits in the registry's load queue */
  gboolean      loading;      /* a GetAll is in flight */
  gboolean      reload;       /* changed again while loading: load once more */
  gboolean      counted;      /* part of the initial listing's count */
  guint         retries;
} Tracked;

/* What apply_properties and parse_any_name read of a unit; the rest of
 * systemd's GetAll replies is dropped as it arrives. */
static const char * const unit_keys[] = {
  "ActiveState", "FreezerState", "SourcePath", "Names", NULL
};
static const char * const type_keys[] = { "Slice", "ControlGroup", NULL };
static const char * const alias_keys[] = { "Names", NULL };

/* systemd under load answers slowly; a burst of thousands of GetAll calls
 * would also hit the bus's limit of pending replies per connection. */
#define MAX_LOADS_IN_FLIGHT 16
#define MAX_LOAD_RETRIES 5

struct _RcRegistry {
  GObject       parent_instance;
  RcSystemd    *systemd;
  GHashTable   *tracked;      /* object path -> Tracked */
  GHashTable   *apps;         /* unit name -> RcApp (borrowed from Tracked) */
  GCancellable *cancellable;
  guint         generation;
  guint         pending_loads;
  GQueue        load_queue;   /* object paths */
  guint         loads_in_flight;
  GHashTable   *to_query;     /* object paths whose state to ask systemd for */
  guint         query_id;
  gboolean      syncing;
  gboolean      ready;
};

enum {
  SIGNAL_READY,
  SIGNAL_APP_ADDED,
  SIGNAL_APP_REMOVED,
  SIGNAL_APP_CHANGED,
  N_SIGNALS
};
static guint signals[N_SIGNALS];

G_DEFINE_TYPE (RcRegistry, rc_registry, G_TYPE_OBJECT)

static void load_unit (Tracked *tracked);
static void set_freezer_state (RcRegistry *self,
                               RcApp      *app,
                               const char *freezer_state);

static void
set_ready (RcRegistry *self)
{
  if (self->ready)
    return;
  self->ready = TRUE;
  g_debug ("App registry ready: %u apps", g_hash_table_size (self->apps));
  g_signal_emit (self, signals[SIGNAL_READY], 0);
}

static void
load_done (RcRegistry *self)
{
  if (self->pending_loads > 0 && --self->pending_loads == 0 && self->syncing)
    {
      self->syncing = FALSE;
      set_ready (self);
    }
}

static void
drop_app (Tracked *tracked)
{
  RcRegistry *self = tracked->registry;
  g_autoptr(RcApp) app = g_steal_pointer (&tracked->app);

  if (app == NULL)
    return;
  g_hash_table_remove (self->apps, app->unit);
  g_debug ("App removed: %s", app->unit);
  g_signal_emit (self, signals[SIGNAL_APP_REMOVED], 0, app);
}

static void
tracked_free (Tracked *tracked)
{
  if (tracked->cancellable != NULL)
    g_cancellable_cancel (tracked->cancellable);
  g_clear_object (&tracked->cancellable);
  g_clear_pointer (&tracked->app, rc_app_unref);
  g_free (tracked->id);
  g_free (tracked->object_path);
  g_free (tracked->app_id);
  g_free (tracked->launcher);
  g_free (tracked);
}

static void
untrack (RcRegistry *self,
         Tracked    *tracked)
{
  if (tracked->counted)
    {
      tracked->counted = FALSE;
      load_done (self);
    }
  drop_app (tracked);
  g_hash_table_remove (self->tracked, tracked->object_path);
}

static gboolean
is_active_state (const char *state)
{
  return g_strcmp0 (state, "active") == 0 || g_strcmp0 (state, "reloading") == 0;
}

/* A unit in these states exists for sure: reading it loads nothing. */
static gboolean
is_live_state (const char *state)
{
  return is_active_state (state) || g_strcmp0 (state, "activating") == 0;
}

static const char *
lookup_string (GVariant   *props,
               const char *key)
{
  const char *value = NULL;

  if (!g_variant_lookup (props, key, "&s", &value))
    return "";
  return value;
}

static void
set_field (char       **field,
           const char  *value)
{
  g_free (*field);
  *field = g_strdup (value);
}

static void
apply_properties (Tracked  *tracked,
                  GVariant *props)
{
  RcRegistry *self = tracked->registry;
  const char *active_state = lookup_string (props, "ActiveState");
  gboolean added = FALSE;
  RcApp *app;

  if (!is_active_state (active_state))
    {
      tracked->live = is_live_state (active_state);
      drop_app (tracked);
      return;
    }

  if (tracked->app == NULL)
    {
      tracked->app = rc_app_new (tracked->id, tracked->object_path, tracked->app_id,
                                 tracked->launcher);
      rc_app_load_desktop_info (tracked->app, lookup_string (props, "SourcePath"));
      added = TRUE;
    }
  app = tracked->app;
  set_field (&app->active_state, active_state);
  set_field (&app->slice, lookup_string (props, "Slice"));
  set_field (&app->control_group, lookup_string (props, "ControlGroup"));
  if (*lookup_string (props, "FreezerState") != '\0')
    set_field (&app->freezer_state, lookup_string (props, "FreezerState"));

  if (added)
    {
      g_hash_table_insert (self->apps, app->unit, app);
      g_debug ("App added: %s (%s, %s)", app->unit, app->app_id, app->slice);
      g_signal_emit (self, signals[SIGNAL_APP_ADDED], 0, app);
    }
}

/* Units are tracked by the first of their names (Id, then aliases) that
 * parses as an app unit. */
static RcUnitName *
parse_any_name (const char  *id,
                GVariant    *props,
                const char **out_name)
{
  g_autofree const char **names = NULL;
  RcUnitName *parsed = rc_unit_name_parse (id);

  *out_name = id;
  if (parsed != NULL || props == NULL || !g_variant_lookup (props, "Names", "^a&s", &names))
    return parsed;
  for (guint i = 0; names[i] != NULL && parsed == NULL; i++)
    {
      parsed = rc_unit_name_parse (names[i]);
      if (parsed != NULL)
        *out_name = names[i];
    }
  return parsed;
}

/* One read of a unit object in flight: a load of a tracked unit, or (with
 * an id) an alias probe of a unit not yet tracked. */
typedef struct {
  RcRegistry *registry;
  char       *object_path;
  char       *id;
} LoadData;

static LoadData *
load_data_new (RcRegistry *self,
               const char *object_path)
{
  LoadData *data = g_new0 (LoadData, 1);

  data->registry = g_object_ref (self);
  data->object_path = g_strdup (object_path);
  return data;
}

static void
load_data_free (LoadData *data)
{
  g_object_unref (data->registry);
  g_free (data->object_path);
  g_free (data->id);
  g_free (data);
}

static void pump_loads (RcRegistry *self);

static gboolean
retry_load_cb (gpointer user_data)
{
  LoadData *data = user_data;
  Tracked *tracked = NULL;

  if (data->registry->tracked != NULL)
    tracked = g_hash_table_lookup (data->registry->tracked, data->object_path);
  if (tracked != NULL)
    load_unit (tracked);
  return G_SOURCE_REMOVE;
}

static void
load_failed (RcRegistry *self,
             Tracked    *tracked,
             GError     *error)
{
  /* Gone for good, or tried often enough: forget the unit. */
  if (g_error_matches (error, RC_ERROR, RC_ERROR_NO_SUCH_APP) ||
      tracked->retries >= MAX_LOAD_RETRIES)
    {
      g_debug ("Unit %s is gone: %s", tracked->id, error->message);
      untrack (self, tracked);
      return;
    }
  /* A slow or busy systemd: try again, later each time. */
  tracked->retries++;
  g_debug ("Could not read unit %s (%s); retry %u", tracked->id, error->message,
           tracked->retries);
  g_timeout_add_seconds_full (G_PRIORITY_DEFAULT, tracked->retries, retry_load_cb,
                              load_data_new (self, tracked->object_path),
                              (GDestroyNotify) load_data_free);
}

static void
load_unit_cb (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  LoadData *data = user_data;
  RcRegistry *self = data->registry;
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) props = NULL;
  Tracked *tracked = NULL;

  props = rc_systemd_get_unit_properties_finish (RC_SYSTEMD (source), result, &error);
  self->loads_in_flight--;

  /* Looked up by path: the Tracked that asked may be gone by now. */
  if (self->tracked != NULL && !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    tracked = g_hash_table_lookup (self->tracked, data->object_path);
  if (tracked != NULL)
    {
      tracked->loading = FALSE;
      if (props != NULL)
        {
          tracked->retries = 0;
          apply_properties (tracked, props);
        }
      else
        load_failed (self, tracked, error);
    }
  /* apply_properties and load_failed may have untracked it. */
  if (tracked != NULL && g_hash_table_lookup (self->tracked, data->object_path) == tracked)
    {
      if (tracked->reload)
        {
          tracked->reload = FALSE;
          load_unit (tracked);
        }
      else if (tracked->counted && props != NULL)
        {
          tracked->counted = FALSE;
          load_done (self);
        }
    }
  if (self->tracked != NULL)
    pump_loads (self);
  load_data_free (data);
}

static void
pump_loads (RcRegistry *self)
{
  while (self->loads_in_flight < MAX_LOADS_IN_FLIGHT && !g_queue_is_empty (&self->load_queue))
    {
      g_autofree char *path = g_queue_pop_head (&self->load_queue);
      Tracked *tracked = g_hash_table_lookup (self->tracked, path);

      if (tracked == NULL || !tracked->queued)
        continue;
      tracked->queued = FALSE;
      tracked->loading = TRUE;
      self->loads_in_flight++;
      rc_systemd_get_unit_properties_async (self->systemd, tracked->object_path,
                                            tracked->kind == RC_UNIT_KIND_SCOPE
                                            ? SYSTEMD_SCOPE_INTERFACE : SYSTEMD_SERVICE_INTERFACE,
                                            type_keys, unit_keys, tracked->cancellable,
                                            load_unit_cb,
                                            load_data_new (self, tracked->object_path));
    }
}

/* Reads the unit's properties anew. A change while a read is in flight
 * makes one more read after it, so the last state always wins. */
static void
load_unit (Tracked *tracked)
{
  RcRegistry *self = tracked->registry;

  if (!tracked->live)
    return;
  if (self->syncing && !tracked->counted)
    {
      tracked->counted = TRUE;
      self->pending_loads++;
    }
  if (tracked->loading)
    tracked->reload = TRUE;
  else if (!tracked->queued)
    {
      tracked->queued = TRUE;
      g_queue_push_tail (&self->load_queue, g_strdup (tracked->object_path));
      pump_loads (self);
    }
}

static void
set_live (Tracked  *tracked,
          gboolean  live)
{
  tracked->live = live;
  if (live)
    {
      /* Slice and ControlGroup are set as the unit starts: read them anew. */
      load_unit (tracked);
      return;
    }
  /* Stopping or gone: no read, it could come after systemd collected the unit. */
  tracked->queued = FALSE;
  tracked->reload = FALSE;
  drop_app (tracked);
}

/* The unit's ActiveState, from a signal or a listing. */
static void
note_state (Tracked    *tracked,
            const char *active_state)
{
  const char *state = g_intern_string (active_state);

  /* systemd repeats ActiveState in the PropertiesChanged of every change of
   * the unit (SubState, FreezerState, …): only a new state is news. A repeat
   * that came while the unit was being read would read it a second time. */
  if (state == tracked->state)
    return;
  tracked->state = state;
  if (tracked->app != NULL && is_active_state (active_state))
    set_field (&tracked->app->active_state, active_state);  /* still an app: nothing to read */
  else
    set_live (tracked, is_live_state (active_state));
}

static void
unit_changed_cb (RcSystemd  *systemd,
                 const char *object_path,
                 GVariant   *changed,
                 RcRegistry *self)
{
  Tracked *tracked = g_hash_table_lookup (self->tracked, object_path);
  const char *state;

  if (tracked == NULL)
    return;

  if (tracked->app != NULL && g_variant_lookup (changed, "FreezerState", "&s", &state))
    set_freezer_state (self, tracked->app, state);

  /* systemd sends ActiveState with every change of the unit. */
  if (g_variant_lookup (changed, "ActiveState", "&s", &state))
    note_state (tracked, state);
}

static void
set_freezer_state (RcRegistry *self,
                   RcApp      *app,
                   const char *freezer_state)
{
  g_auto(GVariantDict) dict = G_VARIANT_DICT_INIT (NULL);

  if (g_strcmp0 (freezer_state, app->freezer_state) == 0)
    return;
  set_field (&app->freezer_state, freezer_state);
  g_variant_dict_insert (&dict, "FreezerState", "s", freezer_state);
  g_signal_emit (self, signals[SIGNAL_APP_CHANGED], 0, app, g_variant_dict_end (&dict));
}

static void
track_parsed (RcRegistry       *self,
              const char       *id,
              const char       *object_path,
              const RcUnitName *parsed,
              gboolean          live)
{
  Tracked *tracked = g_new0 (Tracked, 1);

  tracked->registry = self;
  tracked->id = g_strdup (id);
  tracked->object_path = g_strdup (object_path);
  tracked->app_id = g_strdup (parsed->app_id);
  tracked->launcher = g_strdup (parsed->launcher);
  tracked->kind = parsed->kind;
  tracked->generation = self->generation;
  tracked->cancellable = g_cancellable_new ();
  tracked->live = live;
  g_hash_table_insert (self->tracked, tracked->object_path, tracked);
  load_unit (tracked);
}

static void
probe_aliases_cb (GObject      *source,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  LoadData *data = user_data;
  RcRegistry *self = data->registry;
  g_autoptr(GVariant) props = NULL;
  g_autoptr(RcUnitName) parsed = NULL;
  const char *name;

  props = rc_systemd_get_unit_properties_finish (RC_SYSTEMD (source), result, NULL);
  if (props != NULL && self->tracked != NULL &&
      !g_hash_table_contains (self->tracked, data->object_path))
    {
      parsed = parse_any_name (data->id, props, &name);
      if (parsed != NULL)
        {
          g_debug ("Unit %s is an app through its alias %s", data->id, name);
          track_parsed (self, data->id, data->object_path, parsed, TRUE);
        }
    }
  load_done (self);
  load_data_free (data);
}

/* A unit whose own name is not an app's may have an alias that is
 * (every name in Names counts). */
static void
probe_aliases (RcRegistry *self,
               const char *id,
               const char *object_path)
{
  LoadData *data = load_data_new (self, object_path);

  data->id = g_strdup (id);
  self->pending_loads++;
  rc_systemd_get_unit_properties_async (self->systemd, object_path, NULL, NULL, alias_keys,
                                        self->cancellable, probe_aliases_cb, data);
}

/* A unit from the listing, with its ActiveState then. */
static void
track_listed (RcRegistry *self,
              const char *id,
              const char *object_path,
              const char *active_state)
{
  g_autoptr(RcUnitName) parsed = NULL;
  Tracked *tracked = g_hash_table_lookup (self->tracked, object_path);
  gboolean live = is_live_state (active_state);

  if (tracked != NULL)
    {
      tracked->generation = self->generation;
      set_live (tracked, live);
      return;
    }

  parsed = rc_unit_name_parse (id);
  if (parsed != NULL)
    track_parsed (self, id, object_path, parsed, live);
  else if (live)
    probe_aliases (self, id, object_path);
}

typedef struct {
  RcRegistry *registry;
  GHashTable *paths;        /* object paths asked about */
} QueryData;

static void
query_data_free (QueryData *data)
{
  g_object_unref (data->registry);
  g_hash_table_unref (data->paths);
  g_free (data);
}

static void query_state (RcRegistry *self,
                         const char *object_path);

static gboolean
requery_cb (gpointer user_data)
{
  QueryData *data = user_data;
  GHashTableIter iter;
  const char *path;

  g_hash_table_iter_init (&iter, data->paths);
  while (g_hash_table_iter_next (&iter, (gpointer *) &path, NULL))
    query_state (data->registry, path);
  return G_SOURCE_REMOVE;
}

static void
query_states_cb (GObject      *source,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  QueryData *data = user_data;
  RcRegistry *self = data->registry;
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) units = NULL;
  g_autoptr(GPtrArray) gone = g_ptr_array_new ();
  GVariantIter unit_iter;
  GHashTableIter iter;
  const char *id, *object_path, *active_state;
  Tracked *tracked;

  units = rc_systemd_list_units_finish (RC_SYSTEMD (source), result, &error);
  if (units == NULL)
    {
      /* With systemd off the bus, asking again would poll: the full listing
       * when it is back ("appeared") settles these units too. */
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED) &&
          rc_systemd_is_present (self->systemd))
        {
          g_debug ("Could not ask systemd for unit states (%s); asking again", error->message);
          g_timeout_add_seconds_full (G_PRIORITY_DEFAULT, 1, requery_cb, data,
                                      (GDestroyNotify) query_data_free);
          return;
        }
      query_data_free (data);
      return;
    }

  g_variant_iter_init (&unit_iter, units);
  while (g_variant_iter_next (&unit_iter, "(&s&s&s&s&s&s&ou&s&o)", &id, NULL, NULL,
                              &active_state, NULL, NULL, &object_path, NULL, NULL, NULL))
    {
      tracked = g_hash_table_lookup (self->tracked, object_path);
      if (tracked != NULL && g_hash_table_remove (data->paths, object_path))
        note_state (tracked, active_state);
    }
  /* Not listed: no longer loaded, and its UnitRemoved may be behind us. */
  g_hash_table_iter_init (&iter, data->paths);
  while (g_hash_table_iter_next (&iter, (gpointer *) &object_path, NULL))
    if ((tracked = g_hash_table_lookup (self->tracked, object_path)) != NULL)
      g_ptr_array_add (gone, tracked);
  for (guint i = 0; i < gone->len; i++)
    untrack (self, g_ptr_array_index (gone, i));
  query_data_free (data);
}

static gboolean
query_states_idle_cb (gpointer user_data)
{
  RcRegistry *self = user_data;
  g_autoptr(GPtrArray) patterns = g_ptr_array_new_with_free_func (g_free);
  static const char * const any_state[] = { NULL };
  GHashTableIter iter;
  const char *path;
  Tracked *tracked;
  QueryData *data = g_new0 (QueryData, 1);

  self->query_id = 0;
  data->registry = g_object_ref (self);
  data->paths = g_steal_pointer (&self->to_query);
  self->to_query = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_hash_table_iter_init (&iter, data->paths);
  while (g_hash_table_iter_next (&iter, (gpointer *) &path, NULL))
    if ((tracked = g_hash_table_lookup (self->tracked, path)) != NULL)
      {
        /* A glob of the name: '?' for the '\' of \x2d escapes, whatever
         * systemd's fnmatch flags; the reply is matched by path. */
        char *pattern = g_strdup (tracked->id);
        g_strdelimit (pattern, "\\", '?');
        g_ptr_array_add (patterns, pattern);
      }
  g_ptr_array_add (patterns, NULL);
  if (patterns->len == 1)
    {
      query_data_free (data);
      return G_SOURCE_REMOVE;
    }
  rc_systemd_list_units_async (self->systemd, any_state, (const char * const *) patterns->pdata,
                               self->cancellable, query_states_cb, data);
  return G_SOURCE_REMOVE;
}

/* Asks systemd for a unit's ActiveState without loading it; the questions
 * of one main loop iteration go in one call. */
static void
query_state (RcRegistry *self,
             const char *object_path)
{
  g_hash_table_add (self->to_query, g_strdup (object_path));
  if (self->query_id == 0)
    self->query_id = g_idle_add (query_states_idle_cb, self);
}

static void
unit_new_cb (RcSystemd  *systemd,
             const char *id,
             const char *object_path,
             RcRegistry *self)
{
  g_autoptr(RcUnitName) parsed = NULL;

  /* No read here, not even an alias probe: see Tracked. */
  if (!g_hash_table_contains (self->tracked, object_path))
    {
      parsed = rc_unit_name_parse (id);
      if (parsed == NULL)
        return;
      track_parsed (self, id, object_path, parsed, FALSE);
    }
  query_state (self, object_path);
}

static void
unit_removed_cb (RcSystemd  *systemd,
                 const char *id,
                 const char *object_path,
                 RcRegistry *self)
{
  Tracked *tracked = g_hash_table_lookup (self->tracked, object_path);

  if (tracked == NULL)
    return;
  /* A running unit does not go away without stopping first, except in a
   * daemon-reload, where it comes back at once. */
  if (tracked->live)
    query_state (self, object_path);
  else
    untrack (self, tracked);
}

static void
list_units_cb (GObject      *source,
               GAsyncResult *result,
               gpointer      user_data)
{
  RcRegistry *self = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) units = NULL;
  g_autoptr(GPtrArray) stale = g_ptr_array_new ();
  GHashTableIter iter;
  Tracked *tracked;
  GVariantIter unit_iter;
  const char *id, *object_path, *active_state;

  units = rc_systemd_list_units_finish (RC_SYSTEMD (source), result, &error);
  if (units == NULL)
    {
      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        return;
      g_warning ("Could not list the user manager's units: %s", error->message);
      self->syncing = FALSE;
      set_ready (self);
      return;
    }

  self->pending_loads++;    /* held until the loop below has started every load */
  g_variant_iter_init (&unit_iter, units);
  while (g_variant_iter_next (&unit_iter, "(&s&s&s&s&s&s&ou&s&o)", &id, NULL, NULL,
                              &active_state, NULL, NULL, &object_path, NULL, NULL, NULL))
    track_listed (self, id, object_path, active_state);

  /* Units that went away while systemd was gone (daemon-reexec). */
  g_hash_table_iter_init (&iter, self->tracked);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &tracked))
    if (tracked->generation != self->generation)
      g_ptr_array_add (stale, tracked);
  for (guint i = 0; i < stale->len; i++)
    untrack (self, g_ptr_array_index (stale, i));

  load_done (self);
}

static void
subscribe_cb (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  RcRegistry *self = user_data;
  g_autoptr(GError) error = NULL;
  static const char * const no_filter[] = { NULL };

  if (!rc_systemd_subscribe_finish (RC_SYSTEMD (source), result, &error))
    {
      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        return;
      /* Without Subscribe systemd sends no UnitNew: the list would go stale. */
      g_warning ("Could not subscribe to the user manager's signals: %s", error->message);
    }
  /* Every unit, not only those named app-*: an app may be known by an alias. */
  rc_systemd_list_units_async (self->systemd, no_filter, no_filter,
                               self->cancellable, list_units_cb, self);
}

static void
systemd_appeared_cb (RcSystemd  *systemd,
                     RcRegistry *self)
{
  self->generation++;
  self->syncing = TRUE;
  self->pending_loads = 0;
  rc_systemd_subscribe_async (self->systemd, self->cancellable, subscribe_cb, self);
}

static void
systemd_vanished_cb (RcSystemd  *systemd,
                     RcRegistry *self)
{
  /* Without a user manager at start the registry is ready, and empty, at
   * once. Apps keep running while their manager re-executes: keep the
   * records and reconcile them when it is back. */
  set_ready (self);
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

RcRegistry *
rc_registry_new (RcSystemd *systemd)
{
  RcRegistry *self = g_object_new (RC_TYPE_REGISTRY, NULL);

  self->systemd = g_object_ref (systemd);
  g_signal_connect_object (systemd, "appeared", G_CALLBACK (systemd_appeared_cb), self, 0);
  g_signal_connect_object (systemd, "vanished", G_CALLBACK (systemd_vanished_cb), self, 0);
  g_signal_connect_object (systemd, "unit-new", G_CALLBACK (unit_new_cb), self, 0);
  g_signal_connect_object (systemd, "unit-removed", G_CALLBACK (unit_removed_cb), self, 0);
  g_signal_connect_object (systemd, "unit-changed", G_CALLBACK (unit_changed_cb), self, 0);
  g_signal_connect_object (systemd, "freezer-reached", G_CALLBACK (freezer_reached_cb), self, 0);
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
rc_registry_lookup_path (RcRegistry *self,
                         const char *object_path)
{
  Tracked *tracked = g_hash_table_lookup (self->tracked, object_path);

  return tracked != NULL ? tracked->app : NULL;
}

RcApp *
rc_registry_lookup_unit (RcRegistry *self,
                         const char *unit)
{
  return g_hash_table_lookup (self->apps, unit);
}

gboolean
rc_registry_check_app_argument (const char *app,
                                GError    **error)
{
  if (app == NULL || *app == '\0')
    {
      g_set_error_literal (error, RC_ERROR, RC_ERROR_INVALID_ARGUMENT,
                           "No app given: pass a unit name (app-…-1234.scope) or an AppID "
                           "(org.gnome.Calculator)");
      return FALSE;
    }
  if (strlen (app) > 255)
    {
      g_set_error (error, RC_ERROR, RC_ERROR_INVALID_ARGUMENT,
                   "App name is %zu bytes long; unit names and AppIDs have at most 255",
                   strlen (app));
      return FALSE;
    }
  if (!rc_unit_name_is_valid (app) && !rc_app_id_is_valid (app))
    {
      g_autofree char *shown = g_utf8_make_valid (app, -1);

      g_set_error (error, RC_ERROR, RC_ERROR_INVALID_ARGUMENT,
                   "“%s” is neither a systemd unit name nor a desktop AppID: unit names use "
                   "[A-Za-z0-9:_.\\@-] and end in a unit type such as .scope or .service; "
                   "AppIDs use [A-Za-z0-9._-]", shown);
      return FALSE;
    }
  return TRUE;
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
  if (!rc_registry_check_app_argument (app, &error))
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

  g_cancellable_cancel (self->cancellable);
  g_clear_handle_id (&self->query_id, g_source_remove);
  g_clear_pointer (&self->to_query, g_hash_table_unref);
  g_queue_clear_full (&self->load_queue, g_free);
  g_clear_pointer (&self->apps, g_hash_table_unref);
  g_clear_pointer (&self->tracked, g_hash_table_unref);
  g_clear_object (&self->systemd);
  g_clear_object (&self->cancellable);
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
}

static void
rc_registry_init (RcRegistry *self)
{
  self->tracked = g_hash_table_new_full (g_str_hash, g_str_equal, NULL,
                                         (GDestroyNotify) tracked_free);
  self->apps = g_hash_table_new (g_str_hash, g_str_equal);
  self->to_query = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->cancellable = g_cancellable_new ();
}
