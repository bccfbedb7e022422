/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <gio/gio.h>

/* Like g_clear_handle_id for a D-Bus signal subscription: drops it when
 * there is one and sets *id to 0. A NULL connection (already gone) only
 * clears the id. */
static inline void
rc_clear_subscription (GDBusConnection *connection,
                       guint           *id)
{
  if (connection != NULL && *id != 0)
    g_dbus_connection_signal_unsubscribe (connection, *id);
  *id = 0;
}
