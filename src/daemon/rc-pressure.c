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
