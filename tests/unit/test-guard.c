/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The responsiveness guard's decisions (rc-guard.c): pressure readings,
 * when to step, whom to lower, floors, exemptions, the 2 s spacing and
 * giving back; which of its holds the policy applies; the [Guard] rules
 * group. */
#include "rc-guard.h"

#include <string.h>

#define SEC G_USEC_PER_SEC
/* one check's interval */
#define INTERVAL SEC
/* far from 0, so that "never changed" (0) is older than any spacing */
#define T0 (100 * SEC)

static const RcGuardRules rules = { .enabled = TRUE, .cpu_pressure_target = 10,
                                    .cpu_weight_floor = 10 };

/* An eligible app that used @usage_permille of one CPU over INTERVAL. */
static RcGuardApp
busy_app (const char *name,
          guint64     usage_permille)
{
  return (RcGuardApp) { .key = name, .usage_usec = INTERVAL * usage_permille / 1000,
                        .weight = 100, .eligible = TRUE };
}

static void
test_trigger_text (void)
{
  g_autofree char *ten = rc_guard_trigger_text (10);
  g_autofree char *high = rc_guard_trigger_text (500);

  /* a 2 s window, which unprivileged triggers need from Linux 6.5 on */
  g_assert_cmpstr (ten, ==, "some 200000 2000000");
  g_assert_cmpstr (high, ==, "some 2000000 2000000");
}

static void
test_judge (void)
{
  RcGuardCalm calm = RC_GUARD_CALM_INIT;

  g_assert_cmpint (rc_guard_judge (&rules, 23, &calm), ==, RC_GUARD_LOWER);
  /* at the target is not over it; between half and the target: stay */
  g_assert_cmpint (rc_guard_judge (&rules, 10, &calm), ==, RC_GUARD_STAY);
  g_assert_cmpint (rc_guard_judge (&rules, 5, &calm), ==, RC_GUARD_STAY);
  g_assert_cmpuint (calm.checks, ==, 0);
  /* below half the target for RC_GUARD_CALM_CHECKS checks in a row */
  for (guint i = 1; i < RC_GUARD_CALM_CHECKS; i++)
    g_assert_cmpint (rc_guard_judge (&rules, 1, &calm), ==, RC_GUARD_STAY);
  g_assert_cmpint (rc_guard_judge (&rules, 1, &calm), ==, RC_GUARD_GIVE_BACK);
  /* then a new spell before the next step back */
  g_assert_cmpuint (calm.checks, ==, 0);
  g_assert_cmpint (rc_guard_judge (&rules, 1, &calm), ==, RC_GUARD_STAY);
  /* a check over half the target breaks the spell */
  g_assert_cmpint (rc_guard_judge (&rules, 1, &calm), ==, RC_GUARD_STAY);
  g_assert_cmpint (rc_guard_judge (&rules, 6, &calm), ==, RC_GUARD_STAY);
  g_assert_cmpuint (calm.checks, ==, 0);
  /* a target from the rules */
  {
    RcGuardRules loose = rules;

    loose.cpu_pressure_target = 50;
    g_assert_cmpint (rc_guard_judge (&loose, 23, &calm), ==, RC_GUARD_STAY);
    g_assert_cmpint (rc_guard_judge (&loose, 51, &calm), ==, RC_GUARD_LOWER);
  }
}

/* Calm spells to a step back, from a fresh start: the one the guard waits. */
static guint
checks_to_give_back (RcGuardCalm *calm)
{
  guint n = 0;

  while (rc_guard_judge (&rules, 1, calm) != RC_GUARD_GIVE_BACK)
    n++;
  return n + 1;
}

static void
test_undone_step_back_waits_longer (void)
{
  RcGuardCalm calm = RC_GUARD_CALM_INIT;
  guint expected = RC_GUARD_CALM_CHECKS;

  g_assert_cmpint (rc_guard_judge (&rules, 30, &calm), ==, RC_GUARD_LOWER);
  g_assert_cmpuint (checks_to_give_back (&calm), ==, expected);
  /* the step back brought the pressure over the target again: twice the wait, each time,
   * up to the most; a step down that follows no step back changes nothing */
  for (guint i = 0; i < 6; i++)
    {
      g_assert_cmpint (rc_guard_judge (&rules, 30, &calm), ==, RC_GUARD_LOWER);
      g_assert_cmpint (rc_guard_judge (&rules, 30, &calm), ==, RC_GUARD_LOWER);
      expected = MIN (expected * 2, RC_GUARD_CALM_CHECKS_MAX);
      g_assert_cmpuint (checks_to_give_back (&calm), ==, expected);
    }
  g_assert_cmpuint (expected, ==, RC_GUARD_CALM_CHECKS_MAX);
  /* steps back the pressure took: each halves the next wait, down to the first */
  for (guint wait = RC_GUARD_CALM_CHECKS_MAX; wait >= RC_GUARD_CALM_CHECKS; wait /= 2)
    g_assert_cmpuint (checks_to_give_back (&calm), ==, wait);
  g_assert_cmpuint (checks_to_give_back (&calm), ==, RC_GUARD_CALM_CHECKS);
}

static void
test_lowers_the_busiest (void)
{
  RcGuardApp apps[] = {
    busy_app ("light", 50),       /* under 10 % of a CPU: not busy */
    busy_app ("build", 1800),
    busy_app ("indexer", 600),
    busy_app ("small", 300),      /* under a quarter of the busiest */
  };

  g_assert_cmpuint (rc_guard_plan (&rules, RC_GUARD_LOWER, apps, G_N_ELEMENTS (apps), INTERVAL, T0),
                    ==, 2);
  g_assert_cmpuint (apps[0].next, ==, 0);
  g_assert_cmpuint (apps[1].next, ==, 50);
  g_assert_cmpuint (apps[1].held_from, ==, 100);
  g_assert_cmpuint (apps[2].next, ==, 50);
  g_assert_cmpuint (apps[3].next, ==, 0);
}

static void
test_at_most_a_few_per_check (void)
{
  RcGuardApp apps[RC_GUARD_STEPS_PER_CHECK + 2];

  for (guint i = 0; i < G_N_ELEMENTS (apps); i++)
    apps[i] = busy_app ("busy", 1000 - i);
  g_assert_cmpuint (rc_guard_plan (&rules, RC_GUARD_LOWER, apps, G_N_ELEMENTS (apps), INTERVAL, T0),
                    ==, RC_GUARD_STEPS_PER_CHECK);
  for (guint i = 0; i < G_N_ELEMENTS (apps); i++)
    g_assert_cmpuint (apps[i].next, ==, i < RC_GUARD_STEPS_PER_CHECK ? 50 : 0);
}

static void
test_floor (void)
{
  RcGuardRules floor = rules;
  RcGuardApp app = busy_app ("build", 1000);
  guint64 steps[] = { 50, 25, 20, 20 };

  floor.cpu_weight_floor = 20;
  for (guint i = 0; i < G_N_ELEMENTS (steps); i++)
    {
      gint64 now = T0 + i * RC_GUARD_SPACING_USEC;

      rc_guard_plan (&floor, RC_GUARD_LOWER, &app, 1, INTERVAL, now);
      g_assert_cmpuint (app.next, ==, steps[i]);
      if (app.next != app.held)
        app.changed_usec = now;
      app.held = app.next;
    }
  g_assert_cmpuint (app.held_from, ==, 100);
  /* an app the rules hold at the floor or below already is left alone */
  app = busy_app ("low", 1000);
  app.weight = 15;
  g_assert_cmpuint (rc_guard_plan (&floor, RC_GUARD_LOWER, &app, 1, INTERVAL, T0), ==, 0);
  g_assert_cmpuint (app.next, ==, 0);
  /* an unknown weight counts as the default */
  app = busy_app ("unknown", 1000);
  app.weight = 0;
  rc_guard_plan (&rules, RC_GUARD_LOWER, &app, 1, INTERVAL, T0);
  g_assert_cmpuint (app.next, ==, 50);
}

static void
test_exempt_apps (void)
{
  /* sound, the focus or a CPUWeight set through the API: not eligible,
   * however busy; a held one is let go at once */
  RcGuardApp apps[] = { busy_app ("music", 2000), busy_app ("api", 2000), busy_app ("build", 1000) };

  apps[0].eligible = FALSE;
  apps[1].eligible = FALSE;
  apps[1].held = 25;
  apps[1].held_from = 100;
  apps[1].changed_usec = T0 - SEC;    /* inside the spacing: still let go */
  g_assert_cmpuint (rc_guard_plan (&rules, RC_GUARD_LOWER, apps, G_N_ELEMENTS (apps), INTERVAL, T0),
                    ==, 2);
  g_assert_cmpuint (apps[0].next, ==, 0);
  g_assert_cmpuint (apps[1].next, ==, 0);
  /* the busiest eligible one is judged on its own, not against the exempt */
  g_assert_cmpuint (apps[2].next, ==, 50);
}

static void
test_spacing (void)
{
  RcGuardApp app = busy_app ("build", 1000);
  guint changes = 0;
  gint64 last = 0;

  /* a check every second for 10 s, the pressure over the target all along */
  for (gint64 now = T0; now < T0 + 10 * SEC; now += SEC)
    {
      rc_guard_plan (&rules, RC_GUARD_LOWER, &app, 1, INTERVAL, now);
      if (app.next != app.held)
        {
          g_assert_true (last == 0 || now - last >= RC_GUARD_SPACING_USEC);
          last = app.changed_usec = now;
          app.held = app.next;
          changes++;
        }
    }
  /* 100 -> 50 -> 25 -> 12 -> 10, 2 s apart */
  g_assert_cmpuint (changes, ==, 4);
  g_assert_cmpuint (app.held, ==, 10);
}

static void
test_giving_back (void)
{
  RcGuardApp app = busy_app ("build", 0);
  guint64 steps[] = { 50, 0 };
  RcGuardCalm calm = RC_GUARD_CALM_INIT;
  gint64 now = T0;

  app.held = 25;
  app.held_from = 100;
  app.changed_usec = T0 - SEC;
  /* calm, but 1 s after the last step: the spacing holds it */
  g_assert_cmpuint (rc_guard_plan (&rules, RC_GUARD_GIVE_BACK, &app, 1, INTERVAL, now), ==, 0);
  g_assert_cmpuint (app.next, ==, 25);
  for (guint i = 0; i < G_N_ELEMENTS (steps); i++)
    {
      RcGuardMove move;

      /* one step back per calm spell */
      do
        {
          now += SEC;
          move = rc_guard_judge (&rules, 1, &calm);
        }
      while (move != RC_GUARD_GIVE_BACK);
      g_assert_cmpuint (rc_guard_plan (&rules, move, &app, 1, INTERVAL, now), ==, 1);
      /* doubled, and let go once back where it was */
      g_assert_cmpuint (app.next, ==, steps[i]);
      app.held = app.next;
      app.changed_usec = now;
    }
  /* nothing held, nothing to give */
  g_assert_cmpuint (rc_guard_plan (&rules, RC_GUARD_GIVE_BACK, &app, 1, INTERVAL, now + 9 * SEC),
                    ==, 0);
}

/* One app a calm spell, the least hungry first: all at once brings the
 * pressure back at once. */
static void
test_giving_back_one_at_a_time (void)
{
  RcGuardApp apps[] = { busy_app ("build", 1800), busy_app ("indexer", 300), busy_app ("chat", 900) };

  for (guint i = 0; i < G_N_ELEMENTS (apps); i++)
    {
      apps[i].held = 25;
      apps[i].held_from = 100;
      apps[i].changed_usec = T0 - 10 * SEC;
    }
  g_assert_cmpuint (rc_guard_plan (&rules, RC_GUARD_GIVE_BACK, apps, 3, INTERVAL, T0), ==, 1);
  g_assert_cmpuint (apps[0].next, ==, 25);
  g_assert_cmpuint (apps[1].next, ==, 50);
  g_assert_cmpuint (apps[2].next, ==, 25);
}

static void
test_stay_and_off (void)
{
  RcGuardApp apps[] = { busy_app ("build", 2000), busy_app ("held", 2000) };
  RcGuardRules off = rules;

  apps[1].held = 25;
  apps[1].held_from = 100;
  g_assert_cmpuint (rc_guard_plan (&rules, RC_GUARD_STAY, apps, 2, INTERVAL, T0), ==, 0);
  g_assert_cmpuint (apps[0].next, ==, 0);
  g_assert_cmpuint (apps[1].next, ==, 25);
  /* turned off: nothing lowered, everything given back */
  off.enabled = FALSE;
  g_assert_cmpuint (rc_guard_plan (&off, RC_GUARD_LOWER, apps, 2, INTERVAL, T0), ==, 1);
  g_assert_cmpuint (apps[0].next, ==, 0);
  g_assert_cmpuint (apps[1].next, ==, 0);
}

/* Which weight wins is the guard's: the table (rc-holds.c) only keeps it. */
static void
test_apply_hold (void)
{
  g_autoptr(RcHolds) holds = rc_holds_new ();
  RcLimits api = { 0, };
  RcLimits limits = { 0, };

  /* nothing held: the policy's value stands */
  rc_limits_set (&limits, RC_LIMIT_CPU_WEIGHT, 50);
  rc_guard_apply_hold (holds, "app-a.scope", FALSE, &api, &limits);
  g_assert_cmpuint (limits.values[RC_LIMIT_CPU_WEIGHT], ==, 50);

  rc_holds_set (holds, "app-a.scope", 25, "CPU pressure of the focused app 23 % over 10 %");
  /* over the rule's value, and without one over the default */
  rc_guard_apply_hold (holds, "app-a.scope", FALSE, &api, &limits);
  g_assert_cmpuint (limits.values[RC_LIMIT_CPU_WEIGHT], ==, 25);
  limits = (RcLimits) { 0, };
  rc_guard_apply_hold (holds, "app-a.scope", FALSE, &api, &limits);
  g_assert_true (rc_limits_has (&limits, RC_LIMIT_CPU_WEIGHT));
  g_assert_cmpuint (limits.values[RC_LIMIT_CPU_WEIGHT], ==, 25);
  /* never above what the rule gives */
  rc_limits_set (&limits, RC_LIMIT_CPU_WEIGHT, 12);
  rc_guard_apply_hold (holds, "app-a.scope", FALSE, &api, &limits);
  g_assert_cmpuint (limits.values[RC_LIMIT_CPU_WEIGHT], ==, 12);
  /* the focus (the boost) and a value set through the API win */
  rc_limits_set (&limits, RC_LIMIT_CPU_WEIGHT, 300);
  rc_guard_apply_hold (holds, "app-a.scope", TRUE, &api, &limits);
  g_assert_cmpuint (limits.values[RC_LIMIT_CPU_WEIGHT], ==, 300);
  rc_limits_set (&api, RC_LIMIT_CPU_WEIGHT, 200);
  rc_limits_set (&limits, RC_LIMIT_CPU_WEIGHT, 200);
  rc_guard_apply_hold (holds, "app-a.scope", FALSE, &api, &limits);
  g_assert_cmpuint (limits.values[RC_LIMIT_CPU_WEIGHT], ==, 200);

  /* let go, its reason not yet recorded: nothing in force */
  api = (RcLimits) { 0, };
  rc_holds_set (holds, "app-a.scope", 0, "given back");
  rc_limits_set (&limits, RC_LIMIT_CPU_WEIGHT, 100);
  rc_guard_apply_hold (holds, "app-a.scope", FALSE, &api, &limits);
  g_assert_cmpuint (limits.values[RC_LIMIT_CPU_WEIGHT], ==, 100);
}

static void
test_rules_group (void)
{
  static const struct {
    const char *text;
    gboolean    enabled;
    guint       target;
    guint64     floor;
    guint       n_problems;
  } cases[] = {
    { "", TRUE, 10, 10, 0 },
    { "[Guard]\nEnabled=false\n", FALSE, 10, 10, 0 },
    { "[Guard]\nCPUPressureTarget=25\nCPUWeightFloor=20\n", TRUE, 25, 20, 0 },
    { "[Guard]\nCPUPressureTarget=25%\n", TRUE, 25, 10, 0 },
    { "[Guard]\nCPUPressureTarget=0\nCPUWeightFloor=10001\nEnabled=maybe\nOther=1\n",
      TRUE, 10, 10, 4 },
    { "[Guard @battery]\nEnabled=false\n", TRUE, 10, 10, 1 },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GPtrArray) problems = g_ptr_array_new_with_free_func (g_free);
      GHashTable *parsed[RC_RULES_N_LAYERS], *slices[RC_RULES_N_LAYERS];
      RcBoost boost = { .enabled = TRUE };
      RcNotifyRules notify = RC_NOTIFY_RULES_DEFAULT;
      RcGuardRules guard = RC_GUARD_RULES_DEFAULT;

      for (guint l = 0; l < RC_RULES_N_LAYERS; l++)
        {
          parsed[l] = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
          slices[l] = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
        }
      rc_rules_parse_data (cases[i].text, strlen (cases[i].text), "g.conf", parsed, slices, &boost,
                           &notify, &guard, problems);
      g_assert_cmpint (guard.enabled, ==, cases[i].enabled);
      g_assert_cmpuint (guard.cpu_pressure_target, ==, cases[i].target);
      g_assert_cmpuint (guard.cpu_weight_floor, ==, cases[i].floor);
      g_assert_cmpuint (problems->len, ==, cases[i].n_problems);
      for (guint l = 0; l < RC_RULES_N_LAYERS; l++)
        {
          g_assert_cmpuint (g_hash_table_size (parsed[l]), ==, 0);
          g_hash_table_unref (parsed[l]);
          g_hash_table_unref (slices[l]);
        }
    }
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/guard/trigger-text", test_trigger_text);
  g_test_add_func ("/guard/judge", test_judge);
  g_test_add_func ("/guard/undone-step-back-waits-longer", test_undone_step_back_waits_longer);
  g_test_add_func ("/guard/lowers-the-busiest", test_lowers_the_busiest);
  g_test_add_func ("/guard/at-most-a-few-per-check", test_at_most_a_few_per_check);
  g_test_add_func ("/guard/floor", test_floor);
  g_test_add_func ("/guard/exempt-apps", test_exempt_apps);
  g_test_add_func ("/guard/spacing", test_spacing);
  g_test_add_func ("/guard/giving-back", test_giving_back);
  g_test_add_func ("/guard/giving-back-one-at-a-time", test_giving_back_one_at_a_time);
  g_test_add_func ("/guard/stay-and-off", test_stay_and_off);
  g_test_add_func ("/guard/apply-hold", test_apply_hold);
  g_test_add_func ("/guard/rules-group", test_rules_group);
  return g_test_run ();
}
