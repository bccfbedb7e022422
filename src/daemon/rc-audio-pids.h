/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <gio/gio.h>
#include <string.h>

#include "rc-proc-reader.h"

/* The sets of pids the audio watches keep: sorted arrays of guint32. */

/* Adds @pid to @pids unless it is there. */
static inline void
rc_audio_pids_add (GArray *pids,
                   guint32 pid)
{
  for (guint i = 0; i < pids->len; i++)
    if (g_array_index (pids, guint32, i) == pid)
      return;
  g_array_append_val (pids, pid);
}

/* Sorts @pids and puts them in *@current (taking them) if they differ from
 * those; TRUE if they did. */
static inline gboolean
rc_audio_pids_replace (GArray **current,
                       GArray  *pids)
{
  g_array_sort (pids, rc_proc_compare_pids);
  if (pids->len == (*current)->len &&
      (pids->len == 0 || memcmp (pids->data, (*current)->data, pids->len * sizeof (guint32)) == 0))
    {
      g_array_unref (pids);
      return FALSE;
    }
  g_array_unref (*current);
  *current = pids;
  return TRUE;
}
