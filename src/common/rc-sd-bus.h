/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <gio/gio.h>
#include <systemd/sd-bus.h>

G_BEGIN_DECLS

/* sd-bus where a new process makes one call and its start-up time is what
 * the user waits for (the scope helper, `resourcectl run`): it sends the
 * handshake in one go, where GDBus waits for the bus at each step and
 * starts a worker thread. The parameters are built as GVariants, as
 * everywhere else, and appended here. */

G_DEFINE_AUTOPTR_CLEANUP_FUNC (sd_bus, sd_bus_flush_close_unref)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (sd_bus_message, sd_bus_message_unref)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (sd_bus_slot, sd_bus_slot_unref)

/* Appends @value, of any D-Bus type, to @message; a negative errno on
 * failure. */
int rc_sd_bus_append_value (sd_bus_message *message,
                            GVariant       *value);
/* Appends each member of the tuple @args, as a method's arguments. */
int rc_sd_bus_append_args (sd_bus_message *message,
                           GVariant       *args);

/* A call on a connection just opened. Unlike sd_bus_call (), it is not
 * held back until the bus has answered Hello: it goes out right behind
 * Hello, which a new connection queues first, one round trip sooner. */
typedef struct {
  sd_bus_slot    *slot;
  sd_bus_message *reply;
} RcSdBusCall;

/* Queues @message and returns once it has been written to the bus, so
 * that the caller can do other work while the call is served. */
int  rc_sd_bus_call_send (sd_bus         *bus,
                          sd_bus_message *message,
                          RcSdBusCall    *call);
/* Waits, without a timeout (polkit may be asking for a password), for the
 * reply: in @out_reply, or a negative errno with @error set from an error
 * reply. */
int  rc_sd_bus_call_wait (sd_bus          *bus,
                          RcSdBusCall     *call,
                          sd_bus_error    *error,
                          sd_bus_message **out_reply);
void rc_sd_bus_call_clear (RcSdBusCall *call);

/* The GError for a failed sd-bus call: the remote error mapped as GDBus
 * maps it (our registered domain, G_DBUS_ERROR...), else @r's errno. */
GError *rc_sd_bus_error_to_gerror (const sd_bus_error *error,
                                   int                 r);

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (RcSdBusCall, rc_sd_bus_call_clear)

G_END_DECLS
