/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The policy's side of the responsiveness guard (rc-guard-watch.c): its
 * holds, applied in rc_policy_effective_limits, and what it may hold. */
#include "rc-policy-private.h"

RcHolds *
rc_policy_get_guard_holds (RcPolicy *self)
{
  return self->guard;
}

gboolean
rc_policy_guard_app (RcPolicy *self,
                     RcApp    *app,
                     gboolean  sync)
{
  Unit *unit = g_hash_table_lookup (self->units, app->unit);

  if (unit != NULL && sync)
    rc_policy_sync_unit (self, unit);
  /* paused: nothing automatic is in force, the guard's holds neither */
  return unit != NULL && unit->app == app && !self->paused &&
         rc_app_is_controllable_slice (unit->app->slice) && !unit->foreground && !unit->audio &&
         !rc_limits_has (unit_api (unit), RC_LIMIT_CPU_WEIGHT);
}
