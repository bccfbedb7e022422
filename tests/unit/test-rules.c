/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Rule values as people write them, rule files, and Mutter's focus marks. */
#include <glib/gstdio.h>
#include <string.h>

#include "rc-error.h"
#include "rc-focus-watch.h"
#include "rc-rules.h"

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
remove_tree (const char *dir)
{
  g_autoptr(GDir) handle = g_dir_open (dir, 0, NULL);
  const char *name;

  while (handle != NULL && (name = g_dir_read_name (handle)) != NULL)
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);

      if (g_file_test (path, G_FILE_TEST_IS_DIR))
        remove_tree (path);
      else
        g_unlink (path);
    }
  g_rmdir (dir);
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
  remove_tree (root);
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
  /* The user's folder is created, so it can be watched without polling. */
  g_assert_true (g_file_test (user_dir, G_FILE_TEST_IS_DIR));
  g_clear_object (&rules);
  remove_tree (root);
}

static void
test_focus_parse (void)
{
  g_assert_cmpint (rc_focus_parse ("-1", 2), ==, RC_FOCUS_FOCUSED);
  g_assert_cmpint (rc_focus_parse ("-1\n", 3), ==, RC_FOCUS_FOCUSED);
  g_assert_cmpint (rc_focus_parse ("1733240000123456", 16), ==, RC_FOCUS_INACTIVE);
  g_assert_cmpint (rc_focus_parse ("-12", 3), ==, RC_FOCUS_UNKNOWN);
  g_assert_cmpint (rc_focus_parse ("", 0), ==, RC_FOCUS_UNKNOWN);
  g_assert_cmpint (rc_focus_parse ("focused", 7), ==, RC_FOCUS_UNKNOWN);
  /* Not NUL-terminated: only @length bytes count. */
  g_assert_cmpint (rc_focus_parse ("-1xyz", 2), ==, RC_FOCUS_FOCUSED);
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
  g_test_add_func ("/rules/focus-parse", test_focus_parse);
  return g_test_run ();
}
