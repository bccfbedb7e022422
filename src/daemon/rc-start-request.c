/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "rc-start-request.h"
#include "rc-cgroup.h"
#include "rc-error.h"
#include "rc-launch-read.h"
#include "rc-proc-reader.h"

#include <unistd.h>

/* How long a started unit may take to show up in the registry before the
 * reply goes out anyway (it is active: systemd said so). */
#define LISTED_TIMEOUT_SEC 5

gpointer
rc_start_request_new (gsize                   size,
                      const char             *method,
                      RcStartRequestClear     clear,
                      const RcChangeServices *svc,
                      GDBusMethodInvocation  *invocation)
{
  RcStartRequest *request;

  g_assert (size >= sizeof (RcStartRequest));
  request = g_malloc0 (size);
  request->svc = svc;
  request->owner = g_object_ref (svc->owner);
  request->invocation = g_object_ref (invocation);
  request->method = method;
  request->clear = clear;
  return request;
}

static void
rc_start_request_free (RcStartRequest *request)
{
  g_clear_signal_handler (&request->added_id, request->svc->registry);
  g_clear_handle_id (&request->timeout_id, g_source_remove);
  request->clear (request);
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
  g_free (request);
}

void
rc_start_request_take_options (RcStartRequest  *request,
                               RcLaunchOptions *options)
{
  request->kind = options->kind;
  request->app_id = g_steal_pointer (&options->app_id);
  request->launcher = g_steal_pointer (&options->launcher);
  request->slice = g_steal_pointer (&options->slice);
  request->environment = g_steal_pointer (&options->environment);
  request->working_directory = g_steal_pointer (&options->working_directory);
  request->requested = options->requested;
}

void
rc_start_request_fail (RcStartRequest *request,
                       GError         *error)
{
  if (request->unit != NULL)
    rc_policy_forget_start (request->svc->policy, request->unit);
  g_debug ("%s refused: %s", request->method, error->message);
  g_dbus_method_invocation_return_gerror (request->invocation, error);
  g_error_free (error);
  rc_start_request_free (request);
}

void
rc_start_request_done (RcStartRequest *request)
{
  g_dbus_method_invocation_return_value (request->invocation,
                                         g_variant_new ("(s)", request->unit));
  rc_start_request_free (request);
}

gboolean
rc_start_request_take_read (RcStartRequest *request,
                            GAsyncResult   *result)
{
  g_autoptr(RcLaunchRead) read = NULL;
  GError *error = NULL;

  read = rc_launch_read_finish (result, &error);
  if (read == NULL)
    {
      rc_start_request_fail (request, error);
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

/* ---- polkit ------------------------------------------------------------- */

static void
authorized_cb (GObject      *source,
               GAsyncResult *result,
               gpointer      user_data)
{
  RcStartRequest *request = user_data;
  GError *error = NULL;
  guint32 caller = 0;

  if (!rc_authority_check_finish (RC_AUTHORITY (source), result, &caller, &error))
    {
      rc_start_request_fail (request, error);
      return;
    }
  request->authorized (request, caller);
}

void
rc_start_request_authorize (RcStartRequest          *request,
                            RcStartRequestAuthorized authorized)
{
  request->authorized = authorized;
  rc_authority_check_async (request->svc->authority, request->invocation,
                            request->svc->cancellable, authorized_cb, request);
}

/* ---- the limits the unit starts with ------------------------------------ */

/* Does the user's manager have io to give to its units? */
static gboolean
io_delegated (void)
{
  g_autofree char *own = rc_proc_cgroup ((guint32) getpid ());

  return rc_cgroup_is_delegated (own, "io");
}

gboolean
rc_start_request_prepare (RcStartRequest *request,
                          RcLimits       *out_limits)
{
  GError *error = NULL;
  RcLimits limits;

  if (!rc_policy_prepare_start (request->svc->policy, request->unit, request->app_id,
                                &request->requested, &limits))
    {
      g_autofree char *unit = g_steal_pointer (&request->unit);   /* not ours to forget */

      rc_start_request_fail (request, g_error_new (RC_ERROR, RC_ERROR_FAILED,
                                                   "%s is being started already", unit));
      return FALSE;
    }
  if (!rc_limits_check_oomd (&request->requested, &error))
    {
      rc_start_request_fail (request, error);
      return FALSE;
    }
  limits.set &= ~rc_limits_oom_without_oomd (&limits);   /* a rule's: they would do nothing */
  if (rc_limits_has (&limits, RC_LIMIT_IO_WEIGHT) && !io_delegated ())
    {
      /* A rule's IOWeight means nothing there; asked for, it is refused. */
      if (rc_limits_has (&request->requested, RC_LIMIT_IO_WEIGHT))
        {
          rc_start_request_fail (request,
                                 g_error_new_literal (RC_ERROR, RC_ERROR_NOT_SUPPORTED,
                                                      "IOWeight needs the io controller, "
                                                      "which this user's systemd does not "
                                                      "delegate"));
          return FALSE;
        }
      limits.set &= ~(1u << RC_LIMIT_IO_WEIGHT);
    }
  *out_limits = limits;
  return TRUE;
}

/* ---- the unit's properties ---------------------------------------------- */

void
rc_start_request_begin_properties (RcStartRequest  *request,
                                   GVariantBuilder *props,
                                   GVariant        *pids)
{
  g_variant_builder_add (props, "(sv)", "Description", g_variant_new_string (request->name));
  if (request->desktop_file != NULL)
    g_variant_builder_add (props, "(sv)", "SourcePath",
                           g_variant_new_string (request->desktop_file));
  g_variant_builder_add (props, "(sv)", "CollectMode",
                         g_variant_new_string ("inactive-or-failed"));
  g_variant_builder_add (props, "(sv)", "Slice", g_variant_new_string (request->slice));
  if (pids != NULL)
    g_variant_builder_add (props, "(sv)", "PIDs", pids);
}

GVariant *
rc_start_request_end_properties (GVariantBuilder *props,
                                 const RcLimits  *limits)
{
  rc_limits_add_unit_properties (limits, props);
  return g_variant_builder_end (props);
}

/* ---- the reply once listed ---------------------------------------------- */

static void
listed_cb (RcRegistry     *registry,
           RcApp          *app,
           RcStartRequest *request)
{
  if (g_str_equal (app->unit, request->unit))
    rc_start_request_done (request);
}

static gboolean
listed_timeout_cb (gpointer user_data)
{
  RcStartRequest *request = user_data;

  request->timeout_id = 0;
  g_message ("%s is active but not listed after %d s", request->unit, LISTED_TIMEOUT_SEC);
  rc_policy_forget_start (request->svc->policy, request->unit);
  rc_start_request_done (request);
  return G_SOURCE_REMOVE;
}

void
rc_start_request_reply_when_listed (RcStartRequest *request)
{
  if (rc_registry_lookup_unit (request->svc->registry, request->unit) != NULL)
    {
      rc_start_request_done (request);
      return;
    }
  request->added_id = g_signal_connect (request->svc->registry, "app-added",
                                        G_CALLBACK (listed_cb), request);
  request->timeout_id = g_timeout_add_seconds (LISTED_TIMEOUT_SEC, listed_timeout_cb, request);
}
