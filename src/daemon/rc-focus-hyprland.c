/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "rc-focus-hyprland.h"
#include "rc-line-splitter.h"

#include <errno.h>
#include <json-glib/json-glib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define EVENT_PREFIX "activewindowv2>>"
/* An event line is a window's class and title at most; a j/activewindow
 * reply one window's JSON. Longer ones are dropped unread into memory. */
#define MAX_LINE         (64u << 10)
#define MAX_REPLY        (64u << 10)
/* Hyprland answers a request at once; one unanswered this long is dropped. */
#define REQUEST_TIMEOUT_S 5

typedef struct _Request Request;

struct _RcFocusHyprland {
  RcFocusSource      parent_instance;
  char              *dir;
  GSocketConnection *events;
  guint8             chunk[4096];
  RcLineSplitter    *lines;       /* the event line read so far, at most MAX_LINE */
  Request           *request;     /* the one request in flight, or NULL */
  char              *next_address; /* focused since it was sent: asked next */
};

G_DEFINE_TYPE (RcFocusHyprland, rc_focus_hyprland, RC_TYPE_FOCUS_SOURCE);

/* One "j/activewindow" request; at most one is in flight. */
struct _Request {
  RcFocusHyprland   *self;
  GCancellable      *cancellable;
  guint              timeout_id;
  GSocketConnection *connection;
  guint8             chunk[4096];
  GByteArray        *reply;
  char              *address;
};

static void ask_active_window (RcFocusHyprland *self,
                               const char      *address);

/* Also where the next request starts: the focus changed while this one
 * was in flight. */
static void
request_free (Request *request)
{
  g_autoptr(RcFocusHyprland) self = request->self;
  g_autofree char *next = NULL;

  if (self->request == request)
    self->request = NULL;
  g_clear_handle_id (&request->timeout_id, g_source_remove);
  g_clear_object (&request->cancellable);
  g_clear_object (&request->connection);
  g_clear_pointer (&request->reply, g_byte_array_unref);
  g_free (request->address);
  g_free (request);
  next = g_steal_pointer (&self->next_address);
  if (next != NULL &&
      !g_cancellable_is_cancelled (rc_focus_source_get_cancellable (RC_FOCUS_SOURCE (self))))
    ask_active_window (self, next);
}
G_DEFINE_AUTOPTR_CLEANUP_FUNC (Request, request_free);

static void read_events (RcFocusHyprland *self);

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
handle_reply (Request *request)
{
  RcFocusSource *source = RC_FOCUS_SOURCE (request->self);
  gint64 pid;

  /* a later focus change is asked about next */
  if (request->self->next_address != NULL)
    return;
  g_byte_array_append (request->reply, (const guint8 *) "", 1);
  pid = rc_focus_hyprland_parse_window ((const char *) request->reply->data,
                                        request->reply->len - 1, request->address);
  if (pid < 0)
    rc_focus_source_warn_once (source, "reply", "j/activewindow gave no window: %.80s",
                               (const char *) request->reply->data);
  else if (pid == 0)
    rc_focus_source_warn_once (source, "no-pid", "window %s has no pid (or lost the focus "
                               "before Hyprland answered)", request->address);
  else
    rc_focus_source_emit_focused (source, (guint32) pid);
}

static void read_reply (Request *request);

static void
reply_cb (GObject      *object,
          GAsyncResult *result,
          gpointer      user_data)
{
  g_autoptr(Request) request = user_data;
  g_autoptr(GError) error = NULL;
  gssize length;

  length = g_input_stream_read_finish (G_INPUT_STREAM (object), result, &error);
  if (length < 0)
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        rc_focus_source_warn_once (RC_FOCUS_SOURCE (request->self), "request",
                                   "no answer to j/activewindow: %s", error->message);
      else if (request->timeout_id == 0)
        rc_focus_source_warn_once (RC_FOCUS_SOURCE (request->self), "request",
                                   "no answer to j/activewindow within %u s", REQUEST_TIMEOUT_S);
      return;
    }
  if (length == 0)
    {
      handle_reply (request);
      return;
    }
  if (request->reply->len + length > MAX_REPLY)
    {
      rc_focus_source_warn_once (RC_FOCUS_SOURCE (request->self), "reply-size",
                                 "an answer to j/activewindow longer than %u bytes; dropped",
                                 MAX_REPLY);
      return;
    }
  g_byte_array_append (request->reply, request->chunk, length);
  read_reply (g_steal_pointer (&request));
}

static void
read_reply (Request *request)
{
  GInputStream *in = g_io_stream_get_input_stream (G_IO_STREAM (request->connection));

  g_input_stream_read_async (in, request->chunk, sizeof request->chunk, G_PRIORITY_DEFAULT,
                             request->cancellable, reply_cb, request);
}

static void
request_sent_cb (GObject      *object,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  g_autoptr(Request) request = user_data;
  g_autoptr(GError) error = NULL;

  if (!g_output_stream_write_all_finish (G_OUTPUT_STREAM (object), result, NULL, &error))
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        rc_focus_source_warn_once (RC_FOCUS_SOURCE (request->self), "request",
                                   "cannot ask for the active window: %s", error->message);
      return;
    }
  request->reply = g_byte_array_new ();
  read_reply (g_steal_pointer (&request));
}

static void
request_connected_cb (GObject      *object,
                      GAsyncResult *result,
                      gpointer      user_data)
{
  g_autoptr(Request) request = user_data;
  g_autoptr(GError) error = NULL;
  static const char command[] = "j/activewindow";
  GCancellable *cancellable = request->cancellable;
  GOutputStream *out;

  request->connection = g_socket_client_connect_finish (G_SOCKET_CLIENT (object), result, &error);
  if (request->connection == NULL ||
      !rc_focus_source_peer_is_us (g_socket_connection_get_socket (request->connection), &error))
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        rc_focus_source_warn_once (RC_FOCUS_SOURCE (request->self), "request",
                                   "cannot reach Hyprland's command socket: %s", error->message);
      return;
    }
  out = g_io_stream_get_output_stream (G_IO_STREAM (request->connection));
  g_output_stream_write_all_async (out, command, strlen (command), G_PRIORITY_DEFAULT,
                                   cancellable, request_sent_cb, g_steal_pointer (&request));
}

static gboolean
request_timeout_cb (gpointer user_data)
{
  Request *request = user_data;

  request->timeout_id = 0;
  g_cancellable_cancel (request->cancellable);
  return G_SOURCE_REMOVE;
}

/* Asks which window is active, unless a request is in flight: then the
 * latest address is asked about when that one is done. */
static void
ask_active_window (RcFocusHyprland *self,
                   const char      *address)
{
  g_autoptr(GSocketClient) client = NULL;
  g_autofree char *path = NULL;
  g_autoptr(GSocketAddress) socket_address = NULL;
  Request *request;

  if (self->request != NULL)
    {
      g_free (self->next_address);
      self->next_address = g_strdup (address);
      return;
    }
  client = g_socket_client_new ();
  path = g_build_filename (self->dir, ".socket.sock", NULL);
  socket_address = g_unix_socket_address_new (path);
  request = g_new0 (Request, 1);
  request->self = g_object_ref (self);
  request->address = g_strdup (address);
  request->cancellable = g_cancellable_new ();
  request->timeout_id = g_timeout_add_seconds (REQUEST_TIMEOUT_S, request_timeout_cb, request);
  self->request = request;
  g_socket_client_connect_async (client, G_SOCKET_CONNECTABLE (socket_address),
                                 request->cancellable, request_connected_cb, request);
}

static void
handle_line (RcFocusHyprland *self,
             const char      *line,
             gsize            length)
{
  const char *address;

  if (!g_utf8_validate (line, length, NULL))
    {
      rc_focus_source_warn_once (RC_FOCUS_SOURCE (self), "utf-8", "an event that is not UTF-8 text");
      return;
    }
  if (!g_str_has_prefix (line, EVENT_PREFIX))
    return;
  address = line + strlen (EVENT_PREFIX);
  /* an empty address: no window has the focus; keep the boost */
  if (*address != '\0' && strspn (address, "0123456789abcdefABCDEFx") == strlen (address))
    ask_active_window (self, address);
  else if (*address != '\0')
    rc_focus_source_warn_once (RC_FOCUS_SOURCE (self), "garbage",
                               "a window address that is none: %.80s", address);
}

static gboolean
event_line_cb (const char *line,
               gsize       length,
               gpointer    user_data)
{
  RcFocusHyprland *self = user_data;

  if (line == NULL)
    rc_focus_source_warn_once (RC_FOCUS_SOURCE (self), "line-size",
                               "an event line longer than %u bytes; dropped", MAX_LINE);
  else
    handle_line (self, line, length);
  return TRUE;
}

/* @length more bytes of events: whole lines are handled, the rest kept. */
static void
take_events (RcFocusHyprland *self,
             const guint8    *data,
             gsize            length)
{
  rc_line_splitter_feed (self->lines, (const char *) data, length, event_line_cb, self);
}

static void
events_cb (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  g_autoptr(RcFocusHyprland) self = user_data;
  g_autoptr(GError) error = NULL;
  gssize length;

  length = g_input_stream_read_finish (G_INPUT_STREAM (object), result, &error);
  if (length <= 0)
    {
      rc_focus_source_emit_closed (RC_FOCUS_SOURCE (self),
                                   error != NULL ? error->message : "Hyprland closed the socket");
      return;
    }
  take_events (self, self->chunk, length);
  read_events (self);
}

static void
read_events (RcFocusHyprland *self)
{
  GInputStream *in = g_io_stream_get_input_stream (G_IO_STREAM (self->events));

  g_input_stream_read_async (in, self->chunk, sizeof self->chunk, G_PRIORITY_DEFAULT,
                             rc_focus_source_get_cancellable (RC_FOCUS_SOURCE (self)),
                             events_cb, g_object_ref (self));
}

static void
connected (RcFocusSource     *source,
           GSocketConnection *connection)
{
  RcFocusHyprland *self = RC_FOCUS_HYPRLAND (source);

  self->events = connection;
  read_events (self);
}

/* Is @path a folder of ours that no one else may write? Hyprland before
 * 0.40 kept its sockets in /tmp/hypr, where anyone may make folders. */
static gboolean
folder_is_ours (const char *path,
                GError    **error)
{
  struct stat st;

  if (lstat (path, &st) != 0)
    {
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errno), "%s: %s", path,
                   g_strerror (errno));
      return FALSE;
    }
  if (!S_ISDIR (st.st_mode) || st.st_uid != getuid () || (st.st_mode & (S_IWGRP | S_IWOTH)) != 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED,
                   "%s is not a folder of ours that only we may write", path);
      return FALSE;
    }
  return TRUE;
}

static void
rc_focus_hyprland_start (RcFocusSource *source)
{
  RcFocusHyprland *self = RC_FOCUS_HYPRLAND (source);
  g_autofree char *path = g_build_filename (self->dir, ".socket2.sock", NULL);
  g_autofree char *parent = g_path_get_dirname (self->dir);
  g_autoptr(GError) error = NULL;

  if (!folder_is_ours (parent, &error) || !folder_is_ours (self->dir, &error))
    {
      rc_focus_source_emit_closed (source, error->message);
      return;
    }
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

  g_clear_object (&self->events);
  rc_line_splitter_free (self->lines);
  g_free (self->next_address);
  g_free (self->dir);
  G_OBJECT_CLASS (rc_focus_hyprland_parent_class)->finalize (object);
}

static void
rc_focus_hyprland_dispose (GObject *object)
{
  RcFocusHyprland *self = RC_FOCUS_HYPRLAND (object);

  g_clear_pointer (&self->next_address, g_free);
  if (self->request != NULL)
    g_cancellable_cancel (self->request->cancellable);
  G_OBJECT_CLASS (rc_focus_hyprland_parent_class)->dispose (object);
}

static void
rc_focus_hyprland_class_init (RcFocusHyprlandClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = rc_focus_hyprland_dispose;
  G_OBJECT_CLASS (klass)->finalize = rc_focus_hyprland_finalize;
  RC_FOCUS_SOURCE_CLASS (klass)->start = rc_focus_hyprland_start;
}

static void
rc_focus_hyprland_init (RcFocusHyprland *self)
{
  self->lines = rc_line_splitter_new (MAX_LINE);
}
