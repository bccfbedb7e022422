/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "rc-pidfd.h"

#include <errno.h>
#include <gio/gio.h>
#include <signal.h>
#include <sys/syscall.h>
#include <string.h>
#include <unistd.h>

int
rc_pidfd_open (guint32  pid,
               GError **error)
{
  int fd = (int) syscall (SYS_pidfd_open, (pid_t) pid, 0);

  if (fd >= 0)
    return fd;
  if (errno == ENOSYS)
    g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                         "the kernel has no pidfd_open");
  else
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, "no such process (%s)",
                 g_strerror (errno));
  return -1;
}

static gboolean
is_alive (int pidfd)
{
  /* signal 0: no signal, only the checks; ESRCH once it has ended */
  return syscall (SYS_pidfd_send_signal, pidfd, 0, NULL, 0) == 0;
}

gboolean
rc_pidfd_is_ours (int     pidfd,
                  guint32 pid)
{
  g_autofree char *path = g_strdup_printf ("/proc/%u/status", pid);
  g_autofree char *status = NULL;
  g_autofree char *real_uid = NULL;
  const char *line;
  guint64 uid;

  /* a kernel file of the process, read by pid: the pidfd says afterwards
   * whether the pid was still this process's */
  if (pidfd < 0 || !is_alive (pidfd) || !g_file_get_contents (path, &status, NULL, NULL) ||
      (line = strstr (status, "\nUid:\t")) == NULL)
    return FALSE;
  line += strlen ("\nUid:\t");
  real_uid = g_strndup (line, strcspn (line, "\t\n"));
  return g_ascii_string_to_unsigned (real_uid, 10, 0, G_MAXUINT32, &uid, NULL) &&
         uid == getuid () && is_alive (pidfd);
}
