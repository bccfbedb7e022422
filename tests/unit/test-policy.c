/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Limit precedence: for each limit, the foreground boost, then the last
 * value set through the API, then the app's rule, then the default for a
 * limit the daemon once applied and no one sets any more. */
#include "rc-policy.h"
#include "rc-test-util.h"

#define NONE G_MAXUINT64 - 1   /* "this source does not set CPUWeight" */
#define NO_RULE 0              /* no rule at all for the app */

typedef struct {
  const char *name;
  gboolean    boosted;     /* the app holds the boost (foreground, boost enabled) */
  guint64     boost;       /* the boost's CPUWeight, or NONE */
  guint64     api;         /* the API's CPUWeight, or NONE */
  guint64     rule;        /* the rule's CPUWeight, NONE, or NO_RULE */
  gboolean    applied;     /* the daemon applied a CPUWeight before */
  guint64     expected;    /* CPUWeight in force, or NONE: left alone */
} Case;

static const Case cases[] = {
  { "nothing set: left alone", FALSE, NONE, NONE, NO_RULE, FALSE, NONE },
  { "rule only", FALSE, NONE, NONE, 40, FALSE, 40 },
  { "API beats rule", FALSE, NONE, 200, 40, TRUE, 200 },
  { "API without rule", FALSE, NONE, 200, NO_RULE, TRUE, 200 },
  { "boost beats API and rule", TRUE, 500, 200, 40, TRUE, 500 },
  { "boost beats rule", TRUE, 500, NONE, 40, TRUE, 500 },
  { "boost not held: API", FALSE, 500, 200, 40, TRUE, 200 },
  { "boost not held: rule", FALSE, 500, NONE, 40, TRUE, 40 },
  { "held boost without this limit: API", TRUE, NONE, 200, 40, TRUE, 200 },
  { "held boost without this limit: rule", TRUE, NONE, NONE, 40, TRUE, 40 },
  { "rule without this limit: default once applied", FALSE, NONE, NONE, NONE, TRUE, 100 },
  { "rule removed: default once applied", FALSE, NONE, NONE, NO_RULE, TRUE, 100 },
  { "rule without this limit, never applied: left alone", FALSE, NONE, NONE, NONE, FALSE, NONE },
  { "boost lost, nothing else: default", FALSE, 500, NONE, NO_RULE, TRUE, 100 },
};

static void
test_precedence (gconstpointer data)
{
  const Case *c = data;
  RcLimits boost = { 0, }, api = { 0, }, rule = { 0, }, applied = { 0, }, defaults, out;

  rc_limits_init_reset (&defaults, 4915);
  if (c->boost != NONE)
    rc_limits_set (&boost, RC_LIMIT_CPU_WEIGHT, c->boost);
  if (c->api != NONE)
    rc_limits_set (&api, RC_LIMIT_CPU_WEIGHT, c->api);
  if (c->rule != NONE && c->rule != NO_RULE)
    rc_limits_set (&rule, RC_LIMIT_CPU_WEIGHT, c->rule);
  /* other limits ride along: the rule's memory cap stays whatever wins CPUWeight */
  if (c->rule != NO_RULE)
    rc_limits_set (&rule, RC_LIMIT_MEMORY_MAX, 1 << 30);
  if (c->applied)
    rc_limits_set (&applied, RC_LIMIT_CPU_WEIGHT, 1);

  rc_limits_resolve (c->boosted ? &boost : NULL, &api, c->rule == NO_RULE ? NULL : &rule,
                     &applied, &defaults, &out);

  if (c->expected == NONE)
    g_assert_false (rc_limits_has (&out, RC_LIMIT_CPU_WEIGHT));
  else
    {
      g_assert_true (rc_limits_has (&out, RC_LIMIT_CPU_WEIGHT));
      g_assert_cmpuint (out.values[RC_LIMIT_CPU_WEIGHT], ==, c->expected);
    }
  g_assert_cmpint (rc_limits_has (&out, RC_LIMIT_MEMORY_MAX), ==, c->rule != NO_RULE);
  if (c->rule != NO_RULE)
    g_assert_cmpuint (out.values[RC_LIMIT_MEMORY_MAX], ==, 1 << 30);
  /* nothing else is touched */
  g_assert_false (rc_limits_has (&out, RC_LIMIT_TASKS_MAX));
  g_assert_false (rc_limits_has (&out, RC_LIMIT_IO_WEIGHT));
}

/* The default of each limit is what ResetLimits sets. */
static void
test_defaults (void)
{
  RcLimits none = { 0, }, applied = { 0, }, defaults, out;

  rc_limits_init_reset (&defaults, 4915);
  for (RcLimit limit = 0; limit < RC_N_LIMITS; limit++)
    rc_limits_set (&applied, limit, 1);
  rc_limits_resolve (NULL, &none, NULL, &applied, &defaults, &out);
  for (RcLimit limit = 0; limit < RC_N_LIMITS; limit++)
    {
      g_assert_true (rc_limits_has (&out, limit));
      g_assert_cmpuint (out.values[limit], ==, defaults.values[limit]);
    }
  g_assert_cmpuint (out.values[RC_LIMIT_CPU_WEIGHT], ==, 100);
  g_assert_cmpuint (out.values[RC_LIMIT_TASKS_MAX], ==, 4915);
  g_assert_cmpuint (out.values[RC_LIMIT_MEMORY_MAX], ==, G_MAXUINT64);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  RC_TEST_ADD_CASES ("/policy/precedence/", cases, name, test_precedence);
  g_test_add_func ("/policy/defaults", test_defaults);
  return g_test_run ();
}
