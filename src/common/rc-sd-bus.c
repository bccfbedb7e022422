/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "rc-sd-bus.h"

#include <errno.h>
#include <string.h>

/* A basic value: sd-bus takes a pointer to a C value of the type's size
 * (an int for a boolean). */
static int
append_basic (sd_bus_message *message,
              GVariant       *value)
{
  char type = *g_variant_get_type_string (value);
  union {
    uint8_t  y;
    int      b;
    int16_t  n;
    uint16_t q;
    int32_t  i;
    uint32_t u;
    int64_t  x;
    uint64_t t;
    double   d;
  } v;

  switch (type)
    {
    case 'y': v.y = g_variant_get_byte (value); break;
    case 'b': v.b = g_variant_get_boolean (value); break;
    case 'n': v.n = g_variant_get_int16 (value); break;
    case 'q': v.q = g_variant_get_uint16 (value); break;
    case 'i': v.i = g_variant_get_int32 (value); break;
    case 'u': v.u = g_variant_get_uint32 (value); break;
    case 'x': v.x = g_variant_get_int64 (value); break;
    case 't': v.t = g_variant_get_uint64 (value); break;
    case 'd': v.d = g_variant_get_double (value); break;
    case 's':
    case 'o':
    case 'g':
      return sd_bus_message_append_basic (message, type, g_variant_get_string (value, NULL));
    default:
      return -EINVAL;   /* h: no fds here */
    }
  return sd_bus_message_append_basic (message, type, &v);
}

/* The members of a container, each appended in turn. */
static int
append_children (sd_bus_message *message,
                 GVariant       *container)
{
  gsize n = g_variant_n_children (container);

  for (gsize i = 0; i < n; i++)
    {
      g_autoptr(GVariant) child = g_variant_get_child_value (container, i);
      int r = rc_sd_bus_append_value (message, child);

      if (r < 0)
        return r;
    }
  return 0;
}

int
rc_sd_bus_append_value (sd_bus_message *message,
                        GVariant       *value)
{
  const char *type = g_variant_get_type_string (value);
  g_autofree char *contents = NULL;
  char container;
  int r;

  if (g_variant_type_is_basic (g_variant_get_type (value)))
    return append_basic (message, value);
  if (g_variant_is_of_type (value, G_VARIANT_TYPE_VARIANT))
    {
      g_autoptr(GVariant) inner = g_variant_get_variant (value);

      container = 'v';
      contents = g_strdup (g_variant_get_type_string (inner));
      if ((r = sd_bus_message_open_container (message, container, contents)) < 0 ||
          (r = rc_sd_bus_append_value (message, inner)) < 0)
        return r;
      return sd_bus_message_close_container (message);
    }
  switch (type[0])
    {
    case 'a':
      container = 'a';
      contents = g_strdup (type + 1);
      break;
    case '(':
      container = 'r';
      contents = g_strndup (type + 1, strlen (type) - 2);
      break;
    case '{':
      container = 'e';
      contents = g_strndup (type + 1, strlen (type) - 2);
      break;
    default:
      return -EINVAL;   /* maybe types have no D-Bus form */
    }
  if ((r = sd_bus_message_open_container (message, container, contents)) < 0 ||
      (r = append_children (message, value)) < 0)
    return r;
  return sd_bus_message_close_container (message);
}

int
rc_sd_bus_append_args (sd_bus_message *message,
                       GVariant       *args)
{
  g_return_val_if_fail (g_variant_is_of_type (args, G_VARIANT_TYPE_TUPLE), -EINVAL);

  return append_children (message, args);
}

static int
reply_cb (sd_bus_message *reply,
          void           *user_data,
          sd_bus_error   *ret_error)
{
  RcSdBusCall *call = user_data;

  call->reply = sd_bus_message_ref (reply);
  return 0;
}

/* Whether a call is as far as its caller waits for. */
typedef gboolean (*CallDoneFunc) (sd_bus      *bus,
                                  RcSdBusCall *call);

/* Processes @bus until @done says so, waiting for it in between. */
static int
process_until (sd_bus      *bus,
               RcSdBusCall *call,
               CallDoneFunc done)
{
  int r = 0;

  while (r >= 0 && !done (bus, call))
    {
      r = sd_bus_process (bus, NULL);
      if (r == 0)
        r = sd_bus_wait (bus, UINT64_MAX);
    }
  return MIN (r, 0);
}

static gboolean
written (sd_bus      *bus,
         RcSdBusCall *call)
{
  uint64_t queued = 0;

  return call->reply != NULL || sd_bus_get_n_queued_write (bus, &queued) < 0 || queued == 0;
}

static gboolean
answered (sd_bus      *bus,
          RcSdBusCall *call)
{
  return call->reply != NULL;
}

int
rc_sd_bus_call_send (sd_bus         *bus,
                     sd_bus_message *message,
                     RcSdBusCall    *call)
{
  int r = sd_bus_call_async (bus, &call->slot, message, reply_cb, call, UINT64_MAX);

  return r < 0 ? r : process_until (bus, call, written);
}

int
rc_sd_bus_call_wait (sd_bus          *bus,
                     RcSdBusCall     *call,
                     sd_bus_error    *error,
                     sd_bus_message **out_reply)
{
  int r = process_until (bus, call, answered);

  if (r < 0)
    return r;
  if (sd_bus_message_is_method_error (call->reply, NULL))
    {
      r = sd_bus_error_copy (error, sd_bus_message_get_error (call->reply));
      return r < 0 ? r : -EIO;
    }
  *out_reply = g_steal_pointer (&call->reply);
  return 0;
}

void
rc_sd_bus_call_clear (RcSdBusCall *call)
{
  g_clear_pointer (&call->slot, sd_bus_slot_unref);
  g_clear_pointer (&call->reply, sd_bus_message_unref);
}

GError *
rc_sd_bus_error_to_gerror (const sd_bus_error *error,
                           int                 r)
{
  if (error != NULL && sd_bus_error_is_set (error))
    return g_dbus_error_new_for_dbus_error (error->name,
                                            error->message != NULL ? error->message : error->name);
  return g_error_new (G_IO_ERROR, g_io_error_from_errno (-r), "%s", g_strerror (-r));
}
