/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "rc-authority.h"
#include "rc-subscription.h"
#include "rc-error.h"
#include "rc-names.h"

#include <polkit/polkit.h>
#include <unistd.h>

/* A non-interactive check that hangs fails after this long (docs/design.md, "Authorization and safety");
 * an interactive one waits for the user to type a password. */
#define CHECK_TIMEOUT_SEC 10
#define INTERACTIVE_CHECK_TIMEOUT_SEC 300

/* Bounds on the work callers can leave with polkitd (docs/design.md,
 * "Authorization and safety"). At most POLKIT_SLOTS non-interactive checks
 * are with polkitd at once; the others wait their turn for at most
 * QUEUE_TIMEOUT_SEC, so a burst is answered a few at a time instead of
 * timing out together. The turns go round the callers (bus connections),
 * one check each, in the order each caller sent them: a caller with many
 * checks waiting delays another by one check per round, not by all of its
 * own. One caller may have MAX_CHECKS_PER_CALLER checks in flight (an
 * interactive check waits for a person, so it counts here but takes no
 * slot), all callers together MAX_CHECKS. When all are taken, a caller
 * with fewer checks than the one with the most is not refused: that one's
 * newest waiting check gives way. Every caller is the same user, so many
 * connections of one check each can still take them all; what stays
 * bounded then is the daemon's memory and polkitd's load. */
#define POLKIT_SLOTS 8
#define QUEUE_TIMEOUT_SEC 20
#define MAX_CHECKS_PER_CALLER 16
#define MAX_CHECKS 256
#define SLOW_ANSWER_MS 2000

static const struct {
  const char *method;
  const char *action;   /* NULL: reading, no authorization needed */
} method_actions[] = {
  { "ListApps", NULL },
  { "ListAppRecords", NULL },
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
  { "ResetEnergyUsage", RC_ACTION_RESET_ENERGY },
  { "GetAppByPid", NULL },
  { "ListProcesses", NULL },
  { "Pause", RC_ACTION_PAUSE },
  { "Resume", RC_ACTION_PAUSE },
};

struct _RcAuthority {
  GObject          parent_instance;
  PolkitAuthority *polkit;
  GHashTable      *callers;         /* unique bus name -> Caller */
  guint            n_checks;        /* in flight, all callers */
  guint            n_with_polkit;   /* non-interactive checks holding a slot */
  GQueue           turns;           /* Callers with checks waiting for a slot, in turn */
  guint            n_waiting;       /* checks waiting for a slot, all callers */
  GPtrArray       *wanting_polkit;  /* GTask references, waiting for the polkit proxy */
  GDBusConnection *bus;             /* watched for callers leaving, while checks are in flight */
  guint            name_owner_id;
};

/* The checks of one caller, so they end when it leaves the bus. */
typedef struct {
  GPtrArray *tasks;                 /* borrowed: a task leaves before it is freed */
  GQueue     waiting;               /* GTask references, waiting for a slot, oldest first */
  gboolean   in_turns;              /* in RcAuthority.turns */
} Caller;

static void
caller_free (Caller *caller)
{
  g_ptr_array_unref (caller->tasks);
  g_queue_clear_full (&caller->waiting, g_object_unref);
  g_free (caller);
}

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
  gboolean      answered;             /* a late answer from polkitd must not count */
  gboolean      counted;              /* in the caller's and the global count */
  gboolean      with_polkit;          /* holds one of the POLKIT_SLOTS */
  gboolean      queued;               /* in its Caller's waiting */
  gint64        sent_at;              /* monotonic µs when sent to polkitd */
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

static void start_check (RcAuthority *self,
                         GTask       *task);

static void
arm_timeout (CheckData  *data,
             guint       seconds,
             GSourceFunc func)
{
  g_clear_handle_id (&data->timeout_id, g_source_remove);
  data->timeout_id = g_timeout_add_seconds (seconds, func, data);
}

/* Hands free slots round the callers waiting, the oldest check of each. */
static void
dispatch_waiting (RcAuthority *self)
{
  while (self->n_with_polkit < POLKIT_SLOTS && !g_queue_is_empty (&self->turns))
    {
      Caller *caller = g_queue_pop_head (&self->turns);
      g_autoptr(GTask) task = g_queue_pop_head (&caller->waiting);
      CheckData *data = g_task_get_task_data (task);

      if (g_queue_is_empty (&caller->waiting))
        caller->in_turns = FALSE;
      else
        g_queue_push_tail (&self->turns, caller);
      self->n_waiting--;
      data->queued = FALSE;
      start_check (self, task);
    }
}

static void
wait_for_slot (RcAuthority *self,
               GTask       *task)
{
  CheckData *data = g_task_get_task_data (task);
  Caller *caller = g_hash_table_lookup (self->callers, data->sender);

  data->queued = TRUE;
  self->n_waiting++;
  g_queue_push_tail (&caller->waiting, g_object_ref (task));
  if (!caller->in_turns)
    {
      caller->in_turns = TRUE;
      g_queue_push_tail (&self->turns, caller);
    }
}

/* Takes the check out of every count, once, when it is answered. */
static void
release (CheckData *data)
{
  RcAuthority *self = g_task_get_source_object (data->task);

  g_clear_handle_id (&data->timeout_id, g_source_remove);
  if (data->queued)
    {
      Caller *caller = g_hash_table_lookup (self->callers, data->sender);

      data->queued = FALSE;
      self->n_waiting--;
      g_queue_remove (&caller->waiting, data->task);
      if (g_queue_is_empty (&caller->waiting) && caller->in_turns)
        {
          caller->in_turns = FALSE;
          g_queue_remove (&self->turns, caller);
        }
      g_object_unref (data->task);
    }
  if (data->counted)
    {
      Caller *caller = g_hash_table_lookup (self->callers, data->sender);

      data->counted = FALSE;
      g_ptr_array_remove_fast (caller->tasks, data->task);
      if (caller->tasks->len == 0)
        g_hash_table_remove (self->callers, data->sender);
      if (--self->n_checks == 0 && self->bus != NULL)
        {
          rc_clear_subscription (self->bus, &self->name_owner_id);
          g_clear_object (&self->bus);
        }
    }
  if (data->with_polkit)
    {
      data->with_polkit = FALSE;
      self->n_with_polkit--;
      dispatch_waiting (self);
    }
}

/* Every answer ends the check's deadline and its counts with it: yes, or
 * no with @error (taken). */
static void
answer (GTask  *task,
        GError *error)
{
  g_autoptr(GTask) hold = g_object_ref (task);   /* release() may drop the queue's reference */
  CheckData *data = g_task_get_task_data (task);

  data->answered = TRUE;
  release (data);
  if (error == NULL)
    g_task_return_boolean (task, TRUE);
  else
    g_task_return_error (task, error);
}

static void
succeed (GTask *task)
{
  answer (task, NULL);
}

static void fail (GTask      *task,
                  const char *format,
                  ...) G_GNUC_PRINTF (2, 3);

static void
fail (GTask      *task,
      const char *format,
      ...)
{
  GError *error;
  va_list args;

  va_start (args, format);
  error = g_error_new_valist (RC_ERROR, RC_ERROR_NOT_AUTHORIZED, format, args);
  va_end (args);
  answer (task, error);
}

static void
return_unavailable (GTask        *task,
                    const GError *polkit_error)
{
  g_autoptr(GError) error = g_error_copy (polkit_error);
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

/* polkitd's answer time is what a slow check is made of: a slow one is
 * worth a line in the journal, with what else was waiting. */
static void
log_answer_time (CheckData *data)
{
  RcAuthority *self = g_task_get_source_object (data->task);
  gint64 ms = (g_get_monotonic_time () - data->sent_at) / 1000;

  if (ms >= SLOW_ANSWER_MS && !data->interactive)
    g_message ("polkitd took %" G_GINT64_FORMAT " ms to answer a check for %s (%u checks with "
               "polkitd, %u waiting)", ms, data->action, self->n_with_polkit,
               self->n_waiting);
  else
    g_debug ("polkitd answered %s in %" G_GINT64_FORMAT " ms", data->action, ms);
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
  log_answer_time (data);
  /* Answered already (the timeout, the caller left): a late yes must not count. */
  if (data->answered)
    return;
  if (auth == NULL)
    {
      if (g_task_return_error_if_cancelled (task))
        {
          data->answered = TRUE;
          release (data);
        }
      else
        return_unavailable (task, error);
      return;
    }

  if (polkit_authorization_result_get_is_authorized (auth))
    {
      g_debug ("polkit: %s authorized for pid %u", data->action, data->pid);
      succeed (task);
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
  /* Cancelling asks polkitd to stop, but a hung polkitd never answers: the
   * caller gets its error now. */
  fail (data->task,
        "Not authorized: the authorization service did not answer "
        "within %d seconds", data->interactive
                           ? INTERACTIVE_CHECK_TIMEOUT_SEC : CHECK_TIMEOUT_SEC);
  g_cancellable_cancel (data->check_cancellable);
  return G_SOURCE_REMOVE;
}

static gboolean
queue_timeout_cb (gpointer user_data)
{
  CheckData *data = user_data;

  data->timeout_id = 0;
  fail (data->task,
        "Not authorized: the authorization service is busy; this check waited "
        "%d seconds behind %d others and was not sent. Try again later",
        QUEUE_TIMEOUT_SEC, POLKIT_SLOTS);
  return G_SOURCE_REMOVE;
}

static void
send_check (RcAuthority *self,
            GTask       *task)
{
  CheckData *data = g_task_get_task_data (task);
  g_autoptr(PolkitSubject) subject = NULL;
  PolkitCheckAuthorizationFlags flags = POLKIT_CHECK_AUTHORIZATION_FLAGS_NONE;

  /* Start time 0: polkit reads it from /proc for this pid, so a recycled
   * pid is told apart from the caller. No details: polkitd refuses them
   * from callers that are not root. */
  subject = polkit_unix_process_new_for_owner ((gint) data->pid, 0, (gint) data->uid);
  data->sent_at = g_get_monotonic_time ();
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
  g_autoptr(RcAuthority) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) wanting = g_steal_pointer (&self->wanting_polkit);
  PolkitAuthority *polkit = polkit_authority_get_finish (result, &error);

  if (self->polkit == NULL)
    self->polkit = polkit;
  else
    g_clear_object (&polkit);
  for (guint i = 0; i < wanting->len; i++)
    {
      GTask *task = g_ptr_array_index (wanting, i);
      CheckData *data = g_task_get_task_data (task);

      if (data->answered)
        continue;
      if (self->polkit == NULL)
        return_unavailable (task, error);
      else
        send_check (self, task);
    }
}

/* Takes a slot (an interactive check needs none) or waits for one. The
 * check's deadline starts when it is sent to polkitd. */
static void
start_check (RcAuthority *self,
             GTask       *task)
{
  CheckData *data = g_task_get_task_data (task);

  if (!data->interactive)
    {
      if (self->n_with_polkit >= POLKIT_SLOTS)
        {
          wait_for_slot (self, task);
          arm_timeout (data, QUEUE_TIMEOUT_SEC, queue_timeout_cb);
          return;
        }
      data->with_polkit = TRUE;
      self->n_with_polkit++;
    }
  arm_timeout (data, data->interactive ? INTERACTIVE_CHECK_TIMEOUT_SEC : CHECK_TIMEOUT_SEC,
               check_timeout_cb);
  if (self->polkit != NULL)
    {
      send_check (self, task);
      return;
    }
  /* One proxy for all: a burst of first checks must not start one each
   * (each is a thread and a round trip to polkitd). */
  if (self->wanting_polkit == NULL)
    {
      self->wanting_polkit = g_ptr_array_new_with_free_func (g_object_unref);
      polkit_authority_get_async (NULL, authority_ready_cb, g_object_ref (self));
    }
  g_ptr_array_add (self->wanting_polkit, g_object_ref (task));
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
  if (data->answered)
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
    succeed (task);
  else
    start_check (self, task);
}

static void
name_owner_changed_cb (GDBusConnection *connection,
                       const char      *sender_name,
                       const char      *object_path,
                       const char      *interface_name,
                       const char      *signal_name,
                       GVariant        *parameters,
                       gpointer         user_data)
{
  RcAuthority *self = user_data;
  const char *name, *old_owner, *new_owner;
  Caller *caller;
  g_autoptr(GPtrArray) tasks = NULL;

  if (!g_variant_is_of_type (parameters, G_VARIANT_TYPE ("(sss)")))
    return;
  g_variant_get (parameters, "(&s&s&s)", &name, &old_owner, &new_owner);
  if (*new_owner != '\0' || (caller = g_hash_table_lookup (self->callers, name)) == NULL)
    return;
  /* A caller that left wants nothing done: its checks end here, and one
   * polkitd still answers is ignored. */
  tasks = g_ptr_array_new_with_free_func (g_object_unref);
  for (guint i = 0; i < caller->tasks->len; i++)
    g_ptr_array_add (tasks, g_object_ref (g_ptr_array_index (caller->tasks, i)));
  for (guint i = 0; i < tasks->len; i++)
    {
      GTask *task = g_ptr_array_index (tasks, i);
      CheckData *data = g_task_get_task_data (task);

      g_debug ("%s left the bus: its check for %s ends", name, data->action);
      fail (task,
            "Not authorized: the caller left the bus before the check was "
            "answered; nothing was changed");
      g_cancellable_cancel (data->check_cancellable);
    }
}

/* All checks are taken, and @caller (NULL: it has none) sends one more:
 * the caller with the most checks gives way, its newest waiting one, if it
 * has more than @caller would. FALSE if none has. */
static gboolean
make_room (RcAuthority *self,
           Caller      *caller)
{
  guint have = caller != NULL ? caller->tasks->len : 0;
  Caller *most = NULL;
  GHashTableIter iter;
  Caller *other;
  GTask *newest;

  g_hash_table_iter_init (&iter, self->callers);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &other))
    if (!g_queue_is_empty (&other->waiting) &&
        (most == NULL || other->tasks->len > most->tasks->len))
      most = other;
  if (most == NULL || most->tasks->len <= have + 1)
    return FALSE;
  newest = g_queue_peek_tail (&most->waiting);
  g_debug ("All %u checks are taken: the newest of the caller with the most (%u) gives way",
           self->n_checks, most->tasks->len);
  fail (newest,
        "Not authorized: the authorization service is busy (%u checks in flight); this "
        "caller had the most of them (%u), and its newest gave way to another caller's. "
        "Try again later", self->n_checks, most->tasks->len);
  return TRUE;
}

/* Counts the check against its caller and all callers, or refuses it. */
static gboolean
count_check (RcAuthority     *self,
             GTask           *task,
             GDBusConnection *connection)
{
  CheckData *data = g_task_get_task_data (task);
  Caller *caller = g_hash_table_lookup (self->callers, data->sender);

  if (caller != NULL && caller->tasks->len >= MAX_CHECKS_PER_CALLER)
    {
      fail (task,
            "Not authorized: this caller has %u authorization checks in "
            "flight, at most %d are allowed; wait for their answers",
            caller->tasks->len, MAX_CHECKS_PER_CALLER);
      return FALSE;
    }
  if (self->n_checks >= MAX_CHECKS && !make_room (self, caller))
    {
      fail (task,
            "Not authorized: %u authorization checks are in flight, at most "
            "%d are allowed; try again later", self->n_checks, MAX_CHECKS);
      return FALSE;
    }
  if (caller == NULL)
    {
      caller = g_new0 (Caller, 1);
      caller->tasks = g_ptr_array_new ();
      g_hash_table_insert (self->callers, g_strdup (data->sender), caller);
    }
  g_ptr_array_add (caller->tasks, task);
  data->counted = TRUE;
  if (self->n_checks++ == 0)
    {
      /* Before the credentials call: a caller gone before the match is
       * added fails that call instead. */
      self->bus = g_object_ref (connection);
      self->name_owner_id =
        g_dbus_connection_signal_subscribe (connection, DBUS_NAME, DBUS_INTERFACE,
                                            "NameOwnerChanged", DBUS_PATH, NULL,
                                            G_DBUS_SIGNAL_FLAGS_NONE, name_owner_changed_cb,
                                            self, NULL);
    }
  return TRUE;
}

static gboolean
fail_cancelled_idle (gpointer user_data)
{
  GTask *task = user_data;
  CheckData *data = g_task_get_task_data (task);

  if (data->queued && !data->answered)
    {
      data->answered = TRUE;
      release (data);
      g_task_return_error_if_cancelled (task);
    }
  return G_SOURCE_REMOVE;
}

static void
caller_cancelled_cb (GCancellable *cancellable,
                     GTask        *task)
{
  CheckData *data = g_task_get_task_data (task);

  g_cancellable_cancel (data->check_cancellable);
  /* A waiting check has no call to end: answer it from the main loop, not
   * inside g_cancellable_cancel(). */
  if (data->queued)
    g_idle_add_full (G_PRIORITY_DEFAULT, fail_cancelled_idle, g_object_ref (task),
                     g_object_unref);
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
  GDBusConnection *connection = g_dbus_method_invocation_get_connection (invocation);
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
  if (!count_check (self, task, connection))
    return;
  if (cancellable != NULL)
    data->cancelled_id = g_cancellable_connect (cancellable, G_CALLBACK (caller_cancelled_cb),
                                                task, NULL);

  /* Until the check is sent to polkitd, this deadline covers asking the bus
   * for the caller's credentials. */
  arm_timeout (data, data->interactive ? INTERACTIVE_CHECK_TIMEOUT_SEC : CHECK_TIMEOUT_SEC,
               check_timeout_cb);
  g_dbus_connection_call (connection,
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
rc_authority_finalize (GObject *object)
{
  RcAuthority *self = RC_AUTHORITY (object);

  /* Every check holds the authority: none is left here. */
  g_hash_table_unref (self->callers);
  G_OBJECT_CLASS (rc_authority_parent_class)->finalize (object);
}

static void
rc_authority_class_init (RcAuthorityClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = rc_authority_dispose;
  G_OBJECT_CLASS (klass)->finalize = rc_authority_finalize;
}

static void
rc_authority_init (RcAuthority *self)
{
  self->callers = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                         (GDestroyNotify) caller_free);
  g_queue_init (&self->turns);
}

RcAuthority *
rc_authority_new (void)
{
  return g_object_new (RC_TYPE_AUTHORITY, NULL);
}
