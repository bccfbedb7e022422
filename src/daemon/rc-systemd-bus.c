/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "rc-systemd-bus.h"
#include "rc-error.h"
#include "rc-names.h"

GError *
rc_systemd_error_from_dbus (GError *error)
{
  g_autofree char *remote = g_dbus_error_get_remote_error (error);
  GError *translated;

  if (error->domain == RC_ERROR)
    return g_error_copy (error);

  g_dbus_error_strip_remote_error (error);
  if (g_strcmp0 (remote, "org.freedesktop.systemd1.NoSuchUnit") == 0 ||
      g_strcmp0 (remote, "org.freedesktop.systemd1.LoadFailed") == 0 ||
      g_strcmp0 (remote, "org.freedesktop.systemd1.NoUnitForPID") == 0 ||
      g_strcmp0 (remote, "org.freedesktop.DBus.Error.UnknownObject") == 0)
    translated = g_error_new (RC_ERROR, RC_ERROR_NO_SUCH_APP, "%s", error->message);
  else
    translated = g_error_new (RC_ERROR, RC_ERROR_FAILED, "systemd: %s", error->message);
  return translated;
}

guint
rc_systemd_subscribe_manager (GDBusConnection    *connection,
                              const char         *member,
                              GDBusSignalCallback callback,
                              gpointer            user_data)
{
  return g_dbus_connection_signal_subscribe (connection, SYSTEMD_DBUS_NAME,
                                             SYSTEMD_MANAGER_INTERFACE, member, SYSTEMD_DBUS_PATH,
                                             NULL, G_DBUS_SIGNAL_FLAGS_NONE, callback, user_data,
                                             NULL);
}
