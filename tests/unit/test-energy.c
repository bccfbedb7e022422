/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The energy ledger and its history without a bus: the attribution's
 * invariants (apps + system = measured, exactly; no counter goes back; an
 * app that stops keeps what it used), /proc/stat, and the history file
 * (round trip, bounds, each kind of bad file set aside). */
#include "rc-energy-history.h"
#include "rc-energy-ledger.h"
#include "rc-test-util.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define HOUR 500000   /* an hour since the epoch, any */

static guint64
sum_shares (GArray *shares)
{
  guint64 sum = 0;

  for (guint i = 0; i < shares->len; i++)
    sum += g_array_index (shares, RcEnergyShare, i).energy_uj;
  return sum;
}

static guint64
share_of (GArray     *shares,
          const char *unit)
{
  for (guint i = 0; i < shares->len; i++)
    if (g_str_equal (g_array_index (shares, RcEnergyShare, i).unit, unit))
      return g_array_index (shares, RcEnergyShare, i).energy_uj;
  return 0;
}

/* Shares by CPU time: 25, 50 and 100 of a busy 200; the rest the system's. */
static void
test_ledger_shares (void)
{
  g_autoptr(RcEnergyLedger) ledger = rc_energy_ledger_new ();
  g_autoptr(GArray) shares = g_array_new (FALSE, TRUE, sizeof (RcEnergyShare));
  RcEnergyReading r[] = {
    { "a.scope", "a", 1000, FALSE }, { "b.scope", "b", 2000, TRUE }, { "c.scope", "c", 0, FALSE },
  };
  guint64 system_uj, energy_uj;
  double power;

  /* the first sample sets baselines: all the system's */
  system_uj = rc_energy_ledger_add_sample (ledger, 5000, 1000000, 10000, r, 3, shares);
  g_assert_cmpuint (system_uj, ==, 5000);
  g_assert_cmpuint (shares->len, ==, 0);

  r[0].usage_usec += 25; r[1].usage_usec += 50; r[2].usage_usec += 100;
  system_uj = rc_energy_ledger_add_sample (ledger, 2000000, 1000000, 10200, r, 3, shares);
  g_assert_cmpuint (share_of (shares, "a.scope"), ==, 250000);
  g_assert_cmpuint (share_of (shares, "b.scope"), ==, 500000);
  g_assert_cmpuint (share_of (shares, "c.scope"), ==, 1000000);
  g_assert_cmpuint (system_uj, ==, 250000);
  g_assert_cmpuint (sum_shares (shares) + system_uj, ==, 2000000);
  g_assert_true (rc_energy_ledger_lookup (ledger, "c.scope", &energy_uj, &power));
  g_assert_cmpuint (energy_uj, ==, 1000000);
  g_assert_cmpfloat_with_epsilon (power, 1.0, 1e-9);
  g_assert_cmpuint (rc_energy_ledger_get_total_uj (ledger), ==, 2005000);
  g_assert_cmpuint (rc_energy_ledger_get_system_uj (ledger), ==, 255000);
}

/* The apps' deltas add up to more than the machine's (the clocks are read
 * a moment apart): their sum is the divisor, so each gets its fair part
 * and the system none, not the first ones all of it. */
static void
test_ledger_apps_above_busy (void)
{
  g_autoptr(RcEnergyLedger) ledger = rc_energy_ledger_new ();
  g_autoptr(GArray) shares = g_array_new (FALSE, TRUE, sizeof (RcEnergyShare));
  RcEnergyReading r[] = { { "a.scope", "a", 0, FALSE }, { "b.scope", "b", 0, FALSE } };
  guint64 system_uj;

  rc_energy_ledger_add_sample (ledger, 0, 0, 1000, r, 2, NULL);
  r[0].usage_usec = 300; r[1].usage_usec = 100;
  system_uj = rc_energy_ledger_add_sample (ledger, 4000, 1000000, 1200, r, 2, shares);
  g_assert_cmpuint (share_of (shares, "a.scope"), ==, 3000);
  g_assert_cmpuint (share_of (shares, "b.scope"), ==, 1000);
  g_assert_cmpuint (system_uj, ==, 0);
}

/* Random intervals: the parts always add up to the measured energy, no
 * instance's counter goes back, and the apps' sum never exceeds E even
 * when their deltas add up to more than the machine's. */
static void
test_ledger_invariants (void)
{
  g_autoptr(RcEnergyLedger) ledger = rc_energy_ledger_new ();
  g_autoptr(GRand) rand = g_rand_new_with_seed (42);
  RcEnergyReading r[8];
  guint64 last_energy[8] = { 0 };
  guint64 busy = 0, total = 0;

  for (guint i = 0; i < G_N_ELEMENTS (r); i++)
    {
      g_autofree char *unit = g_strdup_printf ("app-%u.scope", i);

      r[i].unit = g_intern_string (unit);
      r[i].app_id = r[i].unit;
      r[i].usage_usec = g_rand_int_range (rand, 0, 1000000);
      r[i].foreground = i == 0;
    }
  for (guint round = 0; round < 2000; round++)
    {
      g_autoptr(GArray) shares = g_array_new (FALSE, TRUE, sizeof (RcEnergyShare));
      guint64 energy = g_rand_int_range (rand, 0, 1 << 30) * (guint64) g_rand_int_range (rand, 1, 64);
      guint64 system_uj;

      for (guint i = 0; i < G_N_ELEMENTS (r); i++)
        {
          /* now and then a counter goes back (a new cgroup of that name) or is unknown */
          guint dice = g_rand_int_range (rand, 0, 100);

          if (dice == 0)
            r[i].usage_usec = r[i].usage_usec / 2;
          else if (dice == 1)
            r[i].usage_usec = G_MAXUINT64;
          else
            r[i].usage_usec = (r[i].usage_usec == G_MAXUINT64 ? 0 : r[i].usage_usec) +
                              g_rand_int_range (rand, 0, 50000);
        }
      /* the machine's busy time moves sometimes less than the apps' */
      busy += g_rand_int_range (rand, 0, 200000);
      system_uj = rc_energy_ledger_add_sample (ledger, energy, 1000000, busy, r, G_N_ELEMENTS (r),
                                               shares);
      g_assert_cmpuint (sum_shares (shares) + system_uj, ==, energy);
      total += energy;
      for (guint i = 0; i < G_N_ELEMENTS (r); i++)
        {
          guint64 now;
          double power;

          g_assert_true (rc_energy_ledger_lookup (ledger, r[i].unit, &now, &power));
          g_assert_cmpuint (now, >=, last_energy[i]);
          last_energy[i] = now;
        }
    }
  g_assert_cmpuint (rc_energy_ledger_get_total_uj (ledger), ==, total);
}

/* An instance that stops drops out of the ledger; what it got stays with
 * the caller (the history). One that starts within an interval counts
 * from 0. */
static void
test_ledger_exit_and_start (void)
{
  g_autoptr(RcEnergyLedger) ledger = rc_energy_ledger_new ();
  g_autoptr(GArray) shares = g_array_new (FALSE, TRUE, sizeof (RcEnergyShare));
  g_autoptr(RcEnergyHistory) history = rc_energy_history_new ();
  RcEnergyReading both[] = { { "a.scope", "a", 100, FALSE }, { "b.scope", "b", 100, FALSE } };
  RcEnergyReading later[] = { { "b.scope", "b", 200, FALSE }, { "c.scope", "c", 100, FALSE } };
  g_autoptr(GArray) usage = NULL;
  guint64 energy, system_uj;
  double power;

  rc_energy_ledger_add_sample (ledger, 0, 0, 1000, both, 2, NULL);
  both[0].usage_usec = 200;
  rc_energy_ledger_add_sample (ledger, 1000, 1000000, 1100, both, 2, shares);
  g_assert_cmpuint (share_of (shares, "a.scope"), ==, 1000);
  for (guint i = 0; i < shares->len; i++)
    rc_energy_history_add (history, g_array_index (shares, RcEnergyShare, i).app_id, "A", NULL,
                           HOUR, g_array_index (shares, RcEnergyShare, i).energy_uj, FALSE);
  /* a stopped; c started within the interval */
  g_array_set_size (shares, 0);
  system_uj = rc_energy_ledger_add_sample (ledger, 1000, 1000000, 1300, later, 2, shares);
  g_assert_false (rc_energy_ledger_lookup (ledger, "a.scope", &energy, &power));
  g_assert_cmpuint (share_of (shares, "b.scope"), ==, 500);
  g_assert_cmpuint (share_of (shares, "c.scope"), ==, 500);
  g_assert_cmpuint (system_uj, ==, 0);
  usage = rc_energy_history_usage (history, 0, &system_uj);
  g_assert_cmpuint (usage->len, ==, 1);
  g_assert_cmpstr (g_array_index (usage, RcEnergyUsage, 0).app_id, ==, "a");
  g_assert_cmpuint (g_array_index (usage, RcEnergyUsage, 0).background_uj, ==, 1000);
}

static void
test_proc_stat (void)
{
  guint64 busy;
  long hz = sysconf (_SC_CLK_TCK);

  g_assert_true (rc_energy_parse_proc_stat ("cpu  10 20 30 1000 500 4 5 6 0 0\ncpu0 1 2\n", &busy));
  g_assert_cmpuint (busy, ==, 75 * (1000000 / hz));
  g_assert_false (rc_energy_parse_proc_stat ("cpu0 1 2 3 4 5 6 7 8\n", &busy));
  g_assert_false (rc_energy_parse_proc_stat ("cpu  1 2 3\n", &busy));
  g_assert_false (rc_energy_parse_proc_stat ("", &busy));
}

static guint64
app_energy (RcEnergyHistory *history,
            const char      *app_id,
            guint64          since_hour,
            guint64         *out_foreground)
{
  g_autoptr(GArray) usage = NULL;
  guint64 system_uj;

  usage = rc_energy_history_usage (history, since_hour, &system_uj);
  if (app_id == NULL)
    return system_uj;
  for (guint i = 0; i < usage->len; i++)
    {
      RcEnergyUsage *one = &g_array_index (usage, RcEnergyUsage, i);

      if (g_str_equal (one->app_id, app_id))
        {
          if (out_foreground != NULL)
            *out_foreground = one->foreground_uj;
          return one->foreground_uj + one->background_uj;
        }
    }
  return 0;
}

/* Foreground and background apart, hours, 7 days, the sub-mJ rest carried. */
static void
test_history_buckets (void)
{
  g_autoptr(RcEnergyHistory) history = rc_energy_history_new ();
  guint64 foreground = 0;

  rc_energy_history_add (history, "a", "A", "a-icon", HOUR, 1500, TRUE);
  rc_energy_history_add (history, "a", NULL, NULL, HOUR, 1500, TRUE);
  rc_energy_history_add (history, "a", NULL, NULL, HOUR + 1, 7000, FALSE);
  rc_energy_history_add (history, NULL, NULL, NULL, HOUR + 1, 9000, FALSE);
  g_assert_cmpuint (app_energy (history, "a", 0, &foreground), ==, 10000);
  g_assert_cmpuint (foreground, ==, 3000);
  g_assert_cmpuint (app_energy (history, "a", HOUR + 1, &foreground), ==, 7000);
  g_assert_cmpuint (foreground, ==, 0);
  g_assert_cmpuint (app_energy (history, NULL, 0, NULL), ==, 9000);
  /* 7 days on, the first hour is gone; 8 days on, the app too */
  rc_energy_history_advance (history, HOUR + RC_ENERGY_HISTORY_HOURS);
  g_assert_cmpuint (app_energy (history, "a", 0, NULL), ==, 7000);
  rc_energy_history_advance (history, HOUR + 2 * RC_ENERGY_HISTORY_HOURS);
  g_assert_cmpuint (rc_energy_history_n_apps (history), ==, 0);
  /* an hour older than the ring is dropped */
  rc_energy_history_add (history, "a", NULL, NULL, HOUR, 1000, TRUE);
  g_assert_cmpuint (app_energy (history, "a", 0, NULL), ==, 0);
}

/* At most RC_ENERGY_HISTORY_MAX_APPS AppIDs; 1,000 over 7 days fit in 2 MiB. */
static void
test_history_bounds (void)
{
  g_autoptr(RcEnergyHistory) history = rc_energy_history_new ();
  g_autoptr(GBytes) bytes = NULL;

  for (guint i = 0; i < RC_ENERGY_HISTORY_MAX_APPS + 10; i++)
    {
      g_autofree char *app_id = g_strdup_printf ("org.example.App%u", i);

      for (guint h = 0; h < (i < 1000 ? RC_ENERGY_HISTORY_HOURS : 1); h++)
        rc_energy_history_add (history, app_id, "A name of some length", "an-icon-name",
                               HOUR + h, 123456789, h % 2);
      if (i == 999)
        {
          g_autoptr(GBytes) thousand = rc_energy_history_serialize (history);

          g_test_message ("1,000 AppIDs x 7 days: %zu bytes", g_bytes_get_size (thousand));
          g_assert_cmpuint (g_bytes_get_size (thousand), <=, 2 * 1024 * 1024);
        }
    }
  /* and the system, which got the parts of the AppIDs beyond the bound */
  g_assert_cmpuint (rc_energy_history_n_apps (history), ==, RC_ENERGY_HISTORY_MAX_APPS + 1);
  g_assert_cmpuint (app_energy (history, NULL, 0, NULL), ==, 1234567000);  /* 10 x 123456789, the rests carried */
  bytes = rc_energy_history_serialize (history);
  g_assert_cmpuint (g_bytes_get_size (bytes), <=, RC_ENERGY_HISTORY_MAX_FILE);
}

static char *
temp_dir (void)
{
  g_autoptr(GError) error = NULL;
  char *dir = g_dir_make_tmp ("rc-energy-XXXXXX", &error);

  g_assert_no_error (error);
  return dir;
}

/* Written and read back across a "restart". */
static void
test_history_round_trip (void)
{
  g_autofree char *dir = temp_dir ();
  g_autofree char *path = g_build_filename (dir, "sub", "energy", NULL);
  g_autoptr(RcEnergyHistory) history = rc_energy_history_new ();
  g_autoptr(RcEnergyHistory) again = NULL;
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(GError) error = NULL;
  guint64 foreground = 0;
  GStatBuf st;

  rc_energy_history_add (history, "a", "A", "a-icon", HOUR, 5000, TRUE);
  rc_energy_history_add (history, "a", NULL, NULL, HOUR + 3, 2000, FALSE);
  rc_energy_history_add (history, NULL, NULL, NULL, HOUR + 3, 4000, FALSE);
  bytes = rc_energy_history_serialize (history);
  g_assert_true (rc_energy_history_write (path, bytes, &error));
  g_assert_no_error (error);
  g_assert_cmpint (g_stat (path, &st), ==, 0);
  g_assert_cmpuint (st.st_mode & 0777, ==, 0600);
  again = rc_energy_history_load (path);
  g_assert_cmpuint (app_energy (again, "a", 0, &foreground), ==, 7000);
  g_assert_cmpuint (foreground, ==, 5000);
  g_assert_cmpuint (app_energy (again, NULL, 0, NULL), ==, 4000);
  /* a missing file is a fresh ledger, and nothing is set aside */
  g_assert_cmpint (g_unlink (path), ==, 0);
  g_clear_pointer (&again, rc_energy_history_free);
  again = rc_energy_history_load (path);
  g_assert_cmpuint (rc_energy_history_n_apps (again), ==, 0);
  rc_test_remove_tree (dir);
}

typedef struct {
  const char *name;
  const char *why;    /* in the log line */
  void (*make)(const char *path,
               GBytes     *good);
} BadFile;

static void
write_bytes (const char *path,
             const void *data,
             gsize       size)
{
  g_autoptr(GError) error = NULL;

  g_assert_true (g_file_set_contents (path, data, size, &error));
}

static void
make_truncated (const char *path,
                GBytes     *good)
{
  write_bytes (path, g_bytes_get_data (good, NULL), g_bytes_get_size (good) - 7);
}

static void
make_corrupt (const char *path,
              GBytes     *good)
{
  gsize size;
  g_autofree guint8 *data = g_memdup2 (g_bytes_get_data (good, &size), g_bytes_get_size (good));

  /* the framing offsets at the end, scribbled on */
  memset (data + size - 6, 0xff, 6);
  write_bytes (path, data, size);
}

static void
make_foreign_version (const char *path,
                      GBytes     *good)
{
  gsize size;
  g_autofree guint8 *data = g_memdup2 (g_bytes_get_data (good, &size), g_bytes_get_size (good));

  data[8] = 9;
  write_bytes (path, data, size);
}

static void
make_not_ours (const char *path,
               GBytes     *good)
{
  write_bytes (path, "[Energy]\nA=1\n", 13);
}

/* Well-formed, but its hours run backwards: only a check of them catches it. */
static void
make_hours_out_of_order (const char *path,
                         GBytes     *good)
{
  g_autoptr(GVariant) body = g_variant_ref_sink (g_variant_new_parsed (
                                                   "(uint64 %t, [('a', 'A', '', [(uint32 %u, uint32 1, uint32 0), (%u, 1, 0)])])",
                                                   (guint64) HOUR, (guint32) HOUR, (guint32) HOUR - 1));
  g_autoptr(GByteArray) data = g_byte_array_new ();

  g_byte_array_append (data, g_bytes_get_data (good, NULL), 16);
  g_byte_array_append (data, g_variant_get_data (body), g_variant_get_size (body));
  write_bytes (path, data->data, data->len);
}

static void
make_fifo (const char *path,
           GBytes     *good)
{
  g_assert_cmpint (mkfifo (path, 0600), ==, 0);
}

static void
make_too_big (const char *path,
              GBytes     *good)
{
  g_autofree char *data = g_malloc0 (RC_ENERGY_HISTORY_MAX_FILE + 1);

  memcpy (data, g_bytes_get_data (good, NULL), 16);
  write_bytes (path, data, RC_ENERGY_HISTORY_MAX_FILE + 1);
}

static void
make_empty (const char *path,
            GBytes     *good)
{
  write_bytes (path, "", 0);
}

/* The messages the code under test logged. */
static GPtrArray *logged;

static GLogWriterOutput
capture_log (GLogLevelFlags   level,
             const GLogField *fields,
             gsize            n_fields,
             gpointer         user_data)
{
  for (gsize i = 0; i < n_fields; i++)
    if (g_str_equal (fields[i].key, "MESSAGE") && (level & G_LOG_LEVEL_MESSAGE))
      g_ptr_array_add (logged, g_strdup (fields[i].value));
  return g_log_writer_default (level, fields, n_fields, user_data);
}

static const BadFile bad_files[] = {
  { "truncated", "cut short", make_truncated },
  { "corrupt", "corrupt", make_corrupt },
  { "foreign-version", "format version 9", make_foreign_version },
  { "not-ours", "not an energy history", make_not_ours },
  { "hours-out-of-order", "out of order", make_hours_out_of_order },
  { "fifo", "", make_fifo },
  { "too-big", "", make_too_big },
  { "empty", "not an energy history", make_empty },
};

/* Each bad file: set aside as .bad with one log line, a fresh history
 * starts, and the load never blocks (a FIFO with no writer). */
static void
test_history_bad_file (gconstpointer data)
{
  const BadFile *bad = data;
  g_autofree char *dir = temp_dir ();
  g_autofree char *path = g_build_filename (dir, "energy", NULL);
  g_autofree char *aside = g_strconcat (path, ".bad", NULL);
  g_autoptr(RcEnergyHistory) good = rc_energy_history_new ();
  g_autoptr(RcEnergyHistory) loaded = NULL;
  g_autoptr(GBytes) bytes = NULL;
  g_autofree char *expected = NULL;

  for (guint i = 0; i < 3; i++)
    rc_energy_history_add (good, i == 0 ? "a" : "b", "Name", "icon", HOUR + i, 5000, TRUE);
  bytes = rc_energy_history_serialize (good);
  bad->make (path, bytes);
  expected = g_strdup_printf ("Energy history %s set aside*%s*", path, bad->why);
  g_ptr_array_set_size (logged, 0);
  loaded = rc_energy_history_load (path);
  /* one log line, saying why */
  g_assert_cmpuint (logged->len, ==, 1);
  g_assert_true (g_pattern_match_simple (expected, g_ptr_array_index (logged, 0)));
  g_assert_cmpuint (rc_energy_history_n_apps (loaded), ==, 0);
  g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
  g_assert_true (g_file_test (aside, G_FILE_TEST_EXISTS));
  rc_test_remove_tree (dir);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  logged = g_ptr_array_new_with_free_func (g_free);
  g_log_set_writer_func (capture_log, NULL, NULL);
  g_test_add_func ("/energy/ledger/shares", test_ledger_shares);
  g_test_add_func ("/energy/ledger/invariants", test_ledger_invariants);
  g_test_add_func ("/energy/ledger/apps-above-busy", test_ledger_apps_above_busy);
  g_test_add_func ("/energy/ledger/exit-and-start", test_ledger_exit_and_start);
  g_test_add_func ("/energy/proc-stat", test_proc_stat);
  g_test_add_func ("/energy/history/buckets", test_history_buckets);
  g_test_add_func ("/energy/history/bounds", test_history_bounds);
  g_test_add_func ("/energy/history/round-trip", test_history_round_trip);
  RC_TEST_ADD_CASES ("/energy/history/bad-file/", bad_files, name, test_history_bad_file);
  return g_test_run ();
}
