/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* RcFileReader: a read that never answers (a FIFO opened blocking stands in
 * for a hung FUSE mount) completes with a timeout on the main loop; when
 * every worker is stuck a read fails at once; a worker that comes back
 * frees its place; a read's deadline counts from when a worker takes it,
 * not from when it was asked for behind many others. */
#include "rc-file-reader.h"
#include "rc-safe-file.h"
#include "rc-test-util.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#define DEADLINE_MS 200

/* What the daemon must never do on its main loop: a blocking open. */
static gpointer
blocking_read (gpointer input,
               GError **error)
{
  char buffer[16];
  int fd = open (input, O_RDONLY | O_CLOEXEC);
  ssize_t n;

  if (fd < 0)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_FAILED, "open failed");
      return NULL;
    }
  n = read (fd, buffer, sizeof buffer);
  close (fd);
  return GINT_TO_POINTER (n >= 0 ? (int) n + 1 : 1);
}

static gpointer
safe_read (gpointer input,
           GError **error)
{
  char *contents = NULL;

  if (!rc_safe_file_read (input, 64, &contents, NULL, error))
    return NULL;
  return contents;
}

typedef struct {
  gboolean done;
  gpointer result;
  GError  *error;
  gint64   took_us;
  gint64   since;
} Outcome;

static void
read_cb (GObject      *source,
         GAsyncResult *result,
         gpointer      user_data)
{
  Outcome *outcome = user_data;

  outcome->result = rc_file_reader_run_finish (RC_FILE_READER (source), result,
                                               &outcome->error);
  outcome->took_us = g_get_monotonic_time () - outcome->since;
  outcome->done = TRUE;
}

static void
start_read (RcFileReader  *reader,
            RcFileReadFunc func,
            const char    *path,
            GDestroyNotify result_free,
            Outcome       *outcome)
{
  outcome->since = g_get_monotonic_time ();
  rc_file_reader_run_async (reader, path, func, g_strdup (path), g_free, result_free, NULL,
                            read_cb, outcome);
}

static void
wait_for (Outcome *outcome)
{
  while (!outcome->done)
    g_main_context_iteration (NULL, TRUE);
}

static void
test_deadline_and_stuck_workers (void)
{
  g_autofree char *dir = g_dir_make_tmp ("rc-file-reader-XXXXXX", NULL);
  g_autofree char *fifo = g_build_filename (dir, "fifo", NULL);
  g_autofree char *file = g_build_filename (dir, "file", NULL);
  g_autoptr(RcFileReader) reader = rc_file_reader_new (1, DEADLINE_MS);
  Outcome stuck = { 0, }, busy = { 0, }, after = { 0, };
  int writer;

  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
  g_assert_true (g_file_set_contents (file, "hello", -1, NULL));

  /* the blocked read is answered at its deadline, on the main loop */
  start_read (reader, blocking_read, fifo, NULL, &stuck);
  wait_for (&stuck);
  g_assert_error (stuck.error, G_IO_ERROR, G_IO_ERROR_TIMED_OUT);
  g_assert_cmpint (stuck.took_us, >=, DEADLINE_MS * 1000 - 1000);
  g_assert_cmpint (stuck.took_us, <, DEADLINE_MS * 1000 * 10);
  g_assert_cmpuint (rc_file_reader_get_stuck (reader), ==, 1);

  /* its only worker is stuck: the next read fails at once, no new thread */
  start_read (reader, safe_read, file, g_free, &busy);
  wait_for (&busy);
  g_assert_error (busy.error, G_IO_ERROR, G_IO_ERROR_BUSY);
  g_assert_cmpint (busy.took_us, <, DEADLINE_MS * 1000);

  /* the path answers at last: the worker comes back and reads again */
  writer = open (fifo, O_WRONLY | O_CLOEXEC);
  g_assert_cmpint (writer, >=, 0);
  close (writer);
  while (rc_file_reader_get_stuck (reader) > 0)
    g_main_context_iteration (NULL, TRUE);
  start_read (reader, safe_read, file, g_free, &after);
  wait_for (&after);
  g_assert_no_error (after.error);
  g_assert_cmpstr (after.result, ==, "hello");
  g_free (after.result);

  g_clear_error (&stuck.error);
  g_clear_error (&busy.error);
  rc_test_remove_tree (dir);
}

/* A read that takes a tenth of the deadline. */
static gpointer
slow_read (gpointer input,
           GError **error)
{
  g_usleep (DEADLINE_MS * 1000 / 10);
  return input;
}

/* Start-up asks for a thousand reads at once: those that wait for a free
 * worker longer than the deadline are still read, not given up. */
static void
test_waiting_reads_keep_their_deadline (void)
{
  g_autoptr(RcFileReader) reader = rc_file_reader_new (1, DEADLINE_MS);
  Outcome outcomes[20] = { { 0, }, };

  for (guint i = 0; i < G_N_ELEMENTS (outcomes); i++)
    {
      outcomes[i].since = g_get_monotonic_time ();
      rc_file_reader_run_async (reader, "a slow file", slow_read, GUINT_TO_POINTER (i + 1), NULL,
                                NULL, NULL, read_cb, &outcomes[i]);
    }
  for (guint i = 0; i < G_N_ELEMENTS (outcomes); i++)
    {
      wait_for (&outcomes[i]);
      g_assert_no_error (outcomes[i].error);
      g_assert_cmpuint (GPOINTER_TO_UINT (outcomes[i].result), ==, i + 1);
    }
  /* the last waited for the nineteen before it, well past one deadline */
  g_assert_cmpint (outcomes[19].took_us, >, DEADLINE_MS * 1000);
  g_assert_cmpuint (rc_file_reader_get_stuck (reader), ==, 0);
}

static void
test_file_read_errors_pass_through (void)
{
  g_autoptr(RcFileReader) reader = rc_file_reader_new (2, 5000);
  Outcome outcome = { 0, };

  start_read (reader, safe_read, "/dev/zero", g_free, &outcome);
  wait_for (&outcome);
  g_assert_error (outcome.error, G_FILE_ERROR, G_FILE_ERROR_INVAL);
  g_assert_cmpuint (rc_file_reader_get_stuck (reader), ==, 0);
  g_clear_error (&outcome.error);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/file-reader/deadline-and-stuck-workers", test_deadline_and_stuck_workers);
  g_test_add_func ("/file-reader/file-read-errors-pass-through", test_file_read_errors_pass_through);
  g_test_add_func ("/file-reader/waiting-reads-keep-their-deadline",
                   test_waiting_reads_keep_their_deadline);
  return g_test_run ();
}
