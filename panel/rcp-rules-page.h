/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <adwaita.h>

#include "rcp-client.h"

G_BEGIN_DECLS

/* The persistent rules (ListRules), one row per AppID with its keys, and
 * RemoveRule for each. */
#define RCP_TYPE_RULES_PAGE (rcp_rules_page_get_type ())
G_DECLARE_FINAL_TYPE (RcpRulesPage, rcp_rules_page, RCP, RULES_PAGE, AdwBin);

GtkWidget *rcp_rules_page_new (RcpClient *client);
void       rcp_rules_page_reload (RcpRulesPage *self);

G_END_DECLS
