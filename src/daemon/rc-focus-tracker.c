/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "rc-focus-tracker.h"
#include "rc-subscription.h"
#include "rc-focus-hyprland.h"
#include "rc-focus-sway.h"
#include "rc-focus-x11.h"
#include "rc-names.h"
#include "rc-systemd-bus.h"

#include <string.h>

/* A source that closes is tried again this often, waiting 1, 2, 4 … s. */
#define MAX_RETRIES 5

struct _RcFocusTracker {
  GObject          parent_instance;
  GDBusConnection *connection;
  RcRegistry      *registry;
  RcPolicy        *policy;
  GCancellable    *cancellable;
  guint            environment_id;
  guint            job_removed_id;
  guint            reloading_id;
  gboolean         reading;        /* a Get of the environment is in flight */
  gboolean         read_again;     /* and it may have changed since it was sent */
  GDBusConnection *monitor;        /* sees the calls that change the environment */
  guint            monitor_filter_id;
  char           **environment;
  guint            kwin_watch_id;
  char            *kwin_owner;     /* org.kde.KWin's owner's unique name, while it has one */
  char            *kind;       /* the source picked from the environment */
  char            *address;
  RcFocusSource   *source;
  guint            retries;
  guint            retry_id;
  guint32          unresolved_pid; /* focused before its app was listed */
};

G_DEFINE_TYPE (RcFocusTracker, rc_focus_tracker, G_TYPE_OBJECT);

enum { PROP_0, PROP_SOURCE };

static gboolean
desktop_is (const char * const *environment,
            const char         *desktop)
{
  const char *value = g_environ_getenv ((char **) environment, "XDG_CURRENT_DESKTOP");
  g_auto(GStrv) desktops = value != NULL ? g_strsplit (value, ":", -1) : NULL;

  return desktops != NULL && g_strv_contains ((const char * const *) desktops, desktop);
}

const char *
rc_focus_tracker_pick_source (const char * const *environment,
                              gboolean            kwin_running,
                              const char        **out_address)
{
  static const struct {
    const char *variable, *kind;
  } sockets[] = {
    { "HYPRLAND_INSTANCE_SIGNATURE", "hyprland" },
    { "SWAYSOCK", "sway" },
    { "DISPLAY", "x11" },
  };
  *out_address = NULL;
  if (desktop_is (environment, "GNOME"))
    return "gnome";
  /* Any process of the user can own org.kde.KWin or call as its owner:
   * the name speaks for the desktop only where the session is Plasma. */
  if (kwin_running && desktop_is (environment, "KDE"))
    return "kwin";
  for (gsize i = 0; i < G_N_ELEMENTS (sockets); i++)
    {
      const char *value = g_environ_getenv ((char **) environment, sockets[i].variable);

      if (value != NULL && *value != '\0')
        {
          *out_address = value;
          return sockets[i].kind;
        }
    }
  return "none";
}

const char *
rc_focus_tracker_get_source (RcFocusTracker *self)
{
  if (self->source != NULL)
    return rc_focus_source_get_name (self->source);
  return self->kind != NULL && g_strv_contains ((const char * const[]) { "gnome", "kwin", NULL },
                                                self->kind) ? self->kind : "none";
}

static void
boost (RcFocusTracker *self,
       RcApp          *app,
       guint32         pid)
{
  g_autoptr(GPtrArray) apps = g_ptr_array_new ();

  self->unresolved_pid = 0;
  g_debug ("Focus: %s (process %u)", app->unit, pid);
  g_ptr_array_add (apps, app);
  rc_policy_set_foreground (self->policy, apps, rc_focus_tracker_get_source (self));
}

/* The app of @pid from its cgroup, as GetAppByPid finds it. */
static void
focus_app (RcFocusTracker *self,
           guint32         pid)
{
  RcApp *app = rc_registry_lookup_pid (self->registry, pid);

  if (app != NULL && rc_app_is_controllable_slice (app->slice))
    {
      boost (self, app, pid);
      return;
    }
  /* maybe an app whose unit is not listed yet: tried again when it is */
  self->unresolved_pid = pid;
  g_debug ("Focus: process %u is in no app; the boost stays", pid);
}

static void
app_added_cb (RcRegistry     *registry,
              RcApp          *app,
              RcFocusTracker *self)
{
  if (self->unresolved_pid != 0)
    focus_app (self, self->unresolved_pid);
}

static void
source_focused_cb (RcFocusSource  *source,
                   guint32         pid,
                   RcFocusTracker *self)
{
  self->retries = 0;
  focus_app (self, pid);
}

static void
notify_source (RcFocusTracker *self)
{
  g_object_notify (G_OBJECT (self), "source");
}

static void
drop_source (RcFocusTracker *self)
{
  if (self->source == NULL)
    return;
  g_signal_handlers_disconnect_by_data (self->source, self);
  g_object_run_dispose (G_OBJECT (self->source));
  g_clear_object (&self->source);
}

static void connect_source (RcFocusTracker *self);

static gboolean
retry_cb (gpointer user_data)
{
  RcFocusTracker *self = user_data;

  self->retry_id = 0;
  connect_source (self);
  return G_SOURCE_REMOVE;
}

static void
source_closed_cb (RcFocusSource  *source,
                  const char     *why,
                  RcFocusTracker *self)
{
  g_message ("Focus from %s ended: %s", rc_focus_source_get_name (source), why);
  drop_source (self);
  notify_source (self);
  if (self->retries < MAX_RETRIES)
    self->retry_id = g_timeout_add_seconds (1u << self->retries++, retry_cb, self);
  else
    g_message ("Focus: no source until the session's environment changes");
}

static void
source_renamed_cb (RcFocusSource  *source,
                   GParamSpec     *pspec,
                   RcFocusTracker *self)
{
  notify_source (self);
}

static void
connect_source (RcFocusTracker *self)
{
  drop_source (self);
  if (self->address == NULL)
    return;
  if (g_str_equal (self->kind, "hyprland"))
    self->source = rc_focus_hyprland_new (self->address);
  else if (g_str_equal (self->kind, "sway"))
    self->source = rc_focus_sway_new (self->address);
  else
    self->source = rc_focus_x11_new (self->address);
  g_signal_connect (self->source, "focused", G_CALLBACK (source_focused_cb), self);
  g_signal_connect (self->source, "closed", G_CALLBACK (source_closed_cb), self);
  g_signal_connect (self->source, "notify::name", G_CALLBACK (source_renamed_cb), self);
  rc_focus_source_start (self->source);
}

/* The source that the session's environment and KWin's presence name now;
 * a change of either picks again. */
static void
pick_source (RcFocusTracker *self)
{
  const char *address;
  const char *kind = rc_focus_tracker_pick_source ((const char * const *) self->environment,
                                                   self->kwin_owner != NULL, &address);

  if (g_strcmp0 (kind, self->kind) == 0 && g_strcmp0 (address, self->address) == 0)
    return;
  g_debug ("Focus: the session's environment names %s %s", kind, address != NULL ? address : "");
  g_free (self->kind);
  g_free (self->address);
  self->kind = g_strdup (kind);
  self->address = g_strdup (address);
  self->retries = 0;
  g_clear_handle_id (&self->retry_id, g_source_remove);
  connect_source (self);
  notify_source (self);
}

/* The session's environment is (now) @environment. */
static void
set_environment (RcFocusTracker *self,
                 char          **environment)
{
  g_strfreev (self->environment);
  self->environment = environment;
  pick_source (self);
}

static void read_environment (RcFocusTracker *self);

static void
environment_cb (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  g_autoptr(GVariant) reply = NULL;
  g_autoptr(GVariant) value = NULL;
  g_autoptr(GError) error = NULL;

  RcFocusTracker *self = user_data;

  reply = g_dbus_connection_call_finish (G_DBUS_CONNECTION (object), result, &error);
  /* cancelled: @self is being disposed */
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  self->reading = FALSE;
  if (reply == NULL)
    g_debug ("Focus: the user manager's environment is unknown (%s); using ours",
             error->message);
  else
    {
      g_variant_get (reply, "(v)", &value);
      if (g_variant_is_of_type (value, G_VARIANT_TYPE_STRING_ARRAY))
        set_environment (self, g_variant_dup_strv (value, NULL));
    }
  if (self->read_again)
    {
      self->read_again = FALSE;
      read_environment (self);
    }
}

/* One Get at a time: what asks for another while one is in flight gets one
 * more after it, however many asked. */
static void
read_environment (RcFocusTracker *self)
{
  if (self->reading)
    {
      self->read_again = TRUE;
      return;
    }
  self->reading = TRUE;
  g_dbus_connection_call (self->connection, SYSTEMD_DBUS_NAME, SYSTEMD_DBUS_PATH,
                          DBUS_PROPERTIES_INTERFACE, "Get",
                          g_variant_new ("(ss)", SYSTEMD_MANAGER_INTERFACE, "Environment"),
                          G_VARIANT_TYPE ("(v)"), G_DBUS_CALL_FLAGS_NO_AUTO_START, 25000,
                          self->cancellable, environment_cb, self);
}

static void
manager_properties_changed_cb (GDBusConnection *connection,
                               const char      *sender,
                               const char      *path,
                               const char      *interface,
                               const char      *signal,
                               GVariant        *parameters,
                               gpointer         user_data)
{
  RcFocusTracker *self = user_data;
  g_autoptr(GVariant) changed = NULL;
  g_autoptr(GVariant) environment = NULL;
  g_autofree const char **invalidated = NULL;

  if (!g_variant_is_of_type (parameters, G_VARIANT_TYPE ("(sa{sv}as)")))
    return;
  g_variant_get (parameters, "(s@a{sv}^a&s)", NULL, &changed, &invalidated);
  environment = g_variant_lookup_value (changed, "Environment", G_VARIANT_TYPE_STRING_ARRAY);
  if (environment != NULL)
    set_environment (self, g_variant_dup_strv (environment, NULL));
  else if (g_strv_contains (invalidated, "Environment"))
    read_environment (self);
}

/* `systemctl --user import-environment`, which sway's, i3's and Hyprland's
 * configs run, reaches the manager over its private socket: no call on the
 * bus to see. What such a config does next is start its session target
 * (sway-session.target, graphical-session.target, …), whose jobs end on the
 * bus (JobRemoved, sent to subscribers, as the registry is), and a
 * daemon-reload runs the environment generators again (Reloading false):
 * after either the environment is read again, a burst costing a read or
 * two. */
static void
manager_job_removed_cb (GDBusConnection *connection,
                        const char      *sender,
                        const char      *path,
                        const char      *interface,
                        const char      *signal,
                        GVariant        *parameters,
                        gpointer         user_data)
{
  const char *unit;

  if (!g_variant_is_of_type (parameters, G_VARIANT_TYPE ("(uoss)")))
    return;
  g_variant_get (parameters, "(u&o&s&s)", NULL, NULL, &unit, NULL);
  if (g_str_has_suffix (unit, ".target"))
    read_environment (user_data);
}

static void
manager_reloading_cb (GDBusConnection *connection,
                      const char      *sender,
                      const char      *path,
                      const char      *interface,
                      const char      *signal,
                      GVariant        *parameters,
                      gpointer         user_data)
{
  gboolean active;

  if (!g_variant_is_of_type (parameters, G_VARIANT_TYPE ("(b)")))
    return;
  g_variant_get (parameters, "(b)", &active);
  if (!active)
    read_environment (user_data);
}

/* systemd 252 sends no PropertiesChanged when the user manager's
 * environment changes (`systemctl --user import-environment`,
 * `dbus-update-activation-environment --systemd`): a monitor connection sees
 * those calls instead, and the environment is read again after each. The
 * Get is queued behind the call at systemd, so it reads the new value. */
static const char * const environment_methods[] = {
  "SetEnvironment", "UnsetEnvironment", "UnsetAndSetEnvironment",
};

static gboolean
environment_call_seen_cb (gpointer user_data)
{
  RcFocusTracker *self = user_data;

  if (self->connection != NULL)
    read_environment (self);
  return G_SOURCE_REMOVE;
}

/* On GDBus's worker thread. */
static GDBusMessage *
monitor_filter (GDBusConnection *connection,
                GDBusMessage    *message,
                gboolean         incoming,
                gpointer         user_data)
{
  if (incoming && g_dbus_message_get_message_type (message) == G_DBUS_MESSAGE_TYPE_METHOD_CALL &&
      g_strcmp0 (g_dbus_message_get_interface (message), SYSTEMD_MANAGER_INTERFACE) == 0)
    g_main_context_invoke_full (NULL, G_PRIORITY_DEFAULT, environment_call_seen_cb,
                                g_object_ref (user_data), g_object_unref);
  if (!incoming || g_dbus_message_get_message_type (message) != G_DBUS_MESSAGE_TYPE_METHOD_CALL)
    return message;
  /* Dropped: GDBus would answer a method call it has no handler for, and
   * a monitor that sends anything is disconnected by the bus. */
  g_object_unref (message);
  return NULL;
}

static void
became_monitor_cb (GObject      *object,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  g_autoptr(GVariant) reply = NULL;
  g_autoptr(GError) error = NULL;

  reply = g_dbus_connection_call_finish (G_DBUS_CONNECTION (object), result, &error);
  if (reply == NULL && !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    g_message ("Focus: cannot follow the session's environment as it changes (%s); a "
               "compositor that starts later is seen after a restart", error->message);
}

static void
monitor_connected_cb (GObject      *object,
                      GAsyncResult *result,
                      gpointer      user_data)
{
  g_autoptr(RcFocusTracker) self = user_data;
  g_autoptr(GError) error = NULL;
  g_auto(GVariantBuilder) rules = G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE_STRING_ARRAY);
  GDBusConnection *monitor;

  monitor = g_dbus_connection_new_for_address_finish (result, &error);
  if (monitor == NULL)
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        g_message ("Focus: no monitor connection (%s)", error->message);
      return;
    }
  self->monitor = monitor;
  g_dbus_connection_set_exit_on_close (monitor, FALSE);
  self->monitor_filter_id = g_dbus_connection_add_filter (monitor, monitor_filter, self, NULL);
  for (gsize i = 0; i < G_N_ELEMENTS (environment_methods); i++)
    {
      g_autofree char *rule = g_strdup_printf ("type='method_call',destination='%s',"
                                               "interface='%s',member='%s'", SYSTEMD_DBUS_NAME,
                                               SYSTEMD_MANAGER_INTERFACE, environment_methods[i]);

      g_variant_builder_add (&rules, "s", rule);
    }
  g_dbus_connection_call (monitor, DBUS_NAME, DBUS_PATH, "org.freedesktop.DBus.Monitoring",
                          "BecomeMonitor", g_variant_new ("(asu)", &rules, 0), NULL,
                          G_DBUS_CALL_FLAGS_NONE, 25000, self->cancellable, became_monitor_cb, NULL);
}

static void
watch_environment_calls (RcFocusTracker *self)
{
  g_autofree char *address = g_dbus_address_get_for_bus_sync (G_BUS_TYPE_SESSION, NULL, NULL);

  if (address == NULL)
    return;
  g_dbus_connection_new_for_address (address, G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT |
                                     G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION, NULL,
                                     self->cancellable, monitor_connected_cb, g_object_ref (self));
}

void
rc_focus_tracker_report_kwin (RcFocusTracker *self,
                              guint32         pid)
{
  focus_app (self, pid);
}

gboolean
rc_focus_tracker_is_compositor (RcFocusTracker *self,
                                const char     *sender)
{
  return g_strcmp0 (self->kind, "kwin") == 0 && self->kwin_owner != NULL &&
         g_strcmp0 (sender, self->kwin_owner) == 0;
}

static void
kwin_appeared_cb (GDBusConnection *connection,
                  const char      *name,
                  const char      *owner,
                  gpointer         user_data)
{
  RcFocusTracker *self = user_data;

  g_free (self->kwin_owner);
  self->kwin_owner = g_strdup (owner);
  pick_source (self);
}

static void
kwin_vanished_cb (GDBusConnection *connection,
                  const char      *name,
                  gpointer         user_data)
{
  RcFocusTracker *self = user_data;

  g_clear_pointer (&self->kwin_owner, g_free);
  pick_source (self);
}

RcFocusTracker *
rc_focus_tracker_new (GDBusConnection *connection,
                      RcRegistry      *registry,
                      RcPolicy        *policy)
{
  RcFocusTracker *self = g_object_new (RC_TYPE_FOCUS_TRACKER, NULL);

  self->connection = g_object_ref (connection);
  self->registry = g_object_ref (registry);
  self->policy = g_object_ref (policy);
  g_signal_connect_object (registry, "app-added", G_CALLBACK (app_added_cb), self, 0);
  self->environment_id =
    g_dbus_connection_signal_subscribe (connection, SYSTEMD_DBUS_NAME, DBUS_PROPERTIES_INTERFACE,
                                        "PropertiesChanged", SYSTEMD_DBUS_PATH,
                                        SYSTEMD_MANAGER_INTERFACE, G_DBUS_SIGNAL_FLAGS_NONE,
                                        manager_properties_changed_cb, self, NULL);
  self->job_removed_id =
    rc_systemd_subscribe_manager (connection, "JobRemoved", manager_job_removed_cb, self);
  self->reloading_id =
    rc_systemd_subscribe_manager (connection, "Reloading", manager_reloading_cb, self);
  self->kwin_watch_id = g_bus_watch_name_on_connection (connection, KWIN_DBUS_NAME,
                                                        G_BUS_NAME_WATCHER_FLAGS_NONE,
                                                        kwin_appeared_cb, kwin_vanished_cb,
                                                        self, NULL);
  set_environment (self, g_get_environ ());
  read_environment (self);
  watch_environment_calls (self);
  return self;
}

static void
rc_focus_tracker_get_property (GObject    *object,
                               guint       prop_id,
                               GValue     *value,
                               GParamSpec *pspec)
{
  g_assert (prop_id == PROP_SOURCE);
  g_value_set_string (value, rc_focus_tracker_get_source (RC_FOCUS_TRACKER (object)));
}

static void
rc_focus_tracker_dispose (GObject *object)
{
  RcFocusTracker *self = RC_FOCUS_TRACKER (object);

  g_cancellable_cancel (self->cancellable);
  rc_clear_subscription (self->connection, &self->environment_id);
  rc_clear_subscription (self->connection, &self->job_removed_id);
  rc_clear_subscription (self->connection, &self->reloading_id);
  if (self->monitor != NULL)
    {
      g_dbus_connection_remove_filter (self->monitor, self->monitor_filter_id);
      g_dbus_connection_close (self->monitor, NULL, NULL, NULL);
    }
  g_clear_object (&self->monitor);
  g_clear_handle_id (&self->kwin_watch_id, g_bus_unwatch_name);
  g_clear_handle_id (&self->retry_id, g_source_remove);
  drop_source (self);
  g_clear_object (&self->policy);
  g_clear_object (&self->registry);
  g_clear_object (&self->connection);
  G_OBJECT_CLASS (rc_focus_tracker_parent_class)->dispose (object);
}

static void
rc_focus_tracker_finalize (GObject *object)
{
  RcFocusTracker *self = RC_FOCUS_TRACKER (object);

  g_clear_object (&self->cancellable);
  g_strfreev (self->environment);
  g_free (self->kind);
  g_free (self->address);
  g_free (self->kwin_owner);
  G_OBJECT_CLASS (rc_focus_tracker_parent_class)->finalize (object);
}

static void
rc_focus_tracker_class_init (RcFocusTrackerClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->get_property = rc_focus_tracker_get_property;
  object_class->dispose = rc_focus_tracker_dispose;
  object_class->finalize = rc_focus_tracker_finalize;
  g_object_class_install_property (object_class, PROP_SOURCE,
                                   g_param_spec_string ("source", NULL, NULL, "none",
                                                        G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
}

static void
rc_focus_tracker_init (RcFocusTracker *self)
{
  self->cancellable = g_cancellable_new ();
}
