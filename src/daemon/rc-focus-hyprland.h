/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "rc-focus-source.h"

G_BEGIN_DECLS

/* Focus from Hyprland: its event socket (.socket2.sock) says
 * "activewindowv2>>ADDRESS" on each focus change; a "j/activewindow"
 * request on its command socket (.socket.sock) then gives that window's
 * pid. The sockets live in $XDG_RUNTIME_DIR/hypr/SIGNATURE/ (Hyprland 0.40
 * and later) or /tmp/hypr/SIGNATURE/; both folders must be ours and
 * writable by no one else, and both sockets served by our user. One
 * request is in flight at a time; event lines and replies over 64 KiB are
 * dropped. */
#define RC_TYPE_FOCUS_HYPRLAND (rc_focus_hyprland_get_type ())
G_DECLARE_FINAL_TYPE (RcFocusHyprland, rc_focus_hyprland, RC, FOCUS_HYPRLAND, RcFocusSource);

RcFocusSource *rc_focus_hyprland_new (const char *signature);

/* The pid in a "j/activewindow" reply if its "address" is @address (with or
 * without "0x"); 0 for no pid, -1 for text that is no window. Exposed for
 * the unit tests. */
gint64         rc_focus_hyprland_parse_window (const char *json,
                                               gsize       length,
                                               const char *address);

G_END_DECLS
