/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* A process named by pid, pinned so that the pid cannot name another
 * process unnoticed: Launch's CallerPid is pinned when the call arrives,
 * and systemd (252 takes PIDs, not pidfds) is given the pid only after the
 * pin says the process is still there and the user's, and asked again
 * after. The pin is the process's start time, which a reused pid does not
 * share, and a pidfd where the kernel has pidfd_open (5.3; valgrind 3.19
 * has not), which also follows a process whose start time cannot be read. */
typedef struct {
  guint32 pid;
  guint64 start_time; /* clock ticks since boot */
  int     pidfd;      /* -1 without pidfd_open */
} RcPinnedPid;

/* NULL with G_IO_ERROR_NOT_FOUND when there is no such process. */
RcPinnedPid *rc_pinned_pid_new (guint32  pid,
                                GError **error);
void         rc_pinned_pid_free (RcPinnedPid *pinned);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RcPinnedPid, rc_pinned_pid_free);

/* Is the pinned process still alive, the same process, and this user's
 * (its real uid)? */
gboolean     rc_pinned_pid_is_ours (const RcPinnedPid *pinned);

G_END_DECLS
