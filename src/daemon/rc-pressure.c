/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "rc-pressure.h"

#include <stdlib.h>
#include <string.h>

gboolean
rc_pressure_parse_some_avg10 (const char *text,
                              double     *out_percent)
{
  static const char prefix[] = "some avg10=";

  g_return_val_if_fail (text != NULL, FALSE);

  for (const char *line = text; *line != '\0';)
    {
      const char *next = strchr (line, '\n');

      if (strncmp (line, prefix, sizeof prefix - 1) == 0)
        {
          const char *start = line + sizeof prefix - 1;
          char *end = NULL;
          double value = g_ascii_strtod (start, &end);

          if (end == start || (*end != ' ' && *end != '\n' && *end != '\0') || value < 0)
            return FALSE;
          *out_percent = value;
          return TRUE;
        }
      if (next == NULL)
        break;
      line = next + 1;
    }
  return FALSE;
}

GVariant *
rc_pressure_parse_memory_events (const char *text)
{
  g_auto(GVariantBuilder) builder = G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE ("a{st}"));

  g_return_val_if_fail (text != NULL, NULL);

  for (const char *line = text; *line != '\0';)
    {
      const char *next = strchr (line, '\n');
      const char *space = strchr (line, ' ');

      if (space != NULL && space > line && (next == NULL || space < next))
        {
          g_autofree char *name = g_strndup (line, space - line);
          guint64 value = 0;
          char *end = NULL;

          if (g_ascii_isdigit (space[1]))
            {
              value = g_ascii_strtoull (space + 1, &end, 10);
              if (end != NULL && (*end == '\n' || *end == '\0'))
                g_variant_builder_add (&builder, "{st}", name, value);
            }
        }
      if (next == NULL)
        break;
      line = next + 1;
    }
  return g_variant_builder_end (&builder);
}

gboolean
rc_pressure_parse_some_total (const char *text,
                              guint64    *out_total_usec)
{
  const char *line = text;

  while (line != NULL && *line != '\0')
    {
      if (g_str_has_prefix (line, "some "))
        {
          const char *total = strstr (line, " total=");
          const char *end = strchr (line, '\n');
          char *after = NULL;
          guint64 value;

          if (total == NULL || (end != NULL && total > end))
            return FALSE;
          total += strlen (" total=");
          if (!g_ascii_isdigit (*total))
            return FALSE;
          value = g_ascii_strtoull (total, &after, 10);
          if (after == total)
            return FALSE;
          *out_total_usec = value;
          return TRUE;
        }
      line = strchr (line, '\n');
      if (line != NULL)
        line++;
    }
  return FALSE;
}

double
rc_pressure_percent (guint64 total_before,
                     guint64 total_now,
                     gint64  elapsed_usec)
{
  if (elapsed_usec <= 0 || total_now < total_before)
    return 0;
  return MIN (100.0, (double) (total_now - total_before) * 100.0 / (double) elapsed_usec);
}

char *
rc_pressure_trigger_text (guint percent,
                          guint window_usec)
{
  return g_strdup_printf ("some %" G_GUINT64_FORMAT " %u",
                          (guint64) window_usec * CLAMP (percent, 1, 100) / 100, window_usec);
}
