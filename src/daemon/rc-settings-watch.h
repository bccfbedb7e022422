/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib-object.h>

G_BEGIN_DECLS

/* Tells when systemd has written a unit's settings: every runtime or
 * persistent property change (SetUnitProperties, systemctl set-property)
 * becomes a drop-in in <folder>/<unit>.d/, under the user manager's
 * control folders or, for a transient unit, its transient folder. Watched
 * with inotify: nothing runs while nothing changes.
 *
 * "changed" (const char *unit): the settings of @unit, or of every unit
 * (NULL: a folder appeared or went, or the kernel's queue overflowed). */
#define RC_TYPE_SETTINGS_WATCH (rc_settings_watch_get_type ())
G_DECLARE_FINAL_TYPE (RcSettingsWatch, rc_settings_watch, RC, SETTINGS_WATCH, GObject)

/* @folders: the folders holding <unit>.d drop-in folders; they need not
 * exist yet. */
RcSettingsWatch *rc_settings_watch_new (const char * const *folders);
/* The user manager's: $XDG_RUNTIME_DIR/systemd/{transient,user.control}
 * and $XDG_CONFIG_HOME/systemd/user.control. */
RcSettingsWatch *rc_settings_watch_new_for_user (void);
/* FALSE without inotify: then no change is heard of. */
gboolean         rc_settings_watch_is_working (RcSettingsWatch *self);

G_END_DECLS
