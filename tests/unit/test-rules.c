/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Rule values as people write them, and rule files. */
#include <glib/gstdio.h>
#include <string.h>

#include "rc-error.h"
#include "rc-rules.h"
#include "rc-test-util.h"

static void
test_parse_text (void)
{
  static const struct {
    RcLimit     limit;
    const char *text;
    gboolean    ok;
    guint64     value;
  } cases[] = {
    { RC_LIMIT_CPU_WEIGHT, "300", TRUE, 300 },
    { RC_LIMIT_CPU_WEIGHT, "lots", FALSE, 0 },
    { RC_LIMIT_CPU_WEIGHT, "-5", FALSE, 0 },
    { RC_LIMIT_CPU_WEIGHT, "", FALSE, 0 },
    { RC_LIMIT_CPU_QUOTA, "10%", TRUE, 10 },
    { RC_LIMIT_CPU_QUOTA, "150", TRUE, 150 },
    { RC_LIMIT_CPU_QUOTA, "%", FALSE, 0 },
    { RC_LIMIT_MEMORY_MAX, "2G", TRUE, G_GUINT64_CONSTANT (2) << 30 },
    { RC_LIMIT_MEMORY_MAX, "1.5G", TRUE, G_GUINT64_CONSTANT (3) << 29 },
    { RC_LIMIT_MEMORY_MAX, "infinity", TRUE, G_MAXUINT64 },
    { RC_LIMIT_MEMORY_HIGH, "512 M", FALSE, 0 },
    { RC_LIMIT_MEMORY_LOW, "0", TRUE, 0 },
    { RC_LIMIT_TASKS_MAX, "infinity", TRUE, G_MAXUINT64 },
    { RC_LIMIT_TASKS_MAX, "200", TRUE, 200 },
    { RC_LIMIT_TASKS_MAX, "2k", FALSE, 0 },
    { RC_LIMIT_TASKS_MAX, "max", TRUE, G_MAXUINT64 },
    { RC_LIMIT_CPU_QUOTA, "max", TRUE, 0 },      /* no quota, as resourcectl takes it */
    /* the whole value counts, not the first 64 bytes that a message shows */
    { RC_LIMIT_MEMORY_SWAP_MAX, "000000000000000000000000000000000000000000000000000000000000000001G",
      TRUE, G_GUINT64_CONSTANT (1) << 30 },
    { RC_LIMIT_CPU_WEIGHT, "0000000000000000000000000000000000000000000000000000000000000000300", TRUE, 300 },
    { RC_LIMIT_OOM_PREFERENCE, "avoid", TRUE, RC_OOM_PREFERENCE_AVOID },
    { RC_LIMIT_OOM_PREFERENCE, "Avoid", FALSE, 0 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      guint64 value = 0;
      gboolean ok = rc_limit_parse_text (cases[i].limit, cases[i].text, &value, &error);

      g_test_message ("%s = \"%s\"", rc_limit_key (cases[i].limit), cases[i].text);
      g_assert_cmpint (ok, ==, cases[i].ok);
      if (ok)
        g_assert_cmpuint (value, ==, cases[i].value);
      else
        {
          g_assert_error (error, RC_ERROR, RC_ERROR_INVALID_ARGUMENT);
          g_assert_nonnull (strstr (error->message, rc_limit_key (cases[i].limit)));
        }
    }
}

static void
test_format_text (void)
{
  static const struct {
    RcLimit     limit;
    guint64     value;
    const char *text;
  } cases[] = {
    { RC_LIMIT_MEMORY_MAX, G_GUINT64_CONSTANT (2) << 30, "2G" },
    { RC_LIMIT_MEMORY_MAX, G_GUINT64_CONSTANT (1536) << 20, "1536M" },
    { RC_LIMIT_MEMORY_MAX, 16777217, "16777217" },
    { RC_LIMIT_MEMORY_MAX, G_MAXUINT64, "infinity" },
    { RC_LIMIT_MEMORY_LOW, 0, "0" },
    { RC_LIMIT_CPU_QUOTA, 10, "10%" },
    { RC_LIMIT_CPU_WEIGHT, 1024, "1024" },
    { RC_LIMIT_TASKS_MAX, G_MAXUINT64, "infinity" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *text = rc_limit_format_text (cases[i].limit, cases[i].value);
      guint64 back;

      g_assert_cmpstr (text, ==, cases[i].text);
      /* What is written reads back as the same value. */
      g_assert_true (rc_limit_parse_text (cases[i].limit, text, &back, NULL));
      g_assert_cmpuint (back, ==, cases[i].value);
    }
}

static void
test_parse_variant (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) ok = g_variant_ref_sink (g_variant_new_parsed (
                                                 "{'CPUWeight': <uint64 50>, 'FreezeWhenInactiveSec': <uint32 30>}"));
  g_autoptr(GVariant) only_freeze = g_variant_ref_sink (g_variant_new_parsed (
                                                          "{'FreezeWhenInactiveSec': <uint32 5>}"));
  static const char * const bad[] = {
    "@a{sv} {}",
    "{'FreezeWhenInactiveSec': <uint64 30>}",
    "{'FreezeWhenInactiveSec': <uint32 86401>}",
    "{'Colour': <'blue'>}",
    "{'CPUWeight': <uint64 0>}",
  };
  RcRule rule;

  g_assert_true (rc_rule_parse_variant (ok, 4, &rule, &error));
  g_assert_no_error (error);
  g_assert_true (rc_limits_has (&rule.limits, RC_LIMIT_CPU_WEIGHT));
  g_assert_cmpuint (rule.limits.values[RC_LIMIT_CPU_WEIGHT], ==, 50);
  g_assert_cmpuint (rule.freeze_when_inactive_sec, ==, 30);

  g_assert_true (rc_rule_parse_variant (only_freeze, 4, &rule, &error));
  g_assert_cmpuint (rule.limits.set, ==, 0);
  g_assert_cmpuint (rule.freeze_when_inactive_sec, ==, 5);

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr(GVariant) value = g_variant_ref_sink (g_variant_new_parsed (bad[i]));
      g_autoptr(GError) local = NULL;

      g_test_message ("%s", bad[i]);
      g_assert_false (rc_rule_parse_variant (value, 4, &rule, &local));
      g_assert_error (local, RC_ERROR, RC_ERROR_INVALID_ARGUMENT);
    }
}

static void
write_file (const char *dir,
            const char *name,
            const char *text)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);

  g_assert_cmpint (g_mkdir_with_parents (dir, 0700), ==, 0);
  g_assert_true (g_file_set_contents (path, text, -1, NULL));
}

static void
test_load_order (void)
{
  g_autofree char *root = g_dir_make_tmp ("rc-rules-XXXXXX", NULL);
  g_autofree char *system_dir = g_build_filename (root, "system", NULL);
  g_autofree char *user_dir = g_build_filename (root, "user", "rules.d", NULL);
  g_autoptr(RcRules) rules = NULL;
  const RcRule *rule;
  const RcBoost *boost;

  write_file (system_dir, "10-a.conf",
              "[org.example.Both]\nCPUWeight=20\nCPUQuota=10%\n"
              "[org.example.Order]\nCPUWeight=10\n"
              "[Boost]\nCPUWeight=400\n");
  write_file (system_dir, "20-b.conf", "[org.example.Order]\nCPUWeight=11\n");
  write_file (system_dir, "ignored.txt", "[org.example.Ignored]\nCPUWeight=5\n");
  write_file (user_dir, "00-mine.conf",
              "# mine\n[org.example.Both]\nMemoryMax=2G\n\n[Boost]\nEnabled=false\n");

  rules = rc_rules_new (system_dir, user_dir);
  rule = rc_rules_lookup (rules, "org.example.Both");
  g_assert_nonnull (rule);
  /* The user's group replaces the system's as a whole. */
  g_assert_cmpuint (rule->limits.set, ==, 1u << RC_LIMIT_MEMORY_MAX);
  g_assert_cmpuint (rule->limits.values[RC_LIMIT_MEMORY_MAX], ==, G_GUINT64_CONSTANT (2) << 30);
  rule = rc_rules_lookup (rules, "org.example.Order");
  g_assert_cmpuint (rule->limits.values[RC_LIMIT_CPU_WEIGHT], ==, 11);
  g_assert_null (rc_rules_lookup (rules, "org.example.Ignored"));

  /* [Boost] keys merge, later files win key by key. */
  boost = rc_rules_get_boost (rules);
  g_assert_false (boost->enabled);
  g_assert_cmpuint (boost->limits.values[RC_LIMIT_CPU_WEIGHT], ==, 400);
  g_assert_cmpuint (boost->limits.values[RC_LIMIT_IO_WEIGHT], ==, RC_BOOST_WEIGHT_DEFAULT);

  g_clear_object (&rules);
  rc_test_remove_tree (root);
}

/* [Notify]: both kinds on by default; a file turns each off; a bad value
 * or key is a problem and changes nothing; no power conditions. */
static void
test_notify_group (void)
{
  static const struct {
    const char *text;
    gboolean    out_of_memory;
    gboolean    held_back;
    guint       n_problems;
    guint       drain_percent;
    guint       drain_sec;
  } cases[] = {
    { "", TRUE, TRUE, 0, 50, 600 },
    { "[Notify]\nOutOfMemory=false\n", FALSE, TRUE, 0, 50, 600 },
    { "[Notify]\nHeldBack=false\nOutOfMemory=true\n", TRUE, FALSE, 0, 50, 600 },
    { "[Notify]\nHeldBack=no\n", TRUE, TRUE, 1, 50, 600 },
    { "[Notify]\nOutOfMemory=false\nHeldBack=maybe\n", FALSE, TRUE, 1, 50, 600 },
    { "[Notify]\nLoud=true\n", TRUE, TRUE, 1, 50, 600 },
    { "[Notify @battery]\nHeldBack=false\n", TRUE, TRUE, 1, 50, 600 },
    { "[Notify]\nPowerDrain=false\n", TRUE, TRUE, 0, 0, 0 },
    { "[Notify]\nPowerDrain=false\nPowerDrain=true\n", TRUE, TRUE, 0, 50, 600 },
    { "[Notify]\nPowerDrain = 30%/5min \n", TRUE, TRUE, 0, 30, 300 },
    { "[Notify]\nPowerDrain=100%/2s\n", TRUE, TRUE, 0, 100, 2 },
    { "[Notify]\nPowerDrain=80%/24h\n", TRUE, TRUE, 0, 80, 86400 },
    { "[Notify]\nPowerDrain=80%/25h\n", TRUE, TRUE, 1, 50, 600 },
    { "[Notify]\nPowerDrain=0%/10min\n", TRUE, TRUE, 1, 50, 600 },
    { "[Notify]\nPowerDrain=101%/10min\n", TRUE, TRUE, 1, 50, 600 },
    { "[Notify]\nPowerDrain=50/10min\n", TRUE, TRUE, 1, 50, 600 },
    { "[Notify]\nPowerDrain=50%/10\n", TRUE, TRUE, 1, 50, 600 },
    { "[Notify]\nPowerDrain=50%/0s\n", TRUE, TRUE, 1, 50, 600 },
    { "[Notify]\nPowerDrain=-5%/10min\n", TRUE, TRUE, 1, 50, 600 },
    { "[Notify]\nPowerDrain=50%/10min/1h\n", TRUE, TRUE, 1, 50, 600 },
    { "[Notify]\nPowerDrain=50%/min\n", TRUE, TRUE, 1, 50, 600 },
    { "[Notify]\nPowerDrain=no\n", TRUE, TRUE, 1, 50, 600 },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GPtrArray) problems = g_ptr_array_new_with_free_func (g_free);
      GHashTable *rules[RC_RULES_N_LAYERS], *slices[RC_RULES_N_LAYERS];
      RcBoost boost = { .enabled = TRUE };
      RcNotifyRules notify = RC_NOTIFY_RULES_DEFAULT;
      RcGuardRules guard = RC_GUARD_RULES_DEFAULT;

      for (guint l = 0; l < RC_RULES_N_LAYERS; l++)
        {
          rules[l] = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
          slices[l] = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
        }
      rc_rules_parse_data (cases[i].text, strlen (cases[i].text), "n.conf", rules, slices, &boost,
                           &notify, &guard, problems);
      g_assert_cmpint (notify.out_of_memory, ==, cases[i].out_of_memory);
      g_assert_cmpint (notify.held_back, ==, cases[i].held_back);
      g_assert_cmpuint (notify.power_drain_percent, ==, cases[i].drain_percent);
      g_assert_cmpuint (notify.power_drain_sec, ==, cases[i].drain_sec);
      g_assert_cmpuint (problems->len, ==, cases[i].n_problems);
      for (guint l = 0; l < RC_RULES_N_LAYERS; l++)
        {
          g_assert_cmpuint (g_hash_table_size (rules[l]), ==, 0);
          g_hash_table_unref (rules[l]);
          g_hash_table_unref (slices[l]);
        }
    }
}

static void
test_defaults_without_files (void)
{
  g_autofree char *root = g_dir_make_tmp ("rc-rules-XXXXXX", NULL);
  g_autofree char *system_dir = g_build_filename (root, "missing", NULL);
  g_autofree char *user_dir = g_build_filename (root, "user", "rules.d", NULL);
  g_autoptr(RcRules) rules = rc_rules_new (system_dir, user_dir);
  g_autoptr(GVariant) listed = g_variant_ref_sink (rc_rules_to_variant (rules));
  const RcBoost *boost = rc_rules_get_boost (rules);

  g_assert_cmpuint (g_variant_n_children (listed), ==, 0);
  g_assert_true (boost->enabled);
  g_assert_cmpuint (boost->limits.values[RC_LIMIT_CPU_WEIGHT], ==, RC_BOOST_WEIGHT_DEFAULT);
  g_assert_true (rc_rules_get_notify (rules)->out_of_memory);
  g_assert_true (rc_rules_get_notify (rules)->held_back);
  /* The user's folder is created, so it can be watched without polling. */
  g_assert_true (g_file_test (user_dir, G_FILE_TEST_IS_DIR));
  g_clear_object (&rules);
  rc_test_remove_tree (root);
}

static void
test_split_group (void)
{
  static const struct {
    const char  *group;
    gboolean     ok;
    const char  *base;
    RcConditions condition;
  } cases[] = {
    { "org.example.App", TRUE, "org.example.App", 0 },
    { "org.example.App @battery", TRUE, "org.example.App", RC_CONDITION_BATTERY },
    { "org.example.App @power-saver", TRUE, "org.example.App", RC_CONDITION_POWER_SAVER },
    { "Slice background @power-saver", TRUE, "Slice background", RC_CONDITION_POWER_SAVER },
    { "Slice app @battery", TRUE, "Slice app", RC_CONDITION_BATTERY },
    { "org.example.App @ac", FALSE, NULL, 0 },
    { "org.example.App @battery @power-saver", FALSE, NULL, 0 },
    { "org.example.App @Battery", FALSE, NULL, 0 },
    { "org.example.App  @battery", TRUE, "org.example.App ", RC_CONDITION_BATTERY },
    { "org.example.App@battery", TRUE, "org.example.App@battery", 0 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *base = NULL;
      RcConditions condition = 0;
      gboolean ok = rc_rules_split_group (cases[i].group, &base, &condition);

      g_test_message ("[%s]", cases[i].group);
      g_assert_cmpint (ok, ==, cases[i].ok);
      if (!ok)
        continue;
      g_assert_cmpstr (base, ==, cases[i].base);
      g_assert_cmpint (condition, ==, cases[i].condition);
    }
}

/* Which keys apply under which conditions: the suffixed groups over the
 * plain one, @power-saver over @battery, all taken back when the condition
 * ends; a group with a bad suffix (or a suffixed [Boost]) is skipped. */
static void
test_condition_precedence (void)
{
  static const struct {
    RcConditions conditions;
    const char  *app_id;
    guint64      cpu_weight;     /* 0: no CPUWeight in the rule */
    guint64      cpu_quota;      /* 0: none */
    guint        freeze_sec;
    guint64      background_weight;  /* [Slice background], 0: no group */
  } cases[] = {
    { 0, "org.example.Both", 50, 20, 0, 0 },
    { RC_CONDITION_BATTERY, "org.example.Both", 30, 20, 60, 0 },
    { RC_CONDITION_POWER_SAVER, "org.example.Both", 10, 20, 0, 7 },
    { RC_CONDITION_BATTERY | RC_CONDITION_POWER_SAVER, "org.example.Both", 10, 20, 60, 7 },
    { 0, "org.example.OnlyBattery", 0, 0, 0, 0 },
    { RC_CONDITION_BATTERY, "org.example.OnlyBattery", 0, 0, 30, 0 },
    { RC_CONDITION_POWER_SAVER, "org.example.OnlyBattery", 0, 0, 0, 7 },
    { 0, "org.example.Bad", 0, 0, 0, 0 },
    { RC_CONDITION_BATTERY | RC_CONDITION_POWER_SAVER, "org.example.Bad", 0, 0, 0, 7 },
    /* back to none: everything taken back */
    { 0, "org.example.Both", 50, 20, 0, 0 },
  };
  g_autofree char *root = g_dir_make_tmp ("rc-rules-XXXXXX", NULL);
  g_autofree char *system_dir = g_build_filename (root, "system", NULL);
  g_autofree char *user_dir = g_build_filename (root, "user", "rules.d", NULL);
  g_autoptr(RcRules) rules = NULL;
  guint changes = 0;

  write_file (system_dir, "10-a.conf",
              "[org.example.Both]\nCPUWeight=50\nCPUQuota=20%\n"
              "[org.example.Both @power-saver]\nCPUWeight=10\n"
              "[Slice background @power-saver]\nCPUWeight=7\n"
              "[org.example.Bad @sometimes]\nCPUWeight=1\n"
              "[Boost @battery]\nCPUWeight=1\n");
  write_file (user_dir, "00-mine.conf",
              "[org.example.Both @battery]\nCPUWeight=30\nFreezeWhenInactiveSec=60\n"
              "[org.example.OnlyBattery @battery]\nFreezeWhenInactiveSec=30\n");
  if (!g_test_subprocess ())
    {
      /* The bad groups are reported (a warning, fatal in a test): run the
       * rest in a child that may warn. */
      g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
      g_test_trap_assert_passed ();
      g_test_trap_assert_stderr ("*[org.example.Bad @sometimes]: a group name may end in*"
                                 "*[Boost @battery]: the boost has no power conditions*");
      rc_test_remove_tree (root);
      return;
    }
  g_log_set_always_fatal (G_LOG_FATAL_MASK | G_LOG_LEVEL_CRITICAL);
  rules = rc_rules_new (system_dir, user_dir);
  g_signal_connect_swapped (rules, "changed", G_CALLBACK (g_atomic_int_inc), &changes);
  /* ListRules shows the groups without a condition. */
  {
    g_autoptr(GVariant) listed = g_variant_ref_sink (rc_rules_to_variant (rules));

    g_assert_cmpuint (g_variant_n_children (listed), ==, 1);
  }
  g_assert_cmpuint (rc_rules_get_boost (rules)->limits.values[RC_LIMIT_CPU_WEIGHT], ==,
                    RC_BOOST_WEIGHT_DEFAULT);

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      const RcRule *rule;
      const RcLimits *slice;

      g_test_message ("conditions %x, %s", cases[i].conditions, cases[i].app_id);
      rc_rules_set_conditions (rules, cases[i].conditions);
      rule = rc_rules_lookup (rules, cases[i].app_id);
      if (cases[i].cpu_weight == 0 && cases[i].cpu_quota == 0 && cases[i].freeze_sec == 0)
        g_assert_null (rule);
      else
        {
          g_assert_nonnull (rule);
          g_assert_cmpint (rc_limits_has (&rule->limits, RC_LIMIT_CPU_WEIGHT), ==,
                           cases[i].cpu_weight != 0);
          if (cases[i].cpu_weight != 0)
            g_assert_cmpuint (rule->limits.values[RC_LIMIT_CPU_WEIGHT], ==, cases[i].cpu_weight);
          g_assert_cmpint (rc_limits_has (&rule->limits, RC_LIMIT_CPU_QUOTA), ==,
                           cases[i].cpu_quota != 0);
          if (cases[i].cpu_quota != 0)
            g_assert_cmpuint (rule->limits.values[RC_LIMIT_CPU_QUOTA], ==, cases[i].cpu_quota);
          g_assert_cmpuint (rule->freeze_when_inactive_sec, ==, cases[i].freeze_sec);
        }
      slice = rc_rules_lookup_slice (rules, "background.slice");
      if (cases[i].background_weight == 0)
        g_assert_null (slice);
      else
        g_assert_cmpuint (slice->values[RC_LIMIT_CPU_WEIGHT], ==, cases[i].background_weight);
    }
  /* "changed" came for each change of conditions, none for the same again. */
  g_assert_cmpuint (changes, ==, 9);
  rc_rules_set_conditions (rules, 0);
  g_assert_cmpuint (changes, ==, 9);

  g_clear_object (&rules);
  rc_test_remove_tree (root);
}

/* Where a rule was read, for the action record: the file (~ for the home
 * folder) and group, as UTF-8 text however the file is named, cut at a
 * character when long. */
static void
test_origin (void)
{
  g_autofree char *home_file = g_build_filename (g_get_home_dir (), ".config", "r.d", "20-x.conf",
                                                 NULL);
  g_autofree char *a_lot = g_strnfill (RC_RULE_ORIGIN_MAX - 8, 'a');
  g_autofree char *long_name = g_strconcat ("/etc/", a_lot, "\xc3\xa9\xc3\xa9.conf", NULL);
  struct {
    const char *path;
    const char *origin;     /* NULL: only checked for UTF-8 and length */
  } cases[] = {
    { home_file, "~/.config/r.d/20-x.conf [org.example.A]" },
    { "/etc/resource-control/rules.d/1.conf", "/etc/resource-control/rules.d/1.conf [org.example.A]" },
    { "/etc/r/\xff\xfe.conf", NULL },
    { long_name, NULL },
  };
  const char *text = "[org.example.A]\nCPUWeight=50\n";

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      GHashTable *rules[RC_RULES_N_LAYERS], *slices[RC_RULES_N_LAYERS];
      g_autoptr(GPtrArray) problems = g_ptr_array_new_with_free_func (g_free);
      RcNotifyRules notify = RC_NOTIFY_RULES_DEFAULT;
      RcGuardRules guard = RC_GUARD_RULES_DEFAULT;
      RcBoost boost = { 0, };
      const RcRule *rule;

      for (guint l = 0; l < RC_RULES_N_LAYERS; l++)
        {
          rules[l] = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
          slices[l] = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
        }
      rc_rules_parse_data (text, strlen (text), cases[i].path, rules, slices, &boost, &notify,
                           &guard, problems);
      rule = g_hash_table_lookup (rules[RC_RULES_LAYER_BASE], "org.example.A");
      g_assert_nonnull (rule);
      g_assert_nonnull (rule->origin);
      g_assert_true (g_utf8_validate (rule->origin, -1, NULL));
      g_assert_cmpuint (strlen (rule->origin), <, RC_RULE_ORIGIN_MAX);
      if (cases[i].origin != NULL)
        g_assert_cmpstr (rule->origin, ==, cases[i].origin);
      for (guint l = 0; l < RC_RULES_N_LAYERS; l++)
        {
          g_hash_table_unref (rules[l]);
          g_hash_table_unref (slices[l]);
        }
    }
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/rules/parse-text", test_parse_text);
  g_test_add_func ("/rules/format-text", test_format_text);
  g_test_add_func ("/rules/parse-variant", test_parse_variant);
  g_test_add_func ("/rules/load-order", test_load_order);
  g_test_add_func ("/rules/defaults-without-files", test_defaults_without_files);
  g_test_add_func ("/rules/notify-group", test_notify_group);
  g_test_add_func ("/rules/split-group", test_split_group);
  g_test_add_func ("/rules/condition-precedence", test_condition_precedence);
  g_test_add_func ("/rules/origin", test_origin);
  return g_test_run ();
}
