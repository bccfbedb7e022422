/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "rc-systemd.h"

G_BEGIN_DECLS

/* Launch with Kind "scope", the daemon's half: asks the user's manager for
 * a transient service running resource-control-scope-helper (a clean
 * context: the manager's defaults, not the daemon's sandbox), hands it the
 * scope's name and properties, the app's argv, environment and folder on
 * its stdin, and reads its answer on its stdout. Returns TRUE once the app
 * runs in @scope; RC_ERROR_FAILED with the helper's reason otherwise.
 * @scope_properties is a floating or owned a(sv) without PIDs. The helper
 * program is $RESOURCE_CONTROL_SCOPE_HELPER when set (tests), else the
 * installed one. */
void     rc_launch_helper_start_async (RcSystemd          *systemd,
                                       const char         *scope,
                                       GVariant           *scope_properties,
                                       const char * const *argv,
                                       const char * const *environment,
                                       const char         *working_directory,
                                       const char         *app_id,
                                       GCancellable       *cancellable,
                                       GAsyncReadyCallback callback,
                                       gpointer            user_data);
gboolean rc_launch_helper_start_finish (GAsyncResult *result,
                                        GError      **error);

/* The helper service's name for @scope's launch: not an app unit. */
char    *rc_launch_helper_unit_name (const char *scope);

G_END_DECLS
