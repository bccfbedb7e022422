/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What a hostile process of the same user can make the daemon do through
 * the files it may write: bounded, and off the main loop where it reads. */
#include <glib/gstdio.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rc-watch-set.h"
#include "rc-notifier.h"
#include "rc-pinned-pid.h"
#include "rc-rules.h"
#include "rc-test-util.h"

static void
write_file (const char *dir,
            const char *name,
            const char *text,
            gsize       length)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);

  g_assert_cmpint (g_mkdir_with_parents (dir, 0700), ==, 0);
  g_assert_true (g_file_set_contents (path, text, length, NULL));
}

/* At most 4 MiB is read in all: six files of 900 KiB give the rules of the
 * first four, and the rest is said once each. */
static void
test_rules_total_bytes (void)
{
  g_autofree char *root = NULL;
  g_autofree char *system_dir = NULL;
  g_autofree char *user_dir = NULL;
  gsize size = 900 * 1024;
  g_autofree char *text = g_malloc (size);
  g_autoptr(RcRules) rules = NULL;

  /* What is skipped is a warning, fatal in a test: in a child that may warn. */
  if (!g_test_subprocess ())
    {
      g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
      g_test_trap_assert_passed ();
      g_test_trap_assert_stderr ("*04.conf*bytes one reading*05.conf*bytes one reading*");
      return;
    }
  g_log_set_always_fatal (G_LOG_FATAL_MASK | G_LOG_LEVEL_CRITICAL);
  root = g_dir_make_tmp ("rc-bounds-XXXXXX", NULL);
  system_dir = g_build_filename (root, "system", NULL);
  user_dir = g_build_filename (root, "user", NULL);

  for (guint i = 0; i < 6; i++)
    {
      g_autofree char *name = g_strdup_printf ("%02u.conf", i);
      int head = g_snprintf (text, size, "[org.example.App%u]\nCPUWeight=50\n#", i);

      memset (text + head, 'x', size - head - 1);
      text[size - 1] = '\n';
      write_file (system_dir, name, text, size);
    }
  rules = rc_rules_new (system_dir, user_dir);
  g_assert_nonnull (rc_rules_lookup (rules, "org.example.App0"));
  g_assert_nonnull (rc_rules_lookup (rules, "org.example.App3"));
  g_assert_null (rc_rules_lookup (rules, "org.example.App4"));
  g_assert_null (rc_rules_lookup (rules, "org.example.App5"));
  g_clear_object (&rules);
  rc_test_remove_tree (root);
}

/* A folder of many names is not listed to its end. */
static void
test_rules_folder_entries (void)
{
  g_autofree char *root = NULL;
  g_autofree char *system_dir = NULL;
  g_autofree char *user_dir = NULL;
  g_autoptr(RcRules) rules = NULL;

  if (!g_test_subprocess ())
    {
      g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
      g_test_trap_assert_passed ();
      g_test_trap_assert_stderr ("*has more than 1024 entries: only 1024 of them were looked at*");
      return;
    }
  g_log_set_always_fatal (G_LOG_FATAL_MASK | G_LOG_LEVEL_CRITICAL);
  root = g_dir_make_tmp ("rc-bounds-XXXXXX", NULL);
  system_dir = g_build_filename (root, "system", NULL);
  user_dir = g_build_filename (root, "user", NULL);
  for (guint i = 0; i < 1100; i++)
    {
      g_autofree char *name = g_strdup_printf ("junk-%04u", i);

      write_file (user_dir, name, "", 0);
    }
  rules = rc_rules_new (system_dir, user_dir);
  g_clear_object (&rules);
  rc_test_remove_tree (root);
}

typedef struct {
  char  *user_dir;
  guint  writes;
  guint  changes;
  gint64 first_write_usec;   /* monotonic */
  gint64 last_write_usec;
} Burst;

static gboolean
burst_write_cb (gpointer user_data)
{
  Burst *burst = user_data;
  g_autofree char *text = NULL;

  burst->writes++;
  burst->last_write_usec = g_get_monotonic_time ();
  if (burst->writes == 1)
    burst->first_write_usec = burst->last_write_usec;
  text = g_strdup_printf ("[org.example.Burst%u]\nCPUWeight=50\n%s", burst->writes,
                          burst->writes == 75 ? "[org.example.Last]\nCPUWeight=60\n" : "");
  write_file (burst->user_dir, "burst.conf", text, -1);
  return burst->writes < 75 ? G_SOURCE_CONTINUE : G_SOURCE_REMOVE;
}

static void
count_change_cb (RcRules *rules,
                 Burst   *burst)
{
  burst->changes++;
}

static gboolean
deadline_cb (gpointer user_data)
{
  g_assert_not_reached ();
  return G_SOURCE_REMOVE;
}

/* A program that rewrites the folder every 20 ms for 1.5 s: the rules are
 * read once when it starts, then at most once a second, and its last
 * write is in force in the end. On a loaded machine the 75 writes take
 * longer than 1.5 s: the bound is one reading at the start, one a second
 * of the burst as it really lasted, and the last. */
static void
test_rules_burst_is_coalesced (void)
{
  g_autofree char *root = g_dir_make_tmp ("rc-bounds-XXXXXX", NULL);
  g_autofree char *system_dir = g_build_filename (root, "system", NULL);
  Burst burst = { .user_dir = g_build_filename (root, "user", NULL) };
  g_autoptr(RcRules) rules = rc_rules_new (system_dir, burst.user_dir);
  guint deadline;

  g_signal_connect (rules, "changed", G_CALLBACK (count_change_cb), &burst);
  g_timeout_add (20, burst_write_cb, &burst);
  deadline = g_timeout_add_seconds (20, deadline_cb, NULL);
  while (rc_rules_lookup (rules, "org.example.Last") == NULL)
    g_main_context_iteration (NULL, TRUE);
  g_source_remove (deadline);
  g_assert_cmpuint (burst.writes, ==, 75);
  g_assert_cmpuint (burst.changes, >=, 1);
  g_assert_cmpuint (burst.changes, <=,
                    2 + (burst.last_write_usec - burst.first_write_usec + G_USEC_PER_SEC - 1) /
                    G_USEC_PER_SEC);
  g_clear_object (&rules);
  g_free (burst.user_dir);
  rc_test_remove_tree (root);
}

/* Five at once, then one each 12 s, never more than five saved up. */
static void
test_notify_budget (void)
{
  RcNotifyBudget budget = { 0, };
  gint64 t = (gint64) 1000 * G_USEC_PER_SEC;
  gint64 refill = (gint64) RC_NOTIFY_REFILL_SEC * G_USEC_PER_SEC;

  for (guint i = 0; i < RC_NOTIFY_BURST; i++)
    g_assert_true (rc_notify_budget_take (&budget, t));
  g_assert_false (rc_notify_budget_take (&budget, t));
  g_assert_cmpint (rc_notify_budget_wait_us (&budget, t), ==, refill);
  g_assert_false (rc_notify_budget_take (&budget, t + refill - 1));
  g_assert_true (rc_notify_budget_take (&budget, t + refill));
  g_assert_false (rc_notify_budget_take (&budget, t + refill + 1));
  /* an hour of quiet saves up five, not three hundred */
  t += (gint64) 3600 * G_USEC_PER_SEC;
  for (guint i = 0; i < RC_NOTIFY_BURST; i++)
    g_assert_true (rc_notify_budget_take (&budget, t));
  g_assert_false (rc_notify_budget_take (&budget, t));
}

static void
test_notify_shown_name (void)
{
  g_autofree char *long_name = g_strnfill (200, 'y');
  g_autofree char *escaped = rc_notify_shown_name ("<b>A</b> & \"B\"", TRUE);
  g_autofree char *plain = rc_notify_shown_name ("<b>A</b>", FALSE);
  g_autofree char *cut = rc_notify_shown_name (long_name, FALSE);
  g_autofree char *invalid = rc_notify_shown_name ("A\xff", TRUE);

  g_assert_cmpstr (escaped, ==, "&lt;b&gt;A&lt;/b&gt; &amp; &quot;B&quot;");
  g_assert_cmpstr (plain, ==, "<b>A</b>");
  g_assert_cmpint (g_utf8_strlen (cut, -1), ==, RC_NOTIFY_NAME_MAX);
  g_assert_true (g_str_has_suffix (cut, "…"));
  g_assert_true (g_utf8_validate (invalid, -1, NULL));
}

static void
collect_keys_cb (GPtrArray *keys,
                 gpointer   user_data)
{
  GPtrArray *seen = user_data;

  for (guint i = 0; i < keys->len; i++)
    g_ptr_array_add (seen, g_strdup (g_ptr_array_index (keys, i)));
}

static void
touch (const char *root,
       guint       i)
{
  g_autofree char *name = g_strdup_printf ("f%u", i);
  g_autofree char *path = g_build_filename (root, name, NULL);
  FILE *file = g_fopen (path, "w");

  /* written in place, as the kernel changes memory.events: IN_MODIFY */
  g_assert_nonnull (file);
  g_assert_cmpint (fputs ("x", file), >=, 0);
  g_assert_cmpint (fclose (file), ==, 0);
}

/* The changes handed over once the writes are in (the set's interval is 0). */
static void
wait_for_keys (GPtrArray *seen)
{
  guint deadline = g_timeout_add_seconds (10, deadline_cb, NULL);

  while (seen->len == 0)
    g_main_context_iteration (NULL, TRUE);
  g_source_remove (deadline);
}

/* Past the cap a key waits unwatched; a freed watch goes to one waiting. */
static void
test_inotify_cap (void)
{
  g_autofree char *root = g_dir_make_tmp ("rc-bounds-XXXXXX", NULL);
  g_autoptr(GPtrArray) seen = g_ptr_array_new_with_free_func (g_free);
  RcWatchSet *set;

  g_assert_cmpuint (rc_watch_cap_for_limit (8192), ==, 2048);
  g_assert_cmpuint (rc_watch_cap_for_limit (0), ==, 2048);
  g_assert_cmpuint (rc_watch_cap_for_limit (1048576), ==, 262144);
  rc_watch_set_cap (3);
  set = rc_watch_set_new ("Test", IN_MODIFY, 0, collect_keys_cb, seen);
  for (guint i = 0; i < 5; i++)
    {
      g_autofree char *key = g_strdup_printf ("k%u", i);
      g_autofree char *name = g_strdup_printf ("f%u", i);
      g_autofree char *path = g_build_filename (root, name, NULL);

      touch (root, i);
      g_assert_cmpint (rc_watch_set_add (set, key, path), ==, i < 3);
    }
  g_assert_cmpuint (rc_watch_count (), ==, 3);
  /* a waiting key's change is not followed */
  touch (root, 3);
  touch (root, 4);
  touch (root, 0);
  wait_for_keys (seen);
  g_assert_cmpuint (seen->len, ==, 1);
  g_assert_cmpstr (g_ptr_array_index (seen, 0), ==, "k0");
  g_ptr_array_set_size (seen, 0);
  /* k1 ends: one of k3 and k4 is watched in its place */
  rc_watch_set_remove (set, "k1");
  g_assert_cmpuint (rc_watch_count (), ==, 3);
  touch (root, 3);
  touch (root, 4);
  touch (root, 0);
  wait_for_keys (seen);
  g_assert_cmpuint (seen->len, ==, 2);
  g_assert_true (g_ptr_array_find_with_equal_func (seen, "k0", g_str_equal, NULL));
  g_assert_true (g_ptr_array_find_with_equal_func (seen, "k3", g_str_equal, NULL) !=
                 g_ptr_array_find_with_equal_func (seen, "k4", g_str_equal, NULL));
  rc_watch_set_free (set);
  g_assert_cmpuint (rc_watch_count (), ==, 0);
  rc_watch_set_cap (0);
  rc_test_remove_tree (root);
}

/* A pinned pid follows its process: once it ended (and was reaped), the
 * pid is no longer taken for it, whatever process has the number now. Under
 * valgrind, which has no pidfd_open, the start time alone pins it. */
static void
test_pinned_pid (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(RcPinnedPid) own = rc_pinned_pid_new ((guint32) getpid (), &error);
  g_autoptr(RcPinnedPid) child_pin = NULL;
  g_autoptr(RcPinnedPid) gone = NULL;
  RcPinnedPid other;
  pid_t child;
  int status;

  g_assert_no_error (error);
  g_assert_true (rc_pinned_pid_is_ours (own));
  /* the same pid with another start time is another process */
  other = *own;
  other.start_time++;
  other.pidfd = -1;
  g_assert_false (rc_pinned_pid_is_ours (&other));
  child = fork ();
  if (child == 0)
    _exit (0);
  child_pin = rc_pinned_pid_new ((guint32) child, &error);
  g_assert_no_error (error);
  g_assert_cmpint (waitpid (child, &status, 0), ==, child);
  g_assert_false (rc_pinned_pid_is_ours (child_pin));
  gone = rc_pinned_pid_new ((guint32) child, &error);
  g_assert_null (gone);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/hostile-bounds/rules-total-bytes", test_rules_total_bytes);
  g_test_add_func ("/hostile-bounds/rules-folder-entries", test_rules_folder_entries);
  g_test_add_func ("/hostile-bounds/rules-burst-is-coalesced", test_rules_burst_is_coalesced);
  g_test_add_func ("/hostile-bounds/notify-budget", test_notify_budget);
  g_test_add_func ("/hostile-bounds/notify-shown-name", test_notify_shown_name);
  g_test_add_func ("/hostile-bounds/inotify-cap", test_inotify_cap);
  g_test_add_func ("/hostile-bounds/pinned-pid", test_pinned_pid);
  return g_test_run ();
}
