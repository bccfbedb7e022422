/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* resourcectl: how values, tables and JSON are shown. */
#include "resourcectl.h"
#include "rc-api-keys.h"
#include "rc-limit-table.h"

#include <string.h>

#include "rc-size.h"

/* Every key of an app dictionary, in the order `show` prints them. */
const RcctlAppKey rcctl_app_keys[] = {
  { RC_KEY_UNIT, RCCTL_FORMAT_TEXT },
  { RC_KEY_APP_ID, RCCTL_FORMAT_TEXT },
  { RC_KEY_LAUNCHER, RCCTL_FORMAT_TEXT },
  { RC_KEY_NAME, RCCTL_FORMAT_TEXT },
  { RC_KEY_ICON, RCCTL_FORMAT_TEXT },
  { RC_KEY_DESKTOP_FILE, RCCTL_FORMAT_TEXT },
  { RC_KEY_SLICE, RCCTL_FORMAT_TEXT },
  { RC_KEY_ACTIVE_STATE, RCCTL_FORMAT_TEXT },
  { RC_KEY_FREEZER_STATE, RCCTL_FORMAT_TEXT },
  { RC_KEY_AUDIO, RCCTL_FORMAT_TEXT },
  { RC_KEY_PIDS, RCCTL_FORMAT_TEXT },
  { RC_KEY_CPU_WEIGHT, RCCTL_FORMAT_LIMIT },
  { RC_KEY_IO_WEIGHT, RCCTL_FORMAT_LIMIT },
  { RC_KEY_CPU_QUOTA, RCCTL_FORMAT_LIMIT },
  { RC_KEY_MEMORY_LOW, RCCTL_FORMAT_LIMIT },
  { RC_KEY_MEMORY_HIGH, RCCTL_FORMAT_LIMIT },
  { RC_KEY_MEMORY_MAX, RCCTL_FORMAT_LIMIT },
  { RC_KEY_TASKS_MAX, RCCTL_FORMAT_LIMIT },
  { RC_KEY_MEMORY_MIN, RCCTL_FORMAT_LIMIT },
  { RC_KEY_MEMORY_SWAP_MAX, RCCTL_FORMAT_LIMIT },
  { RC_KEY_MEMORY_CURRENT, RCCTL_FORMAT_SIZE_USAGE },
  { RC_KEY_CPU_USAGE_NSEC, RCCTL_FORMAT_COUNT_USAGE },
  { RC_KEY_TASKS_CURRENT, RCCTL_FORMAT_COUNT_USAGE },
  { RC_KEY_CPU_THROTTLED_USEC, RCCTL_FORMAT_COUNT_USAGE },
  { RC_KEY_MEMORY_EVENTS, RCCTL_FORMAT_COUNTERS },
  { RC_KEY_CPU_PRESSURE, RCCTL_FORMAT_PERCENT },
  { RC_KEY_MEMORY_PRESSURE, RCCTL_FORMAT_PERCENT },
  { RC_KEY_IO_PRESSURE, RCCTL_FORMAT_PERCENT },
};
const gsize rcctl_n_app_keys = G_N_ELEMENTS (rcctl_app_keys);

gssize
rcctl_find_app_key (const char *key)
{
  for (gsize i = 0; i < rcctl_n_app_keys; i++)
    if (strcmp (rcctl_app_keys[i].key, key) == 0)
      return i;
  return -1;
}

/* App names come from desktop files: keep escape sequences off the terminal. */
char *
rcctl_printable (const char *text)
{
  GString *out = g_string_sized_new (strlen (text));

  for (const char *p = text; *p; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);

      if (g_unichar_iscntrl (c))
        g_string_append_c (out, '?');
      else
        g_string_append_unichar (out, c);
    }
  return g_string_free (out, FALSE);
}

static char *
format_plain (GVariant *value)
{
  g_autofree char *printed = NULL;

  if (g_variant_is_of_type (value, G_VARIANT_TYPE_STRING))
    {
      const char *s = g_variant_get_string (value, NULL);

      return rcctl_printable (*s ? s : "-");
    }
  if (g_variant_is_of_type (value, G_VARIANT_TYPE_ARRAY))
    {
      g_autoptr(GString) out = g_string_new (NULL);
      gsize n = g_variant_n_children (value);

      for (gsize i = 0; i < n; i++)
        {
          g_autoptr(GVariant) child = g_variant_get_child_value (value, i);
          g_autofree char *item = format_plain (child);

          g_string_append_printf (out, "%s%s", i > 0 ? " " : "", item);
        }
      return n > 0 ? g_string_free (g_steal_pointer (&out), FALSE) : g_strdup ("-");
    }
  printed = g_variant_print (value, FALSE);
  return rcctl_printable (printed);
}

char *
rcctl_format_value (const char *key,
                    GVariant   *value)
{
  gssize i = rcctl_find_app_key (key);
  RcctlValueFormat format = i >= 0 ? rcctl_app_keys[i].format : RCCTL_FORMAT_TEXT;
  const GVariantType *type = format == RCCTL_FORMAT_COUNTERS ? G_VARIANT_TYPE ("a{st}")
                             : format == RCCTL_FORMAT_PERCENT ? G_VARIANT_TYPE_DOUBLE
                             : G_VARIANT_TYPE_UINT64;
  RcLimit limit;
  guint64 n;

  /* Limits are worded by common's table, as the panel words them; a value
   * it does not know (a daemon newer than this client) is shown as it is. */
  if (rc_limit_from_key (key, &limit))
    {
      g_autofree char *text = rc_limit_format_value (limit, value);

      return text != NULL ? rcctl_printable (text) : format_plain (value);
    }

  /* A daemon newer than this client may send other types: show them as they are. */
  if (format == RCCTL_FORMAT_TEXT || format == RCCTL_FORMAT_LIMIT ||
      !g_variant_is_of_type (value, type))
    return format_plain (value);

  if (format == RCCTL_FORMAT_PERCENT)
    return g_strdup_printf ("%.2f%%", g_variant_get_double (value));
  if (format == RCCTL_FORMAT_COUNTERS)
    {
      g_autoptr(GString) out = g_string_new (NULL);
      GVariantIter iter;
      const char *name;
      guint64 count;

      g_variant_iter_init (&iter, value);
      while (g_variant_iter_next (&iter, "{&st}", &name, &count))
        g_string_append_printf (out, "%s%s=%" G_GUINT64_FORMAT, out->len > 0 ? " " : "", name,
                                count);
      return rcctl_printable (out->len > 0 ? out->str : "-");
    }

  n = g_variant_get_uint64 (value);
  switch (format)
    {
    case RCCTL_FORMAT_SIZE_USAGE:
      return n == G_MAXUINT64 ? g_strdup ("-") : rc_size_format (n);
    case RCCTL_FORMAT_COUNT_USAGE:
      return n == G_MAXUINT64 ? g_strdup ("-") : g_strdup_printf ("%" G_GUINT64_FORMAT, n);
    case RCCTL_FORMAT_TEXT:
    case RCCTL_FORMAT_LIMIT:
    case RCCTL_FORMAT_COUNTERS:
    case RCCTL_FORMAT_PERCENT:
    default:
      g_assert_not_reached ();
    }
}

/* "-" when the daemon did not send @key. */
char *
rcctl_lookup_formatted (GVariant   *app,
                        const char *key)
{
  g_autoptr(GVariant) value = g_variant_lookup_value (app, key, NULL);

  return value != NULL ? rcctl_format_value (key, value) : g_strdup ("-");
}

const char *
rcctl_lookup_string (GVariant   *app,
                     const char *key)
{
  const char *s = NULL;

  return g_variant_lookup (app, key, "&s", &s) ? s : "";
}

void
rcctl_null_for_max_cb (JsonObject *object,
                       const char *member,
                       JsonNode   *node,
                       gpointer    user_data)
{
  /* JSON has no unsigned 64-bit numbers: json-glib writes G_MAXUINT64 (no
   * limit, or not available) as -1. null says it without pretending. */
  if (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_INT64 &&
      json_node_get_int (node) < 0)
    json_node_init_null (node);
}

void
rcctl_print_json_node (JsonNode *root)
{
  g_autoptr(JsonGenerator) generator = json_generator_new ();
  g_autofree char *text = NULL;

  json_generator_set_root (generator, root);
  json_generator_set_pretty (generator, TRUE);
  json_generator_set_indent (generator, 2);
  text = json_generator_to_data (generator, NULL);
  g_print ("%s\n", text);
}

void
rcctl_print_json (GVariant *apps)
{
  g_autoptr(JsonNode) root = json_gvariant_serialize (apps);
  JsonArray *array = json_node_get_array (root);

  for (guint i = 0; i < json_array_get_length (array); i++)
    json_object_foreach_member (json_array_get_object_element (array, i), rcctl_null_for_max_cb, NULL);
  rcctl_print_json_node (root);
}

gboolean
rcctl_print_json_if_asked (GVariant *records)
{
  if (!rcctl_opt_json)
    return FALSE;
  rcctl_print_json (records);
  return TRUE;
}

static int
compare_apps (gconstpointer a,
              gconstpointer b)
{
  GVariant *app_a = *(GVariant **) a;
  GVariant *app_b = *(GVariant **) b;
  int cmp = g_strcmp0 (rcctl_lookup_string (app_a, RC_KEY_APP_ID), rcctl_lookup_string (app_b, RC_KEY_APP_ID));

  return cmp != 0 ? cmp : g_strcmp0 (rcctl_lookup_string (app_a, RC_KEY_UNIT), rcctl_lookup_string (app_b, RC_KEY_UNIT));
}

/* The instances in @apps (aa{sv}), sorted by AppId and unit. */
GPtrArray *
rcctl_sorted_apps (GVariant *apps)
{
  GPtrArray *sorted = g_ptr_array_new_with_free_func ((GDestroyNotify) g_variant_unref);
  GVariantIter iter;
  GVariant *app;

  g_variant_iter_init (&iter, apps);
  while ((app = g_variant_iter_next_value (&iter)) != NULL)
    g_ptr_array_add (sorted, app);
  g_ptr_array_sort (sorted, compare_apps);
  return sorted;
}

#define MAX_TABLE_COLUMNS 8

/* @rows are GStrv of @n_columns cells, the first row the headings. */
void
rcctl_print_table (GPtrArray *rows,
                   gsize      n_columns)
{
  gsize widths[MAX_TABLE_COLUMNS] = { 0 };

  g_assert (n_columns <= MAX_TABLE_COLUMNS);

  for (guint r = 0; r < rows->len; r++)
    for (gsize c = 0; c < n_columns; c++)
      widths[c] = MAX (widths[c], (gsize) g_utf8_strlen (((GStrv) rows->pdata[r])[c], -1));

  for (guint r = 0; r < rows->len; r++)
    {
      GStrv row = rows->pdata[r];
      g_autoptr(GString) line = g_string_new (NULL);

      for (gsize c = 0; c < n_columns; c++)
        {
          g_string_append (line, row[c]);
          if (c + 1 < n_columns)
            for (gsize pad = g_utf8_strlen (row[c], -1); pad < widths[c] + 2; pad++)
              g_string_append_c (line, ' ');
        }
      g_print ("%s\n", line->str);
    }
}
