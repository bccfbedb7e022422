/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "rc-guard.h"
#include "rc-pressure.h"

RcGuardMove
rc_guard_judge (const RcGuardRules *rules,
                double              pressure,
                RcGuardCalm        *calm)
{
  if (pressure > rules->cpu_pressure_target)
    {
      /* the last step back was one too many: wait longer before the next */
      if (calm->gave_back)
        calm->needed = MIN (calm->needed * 2, RC_GUARD_CALM_CHECKS_MAX);
      calm->gave_back = FALSE;
      calm->checks = 0;
      return RC_GUARD_LOWER;
    }
  if (pressure * 2 >= rules->cpu_pressure_target)
    {
      calm->checks = 0;
      return RC_GUARD_STAY;
    }
  /* Given back one step per calm spell, not per check; a step back the
   * pressure took (the last move was one too) halves the next wait. */
  if (++calm->checks < calm->needed)
    return RC_GUARD_STAY;
  if (calm->gave_back)
    calm->needed = MAX (RC_GUARD_CALM_CHECKS, calm->needed / 2);
  calm->checks = 0;
  calm->gave_back = TRUE;
  return RC_GUARD_GIVE_BACK;
}

static gboolean
may_change (const RcGuardApp *app,
            gint64            now_usec)
{
  return app->changed_usec == 0 || now_usec - app->changed_usec >= RC_GUARD_SPACING_USEC;
}

static int
by_usage_desc (gconstpointer a,
               gconstpointer b)
{
  const RcGuardApp *x = *(const RcGuardApp * const *) a;
  const RcGuardApp *y = *(const RcGuardApp * const *) b;

  return x->usage_usec < y->usage_usec ? 1 : x->usage_usec > y->usage_usec ? -1 : 0;
}

static guint
plan_lower (const RcGuardRules *rules,
            RcGuardApp         *apps,
            guint               n_apps,
            gint64              interval_usec,
            gint64              now_usec)
{
  g_autoptr(GPtrArray) busy = g_ptr_array_new ();
  guint64 busy_usec = interval_usec > 0 ? (guint64) interval_usec * RC_GUARD_BUSY_PERMILLE / 1000 : 0;
  guint changed = 0;

  for (guint i = 0; i < n_apps; i++)
    if (apps[i].eligible && apps[i].usage_usec >= busy_usec && apps[i].usage_usec > 0)
      g_ptr_array_add (busy, &apps[i]);
  g_ptr_array_sort (busy, by_usage_desc);
  for (guint i = 0; i < busy->len && changed < RC_GUARD_STEPS_PER_CHECK; i++)
    {
      RcGuardApp *app = g_ptr_array_index (busy, i);
      const RcGuardApp *busiest = g_ptr_array_index (busy, 0);
      guint64 now = app->held != 0 ? app->held : app->weight != 0 ? app->weight : RC_WEIGHT_DEFAULT;

      if (app->usage_usec * 4 < busiest->usage_usec)
        break;
      if (!may_change (app, now_usec) || now <= rules->cpu_weight_floor)
        continue;
      if (app->held == 0)
        app->held_from = now;
      app->next = MAX (rules->cpu_weight_floor, now / 2);
      changed++;
    }
  return changed;
}

guint
rc_guard_plan (const RcGuardRules *rules,
               RcGuardMove         move,
               RcGuardApp         *apps,
               guint               n_apps,
               gint64              interval_usec,
               gint64              now_usec)
{
  RcGuardApp *back = NULL;
  guint changed = 0;

  for (guint i = 0; i < n_apps; i++)
    {
      RcGuardApp *app = &apps[i];

      app->next = app->held;
      if (app->held == 0)
        continue;
      /* Focus, sound, an API value or the rules turning the guard off
       * take over at once: the guard's weight is no longer in force. */
      if (!app->eligible || !rules->enabled)
        app->next = 0;
      else if (move == RC_GUARD_GIVE_BACK && may_change (app, now_usec) &&
               (back == NULL || app->usage_usec < back->usage_usec))
        back = app;
      if (app->next != app->held)
        changed++;
    }
  /* One app a calm spell, the least hungry first: giving every app its
   * step back at once brings the pressure back at once. */
  if (back != NULL)
    {
      back->next = back->held * 2 >= back->held_from ? 0 : back->held * 2;
      changed++;
    }
  if (move == RC_GUARD_LOWER && rules->enabled)
    changed += plan_lower (rules, apps, n_apps, interval_usec, now_usec);
  return changed;
}

char *
rc_guard_trigger_text (guint target)
{
  return rc_pressure_trigger_text (target, RC_GUARD_WINDOW_USEC);
}

/* ---- the holds ------------------------------------------------------------ */

void
rc_guard_apply_hold (RcHolds        *holds,
                     const char     *unit,
                     gboolean        focused,
                     const RcLimits *api,
                     RcLimits       *limits)
{
  guint64 weight = rc_holds_get (holds, unit);
  guint64 base;

  if (weight == 0 || focused || rc_limits_has (api, RC_LIMIT_CPU_WEIGHT))
    return;
  base = rc_limits_has (limits, RC_LIMIT_CPU_WEIGHT) ? limits->values[RC_LIMIT_CPU_WEIGHT] :
         RC_WEIGHT_DEFAULT;
  rc_limits_set (limits, RC_LIMIT_CPU_WEIGHT, MIN (base, weight));
}
