/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Desktop files found as the Desktop Entry spec says, without GIO's own
 * index: GIO opens every file of the applications folders and
 * ~/.config/mimeapps.list blocking and reads them whole, and any app of the
 * user may put a FIFO or a link to /dev/zero there. Here each file is read
 * with rc_safe_file_read (no blocking open, regular files only, size-capped)
 * and parsed with GKeyFile; mimeapps.list is never read. Not even
 * g_desktop_app_info_new_from_keyfile is used: it sets up GIO's index of
 * every folder, which reads mimeapps.list blocking.
 *
 * Folders: $XDG_DATA_HOME/applications first, then each of $XDG_DATA_DIRS'.
 * A desktop id "a-b-c.desktop" is applications/a-b-c.desktop, or a file in a
 * subfolder whose path with '/' made '-' is the id (a/b-c.desktop,
 * a-b/c.desktop, a/b/c.desktop); the first folder that has it wins, and a
 * file there that cannot be read, is Hidden or is not an application hides
 * the others. */

/* Looked-up files a lookup may try before it gives up: a name with many
 * dashes and folders made to match would otherwise cost a probe for each
 * way of splitting it. */
#define RC_DESKTOP_LOOKUP_MAX_PROBES 64
/* What one listing of every desktop file reads at most. */
#define RC_DESKTOP_LIST_MAX_FILES    4096
#define RC_DESKTOP_LIST_MAX_BYTES    (32 * 1024 * 1024)
#define RC_DESKTOP_FILE_MAX_SIZE     (1024 * 1024)

/* What the daemon and resourcectl use of a desktop file. */
typedef struct {
  char    *path;
  char    *name;       /* Name, localized; NULL when it has none */
  char    *icon;       /* Icon as GIO shows it: a theme name or an absolute path; NULL for none */
  char    *exec;       /* Exec; NULL for none */
  char    *executable; /* Exec's program (its first word) */
  char    *try_exec;
  gboolean terminal;
} RcDesktopEntry;

void             rc_desktop_entry_free (RcDesktopEntry *entry);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RcDesktopEntry, rc_desktop_entry_free);

/* The applications folders in lookup order. */
GStrv            rc_desktop_dirs (void);

/* The app whose desktop id is @app_id + ".desktop", or NULL with @error
 * (G_FILE_ERROR_NOENT when no folder has it, or it is Hidden or no app). */
RcDesktopEntry  *rc_desktop_lookup (const char *app_id,
                                    GError    **error);

/* The same from a file known already: NULL when it cannot be read, is
 * Hidden or is not an application (Type=Application, and its TryExec and
 * Exec's program, if any, in PATH, as GIO has it). */
RcDesktopEntry  *rc_desktop_load_file (const char *path,
                                       GError    **error);

/* Calls @visit for every app of the applications folders, each desktop id
 * once (the first folder's file), at most RC_DESKTOP_LIST_MAX_FILES files
 * and RC_DESKTOP_LIST_MAX_BYTES bytes read. @out_stamp (may be NULL): what
 * changes when a file is added to or removed from a folder read (their
 * mtimes), see rc_desktop_dirs_stamp. */
typedef void (*RcDesktopVisit) (const char     *desktop_id,
                                RcDesktopEntry *entry,
                                gpointer        user_data);
void             rc_desktop_list (RcDesktopVisit visit,
                                  gpointer       user_data,
                                  char         **out_stamp);
/* The folders' stamp now, as rc_desktop_list gave it. */
char            *rc_desktop_dirs_stamp (void);

G_END_DECLS
