/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What Launch and Adopt callers send, checked before polkit is asked. */
#include <string.h>

#include "rc-error.h"
#include "rc-launch-options.h"

static gboolean
parse (const char   *text,
       RcStartMethod method,
       GError      **error)
{
  g_autoptr(GVariant) dict = g_variant_ref_sink (g_variant_new_parsed (text));
  g_auto(RcLaunchOptions) options = { 0, };

  rc_launch_options_init (&options, method);
  return rc_launch_options_parse (&options, dict, error);
}

static void
test_launch_options (void)
{
  g_autoptr(GVariant) dict = g_variant_ref_sink (g_variant_new_parsed (
                                                   "{'Kind': <'scope'>, 'Launcher': <'sway'>, "
                                                   "'Slice': <'background.slice'>, "
                                                   "'Environment': <['LC_ALL=C', 'DISPLAY=:0']>, "
                                                   "'WorkingDirectory': <'/'>, "
                                                   "'Limits': <{'CPUWeight': <uint64 50>}>}"));
  g_auto(RcLaunchOptions) options = { 0, };
  static const char * const bad[] = {
    "{'Kind': <'timer'>}",
    "{'Kind': <uint32 1>}",
    "{'Launcher': <'Sway!'>}",
    "{'Slice': <'session.slice'>}",
    "{'Environment': <['LD_PRELOAD=/tmp/x.so']>}",
    "{'Environment': <['1A=b']>}",
    "{'WorkingDirectory': <'relative'>}",
    "{'Limits': <@a{sv} {}>}",
    "{'AppId': <'org.example.App'>}",
  };

  rc_launch_options_init (&options, RC_START_LAUNCH);
  g_assert_true (rc_launch_options_parse (&options, dict, NULL));
  g_assert_cmpint (options.kind, ==, RC_UNIT_KIND_SCOPE);
  g_assert_cmpstr (options.launcher, ==, "sway");
  g_assert_cmpstr (options.slice, ==, "background.slice");
  g_assert_cmpstr (options.environment[1], ==, "DISPLAY=:0");
  g_assert_cmpstr (options.working_directory, ==, "/");
  g_assert_cmpuint (options.requested.values[RC_LIMIT_CPU_WEIGHT], ==, 50);

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr(GError) error = NULL;

      g_test_message ("%s", bad[i]);
      g_assert_false (parse (bad[i], RC_START_LAUNCH, &error));
      g_assert_error (error, RC_ERROR, RC_ERROR_INVALID_ARGUMENT);
    }
}

/* The start of an Environment entry that is not KEY=VALUE is shown in the
 * error; cut inside a character, it made the D-Bus error's message
 * invalid UTF-8, which GDBus cannot send. */
static void
test_environment_shown_cut (void)
{
  g_autoptr(GString) entry = g_string_new ("x");
  g_autoptr(GVariant) dict = NULL;
  g_autoptr(GError) error = NULL;
  g_auto(RcLaunchOptions) options = { 0, };
  const char *entries[2] = { NULL, NULL };

  for (guint i = 0; i < 40; i++)
    g_string_append (entry, "é");
  entries[0] = entry->str;
  dict = g_variant_ref_sink (g_variant_new_parsed ("{'Environment': <%^as>}", entries));
  rc_launch_options_init (&options, RC_START_LAUNCH);
  g_assert_false (rc_launch_options_parse (&options, dict, &error));
  g_assert_error (error, RC_ERROR, RC_ERROR_INVALID_ARGUMENT);
  g_assert_true (g_utf8_validate (error->message, -1, NULL));
  g_assert_true (g_str_has_prefix (error->message, "Option Environment: \"xéé"));
}

static void
test_adopt_args (void)
{
  g_autoptr(GVariant) options_dict = g_variant_ref_sink (g_variant_new_parsed (
                                                           "{'AppId': <'org.example.App'>}"));
  g_autoptr(GArray) many = g_array_new (FALSE, TRUE, sizeof (guint32));
  g_autoptr(GVariant) one = g_variant_ref_sink (g_variant_new_parsed ("[uint32 4242]"));
  g_autoptr(GVariant) none = g_variant_ref_sink (g_variant_new_parsed ("@au []"));
  g_autoptr(GVariant) too_many = NULL;
  g_autoptr(GError) error = NULL;

  {
    g_auto(RcLaunchOptions) options = { 0, };

    rc_launch_options_init (&options, RC_START_ADOPT);
    g_assert_true (rc_adopt_check_args (one, options_dict, &options, NULL));
    g_assert_cmpint (options.kind, ==, RC_UNIT_KIND_SCOPE);
    g_assert_cmpstr (options.app_id, ==, "org.example.App");
  }
  {
    g_auto(RcLaunchOptions) options = { 0, };

    rc_launch_options_init (&options, RC_START_ADOPT);
    g_assert_false (rc_adopt_check_args (none, options_dict, &options, &error));
    g_assert_error (error, RC_ERROR, RC_ERROR_INVALID_ARGUMENT);
    g_clear_error (&error);
  }
  g_array_set_size (many, RC_ADOPT_MAX_PIDS + 1);
  too_many = g_variant_ref_sink (g_variant_new_fixed_array (G_VARIANT_TYPE_UINT32, many->data,
                                                            many->len, sizeof (guint32)));
  {
    g_auto(RcLaunchOptions) options = { 0, };

    rc_launch_options_init (&options, RC_START_ADOPT);
    g_assert_false (rc_adopt_check_args (too_many, options_dict, &options, &error));
    g_assert_error (error, RC_ERROR, RC_ERROR_INVALID_ARGUMENT);
  }
  g_assert_false (parse ("{'Kind': <'scope'>}", RC_START_ADOPT, NULL));
  g_assert_false (parse ("{'AppId': <'not an app'>}", RC_START_ADOPT, NULL));
}

/* Repeats go before anything is read of a process: the work before polkit
 * is bounded by the distinct pids, not by what the caller sends. */
static void
test_adopt_distinct_pids (void)
{
  g_autoptr(GVariant) options_dict = g_variant_ref_sink (g_variant_new_parsed ("@a{sv} {}"));
  g_autoptr(GVariant) repeats = g_variant_ref_sink (g_variant_new_parsed (
                                                      "[uint32 4242, 7, 4242, 9, 7, 7]"));
  g_autoptr(GArray) copies = g_array_new (FALSE, FALSE, sizeof (guint32));
  g_autoptr(GVariant) one_many_times = NULL;
  guint32 pid = 4242;

  {
    g_auto(RcLaunchOptions) options = { 0, };

    rc_launch_options_init (&options, RC_START_ADOPT);
    g_assert_true (rc_adopt_check_args (repeats, options_dict, &options, NULL));
    g_assert_cmpuint (options.pids->len, ==, 3);
    g_assert_cmpuint (g_array_index (options.pids, guint32, 0), ==, 4242);
    g_assert_cmpuint (g_array_index (options.pids, guint32, 1), ==, 7);
    g_assert_cmpuint (g_array_index (options.pids, guint32, 2), ==, 9);
  }
  for (guint i = 0; i < RC_ADOPT_MAX_PIDS; i++)
    g_array_append_val (copies, pid);
  one_many_times = g_variant_ref_sink (g_variant_new_fixed_array (G_VARIANT_TYPE_UINT32,
                                                                  copies->data, copies->len,
                                                                  sizeof (guint32)));
  {
    g_auto(RcLaunchOptions) options = { 0, };

    rc_launch_options_init (&options, RC_START_ADOPT);
    g_assert_true (rc_adopt_check_args (one_many_times, options_dict, &options, NULL));
    g_assert_cmpuint (options.pids->len, ==, 1);
    g_assert_cmpuint (g_array_index (options.pids, guint32, 0), ==, 4242);
  }
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/launch-options/launch", test_launch_options);
  g_test_add_func ("/launch-options/adopt-distinct-pids", test_adopt_distinct_pids);
  g_test_add_func ("/launch-options/environment-shown-cut", test_environment_shown_cut);
  g_test_add_func ("/launch-options/adopt", test_adopt_args);
  return g_test_run ();
}
