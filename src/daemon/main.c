/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* resource-controld: per-application resource control for the desktop. */
#include <glib-unix.h>
#include <locale.h>
#include <stdlib.h>

#include "rc-audio-watch.h"
#include "rc-authority.h"
#include "rc-cgroup.h"
#include "rc-energy.h"
#include "rc-focus-tracker.h"
#include "rc-focus-watch.h"
#include "rc-guard-watch.h"
#include "rc-heap.h"
#include "rc-manager.h"
#include "rc-memory-watch.h"
#include "rc-names.h"
#include "rc-notifier.h"
#include "rc-policy.h"
#include "rc-power-watch.h"
#include "rc-registry.h"
#include "rc-rules.h"
#include "rc-slices.h"
#include "rc-systemd.h"
#include "rc-test-hooks.h"

typedef struct {
  GMainLoop       *loop;
  GDBusConnection *connection;
  RcSystemd       *systemd;
  RcRegistry      *registry;
  RcMemoryWatch   *memory_watch;
  RcCpuWatch      *cpu_watch;
  RcNotifier      *notifier;
  RcAuthority     *authority;
  RcSlices        *slices;
  RcRules         *rules;
  RcFocusWatch    *focus_watch;
  RcFocusTracker  *focus;
  RcAudioWatch    *audio_watch;
  RcPowerWatch    *power_watch;
  RcEnergy        *energy;
  RcPolicy        *policy;
  RcGuardWatch    *guard;
  RcRequestQueue  *queue;
  RcManager       *manager;
  guint            owner_id;
  gboolean         replace;
  gboolean         name_acquired;
  int              exit_status;
} Daemon;

static void
quit (Daemon *daemon,
      int     exit_status)
{
  daemon->exit_status = exit_status;
  g_main_loop_quit (daemon->loop);
}

static void
name_acquired_cb (GDBusConnection *connection,
                  const char      *name,
                  gpointer         user_data)
{
  Daemon *daemon = user_data;

  daemon->name_acquired = TRUE;
  g_debug ("Acquired the bus name %s", name);
}

static void
name_lost_cb (GDBusConnection *connection,
              const char      *name,
              gpointer         user_data)
{
  Daemon *daemon = user_data;

  if (daemon->name_acquired)
    {
      g_message ("Replaced by another resource-controld; exiting");
      quit (daemon, EXIT_SUCCESS);
    }
  else
    {
      g_printerr ("resource-controld: could not own %s on the session bus; another instance "
                  "runs (--replace takes over from one that was started with --replace; "
                  "stop the service with systemctl --user stop resource-control)\n", name);
      quit (daemon, EXIT_FAILURE);
    }
}

/* The name is owned at once, however many apps there are to list, so D-Bus
* activation never times out; the manager holds calls that come before the
* first full listing until it is done, so no caller sees a partial list. */
static void
own_name (Daemon *daemon)
{
  GBusNameOwnerFlags flags = G_BUS_NAME_OWNER_FLAGS_NONE;

  /* Only an instance started with --replace (by hand, for development)
   * can be replaced in turn: the service keeps its name, so no other
   * process of the user can take it over and answer in its place. */
  if (daemon->replace)
    flags |= G_BUS_NAME_OWNER_FLAGS_REPLACE | G_BUS_NAME_OWNER_FLAGS_ALLOW_REPLACEMENT;
  daemon->owner_id = g_bus_own_name_on_connection (daemon->connection, RC_DBUS_NAME, flags,
                                                   name_acquired_cb, name_lost_cb,
                                                   daemon, NULL);
}

static void
connection_closed_cb (GDBusConnection *connection,
                      gboolean         remote_peer_vanished,
                      GError          *error,
                      gpointer         user_data)
{
  g_message ("The session bus went away; exiting");
  quit (user_data, EXIT_SUCCESS);
}

static gboolean
signal_cb (gpointer user_data)
{
  g_debug ("Terminating on signal");
  quit (user_data, EXIT_SUCCESS);
  return G_SOURCE_REMOVE;
}

static void
start_policy (Daemon *daemon)
{
  g_autofree char *system_dir = rc_rules_system_dir ();
  g_autofree char *user_dir = g_build_filename (g_get_user_config_dir (), RC_RULES_SUBDIR, NULL);
  g_autofree char *state_file = g_build_filename (g_get_user_runtime_dir (), "resource-control",
                                                  "state", NULL);

  daemon->rules = rc_rules_new (system_dir, user_dir);
  daemon->focus_watch = rc_focus_watch_new ();
  daemon->audio_watch = rc_audio_watch_new (daemon->connection);
  daemon->power_watch = rc_power_watch_new ();
  daemon->policy = rc_policy_new (daemon->registry, daemon->systemd, daemon->queue, daemon->rules,
                                  daemon->focus_watch, daemon->audio_watch, daemon->power_watch,
                                  state_file);
  daemon->guard = rc_guard_watch_new (daemon->registry, daemon->systemd, daemon->rules,
                                      daemon->policy);
}

static void
start_energy (Daemon *daemon)
{
  g_autofree char *history_path = rc_energy_default_history_path ();

  daemon->energy = rc_energy_new (daemon->registry, daemon->authority, history_path);
  rc_energy_serve (daemon->energy, RC_DBUS_RESOURCE_CONTROL (daemon->manager));
  rc_notifier_watch_energy (daemon->notifier, daemon->energy);
  rc_notifier_watch_ladder (daemon->notifier, rc_guard_watch_get_ladder (daemon->guard));
}

static gboolean
start (Daemon  *daemon,
       GError **error)
{
  daemon->connection = g_bus_get_sync (G_BUS_TYPE_SESSION, NULL, error);
  if (daemon->connection == NULL)
    return FALSE;
  g_dbus_connection_set_exit_on_close (daemon->connection, FALSE);
  g_signal_connect (daemon->connection, "closed", G_CALLBACK (connection_closed_cb), daemon);

  daemon->systemd = rc_systemd_new (daemon->connection);
  daemon->registry = rc_registry_new (daemon->systemd);
  daemon->memory_watch = rc_memory_watch_new (daemon->registry);
  daemon->cpu_watch = rc_cpu_watch_new (daemon->registry);
  daemon->authority = rc_authority_new ();
  daemon->queue = rc_request_queue_new ();
  start_policy (daemon);
  daemon->notifier = rc_notifier_new (daemon->connection, daemon->registry, daemon->memory_watch,
                                      daemon->cpu_watch, daemon->rules,
                                      rc_policy_get_action_log (daemon->policy));
  daemon->slices = rc_slices_new (daemon->systemd, daemon->queue, daemon->rules);
  daemon->manager = rc_manager_new (daemon->registry, daemon->systemd, daemon->authority,
                                    daemon->rules, daemon->policy, daemon->queue,
                                    daemon->slices, daemon->power_watch);
  daemon->focus = rc_focus_tracker_new (daemon->connection, daemon->registry, daemon->policy);
  start_energy (daemon);
  rc_manager_set_focus (daemon->manager, daemon->focus);
  rc_guard_watch_serve (daemon->guard, RC_DBUS_RESOURCE_CONTROL (daemon->manager));
  if (!g_dbus_interface_skeleton_export (G_DBUS_INTERFACE_SKELETON (daemon->manager),
                                         daemon->connection, RC_DBUS_PATH, error))
    return FALSE;
  own_name (daemon);
  return TRUE;
}

/* Runs the dispose of the object at @object_ptr, if any, which cuts it
 * loose from the others (signals, calls in flight), then drops it. */
static void
dispose_and_clear (gpointer object_ptr)
{
  GObject **object = object_ptr;

  if (*object != NULL)
    g_object_run_dispose (*object);
  g_clear_object (object);
}

static void
stop (Daemon *daemon)
{
  g_clear_handle_id (&daemon->owner_id, g_bus_unown_name);
  if (daemon->manager != NULL)
    g_dbus_interface_skeleton_unexport (G_DBUS_INTERFACE_SKELETON (daemon->manager));
  g_clear_object (&daemon->manager);
  /* writes the history */
  dispose_and_clear (&daemon->energy);
  dispose_and_clear (&daemon->slices);
  dispose_and_clear (&daemon->focus);
  dispose_and_clear (&daemon->guard);
  dispose_and_clear (&daemon->policy);
  g_clear_object (&daemon->queue);
  g_clear_object (&daemon->focus_watch);
  /* cancels its calls */
  dispose_and_clear (&daemon->notifier);
  /* cancels their calls, which hold them */
  dispose_and_clear (&daemon->audio_watch);
  dispose_and_clear (&daemon->power_watch);
  g_clear_object (&daemon->rules);
  g_clear_object (&daemon->authority);
  g_clear_object (&daemon->memory_watch);
  g_clear_object (&daemon->cpu_watch);
  g_clear_object (&daemon->registry);
  g_clear_object (&daemon->systemd);
  g_clear_object (&daemon->connection);
  g_clear_pointer (&daemon->loop, g_main_loop_unref);
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  gboolean verbose = FALSE, version = FALSE, system_bus = FALSE, test_hooks = FALSE;
  Daemon daemon = { 0, };
  const GOptionEntry entries[] = {
    { "replace", 'r', 0, G_OPTION_ARG_NONE, &daemon.replace,
      "Replace an instance started with --replace, and be replaceable in turn", NULL },
    { "verbose", 'v', 0, G_OPTION_ARG_NONE, &verbose, "Print debug messages", NULL },
    { "version", 0, 0, G_OPTION_ARG_NONE, &version, "Print the version and exit", NULL },
    { "system", 0, 0, G_OPTION_ARG_NONE, &system_bus,
      "Run on the system bus (not supported yet)", NULL },
    /* Only for the project's tests, and never in the shipped units: the
     * variables it honours come from the user manager's environment, which
     * every process of the user can change. */
    { "test-hooks", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_NONE, &test_hooks,
      "Honour the tests' environment variables (see rc-test-hooks.h)", NULL },
    { NULL }
  };

  setlocale (LC_ALL, "");
  context = g_option_context_new ("- per-application resource control for the desktop");
  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      g_printerr ("resource-controld: %s\n", error->message);
      return 2;
    }
  if (version)
    {
      g_print ("resource-controld %s\n", RC_VERSION);
      return EXIT_SUCCESS;
    }
  if (system_bus)
    {
      g_printerr ("resource-controld: --system is not supported in this version: the daemon "
                  "runs as the desktop user on the session bus\n");
      return 2;
    }
  if (verbose)
    g_log_set_debug_enabled (TRUE);
  if (test_hooks)
    rc_test_hooks_enable ();

  rc_heap_tune ();
  rc_cgroup_raise_fd_limit ();
  daemon.loop = g_main_loop_new (NULL, FALSE);
  daemon.exit_status = EXIT_SUCCESS;
  g_unix_signal_add (SIGTERM, signal_cb, &daemon);
  g_unix_signal_add (SIGINT, signal_cb, &daemon);

  if (!start (&daemon, &error))
    {
      g_printerr ("resource-controld: %s\n", error->message);
      stop (&daemon);
      return EXIT_FAILURE;
    }
  g_main_loop_run (daemon.loop);
  stop (&daemon);
  return daemon.exit_status;
}
