/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define RCP_MIB ((guint64) 1024 * 1024)

/* "200 MiB", or @unlimited for G_MAXUINT64 ("max" in the API). */
char *rcp_format_bytes (guint64     bytes,
                        const char *unlimited);
/* "3 instances · CPU 12 % · Memory 200 MiB of 1.0 GiB" */
char *rcp_format_usage (guint   n_instances,
                        double  cpu_percent,
                        guint64 memory_current,
                        guint64 memory_max);
/* "Low (50)", "Normal (100)", "High (300)" or "Custom (250)" for a CPUWeight. */
char *rcp_format_weight (guint64 weight);
/* A PSI figure: "12 %". */
char *rcp_format_pressure (double percent);
/* Joules as watt-hours: "12 mWh", "3.40 Wh", "25.0 Wh". */
char *rcp_format_energy (double joules);
/* A share of the energy, 0..1: "30 %", "< 1 %" for a sliver. */
char *rcp_format_share (double share);
/* memory.events oom_kill: "1 process stopped for lack of memory". */
char *rcp_format_oom_kills (guint64 oom_kills);
/* The main list's marker of an app held back (RcpHeld), or NULL: "Held
 * back by its limits" and why. */
char *rcp_format_held (guint held);

/* What an entry of the daemon's action record did, as a row's title:
 * "CPUWeight 100 → 50" for a key, else "Frozen", "Resumed", "Notified"
 * or the kind itself. */
char *rcp_format_action (const char *kind,
                         const char *key,
                         const char *old_value,
                         const char *new_value);
/* When @time_usec was, seen from @now_usec (both g_get_real_time ()):
 * "just now", "5 min ago", "3 h ago", then the local date and time. */
char *rcp_format_ago (guint64 time_usec,
                      gint64  now_usec);

G_END_DECLS
