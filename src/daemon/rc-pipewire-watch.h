/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* PipeWire's streams: a `pw-dump --monitor` child, whose JSON stream says
 * when a stream node (media.class Stream/Output/Audio or
 * Stream/Input/Audio) is "running", and the process of its client: the
 * pid PipeWire's server took from the client's socket, never the one the
 * client claims. The one exception is a client that pipewire-pulse opened
 * for a PulseAudio app (its socket pid is pipewire-pulse's): there the pid
 * the app sent is taken, if it is a live process of the daemon's user and
 * the app is not sandboxed (see client_pid () for why that much). A child, not libpipewire in the daemon: its memory is not
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
/* Decides something about a live process; replaceable in the unit tests,
 * which have no pipewire-pulse to look at. */
typedef gboolean (*RcPipewirePidCheck) (guint32 pid);
/* @is_pulse_server: whether the process is pipewire-pulse (by default
 * rc_pipewire_pid_is_pulse_server ()); @is_own_process: whether it is a
 * live process of the daemon's user (by default
 * rc_pipewire_pid_is_own_process ()). */
void             rc_pipewire_watch_set_pid_checks (RcPipewireWatch   *self,
                                                   RcPipewirePidCheck is_pulse_server,
                                                   RcPipewirePidCheck is_own_process);
/* Whether /proc/@pid/exe is a PipeWire binary in a system folder. */
gboolean         rc_pipewire_pid_is_pulse_server (guint32 pid);
/* The same, given what /proc/PID/exe points to; exposed for the unit tests. */
gboolean         rc_pipewire_exe_is_pulse_server (const char *exe);
/* Whether @pid is a live (not zombie) process whose real and effective uid
 * are the daemon's. */
gboolean         rc_pipewire_pid_is_own_process (guint32 pid);
/* Takes in one JSON array of pw-dump's output; exposed for the unit tests. */
gboolean         rc_pipewire_watch_parse (RcPipewireWatch *self,
                                          const char      *json,
                                          gssize           length,
                                          GError         **error);
/* Takes @length more bytes of pw-dump's output, as read from the child:
 * lines of at most 64 KiB (a batch with a longer one is passed over) and
 * batches of at most 16 MiB (a longer one ends the following). FALSE if
 * that ended it. Exposed for the unit tests. */
gboolean         rc_pipewire_watch_feed (RcPipewireWatch *self,
                                         const char      *data,
                                         gsize            length);
/* How many bytes of pw-dump's output it holds: the line and the batch
 * begun. Exposed for the unit tests. */
gsize            rc_pipewire_watch_get_held (RcPipewireWatch *self);

G_END_DECLS
