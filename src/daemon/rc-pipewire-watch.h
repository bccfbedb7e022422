/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* PipeWire's streams: a `pw-dump --monitor` child, whose JSON stream says
 * when a stream node (media.class Stream/Output/Audio or
 * Stream/Input/Audio) is "running", and the process of its client: the
 * pid PipeWire's server took from the client's socket, never the one the
 * client claims. A child, not libpipewire in the daemon: its memory is not
 * the daemon's, and a PipeWire that is absent or restarts costs the daemon
 * nothing. It is started when PipeWire's socket is there or appears
 * (inotify on the runtime folder), never by polling.
 *
 * Signals:
 *   "changed" ()   the set of processes changed */
#define RC_TYPE_PIPEWIRE_WATCH (rc_pipewire_watch_get_type ())
G_DECLARE_FINAL_TYPE (RcPipewireWatch, rc_pipewire_watch, RC, PIPEWIRE_WATCH, GObject);

/* Watches nothing until rc_pipewire_watch_start (). */
RcPipewireWatch *rc_pipewire_watch_new (void);
void             rc_pipewire_watch_start (RcPipewireWatch *self);
/* The pids (guint32) with a running stream now, sorted. */
GArray          *rc_pipewire_watch_get_pids (RcPipewireWatch *self);
/* Takes in one JSON array of pw-dump's output; exposed for the unit tests. */
gboolean         rc_pipewire_watch_parse (RcPipewireWatch *self,
                                          const char      *json,
                                          gssize           length,
                                          GError         **error);

G_END_DECLS
