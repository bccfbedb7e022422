/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "rc-registry.h"

G_BEGIN_DECLS

/* The memory watch: the kernel notifies (inotify IN_MODIFY) on an app
 * cgroup's memory.events whenever one of its counters moves (memory.high
 * reached, memory.max hit, an OOM kill). This watches that file of every
 * app instance the registry lists, one inotify fd for all of them, and
 * passes each change on as the registry's "app-changed" with the new
 * MemoryEvents, at most once per instance per MIN_INTERVAL_MS: an app
 * thrashing at its MemoryHigh must not flood the bus. No polling, no timer
 * at rest.
 *
 * It also watches the folder's attributes (IN_ATTRIB): systemd-oomd counts
 * up its "user.oomd_ooms" there before it kills the cgroup's processes.
 *
 * Signals:
 *   "events-changed" (RcApp*, GVariant *before, GVariant *now)
 *       both a{st}; @before is NULL when the file could not be read before
 *   "oomd-kill" (RcApp*)   systemd-oomd killed in the app's cgroup */
#define RC_TYPE_MEMORY_WATCH (rc_memory_watch_get_type ())
G_DECLARE_FINAL_TYPE (RcMemoryWatch, rc_memory_watch, RC, MEMORY_WATCH, GObject);

RcMemoryWatch *rc_memory_watch_new (RcRegistry *registry);

G_END_DECLS
