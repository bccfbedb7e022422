/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* The power watch: power-profiles-daemon's ActiveProfile and UPower's
 * OnBattery, on the system bus. Each service is watched by name and its
 * property through PropertiesChanged: no polling. A service that is not
 * there counts as "no profile" and "on mains power".
 *
 * Signals:
 *   "changed" ()   the profile or the battery state changed */
#define RC_TYPE_POWER_WATCH (rc_power_watch_get_type ())
G_DECLARE_FINAL_TYPE (RcPowerWatch, rc_power_watch, RC, POWER_WATCH, GObject);

RcPowerWatch *rc_power_watch_new (void);
/* "power-saver", "balanced", "performance"; "" without power-profiles-daemon. */
const char   *rc_power_watch_get_profile (RcPowerWatch *self);
gboolean      rc_power_watch_get_on_battery (RcPowerWatch *self);

G_END_DECLS
