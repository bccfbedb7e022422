/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <gio/gio.h>

#include "rc-authority.h"
#include "rc-generated.h"
#include "rc-registry.h"

G_BEGIN_DECLS

/* What each app costs: joins the energy source (rc-energy-source.h), the
 * ledger that shares each sample out by CPU time (rc-energy-ledger.h) and
 * the 7-day history (rc-energy-history.h), kept in @history_path. At each
 * sample it reads the machine's busy CPU time and every instance's
 * cpu.stat, sets the instances' Power and Energy (announced as
 * AppChanged) and adds the parts to the history, which is written at most
 * every RC_ENERGY_SAVE_DELAY_S after a change and when the daemon stops.
 * Without a source nothing runs.
 *
 * Signals, for the notifier's power drain:
 *   "app-share" (RcApp *app, double share, gboolean foreground)
 *                 on battery, after each sample with energy, for each
 *                 running instance: its part of the sample (0..1) and
 *                 whether it had the focus
 *   "battery-changed" (gboolean on_battery)
 *                 the machine went on its battery or off it */
#define RC_TYPE_ENERGY (rc_energy_get_type ())
G_DECLARE_FINAL_TYPE (RcEnergy, rc_energy, RC, ENERGY, GObject);

#define RC_ENERGY_SAVE_DELAY_S 600

RcEnergy *rc_energy_new (RcRegistry  *registry,
                         RcAuthority *authority,
                         const char  *history_path);
/* The history file: $XDG_STATE_HOME/resource-control/energy. */
char     *rc_energy_default_history_path (void);
/* Serves GetEnergyUsage and ResetEnergyUsage on @object. */
void      rc_energy_serve (RcEnergy              *self,
                           RcDBusResourceControl *object);
/* Writes the history now if it changed (the daemon stops). */
void      rc_energy_save_now (RcEnergy *self);

G_END_DECLS
