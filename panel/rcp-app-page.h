/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <adwaita.h>

#include "rcp-client.h"

G_BEGIN_DECLS

/* The page of one app: priority (CPU weight), memory limit (with the
 * daemon's WouldKill answer and a "Limit anyway" that forces), CPU limit,
 * freeze or resume, "keep these settings" (a rule) and reset. Every change
 * is a call to the daemon for the AppID (all its instances); the page
 * shows what the daemon then reports, and its errors in its own words. */
#define RCP_TYPE_APP_PAGE (rcp_app_page_get_type ())
G_DECLARE_FINAL_TYPE (RcpAppPage, rcp_app_page, RCP, APP_PAGE, AdwBin);

GtkWidget *rcp_app_page_new (RcpClient *client);
/* Shows @app (NULL: none) and its recent changes; cancels what the page
 * still waited for. */
void       rcp_app_page_set_app (RcpAppPage *self,
                                 RcpApp     *app);
RcpApp    *rcp_app_page_get_app (RcpAppPage *self);

G_END_DECLS
