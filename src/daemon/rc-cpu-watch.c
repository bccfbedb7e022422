/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "rc-cpu-watch.h"
#include "rc-cgroup.h"

#include <glib-unix.h>
#include <unistd.h>

typedef struct {
  RcCpuWatch *watch;
  RcApp      *app;
  int         fd;
  guint       source_id;
  guint64     throttled_usec;   /* at the last look */
  gint64      looked_us;        /* monotonic */
} Watched;

struct _RcCpuWatch {
  GObject     parent_instance;
  GHashTable *by_unit;      /* unit -> Watched */
  gboolean    told_full;
  gboolean    told_refused;
};

G_DEFINE_TYPE (RcCpuWatch, rc_cpu_watch, G_TYPE_OBJECT);

enum { SIGNAL_THROTTLED, N_SIGNALS };
static guint signals[N_SIGNALS];

gboolean
rc_cpu_watch_throttled (guint64 before_usec,
                        guint64 now_usec,
                        gint64  elapsed_usec)
{
  if (before_usec == G_MAXUINT64 || now_usec == G_MAXUINT64 || now_usec <= before_usec ||
      elapsed_usec <= 0)
    return FALSE;
  return (now_usec - before_usec) * 4 >= (guint64) elapsed_usec;
}

static void
watched_free (Watched *watched)
{
  g_clear_handle_id (&watched->source_id, g_source_remove);
  if (watched->fd >= 0)
    close (watched->fd);
  rc_app_unref (watched->app);
  g_free (watched);
}

static gboolean
stall_cb (int          fd,
          GIOCondition condition,
          gpointer     user_data)
{
  Watched *watched = user_data;
  RcCpuWatch *self = watched->watch;
  g_autoptr(RcApp) app = rc_app_ref (watched->app);
  gint64 now_us = g_get_monotonic_time ();
  guint64 throttled_usec = G_MAXUINT64;
  guint32 quota = 0;
  gboolean throttled;

  if (condition & (G_IO_ERR | G_IO_HUP | G_IO_NVAL))
    {
      /* the cgroup is gone: its removal follows */
      g_debug ("CPU watch: %s: trigger closed", app->unit);
      watched->source_id = 0;
      return G_SOURCE_REMOVE;
    }
  rc_cgroup_read_cpu_throttle (app->control_group, &quota, &throttled_usec);
  throttled = rc_cpu_watch_throttled (watched->throttled_usec, throttled_usec,
                                      now_us - watched->looked_us);
  g_debug ("CPU watch: %s short of CPU, throttled %s", app->unit, throttled ? "yes" : "no");
  watched->throttled_usec = throttled_usec;
  watched->looked_us = now_us;
  if (throttled)
    g_signal_emit (self, signals[SIGNAL_THROTTLED], 0, app);
  return G_SOURCE_CONTINUE;
}

/* Watches @app when its cgroup has a quota, stops when it has none. */
static void
watch_if_quota_set (RcCpuWatch *self,
                    RcApp      *app)
{
  g_autoptr(GError) error = NULL;
  Watched *watched = g_hash_table_lookup (self->by_unit, app->unit);
  guint64 throttled_usec = G_MAXUINT64;
  guint32 quota = 0;
  int fd;

  if (*app->control_group == '\0' ||
      !rc_cgroup_read_cpu_throttle (app->control_group, &quota, &throttled_usec) || quota == 0)
    {
      g_hash_table_remove (self->by_unit, app->unit);
      return;
    }
  if (watched != NULL)
    return;
  if (g_hash_table_size (self->by_unit) >= RC_CPU_WATCH_MAX)
    {
      if (!self->told_full)
        g_message ("CPU watch: %u apps with a CPU quota are watched already; %s is not",
                   RC_CPU_WATCH_MAX, app->unit);
      self->told_full = TRUE;
      return;
    }
  fd = rc_cgroup_open_pressure_trigger (app->control_group, RC_PRESSURE_CPU,
                                        "some " G_STRINGIFY (RC_CPU_STALL_MS) "000 "
                                        G_STRINGIFY (RC_CPU_WINDOW_MS) "000", &error);
  if (fd < 0)
    {
      if (!self->told_refused && !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND))
        g_message ("CPU watch: cannot tell when a CPU quota holds an app back: %s",
                   error->message);
      self->told_refused = TRUE;
      return;
    }
  watched = g_new0 (Watched, 1);
  watched->watch = self;
  watched->app = rc_app_ref (app);
  watched->fd = fd;
  watched->throttled_usec = throttled_usec;
  watched->looked_us = g_get_monotonic_time ();
  watched->source_id = g_unix_fd_add (fd, G_IO_PRI | G_IO_ERR, stall_cb, watched);
  g_hash_table_insert (self->by_unit, app->unit, watched);
  g_debug ("CPU watch: %s has a quota of %u%%", app->unit, quota);
}

static void
app_added_cb (RcRegistry *registry,
              RcApp      *app,
              RcCpuWatch *self)
{
  watch_if_quota_set (self, app);
}

static void
app_removed_cb (RcRegistry *registry,
                RcApp      *app,
                RcCpuWatch *self)
{
  g_hash_table_remove (self->by_unit, app->unit);
}

RcCpuWatch *
rc_cpu_watch_new (RcRegistry *registry)
{
  RcCpuWatch *self = g_object_new (RC_TYPE_CPU_WATCH, NULL);

  g_signal_connect_object (registry, "app-added", G_CALLBACK (app_added_cb), self, 0);
  g_signal_connect_object (registry, "limits-changed", G_CALLBACK (app_added_cb), self, 0);
  g_signal_connect_object (registry, "app-removed", G_CALLBACK (app_removed_cb), self, 0);
  return self;
}

static void
rc_cpu_watch_finalize (GObject *object)
{
  RcCpuWatch *self = RC_CPU_WATCH (object);

  g_clear_pointer (&self->by_unit, g_hash_table_unref);
  G_OBJECT_CLASS (rc_cpu_watch_parent_class)->finalize (object);
}

static void
rc_cpu_watch_class_init (RcCpuWatchClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = rc_cpu_watch_finalize;
  signals[SIGNAL_THROTTLED] =
    g_signal_new ("throttled", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                  NULL, G_TYPE_NONE, 1, G_TYPE_POINTER);
}

static void
rc_cpu_watch_init (RcCpuWatch *self)
{
  self->by_unit = g_hash_table_new_full (g_str_hash, g_str_equal, NULL,
                                         (GDestroyNotify) watched_free);
}
