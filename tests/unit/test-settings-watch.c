/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* RcSettingsWatch against a real inotify on a temporary tree: drop-ins
 * written the way systemd writes them (a temporary file renamed), in
 * folders that exist at the start and in folders made later. */
#include "rc-settings-watch.h"
#include "rc-test-util.h"

#include <glib/gstdio.h>

typedef struct {
  char      *root;
  GPtrArray *heard;     /* unit names, "*" for every unit */
} Fixture;

static void
changed_cb (RcSettingsWatch *watch,
            const char      *unit,
            Fixture         *fixture)
{
  g_ptr_array_add (fixture->heard, g_strdup (unit != NULL ? unit : "*"));
}

static void
fixture_set_up (Fixture      *fixture,
                gconstpointer data)
{
  fixture->root = g_dir_make_tmp ("rc-settings-watch-XXXXXX", NULL);
  g_assert_nonnull (fixture->root);
  fixture->heard = g_ptr_array_new_with_free_func (g_free);
}

static void
fixture_tear_down (Fixture      *fixture,
                   gconstpointer data)
{
  rc_test_remove_tree (fixture->root);
  g_free (fixture->root);
  g_ptr_array_unref (fixture->heard);
}

static char *
path_in (Fixture    *fixture,
         const char *relative)
{
  return g_build_filename (fixture->root, relative, NULL);
}

/* What systemd does: write a temporary file, rename it into place. */
static void
write_drop_in (Fixture    *fixture,
               const char *folder,
               const char *name)
{
  g_autofree char *dir = path_in (fixture, folder);
  g_autofree char *tmp = g_build_filename (dir, ".#tmp", NULL);
  g_autofree char *path = g_build_filename (dir, name, NULL);

  g_assert_cmpint (g_mkdir_with_parents (dir, 0755), ==, 0);
  g_assert_true (g_file_set_contents (tmp, "[Scope]\nCPUWeight=50\n", -1, NULL));
  g_assert_cmpint (g_rename (tmp, path), ==, 0);
}

/* Runs the main loop until @unit was heard (or 5 s passed). */
static gboolean
heard (Fixture    *fixture,
       const char *unit)
{
  gint64 deadline = g_get_monotonic_time () + 5 * G_USEC_PER_SEC;

  while (g_get_monotonic_time () < deadline)
    {
      for (guint i = 0; i < fixture->heard->len; i++)
        if (g_str_equal (g_ptr_array_index (fixture->heard, i), unit))
          return TRUE;
      g_main_context_iteration (NULL, FALSE);
      g_usleep (1000);
    }
  return FALSE;
}

static RcSettingsWatch *
watch_new (Fixture *fixture)
{
  g_autofree char *transient = path_in (fixture, "run/systemd/transient");
  g_autofree char *control = path_in (fixture, "config/systemd/user.control");
  const char * const folders[] = { transient, control, NULL };
  RcSettingsWatch *watch;
  g_autofree char *made = path_in (fixture, "run/systemd/transient");

  g_assert_cmpint (g_mkdir_with_parents (made, 0755), ==, 0);
  watch = rc_settings_watch_new (folders);
  g_assert_true (rc_settings_watch_is_working (watch));
  g_signal_connect (watch, "changed", G_CALLBACK (changed_cb), fixture);
  return watch;
}

static void
test_existing_folder (Fixture      *fixture,
                      gconstpointer data)
{
  g_autoptr(RcSettingsWatch) watch = NULL;

  /* a unit folder made before the watch, and one after */
  write_drop_in (fixture, "run/systemd/transient/app-a-1.scope.d", "50-CPUWeight.conf");
  watch = watch_new (fixture);
  write_drop_in (fixture, "run/systemd/transient/app-a-1.scope.d", "50-MemoryMax.conf");
  g_assert_true (heard (fixture, "app-a-1.scope"));
  write_drop_in (fixture, "run/systemd/transient/app-b-2.scope.d", "50-CPUWeight.conf");
  g_assert_true (heard (fixture, "app-b-2.scope"));
  /* a transient unit file itself is no setting change */
  g_ptr_array_set_size (fixture->heard, 0);
  write_drop_in (fixture, "run/systemd/transient", "app-c-3.scope");
  write_drop_in (fixture, "run/systemd/transient/app-d-4.scope.d", "50-CPUWeight.conf");
  g_assert_true (heard (fixture, "app-d-4.scope"));
  for (guint i = 0; i < fixture->heard->len; i++)
    g_assert_cmpstr (g_ptr_array_index (fixture->heard, i), !=, "app-c-3.scope");
}

static void
test_folder_made_later (Fixture      *fixture,
                        gconstpointer data)
{
  g_autoptr(RcSettingsWatch) watch = watch_new (fixture);

  /* config/systemd/user.control does not exist: systemd makes it, with
   * its parents, at the first persistent change */
  write_drop_in (fixture, "config/systemd/user.control/app-x@1.service.d", "50-CPUWeight.conf");
  g_assert_true (heard (fixture, "*"));
  g_ptr_array_set_size (fixture->heard, 0);
  write_drop_in (fixture, "config/systemd/user.control/app-x@1.service.d", "50-MemoryMax.conf");
  g_assert_true (heard (fixture, "app-x@1.service"));
  write_drop_in (fixture, "config/systemd/user.control/app-y@2.service.d", "50-CPUWeight.conf");
  g_assert_true (heard (fixture, "app-y@2.service"));
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add ("/settings-watch/existing-folder", Fixture, NULL, fixture_set_up,
              test_existing_folder, fixture_tear_down);
  g_test_add ("/settings-watch/folder-made-later", Fixture, NULL, fixture_set_up,
              test_folder_made_later, fixture_tear_down);
  return g_test_run ();
}
