/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* resourcectl: the command-line client. It speaks only the public D-Bus API
 * of resource-controld and shares nothing with the daemon beyond bus names,
 * the error domain and size parsing. */
#include "resourcectl.h"

#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <glib-unix.h>

#include "rc-names.h"

#define NOT_RUNNING "resource-controld is not running on the session bus"

gboolean rcctl_opt_json;
gboolean rcctl_opt_force;
gboolean rcctl_opt_none;
char *rcctl_opt_pid;

/* ---- Commands ---------------------------------------------------------- */

static const GOptionEntry json_options[] = {
  { "json", 0, 0, G_OPTION_ARG_NONE, &rcctl_opt_json, "Print a JSON array of app objects", NULL },
  G_OPTION_ENTRY_NULL
};

static const GOptionEntry why_options[] = {
  { "json", 0, 0, G_OPTION_ARG_NONE, &rcctl_opt_json,
    "Print a JSON array of objects: Unit, Key, Value, Source, Detail", NULL },
  G_OPTION_ENTRY_NULL
};

static const GOptionEntry ps_options[] = {
  { "json", 0, 0, G_OPTION_ARG_NONE, &rcctl_opt_json, "Print a JSON array of process objects", NULL },
  G_OPTION_ENTRY_NULL
};

static const GOptionEntry rule_json_options[] = {
  { "json", 0, 0, G_OPTION_ARG_NONE, &rcctl_opt_json,
    "Print a JSON object that maps each AppID to its rule", NULL },
  G_OPTION_ENTRY_NULL
};

static const GOptionEntry foreground_options[] = {
  { "none", 0, 0, G_OPTION_ARG_NONE, &rcctl_opt_none, "No app is in the foreground", NULL },
  { "pid", 0, 0, G_OPTION_ARG_STRING, &rcctl_opt_pid,
    "The app that holds this process is in the foreground", "PID" },
  G_OPTION_ENTRY_NULL
};

static const GOptionEntry force_options[] = {
  { "force", 'f', 0, G_OPTION_ARG_NONE, &rcctl_opt_force,
    "Apply a memory limit even below the app's current use (it may be killed)", NULL },
  G_OPTION_ENTRY_NULL
};

static const GOptionEntry run_options[] = {
  { "scope", 0, 0, G_OPTION_ARG_NONE, &rcctl_opt_scope,
    "Start it in a scope (app-rc-APP-RANDOM.scope) instead of a service", NULL },
  { "background", 0, 0, G_OPTION_ARG_NONE, &rcctl_opt_background,
    "Start it in background.slice, behind the apps in use", NULL },
  { "set", 0, 0, G_OPTION_ARG_STRING_ARRAY, &rcctl_opt_set,
    "A limit it has from its first moment (repeat for more)", "KEY=VALUE" },
  { "launcher", 0, 0, G_OPTION_ARG_STRING, &rcctl_opt_launcher,
    "Who launches, in the unit's name (default rc; e.g. sway)", "NAME" },
  G_OPTION_ENTRY_NULL
};

static const GOptionEntry adopt_options[] = {
  { "app-id", 0, 0, G_OPTION_ARG_STRING, &rcctl_opt_app_id,
    "The app the processes are, when it cannot be found out", "APP_ID" },
  { "all", 0, 0, G_OPTION_ARG_NONE, &rcctl_opt_all,
    "Every process of yours outside app units, grouped by app", NULL },
  { "yes", 'y', 0, G_OPTION_ARG_NONE, &rcctl_opt_yes, "With --all: do not ask first", NULL },
  { "launcher", 0, 0, G_OPTION_ARG_STRING, &rcctl_opt_launcher,
    "Who adopts, in the scope's name (default rc)", "NAME" },
  G_OPTION_ENTRY_NULL
};

#define LIMIT_KEYS_HELP \
  "Keys:\n" \
  "  CPUWeight=N, IOWeight=N         1..10000 (default 100)\n" \
  "  CPUQuota=PERCENT                of one CPU, e.g. 50% or 200%; 0 removes it\n" \
  "  MemoryLow, MemoryHigh, MemoryMax=SIZE   e.g. 512M, 1.5G, infinity\n" \
  "  TasksMax=N                      a number or infinity\n" \
  "  MemoryMin=SIZE                  memory never reclaimed (0 for none)\n" \
  "  MemorySwapMax=SIZE              swap it may use (0 for none, infinity)\n" \
  "  ManagedOOMPreference=avoid|omit|none   systemd-oomd kills others first, or\n" \
  "                                  never this app (only when it starts: run --set)\n" \
  "  ManagedOOMMemoryPressure=kill|auto, ManagedOOMMemoryPressureLimit=PERCENT\n" \
  "                                  systemd-oomd kills in it under memory pressure"

typedef struct {
  const char         *name;
  const char         *params;
  const char         *summary;
  const char         *help;         /* more text for "COMMAND --help", or NULL */
  const GOptionEntry *options;
  guint               min_args;
  guint               max_args;
  const char         *method;
  gboolean            writes;       /* needs polkit: may ask for a password */
  gboolean (*parse)(char **args, RcctlRequest *req, GError **error);
  int (*finish)(GVariant *apps);    /* prints the aa{sv} reply, or NULL */
  int (*run)(RcDBusResourceControl *proxy);   /* instead of one call */
  int (*call)(const RcctlRequest *req);       /* makes its one call itself */
} Command;

static const Command commands[] = {
  { "list", "", "List running apps", NULL, json_options, 0, 0,
    "ListAppRecords", FALSE, rcctl_parse_nothing, rcctl_finish_list, NULL },
  { "show", "APP", "Show every property of an app's instances", NULL, json_options, 1, 1,
    "GetApp", FALSE, rcctl_parse_app, rcctl_finish_show, NULL },
  { "set-weight", "APP WEIGHT", "Set the CPU weight (1..10000, default 100)", NULL, NULL, 2, 2,
    "SetWeight", TRUE, rcctl_parse_set_weight, NULL, NULL },
  { "set-memory-limit", "APP SIZE", "Limit memory (MemoryMax=SIZE, MemoryHigh a little below it)",
    "SIZE is bytes or a number with K, M, G or T (powers of 1024), e.g. 512M or 1.5G;\n"
    "\"infinity\" removes the limit.", force_options, 2, 2,
    "SetMemoryLimit", TRUE, rcctl_parse_set_memory_limit, NULL, NULL },
  { "set", "APP KEY=VALUE…", "Set several limits at once",
    LIMIT_KEYS_HELP, force_options, 2, G_MAXUINT,
    "SetLimits", TRUE, rcctl_parse_set, NULL, NULL },
  { "reset", "APP", "Reset every limit to the default", NULL, NULL, 1, 1,
    "ResetLimits", TRUE, rcctl_parse_app, NULL, NULL },
  { "freeze", "APP", "Freeze an app (stop its processes until thawed)", NULL, NULL, 1, 1,
    "Freeze", TRUE, rcctl_parse_app, NULL, NULL },
  { "thaw", "APP", "Thaw a frozen app", NULL, NULL, 1, 1,
    "Thaw", TRUE, rcctl_parse_app, NULL, NULL },
  { "run", "APP_ID [FILE|URI…]", "Start an app in a unit of its own",
    "APP_ID names a desktop file (org.gnome.Calculator for org.gnome.Calculator.desktop).\n"
    "It starts with your display (WAYLAND_DISPLAY, DISPLAY, …) and this folder, and\n"
    "with its rule's limits and those of --set from its first moment. Prints the\n"
    "unit's name.\n\n"
    LIMIT_KEYS_HELP, run_options, 1, G_MAXUINT,
    "Launch", TRUE, rcctl_parse_run, NULL, NULL, rcctl_run },
  { "adopt", "PID…|--all", "Move running apps into units of their own",
    "Each process moves with the processes it started. The app is found from\n"
    "GIO_LAUNCHED_DESKTOP_FILE, Flatpak's .flatpak-info or its program's desktop\n"
    "file; --app-id names it. --all lists what it will move, and what stays\n"
    "(a shell, a program with no desktop file), then asks.", adopt_options, 0, G_MAXUINT,
    "Adopt", TRUE, rcctl_parse_adopt, NULL, rcctl_run_adopt },
  { "which", "PID", "Show the app a process belongs to",
    "Prints the app's unit, AppID and name; a process in no app is NoSuchApp.", json_options, 1, 1,
    "GetAppByPid", FALSE, rcctl_parse_pid, rcctl_finish_which, NULL },
  { "ps", "APP", "List an app's processes", "PID, resident memory, CPU time and command line of\n"
    "each process of the app's instances, read when asked.", ps_options, 1, 1,
    "ListProcesses", FALSE, rcctl_parse_app, rcctl_finish_ps, NULL },
  { "slices", "", "Show the session, app and background slices",
    "session.slice holds the compositor and the shell, app.slice the apps,\n"
    "background.slice what may wait (indexers, backups).", json_options, 0, 0,
    "ListSlices", FALSE, rcctl_parse_nothing, rcctl_finish_slices, NULL },
  { "slice-set", "SLICE KEY=VALUE…", "Set limits of a slice",
    "SLICE is session.slice, app.slice or background.slice. The values last until\n"
    "your systemd restarts and win over the slice's rule ([Slice session] etc. in a\n"
    "rules file). polkit asks for your password by default.\n\n"
    LIMIT_KEYS_HELP, force_options, 2, G_MAXUINT,
    "SetSliceLimits", TRUE, rcctl_parse_set, NULL, NULL },
  { "status", "", "Show the focus source, the power state, a pause and the apps held for audio",
    "What the daemon follows: its version, whether freezing works here, where it\n"
    "learns which app has the focus, power-profiles-daemon's profile and UPower's\n"
    "battery state (which pick the \" @power-saver\" and \" @battery\" rules), whether\n"
    "its automation is paused (resourcectl pause) and until when, and the apps that\n"
    "play or record sound, which are never frozen in the background.",
    NULL, 0, 0, NULL, FALSE, rcctl_parse_nothing, NULL, rcctl_run_status },
  { "monitor", "", "Print app events until interrupted", NULL, NULL, 0, 0,
    NULL, FALSE, rcctl_parse_nothing, NULL, rcctl_run_monitor },
  { "top", "", "Show the apps' CPU and memory use live, busiest first",
    "One line per app: its instances (units) are added up, the CPU % of one\n"
    "refresh is the CPU time they used since the last one over the time between\n"
    "(100% = one CPU), memory is their MemoryCurrent, THR% the time they were\n"
    "throttled by CPUQuota; CPU-P, MEM-P and IO-P are the highest CPU, memory and\n"
    "IO pressure (%) of an instance, \"-\" while the daemon does not send them; W, shown\n"
    "while the daemon measures energy, their power over its last sample. The first\n"
    "frame comes after one interval. In a terminal the screen is redrawn; keys:\n"
    "q quits, c, m and n sort by CPU, memory and name. With --batch, or when the\n"
    "output is not a terminal, frames follow each other, separated by a blank line.",
    rcctl_top_options, 0, 0, NULL, FALSE, rcctl_parse_top, NULL, rcctl_run_top },
  { "log", "[APP]", "Show the changes the daemon made by itself, and why",
    "Each change of the daemon's own: a rule applied, the boost moved, a power\n"
    "group taken or given back, a freeze or thaw in the background, an audio hold,\n"
    "a guard or memory ladder step (kinds guard, ladder), a desktop notification;\n"
    "the time, the unit, the kind, the limit with its old\n"
    "and new value, and the reason. Values set with resourcectl or another client\n"
    "are not listed. The daemon keeps the last 1024 changes; the journal has them all.",
    rcctl_log_options, 0, 1, NULL, FALSE, rcctl_parse_log, NULL, rcctl_run_log },
  { "why", "APP", "Show each limit of an app now and where its value comes from",
    "One line per limit of each instance, KEY=VALUE as systemctl show prints it,\n"
    "then the source: boost (and who moved the focus), api (set with resourcectl or\n"
    "another client), rule (the rules file and group), power (a \" @battery\" or\n"
    "\" @power-saver\" group in force), audio-hold (kept up while it plays sound),\n"
    "freeze (frozen in the background by its rule), guard or ladder (lowered, or\n"
    "frozen, while CPU or memory is short), default (the fair-by-default\n"
    "drop-in or systemd's default), outside (set by someone else, e.g. systemctl).\n"
    "The boost wins over a value set through the API, which wins over the rule.",
    why_options, 1, 1,
    "GetLimitSources", FALSE, rcctl_parse_app, rcctl_finish_why, NULL },
  { "pause", "", "Pause the automatic changes and take them back",
    "No rule, boost, power group, freezing in the background or audio hold while\n"
    "paused; each one in force is taken back (the log lists them). Limits set with\n"
    "resourcectl stay. Without --for the pause lasts until \"resourcectl resume\";\n"
    "with it, it ends by itself, also if the daemon restarts meanwhile (30 days at most).",
    rcctl_pause_options, 0, 0,
    "Pause", TRUE, rcctl_parse_pause, NULL, NULL },
  { "resume", "", "End a pause: rules, boost and power groups apply again", NULL, NULL, 0, 0,
    "Resume", TRUE, rcctl_parse_nothing, NULL, NULL },
  { "energy", "", "Show what each app used of the battery, as a phone does",
    "Each app's share of the energy measured (UPower's battery while it discharges,\n"
    "or the RAPL counters where you can read them), shared out by CPU time, with\n"
    "what it used in the foreground (it had the focus) and in the background; the\n"
    "rest is the system's. The daemon keeps 7 days by hour. GPU, display and\n"
    "memory-bound work are not seen per app: see resourcectl(1).",
    rcctl_energy_options, 0, 0, NULL, FALSE, rcctl_parse_energy, NULL, rcctl_run_energy },
  { "rule list", "", "List the rules (limits kept for an AppID)",
    "Rules come from /etc/resource-control/rules.d/ and then\n"
    "$XDG_CONFIG_HOME/resource-control/rules.d/; a later rule for an AppID wins.",
    rule_json_options, 0, 0,
    "ListRules", FALSE, rcctl_parse_nothing, rcctl_finish_rule_list, NULL },
  { "rule set", "APP_ID KEY=VALUE…", "Make these limits the rule of an AppID",
    "APP_ID is a desktop AppID such as org.gnome.Calculator, not a unit name.\n"
    "The rule replaces your earlier rule for it, applies to its running instances\n"
    "at once and to later ones as they start.\n\n"
    LIMIT_KEYS_HELP "\n"
    "  FreezeWhenInactiveSec=N         freeze an instance after N seconds in the\n"
    "                                  background, thaw it when focused (1..86400)",
    NULL, 2, G_MAXUINT,
    "SetRule", TRUE, rcctl_parse_rule_set, NULL, NULL },
  { "rule remove", "APP_ID", "Remove your rule for an AppID",
    "Running instances go back to the system's rule, if there is one, or to the\n"
    "defaults. A rule in the system folder can only be overridden, not removed.", NULL, 1, 1,
    "RemoveRule", TRUE, rcctl_parse_app, NULL, NULL },
  { "foreground", "APP|--none|--pid PID", "Boost the app the user is working with",
    "A compositor or shell tells the daemon which app has the focus: its instances\n"
    "get the boost (CPUWeight 300 by default), the previous foreground app gets\n"
    "back what it had. \"--none\" (or \"\") means no app is in the foreground.",
    foreground_options, 0, 1,
    "SetForegroundApp", TRUE, rcctl_parse_foreground, NULL, NULL },
};

static const char app_help[] =
  "APP is a unit name (one instance, e.g. app-gnome-org.gnome.Calculator-4711.scope)\n"
  "or a desktop AppID (every running instance, e.g. org.gnome.Calculator).";

static int usage_error (const Command *cmd,
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
  return RCCTL_EXIT_USAGE;
}

int
rcctl_report_error (GError *error)
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

static GDBusConnection *
connect_to_bus (void)
{
  g_autoptr(GError) error = NULL;
  GDBusConnection *bus = g_bus_get_sync (G_BUS_TYPE_SESSION, NULL, &error);

  if (bus == NULL)
    {
      g_printerr ("resourcectl: cannot connect to the session bus: %s\n", error->message);
      return NULL;
    }
  /* A lost bus is reported, not answered with SIGTERM. */
  g_dbus_connection_set_exit_on_close (bus, FALSE);
  return bus;
}

static RcDBusResourceControl *
connect_to_daemon (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GDBusConnection) bus = connect_to_bus ();
  g_autoptr(RcDBusResourceControl) proxy = NULL;
  g_autofree char *owner = NULL;

  if (bus == NULL)
    return NULL;

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
GSubprocess *
rcctl_start_tty_agent (void)
{
  g_autoptr(GSubprocessLauncher) launcher = NULL;
  g_autofree char *program = NULL;
  g_autofree char *pid = NULL;
  GSubprocess *agent;
  int fds[2];
  char byte;

  if (!isatty (STDIN_FILENO))
    return NULL;
  program = g_find_program_in_path ("pkttyagent");
  if (program == NULL || !g_unix_open_pipe (fds, FD_CLOEXEC, NULL))
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
call_daemon (const Command      *cmd,
             const RcctlRequest *req)
{
  g_autoptr(GDBusConnection) bus = NULL;
  g_autoptr(GSubprocess) agent = NULL;
  g_autoptr(GVariant) reply = NULL;
  g_autoptr(GVariant) apps = NULL;
  g_autoptr(GError) error = NULL;

  /* status, monitor and the like keep a proxy, its properties and signals */
  if (cmd->run != NULL)
    {
      g_autoptr(RcDBusResourceControl) proxy = connect_to_daemon ();

      return proxy != NULL ? cmd->run (proxy) : EXIT_FAILURE;
    }
  if (cmd->call != NULL)
    return cmd->call (req);
  /* A single call needs no proxy: no round trip before it. The bus starts
   * the daemon if it is installed; if not, the call's ServiceUnknown says
   * that it is not running. */
  bus = connect_to_bus ();
  if (bus == NULL)
    return EXIT_FAILURE;
  if (cmd->writes)
    agent = rcctl_start_tty_agent ();
  /* Writes may wait on the user typing a password into a polkit dialog. */
  reply = g_dbus_connection_call_sync (bus, RC_DBUS_NAME, RC_DBUS_PATH, RC_DBUS_INTERFACE,
                                       req->method, req->params, NULL,
                                       cmd->writes ? G_DBUS_CALL_FLAGS_ALLOW_INTERACTIVE_AUTHORIZATION
                                                   : G_DBUS_CALL_FLAGS_NONE,
                                       cmd->writes ? G_MAXINT : -1, NULL, &error);
  if (agent != NULL)
    g_subprocess_force_exit (agent);
  if (reply == NULL)
    return rcctl_report_error (error);
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
  RcctlRequest req = { cmd->method, NULL };
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
