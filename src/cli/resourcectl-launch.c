/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* resourcectl run and adopt: apps into units of their own, for desktops
 * that do not put them there. */
#include "resourcectl.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "rc-app-exec.h"
#include "rc-exec-line.h"
#include "rc-api-keys.h"
#include "rc-error.h"
#include "rc-names.h"
#include "rc-sd-bus.h"
#include "rc-proc-reader.h"
#include "rc-unit-name.h"

gboolean rcctl_opt_scope;
gboolean rcctl_opt_background;
char **rcctl_opt_set;
char *rcctl_opt_launcher;
char *rcctl_opt_app_id;
gboolean rcctl_opt_all;
gboolean rcctl_opt_yes;

/* What reaches the app of the caller's display session. */
static const char * const display_variables[] = {
  "WAYLAND_DISPLAY", "DISPLAY", "XAUTHORITY", "XDG_ACTIVATION_TOKEN", "DESKTOP_STARTUP_ID",
  "XDG_CURRENT_DESKTOP", "XDG_SESSION_TYPE",
};

static GVariant *
display_environment (void)
{
  g_autoptr(GPtrArray) vars = g_ptr_array_new_with_free_func (g_free);

  for (gsize i = 0; i < G_N_ELEMENTS (display_variables); i++)
    {
      const char *value = g_getenv (display_variables[i]);

      if (value != NULL)
        g_ptr_array_add (vars, g_strdup_printf ("%s=%s", display_variables[i], value));
    }
  return g_variant_new_strv ((const char * const *) vars->pdata, vars->len);
}

/* A command-line argument as a URI, as g_file_new_for_commandline_arg ()
 * reads it (a URI stays one, a path is taken from this folder), without
 * starting GIO's VFS, which `run` would pay for before its call. */
static char *
commandline_arg_uri (const char *arg,
                     GError    **error)
{
  const char *scheme = g_path_is_absolute (arg) ? NULL : g_uri_peek_scheme (arg);
  g_autofree char *path = NULL;

  if (scheme != NULL)
    return g_strdup (arg);
  path = g_canonicalize_filename (arg, NULL);
  return g_filename_to_uri (path, NULL, error);
}

gboolean
rcctl_parse_run (char        **args,
                 RcctlRequest *req,
                 GError      **error)
{
  g_auto(GVariantDict) options = G_VARIANT_DICT_INIT (NULL);
  g_autoptr(GPtrArray) uris = g_ptr_array_new_with_free_func (g_free);

  if (rcctl_opt_set != NULL)
    {
      GVariant *limits = rcctl_parse_limits (rcctl_opt_set, FALSE, error);

      if (limits == NULL)
        return FALSE;
      g_variant_dict_insert_value (&options, RC_OPTION_LIMITS, limits);
    }
  /* Files named relative to here, as a terminal user means them. */
  for (guint i = 1; args[i] != NULL; i++)
    {
      char *uri = commandline_arg_uri (args[i], error);

      if (uri == NULL)
        return FALSE;
      g_ptr_array_add (uris, uri);
    }
  g_ptr_array_add (uris, NULL);
  if (rcctl_opt_background)
    g_variant_dict_insert (&options, RC_OPTION_SLICE, "s", "background.slice");
  if (rcctl_opt_launcher != NULL)
    g_variant_dict_insert (&options, RC_OPTION_LAUNCHER, "s", rcctl_opt_launcher);
  if (rcctl_opt_scope)
    {
      /* As `systemd-run --scope`: this process joins the scope and becomes
       * the app, with its own environment and folder. */
      g_variant_dict_insert (&options, RC_OPTION_KIND, "s", RC_KIND_SCOPE);
    }
  else
    {
      g_autofree char *cwd = g_get_current_dir ();

      g_variant_dict_insert_value (&options, RC_OPTION_ENVIRONMENT, display_environment ());
      g_variant_dict_insert (&options, RC_OPTION_WORKING_DIRECTORY, "s", cwd);
    }
  req->params = g_variant_ref_sink (g_variant_new ("(s^as@a{sv})", args[0],
                                                   (char **) uris->pdata,
                                                   g_variant_dict_end (&options)));
  return TRUE;
}

/* Launch over sd-bus: `run` is the one command whose start-up the user
 * waits through before the app appears, and sd-bus sends its handshake in
 * one go where GDBus waits for the bus at each step. */
typedef struct {
  sd_bus      *bus;
  RcSdBusCall  call;
  GSubprocess *agent;
} LaunchCall;

static void
launch_call_clear (LaunchCall *launch)
{
  if (launch->agent != NULL)
    g_subprocess_force_exit (launch->agent);
  g_clear_object (&launch->agent);
  rc_sd_bus_call_clear (&launch->call);
  g_clear_pointer (&launch->bus, sd_bus_flush_close_unref);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (LaunchCall, launch_call_clear)

/* Sends Launch(@params) on a new connection; returns once it has left. */
static gboolean
launch_send (LaunchCall *launch,
             GVariant   *params,
             GError    **error)
{
  g_autoptr(sd_bus_message) message = NULL;
  int r;

  r = sd_bus_open_user (&launch->bus);
  if (r < 0)
    {
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (-r),
                   "cannot connect to the session bus: %s", g_strerror (-r));
      return FALSE;
    }
  r = sd_bus_message_new_method_call (launch->bus, &message, RC_DBUS_NAME, RC_DBUS_PATH,
                                      RC_DBUS_INTERFACE, "Launch");
  /* polkit may ask for a password (through the agent, in a terminal) */
  if (r >= 0)
    r = sd_bus_message_set_allow_interactive_authorization (message, TRUE);
  if (r >= 0)
    r = rc_sd_bus_append_args (message, params);
  if (r >= 0)
    {
      launch->agent = rcctl_start_tty_agent ();
      r = rc_sd_bus_call_send (launch->bus, message, &launch->call);
    }
  if (r < 0)
    {
      *error = rc_sd_bus_error_to_gerror (NULL, r);
      return FALSE;
    }
  return TRUE;
}

/* The unit of Launch's reply, or NULL and @error. */
static char *
launch_wait (LaunchCall *launch,
             GError    **error)
{
  g_autoptr(sd_bus_message) reply = NULL;
  sd_bus_error bus_error = SD_BUS_ERROR_NULL;
  const char *unit = NULL;
  int r;

  r = rc_sd_bus_call_wait (launch->bus, &launch->call, &bus_error, &reply);
  if (r >= 0)
    r = sd_bus_message_read (reply, "s", &unit);
  if (r < 0)
    {
      *error = rc_sd_bus_error_to_gerror (&bus_error, r);
      sd_bus_error_free (&bus_error);
      return NULL;
    }
  return g_strdup (unit);
}

/* What run --scope's process runs, from the desktop file the daemon checked
 * and gave @unit as its SourcePath: from the unit's transient file, or
 * systemd when there is none. Read on its own, it costs a few system calls,
 * where looking the id up would make this new process read and watch every
 * applications folder (tens of milliseconds on a slow machine, on the way
 * to the app). */
static gboolean
scope_argv (LaunchCall         *launch,
            const char         *unit,
            const char         *app_id,
            const char * const *uris,
            char             ***out_argv,
            GError            **error)
{
  sd_bus_error bus_error = SD_BUS_ERROR_NULL;
  g_autofree char *path = NULL;
  g_autofree char *desktop_file = NULL;
  int r = 0;

  if (!rc_unit_transient_source_path (unit, &desktop_file) || *desktop_file == '\0')
    {
      g_clear_pointer (&desktop_file, g_free);
      r = sd_bus_path_encode (SYSTEMD_DBUS_PATH "/unit", unit, &path);
      if (r >= 0)
        r = sd_bus_get_property_string (launch->bus, SYSTEMD_DBUS_NAME, path,
                                        SYSTEMD_UNIT_INTERFACE, "SourcePath", &bus_error,
                                        &desktop_file);
    }
  if (r < 0)
    {
      *error = rc_sd_bus_error_to_gerror (&bus_error, r);
      sd_bus_error_free (&bus_error);
      g_prefix_error (error, "Cannot read what %s is to run: ", unit);
      return FALSE;
    }
  return rc_exec_for_desktop_file (app_id, desktop_file, uris, out_argv, error);
}

/* run --scope: the call comes from this process, which the scope takes in
 * (CallerPid, as systemd-run --scope joins its scope); once systemd has it
 * there, it works out what to run from the desktop file the daemon checked
 * and starts the app as its child, in the scope from birth, which stays
 * when resourcectl exits. A failed call or a refusal starts nothing. */
static int
run_in_scope (GVariant *params)
{
  g_autoptr(GVariant) app_id = g_variant_get_child_value (params, 0);
  g_autoptr(GVariant) uris = g_variant_get_child_value (params, 1);
  g_autoptr(GVariant) dict = g_variant_get_child_value (params, 2);
  g_auto(GVariantDict) options = G_VARIANT_DICT_INIT (dict);
  g_auto(LaunchCall) launch = { NULL, };
  g_autoptr(GVariant) own = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree const char **uri_list = g_variant_get_strv (uris, NULL);
  const char *id = g_variant_get_string (app_id, NULL);
  g_auto(GStrv) argv = NULL;
  g_auto(GStrv) env = NULL;
  g_autofree char *unit = NULL;

  g_variant_dict_insert (&options, RC_OPTION_CALLER_PID, "u", (guint32) getpid ());
  own = g_variant_ref_sink (g_variant_new ("(@s@as@a{sv})", app_id, uris,
                                           g_variant_dict_end (&options)));
  /* a scope it got ends empty as this process exits */
  if (!launch_send (&launch, own, &error) || (unit = launch_wait (&launch, &error)) == NULL ||
      !scope_argv (&launch, unit, id, uri_list, &argv, &error))
    return rcctl_report_error (error);
  launch_call_clear (&launch);
  env = g_get_environ ();
  if (!rc_app_spawn (id, (const char * const *) argv, env, &error))
    {
      g_printerr ("resourcectl: %s (%s is empty once resourcectl exits, and goes away)\n",
                  error->message, unit);
      return EXIT_FAILURE;
    }
  g_print ("%s\n", unit);
  return EXIT_SUCCESS;
}

int
rcctl_run (const RcctlRequest *req)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *unit = NULL;

  if (!rcctl_opt_scope)
    {
      g_auto(LaunchCall) launch = { NULL, };

      if (!launch_send (&launch, req->params, &error) ||
          (unit = launch_wait (&launch, &error)) == NULL)
        return rcctl_report_error (error);
      g_print ("%s\n", unit);
      return EXIT_SUCCESS;
    }
  return run_in_scope (req->params);
}

/* ---- adopt ---------------------------------------------------------------- */

static GArray *adopt_pids;

static GVariant *
adopt_options (const char *app_id)
{
  g_auto(GVariantDict) options = G_VARIANT_DICT_INIT (NULL);

  if (app_id != NULL)
    g_variant_dict_insert (&options, RC_OPTION_APP_ID, "s", app_id);
  if (rcctl_opt_launcher != NULL)
    g_variant_dict_insert (&options, RC_OPTION_LAUNCHER, "s", rcctl_opt_launcher);
  return g_variant_dict_end (&options);
}

gboolean
rcctl_parse_adopt (char        **args,
                   RcctlRequest *req,
                   GError      **error)
{
  if (rcctl_opt_all == (args[0] != NULL))
    {
      g_set_error_literal (error, RC_ERROR, RC_ERROR_INVALID_ARGUMENT,
                           "adopt takes PID… or --all");
      return FALSE;
    }
  if (rcctl_opt_all && rcctl_opt_app_id != NULL)
    {
      g_set_error_literal (error, RC_ERROR, RC_ERROR_INVALID_ARGUMENT,
                           "--app-id names the app of the PIDs given; --all finds each app");
      return FALSE;
    }
  adopt_pids = g_array_new (FALSE, FALSE, sizeof (guint32));
  for (guint i = 0; args[i] != NULL; i++)
    {
      guint64 pid;

      if (!g_ascii_string_to_unsigned (args[i], 10, 1, G_MAXUINT32, &pid, NULL))
        {
          g_set_error (error, RC_ERROR, RC_ERROR_INVALID_ARGUMENT, "invalid process id \"%s\"",
                       args[i]);
          return FALSE;
        }
      g_array_append_vals (adopt_pids, &(guint32) { (guint32) pid }, 1);
    }
  return TRUE;
}

static gboolean
adopt (RcDBusResourceControl *proxy,
       const guint32         *pids,
       guint                  n_pids,
       const char            *app_id,
       char                 **out_unit,
       GError               **error)
{
  GVariant *params = g_variant_new ("(@au@a{sv})",
                                    g_variant_new_fixed_array (G_VARIANT_TYPE_UINT32, pids,
                                                               n_pids, sizeof (guint32)),
                                    adopt_options (app_id));
  g_autoptr(GVariant) reply = NULL;

  /* polkit may ask for a password first. */
  reply = g_dbus_proxy_call_sync (G_DBUS_PROXY (proxy), "Adopt", params,
                                  G_DBUS_CALL_FLAGS_ALLOW_INTERACTIVE_AUTHORIZATION, G_MAXINT,
                                  NULL, error);
  if (reply == NULL)
    return FALSE;
  g_variant_get (reply, "(s)", out_unit);
  return TRUE;
}

/* One app that adopt --all found: the processes named (each moves with the
 * processes below it) and everything that moves. */
typedef struct {
  char   *app_id;
  char   *how;
  GArray *roots;
  GArray *moving;
} Group;

static void
group_free (Group *group)
{
  g_free (group->app_id);
  g_array_unref (group->roots);
  g_array_unref (group->moving);
  g_free (group);
}

static RcProc *
find_proc (GPtrArray *all,
           guint32    pid)
{
  for (guint i = 0; i < all->len; i++)
    if (((RcProc *) g_ptr_array_index (all, i))->pid == pid)
      return g_ptr_array_index (all, i);
  return NULL;
}

static gboolean
in_app_unit (const RcProc *proc)
{
  const char *slash = strrchr (proc->cgroup, '/');
  g_autoptr(RcUnitName) parsed = slash != NULL ? rc_unit_name_parse (slash + 1) : NULL;

  return parsed != NULL;
}

static void
print_pids (GPtrArray  *all,
            GArray     *pids,
            const char *indent)
{
  g_autoptr(GString) line = g_string_new (indent);

  for (guint i = 0; i < pids->len; i++)
    {
      RcProc *proc = find_proc (all, g_array_index (pids, guint32, i));

      if (line->len > 60)
        {
          g_print ("%s\n", line->str);
          g_string_assign (line, indent);
        }
      g_string_append_printf (line, "%s%u (%s)", line->len > strlen (indent) ? ", " : "",
                              g_array_index (pids, guint32, i), proc != NULL ? proc->comm : "?");
    }
  if (line->len > strlen (indent))
    g_print ("%s\n", line->str);
}

/* Every process of the user outside app units, grouped by the app it is. */
static GPtrArray *
plan_all (GPtrArray *all,
          GArray    *staying)
{
  GPtrArray *groups = g_ptr_array_new_with_free_func ((GDestroyNotify) group_free);
  g_autoptr(GHashTable) index = rc_exe_index_new (NULL);
  g_autoptr(GHashTable) detected = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  g_autoptr(GHashTable) covered = g_hash_table_new (NULL, NULL);
  guint32 uid = getuid ();

  for (guint i = 0; i < all->len; i++)
    {
      RcProc *proc = g_ptr_array_index (all, i);
      const char *how = NULL;
      char *app_id;

      if (proc->uid != uid || proc->kernel_thread || proc->pid == (guint32) getpid () ||
          in_app_unit (proc))
        continue;
      app_id = rc_proc_detect_app_id (proc->pid, index, &how);
      g_hash_table_insert (detected, GUINT_TO_POINTER (proc->pid),
                           app_id != NULL ? app_id : g_strdup (""));
    }
  for (guint i = 0; i < all->len; i++)
    {
      RcProc *proc = g_ptr_array_index (all, i);
      const char *app_id = g_hash_table_lookup (detected, GUINT_TO_POINTER (proc->pid));
      const char *parent_app = g_hash_table_lookup (detected, GUINT_TO_POINTER (proc->ppid));
      RcProc *parent = find_proc (all, proc->ppid);
      Group *group = NULL;

      if (app_id == NULL || *app_id == '\0')
        continue;
      /* A child of the same app in the same cgroup moves with its parent. */
      if (parent != NULL && g_strcmp0 (parent_app, app_id) == 0 &&
          g_str_equal (parent->cgroup, proc->cgroup))
        continue;
      for (guint j = 0; j < groups->len && group == NULL; j++)
        if (g_str_equal (((Group *) g_ptr_array_index (groups, j))->app_id, app_id))
          group = g_ptr_array_index (groups, j);
      if (group == NULL)
        {
          group = g_new0 (Group, 1);
          group->app_id = g_strdup (app_id);
          group->roots = g_array_new (FALSE, FALSE, sizeof (guint32));
          group->moving = g_array_new (FALSE, FALSE, sizeof (guint32));
          g_ptr_array_add (groups, group);
        }
      g_array_append_val (group->roots, proc->pid);
      {
        g_autoptr(GArray) tree = rc_proc_tree (all, proc->pid);

        for (guint j = 0; j < tree->len; j++)
          {
            guint32 pid = g_array_index (tree, guint32, j);

            if (g_hash_table_add (covered, GUINT_TO_POINTER (pid)))
              g_array_append_val (group->moving, pid);
          }
      }
    }
  for (guint i = 0; i < all->len; i++)
    {
      RcProc *proc = g_ptr_array_index (all, i);

      if (g_hash_table_contains (detected, GUINT_TO_POINTER (proc->pid)) &&
          !g_hash_table_contains (covered, GUINT_TO_POINTER (proc->pid)))
        g_array_append_val (staying, proc->pid);
    }
  return groups;
}

static gboolean
confirm (void)
{
  char answer[16] = "";

  g_print ("Go ahead? [y/N] ");
  fflush (stdout);
  if (fgets (answer, sizeof answer, stdin) == NULL)
    return FALSE;
  return answer[0] == 'y' || answer[0] == 'Y';
}

static int
adopt_all (RcDBusResourceControl *proxy)
{
  g_autoptr(GPtrArray) all = rc_proc_list ();
  g_autoptr(GArray) staying = g_array_new (FALSE, FALSE, sizeof (guint32));
  g_autoptr(GPtrArray) groups = plan_all (all, staying);
  int status = EXIT_SUCCESS;

  if (groups->len == 0)
    g_print ("No app runs outside its own unit: nothing to adopt.\n");
  else
    g_print ("Will move into a scope of its own:\n");
  for (guint i = 0; i < groups->len; i++)
    {
      Group *group = g_ptr_array_index (groups, i);

      g_print ("  %s\n", group->app_id);
      print_pids (all, group->moving, "    ");
    }
  if (staying->len > 0)
    {
      g_print ("Will stay where they are (no app found for them):\n");
      print_pids (all, staying, "    ");
    }
  if (groups->len == 0)
    return EXIT_SUCCESS;
  if (!rcctl_opt_yes && !isatty (STDIN_FILENO))
    {
      g_printerr ("resourcectl: not asking without a terminal; pass --yes to go ahead\n");
      return RCCTL_EXIT_USAGE;
    }
  if (!rcctl_opt_yes && !confirm ())
    {
      g_print ("Nothing was moved.\n");
      return EXIT_FAILURE;
    }
  for (guint i = 0; i < groups->len; i++)
    {
      Group *group = g_ptr_array_index (groups, i);
      g_autoptr(GError) error = NULL;
      g_autofree char *unit = NULL;

      if (adopt (proxy, (guint32 *) group->roots->data, group->roots->len, group->app_id, &unit,
                 &error))
        {
          g_print ("%s: %s\n", group->app_id, unit);
          continue;
        }
      g_dbus_error_strip_remote_error (error);
      g_printerr ("resourcectl: %s: %s\n", group->app_id, error->message);
      status = EXIT_FAILURE;
    }
  return status;
}

int
rcctl_run_adopt (RcDBusResourceControl *proxy)
{
  g_autoptr(GArray) pids = g_steal_pointer (&adopt_pids);
  g_autoptr(GError) error = NULL;
  g_autofree char *unit = NULL;

  if (rcctl_opt_all)
    return adopt_all (proxy);
  if (!adopt (proxy, (guint32 *) pids->data, pids->len, rcctl_opt_app_id, &unit, &error))
    {
      g_dbus_error_strip_remote_error (error);
      g_printerr ("resourcectl: %s\n", error->message);
      return EXIT_FAILURE;
    }
  g_print ("%s\n", unit);
  return EXIT_SUCCESS;
}
