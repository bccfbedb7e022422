/* SPDX-License-Identifier: LGPL-2.1-or-later */
#define _GNU_SOURCE 1  /* struct ucred */
#include "rc-focus-x11.h"

#include <X11/Xauth.h>
#include <fcntl.h>
#include <glib-unix.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include <xcb/xcb.h>
/* xcb_poll_for_reply: a reply read without waiting */
#include <xcb/xcbext.h>

/* A local X server sends its setup block at once; one silent this long is
 * not an X server we want. */
#define X11_SETUP_TIMEOUT_S 5
/* Requests awaiting a reply at most: a server that stops answering is
 * dropped before its socket's buffer fills and libxcb would wait to write. */
#define X11_MAX_PENDING 64

typedef enum {
  ATOM_ACTIVE_WINDOW,
  ATOM_WM_PID,
  ATOM_I3_SOCKET_PATH,
  N_ATOMS
} Atom;

static const char * const atom_names[N_ATOMS] = {
  "_NET_ACTIVE_WINDOW", "_NET_WM_PID", "I3_SOCKET_PATH",
};

typedef enum {
  REPLY_ATOM,          /* InternAtom of atom_names[index] */
  REPLY_ACTIVE,        /* the root's _NET_ACTIVE_WINDOW */
  REPLY_PID,           /* _NET_WM_PID of window */
  REPLY_I3,            /* the root's I3_SOCKET_PATH */
  N_REPLY_KINDS
} ReplyKind;

/* A request whose reply is awaited, in the order sent. */
typedef struct {
  unsigned int sequence;
  ReplyKind    kind;
  guint        index;
  xcb_window_t window;
} Pending;

struct _RcFocusX11 {
  RcFocusSource     parent_instance;
  char             *display;
  xcb_connection_t *connection;
  xcb_window_t      root;
  xcb_atom_t        atoms[N_ATOMS];
  guint             atoms_missing;
  GQueue            pending;   /* Pending */
  /* a root property asked for, and whether it changed again since: one
   * request per property in flight, however fast it changes */
  gboolean asking[N_REPLY_KINDS];
  gboolean ask_again[N_REPLY_KINDS];
  guint    watch_id;
};

G_DEFINE_TYPE (RcFocusX11, rc_focus_x11, RC_TYPE_FOCUS_SOURCE);

static void
expect (RcFocusX11  *self,
        unsigned int sequence,
        ReplyKind    kind,
        guint        index,
        xcb_window_t window)
{
  Pending *pending;

  if (self->pending.length >= X11_MAX_PENDING)
    {
      rc_focus_source_emit_closed (RC_FOCUS_SOURCE (self), "the X server does not answer");
      return;
    }
  pending = g_new0 (Pending, 1);
  pending->sequence = sequence;
  pending->kind = kind;
  pending->index = index;
  pending->window = window;
  g_queue_push_tail (&self->pending, pending);
}

static void
get_property (RcFocusX11  *self,
              ReplyKind    kind,
              xcb_window_t window,
              xcb_atom_t   property,
              xcb_atom_t   type)
{
  xcb_get_property_cookie_t cookie;

  cookie = xcb_get_property (self->connection, FALSE, window, property, type, 0, 1024);
  expect (self, cookie.sequence, kind, 0, window);
}

static void
ask_root (RcFocusX11 *self,
          ReplyKind   kind)
{
  if (self->asking[kind])
    {
      self->ask_again[kind] = TRUE;
      return;
    }
  self->asking[kind] = TRUE;
  if (kind == REPLY_ACTIVE)
    get_property (self, kind, self->root, self->atoms[ATOM_ACTIVE_WINDOW], XCB_ATOM_WINDOW);
  else
    get_property (self, kind, self->root, self->atoms[ATOM_I3_SOCKET_PATH],
                  XCB_GET_PROPERTY_TYPE_ANY);
}

/* Was @kind's answer out of date when it came? Then it is asked again. */
static gboolean
answer_is_stale (RcFocusX11 *self,
                 ReplyKind   kind)
{
  self->asking[kind] = FALSE;
  if (!self->ask_again[kind])
    return FALSE;
  self->ask_again[kind] = FALSE;
  ask_root (self, kind);
  return TRUE;
}

static void
atoms_known (RcFocusX11 *self)
{
  const guint32 mask = XCB_EVENT_MASK_PROPERTY_CHANGE;

  if (self->atoms[ATOM_ACTIVE_WINDOW] == XCB_ATOM_NONE)
    {
      rc_focus_source_emit_closed (RC_FOCUS_SOURCE (self), "no _NET_ACTIVE_WINDOW atom");
      return;
    }
  xcb_change_window_attributes (self->connection, self->root, XCB_CW_EVENT_MASK, &mask);
  ask_root (self, REPLY_I3);
  ask_root (self, REPLY_ACTIVE);
}

static void
handle_reply (RcFocusX11 *self,
              Pending    *pending,
              void       *reply)
{
  RcFocusSource *source = RC_FOCUS_SOURCE (self);
  xcb_get_property_reply_t *property = reply;
  guint32 value = 0;

  if (pending->kind == REPLY_ATOM)
    {
      self->atoms[pending->index] = reply != NULL ? ((xcb_intern_atom_reply_t *) reply)->atom : 0;
      if (--self->atoms_missing == 0)
        atoms_known (self);
      return;
    }
  if (property != NULL && property->format == 32 && xcb_get_property_value_length (property) >= 4)
    value = *(guint32 *) xcb_get_property_value (property);
  switch (pending->kind)
    {
    case REPLY_I3:
      if (answer_is_stale (self, REPLY_I3))
        break;
      /* i3 sets it when it starts, and removes it when it exits */
      g_object_set (self, "name",
                    property != NULL && xcb_get_property_value_length (property) > 0 ? "i3" : "x11",
                    NULL);
      break;
    case REPLY_ACTIVE:
      if (answer_is_stale (self, REPLY_ACTIVE))
        break;
      /* none: the desktop or no window; keep the boost where it is */
      if (value != 0)
        get_property (self, REPLY_PID, value, self->atoms[ATOM_WM_PID], XCB_ATOM_CARDINAL);
      break;
    case REPLY_PID:
      if (value == 0)
        rc_focus_source_warn_once (source, "no-pid", "window 0x%x has no _NET_WM_PID",
                                   pending->window);
      else
        rc_focus_source_emit_focused (source, value);
      break;
    case REPLY_ATOM:
    case N_REPLY_KINDS:
    default:
      g_assert_not_reached ();
    }
}

static gboolean
readable_cb (int          fd,
             GIOCondition condition,
             gpointer     user_data)
{
  g_autoptr(RcFocusX11) self = g_object_ref (user_data);
  xcb_generic_event_t *event;
  Pending *pending;

  while ((event = xcb_poll_for_event (self->connection)) != NULL)
    {
      xcb_property_notify_event_t *notify = (xcb_property_notify_event_t *) event;

      if ((event->response_type & 0x7f) == XCB_PROPERTY_NOTIFY && notify->window == self->root &&
          self->atoms_missing == 0)
        {
          if (notify->atom == self->atoms[ATOM_ACTIVE_WINDOW])
            ask_root (self, REPLY_ACTIVE);
          else if (notify->atom == self->atoms[ATOM_I3_SOCKET_PATH])
            ask_root (self, REPLY_I3);
        }
      free (event);
    }
  while ((pending = g_queue_peek_head (&self->pending)) != NULL)
    {
      void *reply = NULL;
      xcb_generic_error_t *error = NULL;

      if (!xcb_poll_for_reply (self->connection, pending->sequence, &reply, &error))
        break;
      g_queue_pop_head (&self->pending);
      /* A window that is gone by the time we ask (BadWindow) has no pid. */
      if (error != NULL)
        g_debug ("Focus from X11: error %u on a request", error->error_code);
      handle_reply (self, pending, reply);
      free (reply);
      free (error);
      g_free (pending);
    }
  if (xcb_connection_has_error (self->connection))
    {
      self->watch_id = 0;
      rc_focus_source_emit_closed (RC_FOCUS_SOURCE (self), "the X server closed the connection");
      return G_SOURCE_REMOVE;
    }
  xcb_flush (self->connection);
  return G_SOURCE_CONTINUE;
}

/* The display's number and screen from DISPLAY: ":N", ":N.S" or "unix:N".
 * Only a local server: a TCP one has no peer to check. */
static gboolean
parse_display (const char *display,
               guint      *out_number,
               guint      *out_screen)
{
  const char *rest;
  char *end;
  guint64 number, screen = 0;

  if (g_str_has_prefix (display, "unix:"))
    rest = display + strlen ("unix:");
  else if (display[0] == ':')
    rest = display + 1;
  else
    return FALSE;
  if (!g_ascii_isdigit (*rest))
    return FALSE;
  number = g_ascii_strtoull (rest, &end, 10);
  if (*end == '.' && g_ascii_isdigit (end[1]))
    screen = g_ascii_strtoull (end + 1, &end, 10);
  if (*end != '\0' || number > 65535 || screen > 255)
    return FALSE;
  *out_number = number;
  *out_screen = screen;
  return TRUE;
}

/* A connected socket to X server @number whose server runs as our user or
 * root, or -1 with @error set. The abstract socket first, as libxcb does;
 * any user can bind it (before the real server does), so a stranger's is
 * passed over for the path in /tmp/.X11-unix. Non-blocking: a server whose
 * backlog is full is not waited for. */
static int
connect_local (guint    number,
               GError **error)
{
  g_autofree char *path = g_strdup_printf ("/tmp/.X11-unix/X%u", number);
  g_autofree char *refused = NULL;

  for (int abstract = 1; abstract >= 0; abstract--)
    {
      struct sockaddr_un address = { .sun_family = AF_UNIX };
      socklen_t length = offsetof (struct sockaddr_un, sun_path) + abstract + strlen (path);
      struct ucred peer;
      socklen_t peer_length = sizeof peer;
      int fd = socket (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);

      memcpy (address.sun_path + abstract, path, strlen (path));
      if (fd >= 0 && connect (fd, (struct sockaddr *) &address, length) == 0 &&
          getsockopt (fd, SOL_SOCKET, SO_PEERCRED, &peer, &peer_length) == 0)
        {
          if (peer.uid == getuid () || peer.uid == 0)
            return fd;
          g_free (refused);
          refused = g_strdup_printf ("the X server on %s%s is another user's (uid %u)",
                                     abstract ? "@" : "", path, (guint) peer.uid);
        }
      if (fd >= 0)
        close (fd);
    }
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "%s",
               refused != NULL ? refused : "cannot connect to the X server");
  return -1;
}

/* One connection's setup, run in a thread: libxcb reads the server's setup
 * block with poll() and no timeout. Abandoning it is shutting the socket
 * down through a duplicate of it, which wakes that poll. */
typedef struct {
  int           fd;    /* given to libxcb in the thread */
  int           wake_fd; /* the same socket, kept until the thread is done */
  guint         number;
  guint         timeout_id;
  gulong        cancelled_id;
  GCancellable *cancellable;
} Handshake;

/* In the main thread, when the thread is done: no more abandoning. */
static void
handshake_over (Handshake *handshake)
{
  g_clear_handle_id (&handshake->timeout_id, g_source_remove);
  if (handshake->cancelled_id != 0)
    g_cancellable_disconnect (handshake->cancellable, handshake->cancelled_id);
  handshake->cancelled_id = 0;
}

/* In whichever thread drops the task last. */
static void
handshake_free (Handshake *handshake)
{
  g_clear_object (&handshake->cancellable);
  if (handshake->fd >= 0)
    close (handshake->fd);
  if (handshake->wake_fd >= 0)
    close (handshake->wake_fd);
  g_free (handshake);
}

static void
abandon (Handshake *handshake)
{
  shutdown (handshake->wake_fd, SHUT_RDWR);
}

static gboolean
handshake_timeout_cb (gpointer user_data)
{
  Handshake *handshake = user_data;

  handshake->timeout_id = 0;
  abandon (handshake);
  return G_SOURCE_REMOVE;
}

static void
handshake_cancelled_cb (GCancellable *cancellable,
                        gpointer      user_data)
{
  abandon (user_data);
}

/* The cookie xauth keeps for this host and display (XAUTHORITY, else
 * ~/.Xauthority), as libxcb's own connect finds it; NULL for none. */
static Xauth *
find_cookie (guint number)
{
  char host[256] = "";
  g_autofree char *display = g_strdup_printf ("%u", number);
  char *types[] = { (char *) "MIT-MAGIC-COOKIE-1" };
  int type_lengths[] = { strlen (types[0]) };

  gethostname (host, sizeof host - 1);
  return XauGetBestAuthByAddr (FamilyLocal, strlen (host), host, strlen (display), display,
                               G_N_ELEMENTS (types), types, type_lengths);
}

static void
handshake_thread (GTask        *task,
                  gpointer      source_object,
                  gpointer      task_data,
                  GCancellable *cancellable)
{
  Handshake *handshake = task_data;
  Xauth *cookie = find_cookie (handshake->number);
  xcb_auth_info_t auth = { 0 };
  xcb_connection_t *connection;

  if (cookie != NULL)
    {
      auth.namelen = cookie->name_length;
      auth.name = cookie->name;
      auth.datalen = cookie->data_length;
      auth.data = cookie->data;
    }
  /* the descriptor is libxcb's now, closed with the connection */
  connection = xcb_connect_to_fd (g_steal_fd (&handshake->fd), cookie != NULL ? &auth : NULL);
  if (cookie != NULL)
    XauDisposeAuth (cookie);
  if (xcb_connection_has_error (connection))
    {
      xcb_disconnect (connection);
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_TIMED_OUT,
                               "the X server refused us, closed the connection or gave no "
                               "setup within %u s", X11_SETUP_TIMEOUT_S);
      return;
    }
  g_task_return_pointer (task, connection, (GDestroyNotify) xcb_disconnect);
}

static void
use_connection (RcFocusX11 *self,
                guint       screen)
{
  const xcb_setup_t *setup;
  xcb_screen_iterator_t screens;

  setup = xcb_get_setup (self->connection);
  screens = xcb_setup_roots_iterator (setup);
  for (guint i = 0; i < screen && screens.rem > 0; i++)
    xcb_screen_next (&screens);
  if (screens.rem == 0)
    {
      rc_focus_source_emit_closed (RC_FOCUS_SOURCE (self), "the X server has no such screen");
      return;
    }
  self->root = screens.data->root;
  for (guint i = 0; i < N_ATOMS; i++)
    {
      xcb_intern_atom_cookie_t cookie;

      /* made if missing: a window manager that starts later sets them */
      cookie = xcb_intern_atom (self->connection, FALSE, strlen (atom_names[i]), atom_names[i]);
      expect (self, cookie.sequence, REPLY_ATOM, i, 0);
    }
  self->atoms_missing = N_ATOMS;
  xcb_flush (self->connection);
  self->watch_id = g_unix_fd_add (xcb_get_file_descriptor (self->connection), G_IO_IN,
                                  readable_cb, self);
}

static void
handshake_done_cb (GObject      *object,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  RcFocusX11 *self = RC_FOCUS_X11 (object);
  g_autoptr(GError) error = NULL;

  handshake_over (g_task_get_task_data (G_TASK (result)));
  self->connection = g_task_propagate_pointer (G_TASK (result), &error);
  if (self->connection == NULL)
    rc_focus_source_emit_closed (RC_FOCUS_SOURCE (self), error->message);
  else if (g_cancellable_is_cancelled (rc_focus_source_get_cancellable (RC_FOCUS_SOURCE (self))))
    return;
  else
    use_connection (self, GPOINTER_TO_UINT (user_data));
}

static void
rc_focus_x11_start (RcFocusSource *source)
{
  RcFocusX11 *self = RC_FOCUS_X11 (source);
  g_autoptr(GError) error = NULL;
  g_autoptr(GTask) task = NULL;
  Handshake *handshake;
  guint number, screen;
  int fd;

  if (!parse_display (self->display, &number, &screen))
    {
      rc_focus_source_emit_closed (source, "DISPLAY names no local X server");
      return;
    }
  fd = connect_local (number, &error);
  if (fd < 0)
    {
      rc_focus_source_emit_closed (source, error->message);
      return;
    }
  handshake = g_new0 (Handshake, 1);
  handshake->fd = fd;
  handshake->wake_fd = fcntl (fd, F_DUPFD_CLOEXEC, 3);
  handshake->number = number;
  if (handshake->wake_fd < 0)
    {
      handshake_free (handshake);
      rc_focus_source_emit_closed (source, "cannot duplicate the X server's socket");
      return;
    }
  /* the main loop never waits for the server: a silent one is dropped after
   * the timeout, and RcFocusTracker tries again later */
  handshake->timeout_id = g_timeout_add_seconds (X11_SETUP_TIMEOUT_S, handshake_timeout_cb,
                                                 handshake);
  handshake->cancellable = g_object_ref (rc_focus_source_get_cancellable (source));
  handshake->cancelled_id = g_cancellable_connect (handshake->cancellable,
                                                   G_CALLBACK (handshake_cancelled_cb),
                                                   handshake, NULL);
  task = g_task_new (self, NULL, handshake_done_cb, GUINT_TO_POINTER (screen));
  g_task_set_source_tag (task, rc_focus_x11_start);
  g_task_set_task_data (task, handshake, (GDestroyNotify) handshake_free);
  g_task_run_in_thread (task, handshake_thread);
}

RcFocusSource *
rc_focus_x11_new (const char *display)
{
  RcFocusX11 *self = g_object_new (RC_TYPE_FOCUS_X11, "name", "x11", NULL);

  self->display = g_strdup (display);
  return RC_FOCUS_SOURCE (self);
}

static void
rc_focus_x11_dispose (GObject *object)
{
  RcFocusX11 *self = RC_FOCUS_X11 (object);

  g_clear_handle_id (&self->watch_id, g_source_remove);
  G_OBJECT_CLASS (rc_focus_x11_parent_class)->dispose (object);
}

static void
rc_focus_x11_finalize (GObject *object)
{
  RcFocusX11 *self = RC_FOCUS_X11 (object);

  g_queue_clear_full (&self->pending, g_free);
  g_clear_pointer (&self->connection, xcb_disconnect);
  g_free (self->display);
  G_OBJECT_CLASS (rc_focus_x11_parent_class)->finalize (object);
}

static void
rc_focus_x11_class_init (RcFocusX11Class *klass)
{
  G_OBJECT_CLASS (klass)->dispose = rc_focus_x11_dispose;
  G_OBJECT_CLASS (klass)->finalize = rc_focus_x11_finalize;
  RC_FOCUS_SOURCE_CLASS (klass)->start = rc_focus_x11_start;
}

static void
rc_focus_x11_init (RcFocusX11 *self)
{
}
