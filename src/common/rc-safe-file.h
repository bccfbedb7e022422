/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Files another process chose (a unit's SourcePath, a process's
 * /.flatpak-info, a rules.d entry, the state file) are read with these, on
 * the main loop: never blocking and never unbounded. The file is opened
 * without waiting (O_NONBLOCK) and read only if it is a regular file of at
 * most @max_size bytes, so a FIFO, a device such as /dev/zero (also behind
 * a symlink) or a huge file is an error (G_FILE_ERROR_INVAL or
 * G_FILE_ERROR_FAILED), not a stall. */
#define RC_SAFE_FILE_MAX_SIZE (1024 * 1024)

gboolean rc_safe_file_read (const char *path,
                            gsize       max_size,
                            char      **out_contents,
                            gsize      *out_length,
                            GError    **error);
gboolean rc_safe_key_file_load (GKeyFile     *file,
                                const char   *path,
                                GKeyFileFlags flags,
                                GError      **error);

G_END_DECLS
