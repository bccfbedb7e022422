/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <gio/gio.h>

#include "rc-systemd.h"
#include "rc-unit-state.h"

G_BEGIN_DECLS

/* The unit tracker: turns systemd's signals (UnitNew, UnitRemoved, the units'
 * PropertiesChanged) and a few reads into the state of every unit that may
 * be an app. It knows nothing of apps' records or of the D-Bus API.
 *
 * Signals:
 *   "ready" ()                     the first full listing is read
 *   "unit-read" (s path, s id, s app_id, s launcher, a{sv} props)
 *                                  a live unit was read: props has ActiveState,
 *                                  FreezerState, SourcePath, Names, Slice,
 *                                  ControlGroup
 *   "unit-down" (s path)           it is not an app any more (stopping, gone)
 *   "unit-active-state" (s path, s state)
 *                                  an app's new ActiveState, still active
 *   "unit-freezer" (s path, s state) FreezerState changed */
#define RC_TYPE_UNIT_TRACKER (rc_unit_tracker_get_type ())
G_DECLARE_FINAL_TYPE (RcUnitTracker, rc_unit_tracker, RC, UNIT_TRACKER, GObject);

RcUnitTracker *rc_unit_tracker_new (RcSystemd *systemd);

G_END_DECLS
