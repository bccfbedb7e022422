/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <adwaita.h>

#include "rcp-app.h"

G_BEGIN_DECLS

/* The app page's group "What the limits do": whether the app is slowed
 * down by its memory limit or held back by its CPU limit, how long it
 * waits for CPU, memory and disk (PSI, percent), and how many of its
 * processes the kernel stopped for lack of memory. A figure the daemon
 * does not report hides its row; with no row, the group is hidden. */
#define RCP_TYPE_LIMIT_EFFECTS (rcp_limit_effects_get_type ())
G_DECLARE_FINAL_TYPE (RcpLimitEffects, rcp_limit_effects, RCP, LIMIT_EFFECTS, AdwPreferencesGroup);

GtkWidget *rcp_limit_effects_new (void);
void       rcp_limit_effects_update (RcpLimitEffects *self,
                                     RcpApp          *app);

G_END_DECLS
