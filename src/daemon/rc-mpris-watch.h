/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* The media players on the session bus: every org.mpris.MediaPlayer2.*
 * name whose owner's player says PlaybackStatus "Playing"
 * (NameOwnerChanged, PropertiesChanged), the owner's pid from the bus.
 * Owners are asked with a bounded number of calls in flight, so players
 * that never answer cannot exhaust what the bus lets the daemon have
 * pending.
 *
 * Signals:
 *   "changed" ()   the set of processes changed */
#define RC_TYPE_MPRIS_WATCH (rc_mpris_watch_get_type ())
G_DECLARE_FINAL_TYPE (RcMprisWatch, rc_mpris_watch, RC, MPRIS_WATCH, GObject);

RcMprisWatch *rc_mpris_watch_new (GDBusConnection *session_bus);
/* The pids (guint32) whose player plays now, sorted. */
GArray       *rc_mpris_watch_get_pids (RcMprisWatch *self);

G_END_DECLS
