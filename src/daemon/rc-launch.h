/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "rc-change.h"

G_BEGIN_DECLS

/* Launch: starts a desktop file in a new transient service or scope, for
 * desktops that do not put apps into units of their own. The unit gets its
 * limits (the caller's, the app's rule, fairness's CPUWeight) in the call
 * that creates it, and the reply (the unit's name) comes once the unit is
 * active and listed, or, with CallerPid, once the caller is in its scope.
 * Bad arguments are refused before anything starts; then the caller is
 * authorized (polkit action launch). The steps it shares with Adopt are in
 * rc-start-request.h. */
void rc_launch_submit (const RcChangeServices *svc,
                       GDBusMethodInvocation  *invocation,
                       const char             *app_id,
                       const char * const     *uris,
                       GVariant               *options);

G_END_DECLS
