/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A limit's value in words, the one wording resourcectl and the panel share
 * (src/common/rc-limit-keys.c). */
#include "rc-limit-keys.h"

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

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/limit-text/format-value", test_format_value);
  return g_test_run ();
}
