/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The power drain's spell (rc_drain_spell_sample): told once an app in the
 * background has held more than its share of the power on battery for the
 * sustained time, once per spell. */
#include "rc-notifier.h"

#define SEC ((gint64) G_USEC_PER_SEC)
#define T0  (1000 * SEC)

/* 50 % for 600 s, sampled every 30 s as UPower polls */
static gboolean
sample (RcDrainSpell *spell,
        double        share,
        gint64        at_us)
{
  return rc_drain_spell_sample (spell, share, FALSE, TRUE, 50, 600, at_us);
}

static void
test_threshold_and_sustained_time (void)
{
  RcDrainSpell spell = { 0 };
  gint64 t;

  /* at the threshold is not above it: no spell starts */
  for (t = T0; t <= T0 + 900 * SEC; t += 30 * SEC)
    g_assert_false (sample (&spell, 0.5, t));
  g_assert_cmpint (spell.since_us, ==, 0);
  /* above it: told at 600 s, not a sample before */
  for (t = T0; t < T0 + 600 * SEC; t += 30 * SEC)
    g_assert_false (sample (&spell, 0.51, t));
  g_assert_true (sample (&spell, 0.51, T0 + 600 * SEC));
}

static void
test_once_per_spell (void)
{
  RcDrainSpell spell = { 0 };
  gint64 t;

  g_assert_false (sample (&spell, 0.9, T0));
  g_assert_true (sample (&spell, 0.9, T0 + 600 * SEC));
  /* the spell goes on: not told again, however long */
  for (t = T0 + 630 * SEC; t < T0 + 4 * 3600 * SEC; t += 30 * SEC)
    g_assert_false (sample (&spell, 0.9, t));
  /* the share falls back: the spell ends; a new one is told after its own 600 s */
  g_assert_false (sample (&spell, 0.2, t));
  g_assert_false (sample (&spell, 0.9, t + 30 * SEC));
  g_assert_false (sample (&spell, 0.9, t + 600 * SEC));
  g_assert_true (sample (&spell, 0.9, t + 630 * SEC));
}

static void
test_a_dip_restarts_the_time (void)
{
  RcDrainSpell spell = { 0 };

  g_assert_false (sample (&spell, 0.8, T0));
  g_assert_false (sample (&spell, 0.8, T0 + 570 * SEC));
  g_assert_false (sample (&spell, 0.1, T0 + 600 * SEC));
  g_assert_false (sample (&spell, 0.8, T0 + 630 * SEC));
  g_assert_false (sample (&spell, 0.8, T0 + 1200 * SEC));
  g_assert_true (sample (&spell, 0.8, T0 + 1230 * SEC));
}

static void
test_foreground_is_excluded (void)
{
  RcDrainSpell spell = { 0 };

  /* in the foreground all along: never */
  for (gint64 t = T0; t <= T0 + 1200 * SEC; t += 30 * SEC)
    g_assert_false (rc_drain_spell_sample (&spell, 0.95, TRUE, TRUE, 50, 600, t));
  /* focused for one sample near the end of a spell: the time starts again */
  g_assert_false (sample (&spell, 0.95, T0 + 1230 * SEC));
  g_assert_false (rc_drain_spell_sample (&spell, 0.95, TRUE, TRUE, 50, 600, T0 + 1800 * SEC));
  g_assert_false (sample (&spell, 0.95, T0 + 1830 * SEC));
  g_assert_false (sample (&spell, 0.95, T0 + 2400 * SEC));
  g_assert_true (sample (&spell, 0.95, T0 + 2430 * SEC));
}

static void
test_ac_ends_the_spell (void)
{
  RcDrainSpell spell = { 0 };

  g_assert_false (sample (&spell, 0.9, T0));
  g_assert_true (sample (&spell, 0.9, T0 + 600 * SEC));
  /* on AC: never, and the spell is over */
  g_assert_false (rc_drain_spell_sample (&spell, 0.9, FALSE, FALSE, 50, 600, T0 + 630 * SEC));
  g_assert_cmpint (spell.since_us, ==, 0);
  g_assert_false (spell.told);
  /* back on battery: a new spell, told after its own time */
  g_assert_false (sample (&spell, 0.9, T0 + 700 * SEC));
  g_assert_false (sample (&spell, 0.9, T0 + 1299 * SEC));
  g_assert_true (sample (&spell, 0.9, T0 + 1300 * SEC));
}

static void
test_off (void)
{
  RcDrainSpell spell = { 0 };

  for (gint64 t = T0; t <= T0 + 3600 * SEC; t += 30 * SEC)
    g_assert_false (rc_drain_spell_sample (&spell, 1.0, FALSE, TRUE, 0, 600, t));
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/power-drain/threshold-and-sustained-time", test_threshold_and_sustained_time);
  g_test_add_func ("/power-drain/once-per-spell", test_once_per_spell);
  g_test_add_func ("/power-drain/a-dip-restarts-the-time", test_a_dip_restarts_the_time);
  g_test_add_func ("/power-drain/foreground-is-excluded", test_foreground_is_excluded);
  g_test_add_func ("/power-drain/ac-ends-the-spell", test_ac_ends_the_spell);
  g_test_add_func ("/power-drain/off", test_off);
  return g_test_run ();
}
