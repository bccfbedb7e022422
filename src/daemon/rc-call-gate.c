/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "rc-call-gate.h"

typedef struct {
  GDBusInterfaceMethodCallFunc method_call;
  GDBusConnection             *connection;
  char                        *sender;
  char                        *object_path;
  char                        *interface_name;
  char                        *method_name;
  GVariant                    *parameters;
  GDBusMethodInvocation       *invocation;
  gpointer                     user_data;
} HeldCall;

struct _RcCallGate {
  GObject    parent_instance;
  GPtrArray *held;          /* HeldCall; NULL once the listing is read */
};

G_DEFINE_TYPE (RcCallGate, rc_call_gate, G_TYPE_OBJECT);

static void
held_call_free (HeldCall *call)
{
  g_object_unref (call->connection);
  g_free (call->sender);
  g_free (call->object_path);
  g_free (call->interface_name);
  g_free (call->method_name);
  g_variant_unref (call->parameters);
  g_object_unref (call->invocation);
  g_free (call);
}

void
rc_call_gate_call (RcCallGate                  *self,
                   GDBusInterfaceMethodCallFunc method_call,
                   GDBusConnection             *connection,
                   const char                  *sender,
                   const char                  *object_path,
                   const char                  *interface_name,
                   const char                  *method_name,
                   GVariant                    *parameters,
                   GDBusMethodInvocation       *invocation,
                   gpointer                     user_data)
{
  HeldCall *call;

  if (self->held == NULL)
    {
      method_call (connection, sender, object_path, interface_name, method_name, parameters,
                   invocation, user_data);
      return;
    }
  g_debug ("%s from %s waits for the first listing", method_name, sender);
  call = g_new0 (HeldCall, 1);
  call->method_call = method_call;
  call->connection = g_object_ref (connection);
  call->sender = g_strdup (sender);
  call->object_path = g_strdup (object_path);
  call->interface_name = g_strdup (interface_name);
  call->method_name = g_strdup (method_name);
  call->parameters = g_variant_ref (parameters);
  call->invocation = g_object_ref (invocation);
  call->user_data = user_data;
  g_ptr_array_add (self->held, call);
}

static void
registry_ready_cb (RcRegistry *registry,
                   RcCallGate *self)
{
  g_autoptr(GPtrArray) calls = g_steal_pointer (&self->held);

  for (guint i = 0; calls != NULL && i < calls->len; i++)
    {
      HeldCall *call = g_ptr_array_index (calls, i);

      call->method_call (call->connection, call->sender, call->object_path,
                         call->interface_name, call->method_name, call->parameters,
                         call->invocation, call->user_data);
    }
}

RcCallGate *
rc_call_gate_new (RcRegistry *registry)
{
  RcCallGate *self = g_object_new (RC_TYPE_CALL_GATE, NULL);

  if (!rc_registry_is_ready (registry))
    {
      self->held = g_ptr_array_new_with_free_func ((GDestroyNotify) held_call_free);
      g_signal_connect_object (registry, "ready", G_CALLBACK (registry_ready_cb), self, 0);
    }
  return self;
}

static void
rc_call_gate_dispose (GObject *object)
{
  RcCallGate *self = RC_CALL_GATE (object);

  g_clear_pointer (&self->held, g_ptr_array_unref);
  G_OBJECT_CLASS (rc_call_gate_parent_class)->dispose (object);
}

static void
rc_call_gate_class_init (RcCallGateClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = rc_call_gate_dispose;
}

static void
rc_call_gate_init (RcCallGate *self)
{
}
