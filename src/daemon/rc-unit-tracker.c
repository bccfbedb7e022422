/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "rc-unit-tracker.h"
#include "rc-active-state-query.h"
#include "rc-cgroup.h"
#include "rc-cgroup-locator.h"
#include "rc-error.h"
#include "rc-file-reader.h"
#include "rc-heap.h"
#include "rc-names.h"
#include "rc-unit-name.h"

#include <string.h>

typedef struct {
  RcUnitTracker *tracker;
  char          *id;
  char          *object_path;
  const char    *app_id;        /* interned */
  const char    *launcher;      /* interned */
  RcUnitKind     kind;
  RcUnitState    state;
  const char    *active_state;  /* the last ActiveState heard, interned; NULL before the first */
  const char    *freezer_heard; /* FreezerState signalled while a read was on its way, interned */
  guint          generation;    /* the listing that last saw it */
  gboolean       counted;       /* part of the initial listing's count */
  gboolean       held;          /* one we are starting: read when its start is over */
  guint          retries;
} Tracked;

/* What the registry reads of a unit; the rest of systemd's GetAll replies
 * is dropped as it arrives. */
static const char * const unit_keys[] = {
  "ActiveState", "FreezerState", "SourcePath", "Names", NULL
};
static const char * const type_keys[] = { "Slice", "ControlGroup", NULL };
/* A Get of one property, not GetAll: the listing has the state, and every
 * running unit that is not an app by name is probed at start. */
static const char * const probe_keys[] = { "Names", NULL };
/* What a running unit found in cgroupfs still needs from systemd when it
 * has no transient file to read it from. */
static const char * const source_keys[] = { "SourcePath", NULL };

/* systemd under load answers slowly; a burst of thousands of GetAll calls
 * would also hit the bus's limit of pending replies per connection. */
#define MAX_LOADS_IN_FLIGHT 16
#define MAX_LOAD_RETRIES 5

struct _RcUnitTracker {
  GObject             parent_instance;
  RcSystemd          *systemd;
  RcCgroupLocator    *locator;  /* NULL: every read asks systemd */
  GHashTable         *tracked;  /* object path -> Tracked */
  GCancellable       *cancellable;
  guint               generation;
  guint               pending_loads; /* reads the first listing waits for */
  GQueue              load_queue; /* object paths */
  guint               loads_in_flight;
  RcActiveStateQuery *state_query;
  gboolean            syncing;
  gboolean            ready;
};

enum {
  SIGNAL_READY,
  SIGNAL_UNIT_READ,
  SIGNAL_UNIT_DOWN,
  SIGNAL_UNIT_ACTIVE_STATE,
  SIGNAL_UNIT_FREEZER,
  N_SIGNALS
};
static guint signals[N_SIGNALS];

G_DEFINE_TYPE (RcUnitTracker, rc_unit_tracker, G_TYPE_OBJECT);

/* ---- the tracked units ------------------------------------------------- */

static void
set_ready (RcUnitTracker *self)
{
  if (self->ready)
    return;
  self->ready = TRUE;
  g_debug ("Unit tracker ready: %u units", g_hash_table_size (self->tracked));
  g_signal_emit (self, signals[SIGNAL_READY], 0);
}

static void
load_done (RcUnitTracker *self)
{
  if (self->pending_loads > 0 && --self->pending_loads == 0 && self->syncing)
    {
      self->syncing = FALSE;
      set_ready (self);
    }
}

static void
uncount (Tracked *tracked)
{
  if (tracked->counted)
    {
      tracked->counted = FALSE;
      load_done (tracked->tracker);
    }
}

static void
tracked_free (Tracked *tracked)
{
  g_ref_string_release (tracked->id);
  g_ref_string_release (tracked->object_path);
  g_free (tracked);
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
  RcUnitTracker *tracker;
  char          *object_path;
  char          *id;
  const char    *active_state;  /* an alias probe's: from the listing, interned */
  GVariant      *located;       /* what cgroupfs said of a running unit */
} LoadData;

static LoadData *
load_data_new (RcUnitTracker *self,
               const char    *object_path)
{
  LoadData *data = g_new0 (LoadData, 1);

  data->tracker = g_object_ref (self);
  data->object_path = g_strdup (object_path);
  return data;
}

static void
load_data_free (LoadData *data)
{
  g_object_unref (data->tracker);
  g_free (data->object_path);
  g_free (data->id);
  g_clear_pointer (&data->located, g_variant_unref);
  g_free (data);
}

static void apply_event (Tracked    *tracked,
                         RcUnitEvent event,
                         GVariant   *props);

static Tracked *
lookup (RcUnitTracker *self,
        const char    *object_path)
{
  return self->tracked != NULL ? g_hash_table_lookup (self->tracked, object_path) : NULL;
}

static gboolean
retry_load_cb (gpointer user_data)
{
  LoadData *data = user_data;
  Tracked *tracked = lookup (data->tracker, data->object_path);

  if (tracked != NULL)
    apply_event (tracked, RC_UNIT_EVENT_RETRY, NULL);
  return G_SOURCE_REMOVE;
}

static void pump_loads (RcUnitTracker *self);

static void
load_unit_cb (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  LoadData *data = user_data;
  RcUnitTracker *self = data->tracker;
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) props = NULL;
  Tracked *tracked = NULL;

  props = rc_systemd_get_unit_properties_finish (RC_SYSTEMD (source), result, &error);
  self->loads_in_flight--;
  if (props != NULL && data->located != NULL)
    {
      g_auto(GVariantDict) dict = G_VARIANT_DICT_INIT (data->located);
      const char *source_path;

      if (g_variant_lookup (props, "SourcePath", "&s", &source_path))
        g_variant_dict_insert (&dict, "SourcePath", "s", source_path);
      g_variant_unref (props);
      props = g_variant_ref_sink (g_variant_dict_end (&dict));
    }

  /* Looked up by path: the unit that asked may be forgotten by now. */
  if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    tracked = lookup (self, data->object_path);
  if (tracked != NULL && props != NULL)
    {
      const char *active_state = NULL;

      tracked->retries = 0;
      g_variant_lookup (props, "ActiveState", "&s", &active_state);
      apply_event (tracked, is_active_state (active_state) ? RC_UNIT_EVENT_READ_ACTIVE
                       : is_live_state (active_state) ? RC_UNIT_EVENT_READ_STARTING
                       : RC_UNIT_EVENT_READ_DOWN, props);
    }
  else if (tracked != NULL)
    {
      /* Gone for good, or tried often enough: forget the unit. */
      if (g_error_matches (error, RC_ERROR, RC_ERROR_NO_SUCH_APP) ||
          tracked->retries >= MAX_LOAD_RETRIES)
        {
          g_debug ("Unit %s is gone: %s", tracked->id, error->message);
          apply_event (tracked, RC_UNIT_EVENT_GONE, NULL);
        }
      else
        {
          tracked->retries++;
          g_debug ("Could not read unit %s (%s); retry %u", tracked->id, error->message,
                   tracked->retries);
          apply_event (tracked, RC_UNIT_EVENT_READ_FAILED, NULL);
        }
    }
  if (self->tracked != NULL)
    pump_loads (self);
  load_data_free (data);
}

/* A running unit's Slice, ControlGroup and FreezerState, from cgroupfs
 * with no D-Bus call; NULL when it is not running or not found there. Its
 * SourcePath comes from its transient file (read_transient_async) or from
 * systemd. */
static GVariant *
string_entry (const char *key,
              const char *value)
{
  return g_variant_new_dict_entry (g_variant_new_string (key),
                                   g_variant_new_variant (g_variant_new_string (value)));
}

static GVariant *
locate (RcUnitTracker *self,
        Tracked       *tracked)
{
  g_autofree char *control_group = NULL;
  GVariant *entries[4];
  guint n = 0;
  const char *slice;

  if (self->locator == NULL || !is_active_state (tracked->active_state) ||
      !rc_cgroup_locator_find (self->locator, tracked->id, &control_group, &slice))
    return NULL;
  /* Made from its parts: a GVariantDict costs ten times as much, and this
   * runs for every app at start. */
  entries[n++] = string_entry ("ActiveState", tracked->active_state);
  entries[n++] = string_entry ("Slice", slice);
  entries[n++] = string_entry ("ControlGroup", control_group);
  entries[n++] = string_entry ("FreezerState",
                               rc_cgroup_is_frozen (control_group) ? "frozen" : "running");
  return g_variant_ref_sink (g_variant_new_array (G_VARIANT_TYPE ("{sv}"), entries, n));
}

/* @located plus SourcePath, made from its parts as locate () makes it: a
 * GVariantDict here was a third of the main loop's work per app at start. */
static GVariant *
with_source_path (GVariant   *located,
                  const char *source_path)
{
  gsize n = g_variant_n_children (located);
  g_autofree GVariant * *entries = g_new (GVariant *, n + 1);
  GVariant *props;

  for (gsize i = 0; i < n; i++)
    entries[i] = g_variant_get_child_value (located, i);
  entries[n] = string_entry ("SourcePath", source_path);
  props = g_variant_ref_sink (g_variant_new_array (G_VARIANT_TYPE ("{sv}"), entries, n + 1));
  for (gsize i = 0; i < n; i++)
    g_variant_unref (entries[i]);
  return props;
}

/* Any process of the user can put a FIFO, a link to /dev/zero or a path on
 * a mount that never answers where systemd keeps transient unit files: the
 * file is read in the file reader's worker (bounded in size and time). */
static gpointer
read_transient_in_worker (gpointer unit,
                          GError **error)
{
  char *source_path = NULL;

  if (!rc_unit_transient_source_path (unit, &source_path))
    g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_NOENT, "no transient file of %s",
                 (char *) unit);
  return source_path;
}

static void
transient_read_cb (GObject      *source,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  LoadData *data = user_data;
  RcUnitTracker *self = data->tracker;
  g_autoptr(GError) error = NULL;
  g_autofree char *source_path = rc_file_reader_run_finish (RC_FILE_READER (source), result,
                                                            &error);
  Tracked *tracked = NULL;

  if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    tracked = lookup (self, data->object_path);
  if (tracked == NULL)
    {
      self->loads_in_flight--;
      if (self->tracked != NULL)
        pump_loads (self);
      load_data_free (data);
      return;
    }
  if (source_path == NULL)
    {
      /* none, or not read in time: systemd says it */
      rc_systemd_get_unit_properties_async (self->systemd, data->object_path,
                                            SYSTEMD_UNIT_INTERFACE, source_keys, NULL,
                                            self->cancellable, load_unit_cb, data);
      return;
    }
  {
    g_autoptr(GVariant) props = with_source_path (data->located, source_path);

    self->loads_in_flight--;
    tracked->retries = 0;
    apply_event (tracked, RC_UNIT_EVENT_READ_ACTIVE, props);
  }
  if (self->tracked != NULL)
    pump_loads (self);
  load_data_free (data);
}

static void
pump_loads (RcUnitTracker *self)
{
  while (self->loads_in_flight < MAX_LOADS_IN_FLIGHT && !g_queue_is_empty (&self->load_queue))
    {
      g_autofree char *path = g_queue_pop_head (&self->load_queue);
      Tracked *tracked = g_hash_table_lookup (self->tracked, path);
      g_autoptr(GVariant) located = NULL;
      LoadData *data;

      if (tracked == NULL || tracked->state != RC_UNIT_QUEUED)
        continue;
      apply_event (tracked, RC_UNIT_EVENT_READ_STARTS, NULL);
      tracked->freezer_heard = NULL;
      located = locate (self, tracked);
      data = load_data_new (self, tracked->object_path);
      self->loads_in_flight++;
      if (located != NULL)
        {
          /* the rest from its transient file, else from systemd */
          g_autofree char *what = g_strdup_printf ("the transient file of %s", tracked->id);

          data->located = g_steal_pointer (&located);
          rc_file_reader_run_async (rc_file_reader_get_default (), what,
                                    read_transient_in_worker, g_strdup (tracked->id), g_free,
                                    g_free, self->cancellable, transient_read_cb, data);
        }
      else
        rc_systemd_get_unit_properties_async (self->systemd, tracked->object_path,
                                              tracked->kind == RC_UNIT_KIND_SCOPE
                                              ? SYSTEMD_SCOPE_INTERFACE
                                              : SYSTEMD_SERVICE_INTERFACE,
                                              type_keys, unit_keys, self->cancellable,
                                              load_unit_cb, data);
    }
}

/* Asks systemd for the unit's ActiveState, without loading it. */
static void
query_state (Tracked *tracked)
{
  rc_active_state_query_ask (tracked->tracker->state_query, tracked->id, tracked->object_path);
}

/* Moves @tracked on by @event and carries out what the rules say. */
static void
apply_event (Tracked    *tracked,
             RcUnitEvent event,
             GVariant   *props)
{
  RcUnitTracker *self = tracked->tracker;
  RcUnitState before = tracked->state;
  RcUnitAction actions;

  tracked->state = rc_unit_state_next (before, event, &actions);
  if (tracked->state != before)
    g_debug ("Unit %s: %s -> %s", tracked->id, rc_unit_state_to_string (before),
             rc_unit_state_to_string (tracked->state));

  if (actions & RC_UNIT_ACTION_APPLY)
    {
      g_autoptr(GVariant) read = g_variant_ref (props);

      /* The read's FreezerState may be older than one signalled while it was
       * on its way (systemd answers a read in several replies): the signal
       * is the last word. */
      if (tracked->freezer_heard != NULL)
        {
          g_auto(GVariantDict) dict = G_VARIANT_DICT_INIT (props);

          g_variant_dict_insert (&dict, "FreezerState", "s", tracked->freezer_heard);
          g_variant_unref (read);
          read = g_variant_ref_sink (g_variant_dict_end (&dict));
        }
      g_signal_emit (self, signals[SIGNAL_UNIT_READ], 0, tracked->object_path, tracked->id,
                     tracked->app_id, tracked->launcher, read);
    }
  if (actions & RC_UNIT_ACTION_DROP_APP)
    g_signal_emit (self, signals[SIGNAL_UNIT_DOWN], 0, tracked->object_path);
  if (actions & RC_UNIT_ACTION_ASK_STATE)
    query_state (tracked);
  if (actions & RC_UNIT_ACTION_RETRY_LATER)
    g_timeout_add_seconds_full (G_PRIORITY_DEFAULT, tracked->retries, retry_load_cb,
                                load_data_new (self, tracked->object_path),
                                (GDestroyNotify) load_data_free);
  if (actions & RC_UNIT_ACTION_FORGET)
    {
      uncount (tracked);
      rc_active_state_query_forget (self->state_query, tracked->object_path);
      g_hash_table_remove (self->tracked, tracked->object_path);
      return;
    }
  if (actions & RC_UNIT_ACTION_QUEUE_READ)
    {
      /* The first listing is ready once every live unit it found is read. */
      if (self->syncing && !tracked->counted)
        {
          tracked->counted = TRUE;
          self->pending_loads++;
        }
      g_queue_push_tail (&self->load_queue, g_strdup (tracked->object_path));
      pump_loads (self);
    }
  else if (props != NULL)
    uncount (tracked);
}

/* Acts on the last ActiveState heard of @tracked: an app's new active
 * state, or a read (live) or the app dropped (not live). */
static void
act_on_state (Tracked *tracked)
{
  const char *state = tracked->active_state;

  if (tracked->state == RC_UNIT_ACTIVE && is_active_state (state))
    g_signal_emit (tracked->tracker, signals[SIGNAL_UNIT_ACTIVE_STATE], 0,
                   tracked->object_path, state);   /* still an app: nothing to read */
  else
    apply_event (tracked, is_live_state (state) ? RC_UNIT_EVENT_LIVE : RC_UNIT_EVENT_DOWN, NULL);
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
  if (state == tracked->active_state)
    return;
  tracked->active_state = state;
  /* A unit we are starting is read once its start is over (start_ended_cb),
   * from cgroupfs: systemd answers questions before it runs its jobs, and the
   * reply that lets a caller's process become the app would wait for the
   * read. */
  if (is_live_state (state) && rc_systemd_is_starting (tracked->tracker->systemd, tracked->id))
    {
      tracked->held = TRUE;
      return;
    }
  tracked->held = FALSE;
  act_on_state (tracked);
}

static void
unit_changed_cb (RcSystemd     *systemd,
                 const char    *object_path,
                 GVariant      *changed,
                 RcUnitTracker *self)
{
  Tracked *tracked = g_hash_table_lookup (self->tracked, object_path);
  const char *state;

  if (tracked == NULL)
    return;
  if (g_variant_lookup (changed, "FreezerState", "&s", &state))
    {
      if (tracked->state == RC_UNIT_READING || tracked->state == RC_UNIT_READING_STALE ||
          tracked->state == RC_UNIT_DOWN_READING)
        tracked->freezer_heard = g_intern_string (state);
      g_signal_emit (self, signals[SIGNAL_UNIT_FREEZER], 0, object_path, state);
    }
  /* systemd sends ActiveState with every change of the unit. */
  if (g_variant_lookup (changed, "ActiveState", "&s", &state))
    note_state (tracked, state);
}

static void
track_parsed (RcUnitTracker    *self,
              const char       *id,
              const char       *object_path,
              const RcUnitName *parsed,
              const char       *active_state)
{
  Tracked *tracked = g_new0 (Tracked, 1);

  tracked->tracker = self;
  /* shared with the app's record and the watches (rc_shared_string) */
  tracked->id = rc_shared_string (id);
  tracked->object_path = rc_shared_string (object_path);
  tracked->app_id = g_intern_string (parsed->app_id);
  tracked->launcher = g_intern_string (parsed->launcher);
  tracked->kind = parsed->kind;
  tracked->state = RC_UNIT_DOWN;
  tracked->generation = self->generation;
  g_hash_table_insert (self->tracked, tracked->object_path, tracked);
  if (is_live_state (active_state))
    {
      tracked->active_state = g_intern_string (active_state);
      apply_event (tracked, RC_UNIT_EVENT_LIVE, NULL);
    }
}

static void
probe_aliases_cb (GObject      *source,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  LoadData *data = user_data;
  RcUnitTracker *self = data->tracker;
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
          track_parsed (self, data->id, data->object_path, parsed, data->active_state);
        }
    }
  load_done (self);
  load_data_free (data);
}

/* A unit whose own name is not an app's may have an alias that is (every
 * name in Names counts). */
static void
probe_aliases (RcUnitTracker *self,
               const char    *id,
               const char    *object_path,
               const char    *active_state)
{
  LoadData *data = load_data_new (self, object_path);

  data->id = g_strdup (id);
  self->pending_loads++;
  data->active_state = g_intern_string (active_state);
  rc_systemd_get_unit_properties_async (self->systemd, object_path, SYSTEMD_UNIT_INTERFACE,
                                        probe_keys, NULL,
                                        self->cancellable, probe_aliases_cb, data);
}

/* A unit from the listing, with its ActiveState then. */
static void
track_listed (RcUnitTracker *self,
              const char    *id,
              const char    *object_path,
              const char    *active_state)
{
  g_autoptr(RcUnitName) parsed = NULL;
  Tracked *tracked = g_hash_table_lookup (self->tracked, object_path);
  gboolean live = is_live_state (active_state);

  if (tracked != NULL)
    {
      tracked->generation = self->generation;
      tracked->active_state = g_intern_string (active_state);
      apply_event (tracked, live ? RC_UNIT_EVENT_LIVE : RC_UNIT_EVENT_DOWN, NULL);
      return;
    }

  parsed = rc_unit_name_parse (id);
  if (parsed != NULL)
    track_parsed (self, id, object_path, parsed, active_state);
  else if (live)
    probe_aliases (self, id, object_path, active_state);
}

/* ---- the answers of RcActiveStateQuery --------------------------------- */

static void
state_listed_cb (RcActiveStateQuery *query,
                 const char         *object_path,
                 const char         *active_state,
                 RcUnitTracker      *self)
{
  Tracked *tracked = lookup (self, object_path);

  if (tracked != NULL)
    note_state (tracked, active_state);
}

static void
state_unlisted_cb (RcActiveStateQuery *query,
                   const char         *object_path,
                   RcUnitTracker      *self)
{
  Tracked *tracked = lookup (self, object_path);

  if (tracked != NULL)
    apply_event (tracked, RC_UNIT_EVENT_GONE, NULL);
}

/* ---- systemd's signals and the full listing ----------------------------- */

static void
unit_new_cb (RcSystemd     *systemd,
             const char    *id,
             const char    *object_path,
             RcUnitTracker *self)
{
  g_autoptr(RcUnitName) parsed = NULL;
  Tracked *tracked;

  /* No read here, not even an alias probe: see RcUnitState. */
  if (!g_hash_table_contains (self->tracked, object_path))
    {
      parsed = rc_unit_name_parse (id);
      if (parsed == NULL)
        return;
      track_parsed (self, id, object_path, parsed, NULL);
    }
  tracked = lookup (self, object_path);
  /* Ours to start: its states come as it starts (note_state). */
  if (rc_systemd_is_starting (systemd, id))
    tracked->held = TRUE;
  else
    query_state (tracked);
}

/* A start of ours is over: a unit held back until then is read now, or its
 * state asked for if no signal told it. */
static void
start_ended_cb (RcSystemd     *systemd,
                const char    *unit,
                RcUnitTracker *self)
{
  g_autofree char *path = rc_systemd_unit_path (unit);
  Tracked *tracked = path != NULL ? lookup (self, path) : NULL;

  if (tracked == NULL || !tracked->held)
    return;
  tracked->held = FALSE;
  if (tracked->active_state == NULL)
    query_state (tracked);
  else
    act_on_state (tracked);
}

static void
unit_removed_cb (RcSystemd     *systemd,
                 const char    *id,
                 const char    *object_path,
                 RcUnitTracker *self)
{
  Tracked *tracked = g_hash_table_lookup (self->tracked, object_path);

  if (tracked != NULL)
    apply_event (tracked, RC_UNIT_EVENT_REMOVED, NULL);
}

static void
list_units_cb (GObject      *source,
               GAsyncResult *result,
               gpointer      user_data)
{
  RcUnitTracker *self = user_data;
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
    apply_event (g_ptr_array_index (stale, i), RC_UNIT_EVENT_GONE, NULL);

  load_done (self);
  rc_heap_trim_after (g_variant_n_children (units));
}

static void
control_group_cb (GObject      *source,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  RcUnitTracker *self = user_data;
  g_autoptr(GError) error = NULL;
  g_autofree char *control_group = NULL;
  static const char * const no_filter[] = { NULL };

  control_group = rc_systemd_get_control_group_finish (RC_SYSTEMD (source), result, &error);
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  g_clear_pointer (&self->locator, rc_cgroup_locator_free);
  if (control_group != NULL)
    self->locator = rc_cgroup_locator_new (control_group);
  else
    g_debug ("No ControlGroup of the user manager (%s): units are read from systemd",
             error->message);
  /* Every unit, not only those named app-*: an app may be known by an alias. */
  rc_systemd_list_units_async (self->systemd, no_filter, no_filter,
                               self->cancellable, list_units_cb, self);
}

static void
subscribe_cb (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  RcUnitTracker *self = user_data;
  g_autoptr(GError) error = NULL;

  if (!rc_systemd_subscribe_finish (RC_SYSTEMD (source), result, &error))
    {
      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        return;
      /* Without Subscribe systemd sends no UnitNew: the list would go stale. */
      g_warning ("Could not subscribe to the user manager's signals: %s", error->message);
    }
  /* Where the units' cgroups are: most reads need no call then. */
  rc_systemd_get_control_group_async (self->systemd, self->cancellable, control_group_cb, self);
}

static void
systemd_appeared_cb (RcSystemd     *systemd,
                     RcUnitTracker *self)
{
  self->generation++;
  self->syncing = TRUE;
  self->pending_loads = 0;
  rc_systemd_subscribe_async (self->systemd, self->cancellable, subscribe_cb, self);
}

static void
systemd_vanished_cb (RcSystemd     *systemd,
                     RcUnitTracker *self)
{
  /* Without a user manager at start the tracker is ready, and empty, at
   * once. Apps keep running while their manager re-executes: keep the
   * units and reconcile them when it is back. */
  set_ready (self);
}

RcUnitTracker *
rc_unit_tracker_new (RcSystemd *systemd)
{
  RcUnitTracker *self = g_object_new (RC_TYPE_UNIT_TRACKER, NULL);

  self->systemd = g_object_ref (systemd);
  self->state_query = rc_active_state_query_new (systemd, self->cancellable);
  g_signal_connect_object (self->state_query, "listed", G_CALLBACK (state_listed_cb), self, 0);
  g_signal_connect_object (self->state_query, "unlisted", G_CALLBACK (state_unlisted_cb), self, 0);
  g_signal_connect_object (systemd, "appeared", G_CALLBACK (systemd_appeared_cb), self, 0);
  g_signal_connect_object (systemd, "vanished", G_CALLBACK (systemd_vanished_cb), self, 0);
  g_signal_connect_object (systemd, "unit-new", G_CALLBACK (unit_new_cb), self, 0);
  g_signal_connect_object (systemd, "unit-removed", G_CALLBACK (unit_removed_cb), self, 0);
  g_signal_connect_object (systemd, "unit-changed", G_CALLBACK (unit_changed_cb), self, 0);
  g_signal_connect_object (systemd, "start-ended", G_CALLBACK (start_ended_cb), self, 0);
  return self;
}

static void
rc_unit_tracker_dispose (GObject *object)
{
  RcUnitTracker *self = RC_UNIT_TRACKER (object);

  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->state_query);
  g_queue_clear_full (&self->load_queue, g_free);
  g_clear_pointer (&self->tracked, g_hash_table_unref);
  g_clear_pointer (&self->locator, rc_cgroup_locator_free);
  g_clear_object (&self->systemd);
  g_clear_object (&self->cancellable);
  G_OBJECT_CLASS (rc_unit_tracker_parent_class)->dispose (object);
}

static void
rc_unit_tracker_class_init (RcUnitTrackerClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = rc_unit_tracker_dispose;

  signals[SIGNAL_READY] =
    g_signal_new ("ready", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                  NULL, NULL, NULL, G_TYPE_NONE, 0);
  signals[SIGNAL_UNIT_READ] =
    g_signal_new ("unit-read", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                  NULL, NULL, NULL, G_TYPE_NONE, 5, G_TYPE_STRING, G_TYPE_STRING,
                  G_TYPE_STRING, G_TYPE_STRING, G_TYPE_VARIANT);
  signals[SIGNAL_UNIT_DOWN] =
    g_signal_new ("unit-down", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                  NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);
  signals[SIGNAL_UNIT_ACTIVE_STATE] =
    g_signal_new ("unit-active-state", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                  NULL, NULL, NULL, G_TYPE_NONE, 2, G_TYPE_STRING, G_TYPE_STRING);
  signals[SIGNAL_UNIT_FREEZER] =
    g_signal_new ("unit-freezer", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                  NULL, NULL, NULL, G_TYPE_NONE, 2, G_TYPE_STRING, G_TYPE_STRING);
}

static void
rc_unit_tracker_init (RcUnitTracker *self)
{
  self->tracked = g_hash_table_new_full (g_str_hash, g_str_equal, NULL,
                                         (GDestroyNotify) tracked_free);
  self->cancellable = g_cancellable_new ();
}
