/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "rc-focus-source.h"

G_BEGIN_DECLS

/* Focus from sway's IPC socket ($SWAYSOCK; i3's protocol): subscribes to
 * window events and reports the pid of each "focus" change. i3 itself sends
 * no pid (only the X11 window), so on i3 RcFocus uses EWMH instead. */
#define RC_TYPE_FOCUS_SWAY (rc_focus_sway_get_type ())
G_DECLARE_FINAL_TYPE (RcFocusSway, rc_focus_sway, RC, FOCUS_SWAY, RcFocusSource);

RcFocusSource *rc_focus_sway_new (const char *socket_path);

/* The pid of a window event's payload; 0 for an event that is no focus
 * change or names no pid, -1 for text that is not an event. Exposed for the
 * unit tests. */
gint64         rc_focus_sway_parse_event (const char *json,
                                          gsize       length);

G_END_DECLS
