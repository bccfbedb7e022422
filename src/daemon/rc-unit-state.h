/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* What the tracker knows of one unit whose name (or an alias) is an app's.
 *
 * A unit is read (GetAll) only while systemd says it is active or
 * activating: reading the object of a unit systemd has collected makes it
 * load the unit again and send UnitNew, and if UnitNew led to a read, the
 * two would keep the user manager loading and collecting it for ever. So
 * UnitNew only starts tracking (DOWN); the unit's PropertiesChanged, or a
 * ListUnitsByPatterns (which loads nothing), says when it is worth a read.
 * systemctl daemon-reload sends UnitRemoved and UnitNew for every unit with
 * no state change: a live unit's UnitRemoved asks systemd for its state
 * before it is forgotten. After a daemon-reexec the full listing settles
 * every unit again. */
typedef enum {
  RC_UNIT_DOWN,           /* not active or activating (or not known yet): never read */
  RC_UNIT_DOWN_READING,   /* went down while a read was in flight: its result still counts */
  RC_UNIT_QUEUED,         /* live, waiting for its read */
  RC_UNIT_READING,        /* live, a read in flight */
  RC_UNIT_READING_STALE,  /* live, changed while the read was in flight: read once more */
  RC_UNIT_ACTIVE,         /* read, active or reloading: an app */
  RC_UNIT_STARTING,       /* read, activating: its next ActiveState change reads it */
  RC_UNIT_RETRY_WAIT,     /* live, its read failed: tried again later */
} RcUnitState;

typedef enum {
  RC_UNIT_EVENT_LIVE,          /* systemd says active, reloading or activating */
  RC_UNIT_EVENT_DOWN,          /* systemd says anything else */
  RC_UNIT_EVENT_READ_STARTS,   /* its turn in the read queue came */
  RC_UNIT_EVENT_READ_ACTIVE,   /* a read came back: active or reloading */
  RC_UNIT_EVENT_READ_STARTING, /* a read came back: activating */
  RC_UNIT_EVENT_READ_DOWN,     /* a read came back: neither */
  RC_UNIT_EVENT_READ_FAILED,   /* a read failed; worth trying again */
  RC_UNIT_EVENT_RETRY,         /* the time to try again came */
  RC_UNIT_EVENT_REMOVED,       /* UnitRemoved */
  RC_UNIT_EVENT_GONE,          /* the unit does not exist, or failed to read too often */
} RcUnitEvent;

typedef enum {
  RC_UNIT_ACTION_NONE        = 0,
  RC_UNIT_ACTION_QUEUE_READ  = 1 << 0,  /* put it in the read queue */
  RC_UNIT_ACTION_APPLY       = 1 << 1,  /* hand the read's properties on */
  RC_UNIT_ACTION_DROP_APP    = 1 << 2,  /* it is no app (any more) */
  RC_UNIT_ACTION_RETRY_LATER = 1 << 3,  /* start a retry timer */
  RC_UNIT_ACTION_ASK_STATE   = 1 << 4,  /* ask systemd for its ActiveState (a listing) */
  RC_UNIT_ACTION_FORGET      = 1 << 5,  /* stop tracking it */
} RcUnitAction;

/* The tracker's rules, as a pure function: the state after @event in
 * @state, and in @out_actions what to do about it. */
RcUnitState  rc_unit_state_next (RcUnitState   state,
                                 RcUnitEvent   event,
                                 RcUnitAction *out_actions);
const char  *rc_unit_state_to_string (RcUnitState state);

G_END_DECLS
