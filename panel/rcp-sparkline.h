/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <gtk/gtk.h>

#include "rcp-app.h"

G_BEGIN_DECLS

/* A small CPU history graph of one app: its samples as a line, scaled to
 * 100 % of one CPU or to the highest sample if that is more. */
#define RCP_TYPE_SPARKLINE (rcp_sparkline_get_type ())
G_DECLARE_FINAL_TYPE (RcpSparkline, rcp_sparkline, RCP, SPARKLINE, GtkWidget);

GtkWidget *rcp_sparkline_new (RcpApp *app);

G_END_DECLS
