/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Parsers of the kernel's "what the limits do" files of a cgroup v2 folder,
 * kept apart from the reading so they can be tested on any text. */

/* The "some" line's avg10 of a PSI file (cpu.pressure, memory.pressure,
 * io.pressure): the percent of the last 10 s in which at least one task
 * waited. FALSE when @text has no such line. */
gboolean  rc_pressure_parse_some_avg10 (const char *text,
                                        double     *out_percent);

/* memory.events ("low 0\nhigh 12\nmax 3\noom 1\noom_kill 1\n...") as an
 * a{st} of its counters by name, in the kernel's order; lines that are not
 * "<name> <unsigned>" are skipped. A floating GVariant. */
GVariant *rc_pressure_parse_memory_events (const char *text);

/* "some avg10=... total=N" of a PSI file: N, the stall time in usec. */
gboolean  rc_pressure_parse_some_total (const char *text,
                                        guint64    *out_total_usec);
/* The stall share (percent) between two totals @elapsed_usec apart; 0
 * for a counter that went back or no time. */
double    rc_pressure_percent (guint64 total_before,
                               guint64 total_now,
                               gint64  elapsed_usec);
/* A PSI trigger's text for @percent (clamped to 1..100) of a window of
 * @window_usec: "some <stall usec> <window usec>". */
char     *rc_pressure_trigger_text (guint percent,
                                    guint window_usec);

G_END_DECLS
