/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <fcntl.h>
#include <unistd.h>

#include "rc-api-keys.h"
#include "rc-energy.h"
#include "rc-energy-history.h"
#include "rc-energy-ledger.h"
#include "rc-energy-source.h"
#include "rc-heap.h"
#include "rc-test-hooks.h"

#define USEC_PER_HOUR (G_USEC_PER_SEC * (guint64) 3600)

struct _RcEnergy {
  GObject          parent_instance;
  RcRegistry      *registry;
  RcAuthority     *authority;
  RcEnergySource  *source;
  RcEnergyLedger  *ledger;
  RcEnergyHistory *history;
  char            *history_path;
  GCancellable    *cancellable;
  guint            save_id;
  gboolean         dirty;
  gboolean         writing;
  gboolean         on_battery;
};

G_DEFINE_TYPE (RcEnergy, rc_energy, G_TYPE_OBJECT);

enum { SIGNAL_APP_SHARE, SIGNAL_BATTERY_CHANGED, N_SIGNALS };
static guint signals[N_SIGNALS];

static guint64
hour_now (void)
{
  return g_get_real_time () / USEC_PER_HOUR;
}

/* The machine's busy CPU time from the first line of /proc/stat (with
 * --test-hooks, RC_PROC_STAT names another file). */
static gboolean
read_busy_usec (guint64 *out_busy_usec)
{
  const char *path = rc_test_hook ("RC_PROC_STAT");
  char buf[512];
  ssize_t len;
  int fd = open (path != NULL ? path : "/proc/stat", O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);

  if (fd < 0)
    return FALSE;
  len = read (fd, buf, sizeof buf - 1);
  close (fd);
  if (len <= 0)
    return FALSE;
  buf[len] = '\0';
  return rc_energy_parse_proc_stat (buf, out_busy_usec);
}

/* ---- saving ------------------------------------------------------------ */

static void
write_in_thread (GTask        *task,
                 gpointer      source,
                 gpointer      task_data,
                 GCancellable *cancellable)
{
  RcEnergy *self = source;
  g_autoptr(GError) error = NULL;

  if (rc_energy_history_write (self->history_path, task_data, &error))
    g_task_return_boolean (task, TRUE);
  else
    g_task_return_error (task, g_steal_pointer (&error));
}

static void
written_cb (GObject      *source,
            GAsyncResult *result,
            gpointer      user_data)
{
  RcEnergy *self = RC_ENERGY (source);
  g_autoptr(GError) error = NULL;

  self->writing = FALSE;
  if (!g_task_propagate_boolean (G_TASK (result), &error))
    g_message ("Cannot write the energy history %s: %s", self->history_path, error->message);
}

static gboolean
save_cb (gpointer user_data)
{
  RcEnergy *self = user_data;
  g_autoptr(GTask) task = NULL;

  self->save_id = 0;
  if (!self->dirty || self->writing)
    return G_SOURCE_REMOVE;
  self->dirty = FALSE;
  self->writing = TRUE;
  task = g_task_new (self, NULL, written_cb, NULL);
  g_task_set_task_data (task, rc_energy_history_serialize (self->history),
                        (GDestroyNotify) g_bytes_unref);
  g_task_run_in_thread (task, write_in_thread);
  return G_SOURCE_REMOVE;
}

/* A timer only after a change: none at rest. */
static void
schedule_save (RcEnergy *self)
{
  self->dirty = TRUE;
  if (self->save_id == 0)
    self->save_id = g_timeout_add_seconds (RC_ENERGY_SAVE_DELAY_S, save_cb, self);
}

void
rc_energy_save_now (RcEnergy *self)
{
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(GError) error = NULL;

  g_clear_handle_id (&self->save_id, g_source_remove);
  if (!self->dirty)
    return;
  self->dirty = FALSE;
  bytes = rc_energy_history_serialize (self->history);
  if (!rc_energy_history_write (self->history_path, bytes, &error))
    g_message ("Cannot write the energy history %s: %s", self->history_path, error->message);
}

/* ---- samples ----------------------------------------------------------- */

static void
set_app_energy (RcEnergy *self,
                RcApp    *app,
                gboolean  announce)
{
  gboolean known = *rc_energy_source_get_name (self->source) != '\0';
  guint64 energy_uj = 0;
  double power_w = 0;

  if (known)
    rc_energy_ledger_lookup (self->ledger, app->unit, &energy_uj, &power_w);
  if (!rc_energy_source_is_measuring (self->source))
    power_w = 0;
  if (known == app->energy_known && energy_uj == app->energy_uj && power_w == app->power_w)
    return;
  app->energy_known = known;
  app->energy_uj = energy_uj;
  app->power_w = power_w;
  if (announce && known)
    {
      g_auto(GVariantDict) changed = G_VARIANT_DICT_INIT (NULL);

      g_variant_dict_insert (&changed, RC_KEY_POWER, "d", power_w);
      g_variant_dict_insert (&changed, RC_KEY_ENERGY, "d", energy_uj / 1e6);
      rc_registry_app_changed (self->registry, app, g_variant_dict_end (&changed));
    }
}

/* Each instance's part of a sample on battery, 0 for those without one. */
static void
tell_shares (RcEnergy  *self,
             GPtrArray *apps,
             GArray    *shares,
             guint64    energy_uj)
{
  g_autoptr(GHashTable) parts = g_hash_table_new (g_str_hash, g_str_equal);

  if (energy_uj == 0 || !rc_energy_source_on_battery (self->source))
    return;
  for (guint i = 0; i < shares->len; i++)
    {
      RcEnergyShare *share = &g_array_index (shares, RcEnergyShare, i);

      g_hash_table_insert (parts, (gpointer) share->unit, share);
    }
  for (guint i = 0; i < apps->len; i++)
    {
      RcApp *app = g_ptr_array_index (apps, i);
      const RcEnergyShare *share = g_hash_table_lookup (parts, app->unit);
      double part = share != NULL ? (double) share->energy_uj / energy_uj : 0;

      g_signal_emit (self, signals[SIGNAL_APP_SHARE], 0, app, part,
                     share != NULL ? share->foreground : app->foreground);
    }
}

static void
sample_cb (RcEnergySource *source,
           guint64         energy_uj,
           guint64         interval_usec,
           RcEnergy       *self)
{
  g_autoptr(GPtrArray) apps = rc_registry_get_apps (self->registry);
  g_autoptr(GArray) readings = g_array_sized_new (FALSE, TRUE, sizeof (RcEnergyReading), apps->len);
  g_autoptr(GArray) shares = g_array_new (FALSE, TRUE, sizeof (RcEnergyShare));
  guint64 busy_usec, system_uj, hour = hour_now ();

  if (!read_busy_usec (&busy_usec))
    {
      g_debug ("Energy: no busy CPU time from /proc/stat; the sample is the system's");
      busy_usec = 0;
    }
  for (guint i = 0; i < apps->len; i++)
    {
      RcApp *app = g_ptr_array_index (apps, i);
      RcEnergyReading reading = { app->unit, app->app_id, G_MAXUINT64, app->foreground };

      if (!rc_app_read_cpu_usage (app, &reading.usage_usec))
        reading.usage_usec = G_MAXUINT64;
      g_array_append_val (readings, reading);
    }
  system_uj = rc_energy_ledger_add_sample (self->ledger, energy_uj, interval_usec, busy_usec,
                                           (RcEnergyReading *) readings->data, readings->len,
                                           shares);
  for (guint i = 0; i < shares->len; i++)
    {
      const RcEnergyShare *share = &g_array_index (shares, RcEnergyShare, i);
      RcApp *app = rc_registry_lookup_unit (self->registry, share->unit);

      rc_energy_history_add (self->history, share->app_id, app != NULL ? app->name : NULL,
                             app != NULL ? app->icon : NULL, hour, share->energy_uj,
                             share->foreground);
    }
  rc_energy_history_add (self->history, NULL, NULL, NULL, hour, system_uj, FALSE);
  for (guint i = 0; i < apps->len; i++)
    set_app_energy (self, g_ptr_array_index (apps, i), TRUE);
  tell_shares (self, apps, shares, energy_uj);
  if (energy_uj > 0)
    schedule_save (self);
  /* a sample over many apps builds and frees many small blocks */
  rc_heap_trim_after (apps->len);
  g_debug ("Energy: %" G_GUINT64_FORMAT " uJ over %" G_GUINT64_FORMAT " us, %u apps, system %"
           G_GUINT64_FORMAT " uJ", energy_uj, interval_usec, shares->len, system_uj);
}

static void
source_changed_cb (RcEnergySource *source,
                   RcEnergy       *self)
{
  g_autoptr(GPtrArray) apps = rc_registry_get_apps (self->registry);

  g_debug ("Energy: source \"%s\", measuring %s", rc_energy_source_get_name (source),
           rc_energy_source_is_measuring (source) ? "yes" : "no");
  for (guint i = 0; i < apps->len; i++)
    set_app_energy (self, g_ptr_array_index (apps, i), TRUE);
  if (self->on_battery != rc_energy_source_on_battery (source))
    {
      self->on_battery = !self->on_battery;
      g_signal_emit (self, signals[SIGNAL_BATTERY_CHANGED], 0, self->on_battery);
    }
}

static void
app_added_cb (RcRegistry *registry,
              RcApp      *app,
              RcEnergy   *self)
{
  /* its first record already has the keys; no AppChanged for them */
  set_app_energy (self, app, FALSE);
}

static void
app_removed_cb (RcRegistry *registry,
                RcApp      *app,
                RcEnergy   *self)
{
  rc_energy_ledger_forget (self->ledger, app->unit);
}

/* ---- D-Bus ------------------------------------------------------------- */

/* AppID -> one of its running instances. */
static GHashTable *
running_apps (RcRegistry *registry,
              GPtrArray **out_apps)
{
  GHashTable *running = g_hash_table_new (g_str_hash, g_str_equal);

  *out_apps = rc_registry_get_apps (registry);
  for (guint i = 0; i < (*out_apps)->len; i++)
    {
      RcApp *app = g_ptr_array_index (*out_apps, i);

      if (app->app_id != NULL)
        g_hash_table_insert (running, (gpointer) app->app_id, app);
    }
  return running;
}

static int
compare_usage (gconstpointer a,
               gconstpointer b)
{
  const RcEnergyUsage *x = a, *y = b;
  guint64 ex = x->foreground_uj + x->background_uj, ey = y->foreground_uj + y->background_uj;

  if (ex != ey)
    return ex > ey ? -1 : 1;
  return g_strcmp0 (x->app_id, y->app_id);
}

static gboolean
handle_get_energy_usage (RcDBusResourceControl *object,
                         GDBusMethodInvocation *invocation,
                         guint64                since_usec,
                         RcEnergy              *self)
{
  g_auto(GVariantBuilder) usage = G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE ("aa{sv}"));
  g_auto(GVariantDict) totals = G_VARIANT_DICT_INIT (NULL);
  g_autoptr(GPtrArray) apps = NULL;
  g_autoptr(GHashTable) running = running_apps (self->registry, &apps);
  g_autoptr(GArray) used = NULL;
  guint64 system_uj, total_uj;
  const char *source = rc_energy_source_get_name (self->source);

  rc_energy_history_advance (self->history, hour_now ());
  used = rc_energy_history_usage (self->history, since_usec / USEC_PER_HOUR, &system_uj);
  g_array_sort (used, compare_usage);
  total_uj = system_uj;
  for (guint i = 0; i < used->len; i++)
    total_uj += g_array_index (used, RcEnergyUsage, i).foreground_uj +
                g_array_index (used, RcEnergyUsage, i).background_uj;
  for (guint i = 0; i < used->len; i++)
    {
      const RcEnergyUsage *one = &g_array_index (used, RcEnergyUsage, i);
      g_auto(GVariantDict) dict = G_VARIANT_DICT_INIT (NULL);
      guint64 energy_uj = one->foreground_uj + one->background_uj;
      RcApp *app = g_hash_table_lookup (running, one->app_id);
      const char *name = app != NULL && app->name != NULL ? app->name : one->name;
      const char *icon = app != NULL && app->icon != NULL ? app->icon : one->icon;

      g_variant_dict_insert (&dict, RC_KEY_APP_ID, "s", one->app_id);
      g_variant_dict_insert (&dict, RC_KEY_NAME, "s", *name != '\0' ? name : one->app_id);
      g_variant_dict_insert (&dict, RC_KEY_ICON, "s", icon);
      g_variant_dict_insert (&dict, "Energy", "d", energy_uj / 1e6);
      g_variant_dict_insert (&dict, "ForegroundEnergy", "d", one->foreground_uj / 1e6);
      g_variant_dict_insert (&dict, "BackgroundEnergy", "d", one->background_uj / 1e6);
      g_variant_dict_insert (&dict, "Share", "d", total_uj > 0 ? (double) energy_uj / total_uj : 0);
      g_variant_dict_insert (&dict, "Running", "b", app != NULL);
      g_variant_builder_add_value (&usage, g_variant_dict_end (&dict));
    }
  g_variant_dict_insert (&totals, "Energy", "d", total_uj / 1e6);
  g_variant_dict_insert (&totals, "SystemEnergy", "d", system_uj / 1e6);
  g_variant_dict_insert (&totals, "Source", "s", source);
  if (*source == '\0')
    g_variant_dict_insert (&totals, "Reason", "s", rc_energy_source_get_reason (self->source));
  rc_dbus_resource_control_complete_get_energy_usage (object, invocation,
                                                      g_variant_builder_end (&usage),
                                                      g_variant_dict_end (&totals));
  return G_DBUS_METHOD_INVOCATION_HANDLED;
}

typedef struct {
  RcEnergy              *self;
  GDBusMethodInvocation *invocation;
} Reset;

static void
reset_authorized_cb (GObject      *source,
                     GAsyncResult *result,
                     gpointer      user_data)
{
  g_autofree Reset * reset = user_data;
  g_autoptr(RcEnergy) self = reset->self;
  g_autoptr(GDBusMethodInvocation) invocation = reset->invocation;
  g_autoptr(GError) error = NULL;

  if (!rc_authority_check_finish (RC_AUTHORITY (source), result, NULL, &error))
    {
      g_dbus_method_invocation_return_gerror (invocation, error);
      return;
    }
  rc_energy_history_reset (self->history);
  schedule_save (self);
  rc_energy_save_now (self);
  g_message ("Energy history reset");
  g_dbus_method_invocation_return_value (invocation, NULL);
}

static gboolean
handle_reset_energy_usage (RcDBusResourceControl *object,
                           GDBusMethodInvocation *invocation,
                           RcEnergy              *self)
{
  Reset *reset = g_new0 (Reset, 1);

  reset->self = g_object_ref (self);
  reset->invocation = g_object_ref (invocation);
  rc_authority_check_async (self->authority, invocation, self->cancellable, reset_authorized_cb,
                            reset);
  return G_DBUS_METHOD_INVOCATION_HANDLED;
}

void
rc_energy_serve (RcEnergy              *self,
                 RcDBusResourceControl *object)
{
  g_signal_connect_object (object, "handle-get-energy-usage",
                           G_CALLBACK (handle_get_energy_usage), self, 0);
  g_signal_connect_object (object, "handle-reset-energy-usage",
                           G_CALLBACK (handle_reset_energy_usage), self, 0);
}

/* ---- life -------------------------------------------------------------- */

char *
rc_energy_default_history_path (void)
{
  return g_build_filename (g_get_user_state_dir (), "resource-control", "energy", NULL);
}

RcEnergy *
rc_energy_new (RcRegistry  *registry,
               RcAuthority *authority,
               const char  *history_path)
{
  RcEnergy *self = g_object_new (RC_TYPE_ENERGY, NULL);

  self->registry = g_object_ref (registry);
  self->authority = g_object_ref (authority);
  self->history_path = g_strdup (history_path);
  self->history = rc_energy_history_load (history_path);
  /* a history from the future (the clock went back) would swallow every
   * hour until then */
  if (rc_energy_history_get_newest_hour (self->history) > hour_now () + 1)
    {
      g_message ("Energy history %s ends after now (the clock went back); a new one starts",
                 history_path);
      rc_energy_history_free (self->history);
      self->history = rc_energy_history_new ();
    }
  self->source = rc_energy_source_new ();
  g_signal_connect_object (self->source, "sample", G_CALLBACK (sample_cb), self, 0);
  g_signal_connect_object (self->source, "changed", G_CALLBACK (source_changed_cb), self, 0);
  g_signal_connect_object (registry, "app-added", G_CALLBACK (app_added_cb), self, 0);
  g_signal_connect_object (registry, "app-removed", G_CALLBACK (app_removed_cb), self, 0);
  return self;
}

static void
rc_energy_dispose (GObject *object)
{
  RcEnergy *self = RC_ENERGY (object);

  g_cancellable_cancel (self->cancellable);
  if (self->history != NULL)
    rc_energy_save_now (self);
  if (self->source != NULL)
    g_object_run_dispose (G_OBJECT (self->source));
  g_clear_object (&self->source);
  g_clear_object (&self->registry);
  g_clear_object (&self->authority);
  G_OBJECT_CLASS (rc_energy_parent_class)->dispose (object);
}

static void
rc_energy_finalize (GObject *object)
{
  RcEnergy *self = RC_ENERGY (object);

  g_clear_object (&self->cancellable);
  g_clear_pointer (&self->ledger, rc_energy_ledger_free);
  g_clear_pointer (&self->history, rc_energy_history_free);
  g_free (self->history_path);
  G_OBJECT_CLASS (rc_energy_parent_class)->finalize (object);
}

static void
rc_energy_class_init (RcEnergyClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = rc_energy_dispose;
  object_class->finalize = rc_energy_finalize;
  signals[SIGNAL_APP_SHARE] = g_signal_new ("app-share", G_TYPE_FROM_CLASS (klass),
                                            G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE,
                                            3, G_TYPE_POINTER, G_TYPE_DOUBLE, G_TYPE_BOOLEAN);
  signals[SIGNAL_BATTERY_CHANGED] = g_signal_new ("battery-changed", G_TYPE_FROM_CLASS (klass),
                                                  G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                                  G_TYPE_NONE, 1, G_TYPE_BOOLEAN);
}

static void
rc_energy_init (RcEnergy *self)
{
  self->cancellable = g_cancellable_new ();
  self->ledger = rc_energy_ledger_new ();
}
