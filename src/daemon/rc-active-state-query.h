/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <gio/gio.h>

#include "rc-systemd.h"

G_BEGIN_DECLS

/* Asks systemd for units' ActiveState without loading them: the questions
 * of one main loop iteration go in one ListUnitsByPatterns (reading a unit
 * object systemd has collected would load it again, see RcUnitState). A
 * failed call is asked again a second later while systemd is on the bus;
 * when it is not, its return's full listing settles the units.
 *
 * Signals, in the order of one reply:
 *   "listed" (s path, s active_state)  systemd has the unit, in this state
 *   "unlisted" (s path)                asked about, but no longer loaded (its
 *                                      UnitRemoved may be behind us) */
#define RC_TYPE_ACTIVE_STATE_QUERY (rc_active_state_query_get_type ())
G_DECLARE_FINAL_TYPE (RcActiveStateQuery, rc_active_state_query, RC, ACTIVE_STATE_QUERY, GObject);

/* @cancellable: its owner's; cancelled, no answer comes. */
RcActiveStateQuery *rc_active_state_query_new (RcSystemd    *systemd,
                                               GCancellable *cancellable);
/* Asks for the state of unit @id at @object_path, in the next batch. */
void                rc_active_state_query_ask (RcActiveStateQuery *self,
                                               const char         *id,
                                               const char         *object_path);
/* A unit its owner forgot: not asked for if its batch has not gone yet. */
void                rc_active_state_query_forget (RcActiveStateQuery *self,
                                                  const char         *object_path);

G_END_DECLS
