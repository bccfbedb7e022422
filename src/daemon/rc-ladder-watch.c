/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "rc-ladder-watch.h"
#include "rc-cgroup.h"
#include "rc-guard.h"
#include "rc-ladder.h"
#include "rc-pressure.h"
#include "rc-pressure-trigger.h"

enum { SIGNAL_STEPPED, N_SIGNALS };
static guint signals[N_SIGNALS];

/* An app the ladder holds, from its first step until it is let go: one
 * spell, told at most once for each of its steps. */
typedef struct {
  RcApp   *app;
  guint64  held;         /* MemoryHigh, 0: none */
  guint64  held_from;
  guint64  floor;
  gboolean frozen;
  guint64  order;
  guint64  stall_total;  /* its own "some" total at the last look while
                          * throttled; G_MAXUINT64 unknown */
  gboolean told_throttled;
  gboolean told_frozen;
} Step;

struct _RcLadderWatch {
  GObject                parent_instance;
  RcRegistry            *registry;
  RcSystemd             *systemd;
  RcRules               *rules;
  RcPolicy              *policy;
  RcHolds               *holds;
  RcDBusResourceControl *object;
  RcPressureTrigger     *watched[2];    /* app.slice, the manager's cgroup; NULL: not known yet */
  GHashTable            *steps;         /* unit -> Step */
  guint64                serial;
  RcLadderLevel          level;
  RcLadderCalm           calm;
  char                  *shown;         /* level and units last sent */
  GVariant              *shown_held;    /* MemoryLadderHeld last set */
  gint64                 looked_usec;
  guint                  check_id;
  guint                  armed_percent;
  gboolean               armed_on;
  gboolean               rules_on;      /* [Guard] MemoryLadder as last read */
  gboolean               refused;       /* the kernel takes no trigger */
  GCancellable          *cancellable;
};

G_DEFINE_TYPE (RcLadderWatch, rc_ladder_watch, G_TYPE_OBJECT);

static const RcGuardRules *
rules_now (RcLadderWatch *self)
{
  return rc_rules_get_guard (self->rules);
}

static gboolean
ladder_on (RcLadderWatch *self)
{
  return rules_now (self)->memory_ladder && !rc_policy_is_paused (self->policy, NULL);
}

static void
step_free (Step *step)
{
  rc_app_unref (step->app);
  g_free (step);
}

/* ---- the properties and the signal ----------------------------------------- */

GVariant *
rc_ladder_watch_get_held (RcLadderWatch *self)
{
  g_auto(GVariantBuilder) builder = G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE ("a(ssst)"));
  GHashTableIter iter;
  Step *step;

  g_hash_table_iter_init (&iter, self->steps);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &step))
    g_variant_builder_add (&builder, "(ssst)", step->app->unit, step->app->app_id,
                           step->frozen ? "frozen" : "throttled",
                           (guint64) (step->frozen ? 0 : step->held));
  return g_variant_builder_end (&builder);
}

gboolean
rc_ladder_watch_throttles (RcLadderWatch *self,
                           const char    *unit)
{
  Step *step = g_hash_table_lookup (self->steps, unit);

  return step != NULL && step->held != 0;
}

const char *
rc_ladder_watch_get_level (RcLadderWatch *self)
{
  return rc_ladder_level_name (self->level);
}

static int
compare_strings (gconstpointer a,
                 gconstpointer b)
{
  return g_strcmp0 (*(const char * const *) a, *(const char * const *) b);
}

/* Sets the properties that changed, and sends MemoryPressureLevel when
 * the level or the units held changed since it was last sent. */
static void
publish (RcLadderWatch *self)
{
  g_autoptr(GPtrArray) units = g_ptr_array_new ();
  g_autoptr(GVariant) held = NULL;
  g_autofree char *joined = NULL;
  g_autofree char *shown = NULL;
  GHashTableIter iter;
  Step *step;

  if (self->object == NULL)
    return;
  held = g_variant_ref_sink (rc_ladder_watch_get_held (self));
  if (self->shown_held == NULL || !g_variant_equal (held, self->shown_held))
    {
      g_clear_pointer (&self->shown_held, g_variant_unref);
      self->shown_held = g_variant_ref (held);
      rc_dbus_resource_control_set_memory_ladder_held (self->object, held);
    }

  g_hash_table_iter_init (&iter, self->steps);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &step))
    g_ptr_array_add (units, step->app->unit);
  g_ptr_array_sort (units, compare_strings);
  g_ptr_array_add (units, NULL);
  joined = g_strjoinv (" ", (char **) units->pdata);
  shown = g_strdup_printf ("%s %s", rc_ladder_watch_get_level (self), joined);
  if (g_strcmp0 (shown, self->shown) == 0)
    return;
  g_free (self->shown);
  self->shown = g_steal_pointer (&shown);
  rc_dbus_resource_control_set_memory_ladder_level (self->object, rc_ladder_watch_get_level (self));
  rc_dbus_resource_control_emit_memory_pressure_level (self->object,
                                                       rc_ladder_watch_get_level (self),
                                                       (const char * const *) units->pdata);
}

/* ---- steps --------------------------------------------------------------- */

static Step *
step_for (RcLadderWatch *self,
          RcApp         *app)
{
  Step *step = g_hash_table_lookup (self->steps, app->unit);

  if (step == NULL)
    {
      step = g_new0 (Step, 1);
      step->app = rc_app_ref (app);
      step->stall_total = G_MAXUINT64;
      g_hash_table_insert (self->steps, app->unit, step);
    }
  return step;
}

/* Brings @app to what @entry says it should have next, each change
 * recorded with @reason (NULL: the change is not the ladder's). */
static void
take_step (RcLadderWatch     *self,
           const RcLadderApp *entry,
           const char        *reason)
{
  RcApp *app = (RcApp *) entry->key;
  Step *step = step_for (self, app);
  gboolean frozen;

  g_debug ("Ladder: %s MemoryHigh %" G_GUINT64_FORMAT " -> %" G_GUINT64_FORMAT ", %s -> %s (%s)",
           app->unit, entry->held, entry->next_held, entry->frozen ? "frozen" : "running",
           entry->next_frozen ? "frozen" : "running", reason != NULL ? reason : "let go");
  step->held = entry->next_held;
  step->held_from = entry->held_from;
  step->floor = entry->floor;
  step->frozen = entry->next_frozen;
  step->order = entry->order;
  if (entry->next_frozen != entry->frozen)
    rc_policy_ladder_freeze (self->policy, app, entry->next_frozen, reason);
  if (entry->next_held != entry->held)
    {
      rc_holds_set (self->holds, app->unit, entry->next_held, reason);
      rc_policy_ladder_app (self->policy, app, TRUE, &frozen);
    }
  if (entry->next_held != 0 && !step->told_throttled)
    {
      step->told_throttled = TRUE;
      g_signal_emit (self, signals[SIGNAL_STEPPED], 0, app, "throttled");
    }
  if (entry->next_frozen && !step->told_frozen)
    {
      step->told_frozen = TRUE;
      g_signal_emit (self, signals[SIGNAL_STEPPED], 0, app, "frozen");
    }
  if (step->held == 0 && !step->frozen)
    g_hash_table_remove (self->steps, app->unit);
}

static void
let_all_go (RcLadderWatch *self,
            const char    *reason)
{
  g_autoptr(GPtrArray) apps = g_ptr_array_new_with_free_func ((GDestroyNotify) rc_app_unref);
  GHashTableIter iter;
  Step *step;

  g_hash_table_iter_init (&iter, self->steps);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &step))
    g_ptr_array_add (apps, rc_app_ref (step->app));
  for (guint i = 0; i < apps->len; i++)
    {
      RcApp *app = g_ptr_array_index (apps, i);
      gboolean frozen;

      /* paused: the pause thawed it and takes MemoryHigh back itself */
      if (reason != NULL)
        rc_policy_ladder_freeze (self->policy, app, FALSE, reason);
      rc_holds_set (self->holds, app->unit, 0, reason);
      rc_policy_ladder_app (self->policy, app, TRUE, &frozen);
      g_hash_table_remove (self->steps, app->unit);
    }
  self->level = RC_LADDER_NORMAL;
  publish (self);
}

/* ---- checks -------------------------------------------------------------- */

/* The higher pressure of the two since the last look; @out_new: a total
 * was read for the first time (no pressure yet, the next look has one). */
static double
read_pressure (RcLadderWatch *self,
               gint64         now_usec,
               gboolean      *out_new)
{
  double highest = 0;

  *out_new = FALSE;
  for (guint i = 0; i < G_N_ELEMENTS (self->watched); i++)
    {
      gboolean first;
      double pressure;

      if (self->watched[i] == NULL)
        continue;
      pressure = rc_pressure_trigger_look (self->watched[i], now_usec - self->looked_usec, &first);
      highest = MAX (highest, pressure);
      if (first)
        *out_new = TRUE;
    }
  self->looked_usec = now_usec;
  return highest;
}

/* The highest stall share among the apps the ladder throttles, over the
 * @elapsed_usec since the last look. A MemoryHigh under what an app
 * touches again and again makes it reclaim and wait: that stall is in
 * app.slice's total too, and would keep the pressure up that the ladder
 * waits to fall before it gives anything back (the VM showed a frozen
 * hog never thawed so). It is taken off app.slice's share, not off the
 * user's: the ladder answers pressure it did not make itself. */
static double
own_stall (RcLadderWatch *self,
           gint64         elapsed_usec)
{
  GHashTableIter iter;
  Step *step;
  double highest = 0;

  g_hash_table_iter_init (&iter, self->steps);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &step))
    {
      guint64 total = step->held != 0 && !step->frozen ?
                      rc_cgroup_read_pressure_total (step->app->control_group, RC_PRESSURE_MEMORY) :
                      G_MAXUINT64;

      if (total != G_MAXUINT64 && step->stall_total != G_MAXUINT64)
        highest = MAX (highest, rc_pressure_percent (step->stall_total, total, elapsed_usec));
      step->stall_total = total;
    }
  return highest;
}

static gboolean
pressure_readable (RcLadderWatch *self)
{
  for (guint i = 0; i < G_N_ELEMENTS (self->watched); i++)
    if (self->watched[i] != NULL && rc_pressure_trigger_has_total (self->watched[i]))
      return TRUE;
  return FALSE;
}

/* Apps not held whose memory.min and memory.low a check reads: the
 * biggest, of which it throttles RC_LADDER_THROTTLE_PER_CHECK. The others
 * wait for a later check, which spares two file reads an app a check. */
#define PROTECTION_READS (4 * RC_LADDER_THROTTLE_PER_CHECK)

static void
fill_app (RcLadderWatch *self,
          RcLadderApp   *entry,
          RcApp         *app)
{
  Step *step = g_hash_table_lookup (self->steps, app->unit);
  RcLadderMay may = rc_policy_ladder_app (self->policy, app, FALSE, &entry->frozen);

  entry->key = app;
  entry->may_throttle = (may & RC_LADDER_MAY_THROTTLE) != 0;
  entry->may_freeze = (may & RC_LADDER_MAY_FREEZE) != 0;
  entry->frozen_else = !entry->frozen && g_strcmp0 (app->freezer_state, "frozen") == 0;
  /* an app the ladder may not touch is not read */
  if ((may == 0 && step == NULL) || !rc_app_read_memory_current (app, &entry->current))
    entry->current = 0;
  if (step != NULL)
    {
      /* thawed meanwhile by the focus, sound, a pause or by hand */
      step->frozen = entry->frozen;
      entry->held = step->held;
      entry->held_from = step->held_from;
      entry->floor = step->floor;
      entry->order = step->order;
    }
}

static int
by_current_desc (gconstpointer a,
                 gconstpointer b)
{
  const RcLadderApp *x = a, *y = b;

  return x->current < y->current ? 1 : x->current > y->current ? -1 : 0;
}

/* What protects an app counts for its first step: read for the biggest
 * of @apps (sorted) that may be throttled; the others count as protected
 * for this check. */
static void
read_protection (GArray *apps)
{
  guint read = 0;

  for (guint i = 0; i < apps->len; i++)
    {
      RcLadderApp *entry = &g_array_index (apps, RcLadderApp, i);
      RcApp *app = (RcApp *) entry->key;
      guint64 min = 0, low = 0;

      if (entry->held != 0 || !entry->may_throttle)
        continue;
      if (read++ >= PROTECTION_READS)
        {
          entry->protected_bytes = G_MAXUINT64;
          continue;
        }
      if (!rc_cgroup_read_u64 (app->control_group, "memory.min", &min))
        min = 0;
      if (!rc_cgroup_read_u64 (app->control_group, "memory.low", &low))
        low = 0;
      entry->protected_bytes = MAX (min, low);
    }
}

/* Every held app, and for a step down every app in app.slice. */
static GArray *
gather (RcLadderWatch *self,
        gboolean       all)
{
  GArray *apps = g_array_new (FALSE, TRUE, sizeof (RcLadderApp));
  GHashTableIter iter;
  Step *step;

  g_hash_table_iter_init (&iter, self->steps);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &step))
    {
      RcLadderApp entry = { 0, };

      fill_app (self, &entry, step->app);
      g_array_append_val (apps, entry);
    }
  if (all)
    {
      g_autoptr(GPtrArray) registered = rc_registry_get_apps (self->registry);

      for (guint i = 0; i < registered->len; i++)
        {
          RcApp *app = g_ptr_array_index (registered, i);
          RcLadderApp entry = { 0, };

          if (!g_str_has_prefix (app->slice != NULL ? app->slice : "", "app") ||
              g_hash_table_contains (self->steps, app->unit))
            continue;
          fill_app (self, &entry, app);
          if (entry.may_freeze)
            g_array_append_val (apps, entry);
        }
      g_array_sort (apps, by_current_desc);
      read_protection (apps);
    }
  return apps;
}

/* Drops the apps that hold nothing any more (thawed by someone else). */
static void
forget_let_go (RcLadderWatch *self)
{
  GHashTableIter iter;
  Step *step;

  g_hash_table_iter_init (&iter, self->steps);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &step))
    if (step->held == 0 && !step->frozen)
      g_hash_table_iter_remove (&iter);
}

static void stop_checks (RcLadderWatch *self);

static gboolean
check_cb (gpointer user_data)
{
  RcLadderWatch *self = user_data;
  const RcGuardRules *rules = rules_now (self);
  gint64 now_usec = g_get_monotonic_time ();
  double own = own_stall (self, now_usec - self->looked_usec);
  gboolean first;
  double measured = read_pressure (self, now_usec, &first);
  double pressure = MAX (0, measured - own);
  RcLadderMove move = rc_ladder_judge (rules, pressure, &self->calm);
  g_autoptr(GArray) apps = gather (self, move == RC_LADDER_THROTTLE || move == RC_LADDER_FREEZE);
  g_autofree char *down = NULL;
  g_autofree char *back = NULL;
  guint changed = 0;

  self->level = rc_ladder_plan (rules, move, (RcLadderApp *) apps->data, apps->len,
                                &self->serial, &changed);
  g_debug ("Ladder: memory pressure %.1f %% (%.1f %% less the throttled apps' own), %s, "
           "%u apps, %u change", pressure, measured, rc_ladder_level_name (self->level),
           apps->len, changed);
  if (changed > 0)
    {
      down = g_strdup_printf ("memory pressure %.0f %% over %u %%", pressure,
                              move == RC_LADDER_FREEZE ? rules->memory_pressure_freeze :
                              rules->memory_pressure_throttle);
      back = g_strdup_printf ("memory pressure %.0f %% under %u %% for %u s", pressure,
                              rules->memory_pressure_throttle / 2,
                              (guint) (RC_LADDER_CALM_CHECKS * RC_LADDER_CHECK_MSEC / 1000));
      for (guint i = 0; i < apps->len; i++)
        {
          RcLadderApp *entry = &g_array_index (apps, RcLadderApp, i);
          gboolean stepped_down = (entry->next_frozen && !entry->frozen) ||
                                  (entry->next_held != 0 &&
                                   (entry->held == 0 || entry->next_held < entry->held));
          /* let go for the focus, sound or an API value: theirs, not ours */
          gboolean taken_over = rules->memory_ladder &&
                                ((entry->held != 0 && entry->next_held == 0 && !entry->may_throttle) ||
                                 (entry->frozen && !entry->next_frozen && !entry->may_freeze));

          if (entry->next_held != entry->held || entry->next_frozen != entry->frozen)
            take_step (self, entry, taken_over ? NULL : stepped_down ? down : back);
        }
    }
  forget_let_go (self);
  publish (self);
  if (g_hash_table_size (self->steps) > 0 || self->level != RC_LADDER_NORMAL ||
      pressure * 2 >= rules->memory_pressure_throttle ||
      (self->refused && (pressure > 0 || first)))
    return G_SOURCE_CONTINUE;
  g_debug ("Ladder: calm, nothing held: no more checks");
  self->check_id = 0;
  stop_checks (self);
  return G_SOURCE_REMOVE;
}

static void
stop_checks (RcLadderWatch *self)
{
  g_clear_handle_id (&self->check_id, g_source_remove);
  self->calm = (RcLadderCalm) { 0, };
}

/* Takes the readings the first check compares with, and starts checking. */
static void
start_checks (RcLadderWatch *self)
{
  gboolean first;

  if (self->check_id != 0 || !ladder_on (self))
    return;
  read_pressure (self, g_get_monotonic_time (), &first);
  /* PSI off (no pressure file, as on a kernel without it or a test's fake
   * tree): there is nothing to measure, so no check wakes the daemon */
  if (!pressure_readable (self) && g_hash_table_size (self->steps) == 0)
    return;
  self->calm = (RcLadderCalm) { 0, };
  self->check_id = g_timeout_add (RC_LADDER_CHECK_MSEC, check_cb, self);
}

/* ---- triggers ------------------------------------------------------------ */

static void
stall_cb (gpointer user_data)
{
  start_checks (user_data);
}

static void
arm (RcLadderWatch     *self,
     RcPressureTrigger *watched)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *trigger = rc_ladder_trigger_text (rules_now (self)->memory_pressure_throttle);
  g_autofree char *folder = NULL;

  if (watched == NULL)
    return;
  rc_pressure_trigger_disarm (watched);
  if (self->refused || !ladder_on (self) || rc_pressure_trigger_arm (watched, trigger, &error))
    return;
  /* app.slice comes with the first app: armed then */
  folder = rc_cgroup_file_path (rc_pressure_trigger_get_control_group (watched), "");
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND) &&
      watched == self->watched[0] && !g_file_test (folder, G_FILE_TEST_IS_DIR))
    return;
  /* the manager's own pressure files are root's (systemd delegates the
   * folder, not them): its pressure is read at each check, and
   * app.slice's trigger, inside it, wakes the ladder */
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED) &&
      watched == self->watched[1])
    {
      g_debug ("Ladder: no trigger on the manager's cgroup (%s); app.slice's wakes the checks",
               error->message);
      return;
    }
  g_message ("Ladder: no PSI trigger (%s): memory is checked after a focus change or a new "
             "app, while there is pressure", error->message);
  self->refused = TRUE;
}

static void
arm_all (RcLadderWatch *self)
{
  self->armed_percent = rules_now (self)->memory_pressure_throttle;
  self->armed_on = ladder_on (self);
  for (guint i = 0; i < G_N_ELEMENTS (self->watched); i++)
    arm (self, self->watched[i]);
}

/* ---- events -------------------------------------------------------------- */

static void
focus_cb (RcApp   *app,
          gboolean focused,
          gpointer user_data)
{
  RcLadderWatch *self = user_data;

  /* the policy dropped the hold and thawed it already: the focus has it */
  if (focused && g_hash_table_remove (self->steps, app->unit))
    publish (self);
  if (self->refused)
    start_checks (self);
}

static void
app_added_cb (RcRegistry    *registry,
              RcApp         *app,
              RcLadderWatch *self)
{
  if (self->watched[0] != NULL && !rc_pressure_trigger_is_armed (self->watched[0]) &&
      !self->refused && ladder_on (self))
    arm (self, self->watched[0]);
  if (self->refused)
    start_checks (self);
}

static void
app_removed_cb (RcRegistry    *registry,
                RcApp         *app,
                RcLadderWatch *self)
{
  rc_holds_set (self->holds, app->unit, 0, NULL);
  if (g_hash_table_remove (self->steps, app->unit))
    publish (self);
}

/* The rules or the pause turned the ladder on or off, or moved its percent. */
static void
rules_changed_cb (RcRules       *rules,
                  RcLadderWatch *self)
{
  gboolean paused = rc_policy_is_paused (self->policy, NULL);

  if (!ladder_on (self))
    {
      stop_checks (self);
      /* a pause takes back what is in force, and records it itself */
      let_all_go (self, paused ? NULL : "the memory ladder was turned off");
    }
  if (rules_now (self)->memory_ladder != self->rules_on)
    {
      self->rules_on = rules_now (self)->memory_ladder;
      g_message ("Ladder: turned %s by the rules", self->rules_on ? "on" : "off");
    }
  if (ladder_on (self) != self->armed_on ||
      rules_now (self)->memory_pressure_throttle != self->armed_percent)
    arm_all (self);
}

static void
paused_changed_cb (RcPolicy      *policy,
                   RcLadderWatch *self)
{
  rules_changed_cb (self->rules, self);
}

static void
control_group_cb (GObject      *source,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  g_autoptr(RcLadderWatch) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autofree char *root = rc_systemd_get_control_group_finish (RC_SYSTEMD (source), result,
                                                               &error);
  g_autofree char *app_slice = NULL;

  if (root == NULL)
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        g_debug ("Ladder: no ControlGroup from systemd: %s", error->message);
      return;
    }
  for (guint i = 0; i < G_N_ELEMENTS (self->watched); i++)
    g_clear_pointer (&self->watched[i], rc_pressure_trigger_free);
  app_slice = g_strdup_printf ("%s/app.slice", g_str_equal (root, "/") ? "" : root);
  self->watched[0] = rc_pressure_trigger_new (app_slice, RC_PRESSURE_MEMORY, "Ladder", stall_cb,
                                              self);
  self->watched[1] = rc_pressure_trigger_new (root, RC_PRESSURE_MEMORY, "Ladder", stall_cb, self);
  arm_all (self);
}

static void
systemd_appeared_cb (RcSystemd     *systemd,
                     RcLadderWatch *self)
{
  rc_systemd_get_control_group_async (systemd, self->cancellable, control_group_cb,
                                      g_object_ref (self));
}

RcLadderWatch *
rc_ladder_watch_new (RcRegistry *registry,
                     RcSystemd  *systemd,
                     RcRules    *rules,
                     RcPolicy   *policy)
{
  RcLadderWatch *self = g_object_new (RC_TYPE_LADDER_WATCH, NULL);

  self->registry = g_object_ref (registry);
  self->systemd = g_object_ref (systemd);
  self->rules = g_object_ref (rules);
  self->policy = g_object_ref (policy);
  self->holds = rc_policy_get_ladder_holds (policy);
  self->armed_percent = rules_now (self)->memory_pressure_throttle;
  self->armed_on = ladder_on (self);
  self->rules_on = rules_now (self)->memory_ladder;
  rc_holds_set_focus_func (self->holds, focus_cb, self);
  g_signal_connect_object (registry, "app-added", G_CALLBACK (app_added_cb), self, 0);
  g_signal_connect_object (registry, "app-removed", G_CALLBACK (app_removed_cb), self, 0);
  g_signal_connect_object (rules, "changed", G_CALLBACK (rules_changed_cb), self, 0);
  g_signal_connect_object (policy, "paused-changed", G_CALLBACK (paused_changed_cb), self, 0);
  g_signal_connect_object (systemd, "appeared", G_CALLBACK (systemd_appeared_cb), self, 0);
  if (rc_systemd_is_present (systemd))
    systemd_appeared_cb (systemd, self);
  return self;
}

void
rc_ladder_watch_serve (RcLadderWatch         *self,
                       RcDBusResourceControl *object)
{
  g_set_object (&self->object, object);
  g_clear_pointer (&self->shown, g_free);
  g_clear_pointer (&self->shown_held, g_variant_unref);
  publish (self);
}

static void
rc_ladder_watch_dispose (GObject *object)
{
  RcLadderWatch *self = RC_LADDER_WATCH (object);

  g_cancellable_cancel (self->cancellable);
  stop_checks (self);
  if (self->holds != NULL)
    rc_holds_set_focus_func (self->holds, NULL, NULL);
  self->holds = NULL;
  for (guint i = 0; i < G_N_ELEMENTS (self->watched); i++)
    g_clear_pointer (&self->watched[i], rc_pressure_trigger_free);
  g_clear_object (&self->object);
  g_clear_object (&self->policy);
  g_clear_object (&self->registry);
  g_clear_object (&self->systemd);
  g_clear_object (&self->rules);
  G_OBJECT_CLASS (rc_ladder_watch_parent_class)->dispose (object);
}

static void
rc_ladder_watch_finalize (GObject *object)
{
  RcLadderWatch *self = RC_LADDER_WATCH (object);

  g_hash_table_unref (self->steps);
  g_clear_object (&self->cancellable);
  g_free (self->shown);
  g_clear_pointer (&self->shown_held, g_variant_unref);
  G_OBJECT_CLASS (rc_ladder_watch_parent_class)->finalize (object);
}

static void
rc_ladder_watch_class_init (RcLadderWatchClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = rc_ladder_watch_dispose;
  G_OBJECT_CLASS (klass)->finalize = rc_ladder_watch_finalize;
  /* an app's spell on the ladder reached a step ("throttled", "frozen"):
   * once a spell for each */
  signals[SIGNAL_STEPPED] = g_signal_new ("stepped", G_TYPE_FROM_CLASS (klass),
                                          G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                          G_TYPE_NONE, 2, G_TYPE_POINTER, G_TYPE_STRING);
}

static void
rc_ladder_watch_init (RcLadderWatch *self)
{
  self->steps = g_hash_table_new_full (g_str_hash, g_str_equal, NULL,
                                       (GDestroyNotify) step_free);
  self->cancellable = g_cancellable_new ();
}
