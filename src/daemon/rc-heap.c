/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <malloc.h>

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
