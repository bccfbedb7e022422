/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* The authority: decides, through polkit, whether the sender of a method
 * call may do what it asks. Deny by default: a method missing from its
 * table is never authorized. The polkit subject is built from the caller's
 * bus credentials, never from anything the caller sends. */
#define RC_TYPE_AUTHORITY (rc_authority_get_type ())
G_DECLARE_FINAL_TYPE (RcAuthority, rc_authority, RC, AUTHORITY, GObject);

RcAuthority *rc_authority_new (void);

/* On success @out_pid is the caller's process id. Errors: NotAuthorized. */
void         rc_authority_check_async (RcAuthority           *self,
                                       GDBusMethodInvocation *invocation,
                                       GCancellable          *cancellable,
                                       GAsyncReadyCallback    callback,
                                       gpointer               user_data);
gboolean     rc_authority_check_finish (RcAuthority  *self,
                                        GAsyncResult *result,
                                        guint32      *out_pid,
                                        GError      **error);

G_END_DECLS
