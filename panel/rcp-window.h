/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <adwaita.h>

#include "rcp-client.h"

G_BEGIN_DECLS

/* The panel's window: the app list (sortable by CPU use or name), the
 * slices and rules pages, an app's page, and a status page while the
 * daemon is not running. It refreshes usage every 2 s, and only while it
 * is mapped and not minimised: hidden, it makes no calls and wakes up no
 * one. */
#define RCP_TYPE_WINDOW (rcp_window_get_type ())
G_DECLARE_FINAL_TYPE (RcpWindow, rcp_window, RCP, WINDOW, AdwApplicationWindow);

GtkWidget *rcp_window_new (GtkApplication *application,
                           RcpClient      *client);
/* Opens the page of the app with this unit name or AppID; before the
 * daemon's first listing, once it is read. A toast says when the app is
 * not running. */
void       rcp_window_show_app (RcpWindow  *self,
                                const char *unit_or_app_id);

G_END_DECLS
