/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "rc-launch.h"
#include "rc-error.h"
#include "rc-launch-helper.h"
#include "rc-launch-read.h"
#include "rc-pinned-pid.h"
#include "rc-start-request.h"
#include "rc-unit-name.h"

/* One Launch call, from arrival to reply. */
typedef struct {
  RcStartRequest base;
  guint32        caller_pid;   /* CallerPid, the process the scope takes in; 0 for none */
  RcPinnedPid   *caller;       /* it, pinned when the call came */
} RcLaunchRequest;

static void
launch_request_clear (RcStartRequest *base)
{
  RcLaunchRequest *request = (RcLaunchRequest *) base;

  g_clear_pointer (&request->caller, rc_pinned_pid_free);
}

/* CallerPid is still the process that called, and the user's. */
static gboolean
caller_still_ours (RcLaunchRequest *request)
{
  return request->caller == NULL || rc_pinned_pid_is_ours (request->caller);
}

/* ---- after the start ---------------------------------------------------- */

static void
started_cb (GObject      *source,
            GAsyncResult *result,
            gpointer      user_data)
{
  RcLaunchRequest *request = user_data;
  g_autoptr(GError) error = NULL;

  if (!rc_systemd_start_transient_unit_finish (RC_SYSTEMD (source), result, &error))
    {
      rc_start_request_fail (&request->base, g_steal_pointer (&error));
      return;
    }
  if (request->caller_pid == 0)
    {
      rc_start_request_reply_when_listed (&request->base);
      return;
    }
  /* The caller waits to become the app, which it does only after this
   * reply: the job's end is the moment its process is in the scope. The
   * listing follows. Had it ended meanwhile, systemd may have taken in a
   * process that got its pid. */
  if (!caller_still_ours (request))
    {
      g_message ("%s: the calling process ended while its scope was made", request->base.unit);
      rc_start_request_fail (&request->base,
                             g_error_new (RC_ERROR, RC_ERROR_FAILED,
                                          "The calling process ended while systemd made "
                                          "its scope %s", request->base.unit));
      return;
    }
  rc_start_request_done (&request->base);
}

static void
helper_done_cb (GObject      *source,
                GAsyncResult *result,
                gpointer      user_data)
{
  RcStartRequest *request = user_data;
  GError *error = NULL;

  if (!rc_launch_helper_start_finish (result, &error))
    {
      rc_start_request_fail (request, error);
      return;
    }
  rc_start_request_reply_when_listed (request);
}

/* ---- starting ----------------------------------------------------------- */

static GVariant *
unit_properties (RcStartRequest *request,
                 const RcLimits *limits,
                 GVariant       *pids)
{
  g_auto(GVariantBuilder) props = G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE ("a(sv)"));

  rc_start_request_begin_properties (request, &props, pids);
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
  return rc_start_request_end_properties (&props, limits);
}

static void
start (RcLaunchRequest *request)
{
  RcStartRequest *base = &request->base;
  const RcChangeServices *svc = base->svc;
  GVariant *pids = NULL;
  RcLimits limits;

  if (!rc_start_request_prepare (base, &limits))
    return;
  if (request->caller_pid != 0)
    {
      /* systemd takes the pid: right before, the pin says it is still the caller's */
      if (!caller_still_ours (request))
        {
          rc_start_request_fail (base,
                                 g_error_new_literal (RC_ERROR, RC_ERROR_INVALID_ARGUMENT,
                                                      "The calling process ended before its "
                                                      "scope was made: nothing was started"));
          return;
        }
      pids = g_variant_new_fixed_array (G_VARIANT_TYPE_UINT32, &request->caller_pid, 1,
                                        sizeof (guint32));
    }
  else if (base->kind == RC_UNIT_KIND_SCOPE)
    {
      /* Never forked here: the app would keep the daemon's sandbox. */
      g_debug ("Starting %s for %s through the launch helper", base->unit, base->app_id);
      rc_launch_helper_start_async (svc->systemd, base->unit,
                                    unit_properties (base, &limits, NULL),
                                    (const char * const *) base->argv,
                                    (const char * const *) base->environment,
                                    base->working_directory, base->app_id,
                                    svc->cancellable, helper_done_cb, base);
      return;
    }
  g_debug ("Starting %s for %s", base->unit, base->app_id);
  rc_systemd_start_transient_unit_async (svc->systemd, base->unit,
                                         unit_properties (base, &limits, pids), NULL,
                                         svc->cancellable, started_cb, request);
}

/* ---- before the start --------------------------------------------------- */

static void
launch_authorized (RcStartRequest *base,
                   guint32         caller)
{
  RcLaunchRequest *request = (RcLaunchRequest *) base;
  g_autofree char *instance = NULL;

  /* The bus vouches for the caller's pid; a process behind a proxy, or one
   * naming another, cannot put that process into a scope. */
  if (request->caller_pid != 0 && request->caller_pid != caller)
    {
      rc_start_request_fail (base, g_error_new_literal (RC_ERROR, RC_ERROR_INVALID_ARGUMENT,
                                                        "Option CallerPid is not the calling "
                                                        "process: only the calling process "
                                                        "itself can be taken into the scope"));
      return;
    }
  instance = g_strdup_printf ("%08x%08x", g_random_int (), g_random_int ());
  base->unit = rc_unit_name_build (base->kind, base->launcher, base->app_id, instance);
  start (request);
}

static void
launch_read_cb (GObject      *source,
                GAsyncResult *result,
                gpointer      user_data)
{
  RcStartRequest *request = user_data;

  if (rc_start_request_take_read (request, result))
    rc_start_request_authorize (request, launch_authorized);
}

void
rc_launch_submit (const RcChangeServices *svc,
                  GDBusMethodInvocation  *invocation,
                  const char             *app_id,
                  const char * const     *uris,
                  GVariant               *options)
{
  RcLaunchRequest *request = rc_start_request_new (sizeof (RcLaunchRequest), "Launch",
                                                   launch_request_clear, svc, invocation);
  RcStartRequest *base = &request->base;
  g_auto(RcLaunchOptions) parsed = { 0, };
  GError *error = NULL;

  rc_launch_options_init (&parsed, RC_START_LAUNCH);
  if (!rc_launch_check_args (app_id, uris, options, &parsed, &error))
    {
      rc_start_request_fail (base, error);
      return;
    }
  rc_start_request_take_options (base, &parsed);
  request->caller_pid = parsed.caller_pid;
  /* Pinned now: a pid the caller's process leaves could be another's by
   * the time systemd is asked. */
  if (request->caller_pid != 0 &&
      (request->caller = rc_pinned_pid_new (request->caller_pid, &error)) == NULL)
    {
      g_clear_error (&error);
      rc_start_request_fail (base, g_error_new_literal (RC_ERROR, RC_ERROR_INVALID_ARGUMENT,
                                                        "Option CallerPid: there is no such "
                                                        "process"));
      return;
    }
  g_free (base->app_id);
  base->app_id = g_strdup (app_id);
  rc_launch_read_async (base->app_id, uris, base->working_directory, svc->cancellable,
                        launch_read_cb, base);
}
