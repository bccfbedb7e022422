/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "rc-start-jobs.h"
#include "rc-subscription.h"
#include "rc-error.h"
#include "rc-names.h"
#include "rc-systemd-bus.h"

struct _RcStartJobs {
  GObject          parent_instance;
  GDBusConnection *connection;
  guint            job_removed_id;
  GHashTable      *starts;   /* unit name -> GTask of a start waiting for its job */
};

G_DEFINE_TYPE (RcStartJobs, rc_start_jobs, G_TYPE_OBJECT);

enum {
  SIGNAL_ENDED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

/* A start is registered under its unit name before StartTransientUnit is
 * sent, so the job's JobRemoved cannot pass by unseen, whichever of the
 * reply and the signal is dispatched first. */
typedef struct {
  RcStartJobs *jobs;
  char        *unit;
  char        *result;  /* the job's result, once JobRemoved came */
  gboolean     replied; /* StartTransientUnit answered */
  guint        deadline_id;
} Start;

static void
start_free (Start *start)
{
  g_clear_handle_id (&start->deadline_id, g_source_remove);
  g_free (start->unit);
  g_free (start->result);
  g_free (start);
}

/* The start of @unit is over, however it ended: it leaves the table (which
 * drops the table's task ref), and "ended" tells. */
static void
forget (RcStartJobs *self,
        const char  *unit)
{
  g_autofree char *name = g_strdup (unit);   /* the Start that owns @unit may go */

  if (g_hash_table_remove (self->starts, name))
    g_signal_emit (self, signals[SIGNAL_ENDED], 0, name);
}

/* Once StartTransientUnit is answered and the job has ended: the caller
 * hears how it ended, and the start is dropped. */
static void
start_finish (GTask *task)
{
  Start *start = g_task_get_task_data (task);
  RcStartJobs *self = start->jobs;

  if (!start->replied || start->result == NULL)
    return;
  if (g_str_equal (start->result, "done"))
    g_task_return_boolean (task, TRUE);
  else
    g_task_return_new_error (task, RC_ERROR, RC_ERROR_FAILED,
                             "systemd could not start %s: its start job ended \"%s\" "
                             "(see journalctl --user -u %s)",
                             start->unit, start->result, start->unit);
  g_clear_handle_id (&start->deadline_id, g_source_remove);
  forget (self, start->unit);
}

static void
return_systemd_left (GTask *task)
{
  Start *start = g_task_get_task_data (task);

  g_task_return_new_error (task, RC_ERROR, RC_ERROR_FAILED,
                           "systemd left the session bus before %s had started", start->unit);
}

/* A job that never ends (a systemd that lost it, or a start that hangs)
 * must not hold the caller for ever: as long as a call may take. */
static gboolean
start_deadline_cb (gpointer user_data)
{
  GTask *task = user_data;
  g_autoptr(GTask) hold = g_object_ref (task);
  Start *start = g_task_get_task_data (task);

  start->deadline_id = 0;
  forget (start->jobs, start->unit);
  g_task_return_new_error (task, RC_ERROR, RC_ERROR_FAILED,
                           "systemd did not finish starting %s within %d seconds "
                           "(see journalctl --user -u %s)",
                           start->unit, RC_SYSTEMD_TIMEOUT_MSEC / 1000, start->unit);
  return G_SOURCE_REMOVE;
}

static void
start_transient_cb (GObject      *source,
                    GAsyncResult *result,
                    gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  Start *start = g_task_get_task_data (task);
  RcStartJobs *self = start->jobs;
  g_autoptr(GVariant) reply = NULL;
  g_autoptr(GError) error = NULL;

  reply = g_dbus_connection_call_with_unix_fd_list_finish (G_DBUS_CONNECTION (source), NULL,
                                                           result, &error);
  start->replied = TRUE;
  if (reply == NULL)
    {
      if (g_hash_table_lookup (self->starts, start->unit) == task)
        forget (self, start->unit);
      g_task_return_error (task, rc_systemd_error_from_dbus (error));
      return;
    }
  if (g_hash_table_lookup (self->starts, start->unit) != task)
    {
      /* systemd left the bus meanwhile: its JobRemoved will not come */
      return_systemd_left (task);
      return;
    }
  if (start->result != NULL)
    start_finish (task);
  else
    start->deadline_id = g_timeout_add_seconds (RC_SYSTEMD_TIMEOUT_MSEC / 1000, start_deadline_cb,
                                                task);
}

static void
job_removed_cb (GDBusConnection *connection,
                const char      *sender_name,
                const char      *object_path,
                const char      *interface_name,
                const char      *signal_name,
                GVariant        *parameters,
                gpointer         user_data)
{
  RcStartJobs *self = user_data;
  const char *unit, *job_result;
  GTask *task;
  Start *start;
  guint32 id;

  if (!g_variant_is_of_type (parameters, G_VARIANT_TYPE ("(uoss)")))
    return;
  g_variant_get (parameters, "(u&o&s&s)", &id, NULL, &unit, &job_result);
  task = g_hash_table_lookup (self->starts, unit);
  if (task == NULL)
    return;
  start = g_task_get_task_data (task);
  if (start->result != NULL)
    return;
  start->result = g_strdup (job_result);
  g_debug ("Start job %u of %s: %s", id, unit, job_result);
  start_finish (task);
}

void
rc_start_jobs_start_async (RcStartJobs        *self,
                           const char         *unit,
                           GVariant           *properties,
                           GUnixFDList        *fds,
                           GCancellable       *cancellable,
                           GAsyncReadyCallback callback,
                           gpointer            user_data)
{
  g_autoptr(GTask) task = g_task_new (self, cancellable, callback, user_data);
  Start *start = g_new0 (Start, 1);

  g_task_set_source_tag (task, rc_start_jobs_start_async);
  start->jobs = self;
  start->unit = g_strdup (unit);
  g_task_set_task_data (task, start, (GDestroyNotify) start_free);
  if (g_hash_table_contains (self->starts, unit))
    {
      g_variant_unref (g_variant_ref_sink (properties));
      g_task_return_new_error (task, RC_ERROR, RC_ERROR_FAILED,
                               "%s is being started already", unit);
      return;
    }
  g_hash_table_insert (self->starts, start->unit, g_object_ref (task));
  g_dbus_connection_call_with_unix_fd_list (self->connection, SYSTEMD_DBUS_NAME,
                                            SYSTEMD_DBUS_PATH, SYSTEMD_MANAGER_INTERFACE,
                                            "StartTransientUnit",
                                            g_variant_new ("(ss@a(sv)@a(sa(sv)))", unit, "fail",
                                                           properties,
                                                           g_variant_new_array (
                                                             G_VARIANT_TYPE ("(sa(sv))"),
                                                             NULL, 0)),
                                            G_VARIANT_TYPE ("(o)"),
                                            G_DBUS_CALL_FLAGS_NO_AUTO_START,
                                            RC_SYSTEMD_TIMEOUT_MSEC, fds, cancellable,
                                            start_transient_cb, g_steal_pointer (&task));
}

gboolean
rc_start_jobs_start_finish (RcStartJobs  *self,
                            GAsyncResult *result,
                            GError      **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}

gboolean
rc_start_jobs_is_starting (RcStartJobs *self,
                           const char  *unit)
{
  return g_hash_table_contains (self->starts, unit);
}

/* systemd left: no JobRemoved will come for the starts waiting for one. */
void
rc_start_jobs_fail_all (RcStartJobs *self)
{
  g_autoptr(GList) tasks = g_hash_table_get_values (self->starts);

  for (GList *l = tasks; l != NULL; l = l->next)
    g_object_ref (l->data);
  g_hash_table_remove_all (self->starts);
  for (GList *l = tasks; l != NULL; l = l->next)
    {
      g_autoptr(GTask) task = l->data;
      Start *start = g_task_get_task_data (task);

      /* one whose reply is still on its way gets its error from the call */
      if (start->replied)
        return_systemd_left (task);
      g_signal_emit (self, signals[SIGNAL_ENDED], 0, start->unit);
    }
}

RcStartJobs *
rc_start_jobs_new (GDBusConnection *connection)
{
  RcStartJobs *self = g_object_new (RC_TYPE_START_JOBS, NULL);

  self->connection = g_object_ref (connection);
  self->job_removed_id =
    rc_systemd_subscribe_manager (connection, "JobRemoved", job_removed_cb, self);
  return self;
}

static void
rc_start_jobs_dispose (GObject *object)
{
  RcStartJobs *self = RC_START_JOBS (object);

  rc_clear_subscription (self->connection, &self->job_removed_id);
  g_clear_pointer (&self->starts, g_hash_table_unref);
  g_clear_object (&self->connection);
  G_OBJECT_CLASS (rc_start_jobs_parent_class)->dispose (object);
}

static void
rc_start_jobs_class_init (RcStartJobsClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = rc_start_jobs_dispose;

  signals[SIGNAL_ENDED] =
    g_signal_new ("ended", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                  NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);
}

static void
rc_start_jobs_init (RcStartJobs *self)
{
  self->starts = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, g_object_unref);
}
