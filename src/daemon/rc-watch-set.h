/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* A set of watched files (focus marks on cgroup folders, memory.events),
 * one inotify fd for all, each known by a key (a unit name). A change only
 * marks its key; the marked keys are handed over at once after a quiet
 * spell, else at most once per interval, all together: a file that changes
 * thousands of times a second costs a few reads. Nothing runs at rest. */
typedef struct _RcWatchSet RcWatchSet;

/* @keys: the keys whose file changed since the last call (char *, a copy:
 * the handler may add and remove keys). */
typedef void (*RcWatchSetFlush) (GPtrArray *keys,
                                 gpointer   user_data);

/* @what names the watch in messages; @mask is inotify's (IN_ATTRIB,
 * IN_MODIFY...). NULL fd inside when inotify is unavailable (said once). */
RcWatchSet *rc_watch_set_new (const char     *what,
                              guint32         mask,
                              guint           min_interval_ms,
                              RcWatchSetFlush flush,
                              gpointer        user_data);
void        rc_watch_set_free (RcWatchSet *set);
/* Can it watch anything (is inotify there)? */
gboolean    rc_watch_set_available (RcWatchSet *set);
/* Starts watching @path as @key; FALSE when the file cannot be watched
 * (logged at debug level) or must wait for a watch to be free (below). */
gboolean    rc_watch_set_add (RcWatchSet *set,
                              const char *key,
                              const char *path);
/* Stops watching @key; TRUE when it had a change not handed over yet. */
gboolean    rc_watch_set_remove (RcWatchSet *set,
                                 const char *key);

/* inotify watches are the user's, shared with every program of theirs
 * (fs.inotify.max_user_watches): all the daemon's sets together use at most
 * a quarter of them, so thousands of apps cannot leave the user's editor
 * or file manager without. A key added past that waits, unwatched (its
 * file's changes are not followed), until a watch of any set is freed;
 * the first key that waits is said once in the log. */
#define RC_WATCH_SHARE_DIVISOR 4

/* The daemon's share of @max_user_watches (0: unknown, a default). */
guint       rc_watch_cap_for_limit (guint64 max_user_watches);
/* Sets the cap (0: the share of /proc/sys/fs/inotify/max_user_watches,
 * read once), for the tests. */
void        rc_watch_set_cap (guint cap);
/* Watches in use, all sets together. */
guint       rc_watch_count (void);

G_END_DECLS
