/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "rc-focus-source.h"

G_BEGIN_DECLS

/* Focus from any EWMH window manager on X11 (XFCE, MATE, Openbox, i3, KWin
 * on X11): the root window's _NET_ACTIVE_WINDOW, watched with
 * PropertyNotify, and that window's _NET_WM_PID. Every request is answered
 * from the connection's file descriptor in the main loop; nothing waits
 * for the X server. The connection's setup (the only part of libxcb that
 * blocks) runs in a thread and is abandoned after 5 s; only a local server
 * (":N", "unix:N") of our own user or root is spoken to, and the cookie
 * comes from XAUTHORITY as libxcb's own connect finds it. Named "i3" when
 * i3 runs (its I3_SOCKET_PATH on the root window), else "x11". */
#define RC_TYPE_FOCUS_X11 (rc_focus_x11_get_type ())
G_DECLARE_FINAL_TYPE (RcFocusX11, rc_focus_x11, RC, FOCUS_X11, RcFocusSource);

RcFocusSource *rc_focus_x11_new (const char *display);

G_END_DECLS
