/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "rc-change.h"
#include "rc-launch-options.h"

G_BEGIN_DECLS

/* What a Launch and an Adopt call share, from arrival to reply: the checked
 * options and what was read of the desktop file, the polkit step, the checks
 * of the limits the new unit starts with, the unit's properties, and the
 * reply (the unit's name) once the unit is listed. Each method keeps its own
 * request (rc-launch.c, rc-adopt.c) with this as its first member, and says
 * what it is by @method and @clear, never by a flag. */
typedef struct _RcStartRequest RcStartRequest;

/* Frees what a method's own request holds beyond the shared part. */
typedef void (*RcStartRequestClear) (RcStartRequest *request);

/* The step after polkit said yes; @caller_pid: the pid the bus vouches for. */
typedef void (*RcStartRequestAuthorized) (RcStartRequest *request,
                                          guint32         caller_pid);

struct _RcStartRequest {
  const RcChangeServices  *svc;
  GObject                 *owner;
  GDBusMethodInvocation   *invocation;
  const char              *method;      /* "Launch" or "Adopt", for messages */
  RcStartRequestClear      clear;
  RcStartRequestAuthorized authorized;
  RcUnitKind               kind;
  char                    *app_id;
  char                    *launcher;
  char                    *slice;
  char                    *unit;
  char                    *name;         /* Description */
  char                    *desktop_file; /* SourcePath; NULL for none */
  char                   **argv;         /* what to run, when the method runs something */
  char                   **environment;
  char                    *working_directory;
  RcLimits                 requested;
  gulong                   added_id;
  guint                    timeout_id;
};

/* A new request of @size bytes (the method's own struct, which begins with
 * an RcStartRequest), zeroed but for the shared part. */
gpointer rc_start_request_new (gsize                   size,
                               const char             *method,
                               RcStartRequestClear     clear,
                               const RcChangeServices *svc,
                               GDBusMethodInvocation  *invocation);

/* The checked options, moved into @request. */
void     rc_start_request_take_options (RcStartRequest  *request,
                                        RcLaunchOptions *options);

/* The desktop file read (rc_launch_read_finish), moved into @request;
 * FALSE: @request failed and is gone. */
gboolean rc_start_request_take_read (RcStartRequest *request,
                                     GAsyncResult   *result);

/* Asks polkit whether the caller may; @authorized follows if it may, else
 * @request fails. */
void     rc_start_request_authorize (RcStartRequest          *request,
                                     RcStartRequestAuthorized authorized);

/* Marks @request->unit as starting and works out the limits it starts
 * with (@out_limits): the caller's, the app's rule, fairness's. FALSE:
 * @request failed (a start of that unit under way, a limit this system
 * cannot keep) and is gone. */
gboolean rc_start_request_prepare (RcStartRequest *request,
                                   RcLimits       *out_limits);

/* The unit's properties begun in @props: Description, SourcePath,
 * CollectMode, Slice, and PIDs when @pids is not NULL. The method adds its
 * own, then rc_start_request_end_properties () adds @limits. */
void      rc_start_request_begin_properties (RcStartRequest  *request,
                                             GVariantBuilder *props,
                                             GVariant        *pids);
GVariant *rc_start_request_end_properties (GVariantBuilder *props,
                                           const RcLimits  *limits);

/* The reply comes once the new unit is in ListApps, so that a caller can go
 * on with GetApp or SetLimits on it at once. */
void     rc_start_request_reply_when_listed (RcStartRequest *request);

/* Replies with the unit's name now; frees @request. */
void     rc_start_request_done (RcStartRequest *request);

/* Replies with @error (taken); frees @request. */
void     rc_start_request_fail (RcStartRequest *request,
                                GError         *error);

G_END_DECLS
