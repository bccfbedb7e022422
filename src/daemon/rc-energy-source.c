/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "rc-energy-source.h"
#include "rc-names.h"
#include "rc-subscription.h"
#include "rc-test-hooks.h"

#define POWERCAP_ROOT          "/sys/class/powercap"
#define UPOWER_DEVICE_PATH     UPOWER_DBUS_PATH "/devices/DisplayDevice"
#define UPOWER_DEVICE_IFACE    UPOWER_DBUS_NAME ".Device"
#define UPOWER_TYPE_BATTERY    2
#define UPOWER_STATE_DISCHARGING 2
#define CALL_TIMEOUT_MS        10000
#define MAX_RAPL_DOMAINS       16

/* One RAPL counter: it wraps at max_energy_range_uj. */
typedef struct {
  char   *energy_path;
  guint64 range_uj;
  guint64 last_uj;
} RaplDomain;

struct _RcEnergySource {
  GObject       parent_instance;
  GCancellable *cancellable;
  /* RAPL */
  GPtrArray *rapl;              /* RaplDomain, empty: not readable */
  guint      rapl_timer;
  gint64     rapl_time;
  /* UPower */
  GDBusConnection *bus;
  guint            watch_id;
  guint            signal_id;
  gboolean         upower_runs;
  gboolean         battery;     /* DisplayDevice is a present battery */
  gboolean         present;
  guint32          type;
  guint32          state;
  double           rate_w;
  gint64           rate_time;   /* when rate_w and state were last sampled */
};

G_DEFINE_TYPE (RcEnergySource, rc_energy_source, G_TYPE_OBJECT);

enum { SIGNAL_SAMPLE, SIGNAL_CHANGED, N_SIGNALS };
static guint signals[N_SIGNALS];

static void
rapl_domain_free (RaplDomain *domain)
{
  g_free (domain->energy_path);
  g_free (domain);
}

/* A sysfs number, read without waiting; FALSE when it cannot be read
 * (root-only counters give EACCES at open). */
static gboolean
read_sysfs_u64 (const char *path,
                guint64    *out_value)
{
  char buf[32];
  ssize_t len;
  char *end;
  int fd = open (path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);

  if (fd < 0)
    return FALSE;
  len = read (fd, buf, sizeof buf - 1);
  close (fd);
  if (len <= 0)
    return FALSE;
  buf[len] = '\0';
  *out_value = g_ascii_strtoull (buf, &end, 10);
  return end != buf;
}

static char *
read_sysfs_line (const char *path)
{
  char buf[64];
  ssize_t len;
  int fd = open (path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);

  if (fd < 0)
    return NULL;
  len = read (fd, buf, sizeof buf - 1);
  close (fd);
  if (len <= 0)
    return NULL;
  buf[len] = '\0';
  return g_strstrip (g_strdup (buf));
}

/* The top-level RAPL zones this user can read: "psys" alone when there is
 * one (it holds the packages already), else every package. */
static void
find_rapl (RcEnergySource *self)
{
  const char *root = rc_test_hook ("RC_POWERCAP_ROOT");
  g_autoptr(GDir) dir = NULL;
  g_autoptr(GPtrArray) packages = g_ptr_array_new_with_free_func ((GDestroyNotify) rapl_domain_free);
  g_autoptr(GPtrArray) psys = g_ptr_array_new_with_free_func ((GDestroyNotify) rapl_domain_free);
  const char *entry;

  dir = g_dir_open (root != NULL ? root : POWERCAP_ROOT, 0, NULL);
  if (dir == NULL)
    return;
  while ((entry = g_dir_read_name (dir)) != NULL && packages->len + psys->len < MAX_RAPL_DOMAINS)
    {
      g_autofree char *zone = NULL;
      g_autofree char *name_path = NULL;
      g_autofree char *name = NULL;
      g_autofree char *range_path = NULL;
      RaplDomain *domain;

      /* "intel-rapl:0" is a zone, "intel-rapl:0:1" one of its parts */
      if (!g_str_has_prefix (entry, "intel-rapl:") || strchr (entry + 11, ':') != NULL)
        continue;
      zone = g_build_filename (root != NULL ? root : POWERCAP_ROOT, entry, NULL);
      domain = g_new0 (RaplDomain, 1);
      domain->energy_path = g_build_filename (zone, "energy_uj", NULL);
      range_path = g_build_filename (zone, "max_energy_range_uj", NULL);
      if (!read_sysfs_u64 (domain->energy_path, &domain->last_uj) ||
          !read_sysfs_u64 (range_path, &domain->range_uj) || domain->range_uj == 0)
        {
          rapl_domain_free (domain);
          continue;
        }
      name_path = g_build_filename (zone, "name", NULL);
      name = read_sysfs_line (name_path);
      g_ptr_array_add (g_strcmp0 (name, "psys") == 0 ? psys : packages, domain);
    }
  g_ptr_array_extend_and_steal (self->rapl, psys->len > 0 ? g_steal_pointer (&psys)
                                                          : g_steal_pointer (&packages));
}

static void stop_rapl (RcEnergySource *self);

static gboolean
rapl_tick_cb (gpointer user_data)
{
  RcEnergySource *self = user_data;
  gint64 now = g_get_monotonic_time ();
  guint64 energy_uj = 0;

  for (guint i = 0; i < self->rapl->len; i++)
    {
      RaplDomain *domain = g_ptr_array_index (self->rapl, i);
      guint64 value;

      if (!read_sysfs_u64 (domain->energy_path, &value))
        {
          g_message ("RAPL counter %s is no longer readable; energy from UPower only",
                     domain->energy_path);
          stop_rapl (self);
          return G_SOURCE_REMOVE;
        }
      /* the counter wraps at its range */
      energy_uj += value >= domain->last_uj ? value - domain->last_uj
                                            : domain->range_uj - domain->last_uj + value;
      domain->last_uj = value;
    }
  g_signal_emit (self, signals[SIGNAL_SAMPLE], 0, energy_uj, (guint64) (now - self->rapl_time));
  self->rapl_time = now;
  return G_SOURCE_CONTINUE;
}

static void
stop_rapl (RcEnergySource *self)
{
  self->rapl_timer = 0;
  g_ptr_array_set_size (self->rapl, 0);
  g_signal_emit (self, signals[SIGNAL_CHANGED], 0);
}

static guint
rapl_interval_ms (void)
{
  const char *hook = rc_test_hook ("RC_ENERGY_RAPL_INTERVAL_MS");
  guint64 value;

  if (hook != NULL && g_ascii_string_to_unsigned (hook, 10, 10, 3600000, &value, NULL))
    return value;
  return RC_ENERGY_RAPL_INTERVAL_MS;
}

/* ---- UPower ------------------------------------------------------------ */

static gboolean
discharging (RcEnergySource *self)
{
  return self->battery && self->state == UPOWER_STATE_DISCHARGING;
}

/* New values of the DisplayDevice: the interval since the last update is
 * counted at the rate that held over it. */
static void
device_update (RcEnergySource *self,
               GVariant       *properties)
{
  gboolean was_measuring = rc_energy_source_is_measuring (self);
  gboolean was_battery = self->battery, was_discharging = discharging (self);
  gint64 now = g_get_monotonic_time ();
  double rate;

  if (was_discharging && self->rapl->len == 0)
    {
      double joules = self->rate_w * (now - self->rate_time) / G_USEC_PER_SEC;

      g_signal_emit (self, signals[SIGNAL_SAMPLE], 0, (guint64) (joules * 1e6),
                     (guint64) (now - self->rate_time));
    }
  self->rate_time = now;
  /* PropertiesChanged carries only what changed */
  g_variant_lookup (properties, "IsPresent", "b", &self->present);
  g_variant_lookup (properties, "Type", "u", &self->type);
  self->battery = self->present && self->type == UPOWER_TYPE_BATTERY;
  g_variant_lookup (properties, "State", "u", &self->state);
  if (g_variant_lookup (properties, "EnergyRate", "d", &rate))
    self->rate_w = rate >= 0 && rate < 10000 ? rate : 0;
  /* a discharge that starts sets the ledger's baselines */
  if (!was_discharging && discharging (self) && self->rapl->len == 0)
    g_signal_emit (self, signals[SIGNAL_SAMPLE], 0, (guint64) 0, (guint64) 0);
  if (was_battery != self->battery || was_measuring != rc_energy_source_is_measuring (self) ||
      was_discharging != discharging (self))
    g_signal_emit (self, signals[SIGNAL_CHANGED], 0);
}

static void
get_all_cb (GObject      *source,
            GAsyncResult *result,
            gpointer      user_data)
{
  g_autoptr(RcEnergySource) self = user_data;
  g_autoptr(GVariant) reply = NULL;
  g_autoptr(GVariant) properties = NULL;
  g_autoptr(GError) error = NULL;

  reply = g_dbus_connection_call_finish (G_DBUS_CONNECTION (source), result, &error);
  if (reply == NULL)
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        g_debug ("Energy: no battery from UPower: %s", error->message);
      return;
    }
  g_variant_get (reply, "(@a{sv})", &properties);
  device_update (self, properties);
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
  g_autoptr(GVariant) changed = NULL;
  const char *changed_interface;

  if (!g_variant_is_of_type (parameters, G_VARIANT_TYPE ("(sa{sv}as)")))
    return;
  g_variant_get (parameters, "(&s@a{sv}@as)", &changed_interface, &changed, NULL);
  if (g_str_equal (changed_interface, UPOWER_DEVICE_IFACE))
    device_update (user_data, changed);
}

static void
name_appeared_cb (GDBusConnection *bus,
                  const char      *name,
                  const char      *owner,
                  gpointer         user_data)
{
  RcEnergySource *self = user_data;

  self->upower_runs = TRUE;
  /* subscribed before the GetAll, so no change falls between the two */
  if (self->signal_id == 0)
    self->signal_id = g_dbus_connection_signal_subscribe (bus, owner, DBUS_PROPERTIES_INTERFACE,
                                                          "PropertiesChanged", UPOWER_DEVICE_PATH,
                                                          UPOWER_DEVICE_IFACE,
                                                          G_DBUS_SIGNAL_FLAGS_NONE,
                                                          properties_changed_cb, self, NULL);
  g_dbus_connection_call (bus, owner, UPOWER_DEVICE_PATH, DBUS_PROPERTIES_INTERFACE, "GetAll",
                          g_variant_new ("(s)", UPOWER_DEVICE_IFACE), G_VARIANT_TYPE ("(a{sv})"),
                          G_DBUS_CALL_FLAGS_NO_AUTO_START, CALL_TIMEOUT_MS, self->cancellable,
                          get_all_cb, g_object_ref (self));
}

static void
name_vanished_cb (GDBusConnection *bus,
                  const char      *name,
                  gpointer         user_data)
{
  RcEnergySource *self = user_data;
  g_autoptr(GVariant) gone = g_variant_ref_sink (g_variant_new_parsed (
                                                   "{'IsPresent': <false>, 'State': <uint32 0>}"));

  rc_clear_subscription (bus, &self->signal_id);
  self->upower_runs = FALSE;
  device_update (self, gone);
}

static void
bus_cb (GObject      *source,
        GAsyncResult *result,
        gpointer      user_data)
{
  g_autoptr(RcEnergySource) self = user_data;
  g_autoptr(GError) error = NULL;

  self->bus = g_bus_get_finish (result, &error);
  if (self->bus == NULL)
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        g_debug ("Energy: no system bus, so no battery: %s", error->message);
      return;
    }
  self->watch_id = g_bus_watch_name_on_connection (self->bus, UPOWER_DBUS_NAME,
                                                   G_BUS_NAME_WATCHER_FLAGS_NONE,
                                                   name_appeared_cb, name_vanished_cb, self, NULL);
}

RcEnergySource *
rc_energy_source_new (void)
{
  RcEnergySource *self = g_object_new (RC_TYPE_ENERGY_SOURCE, NULL);

  find_rapl (self);
  if (self->rapl->len > 0)
    {
      self->rapl_time = g_get_monotonic_time ();
      self->rapl_timer = g_timeout_add (rapl_interval_ms (), rapl_tick_cb, self);
    }
  g_bus_get (G_BUS_TYPE_SYSTEM, self->cancellable, bus_cb, g_object_ref (self));
  return self;
}

const char *
rc_energy_source_get_name (RcEnergySource *self)
{
  if (self->rapl->len > 0)
    return "rapl";
  return self->battery ? "upower" : "";
}

gboolean
rc_energy_source_is_measuring (RcEnergySource *self)
{
  return self->rapl->len > 0 || discharging (self);
}

gboolean
rc_energy_source_on_battery (RcEnergySource *self)
{
  return discharging (self);
}

const char *
rc_energy_source_get_reason (RcEnergySource *self)
{
  if (*rc_energy_source_get_name (self) != '\0')
    return "";
  if (!self->upower_runs)
    return "UPower does not run and the RAPL counters cannot be read by this user";
  return "no battery, and the RAPL counters cannot be read by this user";
}

static void
rc_energy_source_dispose (GObject *object)
{
  RcEnergySource *self = RC_ENERGY_SOURCE (object);

  g_cancellable_cancel (self->cancellable);
  g_clear_handle_id (&self->rapl_timer, g_source_remove);
  g_clear_handle_id (&self->watch_id, g_bus_unwatch_name);
  rc_clear_subscription (self->bus, &self->signal_id);
  g_clear_object (&self->bus);
  G_OBJECT_CLASS (rc_energy_source_parent_class)->dispose (object);
}

static void
rc_energy_source_finalize (GObject *object)
{
  RcEnergySource *self = RC_ENERGY_SOURCE (object);

  g_clear_object (&self->cancellable);
  g_ptr_array_unref (self->rapl);
  G_OBJECT_CLASS (rc_energy_source_parent_class)->finalize (object);
}

static void
rc_energy_source_class_init (RcEnergySourceClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = rc_energy_source_dispose;
  object_class->finalize = rc_energy_source_finalize;
  signals[SIGNAL_SAMPLE] = g_signal_new ("sample", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                         0, NULL, NULL, NULL, G_TYPE_NONE, 2,
                                         G_TYPE_UINT64, G_TYPE_UINT64);
  signals[SIGNAL_CHANGED] = g_signal_new ("changed", G_TYPE_FROM_CLASS (klass),
                                          G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                          G_TYPE_NONE, 0);
}

static void
rc_energy_source_init (RcEnergySource *self)
{
  self->cancellable = g_cancellable_new ();
  self->rapl = g_ptr_array_new_with_free_func ((GDestroyNotify) rapl_domain_free);
}
