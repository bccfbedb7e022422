/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* A desktop file's Exec line turned into the argv to run, as the Desktop
 * Entry spec says: quoting as in the spec, %f %F (local files), %u %U
 * (URIs), %i (--icon ICON), %c (the Name), %k (the desktop file), %%; the
 * deprecated %d %D %n %N %v %m are dropped. @uris are URIs or absolute
 * paths. Errors (InvalidArgument): a URI that is neither, a non-file: one
 * for %f or %F (never mapped to a path through GIO's VFS), several for an
 * Exec that takes one, any for an Exec that takes none; an Exec that
 * breaks the spec is Failed. */
gboolean rc_exec_expand (const char         *exec,
                         const char         *name,
                         const char         *icon,
                         const char         *desktop_file,
                         const char * const *uris,
                         char             ***out_argv,
                         GError            **error);

/* What runs the app @app_id with @uris: its desktop file, found by
 * rc_desktop_lookup (bounded reads, never GIO's index), and rc_exec_expand's
 * argv with argv[0] the program's path in PATH. Sets @out_name (its Name) and @out_desktop_file
 * when given. NoSuchApp for no such desktop file, NotSupported for a
 * Terminal=true app or one without Exec, Failed for a program that is not
 * installed, and rc_exec_expand's errors. */
gboolean rc_exec_for_app (const char         *app_id,
                          const char * const *uris,
                          char              **out_name,
                          char              **out_desktop_file,
                          char             ***out_argv,
                          GError            **error);
/* The same from the desktop file @desktop_file itself, known already (the
 * SourcePath of the app's unit), read with GKeyFile: no GDesktopAppInfo,
 * which in a new process first reads every applications folder and the
 * MIME database and watches them. NoSuchApp when it cannot be read. */
gboolean rc_exec_for_desktop_file (const char         *app_id,
                                   const char         *desktop_file,
                                   const char * const *uris,
                                   char             ***out_argv,
                                   GError            **error);

G_END_DECLS
