/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <adwaita.h>

#include "rcp-app.h"

G_BEGIN_DECLS

/* One line of the main list: icon, name, instances, CPU use with its
 * history graph, memory against the limit, a "Frozen" badge, and a button
 * that opens the app's page (signal "open", also on row activation). */
#define RCP_TYPE_APP_ROW (rcp_app_row_get_type ())
G_DECLARE_FINAL_TYPE (RcpAppRow, rcp_app_row, RCP, APP_ROW, AdwActionRow);

GtkWidget *rcp_app_row_new (RcpApp *app);
RcpApp    *rcp_app_row_get_app (RcpAppRow *self);

G_END_DECLS
