/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <gio/gio.h>

#include "rc-generated.h"
#include "rc-policy.h"
#include "rc-registry.h"
#include "rc-rules.h"
#include "rc-systemd.h"

G_BEGIN_DECLS

/* The memory ladder at work (its decisions are rc-ladder.c's). A PSI
 * trigger on the memory.pressure of app.slice and of the user manager's
 * own cgroup (stalled for MemoryPressureThrottle's share of a 2 s window)
 * wakes it; it then checks every RC_LADDER_CHECK_MSEC for as long as the
 * pressure is over half MemoryPressureThrottle, the level is not "normal"
 * or it holds an app: the "some" total's growth since the last check is
 * the pressure (the higher of the two), the apps' memory.current says
 * which are biggest, and its steps go through the policy (MemoryHigh as a
 * runtime value in the request queue, freezes as the policy's). Where the
 * kernel takes no trigger (PSI off, a kernel that refuses the user's
 * triggers, a test's fake tree), a focus change or a new app starts the
 * checks, which go on while the pressure is above zero. Nothing runs at
 * rest. It keeps the MemoryLadderLevel and MemoryLadderHeld properties and
 * sends MemoryPressureLevel. */
#define RC_TYPE_LADDER_WATCH (rc_ladder_watch_get_type ())
G_DECLARE_FINAL_TYPE (RcLadderWatch, rc_ladder_watch, RC, LADDER_WATCH, GObject);

RcLadderWatch *rc_ladder_watch_new (RcRegistry *registry,
                                    RcSystemd  *systemd,
                                    RcRules    *rules,
                                    RcPolicy   *policy);
/* a(ssst): unit, AppID, "throttled" or "frozen", the MemoryHigh held. */
GVariant      *rc_ladder_watch_get_held (RcLadderWatch *self);
const char    *rc_ladder_watch_get_level (RcLadderWatch *self);
/* @unit's MemoryHigh is the ladder's now. */
gboolean       rc_ladder_watch_throttles (RcLadderWatch *self,
                                          const char    *unit);
/* Keeps @object's properties current and sends its signal. */
void           rc_ladder_watch_serve (RcLadderWatch         *self,
                                      RcDBusResourceControl *object);

G_END_DECLS
