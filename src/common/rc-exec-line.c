/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "rc-exec-line.h"
#include "rc-desktop-lookup.h"
#include "rc-safe-file.h"
#include "rc-error.h"

#include <string.h>

typedef struct {
  const char         *exec;
  const char         *name;
  const char         *icon;
  const char         *desktop_file;
  const char * const *uris;
  guint               n_uris;
  gboolean            took_uris;
} Expansion;

/* The local path of @uri (a URI or an absolute path), or NULL. Only file:
 * URIs have one here: GIO's VFS would map another scheme to its FUSE path
 * by a synchronous call to gvfs and a path lookup there, in the daemon,
 * before polkit, on a URI any caller chose. Such URIs stay URIs (%u). */
static char *
local_path (const char *uri,
            GError    **error)
{
  g_autofree char *host = NULL;
  char *path = NULL;

  if (g_path_is_absolute (uri))
    return g_strdup (uri);
  if (g_strcmp0 (g_uri_peek_scheme (uri), "file") == 0)
    {
      /* as GIO's local VFS reads it, without starting GIO's VFS (its modules) */
      path = g_filename_from_uri (uri, &host, NULL);
      if (host != NULL && g_ascii_strcasecmp (host, "localhost") != 0)
        g_clear_pointer (&path, g_free);
    }
  if (path == NULL)
    g_set_error (error, RC_ERROR, RC_ERROR_INVALID_ARGUMENT,
                 "%s is not a local file, and this app opens only local files (%%f or %%F "
                 "in its Exec line)", uri);
  /* "file:///%FF": argv goes to systemd in D-Bus strings, which are UTF-8 */
  else if (!g_utf8_validate (path, -1, NULL))
    {
      g_set_error (error, RC_ERROR, RC_ERROR_INVALID_ARGUMENT,
                   "%s names a file whose name is not UTF-8: pass it as a URI to an app that "
                   "takes URIs (%%u or %%U)", uri);
      g_clear_pointer (&path, g_free);
    }
  return path;
}

static char *
as_uri (const char *uri)
{
  if (!g_path_is_absolute (uri))
    return g_strdup (uri);
  return g_filename_to_uri (uri, NULL, NULL);
}

static gboolean
check_single (Expansion *ex,
              char       code,
              GError   **error)
{
  if (ex->n_uris <= 1)
    return TRUE;
  g_set_error (error, RC_ERROR, RC_ERROR_INVALID_ARGUMENT,
               "This app opens one %s at a time (%%%c in its Exec line), %u were given: "
               "launch it once for each", code == 'f' ? "file" : "URI", code, ex->n_uris);
  return FALSE;
}

/* An argument that is one of %f %F %u %U %i by itself: adds what it stands for. */
static gboolean
expand_whole (Expansion *ex,
              char       code,
              GPtrArray *argv,
              GError   **error)
{
  guint n = ex->n_uris;

  if (code == 'i')
    {
      if (ex->icon != NULL && *ex->icon != '\0')
        {
          g_ptr_array_add (argv, g_strdup ("--icon"));
          g_ptr_array_add (argv, g_strdup (ex->icon));
        }
      return TRUE;
    }
  ex->took_uris = TRUE;
  if ((code == 'f' || code == 'u') && !check_single (ex, code, error))
    return FALSE;
  for (guint i = 0; i < n; i++)
    {
      char *value = (code == 'f' || code == 'F') ? local_path (ex->uris[i], error)
                                                 : as_uri (ex->uris[i]);

      if (value == NULL)
        return FALSE;
      g_ptr_array_add (argv, value);
    }
  return TRUE;
}

static gboolean
invalid_exec (Expansion  *ex,
              const char *why,
              GError    **error)
{
  g_set_error (error, RC_ERROR, RC_ERROR_FAILED, "The Exec line of %s (%s) %s",
               ex->desktop_file != NULL ? ex->desktop_file : "the app", ex->exec, why);
  return FALSE;
}

/* Any other argument: the codes that may stand inside one. */
static gboolean
expand_inline (Expansion  *ex,
               const char *arg,
               GPtrArray  *argv,
               GError    **error)
{
  g_autoptr(GString) out = g_string_new ("");

  for (const char *p = arg; *p != '\0'; p++)
    {
      if (*p != '%')
        {
          g_string_append_c (out, *p);
          continue;
        }
      p++;
      switch (*p)
        {
        case '%':
          g_string_append_c (out, '%');
          break;
        case 'c':
          g_string_append (out, ex->name != NULL ? ex->name : "");
          break;
        case 'k':
          g_string_append (out, ex->desktop_file != NULL ? ex->desktop_file : "");
          break;
        case 'd': case 'D': case 'n': case 'N': case 'v': case 'm':
          break;   /* deprecated: dropped */
        case 'f': case 'F': case 'u': case 'U': case 'i':
          return invalid_exec (ex, "has a field code inside an argument; the spec allows "
                               "%f %F %u %U %i only as arguments by themselves", error);
        default:
          return invalid_exec (ex, "has an unknown field code", error);
        }
    }
  /* an argument of deprecated codes only is gone, not an empty one */
  if (out->len == 0 && arg[0] == '%')
    return TRUE;
  g_ptr_array_add (argv, g_string_free (g_steal_pointer (&out), FALSE));
  return TRUE;
}

gboolean
rc_exec_expand (const char         *exec,
                const char         *name,
                const char         *icon,
                const char         *desktop_file,
                const char * const *uris,
                char             ***out_argv,
                GError            **error)
{
  Expansion ex = { exec, name, icon, desktop_file, uris, 0, FALSE };
  g_autoptr(GPtrArray) argv = g_ptr_array_new_with_free_func (g_free);
  g_auto(GStrv) words = NULL;
  g_autoptr(GError) local = NULL;

  ex.n_uris = uris != NULL ? g_strv_length ((char **) uris) : 0;
  for (guint i = 0; i < ex.n_uris; i++)
    if (!g_path_is_absolute (uris[i]) && g_uri_peek_scheme (uris[i]) == NULL)
      {
        g_set_error (error, RC_ERROR, RC_ERROR_INVALID_ARGUMENT,
                     "%s is neither a URI (scheme:...) nor an absolute path", uris[i]);
        return FALSE;
      }
  if (exec == NULL || !g_shell_parse_argv (exec, NULL, &words, &local))
    return invalid_exec (&ex, local != NULL ? local->message : "is missing", error);

  for (guint i = 0; words[i] != NULL; i++)
    {
      const char *w = words[i];
      gboolean ok;

      /* a file, URI or icon as the program: what a caller sent would run */
      if (w[0] == '%' && w[1] != '\0' && w[2] == '\0' && strchr ("fFuUi", w[1]) != NULL &&
          argv->len == 0)
        return invalid_exec (&ex, "names no program before its field codes", error);
      if (w[0] == '%' && w[1] != '\0' && w[2] == '\0' && strchr ("fFuUi", w[1]) != NULL)
        ok = expand_whole (&ex, w[1], argv, error);
      else
        ok = expand_inline (&ex, w, argv, error);
      if (!ok)
        return FALSE;
    }
  if (argv->len == 0 || *(char *) argv->pdata[0] == '\0')
    return invalid_exec (&ex, "names no program", error);
  if (ex.n_uris > 0 && !ex.took_uris)
    {
      g_set_error (error, RC_ERROR, RC_ERROR_INVALID_ARGUMENT,
                   "This app opens no files or URIs (no %%f %%F %%u %%U in its Exec line); "
                   "launch it without them");
      return FALSE;
    }
  g_ptr_array_add (argv, NULL);
  *out_argv = (char **) g_ptr_array_free (g_steal_pointer (&argv), FALSE);
  return TRUE;
}

/* What an app's desktop file says, for its argv. */
typedef struct {
  const char *exec;
  gboolean    terminal;
  const char *name;
  const char *icon;
  const char *path;   /* the desktop file */
} DesktopKeys;

/* What runs @app_id by its desktop file's @keys. */
static gboolean
exec_for_keys (const char         *app_id,
               const DesktopKeys  *keys,
               const char * const *uris,
               char             ***out_argv,
               GError            **error)
{
  g_autofree char *program = NULL;
  g_auto(GStrv) argv = NULL;

  if (keys->terminal)
    {
      g_set_error (error, RC_ERROR, RC_ERROR_NOT_SUPPORTED,
                   "%s runs in a terminal (Terminal=true): launching terminal apps is not "
                   "supported; start a terminal with it instead", app_id);
      return FALSE;
    }
  if (keys->exec == NULL)
    {
      g_set_error (error, RC_ERROR, RC_ERROR_NOT_SUPPORTED,
                   "%s has no Exec line (it is started over D-Bus only): launching it is "
                   "not supported", app_id);
      return FALSE;
    }
  if (!rc_exec_expand (keys->exec, keys->name, keys->icon, keys->path, uris, &argv, error))
    return FALSE;
  program = g_find_program_in_path (argv[0]);
  if (program == NULL)
    {
      g_set_error (error, RC_ERROR, RC_ERROR_FAILED,
                   "Cannot start %s: its program %s is not installed (not found in PATH)",
                   app_id, argv[0]);
      return FALSE;
    }
  g_free (argv[0]);
  argv[0] = g_steal_pointer (&program);
  *out_argv = g_steal_pointer (&argv);
  return TRUE;
}

gboolean
rc_exec_for_app (const char         *app_id,
                 const char * const *uris,
                 char              **out_name,
                 char              **out_desktop_file,
                 char             ***out_argv,
                 GError            **error)
{
  g_autoptr(GError) local_error = NULL;
  g_autoptr(RcDesktopEntry) entry = rc_desktop_lookup (app_id, &local_error);
  DesktopKeys keys;

  if (entry == NULL && g_error_matches (local_error, G_FILE_ERROR, G_FILE_ERROR_NOENT))
    {
      g_set_error (error, RC_ERROR, RC_ERROR_NO_SUCH_APP,
                   "No app %s: there is no %s.desktop in the applications folders of "
                   "XDG_DATA_DIRS and XDG_DATA_HOME (or it is hidden, or its program is "
                   "not installed)", app_id, app_id);
      return FALSE;
    }
  if (entry == NULL)
    {
      g_set_error (error, RC_ERROR, RC_ERROR_NO_SUCH_APP, "No app %s: %s", app_id,
                   local_error->message);
      return FALSE;
    }
  keys.exec = entry->exec;
  keys.terminal = entry->terminal;
  keys.name = entry->name != NULL ? entry->name : app_id;
  keys.icon = entry->icon;
  keys.path = entry->path;
  if (!exec_for_keys (app_id, &keys, uris, out_argv, error))
    return FALSE;
  if (out_name != NULL)
    *out_name = g_strdup (keys.name);
  if (out_desktop_file != NULL)
    *out_desktop_file = g_strdup (entry->path);
  return TRUE;
}

gboolean
rc_exec_for_desktop_file (const char         *app_id,
                          const char         *desktop_file,
                          const char * const *uris,
                          char             ***out_argv,
                          GError            **error)
{
  g_autoptr(GKeyFile) file = g_key_file_new ();
  g_autoptr(GError) local_error = NULL;
  g_autofree char *exec = NULL;
  g_autofree char *name = NULL;
  g_autofree char *icon = NULL;
  DesktopKeys keys;

  if (!rc_safe_key_file_load (file, desktop_file, G_KEY_FILE_NONE, &local_error))
    {
      g_set_error (error, RC_ERROR, RC_ERROR_NO_SUCH_APP, "No app %s: cannot read %s (%s)",
                   app_id, desktop_file, local_error->message);
      return FALSE;
    }
  exec = g_key_file_get_string (file, G_KEY_FILE_DESKTOP_GROUP, G_KEY_FILE_DESKTOP_KEY_EXEC,
                                NULL);
  name = g_key_file_get_locale_string (file, G_KEY_FILE_DESKTOP_GROUP,
                                       G_KEY_FILE_DESKTOP_KEY_NAME, NULL, NULL);
  icon = g_key_file_get_string (file, G_KEY_FILE_DESKTOP_GROUP, G_KEY_FILE_DESKTOP_KEY_ICON,
                                NULL);
  keys.exec = exec;
  keys.terminal = g_key_file_get_boolean (file, G_KEY_FILE_DESKTOP_GROUP,
                                          G_KEY_FILE_DESKTOP_KEY_TERMINAL, NULL);
  keys.name = name != NULL ? name : app_id;
  keys.icon = icon;
  keys.path = desktop_file;
  return exec_for_keys (app_id, &keys, uris, out_argv, error);
}
