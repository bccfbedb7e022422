/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <gio/gio.h>

#include "rc-authority.h"
#include "rc-generated.h"
#include "rc-limits.h"
#include "rc-policy.h"
#include "rc-registry.h"
#include "rc-request-queue.h"
#include "rc-systemd.h"

G_BEGIN_DECLS

/* One change a D-Bus caller asks for (SetWeight, SetMemoryLimit, SetLimits,
 * ResetLimits, Freeze, Thaw), from arrival to reply: the app is resolved
 * (NoSuchApp, Protected), the caller authorized (NotAuthorized, and the unit
 * holding the caller is Protected), then the change waits for its turn in
 * the request queue, every instance is checked against its cgroup (WouldKill,
 * NotSupported) before anything changes, and systemd applies it instance by
 * instance (a failure names what was changed already). AppChanged is emitted
 * on the skeleton for each instance changed. */
typedef enum {
  RC_CHANGE_LIMITS,
  RC_CHANGE_RESET,
  RC_CHANGE_FREEZE,
  RC_CHANGE_THAW,
} RcChangeKind;

/* What change requests use: the manager's, which each request keeps alive
 * with a reference to @owner (the skeleton the replies and AppChanged go
 * out on). */
typedef struct {
  GObject        *owner;
  RcRegistry     *registry;
  RcSystemd      *systemd;
  RcAuthority    *authority;
  RcPolicy       *policy;
  RcRequestQueue *queue;
  GCancellable   *cancellable;
} RcChangeServices;

/* Takes a request whose arguments passed the syntax checks; replies to
 * @invocation when done. @limits: for RC_CHANGE_LIMITS, else NULL. */
void rc_change_submit (const RcChangeServices *svc,
                       GDBusMethodInvocation  *invocation,
                       RcChangeKind            kind,
                       const char             *app,
                       const RcLimits         *limits);

G_END_DECLS
