/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <adwaita.h>

#include "rcp-client.h"

G_BEGIN_DECLS

/* "Battery use": the apps by their share of the energy the daemon's ledger
 * measured (GetEnergyUsage) over the last 24 hours or 7 days, and the
 * whole machine's energy by hour over the last day. Without a source it
 * says why, in the daemon's words.
 * Signal "open-app" (const char *app_id): the user asked for an app's page. */
#define RCP_TYPE_BATTERY_PAGE (rcp_battery_page_get_type ())
G_DECLARE_FINAL_TYPE (RcpBatteryPage, rcp_battery_page, RCP, BATTERY_PAGE, AdwBin);

/* The ledger changes at the source's pace (UPower polls the battery every
 * half minute or more): a shown page asks again no more often than this. */
#define RCP_BATTERY_PAGE_REFRESH_SECONDS 30

GtkWidget *rcp_battery_page_new (RcpClient *client);
/* Asks the daemon again: at once when @force (the page was just shown),
 * else only when the last answer is older than
 * RCP_BATTERY_PAGE_REFRESH_SECONDS. */
void       rcp_battery_page_reload (RcpBatteryPage *self,
                                    gboolean        force);

G_END_DECLS
