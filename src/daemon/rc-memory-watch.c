/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "rc-memory-watch.h"
#include "rc-cgroup.h"
#include "rc-watch-set.h"
#include "rc-api-keys.h"

#include <sys/inotify.h>

/* A task allocating past its memory.high moves "high" on every reclaim,
 * hundreds of times a second: changes are read at most this often, all
 * dirty instances at once, and only the last value counts. The first
 * change after a quiet spell is read at once. */
#define MIN_INTERVAL_MS 100

typedef struct {
  RcApp    *app;
  GVariant *events;       /* a{st} last read, or NULL */
  guint64   oomd_kills;   /* user.oomd_ooms last read */
} Watched;

struct _RcMemoryWatch {
  GObject     parent_instance;
  RcRegistry *registry;
  RcWatchSet *files;
  RcWatchSet *folders;      /* the cgroup folders, for systemd-oomd's mark */
  GHashTable *by_unit;      /* unit -> Watched */
};

G_DEFINE_TYPE (RcMemoryWatch, rc_memory_watch, G_TYPE_OBJECT);

enum { SIGNAL_EVENTS_CHANGED, SIGNAL_OOMD_KILL, N_SIGNALS };
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

/* Reads @watched's file and tells of a change. */
static void
read_events (RcMemoryWatch *self,
             Watched       *watched)
{
  g_autoptr(GVariant) now = rc_cgroup_read_memory_events (watched->app->control_group);

  if (now != NULL && (watched->events == NULL || !g_variant_equal (now, watched->events)))
    emit_change (self, watched, now);
}

/* systemd-oomd counts up user.oomd_ooms on the folder before it kills
 * there; any other change of the folder's attributes leaves it alone. */
static void
read_oomd_kills (RcMemoryWatch *self,
                 Watched       *watched)
{
  g_autoptr(RcApp) app = rc_app_ref (watched->app);
  guint64 kills = rc_cgroup_read_oomd_kills (app->control_group);

  if (kills <= watched->oomd_kills)
    return;
  watched->oomd_kills = kills;
  g_debug ("Memory events of %s: systemd-oomd kill %" G_GUINT64_FORMAT, app->unit, kills);
  g_signal_emit (self, signals[SIGNAL_OOMD_KILL], 0, app);
}

typedef void (*ReadFunc) (RcMemoryWatch *self,
                          Watched       *watched);

static void
read_each (RcMemoryWatch *self,
           GPtrArray     *units,
           ReadFunc       read)
{
  /* A handler may add or remove units: each is looked up in turn. */
  for (guint i = 0; i < units->len; i++)
    {
      Watched *watched = g_hash_table_lookup (self->by_unit, g_ptr_array_index (units, i));

      if (watched != NULL)
        read (self, watched);
    }
}

static void
files_flush_cb (GPtrArray *units,
                gpointer   user_data)
{
  read_each (user_data, units, read_events);
}

static void
folders_flush_cb (GPtrArray *units,
                  gpointer   user_data)
{
  read_each (user_data, units, read_oomd_kills);
}

static void
app_added_cb (RcRegistry    *registry,
              RcApp         *app,
              RcMemoryWatch *self)
{
  g_autofree char *path = NULL;
  g_autofree char *folder = NULL;
  Watched *watched;

  if (!rc_watch_set_available (self->files) || *app->control_group == '\0' ||
      g_hash_table_contains (self->by_unit, app->unit))
    return;
  watched = g_new0 (Watched, 1);
  watched->app = rc_app_ref (app);
  path = rc_cgroup_file_path (app->control_group, "memory.events");
  rc_watch_set_add (self->files, app->unit, path);
  folder = rc_cgroup_file_path (app->control_group, NULL);
  rc_watch_set_add (self->folders, app->unit, folder);
  watched->oomd_kills = rc_cgroup_read_oomd_kills (app->control_group);
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
  if (rc_watch_set_remove (self->files, app->unit))
    read_events (self, watched);
  if (rc_watch_set_remove (self->folders, app->unit))
    read_oomd_kills (self, watched);
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

  g_clear_pointer (&self->files, rc_watch_set_free);
  g_clear_pointer (&self->folders, rc_watch_set_free);
  g_clear_pointer (&self->by_unit, g_hash_table_unref);
  g_clear_object (&self->registry);
  G_OBJECT_CLASS (rc_memory_watch_parent_class)->finalize (object);
}

static void
rc_memory_watch_class_init (RcMemoryWatchClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = rc_memory_watch_finalize;
  signals[SIGNAL_EVENTS_CHANGED] =
    g_signal_new ("events-changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                  NULL, G_TYPE_NONE, 3, G_TYPE_POINTER, G_TYPE_VARIANT, G_TYPE_VARIANT);
  signals[SIGNAL_OOMD_KILL] =
    g_signal_new ("oomd-kill", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                  NULL, G_TYPE_NONE, 1, G_TYPE_POINTER);
}

static void
rc_memory_watch_init (RcMemoryWatch *self)
{
  self->by_unit = g_hash_table_new_full (g_str_hash, g_str_equal, NULL,
                                         (GDestroyNotify) watched_free);
  self->files = rc_watch_set_new ("Memory events", IN_MODIFY, MIN_INTERVAL_MS, files_flush_cb,
                                  self);
  self->folders = rc_watch_set_new ("systemd-oomd kills", IN_ATTRIB, MIN_INTERVAL_MS,
                                    folders_flush_cb, self);
}
