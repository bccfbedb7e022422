/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <gio/gio.h>

#include "rc-registry.h"

G_BEGIN_DECLS

/* The gate before the first listing: the daemon owns its name at once
 * (so D-Bus activation never times out), and a method call that comes
 * before the registry has read the first full listing waits here for it,
 * so nobody sees a partial list or a NoSuchApp for an app that runs. */
#define RC_TYPE_CALL_GATE (rc_call_gate_get_type ())
G_DECLARE_FINAL_TYPE (RcCallGate, rc_call_gate, RC, CALL_GATE, GObject);

RcCallGate *rc_call_gate_new (RcRegistry *registry);

/* Runs @method_call at once when the listing is read, or holds the call
 * and runs it then, in the order the calls came. @user_data must outlive
 * the gate. */
void        rc_call_gate_call (RcCallGate                  *self,
                               GDBusInterfaceMethodCallFunc method_call,
                               GDBusConnection             *connection,
                               const char                  *sender,
                               const char                  *object_path,
                               const char                  *interface_name,
                               const char                  *method_name,
                               GVariant                    *parameters,
                               GDBusMethodInvocation       *invocation,
                               gpointer                     user_data);

G_END_DECLS
