/* SPDX-License-Identifier: LGPL-2.1-or-later */
#define _GNU_SOURCE   /* POSIX_SPAWN_SETSID */
#include "rc-app-exec.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
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

/* A journal stream named @identifier, and JOURNAL_STREAM set in *@env as
 * systemd sets it for a service whose output goes to the journal; -1
 * without a journal. */
static int
journal_stream (const char *identifier,
                char     ***env)
{
  int journal_fd = sd_journal_stream_fd (identifier, LOG_INFO, FALSE);
  struct stat st;

  if (journal_fd >= 0 && fstat (journal_fd, &st) == 0)
    {
      g_autofree char *stream = g_strdup_printf ("%lu:%lu", (unsigned long) st.st_dev,
                                                 (unsigned long) st.st_ino);

      *env = g_environ_setenv (*env, "JOURNAL_STREAM", stream, TRUE);
    }
  return journal_fd;
}

void
rc_app_exec (const char         *identifier,
             const char * const *argv,
             char              **env)
{
  g_auto(GStrv) app_env = g_strdupv (env);
  int journal_fd = journal_stream (identifier, &app_env);
  int saved;

  if (journal_fd >= 0)
    {
      dup2 (journal_fd, STDOUT_FILENO);
      dup2 (journal_fd, STDERR_FILENO);
      if (journal_fd > STDERR_FILENO)
        close (journal_fd);
    }
  execve (argv[0], (char * const *) argv, app_env);
  saved = errno;
  g_clear_pointer (&app_env, g_strfreev);
  errno = saved;
}

gboolean
rc_app_spawn (const char         *identifier,
              const char * const *argv,
              char              **env,
              GError            **error)
{
  g_auto(GStrv) app_env = g_strdupv (env);
  int journal_fd = journal_stream (identifier, &app_env);
  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attr;
  sigset_t all, none;
  pid_t pid;
  int r;

  posix_spawn_file_actions_init (&actions);
  posix_spawn_file_actions_addopen (&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  if (journal_fd >= 0)
    {
      posix_spawn_file_actions_adddup2 (&actions, journal_fd, STDOUT_FILENO);
      posix_spawn_file_actions_adddup2 (&actions, journal_fd, STDERR_FILENO);
    }
  else
    {
      posix_spawn_file_actions_addopen (&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
      posix_spawn_file_actions_adddup2 (&actions, STDOUT_FILENO, STDERR_FILENO);
    }
  sigfillset (&all);
  sigemptyset (&none);
  posix_spawnattr_init (&attr);
  posix_spawnattr_setflags (&attr, POSIX_SPAWN_SETSID | POSIX_SPAWN_SETSIGDEF |
                            POSIX_SPAWN_SETSIGMASK);
  posix_spawnattr_setsigdefault (&attr, &all);
  posix_spawnattr_setsigmask (&attr, &none);
  r = posix_spawn (&pid, argv[0], &actions, &attr, (char * const *) argv, app_env);
  posix_spawnattr_destroy (&attr);
  posix_spawn_file_actions_destroy (&actions);
  if (journal_fd >= 0)
    close (journal_fd);
  if (r != 0)
    {
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (r), "Cannot start %s: %s",
                   argv[0], g_strerror (r));
      return FALSE;
    }
  return TRUE;
}
