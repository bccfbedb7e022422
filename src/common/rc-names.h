/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Every bus name, object path, interface and polkit action in one place. */
#pragma once

#define RC_DBUS_NAME            "org.example.ResourceControl"
#define RC_DBUS_PATH            "/org/example/ResourceControl"
#define RC_DBUS_INTERFACE       "org.example.ResourceControl"
#define RC_DBUS_ERROR_PREFIX    "org.example.ResourceControl.Error."

#define RC_POLKIT_ACTION_PREFIX "org.example.ResourceControl."
#define RC_ACTION_SET_WEIGHT       RC_POLKIT_ACTION_PREFIX "set-weight"
#define RC_ACTION_SET_MEMORY_LIMIT RC_POLKIT_ACTION_PREFIX "set-memory-limit"
#define RC_ACTION_SET_LIMITS       RC_POLKIT_ACTION_PREFIX "set-limits"
#define RC_ACTION_RESET_LIMITS     RC_POLKIT_ACTION_PREFIX "reset-limits"
#define RC_ACTION_FREEZE           RC_POLKIT_ACTION_PREFIX "freeze"
#define RC_ACTION_THAW             RC_POLKIT_ACTION_PREFIX "thaw"
#define RC_ACTION_MANAGE_RULES     RC_POLKIT_ACTION_PREFIX "manage-rules"
#define RC_ACTION_SET_FOREGROUND   RC_POLKIT_ACTION_PREFIX "set-foreground"
#define RC_ACTION_LAUNCH           RC_POLKIT_ACTION_PREFIX "launch"
#define RC_ACTION_ADOPT            RC_POLKIT_ACTION_PREFIX "adopt"
#define RC_ACTION_SET_SLICE_LIMITS RC_POLKIT_ACTION_PREFIX "set-slice-limits"
#define RC_ACTION_PAUSE            RC_POLKIT_ACTION_PREFIX "pause"
#define RC_ACTION_RESET_ENERGY     RC_POLKIT_ACTION_PREFIX "reset-energy"

/* Rule files: *.conf in <dir>/resource-control/rules.d, the system's then the user's. */
#define RC_RULES_SUBDIR             "resource-control/rules.d"
#define RC_RULES_USER_FILE          "50-resource-control.conf"
#define RC_FOCUS_XATTR              "user.xdg.inactive-since"

#define SYSTEMD_DBUS_NAME           "org.freedesktop.systemd1"
#define SYSTEMD_DBUS_PATH           "/org/freedesktop/systemd1"
#define SYSTEMD_MANAGER_INTERFACE   "org.freedesktop.systemd1.Manager"
#define SYSTEMD_UNIT_INTERFACE      "org.freedesktop.systemd1.Unit"
#define SYSTEMD_SCOPE_INTERFACE     "org.freedesktop.systemd1.Scope"
#define SYSTEMD_SERVICE_INTERFACE   "org.freedesktop.systemd1.Service"

#define PPD_DBUS_NAME               "net.hadess.PowerProfiles"
#define PPD_DBUS_PATH               "/net/hadess/PowerProfiles"
#define UPOWER_DBUS_NAME            "org.freedesktop.UPower"
#define UPOWER_DBUS_PATH            "/org/freedesktop/UPower"
#define KWIN_DBUS_NAME              "org.kde.KWin"
#define MPRIS_NAME_PREFIX           "org.mpris.MediaPlayer2."
#define MPRIS_PATH                  "/org/mpris/MediaPlayer2"
#define MPRIS_PLAYER_INTERFACE      "org.mpris.MediaPlayer2.Player"

#define NOTIFICATIONS_DBUS_NAME     "org.freedesktop.Notifications"
#define NOTIFICATIONS_DBUS_PATH     "/org/freedesktop/Notifications"
#define NOTIFICATIONS_INTERFACE     "org.freedesktop.Notifications"
/* the settings panel, a GApplication: its "show-app" action (s unit) */
#define RC_PANEL_DBUS_NAME          "org.example.ResourceControl.Panel"
#define RC_PANEL_DBUS_PATH          "/org/example/ResourceControl/Panel"
#define GAPPLICATION_INTERFACE      "org.freedesktop.Application"

#define DBUS_PROPERTIES_INTERFACE   "org.freedesktop.DBus.Properties"
#define DBUS_NAME                   "org.freedesktop.DBus"
#define DBUS_PATH                   "/org/freedesktop/DBus"
#define DBUS_INTERFACE              "org.freedesktop.DBus"
