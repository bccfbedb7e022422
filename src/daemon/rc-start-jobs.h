/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <gio/gio.h>
#include <gio/gunixfdlist.h>

G_BEGIN_DECLS

/* Starts of transient units and their jobs: StartTransientUnit, then the
 * job's JobRemoved, with a deadline for a job that never ends and an error
 * for every start still waiting when systemd leaves the bus. RcSystemd's
 * rc_systemd_start_transient_unit_async is the way in.
 *
 * Signal "ended" (unit name): a start is over (its job ended, systemd
 * refused it or left, or its deadline passed); the unit is no longer
 * "starting". */
#define RC_TYPE_START_JOBS (rc_start_jobs_get_type ())
G_DECLARE_FINAL_TYPE (RcStartJobs, rc_start_jobs, RC, START_JOBS, GObject);

RcStartJobs *rc_start_jobs_new (GDBusConnection *connection);
/* Errors: Failed (systemd refused, the job ended otherwise than "done",
 * no end within the deadline, systemd left), NoSuchApp. Takes @properties
 * if floating. */
void         rc_start_jobs_start_async (RcStartJobs        *self,
                                        const char         *unit,
                                        GVariant           *properties,
                                        GUnixFDList        *fds,
                                        GCancellable       *cancellable,
                                        GAsyncReadyCallback callback,
                                        gpointer            user_data);
gboolean     rc_start_jobs_start_finish (RcStartJobs  *self,
                                         GAsyncResult *result,
                                         GError      **error);
void         rc_start_jobs_fail_all (RcStartJobs *self);
/* A start of @unit was asked for, and is not over yet. */
gboolean     rc_start_jobs_is_starting (RcStartJobs *self,
                                        const char  *unit);

G_END_DECLS
