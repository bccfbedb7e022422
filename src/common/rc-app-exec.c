/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "rc-app-exec.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <pthread.h>
#include <string.h>
#include <sys/wait.h>
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

/* The signals this process ignores or catches (/proc/self/status), which
 * are all a new process would otherwise not get as defaults: exec resets
 * a caught one, keeps an ignored one. */
static void
changed_signals (sigset_t *out)
{
  g_autofree char *status = NULL;
  g_auto(GStrv) lines = NULL;

  sigemptyset (out);
  if (!g_file_get_contents ("/proc/self/status", &status, NULL, NULL))
    {
      sigfillset (out);   /* not known: every one */
      return;
    }
  lines = g_strsplit (status, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    if (g_str_has_prefix (lines[i], "SigIgn:") || g_str_has_prefix (lines[i], "SigCgt:"))
      {
        guint64 mask = g_ascii_strtoull (lines[i] + strlen ("SigIgn:"), NULL, 16);

        for (int sig = 1; sig <= 64 && sig < NSIG; sig++)
          if (mask & (G_GUINT64_CONSTANT (1) << (sig - 1)))
            sigaddset (out, sig);
      }
}

gboolean
rc_app_spawn (const char         *identifier,
              const char * const *argv,
              char              **env,
              GError            **error)
{
  g_auto(GStrv) app_env = g_strdupv (env);
  int journal_fd = journal_stream (identifier, &app_env);
  int null_fd = open ("/dev/null", O_RDWR | O_CLOEXEC);
  int out_fd = journal_fd >= 0 ? journal_fd : null_fd;
  volatile int exec_errno = 0;
  sigset_t reset, all, saved;
  pid_t pid;

  if (null_fd < 0)
    {
      int saved_errno = errno;

      if (journal_fd >= 0)
        close (journal_fd);
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved_errno),
                   "Cannot open /dev/null: %s", g_strerror (saved_errno));
      return FALSE;
    }
  changed_signals (&reset);
  /* vfork: no copy of this process, whose memory the child borrows until its
   * exec, with every signal blocked so that no handler of ours runs there.
   * It makes system calls only, and leaves its exec's error in exec_errno. */
  sigfillset (&all);
  pthread_sigmask (SIG_SETMASK, &all, &saved);
  pid = vfork ();
  if (pid == 0)
    {
      struct sigaction dfl = { .sa_handler = SIG_DFL };
      sigset_t none;

      for (int sig = 1; sig < NSIG; sig++)
        if (sigismember (&reset, sig) == 1)
          sigaction (sig, &dfl, NULL);
      sigemptyset (&none);
      sigprocmask (SIG_SETMASK, &none, NULL);
      setsid ();
      dup2 (null_fd, STDIN_FILENO);
      dup2 (out_fd, STDOUT_FILENO);
      dup2 (out_fd, STDERR_FILENO);
      execve (argv[0], (char * const *) argv, app_env);
      exec_errno = errno;
      _exit (127);
    }
  if (pid < 0)
    exec_errno = errno;
  pthread_sigmask (SIG_SETMASK, &saved, NULL);
  close (null_fd);
  if (journal_fd >= 0)
    close (journal_fd);
  if (exec_errno != 0)
    {
      if (pid > 0)
        waitpid (pid, NULL, 0);
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (exec_errno),
                   "Cannot start %s: %s", argv[0], g_strerror (exec_errno));
      return FALSE;
    }
  return TRUE;
}
