/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "rc-pressure.h"
#include "rc-notifier.h"

static void
test_psi_some (void)
{
  double percent = -1;

  g_assert_true (rc_pressure_parse_some_avg10 ("some avg10=12.34 avg60=1.00 avg300=0.00 total=5\n"
                                               "full avg10=3.00 avg60=0.00 avg300=0.00 total=1\n",
                                               &percent));
  g_assert_cmpfloat_with_epsilon (percent, 12.34, 1e-9);
  /* cpu.pressure of older kernels has only the "some" line. */
  g_assert_true (rc_pressure_parse_some_avg10 ("some avg10=0.00 avg60=0.00 avg300=0.00 total=0",
                                               &percent));
  g_assert_cmpfloat (percent, ==, 0.0);
  percent = 7;
  g_assert_false (rc_pressure_parse_some_avg10 ("full avg10=3.00 avg60=0.00\n", &percent));
  g_assert_false (rc_pressure_parse_some_avg10 ("some avg10=x\n", &percent));
  g_assert_false (rc_pressure_parse_some_avg10 ("", &percent));
  g_assert_cmpfloat (percent, ==, 7.0);
}

static void
test_memory_events (void)
{
  g_autoptr(GVariant) events = g_variant_ref_sink (
    rc_pressure_parse_memory_events ("low 0\nhigh 12\nmax 3\noom 1\noom_kill 1\nbad\nworse x\n"));
  guint64 value = 0;

  g_assert_cmpstr (g_variant_get_type_string (events), ==, "a{st}");
  g_assert_cmpuint (g_variant_n_children (events), ==, 5);
  g_assert_true (g_variant_lookup (events, "high", "t", &value));
  g_assert_cmpuint (value, ==, 12);
  g_assert_true (g_variant_lookup (events, "oom_kill", "t", &value));
  g_assert_cmpuint (value, ==, 1);
  g_assert_false (g_variant_lookup (events, "worse", "t", &value));

  g_autoptr(GVariant) empty = g_variant_ref_sink (rc_pressure_parse_memory_events (""));
  g_assert_cmpuint (g_variant_n_children (empty), ==, 0);
}

/* Held back: rises with gaps of at most RC_HELD_BACK_GAP_SEC make a spell;
 * it counts once it is RC_HELD_BACK_SUSTAIN_SEC long; a longer gap starts
 * a new one. */
static void
test_held_spell (void)
{
  const gint64 s = G_USEC_PER_SEC;
  RcHeldSpell spell = { 0, };
  gint64 t = 1000 * s;
  gint64 last;

  g_assert_false (rc_held_spell_rise (&spell, t));
  for (gint64 at = t + s / 5; at < t + RC_HELD_BACK_SUSTAIN_SEC * s; at += s / 5)
    g_assert_false (rc_held_spell_rise (&spell, at));
  g_assert_true (rc_held_spell_rise (&spell, t + RC_HELD_BACK_SUSTAIN_SEC * s));

  /* a gap longer than RC_HELD_BACK_GAP_SEC: over */
  t += (RC_HELD_BACK_SUSTAIN_SEC + RC_HELD_BACK_GAP_SEC + 1) * s;
  g_assert_false (rc_held_spell_rise (&spell, t));
  g_assert_false (rc_held_spell_rise (&spell, t + (RC_HELD_BACK_SUSTAIN_SEC - 1) * s));
  /* gaps of exactly RC_HELD_BACK_GAP_SEC still continue it */
  spell = (RcHeldSpell) { 0, };
  for (last = t; last < t + RC_HELD_BACK_SUSTAIN_SEC * s; last += RC_HELD_BACK_GAP_SEC * s)
    g_assert_false (rc_held_spell_rise (&spell, last));
  g_assert_true (rc_held_spell_rise (&spell, last));
}

/* A CPU quota held the app back when cpu.stat's throttled_usec grew by at
 * least a quarter of the time since the last look; an unknown figure, or
 * none that grew, is no verdict. */
static void
test_cpu_throttled (void)
{
  const gint64 two_s = 2 * G_USEC_PER_SEC;

  g_assert_true (rc_cpu_watch_throttled (1000, 1000 + 1800000, two_s));    /* 10% quota, spinning */
  g_assert_true (rc_cpu_watch_throttled (0, 500000, two_s));               /* exactly a quarter */
  g_assert_false (rc_cpu_watch_throttled (0, 499999, two_s));
  g_assert_false (rc_cpu_watch_throttled (5000, 5000, two_s));             /* short of CPU, not throttled */
  g_assert_false (rc_cpu_watch_throttled (G_MAXUINT64, 1800000, two_s));
  g_assert_false (rc_cpu_watch_throttled (0, G_MAXUINT64, two_s));
  g_assert_false (rc_cpu_watch_throttled (9000, 100, two_s));              /* a new cgroup: counter restarted */
  g_assert_false (rc_cpu_watch_throttled (0, 100, 0));
}

static void
test_parse_total (void)
{
  guint64 total = 7;

  g_assert_true (rc_pressure_parse_some_total ("some avg10=1.00 avg60=0.00 avg300=0.00 total=123456\n"
                                               "full avg10=0.00 avg60=0.00 avg300=0.00 total=9\n",
                                               &total));
  g_assert_cmpuint (total, ==, 123456);
  /* the "full" line first is still the "some" total */
  g_assert_true (rc_pressure_parse_some_total ("full avg10=0.00 total=5\nsome avg10=0.00 total=42",
                                               &total));
  g_assert_cmpuint (total, ==, 42);
  total = 7;
  g_assert_false (rc_pressure_parse_some_total ("some avg10=1.00\nfull total=5\n", &total));
  g_assert_false (rc_pressure_parse_some_total ("some avg10=1.00 total=x\n", &total));
  g_assert_false (rc_pressure_parse_some_total ("", &total));
  g_assert_cmpuint (total, ==, 7);
}

static void
test_pressure_percent (void)
{
  /* the total's growth over the interval, not avg10 */
  g_assert_cmpfloat_with_epsilon (rc_pressure_percent (1000, 1000 + 230000, G_USEC_PER_SEC), 23.0, 1e-9);
  g_assert_cmpfloat (rc_pressure_percent (5000, 5000, G_USEC_PER_SEC), ==, 0.0);
  /* a counter that went back (a new cgroup) or no time: nothing */
  g_assert_cmpfloat (rc_pressure_percent (5000, 10, G_USEC_PER_SEC), ==, 0.0);
  g_assert_cmpfloat (rc_pressure_percent (0, 5000, 0), ==, 0.0);
  /* several tasks waiting: at most all of the time */
  g_assert_cmpfloat (rc_pressure_percent (0, 3 * G_USEC_PER_SEC, G_USEC_PER_SEC), ==, 100.0);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/pressure/psi-some", test_psi_some);
  g_test_add_func ("/pressure/parse-total", test_parse_total);
  g_test_add_func ("/pressure/percent", test_pressure_percent);
  g_test_add_func ("/pressure/memory-events", test_memory_events);
  g_test_add_func ("/pressure/held-spell", test_held_spell);
  g_test_add_func ("/pressure/cpu-throttled", test_cpu_throttled);
  return g_test_run ();
}
