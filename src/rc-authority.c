/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "rc-authority.h"
#include "rc-error.h"
#include "rc-names.h"

#include <polkit/polkit.h>
#include <unistd.h>

/* A non-interactive check that hangs fails after this long (docs/design.md, "Authorization and safety");
 * an interactive one waits for the user to type a password. */
#define CHECK_TIMEOUT_SEC 10
#define INTERACTIVE_CHECK_TIMEOUT_SEC 300

static const struct {
  const char *method;
  const char *action;   /* NULL: reading, no authorization needed */
} method_actions[] = {
  { "ListApps", NULL },
  { "GetApp", NULL },
  { "SetWeight", RC_ACTION_SET_WEIGHT },
  { "SetMemoryLimit", RC_ACTION_SET_MEMORY_LIMIT },
  { "SetLimits", RC_ACTION_SET_LIMITS },
  { "ResetLimits", RC_ACTION_RESET_LIMITS },
  { "Freeze", RC_ACTION_FREEZE },
  { "Thaw", RC_ACTION_THAW },
  { "ListRules", NULL },
  { "SetRule", RC_ACTION_MANAGE_RULES },
  { "RemoveRule", RC_ACTION_MANAGE_RULES },
  { "SetForegroundApp", RC_ACTION_SET_FOREGROUND },
  { "SetForegroundProcess", RC_ACTION_SET_FOREGROUND },
  { "SetForegroundWindowProcess", RC_ACTION_SET_FOREGROUND },
  { "Launch", RC_ACTION_LAUNCH },
  { "Adopt", RC_ACTION_ADOPT },
  { "SetSliceLimits", RC_ACTION_SET_SLICE_LIMITS },
  { "GetAppByPid", NULL },
  { "ListProcesses", NULL },
};

struct _RcAuthority {
  GObject          parent_instance;
  PolkitAuthority *polkit;
};

G_DEFINE_TYPE (RcAuthority, rc_authority, G_TYPE_OBJECT);

typedef struct {
  char         *action;
  char         *sender;
  gboolean      interactive;
  guint32       pid;
  guint32       uid;
  GCancellable *check_cancellable;    /* cancelled by the caller's or by the timeout */
  gulong        cancelled_id;
  guint         timeout_id;
  gboolean      timed_out;
  GTask        *task;                 /* not a reference: the task owns this data */
} CheckData;

static void
check_data_free (CheckData *data)
{
  g_clear_handle_id (&data->timeout_id, g_source_remove);
  g_free (data->action);
  g_free (data->sender);
  g_clear_object (&data->check_cancellable);
  g_free (data);
}

static const char *
lookup_action (const char *method,
               gboolean   *out_known)
{
  for (guint i = 0; i < G_N_ELEMENTS (method_actions); i++)
    {
      if (g_strcmp0 (method_actions[i].method, method) == 0)
        {
          *out_known = TRUE;
          return method_actions[i].action;
        }
    }
  *out_known = FALSE;
  return NULL;
}

static void fail (GTask      *task,
                  const char *format,
                  ...) G_GNUC_PRINTF (2, 3);

/* Every refusal ends the check's deadline with it. */
static void
fail (GTask      *task,
      const char *format,
      ...)
{
  CheckData *data = g_task_get_task_data (task);
  va_list args;

  g_clear_handle_id (&data->timeout_id, g_source_remove);
  va_start (args, format);
  g_task_return_error (task, g_error_new_valist (RC_ERROR, RC_ERROR_NOT_AUTHORIZED, format, args));
  va_end (args);
}

static void
return_unavailable (GTask  *task,
                    GError *error)
{
  g_autofree char *remote = g_dbus_error_get_remote_error (error);

  /* Fail closed: no answer from polkit is a no. */
  g_dbus_error_strip_remote_error (error);
  if (remote != NULL && g_str_has_prefix (remote, "org.freedesktop.PolicyKit1.Error."))
    fail (task,
          "Not authorized: polkit could not decide (%s); is "
          "org.example.ResourceControl.policy installed in polkit's "
          "actions folder?", error->message);
  else
    fail (task,
          "Not authorized: authorization service unavailable (%s)",
          error->message);
}

static void
check_authorization_cb (GObject      *source,
                        GAsyncResult *result,
                        gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  CheckData *data = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  g_autoptr(PolkitAuthorizationResult) auth = NULL;

  auth = polkit_authority_check_authorization_finish (POLKIT_AUTHORITY (source), result, &error);
  /* Answered already, with the timeout's error: a late yes must not count. */
  if (data->timed_out)
    return;
  g_clear_handle_id (&data->timeout_id, g_source_remove);
  if (auth == NULL)
    {
      if (!g_task_return_error_if_cancelled (task))
        return_unavailable (task, error);
      return;
    }

  if (polkit_authorization_result_get_is_authorized (auth))
    {
      g_debug ("polkit: %s authorized for pid %u", data->action, data->pid);
      g_task_return_boolean (task, TRUE);
    }
  else if (polkit_authorization_result_get_is_challenge (auth))
    fail (task,
          "Not authorized: %s needs authentication; call again allowing "
          "interactive authorization (resourcectl does)", data->action);
  else
    fail (task,
          "Not authorized: polkit denies %s to this caller", data->action);
}

static gboolean
check_timeout_cb (gpointer user_data)
{
  CheckData *data = user_data;

  data->timeout_id = 0;
  data->timed_out = TRUE;
  /* Cancelling asks polkitd to stop, but a hung polkitd never answers: the
   * caller gets its error now. */
  fail (data->task,
        "Not authorized: the authorization service did not answer "
        "within %d seconds", data->interactive
                           ? INTERACTIVE_CHECK_TIMEOUT_SEC : CHECK_TIMEOUT_SEC);
  g_cancellable_cancel (data->check_cancellable);
  return G_SOURCE_REMOVE;
}

static void
start_check (RcAuthority *self,
             GTask       *task)
{
  CheckData *data = g_task_get_task_data (task);
  g_autoptr(PolkitSubject) subject = NULL;
  PolkitCheckAuthorizationFlags flags = POLKIT_CHECK_AUTHORIZATION_FLAGS_NONE;

  /* Start time 0: polkit reads it from /proc for this pid, so a recycled
   * pid is told apart from the caller. No details: polkitd refuses them
   * from callers that are not root. */
  subject = polkit_unix_process_new_for_owner ((gint) data->pid, 0, (gint) data->uid);
  if (data->interactive)
    flags |= POLKIT_CHECK_AUTHORIZATION_FLAGS_ALLOW_USER_INTERACTION;
  polkit_authority_check_authorization (self->polkit, subject, data->action, NULL, flags,
                                        data->check_cancellable, check_authorization_cb,
                                        g_object_ref (task));
}

static void
authority_ready_cb (GObject      *source,
                    GAsyncResult *result,
                    gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  RcAuthority *self = g_task_get_source_object (task);
  g_autoptr(GError) error = NULL;
  CheckData *data = g_task_get_task_data (task);
  PolkitAuthority *polkit = polkit_authority_get_finish (result, &error);

  if (data->timed_out)
    {
      g_clear_object (&polkit);
      return;
    }
  if (polkit == NULL)
    {
      return_unavailable (task, error);
      return;
    }
  if (self->polkit == NULL)
    self->polkit = polkit;
  else
    g_object_unref (polkit);
  start_check (self, task);
}

static void
credentials_cb (GObject      *source,
                GAsyncResult *result,
                gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  RcAuthority *self = g_task_get_source_object (task);
  CheckData *data = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) reply = NULL;
  g_autoptr(GVariant) creds = NULL;

  reply = g_dbus_connection_call_finish (G_DBUS_CONNECTION (source), result, &error);
  if (data->timed_out)
    return;
  if (reply == NULL)
    {
      g_dbus_error_strip_remote_error (error);
      fail (task,
            "Not authorized: the caller's credentials are unknown (%s)",
            error->message);
      return;
    }
  creds = g_variant_get_child_value (reply, 0);
  if (!g_variant_lookup (creds, "UnixUserID", "u", &data->uid) ||
      !g_variant_lookup (creds, "ProcessID", "u", &data->pid))
    {
      fail (task,
            "Not authorized: the bus does not tell the caller's user and "
            "process");
      return;
    }
  /* On the session bus we serve our own user only. */
  if (data->uid != getuid ())
    {
      fail (task,
            "Not authorized: the caller runs as uid %u, this daemon serves "
            "uid %u only", data->uid, (guint) getuid ());
      return;
    }

  if (data->action == NULL)
    {
      g_clear_handle_id (&data->timeout_id, g_source_remove);
      g_task_return_boolean (task, TRUE);
    }
  else if (self->polkit != NULL)
    start_check (self, task);
  else
    polkit_authority_get_async (data->check_cancellable, authority_ready_cb,
                                g_steal_pointer (&task));
}

static void
caller_cancelled_cb (GCancellable *cancellable,
                     CheckData    *data)
{
  g_cancellable_cancel (data->check_cancellable);
}

void
rc_authority_check_async (RcAuthority           *self,
                          GDBusMethodInvocation *invocation,
                          GCancellable          *cancellable,
                          GAsyncReadyCallback    callback,
                          gpointer               user_data)
{
  g_autoptr(GTask) task = g_task_new (self, cancellable, callback, user_data);
  GDBusMessage *message = g_dbus_method_invocation_get_message (invocation);
  const char *method = g_dbus_method_invocation_get_method_name (invocation);
  CheckData *data = g_new0 (CheckData, 1);
  gboolean known;

  g_task_set_source_tag (task, rc_authority_check_async);
  g_task_set_task_data (task, data, (GDestroyNotify) check_data_free);
  data->task = task;
  data->action = g_strdup (lookup_action (method, &known));
  data->sender = g_strdup (g_dbus_method_invocation_get_sender (invocation));
  data->interactive = (g_dbus_message_get_flags (message) &
                       G_DBUS_MESSAGE_FLAGS_ALLOW_INTERACTIVE_AUTHORIZATION) != 0;
  data->check_cancellable = g_cancellable_new ();
  if (cancellable != NULL)
    data->cancelled_id = g_cancellable_connect (cancellable, G_CALLBACK (caller_cancelled_cb),
                                                data, NULL);

  if (!known)
    {
      /* Deny by default. */
      fail (task,
            "Not authorized: no polkit action is defined for %s", method);
      return;
    }
  if (data->sender == NULL)
    {
      fail (task,
            "Not authorized: the caller has no bus name");
      return;
    }

  /* One deadline for the whole check: credentials, reaching polkitd (its
   * proxy asks polkitd for properties), and its answer. */
  data->timeout_id = g_timeout_add_seconds (data->interactive ? INTERACTIVE_CHECK_TIMEOUT_SEC
                                                              : CHECK_TIMEOUT_SEC,
                                            check_timeout_cb, data);
  g_dbus_connection_call (g_dbus_method_invocation_get_connection (invocation),
                          DBUS_NAME, DBUS_PATH, DBUS_INTERFACE, "GetConnectionCredentials",
                          g_variant_new ("(s)", data->sender), G_VARIANT_TYPE ("(a{sv})"),
                          G_DBUS_CALL_FLAGS_NONE, -1, data->check_cancellable,
                          credentials_cb, g_steal_pointer (&task));
}

gboolean
rc_authority_check_finish (RcAuthority  *self,
                           GAsyncResult *result,
                           guint32      *out_pid,
                           GError      **error)
{
  CheckData *data;

  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  data = g_task_get_task_data (G_TASK (result));
  if (data->cancelled_id != 0)
    {
      g_cancellable_disconnect (g_task_get_cancellable (G_TASK (result)), data->cancelled_id);
      data->cancelled_id = 0;
    }
  if (!g_task_propagate_boolean (G_TASK (result), error))
    return FALSE;
  if (out_pid != NULL)
    *out_pid = data->pid;
  return TRUE;
}

static void
rc_authority_dispose (GObject *object)
{
  RcAuthority *self = RC_AUTHORITY (object);

  g_clear_object (&self->polkit);
  G_OBJECT_CLASS (rc_authority_parent_class)->dispose (object);
}

static void
rc_authority_class_init (RcAuthorityClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = rc_authority_dispose;
}

static void
rc_authority_init (RcAuthority *self)
{
}

RcAuthority *
rc_authority_new (void)
{
  return g_object_new (RC_TYPE_AUTHORITY, NULL);
}
