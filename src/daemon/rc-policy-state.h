/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The policy's state file (in $XDG_RUNTIME_DIR): which units it boosted and
 * which it froze, so that a restarted daemon can undo them. */

/* Writes @boosted and @frozen (unit names) to @path unless @written (the
 * text written last, updated) says so already. A failure is logged. */
void rc_policy_state_save (const char *path,
                           char      **written,
                           GPtrArray  *boosted,
                           GPtrArray  *frozen);
/* Reads @path into two new sets of unit names; a missing file gives empty
 * sets, an unreadable one a message and empty sets. */
void rc_policy_state_load (const char  *path,
                           GHashTable **out_boosted,
                           GHashTable **out_frozen);

G_END_DECLS
