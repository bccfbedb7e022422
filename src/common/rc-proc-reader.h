/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* Processes as /proc shows them, and which app a process is: shared by the
 * daemon (Adopt, ListProcesses) and resourcectl (adopt --all plans its
 * calls with it; the daemon checks every pid again). */
typedef struct {
  guint32  pid;
  guint32  ppid;
  guint32  uid;
  gboolean kernel_thread;
  char    *comm;
  char    *cgroup;        /* the unified hierarchy's path; "" when unknown */
  guint64  start_time;    /* clock ticks since boot: a pid and this name one process */
} RcProc;

/* The process's cgroup in the unified hierarchy; NULL when unknown. */
char      *rc_proc_cgroup (guint32 pid);
/* NULL when there is no such process (or it went away while read). */
RcProc    *rc_proc_read (guint32 pid);
void       rc_proc_free (RcProc *proc);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RcProc, rc_proc_free);

/* Orders two guint32 pids, for g_array_sort. */
int        rc_proc_compare_pids (gconstpointer a,
                                 gconstpointer b);

/* Every process that could be read, by pid. */
GPtrArray *rc_proc_list (void);
/* @pid and the processes below it (children, their children...) that share
 * its cgroup, from @all (rc_proc_list); @pid first. */
GArray    *rc_proc_tree (GPtrArray *all,
                         guint32    pid);

/* What ListProcesses shows of a process: (pid, comm, cmdline joined by
 * spaces, RSS bytes, CPU time ns, start time ns since boot), or NULL when it
 * is gone. A command line longer than RC_PROC_CMDLINE_MAX bytes is cut
 * where a character ends and ends with "…". */
#define RC_PROC_CMDLINE_MAX 4096
GVariant  *rc_proc_usage_variant (guint32 pid);

/* Which app a process is, detected: GIO_LAUNCHED_DESKTOP_FILE in its
 * environment, Flatpak's /.flatpak-info in its root, else its executable
 * matched to exactly one desktop file's TryExec or Exec (@index, see
 * rc_exe_index_new). NULL when none; @out_how says which way it was found. */
typedef GHashTable RcExeIndex;
/* @out_stamp (may be NULL): the applications folders' rc_desktop_dirs_stamp
 * when it was built; the index is out of date when that changes. */
RcExeIndex *rc_exe_index_new (char **out_stamp);
char       *rc_proc_detect_app_id (guint32      pid,
                                   RcExeIndex  *index,
                                   const char **out_how);

G_END_DECLS
