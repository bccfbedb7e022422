/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* ListProcesses' bounds: at most so many entries (the lowest pids; the
 * daemon asks for RC_LIST_PROCESSES_MAX), each command line at most
 * RC_PROC_CMDLINE_MAX bytes, read in a worker thread. The processes are this
 * test's own threads (each has its /proc/TID), listed in a fake cgroup's
 * cgroup.procs: a cap of CAP under N_THREADS of them, so that the test also
 * runs under valgrind, which allows 500 threads. */
#include "rc-list-processes.h"
#include "rc-test-hooks.h"
#include "rc-proc-reader.h"

#include <glib/gstdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define N_THREADS 60
#define CAP       40

typedef struct {
  GMutex   lock;
  GCond    cond;
  GArray  *tids;
  gboolean done;
} Threads;

static gpointer
sleeper (gpointer user_data)
{
  Threads *t = user_data;
  guint32 tid = (guint32) syscall (SYS_gettid);

  g_mutex_lock (&t->lock);
  g_array_append_val (t->tids, tid);
  g_cond_broadcast (&t->cond);
  while (!t->done)
    g_cond_wait (&t->cond, &t->lock);
  g_mutex_unlock (&t->lock);
  return NULL;
}

static void
listed_cb (GObject      *source,
           GAsyncResult *result,
           gpointer      user_data)
{
  GVariant **out = user_data;
  g_autoptr(GError) error = NULL;

  *out = rc_list_processes_finish (result, &error);
  g_assert_no_error (error);
}

static void
test_entry_cap (void)
{
  g_autofree char *root = g_dir_make_tmp ("rc-list-processes-XXXXXX", NULL);
  g_autofree char *group = g_build_filename (root, "app.slice", "app-test.scope", NULL);
  g_autofree char *procs_path = g_build_filename (group, "cgroup.procs", NULL);
  g_autoptr(GString) procs = g_string_new (NULL);
  g_autoptr(GPtrArray) threads = g_ptr_array_new ();
  g_autoptr(GVariant) listed = NULL;
  const char *groups[] = { "app.slice/app-test.scope", NULL };
  Threads t = { .tids = g_array_new (FALSE, FALSE, sizeof (guint32)) };
  guint32 previous = 0;

  g_setenv ("RC_CGROUP_ROOT", root, TRUE);
  g_assert_cmpint (g_mkdir_with_parents (group, 0755), ==, 0);
  g_mutex_lock (&t.lock);
  for (guint i = 0; i < N_THREADS; i++)
    g_ptr_array_add (threads, g_thread_new ("sleeper", sleeper, &t));
  while (t.tids->len < N_THREADS)
    g_cond_wait (&t.cond, &t.lock);
  g_mutex_unlock (&t.lock);
  /* every thread twice, in no order: listed once each, the lowest first */
  for (guint i = 0; i < t.tids->len; i++)
    g_string_append_printf (procs, "%u\n%u\n", g_array_index (t.tids, guint32, t.tids->len - 1 - i),
                            g_array_index (t.tids, guint32, i));
  g_assert_true (g_file_set_contents (procs_path, procs->str, -1, NULL));

  rc_list_processes_async (groups, CAP, NULL, listed_cb, &listed);
  while (listed == NULL)
    g_main_context_iteration (NULL, TRUE);
  g_assert_cmpuint (g_variant_n_children (listed), ==, CAP);
  g_assert_cmpint (RC_LIST_PROCESSES_MAX, ==, 1024);   /* as the API documents */
  g_array_sort (t.tids, rc_proc_compare_pids);
  for (gsize i = 0; i < g_variant_n_children (listed); i++)
    {
      guint32 pid;

      g_variant_get_child (listed, i, "(u&s&sttt)", &pid, NULL, NULL, NULL, NULL, NULL);
      g_assert_cmpuint (pid, >, previous);
      g_assert_cmpuint (pid, ==, g_array_index (t.tids, guint32, i));
      previous = pid;
    }

  g_mutex_lock (&t.lock);
  t.done = TRUE;
  g_cond_broadcast (&t.cond);
  g_mutex_unlock (&t.lock);
  for (guint i = 0; i < threads->len; i++)
    g_thread_join (g_ptr_array_index (threads, i));
  g_array_unref (t.tids);
  g_unlink (procs_path);
  g_rmdir (group);
  g_autofree char *slice = g_path_get_dirname (group);
  g_rmdir (slice);
  g_rmdir (root);
}

static void
test_long_command_line (void)
{
  g_autofree char *arg = g_strnfill (100 * 1024, 'x');
  g_autofree char *wide = NULL;
  const char *argv[] = { "/bin/sh", "-c", "sleep 3; :", NULL, NULL };
  g_autoptr(GVariant) proc = NULL;
  const char *cmdline;
  GPid pid;

  /* é is two bytes: the cut must not fall inside one */
  wide = g_strconcat ("y", arg, NULL);
  for (char *p = wide + 1; p[0] != '\0' && p[1] != '\0'; p += 2)
    {
      p[0] = '\xc3';
      p[1] = '\xa9';
    }
  argv[3] = wide;
  g_assert_true (g_spawn_async (NULL, (char **) argv, NULL,
                                G_SPAWN_STDOUT_TO_DEV_NULL | G_SPAWN_STDERR_TO_DEV_NULL,
                                NULL, NULL, &pid, NULL));
  /* the child runs sh once its command line is in place */
  for (guint i = 0; i < 200 && proc == NULL; i++)
    {
      g_autoptr(GVariant) try = rc_proc_usage_variant ((guint32) pid);

      if (try != NULL)
        {
          const char *c;

          g_variant_get_child (try, 2, "&s", &c);
          if (g_str_has_prefix (c, "/bin/sh -c"))
            proc = g_steal_pointer (&try);
        }
      if (proc == NULL)
        g_usleep (10000);
    }
  g_assert_nonnull (proc);
  g_variant_get_child (proc, 2, "&s", &cmdline);
  g_assert_cmpuint (strlen (cmdline), <=, RC_PROC_CMDLINE_MAX);
  g_assert_cmpuint (strlen (cmdline), >, RC_PROC_CMDLINE_MAX - 8);
  g_assert_true (g_str_has_prefix (cmdline, "/bin/sh -c sleep 3; : y"));
  g_assert_true (g_str_has_suffix (cmdline, "…"));
  g_assert_true (g_utf8_validate (cmdline, -1, NULL));
  kill (pid, SIGKILL);
  g_spawn_close_pid (pid);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  /* the fake cgroupfs below is a test hook */
  rc_test_hooks_enable ();
  g_test_add_func ("/processes/entry-cap", test_entry_cap);
  g_test_add_func ("/processes/long-command-line", test_long_command_line);
  return g_test_run ();
}
