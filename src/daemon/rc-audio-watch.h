/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* The audio watch: which processes play or record sound now. Two sources,
 * both event-driven:
 *  - PipeWire: a `pw-dump --monitor` child, whose JSON stream says when a
 *    stream node (media.class Stream/Output/Audio or Stream/Input/Audio)
 *    is "running", and its client's application.process.id. A child, not
 *    libpipewire in the daemon: its memory is not the daemon's, and a
 *    PipeWire that is absent or restarts costs the daemon nothing. It is
 *    started when PipeWire's socket is there or appears (inotify on the
 *    runtime folder), never by polling.
 *  - MPRIS: every org.mpris.MediaPlayer2.* name on the session bus whose
 *    player's PlaybackStatus is "Playing" (NameOwnerChanged,
 *    PropertiesChanged), its owner's pid from the bus.
 *
 * Signals:
 *   "changed" ()   the set of processes changed */
#define RC_TYPE_AUDIO_WATCH (rc_audio_watch_get_type ())
G_DECLARE_FINAL_TYPE (RcAudioWatch, rc_audio_watch, RC, AUDIO_WATCH, GObject);

RcAudioWatch *rc_audio_watch_new (GDBusConnection *session_bus);
/* The pids (guint32) that play or record now, sorted. */
GArray       *rc_audio_watch_get_pids (RcAudioWatch *self);
/* Takes in one JSON array of pw-dump's output; exposed for the unit tests. */
gboolean      rc_audio_watch_parse_pipewire (RcAudioWatch *self,
                                             const char   *json,
                                             gssize        length,
                                             GError      **error);

G_END_DECLS
