/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* libFuzzer target: the checks Launch and Adopt make before polkit is
 * asked (rc-launch-options.c). The input is read three ways, each as
 * untrusted serialized data, as GDBus reads a call: as an options a{sv}
 * (for Launch and for Adopt), as Launch's (sasa{sv}) and as Adopt's
 * (aua{sv}). */
#include "fuzz-common.h"
#include "rc-app.h"
#include "rc-api-keys.h"
#include "rc-error.h"
#include "rc-launch-options.h"

#include <string.h>

/* A refusal goes back to the caller as a D-Bus error: its message must be
 * a valid D-Bus string. */
static void
check_error (gboolean      ok,
             const GError *error)
{
  FUZZ_ASSERT (ok == (error == NULL));
  if (ok)
    return;
  FUZZ_ASSERT (g_error_matches (error, RC_ERROR, RC_ERROR_INVALID_ARGUMENT));
  if (!g_utf8_validate (error->message, -1, NULL))
    {
      g_printerr ("not UTF-8: %s\n", error->message);
      FUZZ_ASSERT (!"an error message is not valid UTF-8");
    }
}

static gboolean
is_launcher_name (const char *s)
{
  gsize n = strlen (s);

  return n >= 1 && n <= 32 && strspn (s, "abcdefghijklmnopqrstuvwxyz0123456789") == n;
}

/* What the request is built from once the options are accepted. */
static void
check_accepted (const RcLaunchOptions *options,
                GVariant              *dict)
{
  FUZZ_ASSERT (options->kind == RC_UNIT_KIND_SERVICE || options->kind == RC_UNIT_KIND_SCOPE);
  FUZZ_ASSERT (options->launcher != NULL && is_launcher_name (options->launcher));
  FUZZ_ASSERT (rc_app_is_controllable_slice (options->slice));
  FUZZ_ASSERT (options->requested.set == 0 ||
               rc_limits_validate (&options->requested, g_get_num_processors (), NULL));
  if (options->method == RC_START_ADOPT)
    {
      FUZZ_ASSERT (options->kind == RC_UNIT_KIND_SCOPE);
      FUZZ_ASSERT (options->environment == NULL && options->working_directory == NULL);
      FUZZ_ASSERT (options->requested.set == 0);
      FUZZ_ASSERT (options->app_id == NULL || rc_app_id_is_valid (options->app_id));
      /* rc_adopt_submit looks for AppId this way to decide whether to
       * find out which app the processes are */
      FUZZ_ASSERT (g_variant_lookup (dict, RC_OPTION_APP_ID, "&s", NULL) ==
                   (options->app_id != NULL));
      return;
    }
  FUZZ_ASSERT (options->app_id == NULL);
  FUZZ_ASSERT (options->working_directory == NULL ||
               g_path_is_absolute (options->working_directory));
  if (options->environment != NULL)
    {
      FUZZ_ASSERT (g_strv_length (options->environment) <= RC_LAUNCH_MAX_ENVIRONMENT);
      for (guint i = 0; options->environment[i] != NULL; i++)
        {
          const char *var = options->environment[i];
          const char *eq = strchr (var, '=');

          FUZZ_ASSERT (eq != NULL && eq != var);
          FUZZ_ASSERT (strlen (var) <= RC_LAUNCH_MAX_ARGUMENT);
          /* nothing that chooses the code the app runs */
          FUZZ_ASSERT (!g_str_has_prefix (var, "LD_") && !g_str_has_prefix (var, "GTK_") &&
                       !g_str_has_prefix (var, "GIO_") && !g_str_has_prefix (var, "PATH="));
        }
    }
}

static void
fuzz_dict (GVariant     *dict,
           RcStartMethod method)
{
  g_auto(RcLaunchOptions) options = { 0, };
  g_auto(RcLaunchOptions) again = { 0, };
  g_autoptr(GError) error = NULL;
  g_autoptr(GError) error_again = NULL;
  gboolean ok;

  rc_launch_options_init (&options, method);
  ok = rc_launch_options_parse (&options, dict, &error);
  check_error (ok, error);
  if (ok)
    check_accepted (&options, dict);

  /* the same options, the same answer */
  rc_launch_options_init (&again, method);
  FUZZ_ASSERT (rc_launch_options_parse (&again, dict, &error_again) == ok);
  if (!ok)
    FUZZ_ASSERT (g_str_equal (error->message, error_again->message));
}

static void
fuzz_launch (GVariant *args)
{
  g_auto(RcLaunchOptions) options = { 0, };
  g_autoptr(GVariant) dict = g_variant_get_child_value (args, 2);
  g_autofree const char **uris = NULL;
  g_autoptr(GError) error = NULL;
  const char *app_id;
  gboolean ok;

  g_variant_get_child (args, 0, "&s", &app_id);
  g_variant_get_child (args, 1, "^a&s", &uris);
  rc_launch_options_init (&options, RC_START_LAUNCH);
  ok = rc_launch_check_args (app_id, uris, dict, &options, &error);
  check_error (ok, error);
  if (!ok)
    return;
  check_accepted (&options, dict);
  FUZZ_ASSERT (rc_app_id_is_valid (app_id));
  FUZZ_ASSERT (g_strv_length ((char **) uris) <= RC_LAUNCH_MAX_URIS);
  for (guint i = 0; uris[i] != NULL; i++)
    FUZZ_ASSERT (strlen (uris[i]) <= RC_LAUNCH_MAX_ARGUMENT);
}

static void
fuzz_adopt (GVariant *args)
{
  g_auto(RcLaunchOptions) options = { 0, };
  g_autoptr(GVariant) pids = g_variant_get_child_value (args, 0);
  g_autoptr(GVariant) dict = g_variant_get_child_value (args, 1);
  g_autoptr(GError) error = NULL;
  const guint32 *values;
  gsize n;
  gboolean ok;

  values = g_variant_get_fixed_array (pids, &n, sizeof (guint32));
  rc_launch_options_init (&options, RC_START_ADOPT);
  ok = rc_adopt_check_args (pids, dict, &options, &error);
  check_error (ok, error);
  if (!ok)
    return;
  check_accepted (&options, dict);
  FUZZ_ASSERT (n >= 1 && n <= RC_ADOPT_MAX_PIDS);
  FUZZ_ASSERT (values != NULL);
}

int
LLVMFuzzerTestOneInput (const guint8 *data,
                        size_t        size)
{
  /* GVariant keeps a pointer to the bytes, and libFuzzer's buffer is only
   * valid for this call: the variants are gone before we return. */
  g_autoptr(GVariant) dict = g_variant_ref_sink (
    g_variant_new_from_data (G_VARIANT_TYPE_VARDICT, data, size, FALSE, NULL, NULL));
  g_autoptr(GVariant) launch = g_variant_ref_sink (
    g_variant_new_from_data (G_VARIANT_TYPE ("(sasa{sv})"), data, size, FALSE, NULL, NULL));
  g_autoptr(GVariant) adopt = g_variant_ref_sink (
    g_variant_new_from_data (G_VARIANT_TYPE ("(aua{sv})"), data, size, FALSE, NULL, NULL));

  fuzz_dict (dict, RC_START_LAUNCH);
  fuzz_dict (dict, RC_START_ADOPT);
  fuzz_launch (launch);
  fuzz_adopt (adopt);
  return 0;
}
