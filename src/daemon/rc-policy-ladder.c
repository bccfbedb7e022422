/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The policy's side of the memory ladder (rc-ladder-watch.c): its
 * MemoryHigh holds, applied in rc_policy_effective_limits, its freezes,
 * made through the policy's so that the focus, sound and a pause thaw
 * them, and what it may hold. */
#include "rc-policy-private.h"
#include "rc-action-log.h"

RcHolds *
rc_policy_get_ladder_holds (RcPolicy *self)
{
  return self->ladder;
}

/* app.slice or one below it (app-gnome.slice): not background.slice */
static gboolean
in_app_slice (const char *slice)
{
  return rc_app_is_controllable_slice (slice) && g_str_has_prefix (slice, "app") &&
         (g_str_equal (slice, "app.slice") || g_str_has_prefix (slice, "app-"));
}

static gboolean
api_memory_cap (Unit *unit)
{
  return rc_limits_has (unit_api (unit), RC_LIMIT_MEMORY_HIGH) ||
         rc_limits_has (unit_api (unit), RC_LIMIT_MEMORY_MAX);
}

gboolean
rc_policy_ladder_in_force (RcPolicy       *self,
                           Unit           *unit,
                           const RcLimits *wanted)
{
  guint64 held = rc_holds_get (self->ladder, unit->app->unit);

  return !self->paused && !unit->foreground && !api_memory_cap (unit) && held != 0 &&
         rc_limits_has (wanted, RC_LIMIT_MEMORY_HIGH) &&
         wanted->values[RC_LIMIT_MEMORY_HIGH] == held;
}

RcLadderMay
rc_policy_ladder_app (RcPolicy *self,
                      RcApp    *app,
                      gboolean  sync,
                      gboolean *out_frozen)
{
  Unit *unit = g_hash_table_lookup (self->units, app->unit);
  RcLadderMay may = 0;

  *out_frozen = unit != NULL && unit->app == app && unit->ladder_frozen;
  if (unit != NULL && sync)
    rc_policy_sync_unit (self, unit);
  if (unit == NULL || unit->app != app || self->paused || !in_app_slice (app->slice) ||
      unit->foreground || unit->audio)
    return 0;
  may = RC_LADDER_MAY_FREEZE;
  if (!api_memory_cap (unit))
    may |= RC_LADDER_MAY_THROTTLE;
  return may;
}

void
rc_policy_ladder_freeze (RcPolicy   *self,
                         RcApp      *app,
                         gboolean    frozen,
                         const char *reason)
{
  Unit *unit = g_hash_table_lookup (self->units, app->unit);

  if (unit == NULL || unit->app != app || unit->ladder_frozen == frozen)
    return;
  if (frozen)
    {
      g_clear_handle_id (&unit->freeze_id, g_source_remove);
      unit->ladder_frozen = TRUE;
    }
  rc_policy_freeze_as (self, unit, frozen, RC_ACTION_KIND_LADDER, reason);
}
