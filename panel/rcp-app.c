/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "rcp-app.h"

#include <string.h>

#include "rc-api-keys.h"

typedef struct
{
  char     *unit;
  GVariant *record;       /* a{sv}, the daemon's keys */
  guint64   prev_usage;   /* CPUUsageNSec at the last sample */
  gboolean  has_prev;
} Instance;

struct _RcpApp
{
  GObject parent_instance;

  char      *app_id;
  GPtrArray *instances;   /* Instance, sorted by unit */
  gint64     prev_sample_usec;
  double     history[RCP_APP_HISTORY];
  guint      history_len;

  /* what the limits do, at the last sample */
  gboolean has_limit_sample;
  guint64  prev_memory_hits;      /* memory.events high + max */
  guint64  prev_throttled_usec;
  gint64   memory_rose_usec;      /* when a sample last saw them rise; 0: never */
  gint64   cpu_rose_usec;
  RcpHeld  held;
};

G_DEFINE_TYPE (RcpApp, rcp_app, G_TYPE_OBJECT)

enum { SIGNAL_CHANGED, N_SIGNALS };
static guint signals[N_SIGNALS];

static void
instance_free (gpointer data)
{
  Instance *inst = data;

  g_free (inst->unit);
  g_clear_pointer (&inst->record, g_variant_unref);
  g_free (inst);
}

static void
rcp_app_finalize (GObject *object)
{
  RcpApp *self = RCP_APP (object);

  g_free (self->app_id);
  g_ptr_array_unref (self->instances);
  G_OBJECT_CLASS (rcp_app_parent_class)->finalize (object);
}

static void
rcp_app_class_init (RcpAppClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = rcp_app_finalize;
  signals[SIGNAL_CHANGED] = g_signal_new ("changed", G_TYPE_FROM_CLASS (klass),
                                          G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                          G_TYPE_NONE, 0);
}

static void
rcp_app_init (RcpApp *self)
{
  self->instances = g_ptr_array_new_with_free_func (instance_free);
}

RcpApp *
rcp_app_new (const char *app_id)
{
  RcpApp *self = g_object_new (RCP_TYPE_APP, NULL);

  self->app_id = g_strdup (app_id);
  return self;
}

static Instance *
find_instance (RcpApp     *self,
               const char *unit,
               guint      *out_index)
{
  for (guint i = 0; i < self->instances->len; i++)
    {
      Instance *inst = g_ptr_array_index (self->instances, i);
      if (g_str_equal (inst->unit, unit))
        {
          if (out_index != NULL)
            *out_index = i;
          return inst;
        }
    }
  return NULL;
}

static Instance *
first_instance (RcpApp *self)
{
  return self->instances->len > 0 ? g_ptr_array_index (self->instances, 0) : NULL;
}

static const char *
first_string (RcpApp     *self,
              const char *key)
{
  Instance *inst = first_instance (self);
  const char *value = NULL;

  if (inst != NULL && g_variant_lookup (inst->record, key, "&s", &value) && *value != '\0')
    return value;
  return NULL;
}

static gint
compare_instances (gconstpointer a,
                   gconstpointer b)
{
  const Instance *ia = *(const Instance * const *) a;
  const Instance *ib = *(const Instance * const *) b;

  return g_strcmp0 (ia->unit, ib->unit);
}

const char *
rcp_app_get_app_id (RcpApp *self)
{
  return self->app_id;
}

const char *
rcp_app_get_name (RcpApp *self)
{
  const char *name = first_string (self, RC_KEY_NAME);

  return name != NULL ? name : self->app_id;
}

const char *
rcp_app_get_icon (RcpApp *self)
{
  return first_string (self, RC_KEY_ICON);
}

guint
rcp_app_get_n_instances (RcpApp *self)
{
  return self->instances->len;
}

const char *
rcp_app_get_first_unit (RcpApp *self)
{
  Instance *inst = first_instance (self);

  return inst != NULL ? inst->unit : NULL;
}

guint64
rcp_app_get_uint64 (RcpApp     *self,
                    const char *key,
                    guint64     fallback)
{
  Instance *inst = first_instance (self);
  guint64 value;

  if (inst != NULL && g_variant_lookup (inst->record, key, "t", &value))
    return value;
  return fallback;
}

guint64
rcp_app_get_memory_current (RcpApp *self)
{
  guint64 sum = 0;

  for (guint i = 0; i < self->instances->len; i++)
    {
      Instance *inst = g_ptr_array_index (self->instances, i);
      guint64 value;

      /* G_MAXUINT64: not available on this host */
      if (g_variant_lookup (inst->record, RC_KEY_MEMORY_CURRENT, "t", &value) && value != G_MAXUINT64)
        sum += value;
    }
  return sum;
}

guint32
rcp_app_get_cpu_quota (RcpApp *self)
{
  Instance *inst = first_instance (self);
  guint32 value;

  if (inst != NULL && g_variant_lookup (inst->record, RC_KEY_CPU_QUOTA, "u", &value))
    return value;
  return 0;
}

gboolean
rcp_app_get_audio (RcpApp *self)
{
  for (guint i = 0; i < self->instances->len; i++)
    {
      Instance *inst = g_ptr_array_index (self->instances, i);
      gboolean audio = FALSE;

      if (g_variant_lookup (inst->record, RC_KEY_AUDIO, "b", &audio) && audio)
        return TRUE;
    }
  return FALSE;
}

gboolean
rcp_app_get_frozen (RcpApp *self)
{
  if (self->instances->len == 0)
    return FALSE;
  for (guint i = 0; i < self->instances->len; i++)
    {
      Instance *inst = g_ptr_array_index (self->instances, i);
      const char *state = NULL;

      if (!g_variant_lookup (inst->record, RC_KEY_FREEZER_STATE, "&s", &state) ||
          !(g_str_equal (state, "frozen") || g_str_equal (state, "freezing")))
        return FALSE;
    }
  return TRUE;
}

double
rcp_app_get_cpu_percent (RcpApp *self)
{
  return self->history_len > 0 ? self->history[self->history_len - 1] : -1;
}

const double *
rcp_app_get_history (RcpApp *self,
                     guint  *out_len)
{
  *out_len = self->history_len;
  return self->history;
}

/* Each instance's value of @key, for those whose record has it (the
 * daemon leaves out a figure the kernel does not give); NULL if none. */
static GPtrArray *
instance_values (RcpApp             *self,
                 const char         *key,
                 const GVariantType *type)
{
  g_autoptr(GPtrArray) values = g_ptr_array_new_with_free_func ((GDestroyNotify) g_variant_unref);

  for (guint i = 0; i < self->instances->len; i++)
    {
      Instance *inst = g_ptr_array_index (self->instances, i);
      GVariant *value = g_variant_lookup_value (inst->record, key, type);

      if (value != NULL)
        g_ptr_array_add (values, value);
    }
  return values->len > 0 ? g_steal_pointer (&values) : NULL;
}

gboolean
rcp_app_get_memory_event (RcpApp     *self,
                          const char *name,
                          guint64    *out_value)
{
  g_autoptr(GPtrArray) events = instance_values (self, RC_KEY_MEMORY_EVENTS, G_VARIANT_TYPE ("a{st}"));
  guint64 sum = 0;

  if (events == NULL)
    return FALSE;
  for (guint i = 0; i < events->len; i++)
    {
      guint64 value;

      if (g_variant_lookup (g_ptr_array_index (events, i), name, "t", &value))
        sum += value;
    }
  *out_value = sum;
  return TRUE;
}

gboolean
rcp_app_get_pressure (RcpApp     *self,
                      const char *key,
                      double     *out_percent)
{
  g_autoptr(GPtrArray) values = instance_values (self, key, G_VARIANT_TYPE_DOUBLE);
  double highest = 0;

  if (values == NULL)
    return FALSE;
  for (guint i = 0; i < values->len; i++)
    highest = MAX (highest, g_variant_get_double (g_ptr_array_index (values, i)));
  *out_percent = highest;
  return TRUE;
}

static guint64
throttled_usec (RcpApp *self)
{
  g_autoptr(GPtrArray) values = instance_values (self, RC_KEY_CPU_THROTTLED_USEC, G_VARIANT_TYPE_UINT64);
  guint64 sum = 0;

  for (guint i = 0; values != NULL && i < values->len; i++)
    {
      guint64 value = g_variant_get_uint64 (g_ptr_array_index (values, i));

      /* G_MAXUINT64: not available on this host */
      if (value != G_MAXUINT64)
        sum += value;
    }
  return sum;
}

static guint64
memory_hits (RcpApp *self)
{
  guint64 high = 0, max = 0;

  rcp_app_get_memory_event (self, "high", &high);
  rcp_app_get_memory_event (self, "max", &max);
  return high + max;
}

static gboolean
pressure_notable (RcpApp     *self,
                  const char *key)
{
  double percent;

  return rcp_app_get_pressure (self, key, &percent) && percent >= RCP_APP_PRESSURE_NOTABLE;
}

/* The counters are summed over the instances: one that stops makes the
 * sums drop, which is no rise; one that starts with counts of its own
 * makes them grow, which is (it was held back before we saw it). */
static void
sample_limits (RcpApp *self,
               gint64  now_usec)
{
  guint64 hits = memory_hits (self);
  guint64 throttled = throttled_usec (self);

  if (self->has_limit_sample)
    {
      if (hits > self->prev_memory_hits)
        self->memory_rose_usec = now_usec;
      if (throttled > self->prev_throttled_usec)
        self->cpu_rose_usec = now_usec;
    }
  self->prev_memory_hits = hits;
  self->prev_throttled_usec = throttled;
  self->has_limit_sample = TRUE;

  self->held = RCP_HELD_NONE;
  if (self->memory_rose_usec != 0 && now_usec - self->memory_rose_usec < RCP_APP_HELD_USEC)
    self->held |= RCP_HELD_MEMORY;
  if (self->cpu_rose_usec != 0 && now_usec - self->cpu_rose_usec < RCP_APP_HELD_USEC)
    self->held |= RCP_HELD_CPU;
  if (pressure_notable (self, RC_KEY_CPU_PRESSURE) || pressure_notable (self, RC_KEY_MEMORY_PRESSURE) ||
      pressure_notable (self, RC_KEY_IO_PRESSURE))
    self->held |= RCP_HELD_PRESSURE;
}

RcpHeld
rcp_app_get_held (RcpApp *self)
{
  return self->held;
}

gboolean
rcp_app_get_memory_limited (RcpApp *self)
{
  if (self->held & RCP_HELD_MEMORY)
    return TRUE;
  return memory_hits (self) > 0 && pressure_notable (self, RC_KEY_MEMORY_PRESSURE);
}

void
rcp_app_update_instance (RcpApp   *self,
                         GVariant *record)
{
  const char *unit = NULL;
  Instance *inst;

  if (!g_variant_lookup (record, RC_KEY_UNIT, "&s", &unit))
    return;
  inst = find_instance (self, unit, NULL);
  if (inst == NULL)
    {
      inst = g_new0 (Instance, 1);
      inst->unit = g_strdup (unit);
      g_ptr_array_add (self->instances, inst);
      g_ptr_array_sort (self->instances, compare_instances);
    }
  g_clear_pointer (&inst->record, g_variant_unref);
  inst->record = g_variant_ref_sink (record);
  g_signal_emit (self, signals[SIGNAL_CHANGED], 0);
}

gboolean
rcp_app_apply_changes (RcpApp     *self,
                       const char *unit,
                       GVariant   *changed)
{
  Instance *inst = find_instance (self, unit, NULL);
  g_auto(GVariantDict) dict = G_VARIANT_DICT_INIT (NULL);
  GVariantIter iter;
  const char *key;
  GVariant *value;

  if (inst == NULL)
    return FALSE;
  g_variant_dict_init (&dict, inst->record);
  g_variant_iter_init (&iter, changed);
  while (g_variant_iter_loop (&iter, "{&sv}", &key, &value))
    g_variant_dict_insert_value (&dict, key, value);
  g_clear_pointer (&inst->record, g_variant_unref);
  inst->record = g_variant_ref_sink (g_variant_dict_end (&dict));
  g_signal_emit (self, signals[SIGNAL_CHANGED], 0);
  return TRUE;
}

gboolean
rcp_app_remove_instance (RcpApp     *self,
                         const char *unit)
{
  guint index;

  if (find_instance (self, unit, &index) == NULL)
    return FALSE;
  g_ptr_array_remove_index (self->instances, index);
  g_signal_emit (self, signals[SIGNAL_CHANGED], 0);
  return TRUE;
}

gboolean
rcp_app_has_instance (RcpApp     *self,
                      const char *unit)
{
  return find_instance (self, unit, NULL) != NULL;
}

void
rcp_app_retain_instances (RcpApp     *self,
                          GHashTable *units)
{
  gboolean removed = FALSE;

  for (guint i = self->instances->len; i > 0; i--)
    {
      Instance *inst = g_ptr_array_index (self->instances, i - 1);
      if (!g_hash_table_contains (units, inst->unit))
        {
          g_ptr_array_remove_index (self->instances, i - 1);
          removed = TRUE;
        }
    }
  if (removed)
    g_signal_emit (self, signals[SIGNAL_CHANGED], 0);
}

void
rcp_app_sample (RcpApp *self,
                gint64  now_usec)
{
  guint64 delta_nsec = 0;
  gboolean have_delta = FALSE;
  gint64 elapsed = now_usec - self->prev_sample_usec;

  for (guint i = 0; i < self->instances->len; i++)
    {
      Instance *inst = g_ptr_array_index (self->instances, i);
      guint64 usage;

      if (!g_variant_lookup (inst->record, RC_KEY_CPU_USAGE_NSEC, "t", &usage) || usage == G_MAXUINT64)
        {
          inst->has_prev = FALSE;
          continue;
        }
      /* An instance seen for the first time has no delta yet. */
      if (inst->has_prev && usage >= inst->prev_usage)
        {
          delta_nsec += usage - inst->prev_usage;
          have_delta = TRUE;
        }
      inst->prev_usage = usage;
      inst->has_prev = TRUE;
    }
  if (have_delta && self->prev_sample_usec > 0 && elapsed > 0)
    {
      double percent = 100.0 * (double) delta_nsec / ((double) elapsed * 1000.0);

      if (self->history_len == RCP_APP_HISTORY)
        {
          memmove (self->history, self->history + 1, sizeof (double) * (RCP_APP_HISTORY - 1));
          self->history_len--;
        }
      self->history[self->history_len++] = percent;
    }
  self->prev_sample_usec = now_usec;
  sample_limits (self, now_usec);
  g_signal_emit (self, signals[SIGNAL_CHANGED], 0);
}
