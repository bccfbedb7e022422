/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "rc-app.h"
#include "rc-api-keys.h"
#include "rc-cgroup.h"
#include "rc-desktop-lookup.h"
#include "rc-file-reader.h"
#include "rc-heap.h"
#include "rc-unit-name.h"

#include <string.h>

static void
rc_app_free (RcApp *app)
{
  g_ref_string_release (app->unit);
  g_ref_string_release (app->object_path);
  g_ref_string_release (app->control_group);
  rc_cgroup_handle_free (app->cgroup);
}

RcApp *
rc_app_new (const char *unit,
            const char *object_path,
            const char *app_id,
            const char *launcher)
{
  RcApp *app = g_rc_box_new0 (RcApp);

  app->unit = rc_shared_string (unit);
  app->object_path = rc_shared_string (object_path);
  app->control_group = rc_shared_string ("");
  app->app_id = g_intern_string (app_id);
  app->launcher = g_intern_string (launcher);
  app->name = app->app_id;
  app->icon = g_intern_static_string ("");
  app->desktop_file = app->icon;
  app->slice = app->icon;
  app->active_state = app->icon;
  app->freezer_state = g_intern_static_string ("running");
  return app;
}

RcApp *
rc_app_ref (RcApp *app)
{
  return g_rc_box_acquire (app);
}

void
rc_app_unref (RcApp *app)
{
  if (app != NULL)
    g_rc_box_release_full (app, (GDestroyNotify) rc_app_free);
}

void
rc_app_set (RcApp       *app,
            const char **field,
            const char  *value)
{
  const char *interned = g_intern_string (value != NULL ? value : "");

  *field = interned;
}

#define set_string(field, value) rc_app_set (app, field, value)

/* Name and Icon come from the desktop file, found in the XDG applications
 * folders by rc_desktop_lookup (never by GIO's own index, which opens what
 * an app put there blocking and reads it whole). A unit whose SourcePath is
 * a .desktop file names it directly, and that wins over the parsed AppID.
 * Runs in a file reader's worker too: it touches no RcApp. */
static RcDesktopEntry *
read_desktop_entry (const char *unit,
                    const char *source_path,
                    const char *app_id)
{
  RcDesktopEntry *entry = NULL;
  g_autoptr(GError) error = NULL;

  if (source_path != NULL && g_str_has_suffix (source_path, ".desktop"))
    {
      /* Any process of the user may name any file as a unit's SourcePath:
       * a FIFO must not stall the daemon, nor /dev/zero fill its memory. */
      entry = rc_desktop_load_file (source_path, &error);
      if (entry != NULL)
        return entry;
      g_message ("%s: its SourcePath is not read: %s", unit, error->message);
      g_clear_error (&error);
    }
  entry = rc_desktop_lookup (app_id, &error);
  if (entry == NULL && !g_error_matches (error, G_FILE_ERROR, G_FILE_ERROR_NOENT))
    g_message ("%s: the desktop file of %s is not read: %s", unit, app_id, error->message);
  return entry;
}

/* A SourcePath "<AppID>.desktop" names the app. */
static void
take_source_path_id (RcApp      *app,
                     const char *source_path)
{
  g_autofree char *base = source_path != NULL ? rc_desktop_file_id (source_path) : NULL;

  if (base != NULL && rc_app_id_is_valid (base))
    set_string (&app->app_id, base);
}

typedef struct {
  char *unit;
  char *source_path;
  char *app_id;
} DescribeInput;

static void
describe_input_free (DescribeInput *input)
{
  g_free (input->unit);
  g_free (input->source_path);
  g_free (input->app_id);
  g_free (input);
}

static gpointer
describe_in_worker (gpointer data,
                    GError **error)
{
  DescribeInput *input = data;
  RcDesktopEntry *entry = read_desktop_entry (input->unit, input->source_path, input->app_id);

  if (entry == NULL)
    g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_NOENT, "%s has no desktop file", input->unit);
  return entry;
}

void
rc_app_describe_async (RcApp              *app,
                       const char         *source_path,
                       GCancellable       *cancellable,
                       GAsyncReadyCallback callback,
                       gpointer            user_data)
{
  DescribeInput *input = g_new0 (DescribeInput, 1);
  g_autofree char *what = NULL;

  take_source_path_id (app, source_path);
  input->unit = g_strdup (app->unit);
  input->source_path = g_strdup (source_path);
  input->app_id = g_strdup (app->app_id);
  what = g_strdup_printf ("the desktop file of %s", app->unit);
  rc_file_reader_run_async (rc_file_reader_get_default (), what, describe_in_worker, input,
                            (GDestroyNotify) describe_input_free,
                            (GDestroyNotify) rc_desktop_entry_free, cancellable, callback,
                            user_data);
}

gboolean
rc_app_describe_finish (RcApp        *app,
                        GAsyncResult *result,
                        GError      **error)
{
  g_autoptr(GError) local_error = NULL;
  g_autoptr(RcDesktopEntry) entry = rc_file_reader_run_finish (rc_file_reader_get_default (),
                                                               result, &local_error);

  if (g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      g_propagate_error (error, g_steal_pointer (&local_error));
      return FALSE;
    }
  /* timed out or every reader stuck: listed with its AppID as its Name */
  if (entry == NULL && !g_error_matches (local_error, G_FILE_ERROR, G_FILE_ERROR_NOENT))
    g_message ("%s: %s", app->unit, local_error->message);
  rc_app_apply_desktop_entry (app, entry);
  return TRUE;
}

void
rc_app_apply_desktop_entry (RcApp                *app,
                            const RcDesktopEntry *entry)
{
  if (entry == NULL)
    {
      set_string (&app->name, app->app_id);
      return;
    }
  set_string (&app->name, entry->name != NULL ? entry->name : app->app_id);
  set_string (&app->desktop_file, entry->path);
  set_string (&app->icon, entry->icon);
}

/* app.slice, background.slice and their children (systemd names a child of
 * a.slice "a-<something>.slice"). */
gboolean
rc_app_is_controllable_slice (const char *slice)
{
  static const char * const roots[] = { "app", "background" };

  if (slice == NULL)
    return FALSE;
  for (guint i = 0; i < G_N_ELEMENTS (roots); i++)
    {
      gsize len = strlen (roots[i]);

      if (strncmp (slice, roots[i], len) != 0 || !g_str_has_suffix (slice, ".slice"))
        continue;
      if (strcmp (slice + len, ".slice") == 0 ||
          (slice[len] == '-' && strlen (slice + len) > strlen ("-.slice")))
        return TRUE;
    }
  return FALSE;
}

void
rc_app_forget_limits (RcApp *app)
{
  app->limits_known = FALSE;
}

void
rc_app_set_control_group (RcApp      *app,
                          const char *control_group)
{
  if (g_strcmp0 (app->control_group, control_group) == 0)
    return;
  g_ref_string_release (app->control_group);
  app->control_group = rc_shared_string (control_group);
  g_clear_pointer (&app->cgroup, rc_cgroup_handle_free);
  rc_app_forget_limits (app);
}

/* Opens the app's folder to keep, and reads its limits unless they are
 * kept (no folder to keep: gone, or past the open file budget: they are
 * read from files opened for this read). */
static void
open_cgroup (RcApp *app)
{
  if (app->cgroup == NULL)
    app->cgroup = rc_cgroup_handle_open (app->control_group);
  if (!app->limits_known)
    {
      RcCgroupStats read = { 0 };

      if (app->cgroup != NULL)
        rc_cgroup_handle_read_limits (app->cgroup, &read);
      else
        rc_cgroup_read_limits (app->control_group, &read);
      app->limits = (RcAppLimits) {
        .cpu_weight = read.cpu_weight, .io_weight = read.io_weight,
        .memory_low = read.memory_low, .memory_high = read.memory_high,
        .memory_max = read.memory_max, .tasks_max = read.tasks_max,
        .memory_min = read.memory_min, .memory_swap_max = read.memory_swap_max,
        .cpu_quota = read.cpu_quota,
      };
      app->limits_known = app->limits_settling == 0;
    }
}

/* The limits open_cgroup () left, with usage and pids from the files kept
 * open, or opened for this read. */
static void
read_usage (RcApp         *app,
            RcCgroupStats *out_stats,
            GArray        *out_pids,
            gboolean       reports)
{
  const RcAppLimits *limits = &app->limits;

  *out_stats = (RcCgroupStats) {
    .cpu_weight = limits->cpu_weight, .io_weight = limits->io_weight,
    .memory_low = limits->memory_low, .memory_high = limits->memory_high,
    .memory_max = limits->memory_max, .tasks_max = limits->tasks_max,
    .memory_min = limits->memory_min, .memory_swap_max = limits->memory_swap_max,
    .cpu_quota = limits->cpu_quota,
  };
  if (app->cgroup != NULL)
    rc_cgroup_handle_read_usage (app->cgroup, out_stats, out_pids, reports);
  else
    rc_cgroup_read_usage (app->control_group, out_stats, out_pids, reports);
}

/* The keys of a record: what the registry knows, the limits, the usage. */
enum {
  KEY_UNIT, KEY_APP_ID, KEY_LAUNCHER, KEY_NAME, KEY_ICON, KEY_DESKTOP_FILE, KEY_SLICE,
  KEY_ACTIVE_STATE, KEY_FREEZER_STATE, KEY_AUDIO, KEY_CPU_WEIGHT, KEY_IO_WEIGHT, KEY_CPU_QUOTA,
  KEY_MEMORY_LOW, KEY_MEMORY_HIGH, KEY_MEMORY_MAX, KEY_TASKS_MAX, KEY_MEMORY_MIN,
  KEY_MEMORY_SWAP_MAX, KEY_PIDS, KEY_MEMORY_CURRENT, KEY_CPU_USAGE_NSEC, KEY_TASKS_CURRENT,
  KEY_CPU_THROTTLED_USEC, KEY_MEMORY_EVENTS, KEY_CPU_PRESSURE, KEY_MEMORY_PRESSURE,
  KEY_IO_PRESSURE, KEY_POWER, KEY_ENERGY,
  N_KEYS
};

/* The key strings, made once and shared by every record: a ListApps at
 * 1,000 apps has 20,000 entries. */
static GVariant * const *
record_keys (void)
{
  static const char * const names[N_KEYS] = {
    RC_KEY_UNIT, RC_KEY_APP_ID, RC_KEY_LAUNCHER, RC_KEY_NAME, RC_KEY_ICON, RC_KEY_DESKTOP_FILE,
    RC_KEY_SLICE, RC_KEY_ACTIVE_STATE, RC_KEY_FREEZER_STATE, RC_KEY_AUDIO, RC_KEY_CPU_WEIGHT,
    RC_KEY_IO_WEIGHT,
    RC_KEY_CPU_QUOTA, RC_KEY_MEMORY_LOW, RC_KEY_MEMORY_HIGH, RC_KEY_MEMORY_MAX, RC_KEY_TASKS_MAX,
    RC_KEY_MEMORY_MIN, RC_KEY_MEMORY_SWAP_MAX,
    RC_KEY_PIDS, RC_KEY_MEMORY_CURRENT, RC_KEY_CPU_USAGE_NSEC, RC_KEY_TASKS_CURRENT,
    RC_KEY_CPU_THROTTLED_USEC, RC_KEY_MEMORY_EVENTS, RC_KEY_CPU_PRESSURE, RC_KEY_MEMORY_PRESSURE,
    RC_KEY_IO_PRESSURE, RC_KEY_POWER, RC_KEY_ENERGY,
  };
  static GVariant *keys[N_KEYS];
  static gsize made = 0;

  if (g_once_init_enter (&made))
    {
      for (guint i = 0; i < N_KEYS; i++)
        keys[i] = g_variant_ref_sink (g_variant_new_string (names[i]));
      g_once_init_leave (&made, 1);
    }
  return keys;
}

/* g_variant_new_string refuses a string that is not UTF-8, and a D-Bus
 * message must not carry one: the desktop file's path, from the file
 * system, may be any bytes. */
static GVariant *
new_utf8_string (const char *value)
{
  g_autofree char *valid = NULL;

  if (G_LIKELY (g_utf8_validate (value, -1, NULL)))
    return g_variant_new_string (value);
  valid = g_utf8_make_valid (value, -1);
  return g_variant_new_string (valid);
}

static void
release_shared_string (gpointer text)
{
  g_ref_string_release (text);
}

/* The unit's name as a string GVariant pointing at the app's own copy, not
 * copied nor checked again: systemd's names are ASCII, and GDBus checked
 * the message they came in. g_variant_new_string checks every byte twice
 * and copies them, for each of 1,000 records a listing. */
static GVariant *
unit_string (RcApp *app)
{
  return g_variant_new_from_data (G_VARIANT_TYPE_STRING, app->unit, strlen (app->unit) + 1, TRUE,
                                  release_shared_string, g_ref_string_acquire (app->unit));
}

static GVariant *
record_entry (guint     key,
              GVariant *value)
{
  return g_variant_new_dict_entry (record_keys ()[key], g_variant_new_variant (value));
}

/* Entries are immutable and most are the same in many records of one
 * listing: the AppId, Name, Icon … of every instance of an app, the limits
 * most apps leave at their defaults. Within a listing such entries are made
 * once and shared, which saves making (and type-checking) three GVariants
 * per entry per record. The tables live as long as the listing: kept
 * between calls they held some 85 KiB at 1,000 apps for a saving of a few
 * hundred entries a call. A key's table stops growing at MAX_SHARED
 * distinct values (half its slots: open addressing stays short); the others
 * are made for each record, costing time instead of memory. */
#define SHARED_SLOTS 256
#define MAX_SHARED (SHARED_SLOTS / 2)

typedef struct {
  gint64    value_key;
  GVariant *entry;    /* NULL: a free slot */
} SharedSlot;

struct _RcRecordCache {
  SharedSlot *slots[N_KEYS];   /* SHARED_SLOTS each, taken at the key's first entry */
  guint       n_shared[N_KEYS];
  GArray     *pids;            /* one buffer for every record's cgroup.procs */
};
typedef struct _RcRecordCache RcRecordCache;

static void
record_cache_init (RcRecordCache *cache)
{
  *cache = (RcRecordCache) { 0 };
  cache->pids = g_array_sized_new (FALSE, FALSE, sizeof (guint32), 64);
}

static void
record_cache_clear (RcRecordCache *cache)
{
  for (guint key = 0; key < N_KEYS; key++)
    {
      if (cache->slots[key] == NULL)
        continue;
      for (guint i = 0; i < SHARED_SLOTS; i++)
        g_clear_pointer (&cache->slots[key][i].entry, g_variant_unref);
      g_free (cache->slots[key]);
    }
  g_array_unref (cache->pids);
}

/* Fibonacci hashing: addresses (16-byte aligned) and small counts both
 * spread over the slots. */
static guint
slot_of (gint64 value_key)
{
  return (guint) (((guint64) value_key * G_GUINT64_CONSTANT (0x9E3779B97F4A7C15)) >> 56);
}

G_STATIC_ASSERT (SHARED_SLOTS == 256);

/* @cache NULL: a record alone, nothing shared. */
static GVariant *
shared_entry (RcRecordCache *cache,
              guint          key,
              gint64         value_key,
              GVariant *(*make)(gconstpointer value),
              gconstpointer  value)
{
  SharedSlot *slots;
  GVariant *entry;
  guint i;

  if (cache == NULL)
    return g_variant_ref_sink (record_entry (key, make (value)));
  if (cache->slots[key] == NULL)
    cache->slots[key] = g_new0 (SharedSlot, SHARED_SLOTS);
  slots = cache->slots[key];
  for (i = slot_of (value_key); slots[i].entry != NULL; i = (i + 1) % SHARED_SLOTS)
    if (slots[i].value_key == value_key)
      return g_variant_ref (slots[i].entry);
  entry = g_variant_ref_sink (record_entry (key, make (value)));
  if (cache->n_shared[key] < MAX_SHARED)
    {
      slots[i] = (SharedSlot) { value_key, g_variant_ref (entry) };
      cache->n_shared[key]++;
    }
  return entry;
}

/* @value: interned, so it lives as long as the daemon and the GVariant
 * may point at it, checked once instead of twice and not copied. */
static GVariant *
make_string (gconstpointer value)
{
  gsize length = strlen (value);

  if (G_LIKELY (g_utf8_validate (value, length, NULL)))
    return g_variant_new_from_data (G_VARIANT_TYPE_STRING, value, length + 1, TRUE, NULL, NULL);
  return new_utf8_string (value);
}

/* @value: interned, so its address names it. */
static GVariant *
string_entry (RcRecordCache *cache,
              guint          key,
              const char    *value)
{
  return shared_entry (cache, key, (gint64) (gintptr) value, make_string, value);
}

static GVariant *
make_u64 (gconstpointer value)
{
  return g_variant_new_uint64 (*(const guint64 *) value);
}

static GVariant *
u64_entry (RcRecordCache *cache,
           guint          key,
           guint64        value)
{
  return shared_entry (cache, key, (gint64) value, make_u64, &value);
}

static GVariant *
make_u32 (gconstpointer value)
{
  return g_variant_new_uint32 ((guint32) *(const guint64 *) value);
}

static GVariant *
u32_entry (RcRecordCache *cache,
           guint          key,
           guint32        value)
{
  guint64 wide = value;

  return shared_entry (cache, key, (gint64) wide, make_u32, &wide);
}

static GVariant *
make_boolean (gconstpointer value)
{
  return g_variant_new_boolean (*(const guint64 *) value != 0);
}

static GVariant *
boolean_entry (RcRecordCache *cache,
               guint          key,
               gboolean       value)
{
  guint64 wide = value != FALSE;

  return shared_entry (cache, key, (gint64) wide, make_boolean, &wide);
}

static GVariant *
make_double (gconstpointer value)
{
  return g_variant_new_double (*(const double *) value);
}

/* Pressure reads 0.00 for most apps most of the time. */
static GVariant *
double_entry (RcRecordCache *cache,
              guint          key,
              double         value)
{
  gint64 bits;

  G_STATIC_ASSERT (sizeof bits == sizeof value);
  memcpy (&bits, &value, sizeof bits);
  return shared_entry (cache, key, bits, make_double, &value);
}

static GVariant *
make_variant (gconstpointer value)
{
  return (GVariant *) value;
}

/* @value: one the cgroup reader keeps for good, so its address names it. */
static GVariant *
variant_entry (RcRecordCache *cache,
               guint          key,
               GVariant      *value)
{
  return shared_entry (cache, key, (gint64) (gintptr) value, make_variant, value);
}

/* A limit at its none value: no quota or protection (0), no limit or no
 * such file (G_MAXUINT64). */
static gboolean
limit_is_none (guint   key,
               guint64 value)
{
  if (key == KEY_CPU_QUOTA || key == KEY_MEMORY_LOW || key == KEY_MEMORY_MIN)
    return value == 0;
  return value == G_MAXUINT64;
}

/* The record of @app, whose folder open_cgroup () has seen. A full record
 * has every key and what the limits do (CPUThrottledUSec, MemoryEvents, the
 * pressures). The listing's (ListApps) has neither those nor the keys at
 * their none value: an empty string or Pids, Audio false, a limit that
 * limit_is_none (). At 1,000 apps each entry is four GVariants more for
 * GDBus to write and for every client to read, and most apps have no icon
 * of their own, no sound and no limits but their weight and TasksMax. */
static GVariant *
build_record (RcApp          *app,
              RcAppRecordKind kind,
              RcRecordCache  *cache)
{
  /* a listing reuses its cache's array; a single record has its own */
  g_autoptr(GArray) own_pids = cache == NULL ?
                               g_array_sized_new (FALSE, FALSE, sizeof (guint32), 8) : NULL;
  GArray *pids = cache != NULL ? cache->pids : own_pids;
  gboolean full = kind == RC_APP_RECORD_FULL;
  GVariant *entries[N_KEYS];
  GVariant *record;
  RcCgroupStats stats;
  const char *strings[KEY_FREEZER_STATE + 1];
  guint64 limits[KEY_MEMORY_SWAP_MAX + 1];
  guint n = 0;

  g_array_set_size (pids, 0);
  read_usage (app, &stats, pids, full);
  entries[n++] = g_variant_ref_sink (record_entry (KEY_UNIT, unit_string (app)));
  strings[KEY_APP_ID] = app->app_id;
  strings[KEY_LAUNCHER] = app->launcher;
  strings[KEY_NAME] = app->name;
  strings[KEY_ICON] = app->icon;
  strings[KEY_DESKTOP_FILE] = app->desktop_file;
  strings[KEY_SLICE] = app->slice;
  strings[KEY_ACTIVE_STATE] = app->active_state;
  strings[KEY_FREEZER_STATE] = app->freezer_state;
  for (guint key = KEY_APP_ID; key <= KEY_FREEZER_STATE; key++)
    if (full || *strings[key] != '\0')
      entries[n++] = string_entry (cache, key, strings[key]);
  if (full || app->audio)
    entries[n++] = boolean_entry (cache, KEY_AUDIO, app->audio);
  limits[KEY_CPU_WEIGHT] = stats.cpu_weight;
  limits[KEY_IO_WEIGHT] = stats.io_weight;
  limits[KEY_CPU_QUOTA] = stats.cpu_quota;
  limits[KEY_MEMORY_LOW] = stats.memory_low;
  limits[KEY_MEMORY_HIGH] = stats.memory_high;
  limits[KEY_MEMORY_MAX] = stats.memory_max;
  limits[KEY_TASKS_MAX] = stats.tasks_max;
  limits[KEY_MEMORY_MIN] = stats.memory_min;
  limits[KEY_MEMORY_SWAP_MAX] = stats.memory_swap_max;
  for (guint key = KEY_CPU_WEIGHT; key <= KEY_MEMORY_SWAP_MAX; key++)
    {
      if (!full && limit_is_none (key, limits[key]))
        continue;
      if (key == KEY_CPU_QUOTA)
        entries[n++] = u32_entry (cache, key, stats.cpu_quota);
      else
        entries[n++] = u64_entry (cache, key, limits[key]);
    }
  /* usage: read for this record; an entry is shared only where many apps
   * have the same figure (TasksCurrent: most apps have a few tasks) */
  if (full || pids->len > 0)
    entries[n++] = g_variant_ref_sink (record_entry (KEY_PIDS,
                                                     g_variant_new_fixed_array (G_VARIANT_TYPE_UINT32,
                                                                                pids->data, pids->len,
                                                                                sizeof (guint32))));
  entries[n++] = g_variant_ref_sink (record_entry (KEY_MEMORY_CURRENT,
                                                   g_variant_new_uint64 (stats.memory_current)));
  entries[n++] = g_variant_ref_sink (record_entry (KEY_CPU_USAGE_NSEC,
                                                   g_variant_new_uint64 (stats.cpu_usage_nsec)));
  entries[n++] = u64_entry (cache, KEY_TASKS_CURRENT, stats.tasks_current);
  if (full)
    entries[n++] = g_variant_ref_sink (record_entry (KEY_CPU_THROTTLED_USEC,
                                                     g_variant_new_uint64 (stats.cpu_throttled_usec)));
  /* What the kernel has no file for is left out, not made up. */
  if (stats.memory_events != NULL)
    {
      if (stats.memory_events_kept)
        entries[n++] = variant_entry (cache, KEY_MEMORY_EVENTS, stats.memory_events);
      else
        entries[n++] = g_variant_ref_sink (record_entry (KEY_MEMORY_EVENTS, stats.memory_events));
      g_variant_unref (stats.memory_events);
    }
  for (guint i = 0; i < RC_N_PRESSURES; i++)
    if (stats.pressure[i] >= 0)
      entries[n++] = double_entry (cache, KEY_CPU_PRESSURE + i, stats.pressure[i]);
  /* in memory already: the ledger reads no file for a record */
  if (app->energy_known)
    {
      entries[n++] = g_variant_ref_sink (record_entry (KEY_POWER,
                                                       g_variant_new_double (app->power_w)));
      entries[n++] = g_variant_ref_sink (record_entry (KEY_ENERGY,
                                                       g_variant_new_double (app->energy_uj / 1e6)));
    }
  record = g_variant_new_array (G_VARIANT_TYPE ("{sv}"), entries, n);
  for (guint i = 0; i < n; i++)
    g_variant_unref (entries[i]);
  return record;
}

gboolean
rc_app_read_cpu_usage (RcApp   *app,
                       guint64 *out_usec)
{
  if (app->cgroup == NULL)
    app->cgroup = rc_cgroup_handle_open (app->control_group);
  return rc_cgroup_read_cpu_usage_usec (app->cgroup, app->control_group, out_usec);
}

gboolean
rc_app_read_memory_current (RcApp   *app,
                            guint64 *out_bytes)
{
  if (app->cgroup == NULL)
    app->cgroup = rc_cgroup_handle_open (app->control_group);
  return rc_cgroup_read_memory_current (app->cgroup, app->control_group, out_bytes);
}

GVariant *
rc_app_to_variant (RcApp *app)
{
  open_cgroup (app);
  return build_record (app, RC_APP_RECORD_FULL, NULL);
}

/* The records of @apps, as one aa{sv}. Every app's folder is opened
 * first and the records built after: the handles, which stay, are then
 * not scattered among the many short-lived blocks of the records, whose
 * pages can go back to the system whole once the reply is sent. */
GVariant *
rc_app_list_to_variant (GPtrArray      *apps,
                        RcAppRecordKind kind)
{
  g_auto(GVariantBuilder) builder = G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE ("aa{sv}"));
  RcRecordCache cache;
  GVariant *list;

  for (guint i = 0; i < apps->len; i++)
    open_cgroup (g_ptr_array_index (apps, i));
  record_cache_init (&cache);
  for (guint i = 0; i < apps->len; i++)
    g_variant_builder_add_value (&builder, build_record (g_ptr_array_index (apps, i), kind, &cache));
  list = g_variant_builder_end (&builder);
  record_cache_clear (&cache);
  return list;
}
