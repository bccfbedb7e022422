/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* What every part that talks to the user's service manager shares (RcSystemd
 * and the start jobs it hands transient units to): the call timeout, its
 * errors in the API's terms and subscribing to its signals. Apart from both,
 * so that RcSystemd may own its start jobs without them reaching back. */

/* systemd answers quickly or not at all; a stuck manager must not keep a
 * client waiting for D-Bus's default 25 s on every request. */
#define RC_SYSTEMD_TIMEOUT_MSEC 20000

/* A systemd error as the API's: NoSuchApp for a unit or pid systemd does
 * not know, Failed with systemd's message otherwise. */
GError *rc_systemd_error_from_dbus (GError *error);
/* Subscribes @callback to the manager's signal @member. */
guint   rc_systemd_subscribe_manager (GDBusConnection    *connection,
                                      const char         *member,
                                      GDBusSignalCallback callback,
                                      gpointer            user_data);

G_END_DECLS
