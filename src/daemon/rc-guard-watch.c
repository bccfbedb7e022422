/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "rc-guard-watch.h"
#include "rc-cgroup.h"
#include "rc-guard.h"
#include "rc-pressure-trigger.h"

#include <stdlib.h>

/* A usage reading older than this is no base for a step: it would blame
 * an app for what it did long ago. */
#define USAGE_FRESH_USEC (5 * G_USEC_PER_SEC)
/* Focused instances watched at most (one trigger fd each). */
#define FOCUSED_MAX 8

/* A cgroup whose CPU pressure counts: a focused instance's, or
 * session.slice's. */
typedef struct {
  RcPressureTrigger *trigger;
  RcApp             *app;     /* the focused instance; NULL for session.slice */
} Watched;

/* One app's CPU use at a reading. A reading is one array sorted by the
 * app's address: 16 bytes an app, only while checking. */
typedef struct {
  RcApp  *app;
  guint64 usage_usec;
} Usage;

/* An app the guard holds back. */
typedef struct {
  RcApp  *app;
  guint64 held;
  guint64 held_from;
  gint64  changed_usec;
} Step;

struct _RcGuardWatch {
  GObject                parent_instance;
  RcRegistry            *registry;
  RcSystemd             *systemd;
  RcRules               *rules;
  RcPolicy              *policy;
  RcHolds               *holds;
  RcLadderWatch         *ladder;
  RcDBusResourceControl *object;
  GHashTable            *watched;       /* control group (the trigger's) -> Watched */
  char                  *session_cgroup;
  GHashTable            *steps;         /* unit -> Step */
  GArray                *usage;         /* Usage, the last reading, only while checking */
  gint64                 usage_usec;    /* when @usage was read; 0: not */
  gint64                 looked_usec;   /* when the totals were read */
  guint                  check_id;
  RcGuardCalm            calm;
  guint                  armed_target;  /* the target the triggers were made for */
  gboolean               armed_enabled; /* and whether the guard was on */
  gboolean               refused;       /* the kernel takes no trigger: focus starts checks */
  GCancellable          *cancellable;
};

G_DEFINE_TYPE (RcGuardWatch, rc_guard_watch, G_TYPE_OBJECT);

static const RcGuardRules *
rules_now (RcGuardWatch *self)
{
  return rc_rules_get_guard (self->rules);
}

/* The rules have it on, and the automation is not paused. */
static gboolean
guard_on (RcGuardWatch *self)
{
  return rules_now (self)->enabled && !rc_policy_is_paused (self->policy, NULL);
}

static void
watched_free (Watched *watched)
{
  rc_pressure_trigger_free (watched->trigger);
  if (watched->app != NULL)
    rc_app_unref (watched->app);
  g_free (watched);
}

static void
step_free (Step *step)
{
  rc_app_unref (step->app);
  g_free (step);
}

static int
usage_compare (gconstpointer a,
               gconstpointer b)
{
  guintptr x = (guintptr) ((const Usage *) a)->app, y = (guintptr) ((const Usage *) b)->app;

  return x < y ? -1 : x > y ? 1 : 0;
}

static void
usage_free (GArray *usage)
{
  for (guint i = 0; i < usage->len; i++)
    rc_app_unref (g_array_index (usage, Usage, i).app);
  g_array_free (usage, TRUE);
}

/* @app's use in @usage (NULL: none). */
static const Usage *
usage_lookup (GArray *usage,
              RcApp  *app)
{
  Usage key = { .app = app };

  if (usage == NULL || usage->len == 0)
    return NULL;
  return bsearch (&key, usage->data, usage->len, sizeof (Usage), usage_compare);
}

/* ---- GuardHeld ----------------------------------------------------------- */

GVariant *
rc_guard_watch_get_held (RcGuardWatch *self)
{
  g_auto(GVariantBuilder) builder = G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE ("a(ssu)"));
  GHashTableIter iter;
  Step *step;

  g_hash_table_iter_init (&iter, self->steps);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &step))
    g_variant_builder_add (&builder, "(ssu)", step->app->unit, step->app->app_id,
                           (guint32) step->held);
  return g_variant_builder_end (&builder);
}

static void
publish (RcGuardWatch *self)
{
  if (self->object != NULL)
    rc_dbus_resource_control_set_guard_held (self->object, rc_guard_watch_get_held (self));
}

/* Holds @app at @weight (0: lets go), recorded with @reason (NULL: the
 * change, if any, is not the guard's), and has the policy apply it. */
static void
set_hold (RcGuardWatch *self,
          RcApp        *app,
          guint64       weight,
          guint64       held_from,
          gint64        now_usec,
          const char   *reason)
{
  Step *step = g_hash_table_lookup (self->steps, app->unit);

  g_debug ("Guard: %s %" G_GUINT64_FORMAT " -> %" G_GUINT64_FORMAT " (%s)", app->unit,
           step != NULL ? step->held : 0, weight, reason != NULL ? reason : "let go");
  if (weight == 0)
    g_hash_table_remove (self->steps, app->unit);
  else
    {
      if (step == NULL)
        {
          step = g_new0 (Step, 1);
          step->app = rc_app_ref (app);
          g_hash_table_insert (self->steps, app->unit, step);
        }
      step->held = weight;
      step->held_from = held_from;
      step->changed_usec = now_usec;
    }
  rc_holds_set (self->holds, app->unit, weight, reason);
  rc_policy_guard_app (self->policy, app, TRUE);
}

static void
let_all_go (RcGuardWatch *self,
            const char   *reason)
{
  g_autoptr(GPtrArray) apps = g_ptr_array_new_with_free_func ((GDestroyNotify) rc_app_unref);
  GHashTableIter iter;
  Step *step;

  g_hash_table_iter_init (&iter, self->steps);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &step))
    g_ptr_array_add (apps, rc_app_ref (step->app));
  for (guint i = 0; i < apps->len; i++)
    set_hold (self, g_ptr_array_index (apps, i), 0, 0, 0, reason);
  if (apps->len > 0)
    publish (self);
}

/* ---- checks -------------------------------------------------------------- */

static void
read_usage (RcGuardWatch *self,
            gint64        now_usec)
{
  g_autoptr(GPtrArray) apps = rc_registry_get_apps (self->registry);

  g_clear_pointer (&self->usage, usage_free);
  self->usage = g_array_sized_new (FALSE, FALSE, sizeof (Usage), apps->len);
  for (guint i = 0; i < apps->len; i++)
    {
      Usage entry = { .app = g_ptr_array_index (apps, i) };

      if (rc_app_is_controllable_slice (entry.app->slice) &&
          rc_app_read_cpu_usage (entry.app, &entry.usage_usec))
        {
          rc_app_ref (entry.app);
          g_array_append_val (self->usage, entry);
        }
    }
  g_array_sort (self->usage, usage_compare);
  self->usage_usec = now_usec;
}

/* The highest pressure of the watched cgroups since the last look, and
 * whose it is. */
static double
read_pressure (RcGuardWatch *self,
               gint64        now_usec,
               const char  **out_whose)
{
  GHashTableIter iter;
  Watched *watched;
  double highest = 0;

  *out_whose = "the focused app";
  g_hash_table_iter_init (&iter, self->watched);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &watched))
    {
      double pressure = rc_pressure_trigger_look (watched->trigger, now_usec - self->looked_usec,
                                                  NULL);

      if (pressure > highest)
        {
          highest = pressure;
          *out_whose = watched->app != NULL ? "the focused app" : "session.slice";
        }
    }
  self->looked_usec = now_usec;
  return highest;
}

/* Whether a focused instance used a busy app's share of a CPU since the
 * last look (the checks without a trigger go on while it does). */
static gboolean
focused_busy (RcGuardWatch *self,
              GArray       *before,
              gint64        interval_usec)
{
  GHashTableIter iter;
  Watched *watched;

  g_hash_table_iter_init (&iter, self->watched);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &watched))
    {
      const Usage *was = watched->app != NULL ? usage_lookup (before, watched->app) : NULL;
      const char *control_group = rc_pressure_trigger_get_control_group (watched->trigger);
      guint64 now;

      if (was != NULL && rc_cgroup_read_cpu_usage_usec (NULL, control_group, &now) &&
          now >= was->usage_usec &&
          (now - was->usage_usec) * 1000 >= (guint64) interval_usec * RC_GUARD_BUSY_PERMILLE)
        return TRUE;
    }
  return FALSE;
}

static void
fill_app (RcGuardWatch *self,
          RcGuardApp   *entry,
          RcApp        *app,
          guint64       usage_usec,
          guint64       busy_usec)
{
  Step *step = g_hash_table_lookup (self->steps, app->unit);

  entry->key = app;
  entry->usage_usec = usage_usec;
  entry->eligible = rc_policy_guard_app (self->policy, app, FALSE);
  entry->held = step != NULL ? step->held : 0;
  entry->held_from = step != NULL ? step->held_from : 0;
  entry->changed_usec = step != NULL ? step->changed_usec : 0;
  /* the weight is read only for an app that may be lowered */
  if (step == NULL && entry->eligible && usage_usec >= busy_usec &&
      !rc_cgroup_read_u64 (app->control_group, "cpu.weight", &entry->weight))
    entry->weight = 0;
}

/* Every held app, and with @before (the last reading but one) every app
 * whose use since then is known, as the planner takes them. */
static GArray *
gather (RcGuardWatch *self,
        GArray       *before,
        gint64        interval_usec)
{
  GArray *apps = g_array_new (FALSE, TRUE, sizeof (RcGuardApp));
  guint64 busy_usec = (guint64) MAX (interval_usec, 0) * RC_GUARD_BUSY_PERMILLE / 1000;
  GHashTableIter iter;
  Step *step;

  g_hash_table_iter_init (&iter, self->steps);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &step))
    {
      RcGuardApp entry = { 0, };

      if (usage_lookup (before, step->app) != NULL)
        continue;
      fill_app (self, &entry, step->app, 0, busy_usec);
      g_array_append_val (apps, entry);
    }
  for (guint i = 0; before != NULL && i < before->len; i++)
    {
      const Usage *was = &g_array_index (before, Usage, i);
      const Usage *now = usage_lookup (self->usage, was->app);
      RcGuardApp entry = { 0, };

      /* gone meanwhile (its removal let go of any hold) */
      if (now == NULL || rc_registry_lookup_unit (self->registry, was->app->unit) != was->app)
        continue;
      fill_app (self, &entry, was->app,
                now->usage_usec >= was->usage_usec ? now->usage_usec - was->usage_usec : 0,
                busy_usec);
      g_array_append_val (apps, entry);
    }
  return apps;
}

static void stop_checks (RcGuardWatch *self);

static gboolean
check_cb (gpointer user_data)
{
  RcGuardWatch *self = user_data;
  const RcGuardRules *rules = rules_now (self);
  gint64 now_usec = g_get_monotonic_time ();
  gint64 interval_usec = now_usec - self->usage_usec;
  GArray *before = NULL;
  g_autoptr(GArray) apps = NULL;
  g_autofree char *lower_reason = NULL;
  g_autofree char *back_reason = NULL;
  const char *whose;
  double pressure = read_pressure (self, now_usec, &whose);
  RcGuardMove move = rc_guard_judge (rules, pressure, &self->calm);
  gboolean busy = FALSE;

  /* The apps' use is read for a step down, and to see whether a focused
   * app without a trigger is busy. */
  if (move == RC_GUARD_LOWER || self->refused)
    {
      if (self->usage_usec != 0 && interval_usec <= USAGE_FRESH_USEC)
        before = g_steal_pointer (&self->usage);
      if (self->refused)
        busy = focused_busy (self, before, interval_usec);
      read_usage (self, now_usec);
    }
  apps = gather (self, move == RC_GUARD_LOWER ? before : NULL, interval_usec);
  g_debug ("Guard: CPU pressure of %s %.1f %%, %s, %u apps", whose, pressure,
           move == RC_GUARD_LOWER ? "lower" : move == RC_GUARD_GIVE_BACK ? "give back" : "stay",
           apps->len);
  if (rc_guard_plan (rules, move, (RcGuardApp *) apps->data, apps->len, interval_usec,
                     now_usec) > 0)
    {
      lower_reason = g_strdup_printf ("CPU pressure of %s %.0f %% over %u %%", whose, pressure,
                                      rules->cpu_pressure_target);
      back_reason = g_strdup_printf ("CPU pressure %.0f %% under %u %% for %u s", pressure,
                                     rules->cpu_pressure_target / 2,
                                     self->calm.needed * RC_GUARD_CHECK_MSEC / 1000);
      for (guint i = 0; i < apps->len; i++)
        {
          RcGuardApp *entry = &g_array_index (apps, RcGuardApp, i);
          /* let go for the focus, sound or an API value: theirs, not ours */
          const char *reason = entry->next == 0 ? (entry->eligible ? back_reason : NULL) :
                               entry->held == 0 || entry->next < entry->held ? lower_reason :
                               back_reason;

          if (entry->next != entry->held)
            set_hold (self, (RcApp *) entry->key, entry->next, entry->held_from, now_usec, reason);
        }
      publish (self);
    }
  g_clear_pointer (&before, usage_free);
  if (g_hash_table_size (self->steps) > 0 || pressure > rules->cpu_pressure_target ||
      (self->refused && (busy || pressure * 2 >= rules->cpu_pressure_target)))
    return G_SOURCE_CONTINUE;
  g_debug ("Guard: calm, nothing held: no more checks");
  self->check_id = 0;
  stop_checks (self);
  return G_SOURCE_REMOVE;
}

static void
stop_checks (RcGuardWatch *self)
{
  g_clear_handle_id (&self->check_id, g_source_remove);
  g_clear_pointer (&self->usage, usage_free);
  self->usage_usec = 0;
  self->calm = RC_GUARD_CALM_INIT;
}

/* Takes the readings the first check compares with, and starts checking. */
static void
start_checks (RcGuardWatch *self)
{
  GHashTableIter iter;
  Watched *watched;
  gint64 now_usec = g_get_monotonic_time ();

  if (self->check_id != 0 || !guard_on (self))
    return;
  g_hash_table_iter_init (&iter, self->watched);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &watched))
    rc_pressure_trigger_look (watched->trigger, 0, NULL);
  self->looked_usec = now_usec;
  read_usage (self, now_usec);
  self->calm = RC_GUARD_CALM_INIT;
  self->check_id = g_timeout_add (RC_GUARD_CHECK_MSEC, check_cb, self);
}

/* ---- triggers ------------------------------------------------------------ */

static void
stall_cb (gpointer user_data)
{
  start_checks (user_data);
}

static void
arm (RcGuardWatch *self,
     Watched      *watched)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *trigger = rc_guard_trigger_text (rules_now (self)->cpu_pressure_target);

  rc_pressure_trigger_disarm (watched->trigger);
  if (self->refused || !guard_on (self) ||
      rc_pressure_trigger_arm (watched->trigger, trigger, &error))
    return;
  /* A cgroup that went away is no sign the kernel refuses. */
  if (watched->app != NULL && g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND))
    return;
  g_message ("Guard: no PSI trigger (%s): the focused app is checked while it is busy",
             error->message);
  self->refused = TRUE;
}

static void
watch_cgroup (RcGuardWatch *self,
              const char   *control_group,
              RcApp        *app)
{
  Watched *watched;

  if (control_group == NULL || *control_group == '\0' ||
      g_hash_table_contains (self->watched, control_group))
    return;
  watched = g_new0 (Watched, 1);
  watched->trigger = rc_pressure_trigger_new (control_group, RC_PRESSURE_CPU, "Guard", stall_cb,
                                              self);
  watched->app = app != NULL ? rc_app_ref (app) : NULL;
  /* keyed by the trigger's copy of the name, which lives as long as it */
  g_hash_table_insert (self->watched,
                       (char *) rc_pressure_trigger_get_control_group (watched->trigger),
                       watched);
  arm (self, watched);
}

static void
arm_all (RcGuardWatch *self)
{
  GHashTableIter iter;
  Watched *watched;

  self->armed_target = rules_now (self)->cpu_pressure_target;
  self->armed_enabled = guard_on (self);
  g_hash_table_iter_init (&iter, self->watched);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &watched))
    arm (self, watched);
}

static void
focus_cb (RcApp   *app,
          gboolean focused,
          gpointer user_data)
{
  RcGuardWatch *self = user_data;

  if (!focused)
    {
      if (app->control_group != NULL)
        g_hash_table_remove (self->watched, app->control_group);
      return;
    }
  /* the policy dropped its hold already: the focus has it */
  if (g_hash_table_remove (self->steps, app->unit))
    publish (self);
  if (g_hash_table_size (self->watched) < FOCUSED_MAX + 1)
    watch_cgroup (self, app->control_group, app);
  if (self->refused)
    start_checks (self);
}

/* ---- events -------------------------------------------------------------- */

static void
app_removed_cb (RcRegistry   *registry,
                RcApp        *app,
                RcGuardWatch *self)
{
  rc_holds_set (self->holds, app->unit, 0, NULL);
  if (g_hash_table_remove (self->steps, app->unit))
    publish (self);
}

/* The rules or the pause turned the guard on or off, or moved its target. */
static void
rules_changed_cb (RcRules      *rules,
                  RcGuardWatch *self)
{
  gboolean paused = rc_policy_is_paused (self->policy, NULL);

  if (!guard_on (self))
    {
      stop_checks (self);
      /* a pause takes back what is in force, and records it itself */
      let_all_go (self, paused ? NULL : "the guard was turned off");
    }
  if (guard_on (self) != self->armed_enabled ||
      rules_now (self)->cpu_pressure_target != self->armed_target)
    arm_all (self);
}

static void
paused_changed_cb (RcPolicy     *policy,
                   RcGuardWatch *self)
{
  rules_changed_cb (self->rules, self);
}

static void
control_group_cb (GObject      *source,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  g_autoptr(RcGuardWatch) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autofree char *root = rc_systemd_get_control_group_finish (RC_SYSTEMD (source), result,
                                                               &error);

  if (root == NULL)
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        g_debug ("Guard: no ControlGroup from systemd: %s", error->message);
      return;
    }
  if (self->session_cgroup != NULL)
    g_hash_table_remove (self->watched, self->session_cgroup);
  g_free (self->session_cgroup);
  self->session_cgroup = g_strdup_printf ("%s/session.slice", g_str_equal (root, "/") ? "" : root);
  watch_cgroup (self, self->session_cgroup, NULL);
}

static void
systemd_appeared_cb (RcSystemd    *systemd,
                     RcGuardWatch *self)
{
  rc_systemd_get_control_group_async (systemd, self->cancellable, control_group_cb,
                                      g_object_ref (self));
}

RcGuardWatch *
rc_guard_watch_new (RcRegistry *registry,
                    RcSystemd  *systemd,
                    RcRules    *rules,
                    RcPolicy   *policy)
{
  RcGuardWatch *self = g_object_new (RC_TYPE_GUARD_WATCH, NULL);

  self->registry = g_object_ref (registry);
  self->systemd = g_object_ref (systemd);
  self->rules = g_object_ref (rules);
  self->policy = g_object_ref (policy);
  self->holds = rc_policy_get_guard_holds (policy);
  self->ladder = rc_ladder_watch_new (registry, systemd, rules, policy);
  self->armed_target = rules_now (self)->cpu_pressure_target;
  self->armed_enabled = guard_on (self);
  rc_holds_set_focus_func (self->holds, focus_cb, self);
  g_signal_connect_object (registry, "app-removed", G_CALLBACK (app_removed_cb), self, 0);
  g_signal_connect_object (rules, "changed", G_CALLBACK (rules_changed_cb), self, 0);
  g_signal_connect_object (policy, "paused-changed", G_CALLBACK (paused_changed_cb), self, 0);
  g_signal_connect_object (systemd, "appeared", G_CALLBACK (systemd_appeared_cb), self, 0);
  if (rc_systemd_is_present (systemd))
    systemd_appeared_cb (systemd, self);
  return self;
}

void
rc_guard_watch_serve (RcGuardWatch          *self,
                      RcDBusResourceControl *object)
{
  g_set_object (&self->object, object);
  publish (self);
  rc_ladder_watch_serve (self->ladder, object);
}

RcLadderWatch *
rc_guard_watch_get_ladder (RcGuardWatch *self)
{
  return self->ladder;
}

static void
rc_guard_watch_dispose (GObject *object)
{
  RcGuardWatch *self = RC_GUARD_WATCH (object);

  g_cancellable_cancel (self->cancellable);
  stop_checks (self);
  if (self->holds != NULL)
    rc_holds_set_focus_func (self->holds, NULL, NULL);
  self->holds = NULL;
  g_hash_table_remove_all (self->watched);
  if (self->ladder != NULL)
    g_object_run_dispose (G_OBJECT (self->ladder));
  g_clear_object (&self->ladder);
  g_clear_object (&self->object);
  g_clear_object (&self->policy);
  g_clear_object (&self->registry);
  g_clear_object (&self->systemd);
  g_clear_object (&self->rules);
  G_OBJECT_CLASS (rc_guard_watch_parent_class)->dispose (object);
}

static void
rc_guard_watch_finalize (GObject *object)
{
  RcGuardWatch *self = RC_GUARD_WATCH (object);

  g_hash_table_unref (self->watched);
  g_hash_table_unref (self->steps);
  g_clear_object (&self->cancellable);
  g_free (self->session_cgroup);
  G_OBJECT_CLASS (rc_guard_watch_parent_class)->finalize (object);
}

static void
rc_guard_watch_class_init (RcGuardWatchClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = rc_guard_watch_dispose;
  G_OBJECT_CLASS (klass)->finalize = rc_guard_watch_finalize;
}

static void
rc_guard_watch_init (RcGuardWatch *self)
{
  self->watched = g_hash_table_new_full (g_str_hash, g_str_equal, NULL,
                                         (GDestroyNotify) watched_free);
  self->steps = g_hash_table_new_full (g_str_hash, g_str_equal, NULL,
                                       (GDestroyNotify) step_free);
  self->cancellable = g_cancellable_new ();
  self->calm = RC_GUARD_CALM_INIT;
}
