/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* resource-control-scope-helper: starts one app in a new scope, as
 * `systemd-run --user --scope` would, for Launch with Kind "scope".
 *
 * The daemon runs under its service's hardening (no network, no W+X
 * memory, a system-call filter, umask 077...), and whatever it forks keeps
 * it. So the daemon never forks an app: it asks the user's manager for a
 * transient service running this helper, which has the manager's defaults
 * like any `systemd-run --user` service, and the helper forks the app's
 * process. That process waits, held, until the scope holds it with its
 * limits, checks in /proc/self/cgroup that it is in that scope, and only then
 * execs the app. If the helper dies at any moment before that, the held
 * process reads end-of-file and exits: an app never runs outside its scope.
 * The protocol is in rc-scope-helper.h. */
#include "rc-scope-helper.h"
#include "rc-app-exec.h"
#include "rc-sd-bus.h"

#include <errno.h>
#include <fcntl.h>
#include <glib-unix.h>
#include <glib.h>
#include <signal.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <systemd/sd-bus.h>
#include <unistd.h>

#define SYSTEMD_NAME      "org.freedesktop.systemd1"
#define SYSTEMD_PATH      "/org/freedesktop/systemd1"
#define SYSTEMD_MANAGER   "org.freedesktop.systemd1.Manager"
#define CALL_TIMEOUT_USEC (25 * G_USEC_PER_SEC)
#define JOB_TIMEOUT_SEC   60

typedef struct {
  const char         *unit;
  GVariant           *properties;
  const char * const *argv;
  const char * const *environment;
  const char         *working_directory;
  const char         *app_id;
} ScopeRequest;

static int status_fd = -1;
/* Set from argv before the fork, never changed: whether the daemon, run
 * with its own test hooks, asked for ours (rc-scope-helper.h). */
static gboolean test_hooks;

/* The value of test hook @variable: NULL without RC_SCOPE_HELPER_TEST_HOOKS_ARG. */
static const char *
test_hook (const char *variable)
{
  const char *value;

  if (!test_hooks)
    return NULL;
  value = g_getenv (variable);
  return value != NULL && *value != '\0' ? value : NULL;
}

/* The one answer line to the daemon; it may be gone (SIGPIPE is ignored). */
static void answer (const char *format,
                    ...) G_GNUC_PRINTF (1, 2);

static void
answer (const char *format,
        ...)
{
  g_autofree char *text = NULL;
  g_autofree char *line = NULL;
  va_list args;

  va_start (args, format);
  text = g_strdup_vprintf (format, args);
  va_end (args);
  if (!g_str_equal (text, RC_SCOPE_HELPER_OK))
    g_printerr ("%s\n", text);
  line = g_strconcat (text, "\n", NULL);
  if (status_fd >= 0 && write (status_fd, line, strlen (line)) < 0)
    g_printerr ("The daemon is gone: %s\n", g_strerror (errno));
}

static GVariant *
read_request (GError **error)
{
  g_autoptr(GByteArray) data = g_byte_array_new ();
  g_autoptr(GBytes) bytes = NULL;
  guint8 buffer[65536];
  GVariant *request;

  for (;;)
    {
      ssize_t n = read (STDIN_FILENO, buffer, sizeof buffer);

      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        {
          g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (errno),
                       "Cannot read the request: %s", g_strerror (errno));
          return NULL;
        }
      if (n == 0)
        break;
      if (data->len + n > RC_SCOPE_HELPER_MAX_REQUEST)
        {
          g_set_error_literal (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                               "The request is too large");
          return NULL;
        }
      g_byte_array_append (data, buffer, n);
    }
  bytes = g_byte_array_free_to_bytes (g_steal_pointer (&data));
  request = g_variant_new_from_bytes (G_VARIANT_TYPE (RC_SCOPE_HELPER_REQUEST_TYPE), bytes,
                                      FALSE);
  g_variant_ref_sink (request);
  if (!g_variant_is_normal_form (request))
    {
      g_variant_unref (request);
      g_set_error_literal (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                           "The request is not a valid " RC_SCOPE_HELPER_REQUEST_TYPE);
      return NULL;
    }
  return request;
}

/* ---- the held process --------------------------------------------------- */

/* The host tests' fake cgroupfs (a test hook, as the daemon reads it),
 * where the mock systemd lists a moved process in the unit folder's
 * cgroup.procs: is this process there, in a folder named @unit? */
static gboolean
listed_in_fake_tree (const char *dir,
                     const char *unit,
                     guint       depth)
{
  g_autoptr(GDir) folder = g_dir_open (dir, 0, NULL);
  const char *name;

  while (folder != NULL && depth < 8 && (name = g_dir_read_name (folder)) != NULL)
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);

      if (!g_file_test (path, G_FILE_TEST_IS_DIR))
        continue;
      if (g_str_equal (name, unit))
        {
          g_autofree char *procs_path = g_build_filename (path, "cgroup.procs", NULL);
          g_autofree char *procs = NULL;
          g_autofree char *line = g_strdup_printf ("%d", (int) getpid ());
          g_auto(GStrv) pids = NULL;

          if (!g_file_get_contents (procs_path, &procs, NULL, NULL))
            return FALSE;
          pids = g_strsplit (procs, "\n", -1);
          return g_strv_contains ((const char * const *) pids, line);
        }
      if (listed_in_fake_tree (path, unit, depth + 1))
        return TRUE;
    }
  return FALSE;
}

/* Is this process in @unit's own cgroup (the last part of its path)? */
static gboolean
in_unit (const char *unit)
{
  g_autofree char *contents = NULL;
  g_auto(GStrv) lines = NULL;
  const char *fake_root = test_hook (RC_SCOPE_HELPER_CGROUP_ROOT_ENV);

  if (fake_root != NULL)
    return listed_in_fake_tree (fake_root, unit, 0);
  if (!g_file_get_contents ("/proc/self/cgroup", &contents, NULL, NULL))
    return FALSE;
  lines = g_strsplit (contents, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    if (g_str_has_prefix (lines[i], "0::"))
      {
        const char *slash = strrchr (lines[i], '/');

        return slash != NULL && g_str_equal (slash + 1, unit);
      }
  return FALSE;
}

/* What a service sets for its own processes: not the app's. */
static const char * const service_variables[] = {
  "INVOCATION_ID", "SYSTEMD_EXEC_PID", "MANAGERPID", "JOURNAL_STREAM", "NOTIFY_SOCKET",
  "LISTEN_PID", "LISTEN_FDS", "LISTEN_FDNAMES", "WATCHDOG_PID", "WATCHDOG_USEC",
  RC_SCOPE_HELPER_PAUSE_ENV, NULL
};

static char **
app_environment (const ScopeRequest *request)
{
  char **env = g_get_environ ();

  for (guint i = 0; service_variables[i] != NULL; i++)
    env = g_environ_unsetenv (env, service_variables[i]);
  for (guint i = 0; request->environment[i] != NULL; i++)
    {
      g_auto(GStrv) kv = g_strsplit (request->environment[i], "=", 2);

      if (kv[0] != NULL && kv[1] != NULL)
        env = g_environ_setenv (env, kv[0], kv[1], TRUE);
    }
  return env;
}

static void child_fail (int         report_fd,
                        const char *format,
                        ...) G_GNUC_NORETURN G_GNUC_PRINTF (2, 3);

static void
child_fail (int         report_fd,
            const char *format,
            ...)
{
  g_autofree char *text = NULL;
  va_list args;

  va_start (args, format);
  text = g_strdup_vprintf (format, args);
  va_end (args);
  if (write (report_fd, text, strlen (text)) < 0)
    {
      /* the helper is gone: nobody to tell */
    }
  _exit (127);
}

/* The forked process: waits on @release_fd, checks its cgroup, becomes the
 * app. Anything that goes wrong is written to @report_fd (close-on-exec: the
 * helper reads end-of-file when the exec worked). */
G_GNUC_NORETURN
static void
run_held (const ScopeRequest *request,
          int                 release_fd,
          int                 report_fd)
{
  g_auto(GStrv) env = NULL;
  char byte;
  ssize_t n;

  /* a service's processes ignore SIGPIPE */
  rc_app_reset_signals ();

  do
    n = read (release_fd, &byte, 1);
  while (n < 0 && errno == EINTR);
  if (n != 1)
    _exit (127);   /* the helper died before the scope was there: never run */
  close (release_fd);
  if (!in_unit (request->unit))
    child_fail (report_fd, "The app's process is not in %s: not started", request->unit);
  if (*request->working_directory != '\0' && chdir (request->working_directory) < 0)
    child_fail (report_fd, "Cannot enter %s: %s", request->working_directory,
                g_strerror (errno));
  env = app_environment (request);
  rc_app_exec (request->app_id, request->argv, env);
  child_fail (report_fd, "Cannot start %s: %s", request->argv[0], g_strerror (errno));
}

/* ---- the scope ---------------------------------------------------------- */

/* sd-bus, not GDBus: the helper runs before every scope app starts, and
 * GIO's start-up and its bus thread cost more than the call itself. */

typedef struct {
  const char *job;
  char       *result;
} JobWait;

static int
job_removed_cb (sd_bus_message *message,
                void           *user_data,
                sd_bus_error   *ret_error)
{
  JobWait *wait = user_data;
  const char *job, *unit, *result;
  uint32_t id;

  if (sd_bus_message_read (message, "uoss", &id, &job, &unit, &result) < 0)
    return 0;
  if (wait->job != NULL && g_str_equal (job, wait->job) && wait->result == NULL)
    wait->result = g_strdup (result);
  return 0;
}

static int
start_message (sd_bus             *bus,
               const ScopeRequest *request,
               pid_t               pid,
               sd_bus_message    **out_message)
{
  g_autoptr(sd_bus_message) message = NULL;
  GVariantIter iter;
  GVariant *prop;
  int r;

  r = sd_bus_message_new_method_call (bus, &message, SYSTEMD_NAME, SYSTEMD_PATH, SYSTEMD_MANAGER,
                                      "StartTransientUnit");
  if (r < 0 || (r = sd_bus_message_set_auto_start (message, FALSE)) < 0 ||
      (r = sd_bus_message_append (message, "ss", request->unit, "fail")) < 0 ||
      (r = sd_bus_message_open_container (message, 'a', "(sv)")) < 0)
    return r;
  g_variant_iter_init (&iter, request->properties);
  while ((prop = g_variant_iter_next_value (&iter)) != NULL)
    {
      r = rc_sd_bus_append_value (message, prop);
      g_variant_unref (prop);
      if (r < 0)
        return r;
    }
  /* The held process is our unreaped child: its pid cannot be reused. */
  if ((r = sd_bus_message_append (message, "(sv)", "PIDs", "au", 1, (uint32_t) pid)) < 0 ||
      (r = sd_bus_message_close_container (message)) < 0 ||
      (r = sd_bus_message_append (message, "a(sa(sv))", 0)) < 0)
    return r;
  *out_message = g_steal_pointer (&message);
  return 0;
}

/* StartTransientUnit for the scope holding @pid, then its job's end:
 * "done" when the scope runs. NULL and @out_error when there is none. */
static char *
start_scope (const ScopeRequest *request,
             pid_t               pid,
             char              **out_error)
{
  g_autoptr(sd_bus) bus = NULL;
  g_autoptr(sd_bus_message) message = NULL;
  g_autoptr(sd_bus_message) reply = NULL;
  g_autoptr(sd_bus_slot) slot = NULL;
  sd_bus_error error = SD_BUS_ERROR_NULL;
  JobWait wait = { NULL, NULL };
  uint64_t deadline;
  int r;

  r = sd_bus_open_user (&bus);
  /* subscribed before the call: the job may end before its reply is read */
  if (r >= 0)
    r = sd_bus_match_signal (bus, &slot, SYSTEMD_NAME, SYSTEMD_PATH, SYSTEMD_MANAGER,
                             "JobRemoved", job_removed_cb, &wait);
  if (r >= 0)
    r = start_message (bus, request, pid, &message);
  if (r < 0)
    {
      *out_error = g_strdup_printf ("Cannot ask systemd for %s: %s", request->unit,
                                    g_strerror (-r));
      return NULL;
    }
  r = sd_bus_call (bus, message, CALL_TIMEOUT_USEC, &error, &reply);
  if (r < 0 || (r = sd_bus_message_read (reply, "o", &wait.job)) < 0)
    {
      *out_error = g_strdup (error.message != NULL ? error.message : g_strerror (-r));
      sd_bus_error_free (&error);
      return NULL;
    }
  deadline = g_get_monotonic_time () + JOB_TIMEOUT_SEC * G_USEC_PER_SEC;
  while (wait.result == NULL)
    {
      int64_t left = deadline - g_get_monotonic_time ();

      r = sd_bus_process (bus, NULL);
      if (r > 0)
        continue;
      if (r < 0 || left <= 0 || sd_bus_wait (bus, left) < 0)
        break;
    }
  if (wait.result == NULL)
    *out_error = g_strdup_printf ("systemd did not start %s within %d s", request->unit,
                                  JOB_TIMEOUT_SEC);
  return wait.result;
}

static void
pause_here (const char *where)
{
  if (g_strcmp0 (test_hook (RC_SCOPE_HELPER_PAUSE_ENV), where) == 0)
    raise (SIGSTOP);
}

/* What the held process wrote before it exited; "" when it became the app. */
static char *
read_report (int fd)
{
  char buffer[1024];
  ssize_t n;

  do
    n = read (fd, buffer, sizeof buffer - 1);
  while (n < 0 && errno == EINTR);
  return g_strndup (buffer, MAX (n, 0));
}

static int
launch (const ScopeRequest *request)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *result = NULL;
  g_autofree char *report = NULL;
  g_autofree char *why = NULL;
  int release[2], reports[2];
  pid_t pid;

  if (!g_unix_open_pipe (release, FD_CLOEXEC, &error) ||
      !g_unix_open_pipe (reports, FD_CLOEXEC, &error))
    {
      answer ("Cannot start %s: %s", request->argv[0], error->message);
      return 1;
    }
  pid = fork ();
  if (pid < 0)
    {
      answer ("Cannot start %s: %s", request->argv[0], g_strerror (errno));
      return 1;
    }
  if (pid == 0)
    {
      close (release[1]);
      close (reports[0]);
      close (status_fd);
      run_held (request, release[0], reports[1]);
    }
  close (release[0]);
  close (reports[1]);

  pause_here ("before-start");
  result = start_scope (request, pid, &why);
  if (result == NULL || !g_str_equal (result, "done"))
    {
      kill (pid, SIGKILL);   /* still held: the app never ran */
      if (result == NULL)
        answer ("Cannot start %s: %s", request->unit, why);
      else
        answer ("systemd could not start %s: its start job ended \"%s\" (see journalctl "
                "--user -u %s)", request->unit, result, request->unit);
      return 1;
    }
  pause_here ("after-start");
  if (write (release[1], "x", 1) != 1)
    {
      answer ("Cannot let the app's process go: %s", g_strerror (errno));
      kill (pid, SIGKILL);
      return 1;
    }
  close (release[1]);
  report = read_report (reports[0]);
  if (*report != '\0')
    {
      answer ("%s", report);
      return 1;
    }
  answer (RC_SCOPE_HELPER_OK);
  return 0;
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(GVariant) variant = NULL;
  g_autoptr(GError) error = NULL;
  ScopeRequest request;
  int null_fd;

  signal (SIGPIPE, SIG_IGN);
  if (argc == 2 && g_str_equal (argv[1], RC_SCOPE_HELPER_TEST_HOOKS_ARG))
    test_hooks = TRUE;
  else if (argc != 1)
    {
      g_printerr ("usage: %s < REQUEST (started by resource-controld; see "
                  "rc-scope-helper.h)\n", argv[0]);
      return 2;
    }
  /* stdout is the pipe to the daemon; the helper's own messages and the
   * held process's output, until it has its own stream, go to stderr */
  status_fd = fcntl (STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
  if (status_fd < 0 || dup2 (STDERR_FILENO, STDOUT_FILENO) < 0)
    {
      g_printerr ("Cannot set up the answer pipe: %s\n", g_strerror (errno));
      return 1;
    }
  variant = read_request (&error);
  if (variant == NULL)
    {
      answer ("The launch helper got no valid request: %s",
              error != NULL ? error->message : "unreadable");
      return 1;
    }
  null_fd = open ("/dev/null", O_RDONLY | O_CLOEXEC);
  if (null_fd < 0 || dup2 (null_fd, STDIN_FILENO) < 0)
    {
      answer ("Cannot open /dev/null: %s", g_strerror (errno));
      return 1;
    }
  close (null_fd);
  g_variant_get (variant, "(&s@a(sv)^a&s^a&s&s&s)", &request.unit, &request.properties,
                 &request.argv, &request.environment, &request.working_directory,
                 &request.app_id);
  if (request.argv[0] == NULL || !g_path_is_absolute (request.argv[0]))
    {
      answer ("The launch helper got no absolute program to run");
      g_variant_unref (request.properties);
      return 1;
    }
  {
    int status = launch (&request);

    g_variant_unref (request.properties);
    g_free ((gpointer) request.argv);
    g_free ((gpointer) request.environment);
    return status;
  }
}
