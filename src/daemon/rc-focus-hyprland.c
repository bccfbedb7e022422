/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "rc-focus-hyprland.h"

#include <json-glib/json-glib.h>
#include <string.h>

#define EVENT_PREFIX "activewindowv2>>"

struct _RcFocusHyprland {
  RcFocusSource      parent_instance;
  char              *dir;
  GSocketConnection *events;
  GDataInputStream  *lines;
  guint64            serial;    /* of the latest focus change */
};

G_DEFINE_TYPE (RcFocusHyprland, rc_focus_hyprland, RC_TYPE_FOCUS_SOURCE);

/* One "j/activewindow" request. */
typedef struct {
  RcFocusHyprland   *self;
  GSocketConnection *connection;
  GOutputStream     *reply;
  char              *address;
  guint64            serial;
} Request;

static void
request_free (Request *request)
{
  g_object_unref (request->self);
  g_clear_object (&request->connection);
  g_clear_object (&request->reply);
  g_free (request->address);
  g_free (request);
}
G_DEFINE_AUTOPTR_CLEANUP_FUNC (Request, request_free);

static void read_line (RcFocusHyprland *self);

gint64
rc_focus_hyprland_parse_window (const char *json,
                                gsize       length,
                                const char *address)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  JsonObject *object = rc_focus_source_parse_object (parser, json, length);
  const char *reply_address;

  if (object == NULL)
    return -1;
  reply_address = json_object_get_string_member_with_default (object, "address", "");
  if (g_str_has_prefix (reply_address, "0x"))
    reply_address += 2;
  if (g_str_has_prefix (address, "0x"))
    address += 2;
  if (g_ascii_strcasecmp (reply_address, address) != 0)
    return 0;
  return rc_focus_source_member_pid (object);
}

static void
reply_cb (GObject      *object,
          GAsyncResult *result,
          gpointer      user_data)
{
  g_autoptr(Request) request = user_data;
  RcFocusSource *source = RC_FOCUS_SOURCE (request->self);
  g_autoptr(GError) error = NULL;
  GMemoryOutputStream *reply = G_MEMORY_OUTPUT_STREAM (request->reply);
  gint64 pid;

  if (g_output_stream_splice_finish (G_OUTPUT_STREAM (object), result, &error) < 0)
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        rc_focus_source_warn_once (source, "request", "no answer to j/activewindow: %s",
                                   error->message);
      return;
    }
  /* a later focus change has its own request */
  if (request->serial != request->self->serial)
    return;
  pid = rc_focus_hyprland_parse_window (g_memory_output_stream_get_data (reply),
                                        g_memory_output_stream_get_data_size (reply),
                                        request->address);
  if (pid < 0)
    rc_focus_source_warn_once (source, "reply", "j/activewindow gave no window: %.80s",
                               (const char *) g_memory_output_stream_get_data (reply));
  else if (pid == 0)
    rc_focus_source_warn_once (source, "no-pid", "window %s has no pid (or lost the focus "
                               "before Hyprland answered)", request->address);
  else
    rc_focus_source_emit_focused (source, (guint32) pid);
}

static void
request_sent_cb (GObject      *object,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  g_autoptr(Request) request = user_data;
  g_autoptr(GError) error = NULL;
  GInputStream *in;

  if (!g_output_stream_write_all_finish (G_OUTPUT_STREAM (object), result, NULL, &error))
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        rc_focus_source_warn_once (RC_FOCUS_SOURCE (request->self), "request",
                                   "cannot ask for the active window: %s", error->message);
      return;
    }
  in = g_io_stream_get_input_stream (G_IO_STREAM (request->connection));
  request->reply = g_memory_output_stream_new_resizable ();
  g_output_stream_splice_async (request->reply, in, G_OUTPUT_STREAM_SPLICE_CLOSE_TARGET,
                                G_PRIORITY_DEFAULT,
                                rc_focus_source_get_cancellable (RC_FOCUS_SOURCE (request->self)),
                                reply_cb, request);
  g_steal_pointer (&request);
}

static void
request_connected_cb (GObject      *object,
                      GAsyncResult *result,
                      gpointer      user_data)
{
  g_autoptr(Request) request = user_data;
  g_autoptr(GError) error = NULL;
  static const char command[] = "j/activewindow";
  GOutputStream *out;

  request->connection = g_socket_client_connect_finish (G_SOCKET_CLIENT (object), result, &error);
  if (request->connection == NULL)
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        rc_focus_source_warn_once (RC_FOCUS_SOURCE (request->self), "request",
                                   "cannot reach Hyprland's command socket: %s", error->message);
      return;
    }
  out = g_io_stream_get_output_stream (G_IO_STREAM (request->connection));
  g_output_stream_write_all_async (out, command, strlen (command), G_PRIORITY_DEFAULT,
                                   rc_focus_source_get_cancellable (RC_FOCUS_SOURCE (request->self)),
                                   request_sent_cb, request);
  g_steal_pointer (&request);
}

static void
ask_active_window (RcFocusHyprland *self,
                   const char      *address)
{
  g_autoptr(GSocketClient) client = g_socket_client_new ();
  g_autofree char *path = g_build_filename (self->dir, ".socket.sock", NULL);
  g_autoptr(GSocketAddress) socket_address = g_unix_socket_address_new (path);
  Request *request = g_new0 (Request, 1);

  request->self = g_object_ref (self);
  request->address = g_strdup (address);
  request->serial = ++self->serial;
  g_socket_client_connect_async (client, G_SOCKET_CONNECTABLE (socket_address),
                                 rc_focus_source_get_cancellable (RC_FOCUS_SOURCE (self)),
                                 request_connected_cb, request);
}

static void
line_cb (GObject      *object,
         GAsyncResult *result,
         gpointer      user_data)
{
  g_autoptr(RcFocusHyprland) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autofree char *line = NULL;
  gsize length;

  line = g_data_input_stream_read_line_finish_utf8 (G_DATA_INPUT_STREAM (object), result, &length,
                                                    &error);
  if (line == NULL)
    {
      if (error != NULL && g_error_matches (error, G_CONVERT_ERROR, G_CONVERT_ERROR_ILLEGAL_SEQUENCE))
        {
          rc_focus_source_warn_once (RC_FOCUS_SOURCE (self), "utf-8",
                                     "an event that is not UTF-8 text");
          read_line (self);
          return;
        }
      rc_focus_source_emit_closed (RC_FOCUS_SOURCE (self),
                                   error != NULL ? error->message : "Hyprland closed the socket");
      return;
    }
  if (g_str_has_prefix (line, EVENT_PREFIX))
    {
      const char *address = line + strlen (EVENT_PREFIX);

      /* an empty address: no window has the focus; keep the boost */
      if (*address != '\0' && strspn (address, "0123456789abcdefABCDEFx") == strlen (address))
        ask_active_window (self, address);
      else if (*address != '\0')
        rc_focus_source_warn_once (RC_FOCUS_SOURCE (self), "garbage",
                                   "a window address that is none: %.80s", address);
    }
  read_line (self);
}

static void
read_line (RcFocusHyprland *self)
{
  g_data_input_stream_read_line_async (self->lines, G_PRIORITY_DEFAULT,
                                       rc_focus_source_get_cancellable (RC_FOCUS_SOURCE (self)),
                                       line_cb, g_object_ref (self));
}

static void
connected (RcFocusSource     *source,
           GSocketConnection *connection)
{
  RcFocusHyprland *self = RC_FOCUS_HYPRLAND (source);

  self->events = connection;
  self->lines = g_data_input_stream_new (g_io_stream_get_input_stream (G_IO_STREAM (connection)));
  read_line (self);
}

static void
rc_focus_hyprland_start (RcFocusSource *source)
{
  g_autofree char *path = g_build_filename (RC_FOCUS_HYPRLAND (source)->dir, ".socket2.sock", NULL);

  rc_focus_source_connect (source, path, connected);
}

RcFocusSource *
rc_focus_hyprland_new (const char *signature)
{
  RcFocusHyprland *self = g_object_new (RC_TYPE_FOCUS_HYPRLAND, "name", "hyprland", NULL);

  self->dir = g_build_filename (g_get_user_runtime_dir (), "hypr", signature, NULL);
  if (!g_file_test (self->dir, G_FILE_TEST_IS_DIR))
    {
      g_free (self->dir);
      self->dir = g_build_filename ("/tmp", "hypr", signature, NULL);
    }
  return RC_FOCUS_SOURCE (self);
}

static void
rc_focus_hyprland_finalize (GObject *object)
{
  RcFocusHyprland *self = RC_FOCUS_HYPRLAND (object);

  g_clear_object (&self->lines);
  g_clear_object (&self->events);
  g_free (self->dir);
  G_OBJECT_CLASS (rc_focus_hyprland_parent_class)->finalize (object);
}

static void
rc_focus_hyprland_class_init (RcFocusHyprlandClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = rc_focus_hyprland_finalize;
  RC_FOCUS_SOURCE_CLASS (klass)->start = rc_focus_hyprland_start;
}

static void
rc_focus_hyprland_init (RcFocusHyprland *self)
{
}
