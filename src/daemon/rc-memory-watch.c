/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "rc-memory-watch.h"
#include "rc-cgroup.h"
#include "rc-keys.h"

#include <errno.h>
#include <glib-unix.h>
#include <sys/inotify.h>
#include <unistd.h>

/* A task allocating past its memory.high moves "high" on every reclaim,
 * hundreds of times a second: changes are read at most this often, all
 * dirty instances at once, and only the last value counts. The first
 * change after a quiet spell is read at once. */
#define MIN_INTERVAL_MS 100

typedef struct {
  RcApp    *app;
  int       wd;
  GVariant *events;   /* a{st} last read, or NULL */
  gboolean  dirty;
} Watched;

struct _RcMemoryWatch {
  GObject     parent_instance;
  RcRegistry *registry;
  int         fd;
  guint       source_id;
  guint       flush_id;
  gint64      last_flush;   /* monotonic µs */
  GHashTable *by_unit;      /* unit -> Watched */
  GHashTable *by_wd;        /* wd -> Watched (borrowed) */
};

G_DEFINE_TYPE (RcMemoryWatch, rc_memory_watch, G_TYPE_OBJECT);

enum { SIGNAL_EVENTS_CHANGED, N_SIGNALS };
static guint signals[N_SIGNALS];

static void
watched_free (Watched *watched)
{
  rc_app_unref (watched->app);
  g_clear_pointer (&watched->events, g_variant_unref);
  g_free (watched);
}

static void
emit_change (RcMemoryWatch *self,
             Watched       *watched,
             GVariant      *now)
{
  g_auto(GVariantDict) dict = G_VARIANT_DICT_INIT (NULL);
  g_autoptr(GVariant) before = g_steal_pointer (&watched->events);
  g_autoptr(RcApp) app = rc_app_ref (watched->app);

  watched->events = g_variant_ref (now);
  g_variant_dict_insert_value (&dict, RC_KEY_MEMORY_EVENTS, now);
  if (g_log_writer_default_would_drop (G_LOG_LEVEL_DEBUG, G_LOG_DOMAIN) == FALSE)
    {
      g_autofree char *text = g_variant_print (now, FALSE);
      g_debug ("Memory events of %s: %s", app->unit, text);
    }
  rc_registry_app_changed (self->registry, app, g_variant_dict_end (&dict));
  g_signal_emit (self, signals[SIGNAL_EVENTS_CHANGED], 0, app, before, now);
}

static gboolean
flush_cb (gpointer user_data)
{
  RcMemoryWatch *self = user_data;
  g_autoptr(GPtrArray) dirty = g_ptr_array_new_with_free_func (g_free);

  self->flush_id = 0;
  self->last_flush = g_get_monotonic_time ();
  {
    GHashTableIter iter;
    Watched *watched;

    g_hash_table_iter_init (&iter, self->by_unit);
    while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &watched))
      if (watched->dirty)
        {
          watched->dirty = FALSE;
          g_ptr_array_add (dirty, g_strdup (watched->app->unit));
        }
  }
  /* A handler may add or remove units: each is looked up again. */
  for (guint i = 0; i < dirty->len; i++)
    {
      Watched *watched = g_hash_table_lookup (self->by_unit, g_ptr_array_index (dirty, i));
      g_autoptr(GVariant) now = NULL;

      if (watched == NULL)
        continue;
      now = rc_cgroup_read_memory_events (watched->app->control_group);
      if (now == NULL || (watched->events != NULL && g_variant_equal (now, watched->events)))
        continue;
      emit_change (self, watched, now);
    }
  return G_SOURCE_REMOVE;
}

static void
schedule_flush (RcMemoryWatch *self)
{
  gint64 since_ms = (g_get_monotonic_time () - self->last_flush) / 1000;

  if (self->flush_id != 0)
    return;
  self->flush_id = g_timeout_add (since_ms >= MIN_INTERVAL_MS ? 0
                                  : MIN_INTERVAL_MS - (guint) since_ms,
                                  flush_cb, self);
}

static gboolean
inotify_cb (int          fd,
            GIOCondition condition,
            gpointer     user_data)
{
  RcMemoryWatch *self = user_data;
  char buffer[4096] __attribute__ ((aligned (__alignof__ (struct inotify_event))));
  ssize_t length;

  while ((length = read (fd, buffer, sizeof buffer)) > 0)
    for (char *p = buffer; p < buffer + length;)
      {
        const struct inotify_event *event = (const struct inotify_event *) p;
        Watched *watched = g_hash_table_lookup (self->by_wd, GINT_TO_POINTER (event->wd));

        p += sizeof (struct inotify_event) + event->len;
        if (watched == NULL)
          continue;
        if (event->mask & IN_IGNORED)
          {
            /* The cgroup is gone; the registry removes the app soon. */
            watched->wd = -1;
            g_hash_table_remove (self->by_wd, GINT_TO_POINTER (event->wd));
          }
        else if (event->mask & IN_MODIFY)
          {
            watched->dirty = TRUE;
            schedule_flush (self);
          }
      }
  return G_SOURCE_CONTINUE;
}

static void
app_added_cb (RcRegistry    *registry,
              RcApp         *app,
              RcMemoryWatch *self)
{
  g_autofree char *path = NULL;
  Watched *watched;

  if (self->fd < 0 || *app->control_group == '\0' ||
      g_hash_table_contains (self->by_unit, app->unit))
    return;
  watched = g_new0 (Watched, 1);
  watched->app = rc_app_ref (app);
  path = rc_cgroup_file_path (app->control_group, "memory.events");
  watched->wd = inotify_add_watch (self->fd, path, IN_MODIFY);
  if (watched->wd < 0)
    g_debug ("Memory events: cannot watch %s: %s", path, g_strerror (errno));
  else
    g_hash_table_insert (self->by_wd, GINT_TO_POINTER (watched->wd), watched);
  /* what a change is measured against */
  watched->events = rc_cgroup_read_memory_events (app->control_group);
  g_hash_table_insert (self->by_unit, app->unit, watched);
}

static void
app_removed_cb (RcRegistry    *registry,
                RcApp         *app,
                RcMemoryWatch *self)
{
  Watched *watched = g_hash_table_lookup (self->by_unit, app->unit);

  if (watched == NULL)
    return;
  /* A change not yet read (an OOM kill that ends the app, say) is still
   * news, if the folder is still there to read. */
  if (watched->dirty)
    {
      g_autoptr(GVariant) now = rc_cgroup_read_memory_events (app->control_group);

      watched->dirty = FALSE;
      if (now != NULL && (watched->events == NULL || !g_variant_equal (now, watched->events)))
        emit_change (self, watched, now);
    }
  if (watched->wd >= 0)
    {
      inotify_rm_watch (self->fd, watched->wd);
      g_hash_table_remove (self->by_wd, GINT_TO_POINTER (watched->wd));
    }
  g_hash_table_remove (self->by_unit, app->unit);   /* frees @watched */
}

RcMemoryWatch *
rc_memory_watch_new (RcRegistry *registry)
{
  RcMemoryWatch *self = g_object_new (RC_TYPE_MEMORY_WATCH, NULL);

  self->registry = g_object_ref (registry);
  g_signal_connect_object (registry, "app-added", G_CALLBACK (app_added_cb), self, 0);
  g_signal_connect_object (registry, "app-removed", G_CALLBACK (app_removed_cb), self, 0);
  return self;
}

static void
rc_memory_watch_finalize (GObject *object)
{
  RcMemoryWatch *self = RC_MEMORY_WATCH (object);

  g_clear_handle_id (&self->source_id, g_source_remove);
  g_clear_handle_id (&self->flush_id, g_source_remove);
  g_clear_pointer (&self->by_wd, g_hash_table_unref);
  g_clear_pointer (&self->by_unit, g_hash_table_unref);
  g_clear_object (&self->registry);
  if (self->fd >= 0)
    close (self->fd);
  G_OBJECT_CLASS (rc_memory_watch_parent_class)->finalize (object);
}

static void
rc_memory_watch_class_init (RcMemoryWatchClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = rc_memory_watch_finalize;
  signals[SIGNAL_EVENTS_CHANGED] =
    g_signal_new ("events-changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                  NULL, G_TYPE_NONE, 3, G_TYPE_POINTER, G_TYPE_VARIANT, G_TYPE_VARIANT);
}

static void
rc_memory_watch_init (RcMemoryWatch *self)
{
  self->by_unit = g_hash_table_new_full (g_str_hash, g_str_equal, NULL,
                                         (GDestroyNotify) watched_free);
  self->by_wd = g_hash_table_new (NULL, NULL);
  self->fd = inotify_init1 (IN_NONBLOCK | IN_CLOEXEC);
  if (self->fd < 0)
    g_warning ("Memory events: inotify unavailable (%s): their changes are not signalled",
               g_strerror (errno));
  else
    self->source_id = g_unix_fd_add (self->fd, G_IO_IN, inotify_cb, self);
}
