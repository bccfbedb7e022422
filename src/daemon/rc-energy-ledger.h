/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The energy ledger: shares out each measured interval's energy among the
 * running app instances by CPU time, as Kepler and scaphandre do. An
 * instance gets E x (its cgroup's cpu.stat usage_usec delta / the
 * machine's busy CPU time delta from /proc/stat); what is left is the
 * system's (services, kernel, idle). When the instances' deltas add up to
 * more than the machine's (the two clocks are read a moment apart), their
 * sum is the divisor, so no interval ever hands out more than E.
 *
 * Everything is integer microjoules, so the invariants hold exactly:
 * the instances' parts plus the system's part equal E; no counter goes
 * backwards; an instance that stopped is forgotten here only, its energy
 * stays wherever the caller put it (the history). Pure: no I/O. */
typedef struct _RcEnergyLedger RcEnergyLedger;

/* One running instance at a sample. */
typedef struct {
  const char *unit;
  const char *app_id;        /* interned */
  guint64     usage_usec;    /* cumulative cpu.stat usage_usec; G_MAXUINT64: unknown */
  gboolean    foreground;    /* it has the focus */
} RcEnergyReading;

/* One instance's part of an interval (only parts above 0 are given). */
typedef struct {
  const char *unit;          /* the reading's, valid as long as it */
  const char *app_id;
  guint64     energy_uj;
  gboolean    foreground;
} RcEnergyShare;

RcEnergyLedger *rc_energy_ledger_new (void);
void            rc_energy_ledger_free (RcEnergyLedger *self);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RcEnergyLedger, rc_energy_ledger_free);

/* One interval of @interval_usec in which @energy_uj was measured;
 * @busy_usec is the machine's cumulative busy CPU time now, @readings
 * (@n_readings) every running instance now. Appends each instance's part
 * to @out_shares (RcEnergyShare) and returns the system's part. The first
 * sample only sets the baselines: all of its energy is the system's. An
 * instance not seen before started within the interval (its counter began
 * at 0); one whose counter went back is counted from its new value. */
guint64         rc_energy_ledger_add_sample (RcEnergyLedger        *self,
                                             guint64                energy_uj,
                                             guint64                interval_usec,
                                             guint64                busy_usec,
                                             const RcEnergyReading *readings,
                                             guint                  n_readings,
                                             GArray                *out_shares);
/* @unit stopped: its counters go. */
void            rc_energy_ledger_forget (RcEnergyLedger *self,
                                         const char     *unit);
/* @unit's energy since it started (or since the ledger knew it) and its
 * power over the last interval (W). FALSE for an unknown unit. */
gboolean        rc_energy_ledger_lookup (RcEnergyLedger *self,
                                         const char     *unit,
                                         guint64        *out_energy_uj,
                                         double         *out_power_w);
/* Everything measured, and the system's part of it, since the ledger began. */
guint64         rc_energy_ledger_get_total_uj (RcEnergyLedger *self);
guint64         rc_energy_ledger_get_system_uj (RcEnergyLedger *self);

/* The busy CPU time in @proc_stat (the text of /proc/stat): user, nice,
 * system, irq, softirq and steal of the "cpu" line, in microseconds.
 * FALSE when the line is missing or malformed. */
gboolean        rc_energy_parse_proc_stat (const char *proc_stat,
                                           guint64    *out_busy_usec);

G_END_DECLS
