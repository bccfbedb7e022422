/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* A process pinned by a pidfd: its pid cannot name another process
 * unnoticed. Launch's CallerPid is pinned when the call arrives; systemd
 * (252 takes PIDs, not pidfds) is given the pid only after the pidfd says
 * the process is still there and the user's, and asked again after. */

/* A pidfd for @pid, or -1 with G_IO_ERROR_NOT_FOUND (no such process) or
 * G_IO_ERROR_NOT_SUPPORTED (a kernel without pidfd_open, before 5.3). */
int      rc_pidfd_open (guint32  pid,
                        GError **error);
/* Is the process of @pidfd (@pid) alive and this user's (its real uid)?
 * The uid is read by pid, and the pidfd then says the pid was still its. */
gboolean rc_pidfd_is_ours (int     pidfd,
                           guint32 pid);

G_END_DECLS
