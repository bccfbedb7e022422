/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <gio/gio.h>

#include "rcp-app.h"

G_BEGIN_DECLS

/* The panel's line to resource-controld: watches its bus name, keeps a
 * GListModel of RcpApp (one per AppID) current from ListAppRecords (ListApps
 * with what the limits do) and the AppAdded, AppRemoved and AppChanged
 * signals, and makes the calls.
 * Property "available": the daemon owns its name and answered ListAppRecords.
 * Signal "refreshed": a refresh (ListAppRecords) was applied.
 * Signal "status-changed": what rcp_client_dup_status says may differ.
 * Signal "action-taken" (GVariant* (tsssssss)): the daemon's ActionTaken,
 * one entry of its action record (GetActions gives the earlier ones). */
#define RCP_TYPE_CLIENT (rcp_client_get_type ())
G_DECLARE_FINAL_TYPE (RcpClient, rcp_client, RCP, CLIENT, GObject);

RcpClient  *rcp_client_new (GBusType bus_type);

gboolean    rcp_client_get_available (RcpClient *self);
gboolean    rcp_client_get_freeze_supported (RcpClient *self);
/* One line for the user: the focus source, the power state, the apps
 * held for audio and those the responsiveness guard holds back, as the
 * daemon says them. */
char       *rcp_client_dup_status (RcpClient *self);
/* RcpApp items, sorted by AppID. */
GListModel *rcp_client_get_apps (RcpClient *self);
RcpApp     *rcp_client_lookup_app (RcpClient  *self,
                                   const char *app_id);

/* ListAppRecords again: usage values and CPU samples. At most one at a time. */
void        rcp_client_refresh (RcpClient *self);

/* Any method of the interface. Writes (@interactive) may ask the
 * desktop's polkit agent. The error, if any, is the daemon's: see
 * rcp_client_error_message (). Fails at once when the daemon is away. */
void        rcp_client_call (RcpClient          *self,
                             const char         *method,
                             GVariant           *parameters,
                             gboolean            interactive,
                             GCancellable       *cancellable,
                             GAsyncReadyCallback callback,
                             gpointer            user_data);
GVariant   *rcp_client_call_finish (RcpClient    *self,
                                    GAsyncResult *result,
                                    GError      **error);

/* The message as the daemon wrote it, without GDBus's "GDBus.Error:NAME: ". */
char       *rcp_client_error_message (const GError *error);

G_END_DECLS
