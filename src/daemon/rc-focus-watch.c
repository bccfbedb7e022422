/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "rc-focus-watch.h"
#include "rc-cgroup.h"
#include "rc-names.h"

#include <errno.h>
#include <glib-unix.h>
#include <sys/inotify.h>
#include <sys/xattr.h>
#include <unistd.h>

/* Any process of the user can set the mark as fast as it likes, and each
 * change is a systemd call and a state-file write: marks are read at most
 * once per MIN_INTERVAL_MS, all at once, and only the last value counts. The
 * first change after a quiet spell is read at once. */
#define MIN_INTERVAL_MS 200

typedef struct {
  char    *unit;
  char    *path;
  int      wd;
  RcFocus  focus;
  gboolean dirty;         /* changed since it was last read */
} Watched;

struct _RcFocusWatch {
  GObject     parent_instance;
  int         fd;
  guint       source_id;
  guint       flush_id;
  gint64      last_flush; /* monotonic µs */
  GHashTable *by_unit;    /* unit -> Watched */
  GHashTable *by_wd;      /* wd -> Watched (borrowed) */
};

G_DEFINE_TYPE (RcFocusWatch, rc_focus_watch, G_TYPE_OBJECT);

enum { SIGNAL_FOCUS_CHANGED, N_SIGNALS };
static guint signals[N_SIGNALS];

static void
watched_free (Watched *watched)
{
  g_free (watched->unit);
  g_free (watched->path);
  g_free (watched);
}

RcFocus
rc_focus_parse (const char *value,
                gsize       length)
{
  g_autofree char *text = g_strndup (value, length);
  guint64 since;

  g_strstrip (text);
  if (g_str_equal (text, "-1"))
    return RC_FOCUS_FOCUSED;
  if (g_ascii_string_to_unsigned (text, 10, 0, G_MAXUINT64, &since, NULL))
    return RC_FOCUS_INACTIVE;
  return RC_FOCUS_UNKNOWN;
}

static RcFocus
read_focus (const char *path)
{
  char value[64];
  ssize_t length = getxattr (path, RC_FOCUS_XATTR, value, sizeof value);

  if (length < 0)
    return RC_FOCUS_UNKNOWN;
  return rc_focus_parse (value, (gsize) length);
}

static gboolean
flush_cb (gpointer user_data)
{
  RcFocusWatch *self = user_data;
  g_autoptr(GPtrArray) changed = g_ptr_array_new_with_free_func (g_free);
  GHashTableIter iter;
  Watched *watched;

  self->flush_id = 0;
  self->last_flush = g_get_monotonic_time ();
  /* Read first, emit after: a handler may add or remove units. */
  g_hash_table_iter_init (&iter, self->by_unit);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &watched))
    {
      RcFocus focus;

      if (!watched->dirty)
        continue;
      watched->dirty = FALSE;
      focus = read_focus (watched->path);
      if (focus == watched->focus || focus == RC_FOCUS_UNKNOWN)
        continue;
      watched->focus = focus;
      g_ptr_array_add (changed, g_strdup (watched->unit));
    }
  for (guint i = 0; i < changed->len; i++)
    {
      const char *unit = g_ptr_array_index (changed, i);
      Watched *now = g_hash_table_lookup (self->by_unit, unit);

      if (now == NULL)
        continue;
      g_debug ("Focus: %s %s", unit, now->focus == RC_FOCUS_FOCUSED ? "focused" : "inactive");
      g_signal_emit (self, signals[SIGNAL_FOCUS_CHANGED], 0, unit,
                     now->focus == RC_FOCUS_FOCUSED);
    }
  return G_SOURCE_REMOVE;
}

static void
schedule_flush (RcFocusWatch *self)
{
  gint64 since_ms = (g_get_monotonic_time () - self->last_flush) / 1000;

  if (self->flush_id != 0)
    return;
  self->flush_id = g_timeout_add (since_ms >= MIN_INTERVAL_MS ? 0 : MIN_INTERVAL_MS - (guint) since_ms,
                                  flush_cb, self);
}

static gboolean
inotify_cb (int          fd,
            GIOCondition condition,
            gpointer     user_data)
{
  RcFocusWatch *self = user_data;
  char buffer[4096] __attribute__ ((aligned (__alignof__ (struct inotify_event))));
  ssize_t length;

  while ((length = read (fd, buffer, sizeof buffer)) > 0)
    {
      for (char *p = buffer; p < buffer + length;)
        {
          const struct inotify_event *event = (const struct inotify_event *) p;
          Watched *watched = g_hash_table_lookup (self->by_wd, GINT_TO_POINTER (event->wd));

          p += sizeof (struct inotify_event) + event->len;
          if (watched == NULL)
            continue;
          if (event->mask & IN_IGNORED)
            {
              /* The cgroup is gone; the registry removes the unit soon. */
              watched->wd = -1;
              g_hash_table_remove (self->by_wd, GINT_TO_POINTER (event->wd));
            }
          else if (event->mask & IN_ATTRIB)
            {
              watched->dirty = TRUE;
              schedule_flush (self);
            }
        }
    }
  return G_SOURCE_CONTINUE;
}

RcFocus
rc_focus_watch_add (RcFocusWatch *self,
                    const char   *unit,
                    const char   *control_group)
{
  Watched *watched;

  if (self->fd < 0 || control_group == NULL || *control_group == '\0' ||
      g_hash_table_contains (self->by_unit, unit))
    return RC_FOCUS_UNKNOWN;
  watched = g_new0 (Watched, 1);
  watched->unit = g_strdup (unit);
  watched->path = g_build_filename (rc_cgroup_root (), control_group, NULL);
  watched->wd = inotify_add_watch (self->fd, watched->path, IN_ATTRIB | IN_ONLYDIR);
  if (watched->wd < 0)
    g_debug ("Focus: cannot watch %s: %s", watched->path, g_strerror (errno));
  else
    g_hash_table_insert (self->by_wd, GINT_TO_POINTER (watched->wd), watched);
  watched->focus = read_focus (watched->path);
  g_hash_table_insert (self->by_unit, watched->unit, watched);
  return watched->focus;
}

void
rc_focus_watch_remove (RcFocusWatch *self,
                       const char   *unit)
{
  Watched *watched = g_hash_table_lookup (self->by_unit, unit);

  if (watched == NULL)
    return;
  if (watched->wd >= 0)
    {
      inotify_rm_watch (self->fd, watched->wd);
      g_hash_table_remove (self->by_wd, GINT_TO_POINTER (watched->wd));
    }
  g_hash_table_remove (self->by_unit, unit);   /* frees @watched */
}

RcFocusWatch *
rc_focus_watch_new (void)
{
  return g_object_new (RC_TYPE_FOCUS_WATCH, NULL);
}

static void
rc_focus_watch_finalize (GObject *object)
{
  RcFocusWatch *self = RC_FOCUS_WATCH (object);

  g_clear_handle_id (&self->source_id, g_source_remove);
  g_clear_handle_id (&self->flush_id, g_source_remove);
  g_clear_pointer (&self->by_wd, g_hash_table_unref);
  g_clear_pointer (&self->by_unit, g_hash_table_unref);
  if (self->fd >= 0)
    close (self->fd);
  G_OBJECT_CLASS (rc_focus_watch_parent_class)->finalize (object);
}

static void
rc_focus_watch_class_init (RcFocusWatchClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = rc_focus_watch_finalize;
  signals[SIGNAL_FOCUS_CHANGED] = g_signal_new ("focus-changed", G_TYPE_FROM_CLASS (klass),
                                                G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                                G_TYPE_NONE, 2, G_TYPE_STRING, G_TYPE_BOOLEAN);
}

static void
rc_focus_watch_init (RcFocusWatch *self)
{
  self->by_unit = g_hash_table_new_full (g_str_hash, g_str_equal, NULL,
                                         (GDestroyNotify) watched_free);
  self->by_wd = g_hash_table_new (NULL, NULL);
  self->fd = inotify_init1 (IN_NONBLOCK | IN_CLOEXEC);
  if (self->fd < 0)
    g_warning ("Focus: inotify unavailable (%s): Mutter's focus marks are not followed",
               g_strerror (errno));
  else
    self->source_id = g_unix_fd_add (self->fd, G_IO_IN, inotify_cb, self);
}
