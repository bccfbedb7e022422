/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <gio/gio.h>

#include "rc-policy.h"
#include "rc-registry.h"

G_BEGIN_DECLS

/* Which app has the focus, on every desktop, with nothing to configure.
 * It reads the user manager's environment (systemd's Environment property,
 * read again after each SetEnvironment-like call a monitor connection sees,
 * since systemd 252 signals no change of it, and after the job of a target
 * ends or a daemon-reload, what follows `systemctl --user
 * import-environment` over systemd's private socket; the daemon's own
 * environment until systemd answers) and picks one source:
 *   "gnome"     XDG_CURRENT_DESKTOP has GNOME: Mutter's marks on the app
 *               cgroups (RcFocusWatch) say it; no connection here
 *   "kwin"      XDG_CURRENT_DESKTOP has KDE and org.kde.KWin has an
 *               owner: the shipped KWin script says it, calling
 *               SetForegroundWindowProcess from KWin's connection. Any
 *               process of the user can own that name, so it counts only
 *               on Plasma, and only while it is owned: when KWin leaves,
 *               or the session is no longer Plasma, the environment's
 *               own source (sway, X11, Hyprland) is followed again
 *   "hyprland"  HYPRLAND_INSTANCE_SIGNATURE (RcFocusHyprland)
 *   "sway"      SWAYSOCK (RcFocusSway)
 *   "x11", "i3" DISPLAY: EWMH (RcFocusX11)
 *   "none"      none of these, or the source's socket is gone
 * One source at a time, so one focus change moves the boost once. A
 * source whose connection ends is tried again a few times while its
 * variable stays (a restarted X server keeps its DISPLAY); a compositor
 * that starts later or elsewhere arrives as a change of the environment.
 * Nothing runs while nothing happens.
 *
 * A focused pid in no app of this user (a terminal in the login session, a
 * window without a pid) moves no boost.
 *
 * Property:
 *   "source" (s)   the source in use, as above */
#define RC_TYPE_FOCUS_TRACKER (rc_focus_tracker_get_type ())
G_DECLARE_FINAL_TYPE (RcFocusTracker, rc_focus_tracker, RC, FOCUS_TRACKER, GObject);

RcFocusTracker *rc_focus_tracker_new (GDBusConnection *connection,
                                      RcRegistry      *registry,
                                      RcPolicy        *policy);
const char *rc_focus_tracker_get_source (RcFocusTracker *self);
/* Process @pid's window has the focus, as KWin's script or an authorized
 * caller says: its app gets the boost. It picks no source: the next focus
 * change the source in use sees moves the boost on. */
void        rc_focus_tracker_report_kwin (RcFocusTracker *self,
                                          guint32         pid);
/* Whether @sender (a unique bus name) is the running compositor's own
 * connection (KWin's, which its scripts' calls come from, while "kwin" is
 * the source): what it reports is the desktop's own focus, as a compositor
 * socket's events are, and is not checked with polkit. */
gboolean    rc_focus_tracker_is_compositor (RcFocusTracker *self,
                                            const char     *sender);
/* Which source @environment (KEY=VALUE) speaks for, with org.kde.KWin owned
 * or not (@kwin_running), and its address (a socket path, a display, a
 * signature; NULL for none). Exposed for the unit tests. */
const char *rc_focus_tracker_pick_source (const char * const *environment,
                                          gboolean            kwin_running,
                                          const char        **out_address);

G_END_DECLS
