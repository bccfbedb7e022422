/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The unit tracker's rules (rc-unit-state.h): a pure transition table,
 * tested on its own by test-unit-tracker. */
#include "rc-unit-state.h"

/* Read it (again): into the read queue. */
static RcUnitState
queue_read (RcUnitAction *actions)
{
  *actions |= RC_UNIT_ACTION_QUEUE_READ;
  return RC_UNIT_QUEUED;
}

RcUnitState
rc_unit_state_next (RcUnitState   state,
                    RcUnitEvent   event,
                    RcUnitAction *out_actions)
{
  RcUnitAction actions = RC_UNIT_ACTION_NONE;
  RcUnitState next = state;

  switch (event)
    {
    case RC_UNIT_EVENT_LIVE:
      /* Slice and ControlGroup are set as the unit starts: read them anew. */
      if (state == RC_UNIT_READING || state == RC_UNIT_DOWN_READING)
        next = RC_UNIT_READING_STALE;
      else if (state != RC_UNIT_QUEUED && state != RC_UNIT_READING_STALE)
        next = queue_read (&actions);
      break;

    case RC_UNIT_EVENT_DOWN:
      /* Stopping or gone: no read, it could come after systemd collected
       * the unit. A read in flight still answers. */
      if (state != RC_UNIT_DOWN_READING)
        actions = RC_UNIT_ACTION_DROP_APP;
      next = state == RC_UNIT_READING || state == RC_UNIT_READING_STALE ||
             state == RC_UNIT_DOWN_READING ? RC_UNIT_DOWN_READING : RC_UNIT_DOWN;
      break;

    case RC_UNIT_EVENT_READ_STARTS:
      if (state == RC_UNIT_QUEUED)
        next = RC_UNIT_READING;
      break;

    case RC_UNIT_EVENT_READ_ACTIVE:
    case RC_UNIT_EVENT_READ_STARTING:
    case RC_UNIT_EVENT_READ_DOWN:
      if (state != RC_UNIT_READING && state != RC_UNIT_READING_STALE &&
          state != RC_UNIT_DOWN_READING)
        break;
      if (event == RC_UNIT_EVENT_READ_ACTIVE)
        {
          actions = RC_UNIT_ACTION_APPLY;
          next = RC_UNIT_ACTIVE;
        }
      else
        {
          actions = RC_UNIT_ACTION_DROP_APP;
          next = event == RC_UNIT_EVENT_READ_STARTING ? RC_UNIT_STARTING : RC_UNIT_DOWN;
        }
      /* Changed while it was read: the last state must win. */
      if (state == RC_UNIT_READING_STALE && event != RC_UNIT_EVENT_READ_DOWN)
        next = queue_read (&actions);
      break;

    case RC_UNIT_EVENT_READ_FAILED:
      /* A slow or busy systemd: try again, later each time. */
      if (state == RC_UNIT_READING)
        {
          next = RC_UNIT_RETRY_WAIT;
          actions = RC_UNIT_ACTION_RETRY_LATER;
        }
      else if (state == RC_UNIT_READING_STALE)
        next = queue_read (&actions);
      else if (state == RC_UNIT_DOWN_READING)
        next = RC_UNIT_DOWN;
      break;

    case RC_UNIT_EVENT_RETRY:
      if (state == RC_UNIT_RETRY_WAIT)
        next = queue_read (&actions);
      break;

    case RC_UNIT_EVENT_REMOVED:
      /* A running unit does not go away without stopping first, except in
       * a daemon-reload, where it comes back at once: ask. */
      if (state == RC_UNIT_DOWN || state == RC_UNIT_DOWN_READING)
        actions = RC_UNIT_ACTION_FORGET | RC_UNIT_ACTION_DROP_APP;
      else
        actions = RC_UNIT_ACTION_ASK_STATE;
      break;

    case RC_UNIT_EVENT_GONE:
      actions = RC_UNIT_ACTION_FORGET | RC_UNIT_ACTION_DROP_APP;
      next = RC_UNIT_DOWN;
      break;

    default:
      g_assert_not_reached ();
    }
  *out_actions = actions;
  return next;
}

const char *
rc_unit_state_to_string (RcUnitState state)
{
  static const char * const names[] = {
    "down", "down-reading", "queued", "reading", "reading-stale", "active", "starting",
    "retry-wait",
  };

  g_return_val_if_fail (state < G_N_ELEMENTS (names), "?");
  return names[state];
}
