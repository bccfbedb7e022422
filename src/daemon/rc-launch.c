/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "rc-launch.h"
#include "rc-launch-helper.h"
#include "rc-launch-options.h"
#include "rc-cgroup.h"
#include "rc-keys.h"
#include "rc-error.h"
#include "rc-launch-read.h"
#include "rc-pinned-pid.h"
#include "rc-proc.h"
#include "rc-unit-name.h"

#include <stdlib.h>
#include <string.h>
#include <systemd/sd-login.h>
#include <unistd.h>

/* How long a started unit may take to show up in the registry before the
 * reply goes out anyway (it is active: systemd said so). */
#define LISTED_TIMEOUT_SEC 5
/* Rounds of moving the rest of an adopted tree, level by level. */
#define ADOPT_SWEEPS 16

/* One Launch or Adopt call, from arrival to reply. */
typedef struct {
  const RcChangeServices *svc;
  GObject                *owner;
  GDBusMethodInvocation  *invocation;
  gboolean                adopt;
  RcUnitKind              kind;
  char                   *app_id;
  char                   *launcher;
  char                   *slice;
  char                   *unit;
  char                   *name;         /* Description */
  char                   *desktop_file; /* SourcePath; NULL for none */
  char                  **argv;         /* Launch: what to run */
  char                  **environment;
  char                   *working_directory;
  RcLimits                requested;
  guint32                 caller_pid;   /* Launch: CallerPid, the process the scope takes in */
  RcPinnedPid            *caller;       /* it, pinned when the call came */
  GArray                 *roots;        /* Adopt: the pids named */
  GArray                 *root_starts;  /* Adopt: their start times (a pid reused is not them) */
  GPtrArray              *comms;        /* Adopt: their comm, for messages */
  guint                   checked;      /* Adopt: roots checked for being a service's MainPID */
  GPtrArray              *source_cgroups; /* Adopt: where they were */
  guint                   sweeps;
  gulong                  added_id;
  guint                   timeout_id;
} Request;

static void
request_free (Request *request)
{
  g_clear_signal_handler (&request->added_id, request->svc->registry);
  g_clear_handle_id (&request->timeout_id, g_source_remove);
  g_clear_object (&request->invocation);
  g_clear_object (&request->owner);
  g_free (request->app_id);
  g_free (request->launcher);
  g_free (request->slice);
  g_free (request->unit);
  g_free (request->name);
  g_free (request->desktop_file);
  g_strfreev (request->argv);
  g_strfreev (request->environment);
  g_free (request->working_directory);
  g_clear_pointer (&request->roots, g_array_unref);
  g_clear_pointer (&request->root_starts, g_array_unref);
  g_clear_pointer (&request->comms, g_ptr_array_unref);
  g_clear_pointer (&request->source_cgroups, g_ptr_array_unref);
  g_clear_pointer (&request->caller, rc_pinned_pid_free);
  g_free (request);
}

static Request *
request_new (const RcChangeServices *svc,
             GDBusMethodInvocation  *invocation,
             gboolean                adopt)
{
  Request *request = g_new0 (Request, 1);

  request->svc = svc;
  request->owner = g_object_ref (svc->owner);
  request->invocation = g_object_ref (invocation);
  request->adopt = adopt;
  return request;
}

/* The checked options, moved into @request. */
static void
take_options (Request         *request,
              RcLaunchOptions *options)
{
  request->kind = options->kind;
  request->app_id = g_steal_pointer (&options->app_id);
  request->launcher = g_steal_pointer (&options->launcher);
  request->slice = g_steal_pointer (&options->slice);
  request->environment = g_steal_pointer (&options->environment);
  request->working_directory = g_steal_pointer (&options->working_directory);
  request->requested = options->requested;
  request->caller_pid = options->caller_pid;
}

static void
request_fail (Request *request,
              GError  *error)
{
  if (request->unit != NULL)
    rc_policy_forget_start (request->svc->policy, request->unit);
  g_debug ("%s refused: %s", request->adopt ? "Adopt" : "Launch", error->message);
  g_dbus_method_invocation_return_gerror (request->invocation, error);
  g_error_free (error);
  request_free (request);
}

static void
request_done (Request *request)
{
  g_dbus_method_invocation_return_value (request->invocation,
                                         g_variant_new ("(s)", request->unit));
  request_free (request);
}

/* ---- options ------------------------------------------------------------ */

/* ---- after the start ---------------------------------------------------- */

/* CallerPid is still the process that called, and the user's. */
static gboolean
caller_still_ours (Request *request)
{
  return request->caller == NULL || rc_pinned_pid_is_ours (request->caller);
}

static void
listed_cb (RcRegistry *registry,
           RcApp      *app,
           Request    *request)
{
  if (g_str_equal (app->unit, request->unit))
    request_done (request);
}

static gboolean
listed_timeout_cb (gpointer user_data)
{
  Request *request = user_data;

  request->timeout_id = 0;
  g_message ("%s is active but not listed after %d s", request->unit, LISTED_TIMEOUT_SEC);
  rc_policy_forget_start (request->svc->policy, request->unit);
  request_done (request);
  return G_SOURCE_REMOVE;
}

/* The reply comes once the new unit is in ListApps, so that a caller can
 * go on with GetApp or SetLimits on it at once. */
static void
reply_when_listed (Request *request)
{
  if (rc_registry_lookup_unit (request->svc->registry, request->unit) != NULL)
    {
      request_done (request);
      return;
    }
  request->added_id = g_signal_connect (request->svc->registry, "app-added",
                                        G_CALLBACK (listed_cb), request);
  request->timeout_id = g_timeout_add_seconds (LISTED_TIMEOUT_SEC, listed_timeout_cb, request);
}

static void sweep (Request *request);

static void
swept_cb (GObject      *source,
          GAsyncResult *result,
          gpointer      user_data)
{
  Request *request = user_data;
  g_autoptr(GError) error = NULL;

  /* A process that ended between the scan and the move fails the whole
   * call: the next round scans again. */
  if (!rc_systemd_attach_processes_finish (RC_SYSTEMD (source), result, &error))
    g_debug ("%s: moving the rest of the tree: %s", request->unit, error->message);
  sweep (request);
}

static gboolean
in_array (GArray *pids,
          guint32 pid)
{
  for (guint i = 0; i < pids->len; i++)
    if (g_array_index (pids, guint32, i) == pid)
      return TRUE;
  return FALSE;
}

static gboolean
is_source_cgroup (Request    *request,
                  const char *cgroup)
{
  for (guint i = 0; i < request->source_cgroups->len; i++)
    if (g_str_equal (g_ptr_array_index (request->source_cgroups, i), cgroup))
      return TRUE;
  return FALSE;
}

/* The scope starts with the named processes; the processes below them
 * follow, a level each round: children still in a source cgroup whose
 * parent is in the scope now. That takes along what forked while the tree
 * moved, and never names a process that may be gone to systemd at start. */
static void
sweep (Request *request)
{
  g_autoptr(GPtrArray) all = rc_proc_list ();
  g_autoptr(GArray) left = g_array_new (FALSE, FALSE, sizeof (guint32));
  g_autofree char *suffix = g_strconcat ("/", request->unit, NULL);
  g_autoptr(GArray) inside = g_array_new (FALSE, FALSE, sizeof (guint32));

  for (guint i = 0; i < all->len; i++)
    {
      RcProc *proc = g_ptr_array_index (all, i);

      if (g_str_has_suffix (proc->cgroup, suffix))
        g_array_append_val (inside, proc->pid);
    }
  for (guint i = 0; i < all->len; i++)
    {
      RcProc *proc = g_ptr_array_index (all, i);

      if (in_array (inside, proc->ppid) && is_source_cgroup (request, proc->cgroup))
        g_array_append_val (left, proc->pid);
    }
  if (left->len == 0 || request->sweeps >= ADOPT_SWEEPS)
    {
      if (left->len > 0)
        g_message ("%s: %u processes below the adopted ones stayed where they were",
                   request->unit, left->len);
      reply_when_listed (request);
      return;
    }
  request->sweeps++;
  g_debug ("%s: moving %u processes below the adopted ones", request->unit, left->len);
  rc_systemd_attach_processes_async (request->svc->systemd, request->unit,
                                     g_variant_new_fixed_array (G_VARIANT_TYPE_UINT32,
                                                                left->data, left->len,
                                                                sizeof (guint32)),
                                     request->svc->cancellable, swept_cb, request);
}

/* Is process @pid the one that was checked, by its start time? */
static gboolean
same_process (const RcProc *proc,
              Request      *request,
              guint         i)
{
  return proc->start_time == g_array_index (request->root_starts, guint64, i);
}

/* systemd 252 takes scopes' processes by pid only (PIDFDs came later): if a
 * named process ended and its pid went to another process between the last
 * check and the move, that other process is in the scope now. It is said,
 * not hidden; the scope is left alone (stopping it would kill that process). */
static gboolean
check_roots_moved (Request *request,
                   GError **error)
{
  g_autofree char *suffix = g_strconcat ("/", request->unit, NULL);

  for (guint i = 0; i < request->roots->len; i++)
    {
      guint32 pid = g_array_index (request->roots, guint32, i);
      g_autoptr(RcProc) proc = rc_proc_read (pid);

      if (proc != NULL && !same_process (proc, request, i) &&
          g_str_has_suffix (proc->cgroup, suffix))
        {
          g_set_error (error, RC_ERROR, RC_ERROR_FAILED,
                       "Process %u ended while it was adopted, and systemd moved another "
                       "process that got its pid (%s) into %s: stop that scope if it is "
                       "not the app", pid, proc->comm, request->unit);
          return FALSE;
        }
    }
  return TRUE;
}

static void
started_cb (GObject      *source,
            GAsyncResult *result,
            gpointer      user_data)
{
  Request *request = user_data;
  g_autoptr(GError) error = NULL;

  if (!rc_systemd_start_transient_unit_finish (RC_SYSTEMD (source), result, &error))
    {
      request_fail (request, g_steal_pointer (&error));
      return;
    }
  if (request->adopt)
    {
      if (!check_roots_moved (request, &error))
        {
          request_fail (request, g_steal_pointer (&error));
          return;
        }
      sweep (request);
    }
  else if (request->caller_pid != 0)
    {
      /* The caller waits to become the app, which it does only after this
       * reply: the job's end is the moment its process is in the scope. The
       * listing follows. Had it ended meanwhile, systemd may have taken in
       * a process that got its pid. */
      if (!caller_still_ours (request))
        {
          g_message ("%s: the calling process ended while its scope was made", request->unit);
          request_fail (request, g_error_new (RC_ERROR, RC_ERROR_FAILED,
                                              "The calling process ended while systemd made "
                                              "its scope %s", request->unit));
          return;
        }
      request_done (request);
    }
  else
    reply_when_listed (request);
}

/* ---- starting ----------------------------------------------------------- */

static void
helper_done_cb (GObject      *source,
                GAsyncResult *result,
                gpointer      user_data)
{
  Request *request = user_data;
  GError *error = NULL;

  if (!rc_launch_helper_start_finish (result, &error))
    {
      request_fail (request, error);
      return;
    }
  reply_when_listed (request);
}

static GVariant *
unit_properties (Request        *request,
                 const RcLimits *limits,
                 GVariant       *pids)
{
  g_auto(GVariantBuilder) props = G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE ("a(sv)"));

  g_variant_builder_add (&props, "(sv)", "Description", g_variant_new_string (request->name));
  if (request->desktop_file != NULL)
    g_variant_builder_add (&props, "(sv)", "SourcePath",
                           g_variant_new_string (request->desktop_file));
  g_variant_builder_add (&props, "(sv)", "CollectMode",
                         g_variant_new_string ("inactive-or-failed"));
  g_variant_builder_add (&props, "(sv)", "Slice", g_variant_new_string (request->slice));
  if (pids != NULL)
    g_variant_builder_add (&props, "(sv)", "PIDs", pids);
  /* systemd moves processes into a running unit only if it is delegated
   * ("Process migration not available on non-delegated units"), and an
   * adopted tree follows its first processes into the scope that way. */
  if (request->adopt)
    g_variant_builder_add (&props, "(sv)", "Delegate", g_variant_new_boolean (TRUE));
  if (request->kind == RC_UNIT_KIND_SERVICE)
    {
      g_autoptr(GVariantBuilder) exec = g_variant_builder_new (G_VARIANT_TYPE ("a(sasas)"));
      const char *flags[] = { "no-env-expand", NULL };

      /* no-env-expand: systemd would replace $NAME and ${NAME} in the
       * arguments (a file named "a$HOME.txt"); they reach the app as given.
       * Specifiers (%h) are not expanded in properties set over D-Bus. */
      g_variant_builder_add (exec, "(s^as^as)", request->argv[0], request->argv, flags);
      /* Type=exec: a program that cannot be run fails the start job;
       * ExitType=cgroup: an app whose first process hands over to another
       * and exits keeps its unit. */
      g_variant_builder_add (&props, "(sv)", "Type", g_variant_new_string ("exec"));
      g_variant_builder_add (&props, "(sv)", "ExitType", g_variant_new_string ("cgroup"));
      g_variant_builder_add (&props, "(sv)", "ExecStartEx", g_variant_builder_end (exec));
      if (request->environment != NULL)
        g_variant_builder_add (&props, "(sv)", "Environment",
                               g_variant_new_strv ((const char * const *) request->environment,
                                                   -1));
      if (request->working_directory != NULL)
        g_variant_builder_add (&props, "(sv)", "WorkingDirectory",
                               g_variant_new_string (request->working_directory));
    }
  rc_limits_add_unit_properties (limits, &props);
  return g_variant_builder_end (&props);
}

/* Does the user's manager have io to give to its units? */
static gboolean
io_delegated (void)
{
  g_autofree char *own = rc_proc_cgroup ((guint32) getpid ());

  return rc_cgroup_is_delegated (own, "io");
}

static void
start (Request *request)
{
  const RcChangeServices *svc = request->svc;
  GVariant *pids = NULL;
  GError *error = NULL;
  RcLimits limits;

  if (!rc_policy_prepare_start (svc->policy, request->unit, request->app_id, &request->requested,
                                &limits))
    {
      g_autofree char *unit = g_steal_pointer (&request->unit);   /* not ours to forget */

      request_fail (request, g_error_new (RC_ERROR, RC_ERROR_FAILED,
                                          "%s is being started already", unit));
      return;
    }
  if (!rc_limits_check_oomd (&request->requested, &error))
    {
      request_fail (request, error);
      return;
    }
  limits.set &= ~rc_limits_oom_without_oomd (&limits);   /* a rule's: they would do nothing */
  if (rc_limits_has (&limits, RC_LIMIT_IO_WEIGHT) && !io_delegated ())
    {
      /* A rule's IOWeight means nothing there; asked for, it is refused. */
      if (rc_limits_has (&request->requested, RC_LIMIT_IO_WEIGHT))
        {
          request_fail (request, g_error_new_literal (RC_ERROR, RC_ERROR_NOT_SUPPORTED,
                                                      "IOWeight needs the io controller, "
                                                      "which this user's systemd does not "
                                                      "delegate"));
          return;
        }
      limits.set &= ~(1u << RC_LIMIT_IO_WEIGHT);
    }
  if (request->adopt)
    pids = g_variant_new_fixed_array (G_VARIANT_TYPE_UINT32, request->roots->data,
                                      request->roots->len, sizeof (guint32));
  else if (request->caller_pid != 0)
    {
      /* systemd takes the pid: right before, the pin says it is still the caller's */
      if (!caller_still_ours (request))
        {
          request_fail (request, g_error_new_literal (RC_ERROR, RC_ERROR_INVALID_ARGUMENT,
                                                      "The calling process ended before its "
                                                      "scope was made: nothing was started"));
          return;
        }
      pids = g_variant_new_fixed_array (G_VARIANT_TYPE_UINT32, &request->caller_pid, 1,
                                        sizeof (guint32));
    }
  else if (request->kind == RC_UNIT_KIND_SCOPE)
    {
      /* Never forked here: the app would keep the daemon's sandbox. */
      g_debug ("Starting %s for %s through the launch helper", request->unit, request->app_id);
      rc_launch_helper_start_async (svc->systemd, request->unit,
                                    unit_properties (request, &limits, NULL),
                                    (const char * const *) request->argv,
                                    (const char * const *) request->environment,
                                    request->working_directory, request->app_id,
                                    svc->cancellable, helper_done_cb, request);
      return;
    }
  g_debug ("Starting %s for %s", request->unit, request->app_id);
  rc_systemd_start_transient_unit_async (svc->systemd, request->unit,
                                         unit_properties (request, &limits, pids), NULL,
                                         svc->cancellable, started_cb, request);
}

/* ---- Launch -------------------------------------------------------------- */

static void
launch_authorized_cb (GObject      *source,
                      GAsyncResult *result,
                      gpointer      user_data)
{
  Request *request = user_data;
  g_autofree char *instance = NULL;
  GError *error = NULL;
  guint32 caller = 0;

  if (!rc_authority_check_finish (RC_AUTHORITY (source), result, &caller, &error))
    {
      request_fail (request, error);
      return;
    }
  /* The bus vouches for the caller's pid; a process behind a proxy, or one
   * naming another, cannot put that process into a scope. */
  if (request->caller_pid != 0 && request->caller_pid != caller)
    {
      request_fail (request, g_error_new_literal (RC_ERROR, RC_ERROR_INVALID_ARGUMENT,
                                                  "Option CallerPid is not the calling "
                                                  "process: only the calling process itself "
                                                  "can be taken into the scope"));
      return;
    }
  instance = g_strdup_printf ("%08x%08x", g_random_int (), g_random_int ());
  request->unit = rc_unit_name_build (request->kind, request->launcher, request->app_id,
                                      instance);
  start (request);
}

/* ---- reading files an app chose ---------------------------------------- */

static void
read_desktop_file_async (Request            *request,
                         const char * const *uris,
                         GAsyncReadyCallback callback)
{
  if (request->adopt)
    rc_adopt_read_async (request->app_id, request->roots, request->comms,
                         request->svc->cancellable, callback, request);
  else
    rc_launch_read_async (request->app_id, uris, request->svc->cancellable, callback, request);
}

/* The read's result moved into @request; FALSE: @request failed and is gone. */
static gboolean
take_read (Request      *request,
           GAsyncResult *result)
{
  g_autoptr(RcLaunchRead) read = NULL;
  GError *error = NULL;

  read = rc_launch_read_finish (result, &error);
  if (read == NULL)
    {
      request_fail (request, error);
      return FALSE;
    }
  if (read->app_id != NULL)
    {
      g_free (request->app_id);
      request->app_id = g_steal_pointer (&read->app_id);
    }
  request->name = g_steal_pointer (&read->name);
  request->desktop_file = g_steal_pointer (&read->desktop_file);
  request->argv = g_steal_pointer (&read->argv);
  return TRUE;
}

static void
launch_read_cb (GObject      *source,
                GAsyncResult *result,
                gpointer      user_data)
{
  Request *request = user_data;

  if (take_read (request, result))
    rc_authority_check_async (request->svc->authority, request->invocation,
                              request->svc->cancellable, launch_authorized_cb, request);
}

void
rc_launch_submit (const RcChangeServices *svc,
                  GDBusMethodInvocation  *invocation,
                  const char             *app_id,
                  const char * const     *uris,
                  GVariant               *options)
{
  Request *request = request_new (svc, invocation, FALSE);
  g_auto(RcLaunchOptions) parsed = { 0, };
  GError *error = NULL;

  rc_launch_options_init (&parsed, FALSE);
  if (!rc_launch_check_args (app_id, uris, options, &parsed, &error))
    {
      request_fail (request, error);
      return;
    }
  take_options (request, &parsed);
  /* Pinned now: a pid the caller's process leaves could be another's by
   * the time systemd is asked. */
  if (request->caller_pid != 0 &&
      (request->caller = rc_pinned_pid_new (request->caller_pid, &error)) == NULL)
    {
      g_clear_error (&error);
      request_fail (request, g_error_new_literal (RC_ERROR, RC_ERROR_INVALID_ARGUMENT,
                                                  "Option CallerPid: there is no such "
                                                  "process"));
      return;
    }
  request->app_id = g_strdup (app_id);
  read_desktop_file_async (request, uris, launch_read_cb);
}

/* ---- Adopt --------------------------------------------------------------- */

static gboolean
is_session_unit (const char *unit)
{
  g_autofree char *own = NULL;

  if (g_str_equal (unit, "init.scope") || g_str_equal (unit, "dbus.service") ||
      g_str_equal (unit, "dbus-broker.service"))
    return TRUE;
  return sd_pid_get_user_unit (getpid (), &own) >= 0 && g_str_equal (unit, own);
}

/* May @proc be moved into a new scope? */
static gboolean
check_adoptable (const RcProc *proc,
                 GError      **error)
{
  g_autofree char *unit = NULL;
  g_autoptr(RcUnitName) parsed = NULL;

  if (proc->pid == 1 || proc->kernel_thread)
    {
      g_set_error (error, RC_ERROR, RC_ERROR_PROTECTED,
                   "Process %u (%s) is %s: only processes of apps can be adopted", proc->pid,
                   proc->comm, proc->pid == 1 ? "the init system" : "a kernel thread");
      return FALSE;
    }
  if (proc->uid != getuid ())
    {
      g_set_error (error, RC_ERROR, RC_ERROR_PROTECTED,
                   "Process %u (%s) belongs to user %u: only your own processes (user %u) "
                   "can be adopted", proc->pid, proc->comm, proc->uid, getuid ());
      return FALSE;
    }
  if (proc->pid == (guint32) getpid ())
    {
      g_set_error (error, RC_ERROR, RC_ERROR_PROTECTED,
                   "Process %u is resource-controld itself", proc->pid);
      return FALSE;
    }
  if (sd_pid_get_user_unit (proc->pid, &unit) < 0)
    return TRUE;   /* outside the user's manager: a login session, for one */
  parsed = rc_unit_name_parse (unit);
  if (parsed != NULL)
    {
      g_set_error (error, RC_ERROR, RC_ERROR_PROTECTED,
                   "Process %u (%s) is in app unit %s already", proc->pid, proc->comm, unit);
      return FALSE;
    }
  /* The desktop's own services (compositor, audio, portals, the polkit
   * agent) run there: adopted, any caller could freeze them. */
  if (strstr (proc->cgroup, "/session.slice/") != NULL)
    {
      g_set_error (error, RC_ERROR, RC_ERROR_PROTECTED,
                   "Process %u (%s) runs in %s in session.slice, where the desktop's own "
                   "services run: it cannot be adopted (only processes outside session.slice "
                   "and outside app units can)", proc->pid, proc->comm, unit);
      return FALSE;
    }
  if (is_session_unit (unit))
    {
      g_set_error (error, RC_ERROR, RC_ERROR_PROTECTED,
                   "Process %u (%s) runs in %s, which the session needs: it cannot be "
                   "adopted", proc->pid, proc->comm, unit);
      return FALSE;
    }
  return TRUE;
}

/* Where the named processes are now: their children are looked for there. */
static gboolean
note_source_cgroups (Request *request,
                     GError **error)
{
  request->source_cgroups = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; i < request->roots->len; i++)
    {
      guint32 root = g_array_index (request->roots, guint32, i);
      g_autoptr(RcProc) proc = rc_proc_read (root);

      if (proc == NULL)
        {
          g_set_error (error, RC_ERROR, RC_ERROR_INVALID_ARGUMENT,
                       "Process %u ended before it could be adopted", root);
          return FALSE;
        }
      g_ptr_array_add (request->source_cgroups, g_strdup (proc->cgroup));
    }
  return TRUE;
}

/* A password dialog may have taken long enough for a pid to be reused. */
static gboolean
check_roots_again (Request *request,
                   GError **error)
{
  for (guint i = 0; i < request->roots->len; i++)
    {
      guint32 pid = g_array_index (request->roots, guint32, i);
      g_autoptr(RcProc) proc = rc_proc_read (pid);

      if (proc == NULL || !same_process (proc, request, i))
        {
          g_set_error (error, RC_ERROR, RC_ERROR_INVALID_ARGUMENT,
                       "Process %u ended before it could be adopted%s: nothing was moved", pid,
                       proc != NULL ? " (another process has its pid now)" : "");
          return FALSE;
        }
      if (!check_adoptable (proc, error))
        return FALSE;
    }
  return TRUE;
}

static void
adopt_authorized_cb (GObject      *source,
                     GAsyncResult *result,
                     gpointer      user_data)
{
  Request *request = user_data;
  g_autofree char *instance = NULL;
  GError *error = NULL;

  if (!rc_authority_check_finish (RC_AUTHORITY (source), result, NULL, &error) ||
      !check_roots_again (request, &error) || !note_source_cgroups (request, &error))
    {
      request_fail (request, error);
      return;
    }
  instance = g_strdup_printf ("%u", g_array_index (request->roots, guint32, 0));
  request->unit = rc_unit_name_build (RC_UNIT_KIND_SCOPE, request->launcher, request->app_id,
                                      instance);
  g_debug ("Adopting %u processes and those below them into %s", request->roots->len,
           request->unit);
  start (request);
}

static void check_main_pids (Request *request);

static void
main_pid_cb (GObject      *source,
             GAsyncResult *result,
             gpointer      user_data)
{
  Request *request = user_data;
  guint32 pid = g_array_index (request->roots, guint32, request->checked);
  g_autoptr(GVariant) props = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *unit = NULL;
  guint32 main_pid = 0;

  props = rc_systemd_get_unit_properties_finish (RC_SYSTEMD (source), result, &error);
  if (sd_pid_get_user_unit (pid, &unit) < 0)
    unit = g_strdup ("its service");
  if (props == NULL)
    {
      request_fail (request, g_error_new (RC_ERROR, RC_ERROR_FAILED,
                                          "Cannot tell whether process %u is the main process "
                                          "of %s: %s", pid, unit, error->message));
      return;
    }
  if (g_variant_lookup (props, "MainPID", "u", &main_pid) && main_pid == pid)
    {
      request_fail (request, g_error_new (RC_ERROR, RC_ERROR_PROTECTED,
                                          "Process %u is the main process of %s: a service's "
                                          "own process cannot be adopted (only processes it "
                                          "started can)", pid, unit));
      return;
    }
  request->checked++;
  check_main_pids (request);
}

/* A service's main process (the MainPID systemd starts and watches) is the
 * service itself, whatever its slice: refused. Asked of systemd, root by
 * root, before the caller is authorized. */
static void
check_main_pids (Request *request)
{
  static const char * const keys[] = { "MainPID", NULL };

  for (; request->checked < request->roots->len; request->checked++)
    {
      guint32 pid = g_array_index (request->roots, guint32, request->checked);
      g_autofree char *unit = NULL;
      g_autofree char *path = NULL;

      if (sd_pid_get_user_unit (pid, &unit) < 0 || !g_str_has_suffix (unit, ".service") ||
          (path = rc_systemd_unit_path (unit)) == NULL)
        continue;
      rc_systemd_get_unit_properties_async (request->svc->systemd, path,
                                            "org.freedesktop.systemd1.Service", keys, NULL,
                                            request->svc->cancellable, main_pid_cb, request);
      return;
    }
  rc_authority_check_async (request->svc->authority, request->invocation,
                            request->svc->cancellable, adopt_authorized_cb, request);
}

static void
adopt_read_cb (GObject      *source,
               GAsyncResult *result,
               gpointer      user_data)
{
  Request *request = user_data;

  if (take_read (request, result))
    check_main_pids (request);
}

void
rc_adopt_submit (const RcChangeServices *svc,
                 GDBusMethodInvocation  *invocation,
                 GVariant               *pids,
                 GVariant               *options)
{
  Request *request = request_new (svc, invocation, TRUE);
  g_auto(RcLaunchOptions) parsed = { 0, };
  const guint32 *values;
  GError *error = NULL;
  gsize n;

  rc_launch_options_init (&parsed, TRUE);
  if (!rc_adopt_check_args (pids, options, &parsed, &error))
    {
      request_fail (request, error);
      return;
    }
  take_options (request, &parsed);
  /* Each distinct pid once: repeats are gone before anything is read. */
  values = (const guint32 *) parsed.pids->data;
  n = parsed.pids->len;
  request->roots = g_array_new (FALSE, FALSE, sizeof (guint32));
  request->root_starts = g_array_new (FALSE, FALSE, sizeof (guint64));
  request->comms = g_ptr_array_new_with_free_func (g_free);
  for (gsize i = 0; i < n; i++)
    {
      g_autoptr(RcProc) proc = values[i] != 0 ? rc_proc_read (values[i]) : NULL;

      if (proc == NULL)
        {
          request_fail (request, g_error_new (RC_ERROR, RC_ERROR_INVALID_ARGUMENT,
                                              "There is no process %u", values[i]));
          return;
        }
      if (!check_adoptable (proc, &error))
        {
          request_fail (request, error);
          return;
        }
      g_array_append_val (request->roots, values[i]);
      g_array_append_val (request->root_starts, proc->start_time);
      g_ptr_array_add (request->comms, g_strdup (proc->comm));
    }
  read_desktop_file_async (request, NULL, adopt_read_cb);
}
