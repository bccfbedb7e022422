/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* ListProcesses answers at most this many processes (those with the lowest
 * pids); each command line is at most RC_PROC_CMDLINE_MAX bytes. So the
 * reply stays a few MiB, far below what the bus carries. */
#define RC_LIST_PROCESSES_MAX 1024

/* The a(ussttt) of ListProcesses for the processes in @control_groups
 * (cgroup paths, copied), at most @max_entries of them (the lowest pids;
 * ListProcesses passes RC_LIST_PROCESSES_MAX), read from /proc in a worker
 * thread: a big app must not hold up the main loop. */
void      rc_list_processes_async (const char * const *control_groups,
                                   guint               max_entries,
                                   GCancellable       *cancellable,
                                   GAsyncReadyCallback callback,
                                   gpointer            user_data);
GVariant *rc_list_processes_finish (GAsyncResult *result,
                                    GError      **error);

G_END_DECLS
