/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "rc-change.h"

G_BEGIN_DECLS

/* Adopt: moves running processes, and those below them, into a new scope,
 * for desktops that do not put apps into units of their own. The scope gets
 * its limits (the caller's, the app's rule, fairness's CPUWeight) in the
 * call that creates it, and the reply (the scope's name) comes once it is
 * active and listed. Processes that are not the user's apps are refused
 * before anything moves; then the caller is authorized (polkit action
 * adopt). The steps it shares with Launch are in rc-start-request.h. */
void rc_adopt_submit (const RcChangeServices *svc,
                      GDBusMethodInvocation  *invocation,
                      GVariant               *pids,
                      GVariant               *options);

G_END_DECLS
