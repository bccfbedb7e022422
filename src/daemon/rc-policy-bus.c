/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The policy's part of the D-Bus API: GetLimitSources, Pause, Resume and
 * the Paused and PausedUntil properties. It only translates: the model is
 * in rc-policy-sources.c and rc-policy-pause.c. */
#include "rc-policy-private.h"
#include "rc-error.h"
#include "rc-proc-reader.h"
#include "rc-unit-name.h"

/* What a served object needs; it lives as long as the object. */
typedef struct {
  RcPolicy    *policy;
  RcAuthority *authority;
} Served;

static void
served_free (gpointer data)
{
  Served *served = data;

  g_object_unref (served->policy);
  g_object_unref (served->authority);
  g_free (served);
}

/* A GetLimitSources call waiting for its app's instances. */
typedef struct {
  RcPolicy              *policy;
  GDBusMethodInvocation *invocation;
} SourcesCall;

static void
limit_sources_cb (GObject      *source,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  SourcesCall *call = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) apps = rc_registry_resolve_finish (RC_REGISTRY (source), result, &error);

  if (apps == NULL)
    g_dbus_method_invocation_return_gerror (call->invocation, error);
  else
    g_dbus_method_invocation_return_value (call->invocation,
                                           g_variant_new ("(@a(sssss))",
                                                          rc_policy_get_limit_sources (call->policy,
                                                                                       apps)));
  g_object_unref (call->invocation);
  g_object_unref (call->policy);
  g_free (call);
}

static gboolean
handle_get_limit_sources (RcDBusResourceControl *object,
                          GDBusMethodInvocation *invocation,
                          const char            *app,
                          Served                *served)
{
  GError *error = NULL;
  SourcesCall *call;

  if (!rc_unit_name_check_app_argument (app, &error))
    {
      g_dbus_method_invocation_return_gerror (invocation, error);
      g_error_free (error);
      return G_DBUS_METHOD_INVOCATION_HANDLED;
    }

  call = g_new0 (SourcesCall, 1);
  call->policy = g_object_ref (served->policy);
  call->invocation = g_object_ref (invocation);
  rc_registry_resolve_async (served->policy->registry, app, FALSE, served->policy->cancellable,
                             limit_sources_cb, call);
  return G_DBUS_METHOD_INVOCATION_HANDLED;
}

/* "resourcectl (pid 1234)": who paused, for the action record. The name
 * is the process's own choice: only printable ASCII of it is kept. */
static char *
describe_caller (guint32 pid)
{
  g_autoptr(RcProc) proc = rc_proc_read (pid);
  g_autofree char *name = g_strdup (proc != NULL && proc->comm != NULL ? proc->comm : "?");

  for (char *c = name; *c != '\0'; c++)
    if (!g_ascii_isprint (*c))
      *c = '?';
  return g_strdup_printf ("%s (pid %u)", name, pid);
}

/* A Pause or a Resume waiting for polkit's answer. */
typedef struct {
  Served                *served;
  GDBusMethodInvocation *invocation;
  gboolean               pause;
  guint64                seconds;
} PauseCall;

static void
pause_authorized_cb (GObject      *source,
                     GAsyncResult *result,
                     gpointer      user_data)
{
  PauseCall *call = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GDBusMethodInvocation) invocation = call->invocation;
  guint32 pid = 0;

  if (!rc_authority_check_finish (RC_AUTHORITY (source), result, &pid, &error))
    g_dbus_method_invocation_return_gerror (invocation, error);
  else
    {
      g_autofree char *caller = describe_caller (pid);
      g_autofree char *reason = g_strconcat (call->pause ? "paused by " : "resumed by ", caller,
                                             NULL);

      if (call->pause)
        rc_policy_pause (call->served->policy, call->seconds, reason);
      else
        rc_policy_resume (call->served->policy, reason);
      g_dbus_method_invocation_return_value (invocation, NULL);
    }
  served_free (call->served);
  g_free (call);
}

static void
authorize_pause (Served                *served,
                 GDBusMethodInvocation *invocation,
                 gboolean               pause,
                 guint64                seconds)
{
  PauseCall *call = g_new0 (PauseCall, 1);

  /* the check may end after the object is gone: it keeps its own refs */
  call->served = g_new0 (Served, 1);
  call->served->policy = g_object_ref (served->policy);
  call->served->authority = g_object_ref (served->authority);
  call->invocation = g_object_ref (invocation);
  call->pause = pause;
  call->seconds = seconds;
  rc_authority_check_async (served->authority, invocation, served->policy->cancellable,
                            pause_authorized_cb, call);
}

static gboolean
handle_pause (RcDBusResourceControl *object,
              GDBusMethodInvocation *invocation,
              guint64                seconds,
              Served                *served)
{
  if (seconds > RC_PAUSE_MAX_SEC)
    {
      g_dbus_method_invocation_return_error (invocation, RC_ERROR, RC_ERROR_INVALID_ARGUMENT,
                                             "a pause lasts at most %u seconds (30 days); "
                                             "0 pauses until Resume", RC_PAUSE_MAX_SEC);
      return G_DBUS_METHOD_INVOCATION_HANDLED;
    }
  authorize_pause (served, invocation, TRUE, seconds);
  return G_DBUS_METHOD_INVOCATION_HANDLED;
}

static gboolean
handle_resume (RcDBusResourceControl *object,
               GDBusMethodInvocation *invocation,
               Served                *served)
{
  authorize_pause (served, invocation, FALSE, 0);
  return G_DBUS_METHOD_INVOCATION_HANDLED;
}

static void
paused_changed_cb (RcPolicy              *policy,
                   RcDBusResourceControl *object)
{
  guint64 until = 0;
  gboolean paused = rc_policy_is_paused (policy, &until);

  rc_dbus_resource_control_set_paused (object, paused);
  rc_dbus_resource_control_set_paused_until (object, until);
}

void
rc_policy_serve (RcPolicy              *self,
                 RcDBusResourceControl *object,
                 RcAuthority           *authority)
{
  Served *served = g_new0 (Served, 1);

  /* before the first app appears: systemd's unit list comes later, on the main loop */
  rc_policy_restore_pause (self, self->restored_paused, self->restored_paused_until);
  served->policy = g_object_ref (self);
  served->authority = g_object_ref (authority);
  g_object_set_data_full (G_OBJECT (object), "rc-policy-served", served, served_free);
  g_signal_connect (object, "handle-get-limit-sources", G_CALLBACK (handle_get_limit_sources),
                    served);
  g_signal_connect (object, "handle-pause", G_CALLBACK (handle_pause), served);
  g_signal_connect (object, "handle-resume", G_CALLBACK (handle_resume), served);
  g_signal_connect_object (self, "paused-changed", G_CALLBACK (paused_changed_cb), object, 0);
  paused_changed_cb (self, object);
  rc_action_log_serve (self->actions, object);
}
