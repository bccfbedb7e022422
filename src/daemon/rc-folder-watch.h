/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* Watches one folder for changes to its entries, also when the folder is
 * not there yet or is removed and made again: while it is missing, the
 * nearest of its RC_FOLDER_WATCH_LEVELS parents that exists is watched for
 * the next part of its path to appear (GLib itself would poll a missing
 * path every few seconds). Emits "changed" for every change of an entry,
 * and when the folder appears or goes away. Nothing runs at rest. */
#define RC_FOLDER_WATCH_LEVELS 2

#define RC_TYPE_FOLDER_WATCH (rc_folder_watch_get_type ())
G_DECLARE_FINAL_TYPE (RcFolderWatch, rc_folder_watch, RC, FOLDER_WATCH, GObject);

RcFolderWatch *rc_folder_watch_new (const char *folder);

/* The folder or parent watched now, NULL for none (for tests and logs). */
const char    *rc_folder_watch_get_watched (RcFolderWatch *self);

G_END_DECLS
