/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* Where the energy ledger's measurements come from, without privileges:
 *
 *   "rapl"    the package (or, where there is one, the whole platform's
 *             "psys") counters under /sys/class/powercap/intel-rapl:N,
 *             when this user can already read them (root-only since Linux
 *             5.10: nobody is asked to open them up). Read by a timer that
 *             runs only while they are readable.
 *   "upower"  UPower's DisplayDevice on the system bus, while it is a
 *             present battery: while it discharges, its EnergyRate (W)
 *             held over the time to the next update. A sample rides on
 *             UPower's own PropertiesChanged as it polls the battery: no
 *             timer. On AC nothing is measured and nothing runs.
 *   ""        neither: rc_energy_source_get_reason says why.
 *
 * Signals:
 *   "sample" (guint64 energy_uj, guint64 interval_usec)
 *                 energy measured over an interval (0 J: a new baseline,
 *                 as when the battery starts to discharge)
 *   "changed" ()  the source, whether it measures or whether the machine
 *                 runs on its battery changed */
#define RC_TYPE_ENERGY_SOURCE (rc_energy_source_get_type ())
G_DECLARE_FINAL_TYPE (RcEnergySource, rc_energy_source, RC, ENERGY_SOURCE, GObject);

/* RAPL's interval: often enough for a fair share, rarely enough to cost
 * nothing (with --test-hooks, RC_ENERGY_RAPL_INTERVAL_MS). */
#define RC_ENERGY_RAPL_INTERVAL_MS 10000

RcEnergySource *rc_energy_source_new (void);
/* "rapl", "upower" or "". */
const char     *rc_energy_source_get_name (RcEnergySource *self);
/* Whether samples come now (RAPL, or a discharging battery). */
gboolean        rc_energy_source_is_measuring (RcEnergySource *self);
/* Whether UPower says the machine runs on its battery now (a present
 * battery that discharges), whatever the source. */
gboolean        rc_energy_source_on_battery (RcEnergySource *self);
/* Why there is no source, in a user's words; "" when there is one. */
const char     *rc_energy_source_get_reason (RcEnergySource *self);

G_END_DECLS
