/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* rc_desktop_lookup and rc_desktop_list: the Desktop Entry spec's lookup
 * (user folder first, subfolders as '-'), Hidden, and files that must not
 * stall or fill the reader (a FIFO, /dev/zero). */
#include "rc-desktop-lookup.h"
#include "rc-test-util.h"

#include <sys/stat.h>
#include <unistd.h>

static char *root;
static char *user_apps;
static char *system_apps;

static void
write_app (const char *folder,
           const char *relative,
           const char *name,
           const char *extra)
{
  g_autofree char *path = g_build_filename (folder, relative, NULL);
  g_autofree char *dir = g_path_get_dirname (path);
  g_autofree char *text = g_strdup_printf ("[Desktop Entry]\nType=Application\nName=%s\n"
                                           "Exec=/bin/true\nIcon=icon.png\n%s", name,
                                           extra != NULL ? extra : "");

  g_assert_cmpint (g_mkdir_with_parents (dir, 0700), ==, 0);
  g_assert_true (g_file_set_contents (path, text, -1, NULL));
}

static void
test_lookup (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(RcDesktopEntry) user = NULL;
  g_autoptr(RcDesktopEntry) sub = NULL;
  g_autoptr(RcDesktopEntry) hidden = NULL;
  g_autoptr(RcDesktopEntry) fifo = NULL;
  g_autoptr(RcDesktopEntry) zero = NULL;
  g_autoptr(RcDesktopEntry) escape = NULL;
  g_autofree char *fifo_path = g_build_filename (user_apps, "org.example.Fifo.desktop", NULL);
  g_autofree char *zero_path = g_build_filename (user_apps, "org.example.Zero.desktop", NULL);

  write_app (system_apps, "org.example.Both.desktop", "System", NULL);
  write_app (user_apps, "org.example.Both.desktop", "User", NULL);
  write_app (system_apps, "kde/org.example.Sub.desktop", "Sub", NULL);
  write_app (system_apps, "org.example.Gone.desktop", "Gone", NULL);
  write_app (user_apps, "org.example.Gone.desktop", "Gone", "Hidden=true\n");
  g_assert_cmpint (mkfifo (fifo_path, 0600), ==, 0);
  g_assert_cmpint (symlink ("/dev/zero", zero_path), ==, 0);
  write_app (system_apps, "org.example.Fifo.desktop", "Shadowed", NULL);

  user = rc_desktop_lookup ("org.example.Both", &error);
  g_assert_no_error (error);
  g_assert_cmpstr (user->name, ==, "User");
  g_assert_cmpstr (user->icon, ==, "icon");
  g_assert_cmpstr (user->executable, ==, "/bin/true");
  sub = rc_desktop_lookup ("kde-org.example.Sub", &error);
  g_assert_no_error (error);
  g_assert_cmpstr (sub->name, ==, "Sub");
  g_assert_true (g_str_has_suffix (sub->path, "/kde/org.example.Sub.desktop"));
  hidden = rc_desktop_lookup ("org.example.Gone", &error);
  g_assert_null (hidden);
  g_assert_error (error, G_FILE_ERROR, G_FILE_ERROR_NOENT);
  g_clear_error (&error);
  /* a FIFO is there, unread, and hides the system's file */
  fifo = rc_desktop_lookup ("org.example.Fifo", &error);
  g_assert_null (fifo);
  g_assert_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL);
  g_clear_error (&error);
  zero = rc_desktop_lookup ("org.example.Zero", &error);
  g_assert_null (zero);
  g_assert_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL);
  g_clear_error (&error);
  escape = rc_desktop_lookup ("../applications/org.example.Both", &error);
  g_assert_null (escape);
  g_assert_error (error, G_FILE_ERROR, G_FILE_ERROR_NOENT);
}

static void
collect (const char     *desktop_id,
         RcDesktopEntry *entry,
         gpointer        user_data)
{
  g_hash_table_insert (user_data, g_strdup (desktop_id), g_strdup (entry->name));
}

static void
test_list (void)
{
  g_autoptr(GHashTable) seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  g_autofree char *stamp = NULL;
  g_autofree char *again = NULL;
  g_autofree char *changed = NULL;

  rc_desktop_list (collect, seen, &stamp);
  g_assert_cmpstr (g_hash_table_lookup (seen, "org.example.Both.desktop"), ==, "User");
  g_assert_cmpstr (g_hash_table_lookup (seen, "kde-org.example.Sub.desktop"), ==, "Sub");
  g_assert_false (g_hash_table_contains (seen, "org.example.Gone.desktop"));
  g_assert_false (g_hash_table_contains (seen, "org.example.Fifo.desktop"));
  again = rc_desktop_dirs_stamp ();
  g_assert_cmpstr (stamp, ==, again);
  /* mtimes have a coarse clock: wait until a new file shows */
  for (guint i = 0; changed == NULL || g_str_equal (changed, stamp); i++)
    {
      g_autofree char *name = g_strdup_printf ("org.example.New%u.desktop", i);

      g_clear_pointer (&changed, g_free);
      write_app (user_apps, name, "New", NULL);
      changed = rc_desktop_dirs_stamp ();
      if (g_str_equal (changed, stamp))
        g_usleep (10000);
    }
}

int
main (int   argc,
      char *argv[])
{
  int result;

  root = g_dir_make_tmp ("rc-desktop-lookup-XXXXXX", NULL);
  user_apps = g_build_filename (root, "home", "applications", NULL);
  system_apps = g_build_filename (root, "system", "applications", NULL);
  {
    g_autofree char *home = g_build_filename (root, "home", NULL);
    g_autofree char *system = g_build_filename (root, "system", NULL);

    g_setenv ("XDG_DATA_HOME", home, TRUE);
    g_setenv ("XDG_DATA_DIRS", system, TRUE);
  }
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/desktop-lookup/lookup", test_lookup);
  g_test_add_func ("/desktop-lookup/list", test_list);
  result = g_test_run ();
  rc_test_remove_tree (root);
  return result;
}
