/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "rc-launch-options.h"
#include "rc-app.h"
#include "rc-api-keys.h"
#include "rc-error.h"

#include <string.h>

void
rc_launch_options_init (RcLaunchOptions *options,
                        RcStartMethod    method)
{
  *options = (RcLaunchOptions) { 0, };
  options->method = method;
  options->kind = method == RC_START_ADOPT ? RC_UNIT_KIND_SCOPE : RC_UNIT_KIND_SERVICE;
  options->launcher = g_strdup (RC_LAUNCHER_DEFAULT);
  options->slice = g_strdup ("app.slice");
}

void
rc_launch_options_clear (RcLaunchOptions *options)
{
  g_clear_pointer (&options->app_id, g_free);
  g_clear_pointer (&options->launcher, g_free);
  g_clear_pointer (&options->slice, g_free);
  g_clear_pointer (&options->environment, g_strfreev);
  g_clear_pointer (&options->working_directory, g_free);
  g_clear_pointer (&options->pids, g_array_unref);
}

static gboolean
option_type_error (const char *key,
                   GVariant   *value,
                   const char *type,
                   GError    **error)
{
  g_set_error (error, RC_ERROR, RC_ERROR_INVALID_ARGUMENT,
               "Option %s has type %s: it must be %s", key, g_variant_get_type_string (value),
               type);
  return FALSE;
}

static gboolean
is_launcher_name (const char *s)
{
  if (*s == '\0' || strlen (s) > 32)
    return FALSE;
  for (const char *p = s; *p != '\0'; p++)
    if (!g_ascii_islower (*p) && !g_ascii_isdigit (*p))
      return FALSE;
  return TRUE;
}

/* What a launcher legitimately hands to the app it starts: the display,
 * the activation token, the locale. Anything else (LD_PRELOAD,
 * LD_LIBRARY_PATH, GTK_MODULES, GIO_EXTRA_MODULES, ...) would let the
 * caller choose code the app runs, which the launch action does not grant:
 * behind a D-Bus proxy a sandboxed app is a caller in the active session. */
static const char * const environment_allowed[] = {
  "DISPLAY", "WAYLAND_DISPLAY", "XAUTHORITY", "XDG_ACTIVATION_TOKEN", "DESKTOP_STARTUP_ID",
  "XDG_CURRENT_DESKTOP", "XDG_SESSION_TYPE", "XDG_SESSION_DESKTOP", "LANG", "LANGUAGE",
  "LC_*", "TZ", NULL
};

static gboolean
is_environment_key_allowed (const char *key)
{
  for (gsize i = 0; environment_allowed[i] != NULL; i++)
    {
      const char *allowed = environment_allowed[i];
      gsize n = strlen (allowed);

      if (allowed[n - 1] == '*' ? strncmp (key, allowed, n - 1) == 0 && key[n - 1] != '\0'
                                : g_str_equal (key, allowed))
        return TRUE;
    }
  return FALSE;
}

static gboolean
parse_environment (RcLaunchOptions *options,
                   GVariant        *value,
                   GError         **error)
{
  g_autofree const char **vars = g_variant_get_strv (value, NULL);
  gsize n = g_strv_length ((char **) vars);

  if (n > RC_LAUNCH_MAX_ENVIRONMENT)
    {
      g_set_error (error, RC_ERROR, RC_ERROR_INVALID_ARGUMENT,
                   "Option Environment has %" G_GSIZE_FORMAT " entries: at most %d are allowed",
                   n, RC_LAUNCH_MAX_ENVIRONMENT);
      return FALSE;
    }
  for (guint i = 0; vars[i] != NULL; i++)
    {
      const char *eq = strchr (vars[i], '=');
      g_autofree char *key = eq != NULL ? g_strndup (vars[i], eq - vars[i]) : NULL;
      gboolean valid = key != NULL && *key != '\0' && !g_ascii_isdigit (*key);

      for (const char *p = key; valid && *p != '\0'; p++)
        valid = g_ascii_isalnum (*p) || *p == '_';
      if (!valid)
        {
          /* At most 64 bytes of it, cut where a character ends: the
           * message must be UTF-8 to go out as a D-Bus error. */
          g_autofree char *shown = g_utf8_make_valid (vars[i], MIN (strlen (vars[i]), 64));

          g_set_error (error, RC_ERROR, RC_ERROR_INVALID_ARGUMENT,
                       "Option Environment: \"%s\" is not KEY=VALUE with KEY made of "
                       "letters, digits and '_'", shown);
          return FALSE;
        }
      if (strlen (vars[i]) > RC_LAUNCH_MAX_ARGUMENT)
        {
          g_set_error (error, RC_ERROR, RC_ERROR_INVALID_ARGUMENT,
                       "Option Environment: the value of %s is longer than %d bytes", key,
                       RC_LAUNCH_MAX_ARGUMENT);
          return FALSE;
        }
      if (!is_environment_key_allowed (key))
        {
          g_autofree char *allowed = g_strjoinv (" ", (char **) environment_allowed);

          g_set_error (error, RC_ERROR, RC_ERROR_INVALID_ARGUMENT,
                       "Option Environment: %s may not be passed to an app (it could make the "
                       "app run other code); allowed are %s", key, allowed);
          return FALSE;
        }
    }
  g_strfreev (options->environment);
  options->environment = g_variant_dup_strv (value, NULL);
  return TRUE;
}

static gboolean
parse_launch_option (RcLaunchOptions *options,
                     const char      *key,
                     GVariant        *value,
                     GError         **error)
{
  const char *s;

  if (g_str_equal (key, RC_OPTION_KIND))
    {
      if (!g_variant_is_of_type (value, G_VARIANT_TYPE_STRING))
        return option_type_error (key, value, "s", error);
      s = g_variant_get_string (value, NULL);
      if (g_str_equal (s, RC_KIND_SERVICE) || g_str_equal (s, RC_KIND_SCOPE))
        {
          options->kind = g_str_equal (s, RC_KIND_SCOPE) ? RC_UNIT_KIND_SCOPE
                                                         : RC_UNIT_KIND_SERVICE;
          return TRUE;
        }
      g_set_error (error, RC_ERROR, RC_ERROR_INVALID_ARGUMENT,
                   "Option Kind is \"%s\": it must be \"service\" or \"scope\"", s);
      return FALSE;
    }
  if (g_str_equal (key, RC_OPTION_SLICE))
    {
      if (!g_variant_is_of_type (value, G_VARIANT_TYPE_STRING))
        return option_type_error (key, value, "s", error);
      s = g_variant_get_string (value, NULL);
      if (!rc_app_is_controllable_slice (s))
        {
          g_set_error (error, RC_ERROR, RC_ERROR_INVALID_ARGUMENT,
                       "Option Slice is \"%s\": it must be \"app.slice\" or "
                       "\"background.slice\"", s);
          return FALSE;
        }
      g_free (options->slice);
      options->slice = g_strdup (s);
      return TRUE;
    }
  if (g_str_equal (key, RC_OPTION_ENVIRONMENT))
    {
      if (!g_variant_is_of_type (value, G_VARIANT_TYPE_STRING_ARRAY))
        return option_type_error (key, value, "as", error);
      return parse_environment (options, value, error);
    }
  if (g_str_equal (key, RC_OPTION_WORKING_DIRECTORY))
    {
      if (!g_variant_is_of_type (value, G_VARIANT_TYPE_STRING))
        return option_type_error (key, value, "s", error);
      s = g_variant_get_string (value, NULL);
      /* Only the form here: whether the folder exists is asked in the file
       * reader (rc-launch-read.c), as a path on a mount that never answers
       * would block any stat. */
      if (!g_path_is_absolute (s))
        {
          rc_launch_refuse_working_directory (s, error);
          return FALSE;
        }
      g_free (options->working_directory);
      options->working_directory = g_strdup (s);
      return TRUE;
    }
  if (g_str_equal (key, RC_OPTION_LIMITS))
    {
      g_autoptr(GVariant) no_options = g_variant_ref_sink (g_variant_new ("a{sv}", NULL));

      if (!g_variant_is_of_type (value, G_VARIANT_TYPE_VARDICT))
        return option_type_error (key, value, "a{sv}", error);
      return rc_limits_parse (value, no_options, g_get_num_processors (), &options->requested,
                              error);
    }
  if (g_str_equal (key, RC_OPTION_CALLER_PID))
    {
      if (!g_variant_is_of_type (value, G_VARIANT_TYPE_UINT32))
        return option_type_error (key, value, "u", error);
      options->caller_pid = g_variant_get_uint32 (value);
      if (options->caller_pid == 0)
        {
          g_set_error_literal (error, RC_ERROR, RC_ERROR_INVALID_ARGUMENT,
                               "Option CallerPid is 0: it must be the calling process's own pid");
          return FALSE;
        }
      return TRUE;
    }
  g_set_error (error, RC_ERROR, RC_ERROR_INVALID_ARGUMENT,
               "Unknown option %s: Launch takes Kind, Launcher, Slice, Environment, "
               "WorkingDirectory, Limits and CallerPid", key);
  return FALSE;
}

/* CallerPid: the caller runs the app itself, in its own environment and
 * folder, so it names a scope and nothing the daemon would pass on. */
static gboolean
check_caller_pid (const RcLaunchOptions *options,
                  GError               **error)
{
  const char *other = NULL;

  if (options->caller_pid == 0)
    return TRUE;
  if (options->kind != RC_UNIT_KIND_SCOPE)
    {
      g_set_error_literal (error, RC_ERROR, RC_ERROR_INVALID_ARGUMENT,
                           "Option CallerPid needs Kind \"scope\": only a scope can take the "
                           "calling process in");
      return FALSE;
    }
  if (options->environment != NULL)
    other = RC_OPTION_ENVIRONMENT;
  else if (options->working_directory != NULL)
    other = RC_OPTION_WORKING_DIRECTORY;
  if (other != NULL)
    {
      g_set_error (error, RC_ERROR, RC_ERROR_INVALID_ARGUMENT,
                   "Option %s does not go with CallerPid: the calling process runs the app "
                   "with its own environment and folder", other);
      return FALSE;
    }
  return TRUE;
}

static gboolean
parse_adopt_option (RcLaunchOptions *options,
                    const char      *key,
                    GVariant        *value,
                    GError         **error)
{
  if (g_str_equal (key, RC_OPTION_APP_ID))
    {
      if (!g_variant_is_of_type (value, G_VARIANT_TYPE_STRING))
        return option_type_error (key, value, "s", error);
      if (!rc_app_id_check (g_variant_get_string (value, NULL), error))
        return FALSE;
      g_free (options->app_id);
      options->app_id = g_variant_dup_string (value, NULL);
      return TRUE;
    }
  g_set_error (error, RC_ERROR, RC_ERROR_INVALID_ARGUMENT,
               "Unknown option %s: Adopt takes AppId and Launcher", key);
  return FALSE;
}

void
rc_launch_refuse_working_directory (const char *dir,
                                    GError    **error)
{
  g_set_error (error, RC_ERROR, RC_ERROR_INVALID_ARGUMENT,
               "Option WorkingDirectory is \"%s\": it must be an existing folder, "
               "given as an absolute path", dir);
}

gboolean
rc_launch_options_parse (RcLaunchOptions *options,
                         GVariant        *dict,
                         GError         **error)
{
  GVariantIter iter;
  const char *key;
  GVariant *value;

  g_variant_iter_init (&iter, dict);
  while (g_variant_iter_next (&iter, "{&sv}", &key, &value))
    {
      g_autoptr(GVariant) owned G_GNUC_UNUSED = value;
      gboolean ok;

      if (g_str_equal (key, RC_OPTION_LAUNCHER))
        {
          if (!g_variant_is_of_type (value, G_VARIANT_TYPE_STRING))
            return option_type_error (key, value, "s", error);
          if (!is_launcher_name (g_variant_get_string (value, NULL)))
            {
              g_set_error (error, RC_ERROR, RC_ERROR_INVALID_ARGUMENT,
                           "Option Launcher is \"%s\": it must be 1 to 32 lower-case "
                           "letters and digits, such as \"sway\"",
                           g_variant_get_string (value, NULL));
              return FALSE;
            }
          g_free (options->launcher);
          options->launcher = g_variant_dup_string (value, NULL);
          continue;
        }
      ok = options->method == RC_START_ADOPT ? parse_adopt_option (options, key, value, error)
                                              : parse_launch_option (options, key, value, error);
      if (!ok)
        return FALSE;
    }
  return TRUE;
}

static gboolean
check_uris (const char * const *uris,
            GError            **error)
{
  guint n = g_strv_length ((char **) uris);

  if (n > RC_LAUNCH_MAX_URIS)
    {
      g_set_error (error, RC_ERROR, RC_ERROR_INVALID_ARGUMENT,
                   "%u files or URIs given: at most %d are allowed", n, RC_LAUNCH_MAX_URIS);
      return FALSE;
    }
  for (guint i = 0; i < n; i++)
    if (strlen (uris[i]) > RC_LAUNCH_MAX_ARGUMENT)
      {
        g_set_error (error, RC_ERROR, RC_ERROR_INVALID_ARGUMENT,
                     "File or URI %u is longer than %d bytes", i + 1, RC_LAUNCH_MAX_ARGUMENT);
        return FALSE;
      }
  return TRUE;
}

gboolean
rc_launch_check_args (const char         *app_id,
                      const char * const *uris,
                      GVariant           *dict,
                      RcLaunchOptions    *options,
                      GError            **error)
{
  return rc_app_id_check (app_id, error) && rc_launch_options_parse (options, dict, error) &&
         check_caller_pid (options, error) && check_uris (uris, error);
}

/* Each pid of @pids once, in the order first named. */
static void
distinct_pids (RcLaunchOptions *options,
               GVariant        *pids)
{
  g_autoptr(GHashTable) seen = g_hash_table_new (g_direct_hash, g_direct_equal);
  const guint32 *values;
  gsize n;

  values = g_variant_get_fixed_array (pids, &n, sizeof (guint32));
  g_clear_pointer (&options->pids, g_array_unref);
  options->pids = g_array_sized_new (FALSE, FALSE, sizeof (guint32), n);
  for (gsize i = 0; i < n; i++)
    if (g_hash_table_add (seen, GUINT_TO_POINTER (values[i])))
      g_array_append_val (options->pids, values[i]);
}

gboolean
rc_adopt_check_args (GVariant        *pids,
                     GVariant        *dict,
                     RcLaunchOptions *options,
                     GError         **error)
{
  gsize n = g_variant_n_children (pids);

  if (!rc_launch_options_parse (options, dict, error))
    return FALSE;
  if (n == 0)
    {
      g_set_error_literal (error, RC_ERROR, RC_ERROR_INVALID_ARGUMENT,
                           "No process given: pass the pids of the app's processes");
      return FALSE;
    }
  if (n > RC_ADOPT_MAX_PIDS)
    {
      g_set_error (error, RC_ERROR, RC_ERROR_INVALID_ARGUMENT,
                   "%" G_GSIZE_FORMAT " processes given: at most %d are allowed (the app's "
                   "own processes follow the ones named)", n, RC_ADOPT_MAX_PIDS);
      return FALSE;
    }
  distinct_pids (options, pids);
  return TRUE;
}
