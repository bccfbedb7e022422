/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* resourcectl why: each limit of an app's instances and where its value
 * comes from (GetLimitSources), shown as systemctl show shows values with
 * the source beside each, as systemd-analyze cat-config names files; and
 * resourcectl pause / resume, the switch of the daemon's automation. */
#include "resourcectl.h"

#include <stdlib.h>

static char *opt_for;

const GOptionEntry rcctl_pause_options[] = {
  { "for", 0, 0, G_OPTION_ARG_STRING, &opt_for,
    "End the pause by itself after this long (e.g. 90s, 30m, 1h, 1h30m, 2d)", "DURATION" },
  G_OPTION_ENTRY_NULL
};

static const char * const fields[] = { "Unit", "Key", "Value", "Source", "Detail" };

/* One (sssss) as the a{sv} of the JSON output. */
static GVariant *
source_to_dict (GVariant *source)
{
  g_auto(GVariantBuilder) builder = G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE_VARDICT);

  for (gsize i = 0; i < G_N_ELEMENTS (fields); i++)
    g_variant_builder_add (&builder, "{sv}", fields[i], g_variant_get_child_value (source, i));
  return g_variant_builder_end (&builder);
}

int
rcctl_finish_why (GVariant *sources)
{
  g_autofree char *last_unit = NULL;
  gsize n = g_variant_n_children (sources);
  int width = 0;

  if (rcctl_opt_json)
    {
      g_auto(GVariantBuilder) dicts = G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE ("aa{sv}"));
      g_autoptr(GVariant) records = NULL;

      for (gsize i = 0; i < n; i++)
        {
          g_autoptr(GVariant) source = g_variant_get_child_value (sources, i);

          g_variant_builder_add_value (&dicts, source_to_dict (source));
        }
      records = g_variant_ref_sink (g_variant_builder_end (&dicts));
      rcctl_print_json_if_asked (records);
      return EXIT_SUCCESS;
    }
  for (gsize i = 0; i < n; i++)
    {
      const char *key, *value;

      g_variant_get_child (sources, i, "(s&s&sss)", NULL, &key, &value, NULL, NULL);
      width = MAX (width, (int) MIN (g_utf8_strlen (key, -1) + g_utf8_strlen (value, -1) + 1, 40));
    }
  for (gsize i = 0; i < n; i++)
    {
      const char *unit, *key, *value, *kind, *detail;
      g_autofree char *setting = NULL;
      g_autofree char *line = NULL;
      g_autofree char *printable = NULL;

      g_variant_get_child (sources, i, "(&s&s&s&s&s)", &unit, &key, &value, &kind, &detail);
      if (g_strcmp0 (unit, last_unit) != 0)
        {
          g_autofree char *shown = rcctl_printable (unit);

          g_print ("%s# %s\n", last_unit != NULL ? "\n" : "", shown);
          g_free (last_unit);
          last_unit = g_strdup (unit);
        }
      setting = g_strdup_printf ("%s=%s", key, value);
      line = g_strdup_printf ("%-*s  # %s: %s", width, setting, kind, detail);
      /* the daemon's words, but no terminal escapes from anyone */
      printable = rcctl_printable (line);
      g_print ("%s\n", printable);
    }
  return EXIT_SUCCESS;
}

/* "1h30m", "90s", "90" (seconds), "2d" -> seconds. */
static gboolean
parse_duration (const char *text,
                guint64    *out_seconds,
                GError    **error)
{
  const char *p = text;
  guint64 total = 0;

  if (*p == '\0')
    goto bad;
  while (*p != '\0')
    {
      guint64 number = 0, unit = 1;

      if (!g_ascii_isdigit (*p))
        goto bad;
      while (g_ascii_isdigit (*p))
        {
          number = number * 10 + (guint64) (*p++ - '0');
          if (number > G_MAXUINT32)
            goto bad;
        }
      if (g_str_has_prefix (p, "min"))
        unit = 60, p += 3;
      else if (*p == 's')
        unit = 1, p++;
      else if (*p == 'm')
        unit = 60, p++;
      else if (*p == 'h')
        unit = 3600, p++;
      else if (*p == 'd')
        unit = 86400, p++;
      else if (*p != '\0')
        goto bad;
      total += number * unit;
      if (total > G_MAXUINT32)
        goto bad;
    }
  if (total == 0)
    goto bad;
  *out_seconds = total;
  return TRUE;

bad:
  g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
               "--for takes a duration above 0 such as 90s, 30m, 1h, 1h30m or 2d, not \"%s\"",
               text);
  return FALSE;
}

gboolean
rcctl_parse_pause (char        **args,
                   RcctlRequest *req,
                   GError      **error)
{
  guint64 seconds = 0;

  if (opt_for != NULL && !parse_duration (opt_for, &seconds, error))
    return FALSE;
  req->params = g_variant_ref_sink (g_variant_new ("(t)", seconds));
  return TRUE;
}
