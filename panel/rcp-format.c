/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "rcp-format.h"

#include "rcp-app.h"
#include "rcp-priority.h"

char *
rcp_format_bytes (guint64     bytes,
                  const char *unlimited)
{
  if (bytes == G_MAXUINT64)
    return g_strdup (unlimited);
  return g_format_size_full (bytes, G_FORMAT_SIZE_IEC_UNITS);
}

char *
rcp_format_usage (guint   n_instances,
                  double  cpu_percent,
                  guint64 memory_current,
                  guint64 memory_max)
{
  g_autofree char *instances = g_strdup_printf (n_instances == 1 ? "%u instance" : "%u instances",
                                                n_instances);
  g_autofree char *cpu = cpu_percent < 0 ? g_strdup ("CPU –")
                                         : g_strdup_printf ("CPU %.0f %%", cpu_percent);
  g_autofree char *used = rcp_format_bytes (memory_current, "?");
  g_autofree char *limit = rcp_format_bytes (memory_max, "no limit");

  return g_strdup_printf ("%s · %s · Memory %s of %s", instances, cpu, used, limit);
}

char *
rcp_format_weight (guint64 weight)
{
  RcpPriority priority = rcp_priority_from_weight (weight);

  return g_strdup_printf ("%s (%" G_GUINT64_FORMAT ")", rcp_priority_to_label (priority), weight);
}

char *
rcp_format_pressure (double percent)
{
  return g_strdup_printf ("%.0f %%", percent);
}

char *
rcp_format_energy (double joules)
{
  double wh = joules / 3600.0;

  /* a light app's day is a few milliwatt-hours (and 99.7 mWh is no "100 mWh") */
  if (wh * 1000 < 99.5)
    return g_strdup_printf ("%.0f mWh", wh * 1000);
  return g_strdup_printf (wh < 10 ? "%.2f Wh" : "%.1f Wh", wh);
}

char *
rcp_format_share (double share)
{
  if (share > 0 && share < 0.005)
    return g_strdup ("< 1 %");
  return g_strdup_printf ("%.0f %%", share * 100);
}

char *
rcp_format_oom_kills (guint64 oom_kills)
{
  return g_strdup_printf (oom_kills == 1 ? "%" G_GUINT64_FORMAT " process stopped for lack of memory"
                                         : "%" G_GUINT64_FORMAT " processes stopped for lack of memory",
                          oom_kills);
}

char *
rcp_format_held (guint held)
{
  g_autoptr(GPtrArray) why = g_ptr_array_new_null_terminated (3, NULL, TRUE);
  g_autofree char *joined = NULL;

  if (held == RCP_HELD_NONE)
    return NULL;
  if (held & RCP_HELD_MEMORY)
    g_ptr_array_add (why, (gpointer) "its memory limit");
  if (held & RCP_HELD_CPU)
    g_ptr_array_add (why, (gpointer) "its CPU limit");
  if (held & RCP_HELD_PRESSURE)
    g_ptr_array_add (why, (gpointer) "waiting for CPU, memory or disk");
  joined = g_strjoinv (", ", (char **) why->pdata);
  return g_strdup_printf ("Held back by its limits: %s", joined);
}

char *
rcp_format_action (const char *kind,
                   const char *key,
                   const char *old_value,
                   const char *new_value)
{
  if (*key != '\0')
    return g_strdup_printf ("%s %s → %s", key, old_value, new_value);
  if (g_str_equal (kind, "freeze"))
    return g_strdup ("Frozen");
  if (g_str_equal (kind, "thaw"))
    return g_strdup ("Resumed");
  if (g_str_equal (kind, "notification"))
    return g_strdup ("Notified");
  return g_strdup (kind);
}

char *
rcp_format_ago (guint64 time_usec,
                gint64  now_usec)
{
  /* a clock set back makes an entry "from the future": just now */
  guint64 seconds = (guint64) now_usec > time_usec ? ((guint64) now_usec - time_usec) / G_USEC_PER_SEC : 0;
  g_autoptr(GDateTime) when = NULL;

  if (seconds < 60)
    return g_strdup ("just now");
  if (seconds < 60 * 60)
    return g_strdup_printf ("%" G_GUINT64_FORMAT " min ago", seconds / 60);
  if (seconds < 24 * 60 * 60)
    return g_strdup_printf ("%" G_GUINT64_FORMAT " h ago", seconds / (60 * 60));
  when = g_date_time_new_from_unix_local ((gint64) MIN (time_usec / G_USEC_PER_SEC, (guint64) G_MAXINT32));
  return when != NULL ? g_date_time_format (when, "%e %b %H:%M") : g_strdup ("long ago");
}
