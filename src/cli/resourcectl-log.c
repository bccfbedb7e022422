/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* resourcectl log: the daemon's action record (GetActions), and with -f the
 * changes as they come (ActionTaken). */
#include "resourcectl.h"
#include "rc-unit-name.h"

#include <glib-unix.h>
#include <stdio.h>
#include <stdlib.h>

static gboolean opt_follow;
static char *log_app;

const GOptionEntry rcctl_log_options[] = {
  { "follow", 'f', 0, G_OPTION_ARG_NONE, &opt_follow, "Print new changes as they are made", NULL },
  { "json", 0, 0, G_OPTION_ARG_NONE, &rcctl_opt_json,
    "Print a JSON array of change objects (with -f: one object per line)", NULL },
  G_OPTION_ENTRY_NULL
};

static const char * const fields[] = {
  "Time", "Unit", "AppId", "Kind", "Key", "Old", "New", "Reason",
};

gboolean
rcctl_parse_log (char        **args,
                 RcctlRequest *req,
                 GError      **error)
{
  g_free (log_app);
  log_app = g_strdup (args[0] != NULL ? args[0] : "");
  return *log_app == '\0' || rc_unit_name_check_app_argument (log_app, error);
}

/* One (tsssssss) as the a{sv} of the JSON output. */
static GVariant *
action_to_dict (GVariant *action)
{
  g_auto(GVariantBuilder) builder = G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE_VARDICT);

  for (gsize i = 0; i < G_N_ELEMENTS (fields); i++)
    g_variant_builder_add (&builder, "{sv}", fields[i],
                           g_variant_get_child_value (action, i));
  return g_variant_builder_end (&builder);
}

static void
print_text (GVariant *action)
{
  const char *unit, *app_id, *kind, *key, *old_value, *new_value, *reason;
  g_autoptr(GDateTime) when = NULL;
  g_autofree char *time_text = NULL;
  g_autofree char *what = NULL;
  g_autofree char *line = NULL;
  g_autofree char *printable = NULL;
  guint64 time_usec;

  g_variant_get (action, "(t&s&s&s&s&s&s&s)", &time_usec, &unit, &app_id, &kind, &key,
                 &old_value, &new_value, &reason);
  when = g_date_time_new_from_unix_local ((gint64) MIN (time_usec / G_USEC_PER_SEC, (guint64) G_MAXINT32));
  time_text = when != NULL ? g_date_time_format (when, "%Y-%m-%d %H:%M:%S") : g_strdup ("-");
  what = *key != '\0' ? g_strdup_printf ("%s %s -> %s", key, old_value, new_value) :
         g_strdup (kind);
  line = g_strdup_printf ("%s  %s  %s  %s  (%s)", time_text, unit, kind, what, reason);
  /* the daemon's words, but no terminal escapes from anyone */
  printable = rcctl_printable (line);

  g_print ("%s\n", printable);
}

static void
print_json_line (GVariant *action)
{
  g_autoptr(GVariant) dict = g_variant_ref_sink (action_to_dict (action));
  g_autoptr(JsonNode) node = json_gvariant_serialize (dict);
  g_autofree char *text = json_to_string (node, FALSE);

  g_print ("%s\n", text);
}

static gboolean
matches_app (GVariant *action)
{
  const char *unit, *app_id;

  if (*log_app == '\0')
    return TRUE;
  g_variant_get (action, "(t&s&s&s&s&s&s&s)", NULL, &unit, &app_id, NULL, NULL, NULL, NULL,
                 NULL);
  return g_str_equal (log_app, unit) || g_str_equal (log_app, app_id);
}

typedef struct {
  GMainLoop  *loop;
  GHashTable *printed;   /* GVariant: the listing, which a signal may repeat */
  int         status;
} Follow;

static void
on_action_taken (RcDBusResourceControl *proxy,
                 guint64                time_usec,
                 const char            *unit,
                 const char            *app_id,
                 const char            *kind,
                 const char            *key,
                 const char            *old_value,
                 const char            *new_value,
                 const char            *reason,
                 Follow                *follow)
{
  g_autoptr(GVariant) action = g_variant_ref_sink (g_variant_new ("(tsssssss)", time_usec, unit,
                                                                  app_id, kind, key, old_value,
                                                                  new_value, reason));

  if (!matches_app (action) || g_hash_table_contains (follow->printed, action))
    return;
  if (rcctl_opt_json)
    print_json_line (action);
  else
    print_text (action);
  fflush (stdout);
}

static void
on_bus_closed (GDBusConnection *connection,
               gboolean         remote_peer_vanished,
               GError          *error,
               Follow          *follow)
{
  g_printerr ("resourcectl: lost the session bus%s%s\n", error ? ": " : "",
              error ? error->message : "");
  follow->status = EXIT_FAILURE;
  g_main_loop_quit (follow->loop);
}

static gboolean
on_quit_signal (gpointer user_data)
{
  Follow *follow = user_data;

  g_main_loop_quit (follow->loop);
  return G_SOURCE_CONTINUE;
}

static int
follow_actions (RcDBusResourceControl *proxy,
                GHashTable            *printed)
{
  g_autoptr(GMainLoop) loop = g_main_loop_new (NULL, FALSE);
  GDBusConnection *bus = g_dbus_proxy_get_connection (G_DBUS_PROXY (proxy));
  Follow follow = { loop, printed, EXIT_SUCCESS };
  guint sigint_id = g_unix_signal_add (SIGINT, on_quit_signal, &follow);
  guint sigterm_id = g_unix_signal_add (SIGTERM, on_quit_signal, &follow);
  gulong closed_id = g_signal_connect (bus, "closed", G_CALLBACK (on_bus_closed), &follow);
  gulong taken_id = g_signal_connect (proxy, "action-taken", G_CALLBACK (on_action_taken),
                                      &follow);

  g_main_loop_run (loop);
  g_signal_handler_disconnect (proxy, taken_id);
  g_signal_handler_disconnect (bus, closed_id);
  g_source_remove (sigint_id);
  g_source_remove (sigterm_id);
  return follow.status;
}

int
rcctl_run_log (RcDBusResourceControl *proxy)
{
  g_autoptr(GHashTable) printed = g_hash_table_new_full (g_variant_hash, g_variant_equal,
                                                         (GDestroyNotify) g_variant_unref, NULL);
  g_auto(GVariantBuilder) dicts = G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE ("aa{sv}"));
  g_autoptr(GVariant) actions = NULL;
  g_autoptr(GError) error = NULL;
  GVariantIter iter;
  GVariant *action;

  /* The proxy receives ActionTaken from now on; what the listing already
   * has is not printed twice. */
  if (!rc_dbus_resource_control_call_get_actions_sync (proxy, log_app, 0, &actions, NULL, &error))
    return rcctl_report_error (error);
  g_variant_iter_init (&iter, actions);
  while ((action = g_variant_iter_next_value (&iter)) != NULL)
    {
      if (rcctl_opt_json && opt_follow)
        print_json_line (action);
      else if (rcctl_opt_json)
        g_variant_builder_add_value (&dicts, action_to_dict (action));
      else
        print_text (action);
      g_hash_table_add (printed, action);
    }
  if (rcctl_opt_json && !opt_follow)
    {
      g_autoptr(GVariant) records = g_variant_ref_sink (g_variant_builder_end (&dicts));

      rcctl_print_json_if_asked (records);
    }
  fflush (stdout);
  return opt_follow ? follow_actions (proxy, printed) : EXIT_SUCCESS;
}
