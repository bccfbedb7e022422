/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "rc-ladder.h"
#include "rc-pressure.h"

const char *
rc_ladder_level_name (RcLadderLevel level)
{
  static const char * const names[] = {
    [RC_LADDER_NORMAL] = "normal",
    [RC_LADDER_THROTTLING] = "throttling",
    [RC_LADDER_FREEZING] = "freezing",
    [RC_LADDER_CRITICAL] = "critical",
  };

  return level < G_N_ELEMENTS (names) ? names[level] : "normal";
}

RcLadderMove
rc_ladder_judge (const RcGuardRules *rules,
                 double              pressure,
                 RcLadderCalm       *calm)
{
  if (pressure > rules->memory_pressure_freeze)
    {
      calm->checks = 0;
      return RC_LADDER_FREEZE;
    }
  if (pressure > rules->memory_pressure_throttle)
    {
      calm->checks = 0;
      return RC_LADDER_THROTTLE;
    }
  if (pressure * 2 >= rules->memory_pressure_throttle)
    {
      calm->checks = 0;
      return RC_LADDER_STAY;
    }
  if (++calm->checks < RC_LADDER_CALM_CHECKS)
    return RC_LADDER_STAY;
  calm->checks = 0;
  return RC_LADDER_GIVE_BACK;
}

/* The MemoryHigh a throttle step gives @app, 0: none (it is at its floor,
 * or its use is under it already). */
static guint64
throttle_target (const RcLadderApp *app)
{
  guint64 floor = app->held != 0 ? app->floor :
                  MAX (MAX ((guint64) RC_LADDER_FLOOR_MIN, app->current / 2), app->protected_bytes);
  guint64 from = app->held != 0 ? MIN (app->held, app->current) : app->current;
  guint64 target = MAX (floor, from - from / 4);

  if (target >= app->current || (app->held != 0 && target >= app->held))
    return 0;
  return target;
}

static int
by_current_desc (gconstpointer a,
                 gconstpointer b)
{
  const RcLadderApp *x = *(const RcLadderApp * const *) a;
  const RcLadderApp *y = *(const RcLadderApp * const *) b;

  return x->current < y->current ? 1 : x->current > y->current ? -1 : 0;
}

/* Returns how many apps get a (lower) MemoryHigh. */
static guint
plan_throttle (RcLadderApp *apps,
               guint        n_apps,
               guint64     *serial)
{
  g_autoptr(GPtrArray) candidates = g_ptr_array_new ();

  for (guint i = 0; i < n_apps; i++)
    if (apps[i].may_throttle && !apps[i].next_frozen && !apps[i].frozen_else &&
        throttle_target (&apps[i]) != 0)
      g_ptr_array_add (candidates, &apps[i]);
  g_ptr_array_sort (candidates, by_current_desc);
  for (guint i = 0; i < candidates->len && i < RC_LADDER_THROTTLE_PER_CHECK; i++)
    {
      RcLadderApp *app = g_ptr_array_index (candidates, i);
      guint64 target = throttle_target (app);

      if (app->held == 0)
        {
          app->floor = MAX (MAX ((guint64) RC_LADDER_FLOOR_MIN, app->current / 2),
                            app->protected_bytes);
          app->held_from = app->current;
        }
      app->next_held = target;
      app->order = ++*serial;
    }
  return MIN (candidates->len, RC_LADDER_THROTTLE_PER_CHECK);
}

static gboolean
any_step_in_force (const RcLadderApp *apps,
                   guint              n_apps)
{
  for (guint i = 0; i < n_apps; i++)
    if (apps[i].held != 0 || apps[i].frozen)
      return TRUE;
  return FALSE;
}

/* Freezes the biggest app that may be frozen; FALSE: there is none. */
static gboolean
plan_freeze (RcLadderApp *apps,
             guint        n_apps,
             guint64     *serial)
{
  RcLadderApp *biggest = NULL;

  for (guint i = 0; i < n_apps; i++)
    {
      RcLadderApp *app = &apps[i];

      /* an app whose use is unknown frees nothing known */
      if (app->may_freeze && !app->next_frozen && !app->frozen_else && app->current > 0 &&
          (biggest == NULL || app->current > biggest->current))
        biggest = app;
    }
  if (biggest == NULL)
    return FALSE;
  biggest->next_frozen = TRUE;
  biggest->order = ++*serial;
  return TRUE;
}

/* One step back, the ladder's last step first: a thaw before any
 * MemoryHigh is raised. */
static void
plan_give_back (RcLadderApp *apps,
                guint        n_apps)
{
  RcLadderApp *frozen = NULL, *held = NULL;

  for (guint i = 0; i < n_apps; i++)
    {
      RcLadderApp *app = &apps[i];

      if (app->next_frozen && (frozen == NULL || app->order > frozen->order))
        frozen = app;
      if (app->next_held != 0 && (held == NULL || app->order > held->order))
        held = app;
    }
  if (frozen != NULL)
    frozen->next_frozen = FALSE;
  else if (held != NULL)
    {
      guint64 raised = held->held + held->held / 2;

      held->next_held = raised >= held->held_from ? 0 : raised;
    }
}

RcLadderLevel
rc_ladder_plan (const RcGuardRules *rules,
                RcLadderMove        move,
                RcLadderApp        *apps,
                guint               n_apps,
                guint64            *serial,
                guint              *out_changed)
{
  RcLadderLevel level = RC_LADDER_NORMAL;
  guint changed = 0;

  for (guint i = 0; i < n_apps; i++)
    {
      RcLadderApp *app = &apps[i];

      /* Focus, sound, an API value or the rules turning the ladder off
       * take over at once. */
      app->next_held = rules->memory_ladder && app->may_throttle ? app->held : 0;
      app->next_frozen = rules->memory_ladder && app->may_freeze && app->frozen;
    }
  if (rules->memory_ladder)
    switch (move)
      {
      case RC_LADDER_FREEZE:
        /* a ladder, even when the pressure leaps: nothing is frozen before
         * the biggest apps were slowed down a check */
        if (!any_step_in_force (apps, n_apps) && plan_throttle (apps, n_apps, serial) > 0)
          {
            level = RC_LADDER_THROTTLING;
            break;
          }
        level = plan_freeze (apps, n_apps, serial) ? RC_LADDER_FREEZING : RC_LADDER_CRITICAL;
        plan_throttle (apps, n_apps, serial);
        break;
      case RC_LADDER_THROTTLE:
        level = RC_LADDER_THROTTLING;
        plan_throttle (apps, n_apps, serial);
        break;
      case RC_LADDER_GIVE_BACK:
        plan_give_back (apps, n_apps);
        break;
      case RC_LADDER_STAY:
      default:
        break;
      }
  for (guint i = 0; i < n_apps; i++)
    if (apps[i].next_held != apps[i].held || apps[i].next_frozen != apps[i].frozen)
      changed++;
  *out_changed = changed;
  return level;
}

char *
rc_ladder_trigger_text (guint percent)
{
  return rc_pressure_trigger_text (percent, RC_LADDER_WINDOW_USEC);
}

/* ---- the holds ------------------------------------------------------------ */

gboolean
rc_ladder_apply_hold (RcHolds        *holds,
                      const char     *unit,
                      gboolean        focused,
                      const RcLimits *api,
                      RcLimits       *limits)
{
  guint64 bytes = rc_holds_get (holds, unit);
  guint64 base;

  if (bytes == 0 || focused || rc_limits_has (api, RC_LIMIT_MEMORY_HIGH) ||
      rc_limits_has (api, RC_LIMIT_MEMORY_MAX))
    return FALSE;
  base = rc_limits_has (limits, RC_LIMIT_MEMORY_HIGH) ? limits->values[RC_LIMIT_MEMORY_HIGH] :
         G_MAXUINT64;
  if (base <= bytes)
    return FALSE;
  rc_limits_set (limits, RC_LIMIT_MEMORY_HIGH, bytes);
  return TRUE;
}
