/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define RCP_ENERGY_CHART_HOURS 24

/* The whole machine's energy by hour over the last day, as bars, oldest
 * on the left: a small drawing with a text alternative (its accessible
 * description) for those who cannot see it. */
#define RCP_TYPE_ENERGY_CHART (rcp_energy_chart_get_type ())
G_DECLARE_FINAL_TYPE (RcpEnergyChart, rcp_energy_chart, RCP, ENERGY_CHART, GtkDrawingArea);

GtkWidget *rcp_energy_chart_new (void);
/* @joules: RCP_ENERGY_CHART_HOURS values, the hour that started at
 * @first_hour_usec (CLOCK_REALTIME) first, the current hour last. */
void       rcp_energy_chart_set_hours (RcpEnergyChart *self,
                                       const double   *joules,
                                       gint64          first_hour_usec);

G_END_DECLS
