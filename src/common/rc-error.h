/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* Each code maps to org.example.ResourceControl.Error.<Name> on the bus. */
typedef enum {
  RC_ERROR_INVALID_ARGUMENT,
  RC_ERROR_PROTECTED,
  RC_ERROR_NO_SUCH_APP,
  RC_ERROR_NOT_AUTHORIZED,
  RC_ERROR_NOT_SUPPORTED,
  RC_ERROR_WOULD_KILL,
  RC_ERROR_FAILED,
} RcError;

#define RC_ERROR (rc_error_quark ())
GQuark rc_error_quark (void);

G_END_DECLS
