/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib-object.h>

G_BEGIN_DECLS

/* The focus watch: GNOME's Mutter marks each app's cgroup with the extended
 * attribute user.xdg.inactive-since, "-1" while one of its windows has the
 * focus and a timestamp once it lost it. This watches that attribute on the
 * app cgroups it is given with inotify (IN_ATTRIB): no polling.
 *
 * Signals:
 *   "focus-changed" (s unit, b focused)   the attribute of @unit changed */
#define RC_TYPE_FOCUS_WATCH (rc_focus_watch_get_type ())
G_DECLARE_FINAL_TYPE (RcFocusWatch, rc_focus_watch, RC, FOCUS_WATCH, GObject);

typedef enum {
  RC_FOCUS_UNKNOWN,     /* no attribute: Mutter has not marked the app */
  RC_FOCUS_FOCUSED,
  RC_FOCUS_INACTIVE,
} RcFocus;

RcFocusWatch *rc_focus_watch_new (void);
/* Starts watching @unit's cgroup and returns its state now. */
RcFocus       rc_focus_watch_add (RcFocusWatch *self,
                                  const char   *unit,
                                  const char   *control_group);
void          rc_focus_watch_remove (RcFocusWatch *self,
                                     const char   *unit);
/* What the attribute's value means; exposed for the unit tests. */
RcFocus       rc_focus_parse (const char *value,
                              gsize       length);

G_END_DECLS
