/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "rc-change.h"
#include "rc-cgroup.h"
#include "rc-error.h"
#include "rc-proc-reader.h"

#include <unistd.h>

/* One write request, from arrival to reply: resolved, authorized, then it
 * waits for its turn in the request queue (rc-request-queue.h), the one
 * every writer of unit properties goes through. */
typedef struct {
  const RcChangeServices *svc;
  GObject                *owner;
  GDBusMethodInvocation  *invocation;
  RcChangeKind            kind;
  char                   *app;
  RcLimits                limits;
  RcLimits                sent;      /* what systemd was asked for the current app */
  GPtrArray              *apps;      /* RcApp, resolved targets; NULL until resolved */
  GPtrArray              *changed;   /* unit names already changed */
  guint                   next;      /* index of the app being changed */
  guint64                 default_tasks_max;
  RcQueued               *queued;
} ChangeRequest;

static void apply_next (ChangeRequest *request);

static void
request_free (ChangeRequest *request)
{
  g_clear_pointer (&request->apps, g_ptr_array_unref);
  g_clear_pointer (&request->changed, g_ptr_array_unref);
  g_clear_object (&request->invocation);
  g_clear_object (&request->owner);
  g_free (request->app);
  g_free (request);
}

static void
request_finish (ChangeRequest *request,
                GError        *error)
{
  g_autoptr(RcRequestQueue) queue = g_object_ref (request->svc->queue);
  RcQueued *queued = request->queued;

  if (error != NULL)
    g_dbus_method_invocation_return_gerror (request->invocation, error);
  else
    g_dbus_method_invocation_return_value (request->invocation, NULL);
  request_free (request);
  rc_request_queue_done (queue, queued);
}

/* The error for a failure part-way through an AppID's instances names
 * what was changed already: there is no rollback. */
static void
request_fail_on_app (ChangeRequest *request,
                     GError        *error)
{
  g_autoptr(GError) full = NULL;
  g_autofree char *changed = NULL;
  RcApp *app = g_ptr_array_index (request->apps, request->next);

  if (request->changed->len == 0)
    {
      request_finish (request, error);
      return;
    }
  g_ptr_array_add (request->changed, NULL);
  changed = g_strjoinv (", ", (char **) request->changed->pdata);
  full = g_error_new (error->domain, error->code, "Changed %s; failed on %s: %s",
                      changed, app->unit, error->message);
  request_finish (request, full);
}

static gboolean
check_still_running (ChangeRequest *request,
                     GError       **error)
{
  for (guint i = 0; i < request->apps->len; i++)
    {
      RcApp *app = g_ptr_array_index (request->apps, i);

      if (rc_registry_lookup_unit (request->svc->registry, app->unit) != app)
        {
          g_set_error (error, RC_ERROR, RC_ERROR_NO_SUCH_APP,
                       "App unit %s stopped before it could be changed", app->unit);
          return FALSE;
        }
    }
  return TRUE;
}

static void
request_limits_for_app (ChangeRequest *request,
                        RcApp         *app,
                        RcLimits      *out_limits)
{
  *out_limits = request->limits;
  /* Resetting must not fail where io is not delegated: there is nothing
   * to reset. */
  if (request->kind == RC_CHANGE_RESET && !rc_cgroup_is_delegated (app->control_group, "io"))
    out_limits->set &= ~(1u << RC_LIMIT_IO_WEIGHT);
}

/* Its turn in the queue has come. */
static void
request_start (RcQueued *queued,
               gpointer  user_data)
{
  ChangeRequest *request = user_data;
  GError *error = NULL;

  /* the manager went away while the request waited */
  if (g_cancellable_set_error_if_cancelled (request->svc->cancellable, &error))
    {
      request_finish (request, error);
      g_error_free (error);
      return;
    }
  if (!check_still_running (request, &error))
    {
      request_finish (request, error);
      g_error_free (error);
      return;
    }

  /* Every instance is validated before anything changes. */
  if (request->kind == RC_CHANGE_LIMITS || request->kind == RC_CHANGE_RESET)
    for (guint i = 0; i < request->apps->len; i++)
      {
        RcApp *app = g_ptr_array_index (request->apps, i);
        RcLimits limits;

        request_limits_for_app (request, app, &limits);
        if (!rc_limits_check_app (&limits, app->unit, app->control_group, &error))
          {
            request_finish (request, error);
            g_error_free (error);
            return;
          }
      }
  apply_next (request);
}

static void
apply_cb (GObject      *source,
          GAsyncResult *result,
          gpointer      user_data)
{
  ChangeRequest *request = user_data;
  const RcChangeServices *svc = request->svc;
  RcApp *app = g_ptr_array_index (request->apps, request->next);
  g_autoptr(GError) error = NULL;
  gboolean ok;

  if (request->kind == RC_CHANGE_FREEZE || request->kind == RC_CHANGE_THAW)
    ok = rc_systemd_freeze_unit_finish (RC_SYSTEMD (source), result, &error);
  else
    ok = rc_systemd_set_unit_properties_finish (RC_SYSTEMD (source), result, &error);

  if (!ok)
    {
      request_fail_on_app (request, error);
      return;
    }

  /* The registry has the new freezer state already (RcSystemd's
   * "freezer-reached"). */
  if (request->kind == RC_CHANGE_FREEZE || request->kind == RC_CHANGE_THAW)
    rc_policy_note_freezer (svc->policy, app);
  else
    rc_dbus_resource_control_emit_app_changed (RC_DBUS_RESOURCE_CONTROL (svc->owner), app->unit,
                                               rc_limits_to_app_changes (&request->sent));
  g_ptr_array_add (request->changed, g_strdup (app->unit));
  request->next++;
  apply_next (request);
}

static void
apply_next (ChangeRequest *request)
{
  const RcChangeServices *svc = request->svc;
  RcApp *app;

  if (request->next >= request->apps->len)
    {
      request_finish (request, NULL);
      return;
    }
  app = g_ptr_array_index (request->apps, request->next);
  g_debug ("%s: %s", g_dbus_method_invocation_get_method_name (request->invocation), app->unit);
  switch (request->kind)
    {
    case RC_CHANGE_FREEZE:
    case RC_CHANGE_THAW:
      rc_systemd_freeze_unit_async (svc->systemd, app->unit, request->kind == RC_CHANGE_FREEZE,
                                    svc->cancellable, apply_cb, request);
      break;
    case RC_CHANGE_LIMITS:
    case RC_CHANGE_RESET:
      request_limits_for_app (request, app, &request->sent);
      /* A boosted limit keeps the boost's value until the app loses it. */
      rc_policy_take_request (svc->policy, app, &request->sent);
      rc_systemd_set_unit_properties_async (svc->systemd, app->unit,
                                            rc_limits_to_unit_properties (&request->sent),
                                            svc->cancellable, apply_cb, request);
      break;
    default:
      g_assert_not_reached ();
    }
}

/* Freezing your own shell or polkit agent, or the daemon itself, would
 * lock you out. */
static gboolean
check_not_own_unit (ChangeRequest *request,
                    guint32        caller_pid,
                    GError       **error)
{
  const guint32 pids[] = { caller_pid, (guint32) getpid () };

  for (guint p = 0; p < G_N_ELEMENTS (pids); p++)
    {
      g_autofree char *cgroup = rc_proc_cgroup (pids[p]);

      for (guint i = 0; cgroup != NULL && i < request->apps->len; i++)
        {
          RcApp *app = g_ptr_array_index (request->apps, i);

          if (rc_cgroup_path_contains (app->control_group, cgroup))
            {
              g_set_error (error, RC_ERROR, RC_ERROR_PROTECTED,
                           "%s contains %s: an app cannot be controlled through it by a "
                           "process inside it", app->unit,
                           p == 0 ? "the calling process" : "resource-controld itself");
              return FALSE;
            }
        }
    }
  return TRUE;
}

static void
default_tasks_max_cb (GObject      *source,
                      GAsyncResult *result,
                      gpointer      user_data)
{
  ChangeRequest *request = user_data;
  g_autoptr(GError) error = NULL;
  guint64 tasks_max;

  if (!rc_systemd_get_default_tasks_max_finish (RC_SYSTEMD (source), result, &tasks_max, &error))
    {
      request_finish (request, error);
      return;
    }
  rc_limits_init_reset (&request->limits, tasks_max);
  rc_request_queue_ready (request->svc->queue, request->queued);
}

static void
authorized_cb (GObject      *source,
               GAsyncResult *result,
               gpointer      user_data)
{
  ChangeRequest *request = user_data;
  g_autoptr(GError) error = NULL;
  guint32 caller_pid = 0;

  if (!rc_authority_check_finish (RC_AUTHORITY (source), result, &caller_pid, &error) ||
      !check_not_own_unit (request, caller_pid, &error))
    {
      request_finish (request, error);
      return;
    }
  if (request->kind == RC_CHANGE_RESET)
    {
      /* TasksMax goes back to the manager's default, whatever it is now. */
      rc_systemd_get_default_tasks_max_async (request->svc->systemd,
                                              request->svc->cancellable,
                                              default_tasks_max_cb, request);
      return;
    }
  rc_request_queue_ready (request->svc->queue, request->queued);
}

static void
resolved_cb (GObject      *source,
             GAsyncResult *result,
             gpointer      user_data)
{
  ChangeRequest *request = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) units = NULL;

  request->apps = rc_registry_resolve_finish (RC_REGISTRY (source), result, &error);
  if (request->apps == NULL)
    {
      request_finish (request, error);
      return;
    }
  units = g_ptr_array_sized_new (request->apps->len);
  for (guint i = 0; i < request->apps->len; i++)
    g_ptr_array_add (units, ((RcApp *) g_ptr_array_index (request->apps, i))->unit);
  rc_request_queue_set_units (request->svc->queue, request->queued,
                              (const char * const *) units->pdata, units->len);
  rc_authority_check_async (request->svc->authority, request->invocation,
                            request->svc->cancellable, authorized_cb, request);
}

/* Takes the request once its arguments passed the syntax checks: resolve
 * the app (NoSuchApp, Protected), authorize, then wait for its turn. */
void
rc_change_submit (const RcChangeServices *svc,
                  GDBusMethodInvocation  *invocation,
                  RcChangeKind            kind,
                  const char             *app,
                  const RcLimits         *limits)
{
  ChangeRequest *request = g_new0 (ChangeRequest, 1);
  const char *sender;

  request->svc = svc;
  request->owner = g_object_ref (svc->owner);
  request->invocation = g_object_ref (invocation);
  request->kind = kind;
  request->app = g_strdup (app);
  request->changed = g_ptr_array_new_with_free_func (g_free);
  if (limits != NULL)
    request->limits = *limits;
  sender = g_dbus_method_invocation_get_sender (invocation);
  request->queued = rc_request_queue_push (svc->queue, sender != NULL ? sender : "",
                                           request_start, request);

  rc_registry_resolve_async (svc->registry, app, TRUE, svc->cancellable, resolved_cb, request);
}
