/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "rc-pinned-pid.h"
#include "rc-proc-reader.h"

#include <errno.h>
#include <gio/gio.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

RcPinnedPid *
rc_pinned_pid_new (guint32  pid,
                   GError **error)
{
  g_autoptr(RcProc) proc = NULL;
  RcPinnedPid *pinned;
  int fd;

  /* the pidfd first: the start time read after it is then the pidfd's
   * process's, or the pid was already gone */
  fd = (int) syscall (SYS_pidfd_open, (pid_t) pid, 0);
  if (fd < 0 && errno != ENOSYS)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, "no such process (%s)",
                   g_strerror (errno));
      return NULL;
    }
  proc = rc_proc_read (pid);
  if (proc == NULL)
    {
      if (fd >= 0)
        close (fd);
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, "no such process");
      return NULL;
    }
  pinned = g_new0 (RcPinnedPid, 1);
  pinned->pid = pid;
  pinned->start_time = proc->start_time;
  pinned->pidfd = fd;
  return pinned;
}

void
rc_pinned_pid_free (RcPinnedPid *pinned)
{
  if (pinned == NULL)
    return;
  if (pinned->pidfd >= 0)
    close (pinned->pidfd);
  g_free (pinned);
}

static gboolean
is_alive (const RcPinnedPid *pinned)
{
  /* signal 0: no signal, only the checks; ESRCH once it has ended */
  return pinned->pidfd < 0 ||
         syscall (SYS_pidfd_send_signal, pinned->pidfd, 0, NULL, 0) == 0;
}

gboolean
rc_pinned_pid_is_ours (const RcPinnedPid *pinned)
{
  g_autoptr(RcProc) proc = NULL;

  /* /proc is read by pid: alive before and after it, the pidfd says the
   * pid was this process's while it was read */
  if (!is_alive (pinned))
    return FALSE;
  proc = rc_proc_read (pinned->pid);
  return proc != NULL && proc->start_time == pinned->start_time && proc->uid == getuid () &&
         is_alive (pinned);
}
