/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* The audio watch: which processes play or record sound now. It joins two
 * sources, both event-driven: PipeWire's running streams
 * (rc-pipewire-watch.h) and the media players that say they play
 * (rc-mpris-watch.h).
 *
 * Signals:
 *   "changed" ()   the set of processes changed */
#define RC_TYPE_AUDIO_WATCH (rc_audio_watch_get_type ())
G_DECLARE_FINAL_TYPE (RcAudioWatch, rc_audio_watch, RC, AUDIO_WATCH, GObject);

/* Without a bus it watches nothing (for the unit tests). */
RcAudioWatch *rc_audio_watch_new (GDBusConnection *session_bus);
/* The pids (guint32) that play or record now, sorted. */
GArray       *rc_audio_watch_get_pids (RcAudioWatch *self);

G_END_DECLS
