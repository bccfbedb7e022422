/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The panel's names for CPU weights: Low 50, Normal 100 (systemd's
 * default), High 300 (the daemon's foreground boost); anything else is a
 * custom weight. */
typedef enum
{
  RCP_PRIORITY_LOW,
  RCP_PRIORITY_NORMAL,
  RCP_PRIORITY_HIGH,
  RCP_PRIORITY_CUSTOM,
} RcpPriority;

#define RCP_N_PRESETS 3

RcpPriority  rcp_priority_from_weight (guint64 weight);
/* The weight of a preset (not of RCP_PRIORITY_CUSTOM). */
guint64      rcp_priority_to_weight (RcpPriority priority);
const char  *rcp_priority_to_label (RcpPriority priority);

G_END_DECLS
