/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib-object.h>

G_BEGIN_DECLS

/* The order in which changes reach systemd, for every writer: D-Bus
 * requests, rules, the foreground boost and freezing in the background.
 *
 * Entries wait in arrival order. An entry runs once it is ready (for a
 * D-Bus request: authorized), no entry for one of its units is running, and
 * no earlier entry for one of them is ready or from the same caller. So one
 * unit sees one change at a time, a caller's changes run in the order it
 * sent them, ready changes in the order they arrived, and a caller stuck in
 * polkit (a password dialog nobody answers) holds up nobody else. An entry
 * whose units are not known yet may touch any unit.
 *
 * The queue knows nothing of D-Bus, polkit or systemd: it calls an entry's
 * start function when its turn comes, and the entry's owner calls
 * rc_request_queue_done() when it is finished (or failed, at any point). */
#define RC_TYPE_REQUEST_QUEUE (rc_request_queue_get_type ())
G_DECLARE_FINAL_TYPE (RcRequestQueue, rc_request_queue, RC, REQUEST_QUEUE, GObject);

typedef struct _RcQueued RcQueued;
typedef void (*RcQueuedStartFunc) (RcQueued *queued,
                                   gpointer  user_data);

RcRequestQueue *rc_request_queue_new (void);
/* A new entry of @caller (any string that tells callers apart, such as a
 * bus name), last in the queue, its units not known yet, not ready. */
RcQueued       *rc_request_queue_push (RcRequestQueue   *self,
                                       const char       *caller,
                                       RcQueuedStartFunc start,
                                       gpointer          user_data);
/* The unit names @queued will change (copied). */
void            rc_request_queue_set_units (RcRequestQueue     *self,
                                            RcQueued           *queued,
                                            const char * const *units,
                                            guint               n_units);
/* @queued may run once its turn comes; its units must be set. */
void            rc_request_queue_ready (RcRequestQueue *self,
                                        RcQueued       *queued);
/* @queued is finished, or gave up before it ran: it leaves the queue and
 * the entries it held up may run. Frees @queued. */
void            rc_request_queue_done (RcRequestQueue *self,
                                       RcQueued       *queued);
guint           rc_request_queue_length (RcRequestQueue *self);

G_END_DECLS
