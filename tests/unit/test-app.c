/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* rc_app_to_variant builds each record from shared keys and its parts, and
 * reads the cgroup from one folder fd: the record must be the one the
 * straightforward GVariantBuilder code gives, whatever the sizes and the
 * cgroup's contents (cgroup.procs longer than one read, no cgroup). */
#include "rc-app.h"
#include "rc-test-hooks.h"
#include "rc-cgroup.h"
#include "rc-test-util.h"

#include <glib/gstdio.h>

static char *cgroup_root;

static void
write_file (const char *dir,
            const char *name,
            const char *contents)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  FILE *file = fopen (path, "w");

  /* in place, as the kernel's files change: a reader may keep it open */
  g_assert_nonnull (file);
  g_assert_cmpint (fputs (contents, file), >=, 0);
  g_assert_cmpint (fclose (file), ==, 0);
}

/* A cgroup folder as the kernel shows it, with @n_pids processes. */
static char *
make_cgroup (const char *name,
             guint       n_pids,
             gboolean    with_io)
{
  g_autofree char *dir = g_build_filename (cgroup_root, name, NULL);
  g_autoptr(GString) procs = g_string_new ("");

  g_assert_cmpint (g_mkdir_with_parents (dir, 0755), ==, 0);
  for (guint i = 0; i < n_pids; i++)
    g_string_append_printf (procs, "%u\n", 1000 + i * 7);
  write_file (dir, "cgroup.procs", procs->str);
  write_file (dir, "cpu.weight", "250\n");
  write_file (dir, "cpu.max", "50000 100000\n");
  write_file (dir, "cpu.stat", "usage_usec 1234567\nuser_usec 1000000\n");
  write_file (dir, "memory.low", "0\n");
  write_file (dir, "memory.min", "16777216\n");
  write_file (dir, "memory.swap.max", "max\n");
  write_file (dir, "memory.high", "max\n");
  write_file (dir, "memory.max", "536870912\n");
  write_file (dir, "memory.current", "52428800\n");
  write_file (dir, "pids.max", "4915\n");
  write_file (dir, "pids.current", "3\n");
  if (with_io)
    {
      /* a host with PSI and memory.events; the others have neither */
      write_file (dir, "io.weight", "default 300\n8:0 200\n");
      write_file (dir, "memory.events", "low 0\nhigh 12\nmax 3\noom 1\noom_kill 1\n");
      write_file (dir, "cpu.pressure", "some avg10=1.50 avg60=0.20 avg300=0.00 total=10\n"
                  "full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n");
      write_file (dir, "memory.pressure", "some avg10=0.00 avg60=0.00 avg300=0.00 total=0\n");
      write_file (dir, "io.pressure", "some avg10=22.75 avg60=0.00 avg300=0.00 total=0\n");
    }
  return g_strdup_printf ("/%s", name);
}

/* The same record, built the usual way from the same kernel files. */
static GVariant *
reference_record (RcApp *app)
{
  g_auto(GVariantBuilder) b = G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE_VARDICT);
  g_autoptr(GArray) pids = g_array_new (FALSE, FALSE, sizeof (guint32));
  RcCgroupStats st;

  rc_cgroup_read_app (app->control_group, &st, pids);
  g_variant_builder_add (&b, "{sv}", "Unit", g_variant_new_string (app->unit));
  g_variant_builder_add (&b, "{sv}", "AppId", g_variant_new_string (app->app_id));
  g_variant_builder_add (&b, "{sv}", "Launcher", g_variant_new_string (app->launcher));
  g_variant_builder_add (&b, "{sv}", "Name", g_variant_new_string (app->name));
  g_variant_builder_add (&b, "{sv}", "Icon", g_variant_new_string (app->icon));
  g_variant_builder_add (&b, "{sv}", "DesktopFile", g_variant_new_string (app->desktop_file));
  g_variant_builder_add (&b, "{sv}", "Slice", g_variant_new_string (app->slice));
  g_variant_builder_add (&b, "{sv}", "ActiveState", g_variant_new_string (app->active_state));
  g_variant_builder_add (&b, "{sv}", "FreezerState", g_variant_new_string (app->freezer_state));
  g_variant_builder_add (&b, "{sv}", "Audio", g_variant_new_boolean (app->audio));
  g_variant_builder_add (&b, "{sv}", "CPUWeight", g_variant_new_uint64 (st.cpu_weight));
  g_variant_builder_add (&b, "{sv}", "IOWeight", g_variant_new_uint64 (st.io_weight));
  g_variant_builder_add (&b, "{sv}", "CPUQuota", g_variant_new_uint32 (st.cpu_quota));
  g_variant_builder_add (&b, "{sv}", "MemoryLow", g_variant_new_uint64 (st.memory_low));
  g_variant_builder_add (&b, "{sv}", "MemoryHigh", g_variant_new_uint64 (st.memory_high));
  g_variant_builder_add (&b, "{sv}", "MemoryMax", g_variant_new_uint64 (st.memory_max));
  g_variant_builder_add (&b, "{sv}", "TasksMax", g_variant_new_uint64 (st.tasks_max));
  g_variant_builder_add (&b, "{sv}", "MemoryMin", g_variant_new_uint64 (st.memory_min));
  g_variant_builder_add (&b, "{sv}", "MemorySwapMax", g_variant_new_uint64 (st.memory_swap_max));
  g_variant_builder_add (&b, "{sv}", "Pids",
                         g_variant_new_fixed_array (G_VARIANT_TYPE_UINT32, pids->data,
                                                    pids->len, sizeof (guint32)));
  g_variant_builder_add (&b, "{sv}", "MemoryCurrent", g_variant_new_uint64 (st.memory_current));
  g_variant_builder_add (&b, "{sv}", "CPUUsageNSec", g_variant_new_uint64 (st.cpu_usage_nsec));
  g_variant_builder_add (&b, "{sv}", "TasksCurrent", g_variant_new_uint64 (st.tasks_current));
  g_variant_builder_add (&b, "{sv}", "CPUThrottledUSec", g_variant_new_uint64 (st.cpu_throttled_usec));
  if (st.memory_events != NULL)
    g_variant_builder_add (&b, "{sv}", "MemoryEvents", st.memory_events);
  g_clear_pointer (&st.memory_events, g_variant_unref);
  if (st.pressure[RC_PRESSURE_CPU] >= 0)
    g_variant_builder_add (&b, "{sv}", "CPUPressure", g_variant_new_double (st.pressure[0]));
  if (st.pressure[RC_PRESSURE_MEMORY] >= 0)
    g_variant_builder_add (&b, "{sv}", "MemoryPressure", g_variant_new_double (st.pressure[1]));
  if (st.pressure[RC_PRESSURE_IO] >= 0)
    g_variant_builder_add (&b, "{sv}", "IOPressure", g_variant_new_double (st.pressure[2]));
  return g_variant_ref_sink (g_variant_builder_end (&b));
}

static void
assert_same_bytes (GVariant *record,
                   GVariant *reference)
{
  g_assert_true (g_variant_is_normal_form (record));
  g_assert_cmpmem (g_variant_get_data (record), g_variant_get_size (record),
                   g_variant_get_data (reference), g_variant_get_size (reference));
  g_assert_true (g_variant_equal (record, reference));
}

/* The folders with_io have memory.events and PSI files; the others have
 * none, and their records none of these keys. */
static void
assert_reports (GVariant *record,
                gboolean  present)
{
  g_autoptr(GVariant) events = g_variant_lookup_value (record, "MemoryEvents",
                                                       G_VARIANT_TYPE ("a{st}"));
  double cpu = -1, memory = -1, io = -1;
  guint64 high = 0, oom_kill = 0;

  g_assert_cmpint (g_variant_lookup (record, "CPUPressure", "d", &cpu), ==, present);
  g_assert_cmpint (g_variant_lookup (record, "MemoryPressure", "d", &memory), ==, present);
  g_assert_cmpint (g_variant_lookup (record, "IOPressure", "d", &io), ==, present);
  if (!present)
    {
      g_assert_null (events);
      return;
    }
  g_assert_nonnull (events);
  g_assert_cmpuint (g_variant_n_children (events), ==, 5);
  g_assert_true (g_variant_lookup (events, "high", "t", &high));
  g_assert_true (g_variant_lookup (events, "oom_kill", "t", &oom_kill));
  g_assert_cmpuint (high, ==, 12);
  g_assert_cmpuint (oom_kill, ==, 1);
  g_assert_cmpfloat (cpu, ==, 1.5);
  g_assert_cmpfloat (memory, ==, 0);
  g_assert_cmpfloat (io, ==, 22.75);
}

typedef struct {
  const char *name;
  guint       n_pids;
  gsize       name_len;     /* 0: the AppID */
  gboolean    with_io;
  gboolean    has_cgroup;
} RecordCase;

static const RecordCase record_cases[] = {
  { "empty", 0, 0, FALSE, TRUE },
  { "few-pids", 3, 0, TRUE, TRUE },
  { "no-cgroup", 0, 0, FALSE, FALSE },
  { "long-name", 1, 300, TRUE, TRUE },
  { "many-pids", 200, 0, TRUE, TRUE },
  { "huge", 17000, 70000, FALSE, TRUE },        /* cgroup.procs takes several reads */
};

static void
test_record_bytes (gconstpointer data)
{
  const RecordCase *c = data;
  g_autofree char *unit = g_strdup_printf ("app-gnome-org.example.%s-1.scope", c->name);
  g_autoptr(RcApp) app = rc_app_new (unit, "/org/freedesktop/systemd1/unit/x", "org.example.Test",
                                     "gnome");
  g_autoptr(GVariant) record = NULL;
  g_autoptr(GVariant) reference = NULL;
  g_autoptr(GVariant) pids = NULL;

  g_autofree char *control_group = c->has_cgroup ? make_cgroup (c->name, c->n_pids, c->with_io)
                                                 : g_strdup ("");

  rc_app_set_control_group (app, control_group);
  if (c->name_len > 0)
    {
      g_autofree char *name = g_strnfill (c->name_len, 'n');
      rc_app_set (app, &app->name, name);
    }
  rc_app_set (app, &app->slice, "app-gnome.slice");

  record = g_variant_ref_sink (rc_app_to_variant (app));
  reference = reference_record (app);
  assert_same_bytes (record, reference);
  pids = g_variant_lookup_value (record, "Pids", G_VARIANT_TYPE ("au"));
  g_assert_cmpuint (g_variant_n_children (pids), ==, c->n_pids);
  assert_reports (record, c->with_io);
}

/* A string that is not UTF-8 (a desktop file name, say) is sent repaired:
 * g_variant_new_string would refuse it. */
static void
test_record_not_utf8 (void)
{
  g_autoptr(RcApp) app = rc_app_new ("app-org.example.Bad-1.scope", "/x", "org.example.Bad", "");
  g_autoptr(GVariant) record = NULL;
  const char *file = NULL;

  rc_app_set (app, &app->desktop_file, "/usr/share/applications/\xff\xfe.desktop");
  record = g_variant_ref_sink (rc_app_to_variant (app));
  g_assert_true (g_variant_is_normal_form (record));
  g_assert_true (g_variant_lookup (record, "DesktopFile", "&s", &file));
  g_assert_true (g_utf8_validate (file, -1, NULL));
  g_assert_nonnull (strstr (file, ".desktop"));
}

/* Usage is read anew for every record; limits are kept until forgotten,
 * and a kept record part follows a changed field. */
static void
test_record_keeps_limits (void)
{
  g_autoptr(RcApp) app = rc_app_new ("app-gnome-org.example.Kept-1.scope", "/x",
                                     "org.example.Kept", "gnome");
  g_autofree char *control_group = make_cgroup ("kept", 2, FALSE);
  g_autofree char *dir = g_build_filename (cgroup_root, "kept", NULL);
  g_autoptr(GVariant) first = NULL;
  g_autoptr(GVariant) second = NULL;
  g_autoptr(GVariant) third = NULL;
  g_autoptr(GVariant) reference = NULL;
  guint64 value;
  const char *state;

  write_file (dir, "cpu.weight", "100\n");
  rc_app_set_control_group (app, control_group);
  first = g_variant_ref_sink (rc_app_to_variant (app));
  g_assert_true (g_variant_lookup (first, "CPUWeight", "t", &value));
  g_assert_cmpuint (value, ==, 100);

  write_file (dir, "memory.current", "1000\n");
  write_file (dir, "cpu.weight", "300\n");
  rc_app_set (app, &app->freezer_state, "frozen");
  second = g_variant_ref_sink (rc_app_to_variant (app));
  g_assert_true (g_variant_lookup (second, "MemoryCurrent", "t", &value));
  g_assert_cmpuint (value, ==, 1000);
  g_assert_true (g_variant_lookup (second, "CPUWeight", "t", &value));
  g_assert_cmpuint (value, ==, 100);      /* kept: nothing said it changed */
  g_assert_true (g_variant_lookup (second, "FreezerState", "&s", &state));
  g_assert_cmpstr (state, ==, "frozen");

  rc_app_forget_limits (app);
  third = g_variant_ref_sink (rc_app_to_variant (app));
  g_assert_true (g_variant_lookup (third, "CPUWeight", "t", &value));
  g_assert_cmpuint (value, ==, 300);
  reference = reference_record (app);
  assert_same_bytes (third, reference);
}

/* cgroup.procs: a last line without its newline still counts; junk does not. */
static void
test_read_pids_odd_lines (void)
{
  g_autofree char *dir = g_build_filename (cgroup_root, "odd", NULL);
  g_autoptr(GArray) pids = NULL;

  g_assert_cmpint (g_mkdir_with_parents (dir, 0755), ==, 0);
  write_file (dir, "cgroup.procs", "12\nx3\n\n99999999999\n0\n4294967295\n77");
  pids = rc_cgroup_read_pids ("/odd");
  g_assert_cmpuint (pids->len, ==, 3);
  g_assert_cmpuint (g_array_index (pids, guint32, 0), ==, 12);
  g_assert_cmpuint (g_array_index (pids, guint32, 1), ==, 4294967295u);
  g_assert_cmpuint (g_array_index (pids, guint32, 2), ==, 77);
}

int
main (int    argc,
      char **argv)
{
  g_autoptr(GError) error = NULL;
  int ret;

  g_test_init (&argc, &argv, NULL);
  /* the fake cgroupfs below is a test hook */
  rc_test_hooks_enable ();
  cgroup_root = g_dir_make_tmp ("rc-test-app-XXXXXX", &error);
  g_assert_no_error (error);
  g_setenv ("RC_CGROUP_ROOT", cgroup_root, TRUE);

  RC_TEST_ADD_CASES ("/app/record/", record_cases, name, test_record_bytes);
  g_test_add_func ("/app/record/not-utf8", test_record_not_utf8);
  g_test_add_func ("/app/record/keeps-limits", test_record_keeps_limits);
  g_test_add_func ("/cgroup/pids/odd-lines", test_read_pids_odd_lines);
  ret = g_test_run ();
  rc_test_remove_tree (cgroup_root);
  g_free (cgroup_root);
  return ret;
}
