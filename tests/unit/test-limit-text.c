/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A limit's value and a rule in words, the one wording resourcectl and the
 * panel share (src/common/rc-limit-table.c). */
#include "rc-limit-table.h"

static void
test_format_value (void)
{
  static const struct {
    RcLimit     limit;
    const char *value;   /* GVariant text */
    const char *text;    /* NULL: not this limit's, the caller shows it as it is */
  } cases[] = {
    { RC_LIMIT_CPU_WEIGHT, "uint64 300", "300" },
    { RC_LIMIT_CPU_WEIGHT, "uint64 18446744073709551615", "-" },
    { RC_LIMIT_IO_WEIGHT, "uint64 100", "100" },
    { RC_LIMIT_CPU_QUOTA, "uint32 50", "50%" },
    { RC_LIMIT_CPU_QUOTA, "uint32 0", "max" },
    { RC_LIMIT_MEMORY_MAX, "uint64 2147483648", "2G" },
    { RC_LIMIT_MEMORY_MAX, "uint64 1610612736", "1.5G" },
    { RC_LIMIT_MEMORY_MAX, "uint64 18446744073709551615", "max" },
    { RC_LIMIT_MEMORY_LOW, "uint64 0", "0" },
    { RC_LIMIT_MEMORY_HIGH, "uint64 1000", "1000B" },
    { RC_LIMIT_TASKS_MAX, "uint64 18446744073709551615", "max" },
    { RC_LIMIT_TASKS_MAX, "uint64 512", "512" },
    { RC_LIMIT_OOM_PREFERENCE, "'avoid'", "avoid" },
    { RC_LIMIT_OOM_PRESSURE, "'kill'", "kill" },
    { RC_LIMIT_OOM_PRESSURE_LIMIT, "uint32 40", "40%" },
    /* From a daemon newer than this client, or another key's value. */
    { RC_LIMIT_OOM_PREFERENCE, "'never-heard-of'", NULL },
    { RC_LIMIT_OOM_PREFERENCE, "''", NULL },
    { RC_LIMIT_CPU_QUOTA, "uint64 50", NULL },
    { RC_LIMIT_MEMORY_MAX, "'2G'", NULL },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GVariant) value = g_variant_parse (NULL, cases[i].value, NULL, NULL, NULL);
      g_autofree char *text = rc_limit_format_value (cases[i].limit, value);

      g_test_message ("%s %s", rc_limit_key (cases[i].limit), cases[i].value);
      g_assert_cmpstr (text, ==, cases[i].text);
    }
}

static void
test_format_rule (void)
{
  static const struct {
    const char *rule;    /* GVariant text of an a{sv} */
    const char *cli;     /* "=", " " */
    const char *panel;   /* " ", " · " */
  } cases[] = {
    { "@a{sv} {}", "", "" },
    { "{'CPUWeight': <uint64 300>}", "CPUWeight=300", "CPUWeight 300" },
    /* The table's order, whatever the dictionary's; then the rule-only key,
     * then keys this program does not know, as they come. */
    { "{'Newer': <'x'>, 'FreezeWhenInactiveSec': <uint32 30>, 'MemoryMax': <uint64 2147483648>,"
      " 'CPUQuota': <uint32 0>, 'CPUWeight': <uint64 50>}",
      "CPUWeight=50 CPUQuota=max MemoryMax=2G FreezeWhenInactiveSec=30 Newer=x",
      "CPUWeight 50 · CPUQuota max · MemoryMax 2G · FreezeWhenInactiveSec 30 · Newer x" },
    { "{'ManagedOOMPreference': <'avoid'>, 'TasksMax': <uint64 18446744073709551615>}",
      "TasksMax=max ManagedOOMPreference=avoid", "TasksMax max · ManagedOOMPreference avoid" },
    /* A value the table does not know is shown as it is. */
    { "{'ManagedOOMPreference': <'never'>, 'CPUWeight': <'high'>, 'Other': <int32 -1>}",
      "CPUWeight=high ManagedOOMPreference=never Other=-1",
      "CPUWeight high · ManagedOOMPreference never · Other -1" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GVariant) rule = g_variant_parse (G_VARIANT_TYPE_VARDICT, cases[i].rule, NULL,
                                                  NULL, NULL);
      g_autofree char *cli = rc_limit_format_rule (rule, "=", " ");
      g_autofree char *panel = rc_limit_format_rule (rule, " ", " · ");

      g_assert_nonnull (rule);
      g_assert_cmpstr (cli, ==, cases[i].cli);
      g_assert_cmpstr (panel, ==, cases[i].panel);
    }
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/limit-text/format-value", test_format_value);
  g_test_add_func ("/limit-text/format-rule", test_format_rule);
  return g_test_run ();
}
