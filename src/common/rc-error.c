/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "rc-error.h"
#include "rc-names.h"

/* *INDENT-OFF* */
static const GDBusErrorEntry rc_error_entries[] = {
  { RC_ERROR_INVALID_ARGUMENT, RC_DBUS_ERROR_PREFIX "InvalidArgument" },
  { RC_ERROR_PROTECTED,        RC_DBUS_ERROR_PREFIX "Protected" },
  { RC_ERROR_NO_SUCH_APP,      RC_DBUS_ERROR_PREFIX "NoSuchApp" },
  { RC_ERROR_NOT_AUTHORIZED,   RC_DBUS_ERROR_PREFIX "NotAuthorized" },
  { RC_ERROR_NOT_SUPPORTED,    RC_DBUS_ERROR_PREFIX "NotSupported" },
  { RC_ERROR_WOULD_KILL,       RC_DBUS_ERROR_PREFIX "WouldKill" },
  { RC_ERROR_FAILED,           RC_DBUS_ERROR_PREFIX "Failed" },
};
/* *INDENT-ON* */

G_STATIC_ASSERT (G_N_ELEMENTS (rc_error_entries) == RC_ERROR_FAILED + 1);

GQuark
rc_error_quark (void)
{
  static gsize quark = 0;

  g_dbus_error_register_error_domain ("rc-error-quark", &quark,
                                      rc_error_entries,
                                      G_N_ELEMENTS (rc_error_entries));
  return (GQuark) quark;
}
