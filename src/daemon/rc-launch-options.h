/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>

#include "rc-limits.h"
#include "rc-unit-name.h"

G_BEGIN_DECLS

/* What Launch and Adopt callers send, checked before polkit is asked and
 * before anything starts or moves: the options dictionary (a{sv}), the
 * URIs of a Launch, the pids of an Adopt. Errors are InvalidArgument with
 * the message the caller gets. The only look-up outside the process is
 * whether WorkingDirectory is a folder. */

/* Caps on what a caller may hand in before polkit is asked: each is far
 * above what a launcher or task manager sends, and bounds the daemon's work
 * for a caller that is not one. */
#define RC_LAUNCH_MAX_ENVIRONMENT 64
#define RC_LAUNCH_MAX_URIS        256
#define RC_LAUNCH_MAX_ARGUMENT    4096
#define RC_ADOPT_MAX_PIDS         1024

/* Which method the options are for: each takes its own. */
typedef enum {
  RC_START_LAUNCH,
  RC_START_ADOPT,
} RcStartMethod;

typedef struct {
  RcStartMethod method;
  RcUnitKind    kind;
  char         *app_id;          /* Adopt's AppId; NULL when not given */
  char         *launcher;
  char         *slice;
  char        **environment;     /* NULL when not given */
  char         *working_directory; /* NULL when not given */
  RcLimits      requested;       /* Launch's Limits; none set when not given */
  guint32       caller_pid;      /* Launch's CallerPid; 0 when not given */
  GArray       *pids;            /* Adopt's pids (guint32), each once, in the order given */
} RcLaunchOptions;

/* The defaults: a service (Launch) or scope (Adopt) of launcher "rc" in app.slice. */
void     rc_launch_options_init (RcLaunchOptions *options,
                                 RcStartMethod    method);
void     rc_launch_options_clear (RcLaunchOptions *options);
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (RcLaunchOptions, rc_launch_options_clear)

/* Reads @dict (a{sv}) over @options' defaults; on failure @options holds
 * part of what was read and is only to be cleared. */
gboolean rc_launch_options_parse (RcLaunchOptions *options,
                                  GVariant        *dict,
                                  GError         **error);

/* The one refusal of a WorkingDirectory: not an absolute path (checked
 * here, before polkit) or not a folder (checked in the file reader). */
void     rc_launch_refuse_working_directory (const char *dir,
                                             GError    **error);

/* Launch's arguments, in the order they are checked: the AppID, the
 * options (into @options, initialized for Launch), the URIs. */
gboolean rc_launch_check_args (const char         *app_id,
                               const char * const *uris,
                               GVariant           *dict,
                               RcLaunchOptions    *options,
                               GError            **error);
/* Adopt's arguments: the options (into @options, initialized for Adopt),
 * then the number of pids in @pids (au), capped as sent. The pids go into
 * @options->pids with repeats dropped, before anything is read of them:
 * the daemon's work before polkit is asked is one read per distinct
 * process, whatever the caller repeats. */
gboolean rc_adopt_check_args (GVariant        *pids,
                              GVariant        *dict,
                              RcLaunchOptions *options,
                              GError         **error);

G_END_DECLS
