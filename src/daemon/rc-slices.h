/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <gio/gio.h>

#include "rc-limits.h"
#include "rc-request-queue.h"
#include "rc-rules.h"
#include "rc-systemd.h"

G_BEGIN_DECLS

/* The user manager's three slices (session.slice for the compositor and the
 * shell, app.slice for apps, background.slice for what may wait): keeps
 * each at its last value set through the API, else its [Slice ...] rule,
 * else systemd's default, through systemd (runtime properties), and reads
 * their cgroup files when asked. Its writes go through @queue like every
 * other change of a unit. */
#define RC_TYPE_SLICES (rc_slices_get_type ())
G_DECLARE_FINAL_TYPE (RcSlices, rc_slices, RC, SLICES, GObject);

RcSlices *rc_slices_new (RcSystemd      *systemd,
                         RcRequestQueue *queue,
                         RcRules        *rules);
/* Is @slice one of the three (a unit name such as "session.slice")? */
gboolean  rc_slices_is_slice (const char *slice);
/* aa{sv}: Unit, the limit keys and the usage keys of each slice. */
GVariant *rc_slices_to_variant (RcSlices *self);

/* Applies @limits to @slice in its turn after @caller's earlier changes:
 * WouldKill (a memory cap below the slice's use, unless forced),
 * NotSupported (IOWeight without io), Failed (systemd). */
void      rc_slices_set_limits_async (RcSlices           *self,
                                      const char         *caller,
                                      const char         *slice,
                                      const RcLimits     *limits,
                                      GCancellable       *cancellable,
                                      GAsyncReadyCallback callback,
                                      gpointer            user_data);
gboolean  rc_slices_set_limits_finish (RcSlices     *self,
                                       GAsyncResult *result,
                                       GError      **error);

G_END_DECLS
