/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "rc-request-queue.h"

struct _RcQueued {
  char             *caller;
  GStrv             units;      /* NULL until known */
  gboolean          ready;
  gboolean          running;
  RcQueuedStartFunc start;
  gpointer          user_data;
  GList            *link;
};

struct _RcRequestQueue {
  GObject  parent_instance;
  GQueue   entries;
  gboolean pumping;
  gboolean pump_again;
};

G_DEFINE_TYPE (RcRequestQueue, rc_request_queue, G_TYPE_OBJECT);

static void
queued_free (RcQueued *queued)
{
  g_free (queued->caller);
  g_strfreev (queued->units);
  g_free (queued);
}

static gboolean
shares_unit (const RcQueued *other,
             const RcQueued *queued)
{
  /* An entry whose units are not known yet might touch any. */
  if (other->units == NULL)
    return TRUE;
  for (guint i = 0; other->units[i] != NULL; i++)
    if (g_strv_contains ((const char * const *) queued->units, other->units[i]))
      return TRUE;
  return FALSE;
}

static gboolean
may_start (RcRequestQueue *self,
           RcQueued       *queued)
{
  gboolean later = FALSE;    /* the entries seen now came after @queued */

  if (queued->running || !queued->ready)
    return FALSE;
  for (GList *l = self->entries.head; l != NULL; l = l->next)
    {
      RcQueued *other = l->data;

      if (other == queued)
        {
          later = TRUE;
          continue;
        }
      if (!shares_unit (other, queued))
        continue;
      if (other->running ||
          (!later && (other->ready || g_str_equal (other->caller, queued->caller))))
        return FALSE;
    }
  return TRUE;
}

static void
pump (RcRequestQueue *self)
{
  /* A start function may finish its entry, or others, at once: that asks
   * for another pass instead of pumping from inside the pass. */
  if (self->pumping)
    {
      self->pump_again = TRUE;
      return;
    }
  self->pumping = TRUE;
  g_object_ref (self);
  do
    {
      self->pump_again = FALSE;
      for (GList *l = self->entries.head; l != NULL; l = l->next)
        {
          RcQueued *queued = l->data;

          if (may_start (self, queued))
            {
              /* Each start marks its entry running or removes it: the
               * passes end. */
              queued->running = TRUE;
              queued->start (queued, queued->user_data);
              self->pump_again = TRUE;
              break;
            }
        }
    }
  while (self->pump_again);
  self->pumping = FALSE;
  g_object_unref (self);
}

RcQueued *
rc_request_queue_push (RcRequestQueue   *self,
                       const char       *caller,
                       RcQueuedStartFunc start,
                       gpointer          user_data)
{
  RcQueued *queued = g_new0 (RcQueued, 1);

  g_return_val_if_fail (RC_IS_REQUEST_QUEUE (self), NULL);
  g_return_val_if_fail (caller != NULL && start != NULL, NULL);

  queued->caller = g_strdup (caller);
  queued->start = start;
  queued->user_data = user_data;
  g_queue_push_tail (&self->entries, queued);
  queued->link = self->entries.tail;
  return queued;
}

void
rc_request_queue_set_units (RcRequestQueue     *self,
                            RcQueued           *queued,
                            const char * const *units,
                            guint               n_units)
{
  g_return_if_fail (RC_IS_REQUEST_QUEUE (self));
  g_return_if_fail (queued != NULL && !queued->running);

  g_strfreev (queued->units);
  queued->units = g_new0 (char *, n_units + 1);
  for (guint i = 0; i < n_units; i++)
    queued->units[i] = g_strdup (units[i]);
  /* Knowing them may let later entries of the same caller go ahead. */
  pump (self);
}

void
rc_request_queue_ready (RcRequestQueue *self,
                        RcQueued       *queued)
{
  g_return_if_fail (RC_IS_REQUEST_QUEUE (self));
  g_return_if_fail (queued != NULL && queued->units != NULL);

  queued->ready = TRUE;
  pump (self);
}

void
rc_request_queue_done (RcRequestQueue *self,
                       RcQueued       *queued)
{
  g_return_if_fail (RC_IS_REQUEST_QUEUE (self));
  g_return_if_fail (queued != NULL);

  g_queue_delete_link (&self->entries, queued->link);
  queued_free (queued);
  pump (self);
}

guint
rc_request_queue_length (RcRequestQueue *self)
{
  g_return_val_if_fail (RC_IS_REQUEST_QUEUE (self), 0);

  return self->entries.length;
}

RcRequestQueue *
rc_request_queue_new (void)
{
  return g_object_new (RC_TYPE_REQUEST_QUEUE, NULL);
}

static void
rc_request_queue_finalize (GObject *object)
{
  RcRequestQueue *self = RC_REQUEST_QUEUE (object);

  g_queue_clear_full (&self->entries, (GDestroyNotify) queued_free);
  G_OBJECT_CLASS (rc_request_queue_parent_class)->finalize (object);
}

static void
rc_request_queue_class_init (RcRequestQueueClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = rc_request_queue_finalize;
}

static void
rc_request_queue_init (RcRequestQueue *self)
{
  g_queue_init (&self->entries);
}
