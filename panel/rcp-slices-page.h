/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <adwaita.h>

#include "rcp-client.h"

G_BEGIN_DECLS

/* The user manager's three slices (ListSlices): their use, CPU weight and
 * memory limit, changed with SetSliceLimits. */
#define RCP_TYPE_SLICES_PAGE (rcp_slices_page_get_type ())
G_DECLARE_FINAL_TYPE (RcpSlicesPage, rcp_slices_page, RCP, SLICES_PAGE, AdwBin);

GtkWidget *rcp_slices_page_new (RcpClient *client);
/* ListSlices again (the window calls it while the page is shown). */
void       rcp_slices_page_reload (RcpSlicesPage *self);

G_END_DECLS
