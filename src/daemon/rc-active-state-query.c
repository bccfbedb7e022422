/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "rc-active-state-query.h"
#include "rc-heap.h"

struct _RcActiveStateQuery {
  GObject       parent_instance;
  RcSystemd    *systemd;
  GCancellable *cancellable;
  GHashTable   *to_ask;     /* object path -> unit id, for the next batch */
  guint         batch_id;
};

enum {
  SIGNAL_LISTED,
  SIGNAL_UNLISTED,
  N_SIGNALS
};
static guint signals[N_SIGNALS];

G_DEFINE_TYPE (RcActiveStateQuery, rc_active_state_query, G_TYPE_OBJECT);

/* One batch on its way. */
typedef struct {
  RcActiveStateQuery *query;
  GHashTable         *asked;  /* object path -> unit id */
} Batch;

static void
batch_free (Batch *batch)
{
  g_object_unref (batch->query);
  g_hash_table_unref (batch->asked);
  g_free (batch);
}

static GHashTable *
new_path_table (void)
{
  return g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
}

static gboolean
ask_again_cb (gpointer user_data)
{
  Batch *batch = user_data;
  GHashTableIter iter;
  const char *path, *id;

  if (g_cancellable_is_cancelled (batch->query->cancellable))
    return G_SOURCE_REMOVE;
  g_hash_table_iter_init (&iter, batch->asked);
  while (g_hash_table_iter_next (&iter, (gpointer *) &path, (gpointer *) &id))
    rc_active_state_query_ask (batch->query, id, path);
  return G_SOURCE_REMOVE;
}

static void
list_units_cb (GObject      *source,
               GAsyncResult *result,
               gpointer      user_data)
{
  Batch *batch = user_data;
  RcActiveStateQuery *self = batch->query;
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) units = NULL;
  GVariantIter unit_iter;
  GHashTableIter iter;
  const char *object_path, *active_state;

  units = rc_systemd_list_units_finish (RC_SYSTEMD (source), result, &error);
  if (units == NULL)
    {
      /* With systemd off the bus, asking again would poll: the full listing
       * when it is back ("appeared") settles these units too. */
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED) &&
          rc_systemd_is_present (self->systemd))
        {
          g_debug ("Could not ask systemd for unit states (%s); asking again", error->message);
          g_timeout_add_seconds_full (G_PRIORITY_DEFAULT, 1, ask_again_cb, batch,
                                      (GDestroyNotify) batch_free);
          return;
        }
      batch_free (batch);
      return;
    }

  g_variant_iter_init (&unit_iter, units);
  while (g_variant_iter_next (&unit_iter, "(&s&s&s&s&s&s&ou&s&o)", NULL, NULL, NULL,
                              &active_state, NULL, NULL, &object_path, NULL, NULL, NULL))
    if (g_hash_table_remove (batch->asked, object_path))
      g_signal_emit (self, signals[SIGNAL_LISTED], 0, object_path, active_state);
  g_hash_table_iter_init (&iter, batch->asked);
  while (g_hash_table_iter_next (&iter, (gpointer *) &object_path, NULL))
    g_signal_emit (self, signals[SIGNAL_UNLISTED], 0, object_path);
  rc_heap_trim_after (g_variant_n_children (units));   /* a daemon-reload asks for every unit */
  batch_free (batch);
}

static gboolean
send_batch_cb (gpointer user_data)
{
  RcActiveStateQuery *self = user_data;
  g_autoptr(GPtrArray) patterns = g_ptr_array_new_with_free_func (g_free);
  static const char * const any_state[] = { NULL };
  GHashTableIter iter;
  const char *id;
  Batch *batch;

  self->batch_id = 0;
  if (g_hash_table_size (self->to_ask) == 0)
    return G_SOURCE_REMOVE;
  batch = g_new0 (Batch, 1);
  batch->query = g_object_ref (self);
  batch->asked = g_steal_pointer (&self->to_ask);
  self->to_ask = new_path_table ();
  g_hash_table_iter_init (&iter, batch->asked);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &id))
    {
      /* A glob of the name: '?' for the '\' of \x2d escapes, whatever
       * systemd's fnmatch flags; the reply is matched by path. */
      char *pattern = g_strdup (id);
      g_strdelimit (pattern, "\\", '?');
      g_ptr_array_add (patterns, pattern);
    }
  g_ptr_array_add (patterns, NULL);
  rc_systemd_list_units_async (self->systemd, any_state, (const char * const *) patterns->pdata,
                               self->cancellable, list_units_cb, batch);
  return G_SOURCE_REMOVE;
}

void
rc_active_state_query_ask (RcActiveStateQuery *self,
                           const char         *id,
                           const char         *object_path)
{
  g_return_if_fail (RC_IS_ACTIVE_STATE_QUERY (self));

  g_hash_table_replace (self->to_ask, g_strdup (object_path), g_strdup (id));
  if (self->batch_id == 0)
    self->batch_id = g_idle_add (send_batch_cb, self);
}

void
rc_active_state_query_forget (RcActiveStateQuery *self,
                              const char         *object_path)
{
  g_return_if_fail (RC_IS_ACTIVE_STATE_QUERY (self));

  g_hash_table_remove (self->to_ask, object_path);
}

RcActiveStateQuery *
rc_active_state_query_new (RcSystemd    *systemd,
                           GCancellable *cancellable)
{
  RcActiveStateQuery *self = g_object_new (RC_TYPE_ACTIVE_STATE_QUERY, NULL);

  self->systemd = g_object_ref (systemd);
  self->cancellable = g_object_ref (cancellable);
  return self;
}

static void
rc_active_state_query_dispose (GObject *object)
{
  RcActiveStateQuery *self = RC_ACTIVE_STATE_QUERY (object);

  g_clear_handle_id (&self->batch_id, g_source_remove);
  g_clear_object (&self->systemd);
  g_clear_object (&self->cancellable);
  G_OBJECT_CLASS (rc_active_state_query_parent_class)->dispose (object);
}

static void
rc_active_state_query_finalize (GObject *object)
{
  RcActiveStateQuery *self = RC_ACTIVE_STATE_QUERY (object);

  g_hash_table_unref (self->to_ask);
  G_OBJECT_CLASS (rc_active_state_query_parent_class)->finalize (object);
}

static void
rc_active_state_query_class_init (RcActiveStateQueryClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = rc_active_state_query_dispose;
  object_class->finalize = rc_active_state_query_finalize;

  signals[SIGNAL_LISTED] =
    g_signal_new ("listed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                  NULL, NULL, NULL, G_TYPE_NONE, 2, G_TYPE_STRING, G_TYPE_STRING);
  signals[SIGNAL_UNLISTED] =
    g_signal_new ("unlisted", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                  NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);
}

static void
rc_active_state_query_init (RcActiveStateQuery *self)
{
  self->to_ask = new_path_table ();
}
