/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The unit tracker's rules (rc_unit_state_next), as a table of every state
 * and event that matters, and as the stories HACKING.md tells: a collected
 * unit is never read, daemon-reload keeps the apps, a change during a read
 * reads again, a failing read is retried. No bus, no systemd. */
#include "rc-unit-tracker.h"

#define S(x) RC_UNIT_ ## x
#define E(x) RC_UNIT_EVENT_ ## x
#define QUEUE RC_UNIT_ACTION_QUEUE_READ
#define APPLY RC_UNIT_ACTION_APPLY
#define DROP RC_UNIT_ACTION_DROP_APP
#define RETRY RC_UNIT_ACTION_RETRY_LATER
#define ASK RC_UNIT_ACTION_ASK_STATE
#define FORGET RC_UNIT_ACTION_FORGET

typedef struct {
  RcUnitState  state;
  RcUnitEvent  event;
  RcUnitState  next;
  RcUnitAction actions;
} Transition;

static const Transition transitions[] = {
  /* a unit that becomes live is read, once, whatever it was */
  { S (DOWN), E (LIVE), S (QUEUED), QUEUE },
  { S (QUEUED), E (LIVE), S (QUEUED), 0 },
  { S (ACTIVE), E (LIVE), S (QUEUED), QUEUE },
  { S (STARTING), E (LIVE), S (QUEUED), QUEUE },
  { S (RETRY_WAIT), E (LIVE), S (QUEUED), QUEUE },
  /* ... and a change during a read means one more read after it */
  { S (READING), E (LIVE), S (READING_STALE), 0 },
  { S (READING_STALE), E (LIVE), S (READING_STALE), 0 },
  { S (DOWN_READING), E (LIVE), S (READING_STALE), 0 },
  /* going down drops the app and reads nothing */
  { S (DOWN), E (DOWN), S (DOWN), DROP },
  { S (QUEUED), E (DOWN), S (DOWN), DROP },
  { S (ACTIVE), E (DOWN), S (DOWN), DROP },
  { S (STARTING), E (DOWN), S (DOWN), DROP },
  { S (RETRY_WAIT), E (DOWN), S (DOWN), DROP },
  { S (READING), E (DOWN), S (DOWN_READING), DROP },
  { S (READING_STALE), E (DOWN), S (DOWN_READING), DROP },
  { S (DOWN_READING), E (DOWN), S (DOWN_READING), 0 },
  /* the read queue */
  { S (QUEUED), E (READ_STARTS), S (READING), 0 },
  { S (DOWN), E (READ_STARTS), S (DOWN), 0 },
  /* a read's answer */
  { S (READING), E (READ_ACTIVE), S (ACTIVE), APPLY },
  { S (READING), E (READ_STARTING), S (STARTING), DROP },
  { S (READING), E (READ_DOWN), S (DOWN), DROP },
  { S (READING_STALE), E (READ_ACTIVE), S (QUEUED), APPLY | QUEUE },
  { S (READING_STALE), E (READ_STARTING), S (QUEUED), DROP | QUEUE },
  { S (READING_STALE), E (READ_DOWN), S (DOWN), DROP },
  { S (DOWN_READING), E (READ_ACTIVE), S (ACTIVE), APPLY },
  { S (DOWN_READING), E (READ_DOWN), S (DOWN), DROP },
  { S (ACTIVE), E (READ_ACTIVE), S (ACTIVE), 0 },
  /* failures */
  { S (READING), E (READ_FAILED), S (RETRY_WAIT), RETRY },
  { S (READING_STALE), E (READ_FAILED), S (QUEUED), QUEUE },
  { S (DOWN_READING), E (READ_FAILED), S (DOWN), 0 },
  { S (RETRY_WAIT), E (RETRY), S (QUEUED), QUEUE },
  { S (DOWN), E (RETRY), S (DOWN), 0 },
  { S (ACTIVE), E (GONE), S (DOWN), DROP | FORGET },
  { S (READING), E (GONE), S (DOWN), DROP | FORGET },
  /* UnitRemoved: a live unit is asked about (daemon-reload), a dead one forgotten */
  { S (ACTIVE), E (REMOVED), S (ACTIVE), ASK },
  { S (QUEUED), E (REMOVED), S (QUEUED), ASK },
  { S (READING), E (REMOVED), S (READING), ASK },
  { S (STARTING), E (REMOVED), S (STARTING), ASK },
  { S (RETRY_WAIT), E (REMOVED), S (RETRY_WAIT), ASK },
  { S (DOWN), E (REMOVED), S (DOWN), DROP | FORGET },
  { S (DOWN_READING), E (REMOVED), S (DOWN_READING), DROP | FORGET },
};

static void
test_transition (gconstpointer data)
{
  const Transition *t = data;
  RcUnitAction actions = 0xff;
  RcUnitState next = rc_unit_state_next (t->state, t->event, &actions);

  g_assert_cmpstr (rc_unit_state_to_string (next), ==, rc_unit_state_to_string (t->next));
  g_assert_cmphex (actions, ==, t->actions);
}

/* Runs @events from @state; returns the end state and every action taken. */
static RcUnitState
run (RcUnitState        state,
     const RcUnitEvent *events,
     guint              n_events,
     RcUnitAction      *out_all)
{
  *out_all = 0;
  for (guint i = 0; i < n_events; i++)
    {
      RcUnitAction actions;

      state = rc_unit_state_next (state, events[i], &actions);
      *out_all |= actions;
    }
  return state;
}

/* UnitNew of a unit systemd then collects: it is never read, only forgotten. */
static void
test_collected_unit_is_never_read (void)
{
  const RcUnitEvent events[] = { E (DOWN), E (REMOVED) };
  RcUnitAction all;

  run (S (DOWN), events, G_N_ELEMENTS (events), &all);
  g_assert_false (all & QUEUE);
  g_assert_true (all & FORGET);
}

/* daemon-reload: UnitRemoved and UnitNew of a running app, no state change:
 * the app stays, nothing is read, systemd is asked. */
static void
test_daemon_reload_keeps_the_app (void)
{
  const RcUnitEvent events[] = { E (REMOVED) };
  RcUnitAction all;
  RcUnitState end = run (S (ACTIVE), events, 1, &all);

  g_assert_cmpint (end, ==, S (ACTIVE));
  g_assert_cmphex (all, ==, ASK);
}

/* Started, read, then it changes while a second read is on its way: the
 * last read wins and the app is applied from it. */
static void
test_change_during_read_reads_again (void)
{
  const RcUnitEvent events[] = {
    E (LIVE), E (READ_STARTS), E (LIVE), E (READ_STARTING), E (READ_STARTS), E (READ_ACTIVE)
  };
  RcUnitAction all;
  RcUnitState end = run (S (DOWN), events, G_N_ELEMENTS (events), &all);

  g_assert_cmpint (end, ==, S (ACTIVE));
  g_assert_true (all & APPLY);
}

/* A busy systemd: a read fails, is retried, and then succeeds. */
static void
test_failed_read_is_retried (void)
{
  const RcUnitEvent events[] = {
    E (LIVE), E (READ_STARTS), E (READ_FAILED), E (RETRY), E (READ_STARTS), E (READ_ACTIVE)
  };
  RcUnitAction all;
  RcUnitState end = run (S (DOWN), events, G_N_ELEMENTS (events), &all);

  g_assert_cmpint (end, ==, S (ACTIVE));
  g_assert_cmphex (all & (RETRY | APPLY | QUEUE), ==, RETRY | APPLY | QUEUE);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  for (guint i = 0; i < G_N_ELEMENTS (transitions); i++)
    {
      g_autofree char *path = g_strdup_printf ("/unit-tracker/transition/%02u-%s", i,
                                               rc_unit_state_to_string (transitions[i].state));

      g_test_add_data_func (path, &transitions[i], test_transition);
    }
  g_test_add_func ("/unit-tracker/collected-unit-is-never-read", test_collected_unit_is_never_read);
  g_test_add_func ("/unit-tracker/daemon-reload-keeps-the-app", test_daemon_reload_keeps_the_app);
  g_test_add_func ("/unit-tracker/change-during-read-reads-again", test_change_during_read_reads_again);
  g_test_add_func ("/unit-tracker/failed-read-is-retried", test_failed_read_is_retried);
  return g_test_run ();
}
