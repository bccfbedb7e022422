/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The limits validator: SetLimits dictionaries, ranges, and the systemd
 * properties they become. */
#include "rc-error.h"
#include "rc-test-hooks.h"
#include "rc-limits.h"

#include <glib/gstdio.h>
#include <stdlib.h>
#include <string.h>

#define MiB (1024 * 1024)

typedef struct {
  const char *limits;     /* GVariant text, a{sv} */
  const char *options;    /* GVariant text, a{sv} */
  int         error;      /* -1: valid */
  const char *message;    /* a part of the error message */
} ParseCase;

static const ParseCase parse_cases[] = {
  { "{'CPUWeight': <uint64 300>}", "@a{sv} {}", -1, NULL },
  { "{'CPUWeight': <uint64 1>, 'IOWeight': <uint64 10000>}", "@a{sv} {}", -1, NULL },
  { "{'CPUQuota': <uint32 10>}", "@a{sv} {}", -1, NULL },
  { "{'CPUQuota': <uint32 0>}", "@a{sv} {}", -1, NULL },
  { "{'CPUQuota': <uint32 200>}", "@a{sv} {}", -1, NULL },
  { "{'MemoryMax': <uint64 16777216>, 'MemoryHigh': <uint64 16777216>}", "@a{sv} {}", -1, NULL },
  { "{'MemoryMax': <uint64 18446744073709551615>}", "@a{sv} {}", -1, NULL },
  { "{'MemoryLow': <uint64 0>}", "@a{sv} {}", -1, NULL },
  { "{'TasksMax': <uint64 1>}", "{'force': <true>}", -1, NULL },
  { "@a{sv} {}", "@a{sv} {}", RC_ERROR_INVALID_ARGUMENT, "No limits given" },
  { "{'CPUWeight': <uint64 0>}", "@a{sv} {}", RC_ERROR_INVALID_ARGUMENT, "CPUWeight 0 is out of range" },
  { "{'CPUWeight': <uint64 10001>}", "@a{sv} {}", RC_ERROR_INVALID_ARGUMENT, "allowed are 1 to 10000" },
  { "{'CPUWeight': <uint64 18446744073709551615>}", "@a{sv} {}", RC_ERROR_INVALID_ARGUMENT, "out of range" },
  { "{'IOWeight': <uint64 0>}", "@a{sv} {}", RC_ERROR_INVALID_ARGUMENT, "IOWeight 0" },
  { "{'CPUWeight': <uint32 300>}", "@a{sv} {}", RC_ERROR_INVALID_ARGUMENT, "CPUWeight has type u: it must be t" },
  { "{'CPUWeight': <'300'>}", "@a{sv} {}", RC_ERROR_INVALID_ARGUMENT, "has type s" },
  { "{'CPUQuota': <uint64 10>}", "@a{sv} {}", RC_ERROR_INVALID_ARGUMENT, "CPUQuota has type t: it must be u" },
  { "{'CPUQuota': <uint32 201>}", "@a{sv} {}", RC_ERROR_INVALID_ARGUMENT, "100 x 2 CPUs" },
  { "{'MemoryMax': <uint64 0>}", "@a{sv} {}", RC_ERROR_INVALID_ARGUMENT, "at least 16 MiB" },
  { "{'MemoryMax': <uint64 1>}", "@a{sv} {}", RC_ERROR_INVALID_ARGUMENT, "MemoryMax 1 bytes is too small" },
  { "{'MemoryHigh': <uint64 16777215>}", "@a{sv} {}", RC_ERROR_INVALID_ARGUMENT, "MemoryHigh" },
  { "{'MemoryLow': <uint64 1>}", "@a{sv} {}", RC_ERROR_INVALID_ARGUMENT, "0 for no protection" },
  { "{'TasksMax': <uint64 0>}", "@a{sv} {}", RC_ERROR_INVALID_ARGUMENT, "TasksMax 0" },
  { "{'Bogus': <uint64 1>}", "@a{sv} {}", RC_ERROR_INVALID_ARGUMENT, "Unknown limit “Bogus”" },
  { "{'MemoryLimit': <uint64 1073741824>}", "{'force': <true>}", -1, NULL },
  { "{'MemoryLimit': <uint64 18446744073709551615>}", "@a{sv} {}", -1, NULL },
  { "{'MemoryLimit': <uint32 1>}", "@a{sv} {}", RC_ERROR_INVALID_ARGUMENT, "MemoryLimit has type u: it must be t" },
  { "{'MemoryLimit': <uint64 1073741824>, 'MemoryMax': <uint64 1073741824>}", "@a{sv} {}", RC_ERROR_INVALID_ARGUMENT, "give either MemoryLimit or those two" },
  { "{'MemoryLimit': <uint64 1>}", "@a{sv} {}", RC_ERROR_INVALID_ARGUMENT, "too small" },
  { "{'cpuweight': <uint64 1>}", "@a{sv} {}", RC_ERROR_INVALID_ARGUMENT, "Unknown limit" },
  { "{'CPUWeight': <uint64 100>}", "{'force': <1>}", RC_ERROR_INVALID_ARGUMENT, "Option force has type i" },
  { "{'CPUWeight': <uint64 100>}", "{'forse': <true>}", RC_ERROR_INVALID_ARGUMENT, "Unknown option “forse”" },
};

static void
test_parse_table (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (parse_cases); i++)
    {
      const ParseCase *c = &parse_cases[i];
      g_autoptr(GVariant) limits = g_variant_ref_sink (g_variant_new_parsed (c->limits));
      g_autoptr(GVariant) options = g_variant_ref_sink (g_variant_new_parsed (c->options));
      g_autoptr(GError) error = NULL;
      RcLimits parsed = { 0, };
      gboolean ok;

      g_test_message ("case %u: %s %s", i, c->limits, c->options);
      ok = rc_limits_parse (limits, options, 2, &parsed, &error);
      if (c->error < 0)
        {
          g_assert_no_error (error);
          g_assert_true (ok);
          g_assert_cmpuint (parsed.set, !=, 0);
        }
      else
        {
          g_assert_error (error, RC_ERROR, c->error);
          g_assert_false (ok);
          g_assert_nonnull (strstr (error->message, c->message));
          g_assert_cmpuint (parsed.set, ==, 0);   /* untouched on error */
        }
    }
}

static void
test_parse_duplicate_key (void)
{
  /* The text format can't express duplicates: build the dictionary by hand. */
  g_auto(GVariantBuilder) builder = G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE_VARDICT);
  g_autoptr(GVariant) limits = NULL;
  g_autoptr(GVariant) options = g_variant_ref_sink (g_variant_new_parsed ("@a{sv} {}"));
  g_autoptr(GError) error = NULL;
  RcLimits parsed = { 0, };

  g_variant_builder_add (&builder, "{sv}", "CPUWeight", g_variant_new_uint64 (100));
  g_variant_builder_add (&builder, "{sv}", "CPUWeight", g_variant_new_uint64 (200));
  limits = g_variant_ref_sink (g_variant_builder_end (&builder));
  g_assert_false (rc_limits_parse (limits, options, 2, &parsed, &error));
  g_assert_error (error, RC_ERROR, RC_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "CPUWeight is given twice"));
}

static void
test_parse_values (void)
{
  g_autoptr(GVariant) limits = g_variant_ref_sink (g_variant_new_parsed (
                                                     "{'CPUWeight': <uint64 300>, 'CPUQuota': <uint32 10>, 'MemoryMax': <uint64 1073741824>}"));
  g_autoptr(GVariant) options = g_variant_ref_sink (g_variant_new_parsed ("{'force': <true>}"));
  g_autoptr(GError) error = NULL;
  RcLimits parsed = { 0, };

  g_assert_true (rc_limits_parse (limits, options, 4, &parsed, &error));
  g_assert_no_error (error);
  g_assert_true (parsed.force);
  g_assert_true (rc_limits_has (&parsed, RC_LIMIT_CPU_WEIGHT));
  g_assert_true (rc_limits_has (&parsed, RC_LIMIT_CPU_QUOTA));
  g_assert_true (rc_limits_has (&parsed, RC_LIMIT_MEMORY_MAX));
  g_assert_false (rc_limits_has (&parsed, RC_LIMIT_MEMORY_HIGH));
  g_assert_cmpuint (parsed.values[RC_LIMIT_CPU_WEIGHT], ==, 300);
  g_assert_cmpuint (parsed.values[RC_LIMIT_CPU_QUOTA], ==, 10);
  g_assert_cmpuint (parsed.values[RC_LIMIT_MEMORY_MAX], ==, 1073741824);
}

/* MemoryLimit is SetMemoryLimit's pair: MemoryMax, and MemoryHigh an eighth below. */
static void
test_parse_memory_limit (void)
{
  g_autoptr(GVariant) limits = g_variant_ref_sink (g_variant_new_parsed (
                                                     "{'MemoryLimit': <uint64 1073741824>}"));
  g_autoptr(GVariant) options = g_variant_ref_sink (g_variant_new_parsed ("{'force': <true>}"));
  g_autoptr(GError) error = NULL;
  RcLimits parsed = { 0, }, expected;

  g_assert_true (rc_limits_parse (limits, options, 2, &parsed, &error));
  g_assert_no_error (error);
  rc_limits_init_memory_limit (&expected, 1073741824);
  g_assert_cmpuint (parsed.set, ==, expected.set);
  g_assert_cmpuint (parsed.values[RC_LIMIT_MEMORY_MAX], ==, 1073741824);
  g_assert_cmpuint (parsed.values[RC_LIMIT_MEMORY_HIGH], ==, 1073741824 - 1073741824 / 8);
  g_assert_true (parsed.force);
}

static void
assert_variant_text (GVariant   *value,
                     const char *expected)
{
  g_autoptr(GVariant) owned = g_variant_ref_sink (value);
  g_autofree char *text = g_variant_print (owned, TRUE);

  g_assert_cmpstr (text, ==, expected);
}

static void
test_unit_properties (void)
{
  RcLimits limits = { 0, };

  rc_limits_set (&limits, RC_LIMIT_CPU_WEIGHT, 300);
  rc_limits_set (&limits, RC_LIMIT_CPU_QUOTA, 10);
  assert_variant_text (rc_limits_to_unit_properties (&limits),
                       "[('CPUWeight', <uint64 300>), ('CPUQuotaPerSecUSec', <uint64 100000>)]");
  assert_variant_text (rc_limits_to_app_changes (&limits),
                       "{'CPUWeight': <uint64 300>, 'CPUQuota': <uint32 10>}");

  /* A quota of 0 removes it: systemd's "infinity". */
  limits = (RcLimits) { 0, };
  rc_limits_set (&limits, RC_LIMIT_CPU_QUOTA, 0);
  assert_variant_text (rc_limits_to_unit_properties (&limits),
                       "[('CPUQuotaPerSecUSec', <uint64 18446744073709551615>)]");
}

static void
test_memory_limit (void)
{
  RcLimits limits;

  rc_limits_init_memory_limit (&limits, 1024 * MiB);
  g_assert_cmpuint (limits.values[RC_LIMIT_MEMORY_MAX], ==, 1024 * MiB);
  g_assert_cmpuint (limits.values[RC_LIMIT_MEMORY_HIGH], ==, 896 * MiB);
  g_assert_false (limits.force);

  rc_limits_init_memory_limit (&limits, G_MAXUINT64);
  g_assert_cmpuint (limits.values[RC_LIMIT_MEMORY_MAX], ==, G_MAXUINT64);
  g_assert_cmpuint (limits.values[RC_LIMIT_MEMORY_HIGH], ==, G_MAXUINT64);
}

static void
test_reset (void)
{
  RcLimits limits;

  rc_limits_init_reset (&limits, 4915);
  assert_variant_text (rc_limits_to_unit_properties (&limits),
                       "[('CPUWeight', <uint64 100>), ('IOWeight', <uint64 100>), "
                       "('CPUQuotaPerSecUSec', <uint64 18446744073709551615>), "
                       "('MemoryLow', <uint64 0>), "
                       "('MemoryHigh', <uint64 18446744073709551615>), "
                       "('MemoryMax', <uint64 18446744073709551615>), "
                       "('TasksMax', <uint64 4915>), ('MemoryMin', <uint64 0>), "
                       "('MemorySwapMax', <uint64 18446744073709551615>)]");
}

/* A fake cgroup: the checks read memory.current and cgroup.controllers. */
static char *
make_cgroup (const char *memory_current,
             const char *controllers)
{
  g_autofree char *root = g_dir_make_tmp ("rc-test-limits-XXXXXX", NULL);
  g_autofree char *dir = g_build_filename (root, "app.slice", "app-x-1.scope", NULL);
  g_autofree char *current = g_build_filename (dir, "memory.current", NULL);
  g_autofree char *ctrl = g_build_filename (dir, "cgroup.controllers", NULL);

  g_assert_cmpint (g_mkdir_with_parents (dir, 0755), ==, 0);
  g_assert_true (g_file_set_contents (current, memory_current, -1, NULL));
  g_assert_true (g_file_set_contents (ctrl, controllers, -1, NULL));
  g_setenv ("RC_CGROUP_ROOT", root, TRUE);
  return g_steal_pointer (&root);
}

static void
remove_cgroup (const char *root)
{
  g_autofree char *cmd = g_strdup_printf ("rm -rf '%s'", root);

  g_assert_cmpint (system (cmd), ==, 0);
  g_unsetenv ("RC_CGROUP_ROOT");
}

static void
test_would_kill (void)
{
  g_autofree char *root = make_cgroup ("104857600\n", "cpu memory pids\n");
  g_autoptr(GError) error = NULL;
  RcLimits limits;

  /* Exactly current use is not below it. */
  limits = (RcLimits) { 0, };
  rc_limits_set (&limits, RC_LIMIT_MEMORY_MAX, 100 * MiB);
  g_assert_true (rc_limits_check_app (&limits, "app-x-1.scope", "/app.slice/app-x-1.scope", &error));
  g_assert_no_error (error);

  /* One page below is. */
  rc_limits_set (&limits, RC_LIMIT_MEMORY_MAX, 100 * MiB - 4096);
  g_assert_false (rc_limits_check_app (&limits, "app-x-1.scope", "/app.slice/app-x-1.scope", &error));
  g_assert_error (error, RC_ERROR, RC_ERROR_WOULD_KILL);
  g_assert_nonnull (strstr (error->message, "104857600 bytes app-x-1.scope uses now"));
  g_clear_error (&error);

  /* Less than a page below rounds to the same page count. */
  rc_limits_set (&limits, RC_LIMIT_MEMORY_MAX, 100 * MiB - 1);
  g_assert_false (rc_limits_check_app (&limits, "app-x-1.scope", "/app.slice/app-x-1.scope", &error));
  g_clear_error (&error);

  /* SetMemoryLimit's MemoryHigh (7/8) falls below current use first. */
  rc_limits_init_memory_limit (&limits, 110 * MiB);
  g_assert_false (rc_limits_check_app (&limits, "app-x-1.scope", "/app.slice/app-x-1.scope", &error));
  g_assert_error (error, RC_ERROR, RC_ERROR_WOULD_KILL);
  g_assert_nonnull (strstr (error->message, "MemoryHigh"));
  g_clear_error (&error);

  /* force insists. */
  limits.force = TRUE;
  g_assert_true (rc_limits_check_app (&limits, "app-x-1.scope", "/app.slice/app-x-1.scope", &error));
  g_assert_no_error (error);

  /* Removing the limit never kills. */
  rc_limits_init_memory_limit (&limits, G_MAXUINT64);
  g_assert_true (rc_limits_check_app (&limits, "app-x-1.scope", "/app.slice/app-x-1.scope", &error));

  /* No io controller: IOWeight is NotSupported. */
  limits = (RcLimits) { 0, };
  rc_limits_set (&limits, RC_LIMIT_IO_WEIGHT, 200);
  g_assert_false (rc_limits_check_app (&limits, "app-x-1.scope", "/app.slice/app-x-1.scope", &error));
  g_assert_error (error, RC_ERROR, RC_ERROR_NOT_SUPPORTED);
  g_assert_nonnull (strstr (error->message, "io controller"));

  remove_cgroup (root);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  /* the fake cgroupfs below is a test hook */
  rc_test_hooks_enable ();
  g_test_add_func ("/limits/parse-table", test_parse_table);
  g_test_add_func ("/limits/parse-duplicate-key", test_parse_duplicate_key);
  g_test_add_func ("/limits/parse-values", test_parse_values);
  g_test_add_func ("/limits/parse-memory-limit", test_parse_memory_limit);
  g_test_add_func ("/limits/unit-properties", test_unit_properties);
  g_test_add_func ("/limits/memory-limit", test_memory_limit);
  g_test_add_func ("/limits/reset", test_reset);
  g_test_add_func ("/limits/would-kill", test_would_kill);
  return g_test_run ();
}
