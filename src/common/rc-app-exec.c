/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "rc-app-exec.h"

#include <errno.h>
#include <signal.h>
#include <sys/stat.h>
#include <syslog.h>
#include <systemd/sd-journal.h>
#include <unistd.h>

void
rc_app_reset_signals (void)
{
  sigset_t none;

  for (int sig = 1; sig < NSIG; sig++)
    if (sig != SIGKILL && sig != SIGSTOP)
      signal (sig, SIG_DFL);
  sigemptyset (&none);
  sigprocmask (SIG_SETMASK, &none, NULL);
}

void
rc_app_exec (const char         *identifier,
             const char * const *argv,
             char              **env)
{
  int journal_fd = sd_journal_stream_fd (identifier, LOG_INFO, FALSE);
  g_auto(GStrv) app_env = g_strdupv (env);
  struct stat st;
  int saved;

  if (journal_fd >= 0)
    {
      dup2 (journal_fd, STDOUT_FILENO);
      dup2 (journal_fd, STDERR_FILENO);
      if (journal_fd > STDERR_FILENO)
        close (journal_fd);
      if (fstat (STDOUT_FILENO, &st) == 0)
        {
          g_autofree char *stream = g_strdup_printf ("%lu:%lu", (unsigned long) st.st_dev,
                                                     (unsigned long) st.st_ino);

          app_env = g_environ_setenv (app_env, "JOURNAL_STREAM", stream, TRUE);
        }
    }
  execve (argv[0], (char * const *) argv, app_env);
  saved = errno;
  g_clear_pointer (&app_env, g_strfreev);
  errno = saved;
}
