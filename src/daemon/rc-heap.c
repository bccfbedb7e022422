/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <malloc.h>
#include <sys/prctl.h>

#include "rc-heap.h"

#define TRIM_AFTER_RECORDS 64
#define TRIM_DELAY_SEC 1

/* The heap is the process's, so is its one timer. */
static guint trim_id;

static gboolean
trim_cb (gpointer user_data)
{
  trim_id = 0;
  malloc_trim (0);
  return G_SOURCE_REMOVE;
}

void
rc_heap_trim_after (guint count)
{
  if (count < TRIM_AFTER_RECORDS)
    return;
  g_clear_handle_id (&trim_id, g_source_remove);
  trim_id = g_timeout_add_seconds (TRIM_DELAY_SEC, trim_cb, NULL);
}

void
rc_heap_trim_cancel (void)
{
  g_clear_handle_id (&trim_id, g_source_remove);
}

char *
rc_shared_string (const char *text)
{
  return g_ref_string_new_intern (text);
}

/* A daemon of many small blocks, most of them short-lived (a record is
 * built, sent and freed): memory it does not use must go back to the
 * system. Huge pages work against that: with transparent huge pages on
 * "always", an 8 MiB thread stack or a heap range holding a few live blocks
 * is backed by 2 MiB. A malloc arena per thread keeps the bus thread's
 * freed message buffers in a heap of their own; one arena lets
 * malloc_trim () hand back all of it. */
void
rc_heap_tune (void)
{
  if (prctl (PR_SET_THP_DISABLE, 1, 0, 0, 0) != 0)
    g_debug ("Cannot turn transparent huge pages off: %s", g_strerror (errno));
  mallopt (M_ARENA_MAX, 1);
}
