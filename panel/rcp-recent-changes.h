/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <adwaita.h>

#include "rcp-client.h"

G_BEGIN_DECLS

/* The app page's group "Recent changes": what the daemon changed for the
 * app by itself (its action record: a rule applied, the boost moved, a
 * freeze by policy...), newest first, each with when and why. The daemon
 * keeps the record; the group reads it (GetActions) when it is given an
 * app or a daemon appears, and adds each ActionTaken of that app as it
 * comes. At most RCP_RECENT_CHANGES_MAX rows; none: "No automatic
 * changes". A daemon without the record hides the group. */
#define RCP_TYPE_RECENT_CHANGES (rcp_recent_changes_get_type ())
G_DECLARE_FINAL_TYPE (RcpRecentChanges, rcp_recent_changes, RCP, RECENT_CHANGES, AdwPreferencesGroup);

#define RCP_RECENT_CHANGES_MAX 20

GtkWidget *rcp_recent_changes_new (RcpClient *client);
/* Shows the changes of @app (NULL: none); drops a reading still under way. */
void       rcp_recent_changes_set_app (RcpRecentChanges *self,
                                       RcpApp           *app);

G_END_DECLS
