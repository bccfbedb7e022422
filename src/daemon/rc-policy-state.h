/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The policy's state file (in $XDG_RUNTIME_DIR): which units it boosted and
 * which it froze, so that a restarted daemon can undo them, and whether it
 * is paused and until when (PausedUntil, CLOCK_REALTIME usec, 0: until
 * resumed; no key: not paused), so that a pause outlives a restart. */

/* Writes @boosted and @frozen (unit names) and the pause to @path unless
 * @written (the text written last, updated) says so already. A failure is
 * logged. */
void rc_policy_state_save (const char *path,
                           char      **written,
                           GPtrArray  *boosted,
                           GPtrArray  *frozen,
                           gboolean    paused,
                           guint64     paused_until);
/* Reads @path into two new sets of unit names and the pause; a missing
 * file gives empty sets and no pause, an unreadable one a message and the
 * same. */
void rc_policy_state_load (const char  *path,
                           GHashTable **out_boosted,
                           GHashTable **out_frozen,
                           gboolean    *out_paused,
                           guint64     *out_paused_until);

G_END_DECLS
