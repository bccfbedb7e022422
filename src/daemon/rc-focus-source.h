/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/* One connection to a compositor or window manager that says which window
 * has the focus: sway's IPC, EWMH on an X11 root window, Hyprland's event
 * socket. Each kind is a subclass; RcFocus picks one and listens.
 *
 * Signals:
 *   "focused" (u pid)          the focused window belongs to process @pid
 *   "closed"  (s why)          the connection ended (EOF, an error, garbage
 *                              the protocol cannot recover from); the
 *                              source does nothing more */
#define RC_TYPE_FOCUS_SOURCE (rc_focus_source_get_type ())
G_DECLARE_DERIVABLE_TYPE (RcFocusSource, rc_focus_source, RC, FOCUS_SOURCE, GObject);

struct _RcFocusSourceClass {
  GObjectClass parent_class;
  /* Connects and starts listening; failures end as "closed". */
  void (*start) (RcFocusSource *self);
};

void          rc_focus_source_start (RcFocusSource *self);
/* The source's name, as FocusSource shows it ("sway", "x11", …). */
const char   *rc_focus_source_get_name (RcFocusSource *self);
GCancellable *rc_focus_source_get_cancellable (RcFocusSource *self);

/* For subclasses. Connects to the unix socket @path and gives @connected
 * the connection (theirs to keep); a failure ends as "closed", and so does
 * a server that runs as another user: the socket's path comes from the
 * session's environment, which any process of ours may set, but only a
 * process of our own user may say where the focus is. */
typedef void (*RcFocusConnected) (RcFocusSource     *self,
                                  GSocketConnection *connection);
void          rc_focus_source_connect (RcFocusSource   *self,
                                       const char      *path,
                                       RcFocusConnected connected);

/* The source's compositor says @pid has the focus. Reports are coalesced:
 * at most one "focused" per 100 ms, the latest report winning. */
void          rc_focus_source_emit_focused (RcFocusSource *self,
                                            guint32        pid);
/* Does @socket's peer (SO_PEERCRED) run as our user? If not, @error says
 * whose it is. */
gboolean      rc_focus_source_peer_is_us (GSocket *socket,
                                          GError **error);
void          rc_focus_source_emit_closed (RcFocusSource *self,
                                           const char    *why);
/* Deeper nesting than any compositor's message has: refused unparsed. */
#define RC_FOCUS_JSON_MAX_DEPTH 64
/* Is no array or object in @json (up to @length or a NUL) nested deeper
 * than @max_depth? A scan that needs no stack, before the parser's
 * recursion sees the text. */
gboolean      rc_focus_source_json_depth_ok (const char *json,
                                             gsize       length,
                                             guint       max_depth);
/* For subclasses that speak JSON: the object @json holds, parsed with
 * @parser (which keeps it); NULL when it is not JSON, not an object, or
 * nested deeper than RC_FOCUS_JSON_MAX_DEPTH. */
JsonObject   *rc_focus_source_parse_object (JsonParser *parser,
                                            const char *json,
                                            gsize       length);
/* @object's member "pid": 0 when there is none or it is not a number;
 * clamped to 0 … G_MAXUINT32. */
guint32       rc_focus_source_member_pid (JsonObject *object);
/* Says once per source and kind (a bad message, a window without a pid)
 * what was wrong; later ones of the same kind only at debug level. */
void          rc_focus_source_warn_once (RcFocusSource *self,
                                         const char    *kind,
                                         const char    *format,
                                         ...) G_GNUC_PRINTF (3, 4);

G_END_DECLS
