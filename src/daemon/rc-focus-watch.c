/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "rc-focus-watch.h"
#include "rc-cgroup.h"
#include "rc-heap.h"
#include "rc-watch-set.h"
#include "rc-names.h"

#include <sys/inotify.h>
#include <sys/xattr.h>

/* Any process of the user can set the mark as fast as it likes, and each
 * change is a systemd call and a state-file write: marks are read at most
 * once per MIN_INTERVAL_MS, all at once, and only the last value counts. The
 * first change after a quiet spell is read at once. */
#define MIN_INTERVAL_MS 200

typedef struct {
  char   *unit;            /* both rc_shared_string, the app's own */
  char   *control_group;
  RcFocus focus;
} Watched;

struct _RcFocusWatch {
  GObject     parent_instance;
  RcWatchSet *files;
  GHashTable *by_unit;    /* unit -> Watched */
};

G_DEFINE_TYPE (RcFocusWatch, rc_focus_watch, G_TYPE_OBJECT);

enum { SIGNAL_FOCUS_CHANGED, N_SIGNALS };
static guint signals[N_SIGNALS];

static void
watched_free (Watched *watched)
{
  g_ref_string_release (watched->unit);
  g_ref_string_release (watched->control_group);
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
read_focus (const char *control_group)
{
  g_autofree char *path = g_build_filename (rc_cgroup_root (), control_group, NULL);
  char value[64];
  ssize_t length = getxattr (path, RC_FOCUS_XATTR, value, sizeof value);

  if (length < 0)
    return RC_FOCUS_UNKNOWN;
  return rc_focus_parse (value, (gsize) length);
}

static void
flush_cb (GPtrArray *units,
          gpointer   user_data)
{
  RcFocusWatch *self = user_data;
  g_autoptr(GPtrArray) changed = g_ptr_array_new ();

  /* Read first, emit after: a handler may add or remove units. */
  for (guint i = 0; i < units->len; i++)
    {
      Watched *watched = g_hash_table_lookup (self->by_unit, g_ptr_array_index (units, i));
      RcFocus focus;

      if (watched == NULL)
        continue;
      focus = read_focus (watched->control_group);
      if (focus == watched->focus || focus == RC_FOCUS_UNKNOWN)
        continue;
      watched->focus = focus;
      g_ptr_array_add (changed, g_ptr_array_index (units, i));
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
}

RcFocus
rc_focus_watch_add (RcFocusWatch *self,
                    const char   *unit,
                    const char   *control_group)
{
  g_autofree char *built = NULL;
  Watched *watched;

  if (!rc_watch_set_available (self->files) || control_group == NULL ||
      *control_group == '\0' || g_hash_table_contains (self->by_unit, unit))
    return RC_FOCUS_UNKNOWN;
  watched = g_new0 (Watched, 1);
  watched->unit = rc_shared_string (unit);
  /* the folder's path is built when it is read: kept for every app, it
   * was a copy of the control group's the app has already */
  watched->control_group = rc_shared_string (control_group);
  built = g_build_filename (rc_cgroup_root (), control_group, NULL);
  rc_watch_set_add (self->files, unit, built);
  watched->focus = read_focus (control_group);
  g_hash_table_insert (self->by_unit, watched->unit, watched);
  return watched->focus;
}

void
rc_focus_watch_remove (RcFocusWatch *self,
                       const char   *unit)
{
  if (!g_hash_table_contains (self->by_unit, unit))
    return;
  rc_watch_set_remove (self->files, unit);
  g_hash_table_remove (self->by_unit, unit);
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

  g_clear_pointer (&self->files, rc_watch_set_free);
  g_clear_pointer (&self->by_unit, g_hash_table_unref);
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
  self->files = rc_watch_set_new ("Focus", IN_ATTRIB | IN_ONLYDIR, MIN_INTERVAL_MS, flush_cb, self);
}
