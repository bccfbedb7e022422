/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* What Launch and Adopt read from files an app chose before polkit is
 * asked, read in the file reader's workers (rc-file-reader.h): a path on a
 * mount that never answers costs the call its deadline, not the daemon its
 * main loop. */
typedef struct {
  char  *app_id;        /* Adopt: the AppID found, or the one given */
  char  *name;          /* the app's Name; its AppID without a desktop file */
  char  *desktop_file;  /* NULL for none */
  char **argv;          /* Launch: what to run (rc_exec_for_app) */
} RcLaunchRead;

void          rc_launch_read_free (RcLaunchRead *read);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RcLaunchRead, rc_launch_read_free);

/* Launch: that @working_directory (NULL: none) is a folder, then
 * rc_exec_for_app (@app_id, @uris). */
void          rc_launch_read_async (const char         *app_id,
                                    const char * const *uris,
                                    const char         *working_directory,
                                    GCancellable       *cancellable,
                                    GAsyncReadyCallback callback,
                                    gpointer            user_data);
/* Adopt: which app @pids (guint32; @comms their comm for messages) are,
 * unless @app_id is given (GIO_LAUNCHED_DESKTOP_FILE, /.flatpak-info, the
 * program matched to one desktop file), and its desktop file. */
void          rc_adopt_read_async (const char         *app_id,
                                   GArray             *pids,
                                   GPtrArray          *comms,
                                   GCancellable       *cancellable,
                                   GAsyncReadyCallback callback,
                                   gpointer            user_data);
/* Errors are RC_ERROR's: a read given up at its deadline is Failed. */
RcLaunchRead *rc_launch_read_finish (GAsyncResult *result,
                                     GError      **error);

G_END_DECLS
