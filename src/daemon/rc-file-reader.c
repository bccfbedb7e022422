/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "rc-file-reader.h"

/* Reads wait in @waiting, not in the pool's queue, and a read's deadline
 * starts when it is handed to the pool: at 1,000 apps the start-up's reads
 * waited in the pool each with its own timeout source on the main loop
 * (a thousand sources the loop walks at every turn) and ran out of time
 * while queued, which listed an app under its AppID. The pool holds
 * HANDED_PER_WORKER reads per worker, so that a worker goes on to the next
 * read without waiting for the main loop to hand it one, and a handed read
 * waits for a few others at most. */
#define HANDED_PER_WORKER 4

struct _RcFileReader {
  GObject      parent_instance;
  GThreadPool *pool;
  guint        max_workers;
  guint        deadline_ms;
  guint        handed;   /* to the pool, not back yet (stuck ones too) */
  guint        stuck;    /* workers past their deadline, not back yet */
  GQueue       waiting;  /* Job, not yet handed to the pool */
};

G_DEFINE_TYPE (RcFileReader, rc_file_reader, G_TYPE_OBJECT)

/* One read. The worker and the main loop share it: @started and
 * @abandoned are atomic, the rest is written by one side only, and the
 * worker hands it back to the main loop before anything of it is freed. */
typedef struct {
  gatomicrefcount ref;
  RcFileReader   *reader;
  GMainContext   *context;
  char           *what;
  RcFileReadFunc  func;
  gpointer        input;
  GDestroyNotify  input_free;
  gpointer        result;        /* the worker's, until answered */
  GDestroyNotify  result_free;
  GError         *error;
  gint            started;       /* atomic: the worker took it */
  gint            abandoned;     /* atomic: the deadline came first */
  /* the main loop's */
  GTask   *task;                 /* NULL once answered */
  GSource *deadline;
  gboolean counted_stuck;
  gint64   since;
} Job;

static void pump (RcFileReader *self);

static Job *
job_ref (Job *job)
{
  g_atomic_ref_count_inc (&job->ref);
  return job;
}

static void
job_unref (Job *job)
{
  if (!g_atomic_ref_count_dec (&job->ref))
    return;
  if (job->input_free != NULL && job->input != NULL)
    job->input_free (job->input);
  if (job->result_free != NULL && job->result != NULL)
    job->result_free (job->result);
  g_clear_error (&job->error);
  g_clear_object (&job->task);
  if (job->deadline != NULL)
    {
      g_source_destroy (job->deadline);
      g_source_unref (job->deadline);
    }
  g_main_context_unref (job->context);
  g_object_unref (job->reader);
  g_free (job->what);
  g_free (job);
}

/* Back on the main loop: the answer, unless the deadline gave one. */
static gboolean
job_back_cb (gpointer user_data)
{
  Job *job = user_data;
  g_autoptr(GTask) task = g_steal_pointer (&job->task);
  g_autoptr(RcFileReader) reader = g_object_ref (job->reader);

  if (job->deadline != NULL)
    {
      g_source_destroy (job->deadline);
      g_clear_pointer (&job->deadline, g_source_unref);
    }
  job->reader->handed--;
  if (job->counted_stuck)
    {
      job->reader->stuck--;
      g_message ("Reading %s came back after %" G_GINT64_FORMAT " ms, long after it was given "
                 "up", job->what, (g_get_monotonic_time () - job->since) / 1000);
    }
  if (task != NULL && job->error != NULL)
    g_task_return_error (task, g_steal_pointer (&job->error));
  else if (task != NULL)
    g_task_return_pointer (task, g_steal_pointer (&job->result), job->result_free);
  pump (reader);
  return G_SOURCE_REMOVE;
}

static void
worker (gpointer data,
        gpointer user_data)
{
  Job *job = data;

  g_atomic_int_set (&job->started, 1);
  if (!g_atomic_int_get (&job->abandoned))
    job->result = job->func (job->input, &job->error);
  g_main_context_invoke_full (job->context, G_PRIORITY_DEFAULT, job_back_cb, job,
                              (GDestroyNotify) job_unref);
}

static gboolean
deadline_cb (gpointer user_data)
{
  Job *job = user_data;
  g_autoptr(GTask) task = g_steal_pointer (&job->task);

  g_atomic_int_set (&job->abandoned, 1);
  /* A read that never began (all workers busy) costs no thread: only one
   * that is running now holds a worker. */
  if (g_atomic_int_get (&job->started))
    {
      job->counted_stuck = TRUE;
      job->reader->stuck++;
    }
  g_clear_pointer (&job->deadline, g_source_unref);
  g_message ("Reading %s took over %u ms: given up (a path that does not answer, such as a "
             "hung FUSE mount?); %u of %u readers are stuck", job->what,
             job->reader->deadline_ms, job->reader->stuck, job->reader->max_workers);
  g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_TIMED_OUT,
                           "Reading %s took over %u ms: given up", job->what,
                           job->reader->deadline_ms);
  pump (job->reader);
  return G_SOURCE_REMOVE;
}

static void
answer_busy (Job *job)
{
  g_autoptr(GTask) task = g_steal_pointer (&job->task);

  g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_BUSY,
                           "%s is not read: all %u file readers are stuck on files that "
                           "do not answer", job->what, job->reader->max_workers);
  job_unref (job);
}

/* Hands waiting reads to the pool, each with its deadline from now.
 * With every worker stuck, the waiting reads fail at once: none would
 * begin before a stuck one comes back. */
static void
pump (RcFileReader *self)
{
  g_autoptr(RcFileReader) keep = g_object_ref (self);

  while (!g_queue_is_empty (&self->waiting) && self->stuck >= self->max_workers)
    answer_busy (g_queue_pop_head (&self->waiting));
  while (!g_queue_is_empty (&self->waiting) &&
         self->handed < self->max_workers * HANDED_PER_WORKER)
    {
      Job *job = g_queue_pop_head (&self->waiting);
      g_autoptr(GError) error = NULL;

      job->since = g_get_monotonic_time ();
      job->deadline = g_timeout_source_new (self->deadline_ms);
      g_source_set_callback (job->deadline, deadline_cb, job_ref (job), (GDestroyNotify) job_unref);
      g_source_attach (job->deadline, job->context);
      /* the pool's reference, handed to job_back_cb */
      if (!g_thread_pool_push (self->pool, job, &error))
        {
          g_autoptr(GTask) failed = g_steal_pointer (&job->task);

          g_task_return_new_error (failed, G_IO_ERROR, G_IO_ERROR_FAILED,
                                   "%s is not read: no reader thread (%s)", job->what,
                                   error->message);
          g_source_destroy (job->deadline);
          g_clear_pointer (&job->deadline, g_source_unref);
          job_unref (job);
          continue;
        }
      self->handed++;
    }
}

void
rc_file_reader_run_async (RcFileReader       *self,
                          const char         *what,
                          RcFileReadFunc      func,
                          gpointer            input,
                          GDestroyNotify      input_free,
                          GDestroyNotify      result_free,
                          GCancellable       *cancellable,
                          GAsyncReadyCallback callback,
                          gpointer            user_data)
{
  g_autoptr(GTask) task = g_task_new (self, cancellable, callback, user_data);
  Job *job;

  g_task_set_source_tag (task, rc_file_reader_run_async);
  if (self->stuck >= self->max_workers)
    {
      if (input_free != NULL && input != NULL)
        input_free (input);
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_BUSY,
                               "%s is not read: all %u file readers are stuck on files that "
                               "do not answer", what, self->max_workers);
      return;
    }
  job = g_new0 (Job, 1);
  g_atomic_ref_count_init (&job->ref);
  job->reader = g_object_ref (self);
  job->context = g_main_context_ref_thread_default ();
  job->what = g_strdup (what);
  job->func = func;
  job->input = input;
  job->input_free = input_free;
  job->result_free = result_free;
  job->task = g_steal_pointer (&task);
  g_queue_push_tail (&self->waiting, job);
  pump (self);
}

gpointer
rc_file_reader_run_finish (RcFileReader *self,
                           GAsyncResult *result,
                           GError      **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

guint
rc_file_reader_get_stuck (RcFileReader *self)
{
  return self->stuck;
}

RcFileReader *
rc_file_reader_new (guint max_workers,
                    guint deadline_ms)
{
  RcFileReader *self = g_object_new (RC_TYPE_FILE_READER, NULL);

  self->max_workers = MAX (max_workers, 1);
  self->deadline_ms = deadline_ms;
  /* at most max_workers threads ever run its jobs, stuck ones included */
  self->pool = g_thread_pool_new (worker, self, (gint) self->max_workers, FALSE, NULL);
  return self;
}

RcFileReader *
rc_file_reader_get_default (void)
{
  static RcFileReader *reader;

  if (reader == NULL)
    reader = rc_file_reader_new (RC_FILE_READER_WORKERS, RC_FILE_READER_DEADLINE_MS);
  return reader;
}

static void
rc_file_reader_finalize (GObject *object)
{
  RcFileReader *self = RC_FILE_READER (object);

  /* every job holds the reader: none is left, and no worker runs */
  g_thread_pool_free (self->pool, TRUE, FALSE);
  G_OBJECT_CLASS (rc_file_reader_parent_class)->finalize (object);
}

static void
rc_file_reader_class_init (RcFileReaderClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = rc_file_reader_finalize;
}

static void
rc_file_reader_init (RcFileReader *self)
{
  g_queue_init (&self->waiting);
}
