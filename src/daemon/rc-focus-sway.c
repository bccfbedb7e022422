/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "rc-focus-sway.h"

#include <json-glib/json-glib.h>
#include <string.h>

/* i3's IPC framing: "i3-ipc", the payload's length and the message type,
 * both 32-bit in the host's byte order, then the JSON payload. */
#define IPC_MAGIC        "i3-ipc"
#define IPC_HEADER_SIZE  14
#define IPC_SUBSCRIBE    2
#define IPC_EVENT_WINDOW 0x80000003u
/* A window event is a few KiB (one container, not the tree); anything this
 * big is not sway talking, and is refused before it is read. */
#define IPC_MAX_PAYLOAD  (256u << 10)

struct _RcFocusSway {
  RcFocusSource      parent_instance;
  char              *socket_path;
  GSocketConnection *connection;
  guint8             header[IPC_HEADER_SIZE];
  guint32            type;
  guint32            size;
  char              *payload;
};

G_DEFINE_TYPE (RcFocusSway, rc_focus_sway, RC_TYPE_FOCUS_SOURCE);

static void read_header (RcFocusSway *self);

gint64
rc_focus_sway_parse_event (const char *json,
                           gsize       length)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  JsonObject *object = rc_focus_source_parse_object (parser, json, length);
  JsonObject *container;

  if (object == NULL)
    return -1;
  if (g_strcmp0 (json_object_get_string_member_with_default (object, "change", ""), "focus") != 0)
    return 0;
  container = json_object_has_member (object, "container") &&
              JSON_NODE_HOLDS_OBJECT (json_object_get_member (object, "container"))
              ? json_object_get_object_member (object, "container") : NULL;
  if (container == NULL)
    return -1;
  return rc_focus_source_member_pid (container);
}

static void
handle_message (RcFocusSway *self,
                gsize        length)
{
  RcFocusSource *source = RC_FOCUS_SOURCE (self);
  gint64 pid;

  if (self->type != IPC_EVENT_WINDOW)
    {
      if (self->type == IPC_SUBSCRIBE && strstr (self->payload, "true") == NULL)
        rc_focus_source_warn_once (source, "subscribe", "sway refused the subscription: %s",
                                   self->payload);
      return;
    }
  pid = rc_focus_sway_parse_event (self->payload, length);
  if (pid < 0)
    rc_focus_source_warn_once (source, "garbage", "a window event that is not JSON "
                               "of a window: %.80s", self->payload);
  else if (pid == 0 && strstr (self->payload, "\"focus\"") != NULL)
    rc_focus_source_warn_once (source, "no-pid", "a focused window without a pid");
  else if (pid > 0)
    rc_focus_source_emit_focused (source, (guint32) pid);
}

/* Did a read get all @wanted bytes? If not, the connection is over. */
static gboolean
read_complete (RcFocusSway  *self,
               GObject      *stream,
               GAsyncResult *result,
               gsize         wanted)
{
  g_autoptr(GError) error = NULL;
  gsize length = 0;

  if (!g_input_stream_read_all_finish (G_INPUT_STREAM (stream), result, &length, &error))
    rc_focus_source_emit_closed (RC_FOCUS_SOURCE (self), error->message);
  else if (length == 0 && wanted == IPC_HEADER_SIZE)
    rc_focus_source_emit_closed (RC_FOCUS_SOURCE (self), "the compositor closed the socket");
  else if (length < wanted)
    rc_focus_source_emit_closed (RC_FOCUS_SOURCE (self), "the socket closed within a message");
  else
    return TRUE;
  return FALSE;
}

static void
payload_cb (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  g_autoptr(RcFocusSway) self = user_data;

  if (!read_complete (self, object, result, self->size))
    return;
  handle_message (self, self->size);
  g_clear_pointer (&self->payload, g_free);
  read_header (self);
}

static void
header_cb (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  g_autoptr(RcFocusSway) self = user_data;

  if (!read_complete (self, object, result, IPC_HEADER_SIZE))
    return;
  memcpy (&self->size, self->header + 6, sizeof self->size);
  memcpy (&self->type, self->header + 10, sizeof self->type);
  if (memcmp (self->header, IPC_MAGIC, strlen (IPC_MAGIC)) != 0 || self->size > IPC_MAX_PAYLOAD)
    {
      rc_focus_source_warn_once (RC_FOCUS_SOURCE (self), "framing",
                                 "a message that is not i3 IPC; disconnecting");
      rc_focus_source_emit_closed (RC_FOCUS_SOURCE (self), "not i3 IPC");
      return;
    }
  self->payload = g_malloc0 (self->size + 1);
  g_input_stream_read_all_async (G_INPUT_STREAM (object), self->payload, self->size, G_PRIORITY_DEFAULT,
                                 rc_focus_source_get_cancellable (RC_FOCUS_SOURCE (self)),
                                 payload_cb, g_object_ref (self));
}

static void
read_header (RcFocusSway *self)
{
  GInputStream *in = g_io_stream_get_input_stream (G_IO_STREAM (self->connection));

  g_input_stream_read_all_async (in, self->header, sizeof self->header, G_PRIORITY_DEFAULT,
                                 rc_focus_source_get_cancellable (RC_FOCUS_SOURCE (self)),
                                 header_cb, g_object_ref (self));
}

static void
subscribed_cb (GObject      *object,
               GAsyncResult *result,
               gpointer      user_data)
{
  g_autoptr(RcFocusSway) self = user_data;
  g_autoptr(GError) error = NULL;

  if (!g_output_stream_write_all_finish (G_OUTPUT_STREAM (object), result, NULL, &error))
    rc_focus_source_emit_closed (RC_FOCUS_SOURCE (self), error->message);
}

static void
connected (RcFocusSource     *source,
           GSocketConnection *connection)
{
  RcFocusSway *self = RC_FOCUS_SWAY (source);
  static const char events[] = "[\"window\"]";
  static guint8 message[IPC_HEADER_SIZE + sizeof events - 1];
  guint32 size = sizeof events - 1, type = IPC_SUBSCRIBE;
  GOutputStream *out;

  self->connection = connection;
  memcpy (message, IPC_MAGIC, 6);
  memcpy (message + 6, &size, 4);
  memcpy (message + 10, &type, 4);
  memcpy (message + IPC_HEADER_SIZE, events, size);
  out = g_io_stream_get_output_stream (G_IO_STREAM (self->connection));
  g_output_stream_write_all_async (out, message, sizeof message, G_PRIORITY_DEFAULT,
                                   rc_focus_source_get_cancellable (source),
                                   subscribed_cb, g_object_ref (self));
  read_header (self);
}

static void
rc_focus_sway_start (RcFocusSource *source)
{
  rc_focus_source_connect (source, RC_FOCUS_SWAY (source)->socket_path, connected);
}

RcFocusSource *
rc_focus_sway_new (const char *socket_path)
{
  RcFocusSway *self = g_object_new (RC_TYPE_FOCUS_SWAY, "name", "sway", NULL);

  self->socket_path = g_strdup (socket_path);
  return RC_FOCUS_SOURCE (self);
}

static void
rc_focus_sway_finalize (GObject *object)
{
  RcFocusSway *self = RC_FOCUS_SWAY (object);

  g_clear_object (&self->connection);
  g_free (self->socket_path);
  g_free (self->payload);
  G_OBJECT_CLASS (rc_focus_sway_parent_class)->finalize (object);
}

static void
rc_focus_sway_class_init (RcFocusSwayClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = rc_focus_sway_finalize;
  RC_FOCUS_SOURCE_CLASS (klass)->start = rc_focus_sway_start;
}

static void
rc_focus_sway_init (RcFocusSway *self)
{
}
