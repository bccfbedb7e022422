/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "rc-change.h"

G_BEGIN_DECLS

/* Putting apps into units of their own, for desktops that do not: Launch
 * starts a desktop file in a new transient service or scope, Adopt moves
 * running processes into a new scope. Either way the unit gets its limits
 * (the caller's, the app's rule, fairness's CPUWeight) in the call that
 * creates it, and the reply (the unit's name) comes once the unit is active
 * and listed. Bad arguments are refused before anything starts or moves;
 * then the caller is authorized (polkit actions launch and adopt). */
void rc_launch_submit (const RcChangeServices *svc,
                       GDBusMethodInvocation  *invocation,
                       const char             *app_id,
                       const char * const     *uris,
                       GVariant               *options);

void rc_adopt_submit (const RcChangeServices *svc,
                      GDBusMethodInvocation  *invocation,
                      GVariant               *pids,
                      GVariant               *options);

G_END_DECLS
