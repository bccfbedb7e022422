/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "rc-unit-name.h"
#include "rc-error.h"
#include "rc-safe-file.h"

#include <string.h>

/* systemd's UNIT_NAME_MAX is 256 including the terminating NUL. */
#define RC_UNIT_NAME_MAX 255
#define RC_APP_ID_MAX    255

static const char * const unit_suffixes[] = {
  ".service", ".scope", ".slice", ".socket", ".target", ".timer", ".path",
  ".mount", ".automount", ".swap", ".device",
};

/* Returns where the unit-type suffix of @name starts, or NULL without one. */
static const char *
find_unit_suffix (const char *name)
{
  for (gsize i = 0; i < G_N_ELEMENTS (unit_suffixes); i++)
    if (g_str_has_suffix (name, unit_suffixes[i]))
      return name + strlen (name) - strlen (unit_suffixes[i]);
  return NULL;
}

static gboolean
is_unit_name_char (char c)
{
  return g_ascii_isalnum (c) || strchr (":_.\\@-", c) != NULL;
}

gboolean
rc_unit_name_is_valid (const char *name)
{
  const char *suffix;
  const char *at;
  gsize len;

  if (name == NULL)
    return FALSE;
  len = strlen (name);
  if (len == 0 || len > RC_UNIT_NAME_MAX)
    return FALSE;
  for (const char *p = name; *p; p++)
    if (!is_unit_name_char (*p))
      return FALSE;

  suffix = find_unit_suffix (name);
  if (suffix == NULL || suffix == name)
    return FALSE;

  /* At most one '@' (template or instance), never at the start. */
  at = strchr (name, '@');
  if (at != NULL && (at == name || strchr (at + 1, '@') != NULL))
    return FALSE;

  return TRUE;
}

char *
rc_desktop_file_id (const char *path)
{
  g_autofree char *base = g_path_get_basename (path);

  if (!g_str_has_suffix (base, ".desktop"))
    return NULL;
  base[strlen (base) - strlen (".desktop")] = '\0';
  return g_steal_pointer (&base);
}

gboolean
rc_app_id_is_valid (const char *app_id)
{
  gsize len;

  if (app_id == NULL)
    return FALSE;
  len = strlen (app_id);
  if (len == 0 || len > RC_APP_ID_MAX)
    return FALSE;
  if (app_id[0] == '.' || app_id[0] == '-')
    return FALSE;
  for (const char *p = app_id; *p; p++)
    if (!g_ascii_isalnum (*p) && *p != '.' && *p != '_' && *p != '-')
      return FALSE;
  if (strstr (app_id, "..") != NULL)
    return FALSE;

  /* Methods take a unit name or an AppID; keeping the two sets disjoint
   * means an argument is never both. */
  return find_unit_suffix (app_id) == NULL;
}

char *
rc_unit_name_escape (const char *s)
{
  GString *out = g_string_sized_new (strlen (s));

  for (const char *p = s; *p != '\0'; p++)
    {
      if (g_ascii_isalnum (*p) || *p == ':' || *p == '_' || (*p == '.' && p != s))
        g_string_append_c (out, *p);
      else
        g_string_append_printf (out, "\\x%02x", (guchar) *p);
    }
  return g_string_free (out, FALSE);
}

char *
rc_unit_name_build (RcUnitKind  kind,
                    const char *launcher,
                    const char *app_id,
                    const char *instance)
{
  g_autofree char *escaped = rc_unit_name_escape (app_id);

  if (kind == RC_UNIT_KIND_SERVICE)
    return g_strdup_printf ("app-%s-%s@%s.service", launcher, escaped, instance);
  return g_strdup_printf ("app-%s-%s-%s.scope", launcher, escaped, instance);
}

char *
rc_unit_name_unescape (const char *s)
{
  g_autoptr(GString) out = NULL;

  g_return_val_if_fail (s != NULL, NULL);

  out = g_string_sized_new (strlen (s));
  for (const char *p = s; *p; p++)
    {
      int hi, lo;

      if (*p != '\\')
        {
          g_string_append_c (out, *p);
          continue;
        }
      /* systemd only ever writes "\xNN"; anything else is not its escaping. */
      if (p[1] != 'x')
        return NULL;
      hi = g_ascii_xdigit_value (p[2]);
      if (hi < 0)
        return NULL;
      lo = g_ascii_xdigit_value (p[3]);
      if (lo < 0 || (hi == 0 && lo == 0))
        return NULL;
      g_string_append_c (out, (char) (hi * 16 + lo));
      p += 3;
    }

  /* The result ends up in paths, logs and D-Bus strings. */
  for (gsize i = 0; i < out->len; i++)
    {
      guchar c = (guchar) out->str[i];

      if (c == '/' || c < 0x20 || c == 0x7f)
        return NULL;
    }
  if (!g_utf8_validate (out->str, out->len, NULL))
    return NULL;

  return g_string_free (g_steal_pointer (&out), FALSE);
}

void
rc_unit_name_free (RcUnitName *name)
{
  if (name == NULL)
    return;
  g_free (name->app_id);
  g_free (name->launcher);
  g_free (name->instance);
  g_free (name);
}

/* Takes the still-escaped parts; NULL when one does not unescape or the
 * AppID ends up empty. */
static RcUnitName *
unit_name_new (const char *raw_app_id,
               const char *raw_launcher,
               const char *raw_instance,
               RcUnitKind  kind)
{
  g_autoptr(RcUnitName) name = g_new0 (RcUnitName, 1);

  name->kind = kind;
  name->app_id = rc_unit_name_unescape (raw_app_id);
  name->launcher = rc_unit_name_unescape (raw_launcher);
  name->instance = rc_unit_name_unescape (raw_instance);
  if (name->app_id == NULL || name->launcher == NULL || name->instance == NULL)
    return NULL;

  if (g_str_has_suffix (name->app_id, ".desktop"))
    name->app_id[strlen (name->app_id) - strlen (".desktop")] = '\0';
  if (name->app_id[0] == '\0')
    return NULL;

  return g_steal_pointer (&name);
}

/* @rest is what follows "app-" with the unit suffix removed:
 *   service: [<launcher>-]<AppID>[@<RANDOM>]
 *   scope:   [<launcher>-]<AppID>-<RANDOM>
 * Literal '-' separates the parts ('-' inside a part is escaped as \x2d);
 * with more parts than expected the first is the launcher, the last the
 * random part (scopes), and the rest is the AppID. */
static RcUnitName *
parse_app_form (const char *rest,
                RcUnitKind  kind)
{
  g_autofree char *head = NULL;
  g_auto(GStrv) tokens = NULL;
  g_autofree char *app_id = NULL;
  const char *instance = "";
  const char *launcher = "";
  const char *at = strchr (rest, '@');
  guint n;

  if (kind == RC_UNIT_KIND_SERVICE && at != NULL)
    {
      instance = at + 1;
      if (*instance == '\0')
        return NULL;  /* a template, never a running app */
      head = g_strndup (rest, at - rest);
    }
  else if (at != NULL)
    return NULL;
  else
    head = g_strdup (rest);

  tokens = g_strsplit (head, "-", -1);
  n = g_strv_length (tokens);
  for (guint i = 0; i < n; i++)
    if (tokens[i][0] == '\0')
      return NULL;

  if (kind == RC_UNIT_KIND_SCOPE)
    {
      if (n < 2)
        return NULL;
      instance = tokens[--n];
    }
  if (n == 0)
    return NULL;  /* "app-.service", "app-@x.service" */

  if (n == 1)
    app_id = g_strdup (tokens[0]);
  else
    {
      g_autoptr(GString) joined = g_string_new (tokens[1]);

      launcher = tokens[0];
      for (guint i = 2; i < n; i++)
        g_string_append_printf (joined, "-%s", tokens[i]);
      app_id = g_string_free (g_steal_pointer (&joined), FALSE);
    }

  return unit_name_new (app_id, launcher, instance, kind);
}

/* The older "flatpak-<AppID>-<N>.scope" and "gnome-launched-<AppID>-<N>.scope"
 * forms: the AppID runs up to the last '-', N is a number (a pid). */
static RcUnitName *
parse_legacy_form (const char *rest,
                   const char *launcher)
{
  g_autofree char *app_id = NULL;
  const char *dash = strrchr (rest, '-');

  if (dash == NULL || dash == rest || dash[1] == '\0')
    return NULL;
  for (const char *p = dash + 1; *p; p++)
    if (!g_ascii_isdigit (*p))
      return NULL;

  app_id = g_strndup (rest, dash - rest);
  return unit_name_new (app_id, launcher, dash + 1, RC_UNIT_KIND_SCOPE);
}

RcUnitName *
rc_unit_name_parse (const char *unit)
{
  g_autofree char *stem = NULL;
  RcUnitKind kind;

  if (!rc_unit_name_is_valid (unit))
    return NULL;

  if (g_str_has_suffix (unit, ".scope"))
    kind = RC_UNIT_KIND_SCOPE;
  else if (g_str_has_suffix (unit, ".service"))
    kind = RC_UNIT_KIND_SERVICE;
  else
    return NULL;

  stem = g_strndup (unit, find_unit_suffix (unit) - unit);

  if (g_str_has_prefix (stem, "app-"))
    return parse_app_form (stem + strlen ("app-"), kind);
  if (kind != RC_UNIT_KIND_SCOPE)
    return NULL;
  if (g_str_has_prefix (stem, "flatpak-"))
    return parse_legacy_form (stem + strlen ("flatpak-"), "flatpak");
  if (g_str_has_prefix (stem, "gnome-launched-"))
    return parse_legacy_form (stem + strlen ("gnome-launched-"), "gnome-launched");

  return NULL;
}

/* ---- what callers may pass ------------------------------------------- */

gboolean
rc_unit_name_check_app_argument (const char *app,
                                 GError    **error)
{
  if (app == NULL || *app == '\0')
    {
      g_set_error_literal (error, RC_ERROR, RC_ERROR_INVALID_ARGUMENT,
                           "No app given: pass a unit name (app-…-1234.scope) or an AppID "
                           "(org.gnome.Calculator)");
      return FALSE;
    }
  if (strlen (app) > 255)
    {
      g_set_error (error, RC_ERROR, RC_ERROR_INVALID_ARGUMENT,
                   "App name is %zu bytes long; unit names and AppIDs have at most 255",
                   strlen (app));
      return FALSE;
    }
  if (!rc_unit_name_is_valid (app) && !rc_app_id_is_valid (app))
    {
      g_autofree char *shown = g_utf8_make_valid (app, -1);

      g_set_error (error, RC_ERROR, RC_ERROR_INVALID_ARGUMENT,
                   "“%s” is neither a systemd unit name nor a desktop AppID: unit names use "
                   "[A-Za-z0-9:_.\\@-] and end in a unit type such as .scope or .service; "
                   "AppIDs use [A-Za-z0-9._-]", shown);
      return FALSE;
    }
  return TRUE;
}

gboolean
rc_app_id_check (const char *app_id,
                 GError    **error)
{
  g_autofree char *shown = NULL;

  if (rc_app_id_is_valid (app_id))
    return TRUE;
  shown = g_utf8_make_valid (app_id, MIN (strlen (app_id), 64));
  g_set_error (error, RC_ERROR, RC_ERROR_INVALID_ARGUMENT,
               "“%s” is not an AppID: rules are per desktop AppID (e.g. org.gnome.Calculator, "
               "the desktop file's name without .desktop), not per unit", shown);
  return FALSE;
}

gboolean
rc_unit_transient_source_path (const char *unit,
                               char      **out_source_path)
{
  g_autofree char *path = g_build_filename (g_get_user_runtime_dir (), "systemd", "transient",
                                            unit, NULL);
  g_autofree char *contents = NULL;
  g_auto(GStrv) lines = NULL;

  /* Any process of the user can put a FIFO or a link to /dev/zero there. */
  if (!rc_safe_file_read (path, RC_SAFE_FILE_MAX_SIZE, &contents, NULL, NULL))
    return FALSE;
  *out_source_path = g_strdup ("");
  lines = g_strsplit (contents, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    if (g_str_has_prefix (lines[i], "SourcePath="))
      {
        g_auto(GStrv) parts = g_strsplit (lines[i] + strlen ("SourcePath="), "%%", -1);

        g_free (*out_source_path);
        *out_source_path = g_strjoinv ("%", parts);
      }
  return TRUE;
}
