/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "rc-settings-watch.h"

#include <errno.h>
#include <glib-unix.h>
#include <string.h>
#include <sys/inotify.h>
#include <unistd.h>

typedef enum {
  WATCH_ANCESTOR,   /* the nearest existing folder above a folder not made yet */
  WATCH_FOLDER,     /* a folder of drop-in folders */
  WATCH_UNIT,       /* one unit's <unit>.d */
} WatchKind;

typedef struct {
  WatchKind kind;
  guint     folder;   /* WATCH_FOLDER: its index */
  char     *unit;     /* WATCH_UNIT: the unit's name */
} Watch;

#define FOLDER_EVENTS (IN_CREATE | IN_DELETE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE_SELF | \
                       IN_MOVE_SELF | IN_ONLYDIR)
/* systemd writes a drop-in to a temporary file and renames it. */
#define UNIT_EVENTS   (IN_CREATE | IN_DELETE | IN_MOVED_TO | IN_MOVED_FROM | IN_CLOSE_WRITE | \
                       IN_ONLYDIR)
#define ANCESTOR_EVENTS (IN_CREATE | IN_MOVED_TO | IN_ONLYDIR)

struct _RcSettingsWatch {
  GObject     parent_instance;
  int         fd;
  guint       source_id;
  GStrv       folders;
  gboolean   *watched;      /* per folder: a WATCH_FOLDER is on it */
  GHashTable *watches;      /* watch descriptor -> Watch */
};

enum {
  SIGNAL_CHANGED,
  N_SIGNALS
};
static guint signals[N_SIGNALS];

G_DEFINE_TYPE (RcSettingsWatch, rc_settings_watch, G_TYPE_OBJECT);

static void
watch_free (Watch *watch)
{
  g_free (watch->unit);
  g_free (watch);
}

static int
add_watch (RcSettingsWatch *self,
           const char      *path,
           guint32          events,
           WatchKind        kind,
           guint            folder,
           const char      *unit)
{
  int wd = inotify_add_watch (self->fd, path, events);
  Watch *watch;

  if (wd < 0)
    {
      if (errno != ENOENT && errno != ENOTDIR)
        g_debug ("Cannot watch %s: %s", path, g_strerror (errno));
      return -1;
    }
  watch = g_new0 (Watch, 1);
  watch->kind = kind;
  watch->folder = folder;
  watch->unit = g_strdup (unit);
  g_hash_table_replace (self->watches, GINT_TO_POINTER (wd), watch);
  return wd;
}

static gboolean
is_unit_folder (const char *name)
{
  return g_str_has_suffix (name, ".d") && strlen (name) > strlen (".d");
}

static void
watch_unit_folder (RcSettingsWatch *self,
                   const char      *folder,
                   const char      *name)
{
  g_autofree char *path = g_build_filename (folder, name, NULL);
  g_autofree char *unit = g_strndup (name, strlen (name) - strlen (".d"));

  add_watch (self, path, UNIT_EVENTS, WATCH_UNIT, 0, unit);
}

/* Whether a folder between @above and @folder (or @folder) exists. */
static gboolean
nearer_exists (const char *folder,
               const char *above)
{
  const char *next = folder + strlen (above) + 1;
  const char *slash = strchr (next, '/');
  g_autofree char *path = g_strndup (folder, slash != NULL ? (gsize) (slash - folder)
                                                             : strlen (folder));

  return g_str_has_prefix (folder, above) && g_file_test (path, G_FILE_TEST_IS_DIR);
}

/* Watches folder @i if it exists, with its <unit>.d folders; else the
 * nearest folder above it, to hear when it is made. TRUE when it is
 * watched now and was not before. */
static gboolean
set_up_folder (RcSettingsWatch *self,
               guint            i)
{
  const char *folder = self->folders[i];
  g_autofree char *above = NULL;
  g_autoptr(GDir) dir = NULL;
  const char *name;

  if (self->watched[i])
    return FALSE;
  if (add_watch (self, folder, FOLDER_EVENTS, WATCH_FOLDER, i, NULL) >= 0)
    {
      self->watched[i] = TRUE;
      /* Made before the watch: drop-in folders already there. */
      dir = g_dir_open (folder, 0, NULL);
      while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
        if (is_unit_folder (name))
          watch_unit_folder (self, folder, name);
      return TRUE;
    }
  above = g_path_get_dirname (folder);
  while (!g_file_test (above, G_FILE_TEST_IS_DIR) && strcmp (above, "/") != 0)
    {
      char *up = g_path_get_dirname (above);

      g_free (above);
      above = up;
    }
  add_watch (self, above, ANCESTOR_EVENTS, WATCH_ANCESTOR, 0, NULL);
  /* Made while the watch was being set up: its event is lost, look again. */
  return !g_str_equal (above, "/") && nearer_exists (folder, above) && set_up_folder (self, i);
}

static gboolean
set_up_folders (RcSettingsWatch *self)
{
  gboolean any = FALSE;

  for (guint i = 0; self->folders[i] != NULL; i++)
    any |= set_up_folder (self, i);
  return any;
}

/* One event; adds to @units the unit whose settings changed, or sets
 * @all. */
static void
handle_event (RcSettingsWatch            *self,
              const struct inotify_event *event,
              GHashTable                 *units,
              gboolean                   *all,
              gboolean                   *set_up)
{
  Watch *watch;
  const char *name = event->len > 0 ? event->name : "";

  if (event->mask & IN_Q_OVERFLOW)
    {
      *all = TRUE;
      return;
    }
  watch = g_hash_table_lookup (self->watches, GINT_TO_POINTER (event->wd));
  if (watch == NULL)
    return;
  if (event->mask & IN_IGNORED)
    {
      /* The folder is gone (or moved): its watch ended with it. */
      if (watch->kind == WATCH_FOLDER)
        {
          self->watched[watch->folder] = FALSE;
          *set_up = *all = TRUE;
        }
      else if (watch->kind == WATCH_UNIT)
        g_hash_table_add (units, g_strdup (watch->unit));
      g_hash_table_remove (self->watches, GINT_TO_POINTER (event->wd));
      return;
    }
  switch (watch->kind)
    {
    case WATCH_ANCESTOR:
      *set_up = TRUE;
      break;
    case WATCH_FOLDER:
      if (event->mask & (IN_DELETE_SELF | IN_MOVE_SELF))
        {
          inotify_rm_watch (self->fd, event->wd);
          break;
        }
      if (!is_unit_folder (name))
        break;
      if ((event->mask & (IN_CREATE | IN_MOVED_TO)) && (event->mask & IN_ISDIR))
        watch_unit_folder (self, self->folders[watch->folder], name);
      g_hash_table_add (units, g_strndup (name, strlen (name) - strlen (".d")));
      break;
    case WATCH_UNIT:
      g_hash_table_add (units, g_strdup (watch->unit));
      break;
    default:
      g_assert_not_reached ();
    }
}

static gboolean
inotify_cb (int          fd,
            GIOCondition condition,
            gpointer     user_data)
{
  RcSettingsWatch *self = user_data;
  g_autoptr(GHashTable) units = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  gboolean all = FALSE, set_up = FALSE;
  char buf[16384] __attribute__ ((aligned (__alignof__ (struct inotify_event))));
  GHashTableIter iter;
  const char *unit;

  for (;;)
    {
      ssize_t n = read (fd, buf, sizeof buf);

      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        break;
      for (char *p = buf; p < buf + n;)
        {
          const struct inotify_event *event = (const struct inotify_event *) p;

          handle_event (self, event, units, &all, &set_up);
          p += sizeof (struct inotify_event) + event->len;
        }
    }
  /* A folder made now may hold drop-ins already. */
  if (set_up && set_up_folders (self))
    all = TRUE;

  if (all)
    {
      g_debug ("Unit settings may have changed: all units");
      g_signal_emit (self, signals[SIGNAL_CHANGED], 0, NULL);
      return G_SOURCE_CONTINUE;
    }
  g_hash_table_iter_init (&iter, units);
  while (g_hash_table_iter_next (&iter, (gpointer *) &unit, NULL))
    {
      g_debug ("Unit settings changed: %s", unit);
      g_signal_emit (self, signals[SIGNAL_CHANGED], 0, unit);
    }
  return G_SOURCE_CONTINUE;
}

RcSettingsWatch *
rc_settings_watch_new (const char * const *folders)
{
  RcSettingsWatch *self = g_object_new (RC_TYPE_SETTINGS_WATCH, NULL);

  self->folders = g_strdupv ((char **) folders);
  self->watched = g_new0 (gboolean, g_strv_length (self->folders));
  self->fd = inotify_init1 (IN_NONBLOCK | IN_CLOEXEC);
  if (self->fd < 0)
    {
      /* Then nothing tells of changes, and kept limits could go stale. */
      g_warning ("inotify: %s; limits are read at every call", g_strerror (errno));
      return self;
    }
  set_up_folders (self);
  self->source_id = g_unix_fd_add (self->fd, G_IO_IN, inotify_cb, self);
  return self;
}

RcSettingsWatch *
rc_settings_watch_new_for_user (void)
{
  g_autofree char *transient = g_build_filename (g_get_user_runtime_dir (), "systemd",
                                                 "transient", NULL);
  g_autofree char *runtime = g_build_filename (g_get_user_runtime_dir (), "systemd",
                                               "user.control", NULL);
  g_autofree char *persistent = g_build_filename (g_get_user_config_dir (), "systemd",
                                                  "user.control", NULL);
  const char * const folders[] = { transient, runtime, persistent, NULL };

  return rc_settings_watch_new (folders);
}

gboolean
rc_settings_watch_is_working (RcSettingsWatch *self)
{
  return self->fd >= 0;
}

static void
rc_settings_watch_finalize (GObject *object)
{
  RcSettingsWatch *self = RC_SETTINGS_WATCH (object);

  g_clear_handle_id (&self->source_id, g_source_remove);
  if (self->fd >= 0)
    close (self->fd);
  g_hash_table_unref (self->watches);
  g_strfreev (self->folders);
  g_free (self->watched);
  G_OBJECT_CLASS (rc_settings_watch_parent_class)->finalize (object);
}

static void
rc_settings_watch_class_init (RcSettingsWatchClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = rc_settings_watch_finalize;

  signals[SIGNAL_CHANGED] =
    g_signal_new ("changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                  NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);
}

static void
rc_settings_watch_init (RcSettingsWatch *self)
{
  self->fd = -1;
  self->watches = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL,
                                         (GDestroyNotify) watch_free);
}
