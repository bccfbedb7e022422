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
 * (logged at debug level). */
gboolean    rc_watch_set_add (RcWatchSet *set,
                              const char *key,
                              const char *path);
/* Stops watching @key; TRUE when it had a change not handed over yet. */
gboolean    rc_watch_set_remove (RcWatchSet *set,
                                 const char *key);

G_END_DECLS
