/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "rc-focus-x11.h"

#include <glib-unix.h>
#include <stdlib.h>
#include <string.h>
#include <xcb/xcb.h>
/* xcb_poll_for_reply: a reply read without waiting */
#include <xcb/xcbext.h>

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
  guint             watch_id;
};

G_DEFINE_TYPE (RcFocusX11, rc_focus_x11, RC_TYPE_FOCUS_SOURCE);

static void
expect (RcFocusX11  *self,
        unsigned int sequence,
        ReplyKind    kind,
        guint        index,
        xcb_window_t window)
{
  Pending *pending = g_new0 (Pending, 1);

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
ask_active_window (RcFocusX11 *self)
{
  get_property (self, REPLY_ACTIVE, self->root, self->atoms[ATOM_ACTIVE_WINDOW], XCB_ATOM_WINDOW);
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
  get_property (self, REPLY_I3, self->root, self->atoms[ATOM_I3_SOCKET_PATH], XCB_GET_PROPERTY_TYPE_ANY);
  ask_active_window (self);
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
      /* i3 sets it when it starts, and removes it when it exits */
      g_object_set (self, "name",
                    property != NULL && xcb_get_property_value_length (property) > 0 ? "i3" : "x11",
                    NULL);
      break;
    case REPLY_ACTIVE:
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
            ask_active_window (self);
          else if (notify->atom == self->atoms[ATOM_I3_SOCKET_PATH])
            get_property (self, REPLY_I3, self->root, self->atoms[ATOM_I3_SOCKET_PATH],
                          XCB_GET_PROPERTY_TYPE_ANY);
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

static void
rc_focus_x11_start (RcFocusSource *source)
{
  RcFocusX11 *self = RC_FOCUS_X11 (source);
  const xcb_setup_t *setup;
  xcb_screen_iterator_t screens;
  int screen = 0;

  /* Connecting is a local socket's connect and the server's setup block. */
  self->connection = xcb_connect (self->display, &screen);
  if (xcb_connection_has_error (self->connection))
    {
      rc_focus_source_emit_closed (source, "cannot connect to the X server");
      return;
    }
  setup = xcb_get_setup (self->connection);
  screens = xcb_setup_roots_iterator (setup);
  for (int i = 0; i < screen && screens.rem > 0; i++)
    xcb_screen_next (&screens);
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
