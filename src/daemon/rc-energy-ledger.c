/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdlib.h>
#include <unistd.h>

#include "rc-energy-ledger.h"

typedef struct {
  guint64 usage_usec;        /* the counter at the last sample */
  guint64 energy_uj;         /* since the ledger knew it */
  double  power_w;           /* over the last interval */
  guint64 seen;              /* the sample that last saw it */
} Instance;

struct _RcEnergyLedger {
  GHashTable *instances;     /* unit (owned) -> Instance */
  gboolean    started;       /* a first sample set the baselines */
  guint64     busy_usec;
  guint64     samples;
  guint64     total_uj;
  guint64     system_uj;
};

RcEnergyLedger *
rc_energy_ledger_new (void)
{
  RcEnergyLedger *self = g_new0 (RcEnergyLedger, 1);

  self->instances = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  return self;
}

void
rc_energy_ledger_free (RcEnergyLedger *self)
{
  if (self == NULL)
    return;
  g_hash_table_unref (self->instances);
  g_free (self);
}

/* @energy_uj x @part / @whole, rounded down, with no overflow: the parts
 * of one interval then never add up to more than @energy_uj. */
static guint64
scale (guint64 energy_uj,
       guint64 part,
       guint64 whole)
{
#ifdef __SIZEOF_INT128__
  return (guint64) (((unsigned __int128) energy_uj * part) / whole);
#else
  long double share = (long double) energy_uj * part / whole;

  return share >= energy_uj ? energy_uj : (guint64) share;
#endif
}

/* How far @reading's counter moved since its instance's last sample; a
 * new instance's counter started at 0 within the interval, unless this is
 * the first sample (the daemon just started: no interval to count yet). */
static guint64
instance_delta (RcEnergyLedger        *self,
                Instance              *instance,
                const RcEnergyReading *reading)
{
  guint64 before;

  if (reading->usage_usec == G_MAXUINT64)
    return 0;
  if (instance->seen == 0)
    before = self->started ? 0 : reading->usage_usec;
  else
    before = instance->usage_usec;
  /* a counter that went back (a new cgroup under the same name) counts
   * from where it is now */
  return reading->usage_usec >= before ? reading->usage_usec - before : 0;
}

static gboolean
not_seen (gpointer key,
          gpointer value,
          gpointer user_data)
{
  const Instance *instance = value;
  const RcEnergyLedger *self = user_data;

  return instance->seen != self->samples;
}

guint64
rc_energy_ledger_add_sample (RcEnergyLedger        *self,
                             guint64                energy_uj,
                             guint64                interval_usec,
                             guint64                busy_usec,
                             const RcEnergyReading *readings,
                             guint                  n_readings,
                             GArray                *out_shares)
{
  g_autofree guint64 *deltas = g_new0 (guint64, n_readings);
  g_autofree Instance * *instances = g_new0 (Instance *, n_readings);
  guint64 busy_delta = 0, apps_delta = 0, divisor, system_uj = energy_uj;

  self->samples++;
  if (self->started && busy_usec >= self->busy_usec)
    busy_delta = busy_usec - self->busy_usec;
  for (guint i = 0; i < n_readings; i++)
    {
      Instance *instance = g_hash_table_lookup (self->instances, readings[i].unit);

      if (instance == NULL)
        {
          instance = g_new0 (Instance, 1);
          g_hash_table_insert (self->instances, g_strdup (readings[i].unit), instance);
        }
      instances[i] = instance;
      deltas[i] = instance_delta (self, instance, &readings[i]);
      /* no overflow: the sum is capped where it could not matter */
      apps_delta = deltas[i] > G_MAXUINT64 - apps_delta ? G_MAXUINT64 : apps_delta + deltas[i];
    }
  divisor = MAX (busy_delta, apps_delta);
  for (guint i = 0; i < n_readings; i++)
    {
      Instance *instance = instances[i];
      guint64 part = 0;

      if (self->started && divisor > 0 && deltas[i] > 0)
        part = scale (energy_uj, MIN (deltas[i], divisor), divisor);
      part = MIN (part, system_uj);
      system_uj -= part;
      instance->energy_uj += part;
      instance->power_w = interval_usec > 0 ? (double) part / interval_usec : 0;
      if (readings[i].usage_usec != G_MAXUINT64)
        instance->usage_usec = readings[i].usage_usec;
      instance->seen = self->samples;
      if (part > 0 && out_shares != NULL)
        {
          RcEnergyShare share = {
            readings[i].unit, readings[i].app_id, part, readings[i].foreground
          };

          g_array_append_val (out_shares, share);
        }
    }
  /* an instance this sample did not see has stopped */
  g_hash_table_foreach_remove (self->instances, not_seen, self);
  self->started = TRUE;
  self->busy_usec = busy_usec;
  self->total_uj += energy_uj;
  self->system_uj += system_uj;
  return system_uj;
}

void
rc_energy_ledger_forget (RcEnergyLedger *self,
                         const char     *unit)
{
  g_hash_table_remove (self->instances, unit);
}

gboolean
rc_energy_ledger_lookup (RcEnergyLedger *self,
                         const char     *unit,
                         guint64        *out_energy_uj,
                         double         *out_power_w)
{
  Instance *instance = g_hash_table_lookup (self->instances, unit);

  if (instance == NULL)
    return FALSE;
  *out_energy_uj = instance->energy_uj;
  *out_power_w = instance->power_w;
  return TRUE;
}

guint64
rc_energy_ledger_get_total_uj (RcEnergyLedger *self)
{
  return self->total_uj;
}

guint64
rc_energy_ledger_get_system_uj (RcEnergyLedger *self)
{
  return self->system_uj;
}

gboolean
rc_energy_parse_proc_stat (const char *proc_stat,
                           guint64    *out_busy_usec)
{
  /* user nice system idle iowait irq softirq steal: guest time is in
   * user already, idle and iowait are not work */
  static const gboolean busy[] = { TRUE, TRUE, TRUE, FALSE, FALSE, TRUE, TRUE, TRUE };
  long ticks_per_second = sysconf (_SC_CLK_TCK);
  const char *p = proc_stat;
  guint64 ticks = 0;

  if (ticks_per_second <= 0)
    ticks_per_second = 100;
  if (!g_str_has_prefix (p, "cpu "))
    return FALSE;
  p += 4;
  for (guint i = 0; i < G_N_ELEMENTS (busy); i++)
    {
      char *end;
      guint64 value;

      while (*p == ' ')
        p++;
      if (!g_ascii_isdigit (*p))
        return FALSE;
      value = g_ascii_strtoull (p, &end, 10);
      if (end == p || value > G_MAXUINT64 / 1000000 / 8)
        return FALSE;
      if (busy[i])
        ticks += value;
      p = end;
    }
  *out_busy_usec = ticks * (1000000 / ticks_per_second);
  return TRUE;
}
