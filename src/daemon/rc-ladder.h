/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>

#include "rc-app.h"
#include "rc-holds.h"
#include "rc-limits.h"
#include "rc-rules.h"

G_BEGIN_DECLS

/* The memory ladder's decisions: pure functions on the memory pressure and
 * the apps' memory use, so the unit tests drive them, and the MemoryHigh
 * holds the policy applies. The watch (rc-ladder-watch.c) reads the kernel
 * and acts.
 *
 * The pressure is the PSI "some" share of app.slice's and of the user
 * manager's own cgroup (the higher counts), over each check's interval.
 * Its rungs, by the [Guard] rules:
 * - over MemoryPressureThrottle: "throttling". Each check lowers the
 *   MemoryHigh of the RC_LADDER_THROTTLE_PER_CHECK biggest (memory.current)
 *   apps that may be throttled to 3/4 of what they use (or of the ladder's
 *   last value, whichever is lower), never below the app's floor: the
 *   highest of RC_LADDER_FLOOR_MIN, half its use when first throttled and
 *   its own memory.min / memory.low. MemoryHigh never kills: over it the
 *   kernel reclaims and slows the app; the floor keeps what it needs to run.
 * - over MemoryPressureFreeze: "freezing". Each check freezes the biggest
 *   app that may be frozen, one a check; with none left: "critical", where
 *   throttling goes on and the rest is systemd-oomd's or the kernel's.
 * - under half of MemoryPressureThrottle for RC_LADDER_CALM_CHECKS checks
 *   in a row: one step back, the ladder's last step first: a frozen app is
 *   thawed (the last frozen first), then the last throttled app's MemoryHigh
 *   is raised by half, and let go (back to what it was without the ladder:
 *   infinity, or the rule's value) once that reaches the use it had when
 *   first throttled. One step a calm spell: giving all back at once brings
 *   the pressure back at once.
 * Never held: the focused app, an app playing or recording sound, an app
 * outside app.slice, and (throttling only) an app with a MemoryHigh or
 * MemoryMax set through the API: the caller's own limits are left alone.
 * An app that stops being one the ladder may hold is let go at once. */

/* How often the ladder looks while it is active. */
#define RC_LADDER_CHECK_MSEC          1000
/* Checks under half the throttle percent in a row before a step back. */
#define RC_LADDER_CALM_CHECKS         3
/* Apps throttled by one check at most. */
#define RC_LADDER_THROTTLE_PER_CHECK  2
/* The lowest MemoryHigh the ladder sets. */
#define RC_LADDER_FLOOR_MIN           (128 * 1024 * 1024)
/* The PSI trigger's window: 2 s, as unprivileged triggers must have. */
#define RC_LADDER_WINDOW_USEC         2000000

typedef enum {
  RC_LADDER_NORMAL,
  RC_LADDER_THROTTLING,
  RC_LADDER_FREEZING,
  RC_LADDER_CRITICAL,
} RcLadderLevel;

typedef enum {
  RC_LADDER_STAY,       /* between half the throttle percent and it */
  RC_LADDER_THROTTLE,   /* over the throttle percent */
  RC_LADDER_FREEZE,     /* over the freeze percent */
  RC_LADDER_GIVE_BACK,  /* under half the throttle percent, long enough */
} RcLadderMove;

/* One app as a check sees it. */
typedef struct {
  gconstpointer key;            /* the caller's (an RcApp) */
  guint64       current;        /* memory.current, bytes */
  guint64       protected_bytes; /* its memory.min or memory.low, the higher
                                 * (G_MAXUINT64: not read, not throttled now) */
  guint64  held;                /* the ladder's MemoryHigh in force, 0: none */
  guint64  held_from;           /* its use when first throttled */
  guint64  floor;               /* the lowest MemoryHigh for it, fixed at the first step */
  gboolean frozen;              /* frozen by the ladder */
  gboolean frozen_else;         /* frozen by someone else: left alone */
  gboolean may_throttle;        /* in app.slice, not focused, no sound, no API memory cap */
  gboolean may_freeze;          /* in app.slice, not focused, no sound */
  guint64  order;               /* when the ladder last stepped it down (a serial), 0: never */
  /* out: the ladder's MemoryHigh and freeze from now on */
  guint64  next_held;
  gboolean next_frozen;
} RcLadderApp;

/* What the ladder keeps from one check to the next. */
typedef struct {
  guint checks;    /* under half the throttle percent in a row */
} RcLadderCalm;

const char   *rc_ladder_level_name (RcLadderLevel level);
/* What a check finding @pressure (percent) calls for. */
RcLadderMove  rc_ladder_judge (const RcGuardRules *rules,
                               double              pressure,
                               RcLadderCalm       *calm);
/* Sets each app's next_held and next_frozen (and floor, held_from and
 * order where a hold begins or steps down; @serial counts the steps) for
 * @move; returns the level the ladder is at and sets @out_changed to how
 * many apps change. */
RcLadderLevel rc_ladder_plan (const RcGuardRules *rules,
                              RcLadderMove        move,
                              RcLadderApp        *apps,
                              guint               n_apps,
                              guint64            *serial,
                              guint              *out_changed);
/* The trigger for @percent: "some <percent of the window> <window>". */
char         *rc_ladder_trigger_text (guint percent);

/* ---- the holds the policy applies ---------------------------------------- */

/* The policy's side of the ladder's holds (unit -> MemoryHigh in bytes).
 * In what @unit should have (@limits, resolved without the ladder), the
 * ladder's MemoryHigh takes the place of a higher one, unless the app has
 * the focus or a MemoryHigh or MemoryMax set through the API (@api): those
 * win. Returns whether the ladder's value is in force. */
gboolean      rc_ladder_apply_hold (RcHolds        *holds,
                                    const char     *unit,
                                    gboolean        focused,
                                    const RcLimits *api,
                                    RcLimits       *limits);

G_END_DECLS
