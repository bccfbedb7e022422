/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* One cgroup's pressure as the guard and the ladder watch it
 * (rc-pressure-trigger.c), on a fake cgroup tree: the "some" total read,
 * the share between two looks, and a trigger that the tree refuses. */
#include "rc-pressure-trigger.h"
#include "rc-test-hooks.h"
#include "rc-test-util.h"

#include <gio/gio.h>
#include <glib/gstdio.h>

#define SEC G_USEC_PER_SEC
/* a PSI file as the kernel writes it, with the "some" total to fill in */
#define FAKE_TEXT "some avg10=0.00 avg60=0.00 avg300=0.00 total=%u\nfull avg10=0.00 total=7\n"

typedef struct {
  char *root;
  char *file;      /* app.slice's memory.pressure */
  guint stalls;
} Fixture;

static void
fixture_set_up (Fixture      *fixture,
                gconstpointer data)
{
  g_autofree char *dir = NULL;

  fixture->root = g_dir_make_tmp ("rc-test-pressure-trigger-XXXXXX", NULL);
  g_assert_nonnull (fixture->root);
  dir = g_build_filename (fixture->root, "app.slice", NULL);
  g_assert_cmpint (g_mkdir_with_parents (dir, 0755), ==, 0);
  fixture->file = g_build_filename (dir, "memory.pressure", NULL);
  g_setenv ("RC_CGROUP_ROOT", fixture->root, TRUE);
}

static void
fixture_tear_down (Fixture      *fixture,
                   gconstpointer data)
{
  g_unsetenv ("RC_CGROUP_ROOT");
  rc_test_remove_tree (fixture->root);
  g_free (fixture->root);
  g_free (fixture->file);
}

static void
write_total (Fixture *fixture,
             guint    total)
{
  g_autofree char *text = g_strdup_printf (FAKE_TEXT, total);

  g_assert_true (g_file_set_contents (fixture->file, text, -1, NULL));
}

static void
stalled_cb (gpointer user_data)
{
  Fixture *fixture = user_data;

  fixture->stalls++;
}

static void
test_read_some_total (Fixture      *fixture,
                      gconstpointer data)
{
  write_total (fixture, 123456);
  g_assert_cmpuint (rc_cgroup_read_pressure_total ("/app.slice", RC_PRESSURE_MEMORY), ==, 123456);
  /* the file of the pressure asked for, and no other */
  g_assert_cmpuint (rc_cgroup_read_pressure_total ("/app.slice", RC_PRESSURE_CPU), ==, G_MAXUINT64);
  g_assert_cmpuint (rc_cgroup_read_pressure_total ("/gone.slice", RC_PRESSURE_MEMORY), ==,
                    G_MAXUINT64);
  g_assert_cmpuint (rc_cgroup_read_pressure_total (NULL, RC_PRESSURE_MEMORY), ==, G_MAXUINT64);
  g_assert_true (g_file_set_contents (fixture->file, "some avg10=0.00\n", -1, NULL));
  g_assert_cmpuint (rc_cgroup_read_pressure_total ("/app.slice", RC_PRESSURE_MEMORY), ==,
                    G_MAXUINT64);
}

static void
test_looks (Fixture      *fixture,
            gconstpointer data)
{
  g_autoptr(RcPressureTrigger) trigger = NULL;
  gboolean first = TRUE;

  /* the first total is read when it is made */
  write_total (fixture, 1000);
  trigger = rc_pressure_trigger_new ("/app.slice", RC_PRESSURE_MEMORY, "Test", stalled_cb,
                                     fixture);
  g_assert_cmpstr (rc_pressure_trigger_get_control_group (trigger), ==, "/app.slice");
  g_assert_true (rc_pressure_trigger_has_total (trigger));
  g_assert_false (rc_pressure_trigger_is_armed (trigger));
  write_total (fixture, 1000 + 230000);
  g_assert_cmpfloat_with_epsilon (rc_pressure_trigger_look (trigger, SEC, &first), 23.0, 1e-9);
  g_assert_false (first);
  /* each look is the base of the next */
  write_total (fixture, 1000 + 330000);
  g_assert_cmpfloat_with_epsilon (rc_pressure_trigger_look (trigger, SEC, NULL), 10.0, 1e-9);

  /* unreadable: no share, and none at the look after */
  g_assert_cmpint (g_remove (fixture->file), ==, 0);
  g_assert_cmpfloat (rc_pressure_trigger_look (trigger, SEC, &first), ==, 0.0);
  g_assert_false (first);
  g_assert_false (rc_pressure_trigger_has_total (trigger));
  write_total (fixture, 900000);
  g_assert_cmpfloat (rc_pressure_trigger_look (trigger, SEC, &first), ==, 0.0);
  g_assert_true (first);
  g_assert_true (rc_pressure_trigger_has_total (trigger));
  write_total (fixture, 900000 + 50000);
  g_assert_cmpfloat_with_epsilon (rc_pressure_trigger_look (trigger, SEC, &first), 5.0, 1e-9);
  g_assert_false (first);
  g_assert_cmpuint (fixture->stalls, ==, 0);
}

static void
test_refused (Fixture      *fixture,
              gconstpointer data)
{
  g_autoptr(RcPressureTrigger) fake = NULL;
  g_autoptr(RcPressureTrigger) gone = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;

  /* a file of a fake tree takes no trigger, and is left as it was */
  write_total (fixture, 1000);
  fake = rc_pressure_trigger_new ("/app.slice", RC_PRESSURE_MEMORY, "Test", stalled_cb, fixture);
  g_assert_false (rc_pressure_trigger_arm (fake, "some 200000 2000000", &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED);
  g_assert_false (rc_pressure_trigger_is_armed (fake));
  g_assert_true (g_file_get_contents (fixture->file, &text, NULL, NULL));
  g_assert_true (g_str_has_suffix (text, "total=7\n"));
  g_clear_error (&error);

  /* a cgroup that is not there: the caller tells that from a refusal */
  gone = rc_pressure_trigger_new ("/gone.slice", RC_PRESSURE_MEMORY, "Test", stalled_cb, fixture);
  g_assert_false (rc_pressure_trigger_has_total (gone));
  g_assert_false (rc_pressure_trigger_arm (gone, "some 200000 2000000", &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
  g_assert_false (rc_pressure_trigger_is_armed (gone));
  rc_pressure_trigger_disarm (gone);
  g_assert_cmpuint (fixture->stalls, ==, 0);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  rc_test_hooks_enable ();
  g_test_add ("/pressure-trigger/read-some-total", Fixture, NULL, fixture_set_up,
              test_read_some_total, fixture_tear_down);
  g_test_add ("/pressure-trigger/looks", Fixture, NULL, fixture_set_up, test_looks,
              fixture_tear_down);
  g_test_add ("/pressure-trigger/refused", Fixture, NULL, fixture_set_up, test_refused,
              fixture_tear_down);
  return g_test_run ();
}
