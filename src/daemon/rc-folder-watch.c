/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "rc-folder-watch.h"

struct _RcFolderWatch
{
  GObject       parent_instance;
  char         *folder;
  char         *watched;   /* the folder, one of its parents, or NULL */
  GFileMonitor *monitor;
};

G_DEFINE_TYPE (RcFolderWatch, rc_folder_watch, G_TYPE_OBJECT);

enum { SIGNAL_CHANGED, N_SIGNALS };
static guint signals[N_SIGNALS];

static void arm (RcFolderWatch *self);

/* @path is the folder or a parent of it. */
static gboolean
is_on_the_way (RcFolderWatch *self,
               const char    *path)
{
  size_t len = strlen (path);

  return strncmp (self->folder, path, len) == 0 &&
         (self->folder[len] == '\0' || self->folder[len] == '/');
}

static void
folder_changed_cb (GFileMonitor     *monitor,
                   GFile            *file,
                   GFile            *other_file,
                   GFileMonitorEvent event,
                   RcFolderWatch    *self)
{
  g_autofree char *path = g_file_get_path (file);
  g_autofree char *other = other_file != NULL ? g_file_get_path (other_file) : NULL;
  gboolean watching_folder = g_strcmp0 (self->watched, self->folder) == 0;

  if (watching_folder)
    {
      /* Removed, or moved away: the monitor stays with the old folder,
       * so look again for the path (it may already be there anew). */
      if ((event == G_FILE_MONITOR_EVENT_DELETED || event == G_FILE_MONITOR_EVENT_UNMOUNTED) &&
          g_strcmp0 (path, self->folder) == 0)
        arm (self);
      else if (!g_file_test (self->folder, G_FILE_TEST_IS_DIR))
        arm (self);
      g_signal_emit (self, signals[SIGNAL_CHANGED], 0);
      return;
    }

  /* A parent: only the next part of the folder's path appearing counts. */
  if (event == G_FILE_MONITOR_EVENT_CREATED || event == G_FILE_MONITOR_EVENT_MOVED_IN ||
      event == G_FILE_MONITOR_EVENT_RENAMED)
    {
      const char *appeared = event == G_FILE_MONITOR_EVENT_RENAMED ? other : path;

      if (appeared == NULL || !is_on_the_way (self, appeared))
        return;
      arm (self);
      if (g_strcmp0 (self->watched, self->folder) == 0)
        {
          g_debug ("Rules: %s appeared; watched now", self->folder);
          g_signal_emit (self, signals[SIGNAL_CHANGED], 0);
        }
    }
}

static void
disarm (RcFolderWatch *self)
{
  if (self->monitor != NULL)
    {
      g_signal_handlers_disconnect_by_data (self->monitor, self);
      g_file_monitor_cancel (self->monitor);
      g_clear_object (&self->monitor);
    }
  g_clear_pointer (&self->watched, g_free);
}

/* Watches the folder, else the nearest parent that is there, up to
 * RC_FOLDER_WATCH_LEVELS up: never "/" or a home folder's busy parents. */
static void
arm (RcFolderWatch *self)
{
  g_autofree char *dir = g_strdup (self->folder);

  disarm (self);
  for (guint level = 0; level <= RC_FOLDER_WATCH_LEVELS; level++)
    {
      g_autofree char *parent = NULL;

      if (g_file_test (dir, G_FILE_TEST_IS_DIR))
        {
          g_autoptr(GFile) file = g_file_new_for_path (dir);
          g_autoptr(GError) error = NULL;

          self->monitor = g_file_monitor_directory (file, G_FILE_MONITOR_WATCH_MOVES, NULL, &error);
          if (self->monitor == NULL)
            {
              g_warning ("Rules: cannot watch %s: %s; edits in %s are seen after a restart", dir,
                         error->message, self->folder);
              return;
            }
          self->watched = g_steal_pointer (&dir);
          g_signal_connect (self->monitor, "changed", G_CALLBACK (folder_changed_cb), self);
          if (level > 0)
            g_debug ("Rules: %s does not exist; watching %s for it", self->folder, self->watched);
          return;
        }
      parent = g_path_get_dirname (dir);
      if (strcmp (parent, dir) == 0)
        break;
      g_free (dir);
      dir = g_steal_pointer (&parent);
    }
  g_debug ("Rules: neither %s nor its nearest parents exist; not watched", self->folder);
}

const char *
rc_folder_watch_get_watched (RcFolderWatch *self)
{
  g_return_val_if_fail (RC_IS_FOLDER_WATCH (self), NULL);
  return self->watched;
}

RcFolderWatch *
rc_folder_watch_new (const char *folder)
{
  RcFolderWatch *self = g_object_new (RC_TYPE_FOLDER_WATCH, NULL);

  self->folder = g_strdup (folder);
  arm (self);
  return self;
}

static void
rc_folder_watch_finalize (GObject *object)
{
  RcFolderWatch *self = RC_FOLDER_WATCH (object);

  disarm (self);
  g_free (self->folder);
  G_OBJECT_CLASS (rc_folder_watch_parent_class)->finalize (object);
}

static void
rc_folder_watch_class_init (RcFolderWatchClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = rc_folder_watch_finalize;
  signals[SIGNAL_CHANGED] = g_signal_new ("changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                          0, NULL, NULL, NULL, G_TYPE_NONE, 0);
}

static void
rc_folder_watch_init (RcFolderWatch *self)
{
}
