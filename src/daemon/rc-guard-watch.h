/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <gio/gio.h>

#include "rc-generated.h"
#include "rc-ladder-watch.h"
#include "rc-policy.h"
#include "rc-registry.h"
#include "rc-rules.h"
#include "rc-systemd.h"

G_BEGIN_DECLS

/* The responsiveness guard at work (its decisions are rc-guard.c's). A PSI
 * trigger on the cpu.pressure of each focused instance's cgroup and of
 * session.slice's (stalled for the target's share of a 2 s window) wakes it
 * when that pressure passes the [Guard] target; it then checks every
 * RC_GUARD_CHECK_MSEC for as long as the pressure stays over the target or
 * it holds an app back: the "some" total's growth since the last check is
 * the pressure, the busiest other apps (cpu.stat usage over the interval)
 * are lowered through the policy, and given back when it stays low. Where
 * the kernel takes no trigger (PSI off, a kernel that refuses the user's
 * triggers, a test's fake tree), a focus change starts the checks, which go
 * on while the focused app is busy, is short of CPU or something is held.
 * Nothing runs at rest. It keeps the GuardHeld property. Its memory half,
 * the ladder (rc-ladder-watch.h), comes and goes with it. */
#define RC_TYPE_GUARD_WATCH (rc_guard_watch_get_type ())
G_DECLARE_FINAL_TYPE (RcGuardWatch, rc_guard_watch, RC, GUARD_WATCH, GObject);

RcGuardWatch *rc_guard_watch_new (RcRegistry *registry,
                                  RcSystemd  *systemd,
                                  RcRules    *rules,
                                  RcPolicy   *policy);
/* a(ssu): unit, AppID and the CPUWeight the guard holds it at. */
GVariant     *rc_guard_watch_get_held (RcGuardWatch *self);
/* Keeps @object's GuardHeld property current, and the ladder's. */
void          rc_guard_watch_serve (RcGuardWatch          *self,
                                    RcDBusResourceControl *object);
RcLadderWatch *rc_guard_watch_get_ladder (RcGuardWatch *self);

G_END_DECLS
