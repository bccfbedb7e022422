/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The memory ladder's decisions (rc-ladder.c): the levels by pressure,
 * whom to throttle and freeze and in which order, floors, exemptions,
 * hysteresis and giving back the last step first; the MemoryHigh holds
 * the policy applies; the ladder's keys of the [Guard] rules group. */
#include "rc-ladder.h"

#include <string.h>

#define MIB (G_GUINT64_CONSTANT (1024) * 1024)
#define GIB (1024 * MIB)

static const RcGuardRules rules = { .enabled = TRUE, .cpu_pressure_target = 10,
                                    .cpu_weight_floor = 10, .memory_ladder = TRUE,
                                    .memory_pressure_throttle = 10,
                                    .memory_pressure_freeze = 30 };

/* An app in app.slice, in the background, without sound or API limits. */
static RcLadderApp
app_of (const char *name,
        guint64     current)
{
  return (RcLadderApp) { .key = name, .current = current, .may_throttle = TRUE,
                         .may_freeze = TRUE };
}

/* Takes the plan's next values as the new state, as the watch does. */
static void
take (RcLadderApp *apps,
      guint        n_apps)
{
  for (guint i = 0; i < n_apps; i++)
    {
      apps[i].held = apps[i].next_held;
      apps[i].frozen = apps[i].next_frozen;
    }
}

static void
test_levels_and_judge (void)
{
  RcLadderCalm calm = { 0, };

  g_assert_cmpstr (rc_ladder_level_name (RC_LADDER_NORMAL), ==, "normal");
  g_assert_cmpstr (rc_ladder_level_name (RC_LADDER_THROTTLING), ==, "throttling");
  g_assert_cmpstr (rc_ladder_level_name (RC_LADDER_FREEZING), ==, "freezing");
  g_assert_cmpstr (rc_ladder_level_name (RC_LADDER_CRITICAL), ==, "critical");
  g_assert_cmpint (rc_ladder_judge (&rules, 31, &calm), ==, RC_LADDER_FREEZE);
  g_assert_cmpint (rc_ladder_judge (&rules, 30, &calm), ==, RC_LADDER_THROTTLE);
  g_assert_cmpint (rc_ladder_judge (&rules, 11, &calm), ==, RC_LADDER_THROTTLE);
  g_assert_cmpint (rc_ladder_judge (&rules, 10, &calm), ==, RC_LADDER_STAY);
  g_assert_cmpint (rc_ladder_judge (&rules, 5, &calm), ==, RC_LADDER_STAY);
  /* under half the throttle percent: a step back after RC_LADDER_CALM_CHECKS in a row */
  for (guint i = 1; i < RC_LADDER_CALM_CHECKS; i++)
    g_assert_cmpint (rc_ladder_judge (&rules, 4, &calm), ==, RC_LADDER_STAY);
  g_assert_cmpint (rc_ladder_judge (&rules, 4, &calm), ==, RC_LADDER_GIVE_BACK);
  /* one a calm spell: the count starts again */
  g_assert_cmpint (rc_ladder_judge (&rules, 0, &calm), ==, RC_LADDER_STAY);
  /* a check between half and the percent breaks the spell */
  g_assert_cmpint (rc_ladder_judge (&rules, 0, &calm), ==, RC_LADDER_STAY);
  g_assert_cmpint (rc_ladder_judge (&rules, 6, &calm), ==, RC_LADDER_STAY);
  for (guint i = 1; i < RC_LADDER_CALM_CHECKS; i++)
    g_assert_cmpint (rc_ladder_judge (&rules, 0, &calm), ==, RC_LADDER_STAY);
  g_assert_cmpint (rc_ladder_judge (&rules, 0, &calm), ==, RC_LADDER_GIVE_BACK);
}

static void
test_trigger_text (void)
{
  g_autofree char *ten = rc_ladder_trigger_text (10);
  g_autofree char *all = rc_ladder_trigger_text (400);

  g_assert_cmpstr (ten, ==, "some 200000 2000000");
  g_assert_cmpstr (all, ==, "some 2000000 2000000");
}

static void
test_throttles_the_biggest_first (void)
{
  RcLadderApp apps[] = {
    app_of ("small", 300 * MIB), app_of ("big", 4 * GIB), app_of ("mid", 1 * GIB),
  };
  guint64 serial = 0;
  guint changed = 0;

  g_assert_cmpint (rc_ladder_plan (&rules, RC_LADDER_THROTTLE, apps, G_N_ELEMENTS (apps),
                                   &serial, &changed), ==, RC_LADDER_THROTTLING);
  /* two a check, the biggest, to 3/4 of their use */
  g_assert_cmpuint (changed, ==, RC_LADDER_THROTTLE_PER_CHECK);
  g_assert_cmpuint (apps[1].next_held, ==, 3 * GIB);
  g_assert_cmpuint (apps[2].next_held, ==, 768 * MIB);
  g_assert_cmpuint (apps[0].next_held, ==, 0);
  g_assert_false (apps[1].next_frozen);
  /* the floor is fixed at the first step: half the use */
  g_assert_cmpuint (apps[1].floor, ==, 2 * GIB);
  g_assert_cmpuint (apps[1].held_from, ==, 4 * GIB);
  take (apps, G_N_ELEMENTS (apps));
  /* the next step: from what it is held at (its use went down to it) */
  apps[1].current = 3 * GIB;
  rc_ladder_plan (&rules, RC_LADDER_THROTTLE, apps, G_N_ELEMENTS (apps), &serial, &changed);
  g_assert_cmpuint (apps[1].next_held, ==, 2304 * MIB);
  take (apps, G_N_ELEMENTS (apps));
  apps[1].current = 2304 * MIB;
  rc_ladder_plan (&rules, RC_LADDER_THROTTLE, apps, G_N_ELEMENTS (apps), &serial, &changed);
  g_assert_cmpuint (apps[1].next_held, ==, 2 * GIB);
  take (apps, G_N_ELEMENTS (apps));
  /* at its floor: not lowered any more, whatever the pressure */
  apps[1].current = 2 * GIB;
  rc_ladder_plan (&rules, RC_LADDER_THROTTLE, apps, G_N_ELEMENTS (apps), &serial, &changed);
  g_assert_cmpuint (apps[1].next_held, ==, 2 * GIB);
}

static void
test_floor (void)
{
  RcLadderApp apps[] = {
    app_of ("tiny", 100 * MIB), app_of ("low", 1 * GIB), app_of ("small", 160 * MIB),
  };
  guint64 serial = 0;
  guint changed = 0;

  /* its own MemoryLow counts: never under what protects it */
  apps[1].protected_bytes = 900 * MIB;
  rc_ladder_plan (&rules, RC_LADDER_THROTTLE, apps, G_N_ELEMENTS (apps), &serial, &changed);
  g_assert_cmpuint (apps[1].next_held, ==, 900 * MIB);
  /* 128 MiB at least; under that use it is not throttled at all */
  g_assert_cmpuint (apps[2].next_held, ==, RC_LADDER_FLOOR_MIN);
  g_assert_cmpuint (apps[0].next_held, ==, 0);
  take (apps, G_N_ELEMENTS (apps));
  rc_ladder_plan (&rules, RC_LADDER_THROTTLE, apps, G_N_ELEMENTS (apps), &serial, &changed);
  g_assert_cmpuint (changed, ==, 0);
  /* what protects it not read this check: not throttled in it */
  apps[0] = app_of ("unread", 4 * GIB);
  apps[0].protected_bytes = G_MAXUINT64;
  rc_ladder_plan (&rules, RC_LADDER_THROTTLE, apps, G_N_ELEMENTS (apps), &serial, &changed);
  g_assert_cmpuint (apps[0].next_held, ==, 0);
}

static void
test_exempt_apps (void)
{
  RcLadderApp apps[] = {
    app_of ("focused", 8 * GIB), app_of ("api", 6 * GIB), app_of ("audio", 5 * GIB),
    app_of ("plain", 1 * GIB), app_of ("frozen-by-hand", 7 * GIB),
  };
  guint64 serial = 0;
  guint changed = 0;

  apps[0].may_throttle = apps[0].may_freeze = FALSE;   /* focused */
  apps[1].may_throttle = FALSE;                        /* MemoryHigh set through the API */
  apps[2].may_throttle = apps[2].may_freeze = FALSE;   /* plays sound */
  apps[4].frozen_else = TRUE;
  rc_ladder_plan (&rules, RC_LADDER_THROTTLE, apps, G_N_ELEMENTS (apps), &serial, &changed);
  g_assert_cmpuint (changed, ==, 1);
  g_assert_cmpuint (apps[3].next_held, ==, 768 * MIB);
  for (guint i = 0; i < 3; i++)
    g_assert_cmpuint (apps[i].next_held, ==, 0);
  take (apps, G_N_ELEMENTS (apps));
  /* freezing: an API MemoryHigh does not keep it from being frozen; focus and sound do */
  g_assert_cmpint (rc_ladder_plan (&rules, RC_LADDER_FREEZE, apps, G_N_ELEMENTS (apps), &serial,
                                   &changed), ==, RC_LADDER_FREEZING);
  g_assert_true (apps[1].next_frozen);
  g_assert_false (apps[0].next_frozen);
  g_assert_false (apps[2].next_frozen);
  g_assert_false (apps[4].next_frozen);
  /* a held app that gains the focus or sound is let go at once */
  take (apps, G_N_ELEMENTS (apps));
  apps[3].may_throttle = apps[3].may_freeze = FALSE;
  apps[1].may_freeze = FALSE;
  rc_ladder_plan (&rules, RC_LADDER_STAY, apps, G_N_ELEMENTS (apps), &serial, &changed);
  g_assert_cmpuint (changed, ==, 2);
  g_assert_cmpuint (apps[3].next_held, ==, 0);
  g_assert_false (apps[1].next_frozen);
}

static void
test_freezes_the_biggest_one_a_check_then_critical (void)
{
  /* d's use is unknown (no memory controller): freezing it frees nothing known */
  RcLadderApp apps[] = {
    app_of ("a", 1 * GIB), app_of ("b", 3 * GIB), app_of ("c", 2 * GIB), app_of ("d", 0),
  };
  guint64 serial = 0;
  guint changed = 0;

  apps[0].may_throttle = apps[0].may_freeze = FALSE;
  /* the pressure leaps over the freeze percent: the two biggest are slowed down first */
  g_assert_cmpint (rc_ladder_plan (&rules, RC_LADDER_FREEZE, apps, G_N_ELEMENTS (apps), &serial,
                                   &changed), ==, RC_LADDER_THROTTLING);
  g_assert_cmpuint (changed, ==, 2);
  g_assert_false (apps[1].next_frozen);
  g_assert_false (apps[2].next_frozen);
  g_assert_cmpuint (apps[1].next_held, ==, 2304 * MIB);
  g_assert_cmpuint (apps[2].next_held, ==, 1536 * MIB);
  take (apps, G_N_ELEMENTS (apps));
  /* still over it a check later: the biggest is frozen */
  g_assert_cmpint (rc_ladder_plan (&rules, RC_LADDER_FREEZE, apps, G_N_ELEMENTS (apps), &serial,
                                   &changed), ==, RC_LADDER_FREEZING);
  g_assert_true (apps[1].next_frozen);
  g_assert_false (apps[2].next_frozen);
  take (apps, G_N_ELEMENTS (apps));
  g_assert_cmpint (rc_ladder_plan (&rules, RC_LADDER_FREEZE, apps, G_N_ELEMENTS (apps), &serial,
                                   &changed), ==, RC_LADDER_FREEZING);
  g_assert_true (apps[2].next_frozen);
  take (apps, G_N_ELEMENTS (apps));
  /* nothing left to freeze */
  g_assert_cmpint (rc_ladder_plan (&rules, RC_LADDER_FREEZE, apps, G_N_ELEMENTS (apps), &serial,
                                   &changed), ==, RC_LADDER_CRITICAL);
  g_assert_cmpuint (changed, ==, 0);
  g_assert_false (apps[3].next_frozen);
}

static void
test_gives_back_the_last_step_first (void)
{
  RcLadderApp apps[] = {
    app_of ("a", 2 * GIB), app_of ("b", 1 * GIB), app_of ("c", 512 * MIB),
  };
  guint64 serial = 0;
  guint changed = 0;

  /* a and b throttled, then c frozen, then b frozen (a and b at their floor by then) */
  rc_ladder_plan (&rules, RC_LADDER_THROTTLE, apps, G_N_ELEMENTS (apps), &serial, &changed);
  take (apps, G_N_ELEMENTS (apps));
  g_assert_cmpuint (apps[0].held, ==, 1536 * MIB);
  g_assert_cmpuint (apps[1].held, ==, 768 * MIB);
  apps[0].current = apps[0].floor;
  apps[1].current = apps[1].floor;
  apps[0].may_freeze = FALSE;
  apps[1].may_freeze = FALSE;
  rc_ladder_plan (&rules, RC_LADDER_FREEZE, apps, G_N_ELEMENTS (apps), &serial, &changed);
  take (apps, G_N_ELEMENTS (apps));
  g_assert_true (apps[2].frozen);
  apps[1].may_freeze = TRUE;
  apps[2].may_throttle = FALSE;
  rc_ladder_plan (&rules, RC_LADDER_FREEZE, apps, G_N_ELEMENTS (apps), &serial, &changed);
  take (apps, G_N_ELEMENTS (apps));
  g_assert_true (apps[1].frozen);
  g_assert_cmpuint (apps[0].held, ==, 1536 * MIB);
  g_assert_cmpuint (apps[1].held, ==, 768 * MIB);

  /* thaws first, the last frozen first, one a calm spell */
  g_assert_cmpint (rc_ladder_plan (&rules, RC_LADDER_GIVE_BACK, apps, G_N_ELEMENTS (apps), &serial,
                                   &changed), ==, RC_LADDER_NORMAL);
  g_assert_cmpuint (changed, ==, 1);
  g_assert_false (apps[1].next_frozen);
  g_assert_true (apps[2].next_frozen);
  take (apps, G_N_ELEMENTS (apps));
  rc_ladder_plan (&rules, RC_LADDER_GIVE_BACK, apps, G_N_ELEMENTS (apps), &serial, &changed);
  g_assert_cmpuint (changed, ==, 1);
  g_assert_false (apps[2].next_frozen);
  take (apps, G_N_ELEMENTS (apps));
  /* then MemoryHigh, the app stepped last first (b): by half, and let go once that
   * reaches the use it had at its first step */
  rc_ladder_plan (&rules, RC_LADDER_GIVE_BACK, apps, G_N_ELEMENTS (apps), &serial, &changed);
  g_assert_cmpuint (changed, ==, 1);
  g_assert_cmpuint (apps[1].next_held, ==, 0);
  g_assert_cmpuint (apps[0].next_held, ==, 1536 * MIB);
  take (apps, G_N_ELEMENTS (apps));
  apps[0].held_from = 4 * GIB;
  rc_ladder_plan (&rules, RC_LADDER_GIVE_BACK, apps, G_N_ELEMENTS (apps), &serial, &changed);
  g_assert_cmpuint (apps[0].next_held, ==, 2304 * MIB);
  take (apps, G_N_ELEMENTS (apps));
  rc_ladder_plan (&rules, RC_LADDER_GIVE_BACK, apps, G_N_ELEMENTS (apps), &serial, &changed);
  g_assert_cmpuint (apps[0].next_held, ==, 3456 * MIB);
  take (apps, G_N_ELEMENTS (apps));
  rc_ladder_plan (&rules, RC_LADDER_GIVE_BACK, apps, G_N_ELEMENTS (apps), &serial, &changed);
  g_assert_cmpuint (apps[0].next_held, ==, 0);
  take (apps, G_N_ELEMENTS (apps));
  rc_ladder_plan (&rules, RC_LADDER_GIVE_BACK, apps, G_N_ELEMENTS (apps), &serial, &changed);
  g_assert_cmpuint (changed, ==, 0);
  /* staying between half and the percent gives nothing back */
  apps[0].held = 1 * GIB;
  apps[0].held_from = 2 * GIB;
  rc_ladder_plan (&rules, RC_LADDER_STAY, apps, G_N_ELEMENTS (apps), &serial, &changed);
  g_assert_cmpuint (changed, ==, 0);
}

static void
test_turned_off (void)
{
  RcGuardRules off = rules;
  RcLadderApp apps[] = { app_of ("a", 2 * GIB), app_of ("b", 1 * GIB) };
  guint64 serial = 0;
  guint changed = 0;

  off.memory_ladder = FALSE;
  apps[0].held = 1 * GIB;
  apps[1].frozen = TRUE;
  g_assert_cmpint (rc_ladder_plan (&off, RC_LADDER_FREEZE, apps, G_N_ELEMENTS (apps), &serial,
                                   &changed), ==, RC_LADDER_NORMAL);
  g_assert_cmpuint (changed, ==, 2);
  g_assert_cmpuint (apps[0].next_held, ==, 0);
  g_assert_false (apps[1].next_frozen);
}

/* Which MemoryHigh wins is the ladder's: the table (rc-holds.c) only
 * keeps it. */
static void
test_apply_hold (void)
{
  g_autoptr(RcHolds) holds = rc_holds_new ();
  RcLimits api = { 0, };
  RcLimits limits = { 0, };

  /* nothing held: the policy's value stands */
  g_assert_false (rc_ladder_apply_hold (holds, "app-a.scope", FALSE, &api, &limits));
  g_assert_false (rc_limits_has (&limits, RC_LIMIT_MEMORY_HIGH));

  rc_holds_set (holds, "app-a.scope", 1 * GIB, "memory pressure 23 % over 10 %");
  /* no MemoryHigh (infinity): the ladder's */
  g_assert_true (rc_ladder_apply_hold (holds, "app-a.scope", FALSE, &api, &limits));
  g_assert_cmpuint (limits.values[RC_LIMIT_MEMORY_HIGH], ==, 1 * GIB);
  /* under a rule's higher value; never above a lower one */
  rc_limits_set (&limits, RC_LIMIT_MEMORY_HIGH, 3 * GIB);
  g_assert_true (rc_ladder_apply_hold (holds, "app-a.scope", FALSE, &api, &limits));
  g_assert_cmpuint (limits.values[RC_LIMIT_MEMORY_HIGH], ==, 1 * GIB);
  rc_limits_set (&limits, RC_LIMIT_MEMORY_HIGH, 512 * MIB);
  g_assert_false (rc_ladder_apply_hold (holds, "app-a.scope", FALSE, &api, &limits));
  g_assert_cmpuint (limits.values[RC_LIMIT_MEMORY_HIGH], ==, 512 * MIB);
  /* the focus and a MemoryHigh or MemoryMax set through the API win */
  rc_limits_set (&limits, RC_LIMIT_MEMORY_HIGH, G_MAXUINT64);
  g_assert_false (rc_ladder_apply_hold (holds, "app-a.scope", TRUE, &api, &limits));
  g_assert_cmpuint (limits.values[RC_LIMIT_MEMORY_HIGH], ==, G_MAXUINT64);
  rc_limits_set (&api, RC_LIMIT_MEMORY_MAX, 4 * GIB);
  g_assert_false (rc_ladder_apply_hold (holds, "app-a.scope", FALSE, &api, &limits));
  g_assert_cmpuint (limits.values[RC_LIMIT_MEMORY_HIGH], ==, G_MAXUINT64);
  api = (RcLimits) { 0, };
  rc_limits_set (&api, RC_LIMIT_MEMORY_HIGH, 4 * GIB);
  g_assert_false (rc_ladder_apply_hold (holds, "app-a.scope", FALSE, &api, &limits));
  g_assert_cmpuint (limits.values[RC_LIMIT_MEMORY_HIGH], ==, G_MAXUINT64);

  /* let go, its reason not yet recorded: nothing in force */
  api = (RcLimits) { 0, };
  rc_holds_set (holds, "app-a.scope", 0, "given back");
  g_assert_false (rc_ladder_apply_hold (holds, "app-a.scope", FALSE, &api, &limits));
  g_assert_cmpuint (limits.values[RC_LIMIT_MEMORY_HIGH], ==, G_MAXUINT64);
}

static void
test_rules_group (void)
{
  static const struct {
    const char *text;
    gboolean    ladder;
    guint       throttle, freeze;
    gboolean    guard;
    guint       n_problems;
  } cases[] = {
    { "", TRUE, 10, 30, TRUE, 0 },
    { "[Guard]\nMemoryLadder=false\n", FALSE, 10, 30, TRUE, 0 },
    { "[Guard]\nEnabled=false\n", TRUE, 10, 30, FALSE, 0 },
    { "[Guard]\nMemoryPressureThrottle=20%\nMemoryPressureFreeze=50\n", TRUE, 20, 50, TRUE, 0 },
    { "[Guard]\nMemoryPressureThrottle=0\nMemoryPressureFreeze=101\nMemoryLadder=maybe\n",
      TRUE, 10, 30, TRUE, 3 },
    /* the freeze percent must be above the throttle one: the pair stays */
    { "[Guard]\nMemoryPressureThrottle=40\n", TRUE, 10, 30, TRUE, 1 },
    { "[Guard]\nMemoryPressureThrottle=20\nMemoryPressureFreeze=20\n", TRUE, 10, 30, TRUE, 1 },
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
      g_assert_cmpint (guard.memory_ladder, ==, cases[i].ladder);
      g_assert_cmpuint (guard.memory_pressure_throttle, ==, cases[i].throttle);
      g_assert_cmpuint (guard.memory_pressure_freeze, ==, cases[i].freeze);
      g_assert_cmpint (guard.enabled, ==, cases[i].guard);
      g_assert_cmpuint (problems->len, ==, cases[i].n_problems);
      for (guint l = 0; l < RC_RULES_N_LAYERS; l++)
        {
          g_hash_table_unref (parsed[l]);
          g_hash_table_unref (slices[l]);
        }
    }
}

static void
test_notify_key (void)
{
  const char *text = "[Notify]\nMemoryLadder=false\n";
  g_autoptr(GPtrArray) problems = g_ptr_array_new_with_free_func (g_free);
  GHashTable *parsed[RC_RULES_N_LAYERS], *slices[RC_RULES_N_LAYERS];
  RcBoost boost = { .enabled = TRUE };
  RcNotifyRules notify = RC_NOTIFY_RULES_DEFAULT;
  RcGuardRules guard = RC_GUARD_RULES_DEFAULT;

  g_assert_true (notify.memory_ladder);
  for (guint l = 0; l < RC_RULES_N_LAYERS; l++)
    {
      parsed[l] = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
      slices[l] = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
    }
  rc_rules_parse_data (text, strlen (text), "n.conf", parsed, slices, &boost, &notify, &guard,
                       problems);
  g_assert_false (notify.memory_ladder);
  g_assert_true (notify.out_of_memory);
  g_assert_cmpuint (problems->len, ==, 0);
  for (guint l = 0; l < RC_RULES_N_LAYERS; l++)
    {
      g_hash_table_unref (parsed[l]);
      g_hash_table_unref (slices[l]);
    }
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/ladder/levels-and-judge", test_levels_and_judge);
  g_test_add_func ("/ladder/trigger-text", test_trigger_text);
  g_test_add_func ("/ladder/throttles-the-biggest-first", test_throttles_the_biggest_first);
  g_test_add_func ("/ladder/floor", test_floor);
  g_test_add_func ("/ladder/exempt-apps", test_exempt_apps);
  g_test_add_func ("/ladder/freezes-the-biggest-one-a-check-then-critical",
                   test_freezes_the_biggest_one_a_check_then_critical);
  g_test_add_func ("/ladder/gives-back-the-last-step-first", test_gives_back_the_last_step_first);
  g_test_add_func ("/ladder/turned-off", test_turned_off);
  g_test_add_func ("/ladder/apply-hold", test_apply_hold);
  g_test_add_func ("/ladder/rules-group", test_rules_group);
  g_test_add_func ("/ladder/notify-key", test_notify_key);
  return g_test_run ();
}
