/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "rc-registry.h"

G_BEGIN_DECLS

/* The CPU watch: tells when an app instance's own CPUQuota holds it back.
 * For every instance whose cgroup has a quota (cpu.max), a PSI trigger on
 * its cpu.pressure ("some" stall past RC_CPU_STALL_MS within each
 * RC_CPU_WINDOW_MS) wakes the daemon while the app is short of CPU; then
 * cpu.stat says whether its quota was the cause (throttled for at least a
 * quarter of the time since the last look). Nothing runs at rest: the
 * kernel wakes nobody while the app gets its CPU. The quota is looked at
 * again whenever systemd may have changed the instance's limits.
 *
 * Signals:
 *   "throttled" (RcApp*)   the quota held the app back in the last window */
#define RC_TYPE_CPU_WATCH (rc_cpu_watch_get_type ())
G_DECLARE_FINAL_TYPE (RcCpuWatch, rc_cpu_watch, RC, CPU_WATCH, GObject);

#define RC_CPU_STALL_MS  500
#define RC_CPU_WINDOW_MS 2000
/* one fd each: past this many instances with a quota, the rest are not watched */
#define RC_CPU_WATCH_MAX 256u

RcCpuWatch *rc_cpu_watch_new (RcRegistry *registry);

/* Was the instance throttled for at least a quarter of the @elapsed_usec
 * since @before_usec of cpu.stat throttled_usec was read? Pure, for the
 * unit tests. */
gboolean    rc_cpu_watch_throttled (guint64 before_usec,
                                    guint64 now_usec,
                                    gint64  elapsed_usec);

G_END_DECLS
