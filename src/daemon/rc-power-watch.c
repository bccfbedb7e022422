/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "rc-power-watch.h"
#include "rc-subscription.h"
#include "rc-names.h"

#define PPD_INTERFACE    PPD_DBUS_NAME
#define UPOWER_INTERFACE UPOWER_DBUS_NAME
#define CALL_TIMEOUT_MS  10000

/* One watched property of one service. */
typedef enum { SERVICE_PPD, SERVICE_UPOWER, N_SERVICES } Service;

static const struct {
  const char *name;
  const char *path;
  const char *interface;
  const char *property;
} services[N_SERVICES] = {
  [SERVICE_PPD] = { PPD_DBUS_NAME, PPD_DBUS_PATH, PPD_INTERFACE, "ActiveProfile" },
  [SERVICE_UPOWER] = { UPOWER_DBUS_NAME, UPOWER_DBUS_PATH, UPOWER_INTERFACE, "OnBattery" },
};

struct _RcPowerWatch {
  GObject          parent_instance;
  GDBusConnection *bus;
  GCancellable    *cancellable;
  guint            watch_ids[N_SERVICES];
  guint            signal_ids[N_SERVICES];
  char            *profile;
  gboolean         on_battery;
};

G_DEFINE_TYPE (RcPowerWatch, rc_power_watch, G_TYPE_OBJECT);

enum { SIGNAL_CHANGED, N_SIGNALS };
static guint signals[N_SIGNALS];

static void
set_value (RcPowerWatch *self,
           Service       service,
           GVariant     *value)
{
  gboolean changed = FALSE;

  if (service == SERVICE_PPD)
    {
      const char *profile = "";

      if (value != NULL && g_variant_is_of_type (value, G_VARIANT_TYPE_STRING))
        profile = g_variant_get_string (value, NULL);
      if (g_strcmp0 (profile, self->profile) != 0)
        {
          g_free (self->profile);
          self->profile = g_strdup (profile);
          changed = TRUE;
        }
    }
  else
    {
      gboolean on_battery = value != NULL && g_variant_is_of_type (value, G_VARIANT_TYPE_BOOLEAN) &&
                            g_variant_get_boolean (value);

      changed = on_battery != self->on_battery;
      self->on_battery = on_battery;
    }
  if (!changed)
    return;
  g_debug ("Power: profile \"%s\", on battery %s", self->profile,
           self->on_battery ? "yes" : "no");
  g_signal_emit (self, signals[SIGNAL_CHANGED], 0);
}

typedef struct {
  RcPowerWatch *self;
  Service       service;
} Get;

static void
get_cb (GObject      *source,
        GAsyncResult *result,
        gpointer      user_data)
{
  g_autofree Get * get = user_data;
  g_autoptr(RcPowerWatch) self = get->self;
  g_autoptr(GVariant) reply = NULL;
  g_autoptr(GVariant) value = NULL;
  g_autoptr(GError) error = NULL;

  reply = g_dbus_connection_call_finish (G_DBUS_CONNECTION (source), result, &error);
  if (reply == NULL)
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        g_debug ("Power: no %s from %s: %s", services[get->service].property,
                 services[get->service].name, error->message);
      return;
    }
  g_variant_get (reply, "(v)", &value);
  set_value (self, get->service, value);
}

static void
properties_changed_cb (GDBusConnection *bus,
                       const char      *sender,
                       const char      *path,
                       const char      *interface,
                       const char      *signal,
                       GVariant        *parameters,
                       gpointer         user_data)
{
  RcPowerWatch *self = user_data;
  g_autoptr(GVariant) changed = NULL;
  const char *changed_interface;

  if (!g_variant_is_of_type (parameters, G_VARIANT_TYPE ("(sa{sv}as)")))
    return;
  g_variant_get (parameters, "(&s@a{sv}@as)", &changed_interface, &changed, NULL);
  for (Service service = 0; service < N_SERVICES; service++)
    {
      g_autoptr(GVariant) value = NULL;

      if (!g_str_equal (path, services[service].path) ||
          !g_str_equal (changed_interface, services[service].interface))
        continue;
      value = g_variant_lookup_value (changed, services[service].property, NULL);
      if (value != NULL)
        set_value (self, service, value);
    }
}

static Service
service_of_name (const char *name)
{
  for (Service service = 0; service < N_SERVICES; service++)
    if (g_str_equal (name, services[service].name))
      return service;
  g_assert_not_reached ();
}

static void
name_appeared_cb (GDBusConnection *bus,
                  const char      *name,
                  const char      *owner,
                  gpointer         user_data)
{
  RcPowerWatch *self = user_data;
  Service service = service_of_name (name);
  Get *get = g_new0 (Get, 1);

  /* Subscribed before the Get, so no change falls between the two. */
  if (self->signal_ids[service] == 0)
    self->signal_ids[service] =
      g_dbus_connection_signal_subscribe (bus, owner, DBUS_PROPERTIES_INTERFACE,
                                          "PropertiesChanged", services[service].path,
                                          services[service].interface,
                                          G_DBUS_SIGNAL_FLAGS_NONE, properties_changed_cb,
                                          self, NULL);
  get->self = g_object_ref (self);
  get->service = service;
  g_dbus_connection_call (bus, owner, services[service].path, DBUS_PROPERTIES_INTERFACE, "Get",
                          g_variant_new ("(ss)", services[service].interface,
                                         services[service].property),
                          G_VARIANT_TYPE ("(v)"), G_DBUS_CALL_FLAGS_NO_AUTO_START,
                          CALL_TIMEOUT_MS, self->cancellable, get_cb, get);
}

static void
name_vanished_cb (GDBusConnection *bus,
                  const char      *name,
                  gpointer         user_data)
{
  RcPowerWatch *self = user_data;
  Service service = service_of_name (name);

  rc_clear_subscription (bus, &self->signal_ids[service]);
  set_value (self, service, NULL);
}

static void
bus_cb (GObject      *source,
        GAsyncResult *result,
        gpointer      user_data)
{
  g_autoptr(RcPowerWatch) self = user_data;
  g_autoptr(GError) error = NULL;

  self->bus = g_bus_get_finish (result, &error);
  if (self->bus == NULL)
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        g_message ("No system bus, so no power state: %s", error->message);
      return;
    }
  for (Service service = 0; service < N_SERVICES; service++)
    self->watch_ids[service] =
      g_bus_watch_name_on_connection (self->bus, services[service].name,
                                      G_BUS_NAME_WATCHER_FLAGS_NONE, name_appeared_cb,
                                      name_vanished_cb, self, NULL);
}

RcPowerWatch *
rc_power_watch_new (void)
{
  RcPowerWatch *self = g_object_new (RC_TYPE_POWER_WATCH, NULL);

  g_bus_get (G_BUS_TYPE_SYSTEM, self->cancellable, bus_cb, g_object_ref (self));
  return self;
}

const char *
rc_power_watch_get_profile (RcPowerWatch *self)
{
  return self->profile;
}

gboolean
rc_power_watch_get_on_battery (RcPowerWatch *self)
{
  return self->on_battery;
}

static void
rc_power_watch_dispose (GObject *object)
{
  RcPowerWatch *self = RC_POWER_WATCH (object);

  g_cancellable_cancel (self->cancellable);
  for (Service service = 0; service < N_SERVICES; service++)
    {
      g_clear_handle_id (&self->watch_ids[service], g_bus_unwatch_name);
      rc_clear_subscription (self->bus, &self->signal_ids[service]);
    }
  g_clear_object (&self->bus);
  G_OBJECT_CLASS (rc_power_watch_parent_class)->dispose (object);
}

static void
rc_power_watch_finalize (GObject *object)
{
  RcPowerWatch *self = RC_POWER_WATCH (object);

  g_clear_object (&self->cancellable);
  g_free (self->profile);
  G_OBJECT_CLASS (rc_power_watch_parent_class)->finalize (object);
}

static void
rc_power_watch_class_init (RcPowerWatchClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = rc_power_watch_dispose;
  object_class->finalize = rc_power_watch_finalize;
  signals[SIGNAL_CHANGED] = g_signal_new ("changed", G_TYPE_FROM_CLASS (klass),
                                          G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                          G_TYPE_NONE, 0);
}

static void
rc_power_watch_init (RcPowerWatch *self)
{
  self->cancellable = g_cancellable_new ();
  self->profile = g_strdup ("");
}
