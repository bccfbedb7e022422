/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* resourcectl list, show and monitor: the app instances and their events. */
#include "resourcectl.h"
#include "rc-api-keys.h"

#include <stdio.h>
#include <string.h>

#include <glib-unix.h>

static const char * const list_columns[] = { "APP", "NAME", "UNIT", "CPU", "MEMORY", "STATE" };
#define N_LIST_COLUMNS G_N_ELEMENTS (list_columns)

static GStrv
list_row (GVariant *app)
{
  GStrv row = g_new0 (char *, N_LIST_COLUMNS + 1);
  g_autofree char *current = rcctl_lookup_formatted (app, RC_KEY_MEMORY_CURRENT);
  g_autofree char *max = rcctl_lookup_formatted (app, RC_KEY_MEMORY_MAX);
  g_autofree char *active = rcctl_lookup_formatted (app, RC_KEY_ACTIVE_STATE);
  const char *freezer = rcctl_lookup_string (app, RC_KEY_FREEZER_STATE);

  row[0] = rcctl_lookup_formatted (app, RC_KEY_APP_ID);
  row[1] = rcctl_lookup_formatted (app, RC_KEY_NAME);
  row[2] = rcctl_lookup_formatted (app, RC_KEY_UNIT);
  row[3] = rcctl_lookup_formatted (app, RC_KEY_CPU_WEIGHT);
  row[4] = g_strdup_printf ("%s / %s", current, max);
  if (*freezer == '\0' || strcmp (freezer, "running") == 0)
    row[5] = g_steal_pointer (&active);
  else
    {
      g_autofree char *shown = rcctl_printable (freezer);

      row[5] = g_strdup_printf ("%s (%s)", active, shown);
    }
  return row;
}

int
rcctl_finish_list (GVariant *apps)
{
  g_autoptr(GPtrArray) sorted = NULL;
  g_autoptr(GPtrArray) rows = NULL;

  if (rcctl_print_json_if_asked (apps))
    return EXIT_SUCCESS;

  sorted = rcctl_sorted_apps (apps);
  rows = g_ptr_array_new_with_free_func ((GDestroyNotify) g_strfreev);
  g_ptr_array_add (rows, g_strdupv ((GStrv) list_columns));
  for (guint i = 0; i < sorted->len; i++)
    g_ptr_array_add (rows, list_row (sorted->pdata[i]));
  rcctl_print_table (rows, N_LIST_COLUMNS);
  return EXIT_SUCCESS;
}

static void
print_key (const char *key,
           GVariant   *value)
{
  g_autofree char *text = rcctl_format_value (key, value);

  g_print ("%s: %s\n", key, text);
}

int
rcctl_finish_show (GVariant *apps)
{
  g_autoptr(GPtrArray) sorted = NULL;

  if (rcctl_print_json_if_asked (apps))
    return EXIT_SUCCESS;

  sorted = rcctl_sorted_apps (apps);
  for (guint i = 0; i < sorted->len; i++)
    {
      GVariant *app = sorted->pdata[i];
      GVariantIter iter;
      const char *key;
      GVariant *value;

      if (i > 0)
        g_print ("\n");
      for (gsize k = 0; k < rcctl_n_app_keys; k++)
        {
          g_autoptr(GVariant) known = g_variant_lookup_value (app, rcctl_app_keys[k].key, NULL);

          if (known != NULL)
            print_key (rcctl_app_keys[k].key, known);
        }
      /* Keys from a daemon newer than this client. */
      g_variant_iter_init (&iter, app);
      while (g_variant_iter_loop (&iter, "{&sv}", &key, &value))
        if (rcctl_find_app_key (key) < 0)
          print_key (key, value);
    }
  return EXIT_SUCCESS;
}

static void
print_event (const char *line)
{
  g_autofree char *shown = rcctl_printable (line);

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
  g_autofree char *app_id = rcctl_lookup_formatted (app, RC_KEY_APP_ID);
  g_autofree char *name = rcctl_lookup_formatted (app, RC_KEY_NAME);
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
      g_autofree char *text = rcctl_format_value (key, value);

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

int
rcctl_run_monitor (RcDBusResourceControl *proxy)
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

int
rcctl_finish_slices (GVariant *slices)
{
  static const char * const columns[] = {
    "SLICE", "CPU WEIGHT", "MEMORY MIN", "LOW", "HIGH", "MAX", "IN USE", NULL
  };
  static const char * const keys[] = {
    "Unit", "CPUWeight", "MemoryMin", "MemoryLow", "MemoryHigh", "MemoryMax", "MemoryCurrent",
  };
  g_autoptr(GPtrArray) rows = g_ptr_array_new_with_free_func ((GDestroyNotify) g_strfreev);

  if (rcctl_print_json_if_asked (slices))
    return EXIT_SUCCESS;
  g_ptr_array_add (rows, g_strdupv ((GStrv) columns));
  for (gsize i = 0; i < g_variant_n_children (slices); i++)
    {
      g_autoptr(GVariant) slice = g_variant_get_child_value (slices, i);
      char **row = g_new0 (char *, G_N_ELEMENTS (keys) + 1);

      for (gsize k = 0; k < G_N_ELEMENTS (keys); k++)
        row[k] = rcctl_lookup_formatted (slice, keys[k]);
      g_ptr_array_add (rows, row);
    }
  rcctl_print_table (rows, G_N_ELEMENTS (keys));
  return EXIT_SUCCESS;
}
