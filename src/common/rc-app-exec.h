/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The last steps of a process that becomes an app in its scope (the scope
 * helper's held process), or starts it there (`resourcectl run --scope`). */

/* Every signal default and none blocked, as a shell starts a process. */
void rc_app_reset_signals (void);

/* Points stdout and stderr at a journal stream named @identifier, opened
 * from inside the scope so that the app's output is logged as the
 * scope's, sets JOURNAL_STREAM in @env as systemd does for a service
 * whose output goes to the journal, and execs @argv (a path) with @env.
 * Without a journal the output stays where it was. Returns only when the
 * exec failed, with errno set. */
void rc_app_exec (const char         *identifier,
                  const char * const *argv,
                  char              **env);

/* Starts @argv (a path) with @env as a child that stays when this process
 * exits, in the scope this process is in (posix_spawn): in a session of
 * its own, with no signal blocked and every one at its default, input from
 * /dev/null and its output on a journal stream named @identifier (or
 * /dev/null without a journal). Opened here, the stream is logged as the
 * scope's. An error (G_FILE_ERROR, from the exec's errno) when it cannot
 * be run. */
gboolean rc_app_spawn (const char         *identifier,
                       const char * const *argv,
                       char              **env,
                       GError            **error);

G_END_DECLS
