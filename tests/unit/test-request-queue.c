/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The request queue's ordering rules, as scripts: entries are pushed,
 * learn their units, become ready (authorized) and finish, and after each
 * step the entries started so far are compared with what the rules say.
 * No bus, no polkit, no systemd. */
#include "rc-request-queue.h"
#include "rc-test-util.h"

#include <string.h>

typedef enum {
  PUSH,         /* entry .id of caller .arg */
  PUSH_SYNC,    /* the same, but it finishes inside its start function */
  UNITS,        /* entry .id will change units .arg (space-separated) */
  READY,        /* entry .id is authorized */
  DONE,         /* entry .id finished (or failed before it ran) */
  STARTED,      /* the entries started so far, in order: .arg */
} StepKind;

typedef struct {
  StepKind    kind;
  char        id;
  const char *arg;
} Step;

typedef struct {
  const char *name;
  Step        steps[16];
} Script;

#define END { STARTED, 0, NULL }

static const Script scripts[] = {
  { "one change per unit at a time", {
      { PUSH, 'A', "c1" }, { UNITS, 'A', "u1" }, { READY, 'A', NULL }, { STARTED, 0, "A" },
      { PUSH, 'B', "c2" }, { UNITS, 'B', "u1" }, { READY, 'B', NULL }, { STARTED, 0, "A" },
      { DONE, 'A', NULL }, { STARTED, 0, "AB" }, END
    } },
  { "different units run side by side", {
      { PUSH, 'A', "c1" }, { UNITS, 'A', "u1" }, { READY, 'A', NULL },
      { PUSH, 'B', "c1" }, { UNITS, 'B', "u2" }, { READY, 'B', NULL }, { STARTED, 0, "AB" }, END
    } },
  { "an AppID's instances overlap a unit request", {
      { PUSH, 'A', "c1" }, { UNITS, 'A', "u1 u2" }, { READY, 'A', NULL },
      { PUSH, 'B', "c2" }, { UNITS, 'B', "u2" }, { READY, 'B', NULL },
      { PUSH, 'C', "c3" }, { UNITS, 'C', "u3" }, { READY, 'C', NULL }, { STARTED, 0, "AC" },
      { DONE, 'C', NULL }, { STARTED, 0, "AC" }, { DONE, 'A', NULL }, { STARTED, 0, "ACB" }, END
    } },
  { "a caller's requests run in the order it sent them", {
      { PUSH, 'A', "c1" }, { UNITS, 'A', "u1" },
      { PUSH, 'B', "c1" }, { UNITS, 'B', "u1" }, { READY, 'B', NULL }, { STARTED, 0, "" },
      { READY, 'A', NULL }, { STARTED, 0, "A" }, { DONE, 'A', NULL }, { STARTED, 0, "AB" }, END
    } },
  { "a caller's later request waits while its earlier one's units are unknown", {
      { PUSH, 'A', "c1" },
      { PUSH, 'B', "c1" }, { UNITS, 'B', "u1" }, { READY, 'B', NULL }, { STARTED, 0, "" },
      { UNITS, 'A', "u2" }, { STARTED, 0, "B" }, END
    } },
  { "a caller stuck in a password dialog holds up nobody else", {
      { PUSH, 'A', "c1" }, { UNITS, 'A', "u1" },
      { PUSH, 'B', "c2" }, { UNITS, 'B', "u1" }, { READY, 'B', NULL }, { STARTED, 0, "B" },
      { READY, 'A', NULL }, { STARTED, 0, "B" }, { DONE, 'B', NULL }, { STARTED, 0, "BA" }, END
    } },
  { "a request refused before its turn lets the caller's next one go", {
      { PUSH, 'A', "c1" }, { UNITS, 'A', "u1" },
      { PUSH, 'B', "c1" }, { UNITS, 'B', "u1" }, { READY, 'B', NULL }, { STARTED, 0, "" },
      { DONE, 'A', NULL }, { STARTED, 0, "B" }, END
    } },
  { "authorized requests run in arrival order", {
      { PUSH, 'R', "c3" }, { UNITS, 'R', "u1" }, { READY, 'R', NULL },
      { PUSH, 'A', "c1" }, { UNITS, 'A', "u1" },
      { PUSH, 'B', "c2" }, { UNITS, 'B', "u1" }, { READY, 'B', NULL },
      { READY, 'A', NULL }, { STARTED, 0, "R" },
      { DONE, 'R', NULL }, { STARTED, 0, "RA" }, { DONE, 'A', NULL }, { STARTED, 0, "RAB" }, END
    } },
  { "a rule change and an API request on one unit: one at a time, in order", {
      { PUSH, 'P', "resource-controld policy" }, { UNITS, 'P', "u1" }, { READY, 'P', NULL },
      { PUSH, 'A', ":1.42" }, { UNITS, 'A', "u1" }, { READY, 'A', NULL },
      { PUSH, 'Q', "resource-controld policy" }, { UNITS, 'Q', "u1" }, { READY, 'Q', NULL },
      { STARTED, 0, "P" }, { DONE, 'P', NULL }, { STARTED, 0, "PA" },
      { DONE, 'A', NULL }, { STARTED, 0, "PAQ" }, END
    } },
  { "finishing inside the start function starts the next", {
      { PUSH_SYNC, 'A', "c1" }, { UNITS, 'A', "u1" },
      { PUSH_SYNC, 'B', "c2" }, { UNITS, 'B', "u1" }, { READY, 'B', NULL },
      { READY, 'A', NULL }, { STARTED, 0, "BA" }, END
    } },
};

typedef struct {
  RcRequestQueue *queue;
  GString        *started;
  RcQueued       *queued[128];
  gboolean        sync[128];
} Run;

typedef struct {
  Run *run;
  char id;
} Entry;

static void
start_cb (RcQueued *queued,
          gpointer  user_data)
{
  Entry *entry = user_data;
  Run *run = entry->run;

  g_assert_true (run->queued[(guchar) entry->id] == queued);
  g_string_append_c (run->started, entry->id);
  if (run->sync[(guchar) entry->id])
    {
      run->queued[(guchar) entry->id] = NULL;
      rc_request_queue_done (run->queue, queued);
    }
}

static void
test_script (gconstpointer data)
{
  const Script *script = data;
  Run run = { rc_request_queue_new (), g_string_new (NULL), { NULL, }, { FALSE, } };
  g_autoptr(GPtrArray) entries = g_ptr_array_new_with_free_func (g_free);

  for (const Step *step = script->steps; step->arg != NULL || step->kind != STARTED; step++)
    {
      guchar id = (guchar) step->id;

      switch (step->kind)
        {
        case PUSH:
        case PUSH_SYNC:
          {
            Entry *entry = g_new0 (Entry, 1);

            entry->run = &run;
            entry->id = step->id;
            g_ptr_array_add (entries, entry);
            run.sync[id] = step->kind == PUSH_SYNC;
            run.queued[id] = rc_request_queue_push (run.queue, step->arg, start_cb, entry);
          }
          break;
        case UNITS:
          {
            g_auto(GStrv) units = g_strsplit (step->arg, " ", -1);

            rc_request_queue_set_units (run.queue, run.queued[id], (const char * const *) units,
                                        g_strv_length (units));
          }
          break;
        case READY:
          rc_request_queue_ready (run.queue, run.queued[id]);
          break;
        case DONE:
          rc_request_queue_done (run.queue, run.queued[id]);
          run.queued[id] = NULL;
          break;
        case STARTED:
          g_assert_cmpstr (run.started->str, ==, step->arg);
          break;
        default:
          g_assert_not_reached ();
        }
    }
  /* Whatever was not finished is still queued; finishing it empties the queue. */
  for (guint i = 0; i < G_N_ELEMENTS (run.queued); i++)
    if (run.queued[i] != NULL)
      rc_request_queue_done (run.queue, run.queued[i]);
  g_assert_cmpuint (rc_request_queue_length (run.queue), ==, 0);
  g_string_free (run.started, TRUE);
  g_object_unref (run.queue);
}

/* Many callers and units at random: at no moment do two running entries
 * share a unit, and every entry runs in the end. */
typedef struct {
  RcQueued *queued;
  char      unit[8];
  gboolean  ready;
  gboolean  running;
} RandomEntry;

static void
random_start_cb (RcQueued *queued,
                 gpointer  user_data)
{
  RandomEntry *entry = user_data;

  g_assert_true (entry->queued == queued);
  entry->running = TRUE;
}

static void
test_random (void)
{
  g_autoptr(RcRequestQueue) queue = rc_request_queue_new ();
  g_autoptr(GRand) rand = g_rand_new_with_seed (4711);
  RandomEntry entries[120] = { { NULL, }, };
  guint pushed = 0, finished = 0;

  while (finished < G_N_ELEMENTS (entries))
    {
      guint action = g_rand_int_range (rand, 0, 3);
      RandomEntry *e = pushed > 0 ? &entries[g_rand_int_range (rand, 0, pushed)] : NULL;

      if (action == 0 && pushed < G_N_ELEMENTS (entries))
        {
          g_autofree char *caller = g_strdup_printf ("c%d", g_rand_int_range (rand, 0, 5));
          const char *units[1];

          e = &entries[pushed++];
          g_snprintf (e->unit, sizeof e->unit, "u%d", g_rand_int_range (rand, 0, 4));
          units[0] = e->unit;
          e->queued = rc_request_queue_push (queue, caller, random_start_cb, e);
          rc_request_queue_set_units (queue, e->queued, units, 1);
        }
      else if (action == 1 && e != NULL && e->queued != NULL && !e->ready)
        {
          e->ready = TRUE;
          rc_request_queue_ready (queue, e->queued);
        }
      else if (action == 2 && e != NULL && e->running)
        {
          e->running = FALSE;
          rc_request_queue_done (queue, e->queued);
          e->queued = NULL;
          finished++;
        }
      else if (pushed == G_N_ELEMENTS (entries))
        {
          /* all pushed: make the rest ready so that the run ends */
          for (guint k = 0; k < pushed; k++)
            if (entries[k].queued != NULL && !entries[k].ready)
              {
                entries[k].ready = TRUE;
                rc_request_queue_ready (queue, entries[k].queued);
              }
        }
      for (guint a = 0; a < pushed; a++)
        for (guint b = a + 1; b < pushed; b++)
          if (entries[a].running && entries[b].running)
            g_assert_cmpstr (entries[a].unit, !=, entries[b].unit);
    }
  g_assert_cmpuint (rc_request_queue_length (queue), ==, 0);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  RC_TEST_ADD_CASES ("/request-queue/", scripts, name, test_script);
  g_test_add_func ("/request-queue/random", test_random);
  return g_test_run ();
}
