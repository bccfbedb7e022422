/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* resourcectl: the command-line client. It speaks only the public D-Bus API
 * of resource-controld and shares nothing with the daemon beyond bus names,
 * the error domain and size parsing. */
#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <gio/gio.h>
#include <glib-unix.h>
#include <json-glib/json-glib.h>

#include "rc-error.h"
#include "rc-generated.h"
#include "rc-names.h"
#include "rc-size.h"

/* 0 success, 1 the daemon or the bus said no, 2 the command line was wrong. */
#define EXIT_USAGE 2

#define NOT_RUNNING "resource-controld is not running on the session bus"

static gboolean opt_json;
static gboolean opt_force;
static gboolean opt_none;
static char *opt_pid;

/* ---- Showing values ---------------------------------------------------- */

typedef enum {
  FORMAT_TEXT,         /* strings, pids, anything unknown */
  FORMAT_SIZE_LIMIT,   /* t bytes, G_MAXUINT64 = no limit ("max") */
  FORMAT_SIZE_USAGE,   /* t bytes, G_MAXUINT64 = not available ("-") */
  FORMAT_COUNT_LIMIT,  /* t, G_MAXUINT64 = no limit ("max") */
  FORMAT_COUNT_USAGE,  /* t, G_MAXUINT64 = not available ("-") */
  FORMAT_QUOTA,        /* u percent of one CPU, 0 = no quota ("max") */
} ValueFormat;

/* Every key of an app dictionary, in the order `show` prints them. */
static const struct {
  const char *key;
  ValueFormat format;
} app_keys[] = {
  { "Unit", FORMAT_TEXT },
  { "AppId", FORMAT_TEXT },
  { "Launcher", FORMAT_TEXT },
  { "Name", FORMAT_TEXT },
  { "Icon", FORMAT_TEXT },
  { "DesktopFile", FORMAT_TEXT },
  { "Slice", FORMAT_TEXT },
  { "ActiveState", FORMAT_TEXT },
  { "FreezerState", FORMAT_TEXT },
  { "Pids", FORMAT_TEXT },
  { "CPUWeight", FORMAT_COUNT_USAGE },
  { "IOWeight", FORMAT_COUNT_USAGE },
  { "CPUQuota", FORMAT_QUOTA },
  { "MemoryLow", FORMAT_SIZE_LIMIT },
  { "MemoryHigh", FORMAT_SIZE_LIMIT },
  { "MemoryMax", FORMAT_SIZE_LIMIT },
  { "TasksMax", FORMAT_COUNT_LIMIT },
  { "MemoryCurrent", FORMAT_SIZE_USAGE },
  { "CPUUsageNSec", FORMAT_COUNT_USAGE },
  { "TasksCurrent", FORMAT_COUNT_USAGE },
};

static gssize
find_app_key (const char *key)
{
  for (gsize i = 0; i < G_N_ELEMENTS (app_keys); i++)
    if (strcmp (app_keys[i].key, key) == 0)
      return i;
  return -1;
}

/* App names come from desktop files: keep escape sequences off the terminal. */
static char *
printable (const char *text)
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

      return printable (*s ? s : "-");
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
  return printable (printed);
}

static char *
format_value (const char *key,
              GVariant   *value)
{
  gssize i = find_app_key (key);
  ValueFormat format = i >= 0 ? app_keys[i].format : FORMAT_TEXT;
  const GVariantType *type = format == FORMAT_QUOTA ? G_VARIANT_TYPE_UINT32 : G_VARIANT_TYPE_UINT64;
  guint64 n;

  /* A daemon newer than this client may send other types: show them as they are. */
  if (format == FORMAT_TEXT || !g_variant_is_of_type (value, type))
    return format_plain (value);

  if (format == FORMAT_QUOTA)
    {
      guint32 percent = g_variant_get_uint32 (value);

      return percent == 0 ? g_strdup ("max") : g_strdup_printf ("%u%%", percent);
    }

  n = g_variant_get_uint64 (value);
  switch (format)
    {
    case FORMAT_SIZE_LIMIT:
      return rc_size_format (n);
    case FORMAT_SIZE_USAGE:
      return n == G_MAXUINT64 ? g_strdup ("-") : rc_size_format (n);
    case FORMAT_COUNT_LIMIT:
      return n == G_MAXUINT64 ? g_strdup ("max") : g_strdup_printf ("%" G_GUINT64_FORMAT, n);
    case FORMAT_COUNT_USAGE:
      return n == G_MAXUINT64 ? g_strdup ("-") : g_strdup_printf ("%" G_GUINT64_FORMAT, n);
    case FORMAT_TEXT:
    case FORMAT_QUOTA:
    default:
      g_assert_not_reached ();
    }
}

/* "-" when the daemon did not send @key. */
static char *
lookup_formatted (GVariant   *app,
                  const char *key)
{
  g_autoptr(GVariant) value = g_variant_lookup_value (app, key, NULL);

  return value != NULL ? format_value (key, value) : g_strdup ("-");
}

static const char *
lookup_string (GVariant   *app,
               const char *key)
{
  const char *s = NULL;

  return g_variant_lookup (app, key, "&s", &s) ? s : "";
}

/* ---- Output of list and show ------------------------------------------ */

static void
null_for_max_cb (JsonObject  *object,
                 const char  *member,
                 JsonNode    *node,
                 gpointer     user_data)
{
  /* JSON has no unsigned 64-bit numbers: json-glib writes G_MAXUINT64 (no
   * limit, or not available) as -1. null says it without pretending. */
  if (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_INT64 &&
      json_node_get_int (node) < 0)
    json_node_init_null (node);
}

static void
print_json_node (JsonNode *root)
{
  g_autoptr(JsonGenerator) generator = json_generator_new ();
  g_autofree char *text = NULL;

  json_generator_set_root (generator, root);
  json_generator_set_pretty (generator, TRUE);
  json_generator_set_indent (generator, 2);
  text = json_generator_to_data (generator, NULL);
  g_print ("%s\n", text);
}

static void
print_json (GVariant *apps)
{
  g_autoptr(JsonNode) root = json_gvariant_serialize (apps);
  JsonArray *array = json_node_get_array (root);

  for (guint i = 0; i < json_array_get_length (array); i++)
    json_object_foreach_member (json_array_get_object_element (array, i), null_for_max_cb, NULL);
  print_json_node (root);
}

static int
compare_apps (gconstpointer a,
              gconstpointer b)
{
  GVariant *app_a = *(GVariant **) a;
  GVariant *app_b = *(GVariant **) b;
  int cmp = g_strcmp0 (lookup_string (app_a, "AppId"), lookup_string (app_b, "AppId"));

  return cmp != 0 ? cmp : g_strcmp0 (lookup_string (app_a, "Unit"), lookup_string (app_b, "Unit"));
}

/* The instances in @apps (aa{sv}), sorted by AppId and unit. */
static GPtrArray *
sorted_apps (GVariant *apps)
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

static const char * const list_columns[] = { "APP", "NAME", "UNIT", "CPU", "MEMORY", "STATE" };
#define N_LIST_COLUMNS G_N_ELEMENTS (list_columns)

static GStrv
list_row (GVariant *app)
{
  GStrv row = g_new0 (char *, N_LIST_COLUMNS + 1);
  g_autofree char *current = lookup_formatted (app, "MemoryCurrent");
  g_autofree char *max = lookup_formatted (app, "MemoryMax");
  g_autofree char *active = lookup_formatted (app, "ActiveState");
  const char *freezer = lookup_string (app, "FreezerState");

  row[0] = lookup_formatted (app, "AppId");
  row[1] = lookup_formatted (app, "Name");
  row[2] = lookup_formatted (app, "Unit");
  row[3] = lookup_formatted (app, "CPUWeight");
  row[4] = g_strdup_printf ("%s / %s", current, max);
  if (*freezer == '\0' || strcmp (freezer, "running") == 0)
    row[5] = g_steal_pointer (&active);
  else
    {
      g_autofree char *shown = printable (freezer);

      row[5] = g_strdup_printf ("%s (%s)", active, shown);
    }
  return row;
}

#define MAX_TABLE_COLUMNS 8

/* @rows are GStrv of @n_columns cells, the first row the headings. */
static void
print_table (GPtrArray *rows,
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

static int
finish_list (GVariant *apps)
{
  g_autoptr(GPtrArray) sorted = NULL;
  g_autoptr(GPtrArray) rows = NULL;

  if (opt_json)
    {
      print_json (apps);
      return EXIT_SUCCESS;
    }

  sorted = sorted_apps (apps);
  rows = g_ptr_array_new_with_free_func ((GDestroyNotify) g_strfreev);
  g_ptr_array_add (rows, g_strdupv ((GStrv) list_columns));
  for (guint i = 0; i < sorted->len; i++)
    g_ptr_array_add (rows, list_row (sorted->pdata[i]));
  print_table (rows, N_LIST_COLUMNS);
  return EXIT_SUCCESS;
}

static void
print_key (const char *key,
           GVariant   *value)
{
  g_autofree char *text = format_value (key, value);

  g_print ("%s: %s\n", key, text);
}

static int
finish_show (GVariant *apps)
{
  g_autoptr(GPtrArray) sorted = NULL;

  if (opt_json)
    {
      print_json (apps);
      return EXIT_SUCCESS;
    }

  sorted = sorted_apps (apps);
  for (guint i = 0; i < sorted->len; i++)
    {
      GVariant *app = sorted->pdata[i];
      GVariantIter iter;
      const char *key;
      GVariant *value;

      if (i > 0)
        g_print ("\n");
      for (gsize k = 0; k < G_N_ELEMENTS (app_keys); k++)
        {
          g_autoptr(GVariant) known = g_variant_lookup_value (app, app_keys[k].key, NULL);

          if (known != NULL)
            print_key (app_keys[k].key, known);
        }
      /* Keys from a daemon newer than this client. */
      g_variant_iter_init (&iter, app);
      while (g_variant_iter_loop (&iter, "{&sv}", &key, &value))
        if (find_app_key (key) < 0)
          print_key (key, value);
    }
  return EXIT_SUCCESS;
}

/* ---- Parsing command arguments ---------------------------------------- */

typedef enum {
  VALUE_NUMBER,   /* t */
  VALUE_PERCENT,  /* u, "50%" or "50"; "max" = no quota = 0 */
  VALUE_SIZE,     /* t, rc_size_parse () */
  VALUE_TASKS,    /* t, a number or "infinity" */
  VALUE_SECONDS,  /* u, a whole number of seconds */
} ValueKind;

/* The keys `set` accepts (SetLimits' keys) and, with the rule-only ones,
 * the keys `rule set` accepts (SetRule's). Also the order `rule list`
 * prints them in. */
static const struct {
  const char *key;
  ValueKind   kind;
  gboolean    rule_only;
} limit_keys[] = {
  { "CPUWeight", VALUE_NUMBER, FALSE },
  { "IOWeight", VALUE_NUMBER, FALSE },
  { "CPUQuota", VALUE_PERCENT, FALSE },
  { "MemoryLow", VALUE_SIZE, FALSE },
  { "MemoryHigh", VALUE_SIZE, FALSE },
  { "MemoryMax", VALUE_SIZE, FALSE },
  { "TasksMax", VALUE_TASKS, FALSE },
  { "FreezeWhenInactiveSec", VALUE_SECONDS, TRUE },
};

static gboolean
is_unlimited (const char *text)
{
  return g_ascii_strcasecmp (text, "infinity") == 0 || g_ascii_strcasecmp (text, "max") == 0;
}

/* Only the syntax is checked here; ranges are the daemon's to judge. */
static GVariant *
parse_value (ValueKind   kind,
             const char *key,
             const char *text,
             GError    **error)
{
  guint64 n = 0;

  switch (kind)
    {
    case VALUE_SIZE:
      if (!rc_size_parse (text, &n, error))
        {
          g_prefix_error (error, "%s: ", key);
          return NULL;
        }
      return g_variant_new_uint64 (n);

    case VALUE_PERCENT:
      {
        g_autofree char *digits = g_strdup (text);

        if (is_unlimited (text))
          return g_variant_new_uint32 (0);
        if (g_str_has_suffix (digits, "%"))
          digits[strlen (digits) - 1] = '\0';
        if (!g_ascii_string_to_unsigned (digits, 10, 0, G_MAXUINT32, &n, NULL))
          break;
        return g_variant_new_uint32 ((guint32) n);
      }

    case VALUE_SECONDS:
      if (!g_ascii_string_to_unsigned (text, 10, 0, G_MAXUINT32, &n, NULL))
        break;
      return g_variant_new_uint32 ((guint32) n);

    case VALUE_TASKS:
      if (is_unlimited (text))
        return g_variant_new_uint64 (G_MAXUINT64);
      G_GNUC_FALLTHROUGH;
    case VALUE_NUMBER:
      if (!g_ascii_string_to_unsigned (text, 10, 0, G_MAXUINT64, &n, NULL))
        break;
      return g_variant_new_uint64 (n);
    }

  g_set_error (error, RC_ERROR, RC_ERROR_INVALID_ARGUMENT, "invalid %s \"%s\": expected %s",
               key, text,
               kind == VALUE_PERCENT ? "a percentage of one CPU such as 50% (0 or max removes the quota)"
               : kind == VALUE_TASKS ? "a number or \"infinity\""
               : kind == VALUE_SECONDS ? "a whole number of seconds"
               : "a whole number");
  return NULL;
}

static GVariant *
write_options (void)
{
  g_auto(GVariantDict) options = G_VARIANT_DICT_INIT (NULL);

  if (opt_force)
    g_variant_dict_insert (&options, "force", "b", TRUE);
  return g_variant_dict_end (&options);
}

/* What one command sends: the method and its parameters (a sunk reference). */
typedef struct {
  const char *method;
  GVariant   *params;
} Request;

static gboolean
parse_nothing (char   **args,
               Request *req,
               GError **error)
{
  return TRUE;
}

static gboolean
parse_app (char   **args,
           Request *req,
           GError **error)
{
  req->params = g_variant_ref_sink (g_variant_new ("(s)", args[0]));
  return TRUE;
}

static gboolean
parse_set_weight (char   **args,
                  Request *req,
                  GError **error)
{
  GVariant *weight = parse_value (VALUE_NUMBER, "weight", args[1], error);

  if (weight == NULL)
    return FALSE;
  req->params = g_variant_ref_sink (g_variant_new ("(s@t)", args[0], weight));
  return TRUE;
}

static gboolean
parse_set_memory_limit (char   **args,
                        Request *req,
                        GError **error)
{
  g_auto(GVariantDict) limits = G_VARIANT_DICT_INIT (NULL);
  guint64 bytes;

  if (!rc_size_parse (args[1], &bytes, error))
    return FALSE;
  if (!opt_force)
    {
      req->params = g_variant_ref_sink (g_variant_new ("(st)", args[0], bytes));
      return TRUE;
    }

  /* SetMemoryLimit never forces; SetLimits sets the same pair and can. */
  g_variant_dict_insert (&limits, "MemoryMax", "t", bytes);
  g_variant_dict_insert (&limits, "MemoryHigh", "t",
                         bytes == G_MAXUINT64 ? G_MAXUINT64 : bytes - bytes / 8);
  req->method = "SetLimits";
  req->params = g_variant_ref_sink (g_variant_new ("(s@a{sv}@a{sv})", args[0],
                                                   g_variant_dict_end (&limits),
                                                   write_options ()));
  return TRUE;
}

/* KEY=VALUE arguments as an a{sv} of SetLimits' keys, and of SetRule's when
 * @for_rule. Keys match without regard to case, as systemd's do. */
static GVariant *
parse_limits (char    **args,
              gboolean  for_rule,
              GError  **error)
{
  g_auto(GVariantDict) limits = G_VARIANT_DICT_INIT (NULL);

  for (char **arg = args; *arg != NULL; arg++)
    {
      const char *eq = strchr (*arg, '=');
      g_autofree char *key = eq ? g_strndup (*arg, eq - *arg) : NULL;
      GVariant *value = NULL;
      gsize i;

      if (key == NULL)
        {
          g_set_error (error, RC_ERROR, RC_ERROR_INVALID_ARGUMENT,
                       "\"%s\" is not KEY=VALUE", *arg);
          return NULL;
        }
      for (i = 0; i < G_N_ELEMENTS (limit_keys); i++)
        if ((for_rule || !limit_keys[i].rule_only) &&
            g_ascii_strcasecmp (key, limit_keys[i].key) == 0)
          break;
      if (i == G_N_ELEMENTS (limit_keys))
        {
          g_autoptr(GString) known = g_string_new (NULL);

          for (gsize k = 0; k < G_N_ELEMENTS (limit_keys); k++)
            if (for_rule || !limit_keys[k].rule_only)
              g_string_append_printf (known, "%s%s", known->len > 0 ? ", " : "",
                                      limit_keys[k].key);
          g_set_error (error, RC_ERROR, RC_ERROR_INVALID_ARGUMENT,
                       "unknown key \"%s\"; known keys: %s", key, known->str);
          return NULL;
        }

      value = parse_value (limit_keys[i].kind, limit_keys[i].key, eq + 1, error);
      if (value == NULL)
        return NULL;
      g_variant_dict_insert_value (&limits, limit_keys[i].key, value);
    }
  return g_variant_dict_end (&limits);
}

static gboolean
parse_set (char   **args,
           Request *req,
           GError **error)
{
  GVariant *limits = parse_limits (args + 1, FALSE, error);

  if (limits == NULL)
    return FALSE;
  req->params = g_variant_ref_sink (g_variant_new ("(s@a{sv}@a{sv})", args[0], limits,
                                                   write_options ()));
  return TRUE;
}

static gboolean
parse_rule_set (char   **args,
                Request *req,
                GError **error)
{
  GVariant *limits = parse_limits (args + 1, TRUE, error);

  if (limits == NULL)
    return FALSE;
  req->params = g_variant_ref_sink (g_variant_new ("(s@a{sv})", args[0], limits));
  return TRUE;
}

static gboolean
parse_foreground (char   **args,
                  Request *req,
                  GError **error)
{
  guint64 pid;

  if ((opt_pid != NULL) + opt_none + (args[0] != NULL) != 1)
    {
      g_set_error_literal (error, RC_ERROR, RC_ERROR_INVALID_ARGUMENT,
                           "foreground takes one of APP, --none or --pid PID");
      return FALSE;
    }
  if (opt_pid != NULL)
    {
      if (!g_ascii_string_to_unsigned (opt_pid, 10, 1, G_MAXUINT32, &pid, NULL))
        {
          g_set_error (error, RC_ERROR, RC_ERROR_INVALID_ARGUMENT,
                       "invalid process id \"%s\"", opt_pid);
          return FALSE;
        }
      req->method = "SetForegroundProcess";
      req->params = g_variant_ref_sink (g_variant_new ("(u)", (guint32) pid));
      return TRUE;
    }
  /* "" is the API's "no app in the foreground". */
  req->params = g_variant_ref_sink (g_variant_new ("(s)", opt_none ? "" : args[0]));
  return TRUE;
}

/* ---- Output of rule list --------------------------------------------- */

static void
null_for_max_in_rule_cb (JsonObject *object,
                         const char *member,
                         JsonNode   *node,
                         gpointer    user_data)
{
  if (JSON_NODE_HOLDS_OBJECT (node))
    json_object_foreach_member (json_node_get_object (node), null_for_max_cb, NULL);
}

/* "KEY=VALUE ...", in the order of limit_keys, then keys this client does
 * not know; the values as `show` prints them. */
static char *
format_rule (GVariant *rule)
{
  g_autoptr(GString) out = g_string_new (NULL);
  GVariantIter iter;
  const char *key;
  GVariant *value;

  for (gsize k = 0; k < G_N_ELEMENTS (limit_keys); k++)
    {
      g_autoptr(GVariant) known = g_variant_lookup_value (rule, limit_keys[k].key, NULL);
      g_autofree char *text = NULL;

      if (known == NULL)
        continue;
      text = format_value (limit_keys[k].key, known);
      g_string_append_printf (out, "%s%s=%s", out->len > 0 ? " " : "", limit_keys[k].key, text);
    }
  g_variant_iter_init (&iter, rule);
  while (g_variant_iter_loop (&iter, "{&sv}", &key, &value))
    {
      g_autofree char *shown_key = NULL;
      g_autofree char *text = NULL;
      gsize k;

      for (k = 0; k < G_N_ELEMENTS (limit_keys); k++)
        if (strcmp (key, limit_keys[k].key) == 0)
          break;
      if (k < G_N_ELEMENTS (limit_keys))
        continue;
      shown_key = printable (key);
      text = format_value (key, value);
      g_string_append_printf (out, "%s%s=%s", out->len > 0 ? " " : "", shown_key, text);
    }
  return out->len > 0 ? g_string_free (g_steal_pointer (&out), FALSE) : g_strdup ("-");
}

static const char * const rule_columns[] = { "APP", "RULE" };
#define N_RULE_COLUMNS G_N_ELEMENTS (rule_columns)

/* @rules is ListRules' a{sa{sv}}, sorted by AppID by the daemon. */
static int
finish_rule_list (GVariant *rules)
{
  g_autoptr(GPtrArray) rows = NULL;
  GVariantIter iter;
  const char *app_id;
  GVariant *rule;

  if (opt_json)
    {
      g_autoptr(JsonNode) root = json_gvariant_serialize (rules);

      json_object_foreach_member (json_node_get_object (root), null_for_max_in_rule_cb, NULL);
      print_json_node (root);
      return EXIT_SUCCESS;
    }

  rows = g_ptr_array_new_with_free_func ((GDestroyNotify) g_strfreev);
  g_ptr_array_add (rows, g_strdupv ((GStrv) rule_columns));
  g_variant_iter_init (&iter, rules);
  while (g_variant_iter_loop (&iter, "{&s@a{sv}}", &app_id, &rule))
    {
      GStrv row = g_new0 (char *, N_RULE_COLUMNS + 1);

      row[0] = printable (app_id);
      row[1] = format_rule (rule);
      g_ptr_array_add (rows, row);
    }
  print_table (rows, N_RULE_COLUMNS);
  return EXIT_SUCCESS;
}

/* ---- monitor ----------------------------------------------------------- */

static void
print_event (const char *line)
{
  g_autofree char *shown = printable (line);

  g_print ("%s\n", shown);
  /* Readers of a pipe want each event when it happens. */
  fflush (stdout);
}

static void
on_app_added (RcDBusResourceControl *proxy,
              const char            *unit,
              GVariant              *app,
              gpointer               user_data)
{
  g_autofree char *app_id = lookup_formatted (app, "AppId");
  g_autofree char *name = lookup_formatted (app, "Name");
  g_autofree char *line = g_strdup_printf ("added %s %s (%s)", unit, app_id, name);

  print_event (line);
}

static void
on_app_removed (RcDBusResourceControl *proxy,
                const char            *unit,
                gpointer               user_data)
{
  g_autofree char *line = g_strdup_printf ("removed %s", unit);

  print_event (line);
}

static void
on_app_changed (RcDBusResourceControl *proxy,
                const char            *unit,
                GVariant              *changed,
                gpointer               user_data)
{
  g_autoptr(GString) line = g_string_new ("changed ");
  GVariantIter iter;
  const char *key;
  GVariant *value;

  g_string_append (line, unit);
  g_variant_iter_init (&iter, changed);
  while (g_variant_iter_loop (&iter, "{&sv}", &key, &value))
    {
      g_autofree char *text = format_value (key, value);

      g_string_append_printf (line, " %s=%s", key, text);
    }
  print_event (line->str);
}

static void
on_name_owner_changed (GObject    *proxy,
                       GParamSpec *pspec,
                       gpointer    user_data)
{
  g_autofree char *owner = g_dbus_proxy_get_name_owner (G_DBUS_PROXY (proxy));

  if (owner == NULL)
    g_printerr ("resourcectl: resource-controld left the session bus; waiting for it to return\n");
  else
    g_printerr ("resourcectl: resource-controld is back on the session bus\n");
}

typedef struct {
  GMainLoop *loop;
  int        status;
} Monitor;

static void
on_bus_closed (GDBusConnection *connection,
               gboolean         remote_peer_vanished,
               GError          *error,
               gpointer         user_data)
{
  Monitor *monitor = user_data;

  g_printerr ("resourcectl: lost the session bus%s%s\n",
              error ? ": " : "", error ? error->message : "");
  monitor->status = EXIT_FAILURE;
  g_main_loop_quit (monitor->loop);
}

static gboolean
on_quit_signal (gpointer user_data)
{
  Monitor *monitor = user_data;

  g_main_loop_quit (monitor->loop);
  return G_SOURCE_CONTINUE;
}

static int
run_monitor (RcDBusResourceControl *proxy)
{
  g_autoptr(GMainLoop) loop = g_main_loop_new (NULL, FALSE);
  GDBusConnection *bus = g_dbus_proxy_get_connection (G_DBUS_PROXY (proxy));
  Monitor monitor = { loop, EXIT_SUCCESS };
  guint sigint_id, sigterm_id;
  gulong closed_id;

  g_signal_connect (proxy, "app-added", G_CALLBACK (on_app_added), NULL);
  g_signal_connect (proxy, "app-removed", G_CALLBACK (on_app_removed), NULL);
  g_signal_connect (proxy, "app-changed", G_CALLBACK (on_app_changed), NULL);
  g_signal_connect (proxy, "notify::g-name-owner", G_CALLBACK (on_name_owner_changed), NULL);
  closed_id = g_signal_connect (bus, "closed", G_CALLBACK (on_bus_closed), &monitor);
  sigint_id = g_unix_signal_add (SIGINT, on_quit_signal, &monitor);
  sigterm_id = g_unix_signal_add (SIGTERM, on_quit_signal, &monitor);

  g_main_loop_run (loop);

  g_source_remove (sigint_id);
  g_source_remove (sigterm_id);
  g_signal_handler_disconnect (bus, closed_id);
  return monitor.status;
}

/* ---- Commands ---------------------------------------------------------- */

static const GOptionEntry json_options[] = {
  { "json", 0, 0, G_OPTION_ARG_NONE, &opt_json, "Print a JSON array of app objects", NULL },
  G_OPTION_ENTRY_NULL
};

static const GOptionEntry rule_json_options[] = {
  { "json", 0, 0, G_OPTION_ARG_NONE, &opt_json,
    "Print a JSON object that maps each AppID to its rule", NULL },
  G_OPTION_ENTRY_NULL
};

static const GOptionEntry foreground_options[] = {
  { "none", 0, 0, G_OPTION_ARG_NONE, &opt_none, "No app is in the foreground", NULL },
  { "pid", 0, 0, G_OPTION_ARG_STRING, &opt_pid,
    "The app that holds this process is in the foreground", "PID" },
  G_OPTION_ENTRY_NULL
};

static const GOptionEntry force_options[] = {
  { "force", 'f', 0, G_OPTION_ARG_NONE, &opt_force,
    "Apply a memory limit even below the app's current use (it may be killed)", NULL },
  G_OPTION_ENTRY_NULL
};

#define LIMIT_KEYS_HELP \
  "Keys:\n" \
  "  CPUWeight=N, IOWeight=N         1..10000 (default 100)\n" \
  "  CPUQuota=PERCENT                of one CPU, e.g. 50% or 200%; 0 removes it\n" \
  "  MemoryLow, MemoryHigh, MemoryMax=SIZE   e.g. 512M, 1.5G, infinity\n" \
  "  TasksMax=N                      a number or infinity"

typedef struct {
  const char *name;
  const char *params;
  const char *summary;
  const char *help;                 /* more text for "COMMAND --help", or NULL */
  const GOptionEntry *options;
  guint min_args;
  guint max_args;
  const char *method;
  gboolean writes;                  /* needs polkit: may ask for a password */
  gboolean (*parse) (char **args, Request *req, GError **error);
  int (*finish) (GVariant *apps);   /* prints the aa{sv} reply, or NULL */
  int (*run) (RcDBusResourceControl *proxy);  /* instead of one call */
} Command;

static const Command commands[] = {
  { "list", "", "List running apps", NULL, json_options, 0, 0,
    "ListApps", FALSE, parse_nothing, finish_list, NULL },
  { "show", "APP", "Show every property of an app's instances", NULL, json_options, 1, 1,
    "GetApp", FALSE, parse_app, finish_show, NULL },
  { "set-weight", "APP WEIGHT", "Set the CPU weight (1..10000, default 100)", NULL, NULL, 2, 2,
    "SetWeight", TRUE, parse_set_weight, NULL, NULL },
  { "set-memory-limit", "APP SIZE", "Limit memory (MemoryMax=SIZE, MemoryHigh=7/8 of it)",
    "SIZE is bytes or a number with K, M, G or T (powers of 1024), e.g. 512M or 1.5G;\n"
    "\"infinity\" removes the limit.", force_options, 2, 2,
    "SetMemoryLimit", TRUE, parse_set_memory_limit, NULL, NULL },
  { "set", "APP KEY=VALUE…", "Set several limits at once",
    LIMIT_KEYS_HELP, force_options, 2, G_MAXUINT,
    "SetLimits", TRUE, parse_set, NULL, NULL },
  { "reset", "APP", "Reset every limit to the default", NULL, NULL, 1, 1,
    "ResetLimits", TRUE, parse_app, NULL, NULL },
  { "freeze", "APP", "Freeze (pause) an app", NULL, NULL, 1, 1,
    "Freeze", TRUE, parse_app, NULL, NULL },
  { "thaw", "APP", "Thaw a frozen app", NULL, NULL, 1, 1,
    "Thaw", TRUE, parse_app, NULL, NULL },
  { "monitor", "", "Print app events until interrupted", NULL, NULL, 0, 0,
    NULL, FALSE, parse_nothing, NULL, run_monitor },
  { "rule list", "", "List the rules (limits kept for an AppID)",
    "Rules come from /etc/resource-control/rules.d/ and then\n"
    "$XDG_CONFIG_HOME/resource-control/rules.d/; a later rule for an AppID wins.",
    rule_json_options, 0, 0,
    "ListRules", FALSE, parse_nothing, finish_rule_list, NULL },
  { "rule set", "APP_ID KEY=VALUE…", "Make these limits the rule of an AppID",
    "APP_ID is a desktop AppID such as org.gnome.Calculator, not a unit name.\n"
    "The rule replaces your earlier rule for it, applies to its running instances\n"
    "at once and to later ones as they start.\n\n"
    LIMIT_KEYS_HELP "\n"
    "  FreezeWhenInactiveSec=N         freeze an instance after N seconds in the\n"
    "                                  background, thaw it when focused (1..86400)",
    NULL, 2, G_MAXUINT,
    "SetRule", TRUE, parse_rule_set, NULL, NULL },
  { "rule remove", "APP_ID", "Remove your rule for an AppID",
    "Running instances go back to the system's rule, if there is one, or to the\n"
    "defaults. A rule in the system folder can only be overridden, not removed.", NULL, 1, 1,
    "RemoveRule", TRUE, parse_app, NULL, NULL },
  { "foreground", "APP|--none|--pid PID", "Boost the app the user is working with",
    "A compositor or shell tells the daemon which app has the focus: its instances\n"
    "get the boost (CPUWeight 300 by default), the previous foreground app gets\n"
    "back what it had. \"--none\" (or \"\") means no app is in the foreground.",
    foreground_options, 0, 1,
    "SetForegroundApp", TRUE, parse_foreground, NULL, NULL },
};

static const char app_help[] =
  "APP is a unit name (one instance, e.g. app-gnome-org.gnome.Calculator-4711.scope)\n"
  "or a desktop AppID (every running instance, e.g. org.gnome.Calculator).";

static int
usage_error (const Command *cmd,
             const char    *format,
             ...) G_GNUC_PRINTF (2, 3);

static int
usage_error (const Command *cmd,
             const char    *format,
             ...)
{
  g_autofree char *message = NULL;
  va_list args;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  g_printerr ("resourcectl: %s\nTry \"resourcectl%s%s --help\".\n",
              message, cmd ? " " : "", cmd ? cmd->name : "");
  return EXIT_USAGE;
}

static int
report_error (GError *error)
{
  gboolean gone = g_error_matches (error, G_DBUS_ERROR, G_DBUS_ERROR_SERVICE_UNKNOWN) ||
                  g_error_matches (error, G_DBUS_ERROR, G_DBUS_ERROR_NAME_HAS_NO_OWNER);

  g_dbus_error_strip_remote_error (error);
  if (gone)
    g_printerr ("resourcectl: " NOT_RUNNING " (%s)\n", error->message);
  else
    g_printerr ("resourcectl: %s\n", error->message);
  return EXIT_FAILURE;
}

static RcDBusResourceControl *
connect_to_daemon (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GDBusConnection) bus = g_bus_get_sync (G_BUS_TYPE_SESSION, NULL, &error);
  g_autoptr(RcDBusResourceControl) proxy = NULL;
  g_autofree char *owner = NULL;

  if (bus == NULL)
    {
      g_printerr ("resourcectl: cannot connect to the session bus: %s\n", error->message);
      return NULL;
    }
  /* A lost bus is reported, not answered with SIGTERM. */
  g_dbus_connection_set_exit_on_close (bus, FALSE);

  /* No DO_NOT_AUTO_START: the bus activates the daemon if it is installed. */
  proxy = rc_dbus_resource_control_proxy_new_sync (bus, G_DBUS_PROXY_FLAGS_NONE,
                                                   RC_DBUS_NAME, RC_DBUS_PATH, NULL, &error);
  if (proxy == NULL)
    {
      g_dbus_error_strip_remote_error (error);
      g_printerr ("resourcectl: " NOT_RUNNING " (%s)\n", error->message);
      return NULL;
    }
  owner = g_dbus_proxy_get_name_owner (G_DBUS_PROXY (proxy));
  if (owner == NULL)
    {
      g_printerr ("resourcectl: " NOT_RUNNING " (nothing owns %s and it cannot be activated)\n",
                  RC_DBUS_NAME);
      return NULL;
    }
  return g_steal_pointer (&proxy);
}

/* Like systemctl: in a terminal, a text polkit agent for this process lets
 * polkit ask for a password here when no desktop agent runs. */
static GSubprocess *
start_tty_agent (void)
{
  g_autoptr(GSubprocessLauncher) launcher = NULL;
  g_autofree char *program = g_find_program_in_path ("pkttyagent");
  g_autofree char *pid = NULL;
  GSubprocess *agent;
  int fds[2];
  char byte;

  if (!isatty (STDIN_FILENO) || program == NULL ||
      !g_unix_open_pipe (fds, FD_CLOEXEC, NULL))
    return NULL;
  pid = g_strdup_printf ("%d", (int) getpid ());
  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_NONE);
  g_subprocess_launcher_take_fd (launcher, fds[1], 3);
  agent = g_subprocess_launcher_spawn (launcher, NULL, program, "--notify-fd", "3",
                                       "--fallback", "--process", pid, NULL);
  g_clear_object (&launcher);   /* closes our copy of the write end */
  /* The agent closes its end once it is registered. */
  while (agent != NULL && read (fds[0], &byte, 1) < 0 && errno == EINTR)
    ;
  close (fds[0]);
  return agent;
}

static int
call_daemon (const Command *cmd,
             const Request *req)
{
  g_autoptr(RcDBusResourceControl) proxy = connect_to_daemon ();
  g_autoptr(GSubprocess) agent = NULL;
  g_autoptr(GVariant) reply = NULL;
  g_autoptr(GVariant) apps = NULL;
  g_autoptr(GError) error = NULL;

  if (proxy == NULL)
    return EXIT_FAILURE;
  if (cmd->run != NULL)
    return cmd->run (proxy);

  if (cmd->writes)
    agent = start_tty_agent ();
  /* Writes may wait on the user typing a password into a polkit dialog. */
  reply = g_dbus_proxy_call_sync (G_DBUS_PROXY (proxy), req->method, req->params,
                                  cmd->writes ? G_DBUS_CALL_FLAGS_ALLOW_INTERACTIVE_AUTHORIZATION
                                              : G_DBUS_CALL_FLAGS_NONE,
                                  cmd->writes ? G_MAXINT : -1, NULL, &error);
  if (agent != NULL)
    g_subprocess_force_exit (agent);
  if (reply == NULL)
    return report_error (error);
  if (cmd->finish == NULL)
    return EXIT_SUCCESS;

  apps = g_variant_get_child_value (reply, 0);
  return cmd->finish (apps);
}

/* Whether @cmd's parameters name an APP (a unit name or an AppID), which
 * the help then explains; APP_ID is only an AppID. */
static gboolean
takes_app (const Command *cmd)
{
  g_auto(GStrv) words = g_strsplit_set (cmd->params, " |", -1);

  return g_strv_contains ((const char * const *) words, "APP");
}

static int
run_command (const Command *cmd,
             int            argc,
             char         **argv)
{
  g_autofree char *params = g_strdup_printf ("%s %s", cmd->name, cmd->params);
  g_autoptr(GOptionContext) context = g_option_context_new (g_strstrip (params));
  g_autofree char *help = NULL;
  g_autoptr(GError) error = NULL;
  Request req = { cmd->method, NULL };
  guint n_args;
  int status;

  help = g_strjoin ("\n\n", takes_app (cmd) ? app_help : "",
                    cmd->help ? cmd->help : "", NULL);
  g_option_context_set_summary (context, cmd->summary);
  if (*g_strstrip (help) != '\0')
    g_option_context_set_description (context, help);
  if (cmd->options != NULL)
    g_option_context_add_main_entries (context, cmd->options, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    return usage_error (cmd, "%s", error->message);

  n_args = argc - 1;
  if (n_args < cmd->min_args || n_args > cmd->max_args)
    return usage_error (cmd, "%s takes %s%s", cmd->name,
                        *cmd->params ? cmd->params : "no arguments",
                        n_args > cmd->max_args && *cmd->params ? " and nothing more" : "");

  /* Parse everything before touching the bus, which might start the daemon. */
  if (!cmd->parse (argv + 1, &req, &error))
    return usage_error (cmd, "%s", error->message);

  status = call_daemon (cmd, &req);
  g_clear_pointer (&req.params, g_variant_unref);
  return status;
}

/* The command list; with @group ("rule"), only that group's commands. */
static char *
commands_description (const char *group)
{
  GString *text = g_string_new ("Commands:\n");
  gsize group_len = group != NULL ? strlen (group) : 0;

  for (gsize i = 0; i < G_N_ELEMENTS (commands); i++)
    {
      g_autofree char *usage = NULL;
      glong width;

      if (group != NULL &&
          (strncmp (commands[i].name, group, group_len) != 0 || commands[i].name[group_len] != ' '))
        continue;
      usage = g_strdup_printf ("%s %s", commands[i].name, commands[i].params);
      width = g_utf8_strlen (usage, -1);

      /* printf pads bytes, and "…" is three of them. */
      g_string_append_printf (text, "  %s%*s %s\n", usage, (int) MAX (32 - width, 0), "",
                              commands[i].summary);
    }
  g_string_append_printf (text, "\n%s\n\nSee \"resourcectl COMMAND --help\" for a command's options.",
                          app_help);
  return g_string_free (text, FALSE);
}

int
main (int    argc,
      char **argv)
{
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *description = NULL;
  g_autoptr(GString) subcommands = g_string_new (NULL);
  gboolean version = FALSE;
  const GOptionEntry options[] = {
    { "version", 0, 0, G_OPTION_ARG_NONE, &version, "Print the version and exit", NULL },
    G_OPTION_ENTRY_NULL
  };

  setlocale (LC_ALL, "");
  g_set_prgname ("resourcectl");

  context = g_option_context_new ("COMMAND [ARGUMENT…]");
  /* Stop at the command: its options belong to it. */
  g_option_context_set_strict_posix (context, TRUE);
  g_option_context_set_summary (context, "Control the CPU, memory and freezing of running desktop apps,\n"
                                         "and the rules that set them for every instance of an app.");
  description = commands_description (NULL);
  g_option_context_set_description (context, description);
  g_option_context_add_main_entries (context, options, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    return usage_error (NULL, "%s", error->message);

  if (version)
    {
      g_print ("resourcectl %s\n", RC_VERSION);
      return EXIT_SUCCESS;
    }
  if (argc < 2)
    return usage_error (NULL, "no command given");

  /* "rule list": a command of two words, the first one naming a group. */
  for (gsize i = 0; i < G_N_ELEMENTS (commands); i++)
    {
      const char *name = commands[i].name;
      const char *space = strchr (name, ' ');

      if (space == NULL)
        {
          if (strcmp (argv[1], name) == 0)
            return run_command (&commands[i], argc - 1, argv + 1);
          continue;
        }
      if (strlen (argv[1]) != (gsize) (space - name) || strncmp (argv[1], name, space - name) != 0)
        continue;
      g_string_append_printf (subcommands, "%s%s", subcommands->len > 0 ? ", " : "", space + 1);
      if (argc > 2 && strcmp (argv[2], space + 1) == 0)
        return run_command (&commands[i], argc - 2, argv + 2);
    }

  if (subcommands->len > 0 && argc > 2 &&
      (strcmp (argv[2], "--help") == 0 || strcmp (argv[2], "-h") == 0))
    {
      g_autofree char *group = commands_description (argv[1]);

      g_print ("Usage: resourcectl %s {%s} [ARGUMENT…]\n\n%s\n", argv[1], subcommands->str,
               group);
      return EXIT_SUCCESS;
    }
  if (subcommands->len > 0 && argc < 3)
    return usage_error (NULL, "%s needs a subcommand: %s", argv[1], subcommands->str);
  if (subcommands->len > 0)
    return usage_error (NULL, "unknown command \"%s %s\"; %s has: %s", argv[1], argv[2], argv[1],
                        subcommands->str);
  return usage_error (NULL, "unknown command \"%s\"", argv[1]);
}
