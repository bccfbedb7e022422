/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>

#include "rc-app.h"
#include "rc-holds.h"
#include "rc-limits.h"
#include "rc-rules.h"

G_BEGIN_DECLS

/* The responsiveness guard's decisions: pure functions on pressure readings
 * and per-app CPU use, so the unit tests drive them, and the holds the
 * policy applies. The watch (rc-guard-watch.c) reads the kernel and acts.
 *
 * When the CPU pressure (PSI "some") of the focused app or of session.slice
 * passes the target of the [Guard] rules, the busiest other apps' CPUWeight
 * is halved, one step at a time, never below the floor; below half the
 * target for RC_GUARD_CALM_CHECKS checks in a row, each is given one step
 * back. An app's weight changes at most once every RC_GUARD_SPACING_USEC,
 * so the guard cannot oscillate faster than that. */

/* How often the guard looks while it is active, and how often it may
 * change one app's weight at most. */
#define RC_GUARD_CHECK_MSEC     1000
#define RC_GUARD_SPACING_USEC   (2 * G_USEC_PER_SEC)
/* Checks below half the target in a row before a step is given back; twice
 * as many each time a step back is undone (the pressure went over the
 * target again before the next one), up to RC_GUARD_CALM_CHECKS_MAX, so a
 * weight that cannot be given back is not tried again every few seconds;
 * half as many again after each step back the pressure took. */
#define RC_GUARD_CALM_CHECKS     3
#define RC_GUARD_CALM_CHECKS_MAX 48
/* Apps lowered by one check at most. */
#define RC_GUARD_STEPS_PER_CHECK 3
/* An app counts as busy when it used at least this share of one CPU
 * (per mille) over the interval, and, to be lowered, a quarter of what
 * the busiest one used. */
#define RC_GUARD_BUSY_PERMILLE  100
/* The PSI trigger's window: a multiple of 2 s, which kernels from 6.5 on
 * ask of triggers made by an unprivileged user. */
#define RC_GUARD_WINDOW_USEC    2000000

typedef enum {
  RC_GUARD_STAY,       /* between half the target and the target */
  RC_GUARD_LOWER,      /* over the target */
  RC_GUARD_GIVE_BACK,  /* below half the target, long enough */
} RcGuardMove;

/* One app as a check sees it. */
typedef struct {
  gconstpointer key;           /* the caller's (an RcApp) */
  guint64       usage_usec;    /* CPU time used over the interval */
  guint64       weight;        /* its CPUWeight now (0: unknown, 100 assumed) */
  guint64       held;          /* the guard's weight in force, 0: none */
  guint64       held_from;     /* its weight before the guard's first step */
  gint64        changed_usec;  /* the guard's last change of it (monotonic), 0: never */
  gboolean      eligible;      /* controllable, not focused, no sound, no API CPUWeight */
  guint64       next;          /* out: the guard's weight from now on, 0: none */
} RcGuardApp;

/* What the guard keeps from one check to the next (RC_GUARD_CALM_INIT
 * when it starts checking). */
typedef struct {
  guint    checks;     /* below half the target in a row */
  guint    needed;     /* in a row before a step back */
  gboolean gave_back;  /* the last step was a step back */
} RcGuardCalm;

#define RC_GUARD_CALM_INIT ((RcGuardCalm) { .needed = RC_GUARD_CALM_CHECKS })

/* What a check finding @pressure (percent) calls for. */
RcGuardMove rc_guard_judge (const RcGuardRules *rules,
                            double              pressure,
                            RcGuardCalm        *calm);
/* Sets each app's next (and held_from when a hold begins) for @move, at
 * @now_usec after an interval of @interval_usec; returns how many apps
 * change. An app no longer eligible is let go whatever the move. */
guint       rc_guard_plan (const RcGuardRules *rules,
                           RcGuardMove         move,
                           RcGuardApp         *apps,
                           guint               n_apps,
                           gint64              interval_usec,
                           gint64              now_usec);
/* The trigger for @target percent: "some <target of the window> <window>". */
char       *rc_guard_trigger_text (guint target);

/* ---- the holds the policy applies ---------------------------------------- */

/* The policy's side of the guard's holds (unit -> CPUWeight). In what
 * @unit should have (@limits, resolved without the guard), the guard's
 * weight takes the place of a higher CPUWeight, unless the app has the
 * focus or a CPUWeight set through the API (@api): those win. */
void        rc_guard_apply_hold (RcHolds        *holds,
                                 const char     *unit,
                                 gboolean        focused,
                                 const RcLimits *api,
                                 RcLimits       *limits);

G_END_DECLS
