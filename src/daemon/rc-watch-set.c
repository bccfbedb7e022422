/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "rc-watch-set.h"
#include "rc-heap.h"

#include <errno.h>
#include <glib-unix.h>
#include <string.h>
#include <sys/inotify.h>
#include <unistd.h>

/* Without the limit at hand: a quarter of the kernel's smallest default. */
#define DEFAULT_MAX_USER_WATCHES 8192

typedef struct {
  char    *key;       /* first (entry_key_hash); rc_shared_string */
  char    *path;      /* only while it waits: a watched file is never watched again */
  int      wd;        /* -1 once the file is gone, or while it waits */
  gboolean dirty;     /* changed since it was last handed over */
  gboolean waiting;   /* for a watch to be free */
} Entry;

struct _RcWatchSet {
  char           *what;
  guint32         mask;
  guint           min_interval_ms;
  RcWatchSetFlush flush;
  gpointer        user_data;
  int             fd;
  guint           source_id;
  guint           flush_id;
  gint64          last_flush;   /* monotonic µs */
  GHashTable     *by_key;       /* of Entry, found by key (entry_key_hash) */
  GHashTable     *by_wd;        /* wd -> Entry (borrowed) */
  guint           n_waiting;    /* entries waiting for a watch */
};

/* The cap is on all sets together: the user's limit is per user. */
static guint watch_cap;
static guint watches_in_use;
static gboolean told_full;
static GPtrArray *all_sets;

guint
rc_watch_cap_for_limit (guint64 max_user_watches)
{
  if (max_user_watches == 0)
    max_user_watches = DEFAULT_MAX_USER_WATCHES;
  return (guint) MIN (max_user_watches / RC_WATCH_SHARE_DIVISOR, G_MAXUINT);
}

void
rc_watch_set_cap (guint cap)
{
  watch_cap = cap;
  told_full = FALSE;
}

guint
rc_watch_count (void)
{
  return watches_in_use;
}

static guint
cap (void)
{
  g_autofree char *text = NULL;
  guint64 limit = 0;

  if (watch_cap != 0)
    return watch_cap;
  /* A kernel file of a few bytes, read once. */
  if (g_file_get_contents ("/proc/sys/fs/inotify/max_user_watches", &text, NULL, NULL))
    g_ascii_string_to_unsigned (g_strstrip (text), 10, 1, G_MAXUINT64, &limit, NULL);
  watch_cap = rc_watch_cap_for_limit (limit);
  g_debug ("inotify: at most %u watches (of the user's %" G_GUINT64_FORMAT ")", watch_cap,
           limit);
  return watch_cap;
}

/* by_key holds the entries themselves and finds them by their first
 * field, the key: a set has no values array (16 KiB less per set at 1,000
 * apps). Looked up with the address of a key. */
static guint
entry_key_hash (gconstpointer key_address)
{
  return g_str_hash (*(const char * const *) key_address);
}

static gboolean
entry_key_equal (gconstpointer a,
                 gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b) == 0;
}

static void
entry_free (Entry *entry)
{
  g_ref_string_release (entry->key);
  g_free (entry->path);
  g_free (entry);
}

static void
start_waiting (RcWatchSet *set,
               Entry      *entry)
{
  entry->waiting = TRUE;
  set->n_waiting++;
  if (!told_full)
    g_message ("%s: the daemon uses its share of the user's inotify watches (%u of "
               "fs.inotify.max_user_watches): the changes of %s and of the apps that come "
               "after it are not followed until an app ends and frees a watch",
               set->what, watches_in_use, entry->key);
  told_full = TRUE;
}

/* inotify_add_watch within the cap; FALSE (and @entry waits) past it. */
static gboolean
watch_entry (RcWatchSet *set,
             Entry      *entry)
{
  if (watches_in_use >= cap ())
    {
      start_waiting (set, entry);
      return FALSE;
    }
  entry->wd = inotify_add_watch (set->fd, entry->path, set->mask);
  if (entry->wd < 0)
    {
      g_debug ("%s: cannot watch %s: %s", set->what, entry->path, g_strerror (errno));
      if (errno == ENOSPC)
        start_waiting (set, entry);
      else
        g_clear_pointer (&entry->path, g_free);
      return FALSE;
    }
  watches_in_use++;
  g_hash_table_insert (set->by_wd, GINT_TO_POINTER (entry->wd), entry);
  /* Once watched, the path is not needed again (a watch that ends with its
   * file is not renewed): three paths of some 120 bytes per app were a
   * sixth of the daemon's heap at 1,000 apps. */
  g_clear_pointer (&entry->path, g_free);
  return TRUE;
}

/* A watch was freed: an entry waiting, in any set, takes it (one whose
 * file is gone meanwhile gives it on). */
static void
free_watch (void)
{
  watches_in_use--;
  for (guint i = 0; all_sets != NULL && i < all_sets->len; i++)
    {
      RcWatchSet *set = g_ptr_array_index (all_sets, i);
      GHashTableIter iter;
      Entry *entry;

      if (set->n_waiting == 0)
        continue;
      g_hash_table_iter_init (&iter, set->by_key);
      while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &entry))
        {
          if (!entry->waiting)
            continue;
          entry->waiting = FALSE;
          set->n_waiting--;
          if (watch_entry (set, entry))
            g_debug ("%s: %s is watched now", set->what, entry->key);
          if (entry->wd >= 0 || entry->waiting)
            return;
        }
    }
}

static gboolean
flush_cb (gpointer user_data)
{
  RcWatchSet *set = user_data;
  g_autoptr(GPtrArray) keys = g_ptr_array_new_with_free_func (g_free);
  GHashTableIter iter;
  Entry *entry;

  set->flush_id = 0;
  set->last_flush = g_get_monotonic_time ();
  g_hash_table_iter_init (&iter, set->by_key);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &entry))
    if (entry->dirty)
      {
        entry->dirty = FALSE;
        g_ptr_array_add (keys, g_strdup (entry->key));
      }
  if (keys->len > 0)
    set->flush (keys, set->user_data);
  return G_SOURCE_REMOVE;
}

static void
schedule_flush (RcWatchSet *set)
{
  gint64 since_ms = (g_get_monotonic_time () - set->last_flush) / 1000;

  if (set->flush_id != 0)
    return;
  set->flush_id = g_timeout_add (since_ms >= set->min_interval_ms
                                 ? 0 : set->min_interval_ms - (guint) since_ms,
                                 flush_cb, set);
}

static gboolean
inotify_cb (int          fd,
            GIOCondition condition,
            gpointer     user_data)
{
  RcWatchSet *set = user_data;
  char buffer[4096] __attribute__ ((aligned (__alignof__ (struct inotify_event))));
  ssize_t length;

  while ((length = read (fd, buffer, sizeof buffer)) > 0)
    for (char *p = buffer; p < buffer + length;)
      {
        const struct inotify_event *event = (const struct inotify_event *) p;
        Entry *entry = g_hash_table_lookup (set->by_wd, GINT_TO_POINTER (event->wd));

        p += sizeof (struct inotify_event) + event->len;
        if (entry == NULL)
          continue;
        if (event->mask & IN_IGNORED)
          {
            /* The file is gone (its cgroup removed); its key goes soon. */
            entry->wd = -1;
            g_hash_table_remove (set->by_wd, GINT_TO_POINTER (event->wd));
            free_watch ();
          }
        else if (event->mask & set->mask)
          {
            entry->dirty = TRUE;
            schedule_flush (set);
          }
      }
  return G_SOURCE_CONTINUE;
}

RcWatchSet *
rc_watch_set_new (const char     *what,
                  guint32         mask,
                  guint           min_interval_ms,
                  RcWatchSetFlush flush,
                  gpointer        user_data)
{
  RcWatchSet *set = g_new0 (RcWatchSet, 1);

  set->what = g_strdup (what);
  set->mask = mask;
  set->min_interval_ms = min_interval_ms;
  set->flush = flush;
  set->user_data = user_data;
  set->by_key = g_hash_table_new_full (entry_key_hash, entry_key_equal, (GDestroyNotify) entry_free,
                                       NULL);
  set->by_wd = g_hash_table_new (NULL, NULL);
  if (all_sets == NULL)
    all_sets = g_ptr_array_new ();
  g_ptr_array_add (all_sets, set);
  set->fd = inotify_init1 (IN_NONBLOCK | IN_CLOEXEC);
  if (set->fd < 0)
    g_warning ("%s: inotify unavailable (%s): changes are not followed", what, g_strerror (errno));
  else
    set->source_id = g_unix_fd_add (set->fd, G_IO_IN, inotify_cb, set);
  return set;
}

void
rc_watch_set_free (RcWatchSet *set)
{
  if (set == NULL)
    return;
  g_clear_handle_id (&set->source_id, g_source_remove);
  g_clear_handle_id (&set->flush_id, g_source_remove);
  g_ptr_array_remove (all_sets, set);
  /* closing the fd frees its watches */
  watches_in_use -= g_hash_table_size (set->by_wd);
  g_hash_table_unref (set->by_wd);
  g_hash_table_unref (set->by_key);
  if (set->fd >= 0)
    close (set->fd);
  g_free (set->what);
  g_free (set);
}

gboolean
rc_watch_set_available (RcWatchSet *set)
{
  return set->fd >= 0;
}

gboolean
rc_watch_set_add (RcWatchSet *set,
                  const char *key,
                  const char *path)
{
  Entry *entry;

  if (set->fd < 0 || g_hash_table_contains (set->by_key, &key))
    return FALSE;
  entry = g_new0 (Entry, 1);
  entry->key = rc_shared_string (key);
  entry->path = g_strdup (path);
  entry->wd = -1;
  g_hash_table_add (set->by_key, entry);
  return watch_entry (set, entry);
}

gboolean
rc_watch_set_remove (RcWatchSet *set,
                     const char *key)
{
  Entry *entry = g_hash_table_lookup (set->by_key, &key);
  gboolean dirty;
  gboolean freed;

  if (entry == NULL)
    return FALSE;
  dirty = entry->dirty;
  freed = entry->wd >= 0;
  if (entry->waiting)
    set->n_waiting--;
  if (entry->wd >= 0)
    {
      inotify_rm_watch (set->fd, entry->wd);
      g_hash_table_remove (set->by_wd, GINT_TO_POINTER (entry->wd));
    }
  g_hash_table_remove (set->by_key, &key);   /* frees @entry */
  if (freed)
    free_watch ();
  return dirty;
}
