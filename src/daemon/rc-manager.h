/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "rc-authority.h"
#include "rc-focus-tracker.h"
#include "rc-generated.h"
#include "rc-policy.h"
#include "rc-registry.h"
#include "rc-request-queue.h"
#include "rc-rules.h"
#include "rc-slices.h"
#include "rc-systemd.h"

G_BEGIN_DECLS

/* The D-Bus manager object: the org.example.ResourceControl interface at
 * /org/example/ResourceControl. It validates each request, asks the
 * authority, waits for the request's turn in @queue, and has systemd carry
 * it out; it turns registry events into AppAdded, AppRemoved and
 * AppChanged. */
#define RC_TYPE_MANAGER (rc_manager_get_type ())
G_DECLARE_FINAL_TYPE (RcManager, rc_manager, RC, MANAGER, RcDBusResourceControlSkeleton);

RcManager *rc_manager_new (RcRegistry     *registry,
                           RcSystemd      *systemd,
                           RcAuthority    *authority,
                           RcRules        *rules,
                           RcPolicy       *policy,
                           RcRequestQueue *queue,
                           RcSlices       *slices,
                           RcPowerWatch   *power_watch);
/* FocusSource follows @focus; SetForegroundWindowProcess reports to it. */
void       rc_manager_set_focus (RcManager      *self,
                                 RcFocusTracker *focus);

G_END_DECLS
