/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The settings panel's model of an app (panel/rcp-app.c) and its texts
 * (panel/rcp-format.c, panel/rcp-priority.c): no GTK, no bus. */
#include <gio/gio.h>

#include "rcp-app.h"
#include "rcp-format.h"
#include "rcp-priority.h"

static GVariant *
record (const char *unit,
        guint64     usage_nsec,
        guint64     memory_current,
        const char *freezer)
{
  GVariantDict dict;

  g_variant_dict_init (&dict, NULL);
  g_variant_dict_insert (&dict, "Unit", "s", unit);
  g_variant_dict_insert (&dict, "AppId", "s", "org.example.Editor");
  g_variant_dict_insert (&dict, "Name", "s", "Test Editor");
  g_variant_dict_insert (&dict, "CPUWeight", "t", (guint64) 100);
  g_variant_dict_insert (&dict, "MemoryMax", "t", G_MAXUINT64);
  g_variant_dict_insert (&dict, "MemoryCurrent", "t", memory_current);
  g_variant_dict_insert (&dict, "CPUUsageNSec", "t", usage_nsec);
  g_variant_dict_insert (&dict, "FreezerState", "s", freezer);
  return g_variant_dict_end (&dict);
}

static void
count_changed (RcpApp *app,
               guint  *count)
{
  (*count)++;
}

/* CPU percent of one CPU from CPUUsageNSec deltas over the time between
 * two samples, summed over the instances; none before the second sample. */
static void
test_cpu_percent (void)
{
  g_autoptr(RcpApp) app = rcp_app_new ("org.example.Editor");
  const gint64 s = G_USEC_PER_SEC;
  guint len;

  rcp_app_update_instance (app, record ("a.scope", 1000000000, 0, "running"));
  rcp_app_update_instance (app, record ("b.scope", 0, 0, "running"));
  rcp_app_sample (app, 10 * s);
  g_assert_cmpfloat (rcp_app_get_cpu_percent (app), ==, -1);

  /* 2 s later: a used 0.5 s, b 0.2 s: 35 % */
  rcp_app_update_instance (app, record ("a.scope", 1500000000, 0, "running"));
  rcp_app_update_instance (app, record ("b.scope", 200000000, 0, "running"));
  rcp_app_sample (app, 12 * s);
  g_assert_cmpfloat_with_epsilon (rcp_app_get_cpu_percent (app), 35.0, 0.001);

  /* a new instance counts from its second sample on, not with its total */
  rcp_app_update_instance (app, record ("c.scope", 900000000000, 0, "running"));
  rcp_app_sample (app, 14 * s);
  g_assert_cmpfloat_with_epsilon (rcp_app_get_cpu_percent (app), 0.0, 0.001);
  rcp_app_update_instance (app, record ("c.scope", 902000000000, 0, "running"));
  rcp_app_sample (app, 16 * s);
  g_assert_cmpfloat_with_epsilon (rcp_app_get_cpu_percent (app), 100.0, 0.001);

  rcp_app_get_history (app, &len);
  g_assert_cmpuint (len, ==, 3);
  for (guint i = 0; i < 2 * RCP_APP_HISTORY; i++)
    rcp_app_sample (app, (17 + i) * s);
  rcp_app_get_history (app, &len);
  g_assert_cmpuint (len, ==, RCP_APP_HISTORY);
}

static void
test_instances_and_changes (void)
{
  g_autoptr(RcpApp) app = rcp_app_new ("org.example.Editor");
  g_autoptr(GHashTable) keep = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr(GVariant) changed = NULL;
  GVariantDict dict;
  guint changes = 0;

  g_signal_connect (app, "changed", G_CALLBACK (count_changed), &changes);
  rcp_app_update_instance (app, record ("b.scope", 0, 10 * RCP_MIB, "running"));
  rcp_app_update_instance (app, record ("a.scope", 0, 20 * RCP_MIB, "frozen"));
  g_assert_cmpuint (changes, ==, 2);
  g_assert_cmpuint (rcp_app_get_n_instances (app), ==, 2);
  g_assert_cmpstr (rcp_app_get_first_unit (app), ==, "a.scope");
  g_assert_cmpstr (rcp_app_get_name (app), ==, "Test Editor");
  g_assert_cmpuint (rcp_app_get_memory_current (app), ==, 30 * RCP_MIB);
  /* frozen only when every instance is */
  g_assert_false (rcp_app_get_frozen (app));

  /* AppChanged: only the keys it carries change */
  g_variant_dict_init (&dict, NULL);
  g_variant_dict_insert (&dict, "FreezerState", "s", "frozen");
  g_variant_dict_insert (&dict, "CPUWeight", "t", (guint64) 300);
  changed = g_variant_ref_sink (g_variant_dict_end (&dict));
  g_assert_true (rcp_app_apply_changes (app, "b.scope", changed));
  g_assert_false (rcp_app_apply_changes (app, "nonexistent.scope", changed));
  g_assert_true (rcp_app_get_frozen (app));
  g_assert_cmpuint (rcp_app_get_memory_current (app), ==, 30 * RCP_MIB);
  /* limits are the first instance's: a.scope still has 100 */
  g_assert_cmpuint (rcp_app_get_uint64 (app, "CPUWeight", 0), ==, 100);

  g_hash_table_add (keep, (gpointer) "b.scope");
  rcp_app_retain_instances (app, keep);
  g_assert_cmpuint (rcp_app_get_n_instances (app), ==, 1);
  g_assert_cmpuint (rcp_app_get_uint64 (app, "CPUWeight", 0), ==, 300);
  g_assert_true (rcp_app_remove_instance (app, "b.scope"));
  g_assert_false (rcp_app_remove_instance (app, "b.scope"));
  g_assert_cmpuint (rcp_app_get_n_instances (app), ==, 0);
  g_assert_cmpstr (rcp_app_get_name (app), ==, "org.example.Editor");
}

/* A record with what the limits do; a negative pressure or high is left
 * out, as the daemon leaves out a key whose file the kernel lacks. */
static GVariant *
limits_record (const char *unit,
               gint64      high,
               guint64     oom_kill,
               guint64     throttled_usec,
               double      cpu_pressure,
               double      memory_pressure)
{
  g_autoptr(GVariant) base = g_variant_ref_sink (record (unit, 0, 0, "running"));
  GVariantDict dict;

  g_variant_dict_init (&dict, base);
  if (high >= 0)
    {
      GVariantBuilder events;

      g_variant_builder_init (&events, G_VARIANT_TYPE ("a{st}"));
      g_variant_builder_add (&events, "{st}", "low", (guint64) 0);
      g_variant_builder_add (&events, "{st}", "high", (guint64) high);
      g_variant_builder_add (&events, "{st}", "max", (guint64) 0);
      g_variant_builder_add (&events, "{st}", "oom_kill", oom_kill);
      g_variant_dict_insert (&dict, "MemoryEvents", "a{st}", &events);
    }
  g_variant_dict_insert (&dict, "CPUThrottledUSec", "t", throttled_usec);
  if (cpu_pressure >= 0)
    g_variant_dict_insert (&dict, "CPUPressure", "d", cpu_pressure);
  if (memory_pressure >= 0)
    g_variant_dict_insert (&dict, "MemoryPressure", "d", memory_pressure);
  return g_variant_dict_end (&dict);
}

/* Held back: a rise of memory.events high/max or of CPUThrottledUSec
 * between two samples marks the app for RCP_APP_HELD_USEC; a pressure at
 * or above RCP_APP_PRESSURE_NOTABLE marks it while it lasts. One step: an
 * instance's record (none when @unit is NULL; @remove drops it instead),
 * then a sample at @now seconds, then what the app says. */
static void
test_held_back (void)
{
  static const struct
  {
    const char *unit;
    gboolean    remove;
    gint64      high;
    guint64     throttled;
    double      cpu_pressure;
    double      memory_pressure;
    double      now;
    RcpHeld     held;
    gboolean    memory_limited;
  } steps[] = {
    /* the first sample has nothing to compare with: old counts are no rise */
    { "a.scope", FALSE, 5, 1000, 0.5, 0.5, 10, RCP_HELD_NONE, FALSE },
    /* high rises: memory */
    { "a.scope", FALSE, 6, 1000, 0.5, 0.5, 12, RCP_HELD_MEMORY, TRUE },
    /* throttled time rises too: both, and the memory mark lasts */
    { "a.scope", FALSE, 6, 5000, 0.5, 0.5, 14, RCP_HELD_MEMORY | RCP_HELD_CPU, TRUE },
    /* nothing rises for RCP_APP_HELD_USEC (10 s): no mark */
    { NULL, FALSE, 0, 0, 0, 0, 24, RCP_HELD_NONE, FALSE },
    /* high was hit once and the memory pressure is notable: slowed down
     * by its memory limit; any notable pressure marks the app */
    { "a.scope", FALSE, 6, 5000, 0.5, RCP_APP_PRESSURE_NOTABLE, 40, RCP_HELD_PRESSURE, TRUE },
    { "a.scope", FALSE, 6, 5000, 25.0, 1.0, 42, RCP_HELD_PRESSURE, FALSE },
    /* a second instance arriving with counts of its own: the sums grew */
    { "b.scope", FALSE, 1, 0, 3.0, 0.0, 60, RCP_HELD_MEMORY | RCP_HELD_PRESSURE, TRUE },
    { NULL, FALSE, 0, 0, 0, 0, 80, RCP_HELD_PRESSURE, FALSE },
    /* an instance going away makes the sums drop: no rise */
    { "a.scope", TRUE, 0, 0, 0, 0, 82, RCP_HELD_NONE, FALSE },
  };
  g_autoptr(RcpApp) app = rcp_app_new ("org.example.Editor");

  for (guint i = 0; i < G_N_ELEMENTS (steps); i++)
    {
      g_test_message ("step %u", i);
      if (steps[i].remove)
        rcp_app_remove_instance (app, steps[i].unit);
      else if (steps[i].unit != NULL)
        rcp_app_update_instance (app, limits_record (steps[i].unit, steps[i].high, 2, steps[i].throttled,
                                                     steps[i].cpu_pressure, steps[i].memory_pressure));
      rcp_app_sample (app, (gint64) (steps[i].now * G_USEC_PER_SEC));
      g_assert_cmpint (rcp_app_get_held (app), ==, steps[i].held);
      g_assert_cmpint (rcp_app_get_memory_limited (app), ==, steps[i].memory_limited);
    }
}

/* Several instances: the counters summed, each pressure the highest. */
static void
test_limit_figures_of_instances (void)
{
  g_autoptr(RcpApp) app = rcp_app_new ("org.example.Editor");
  guint64 value = 0;
  double percent = 0;

  rcp_app_update_instance (app, limits_record ("a.scope", 6, 2, 5000, 25.0, 1.0));
  rcp_app_update_instance (app, limits_record ("b.scope", 1, 1, 0, 3.0, 0.0));
  g_assert_true (rcp_app_get_memory_event (app, "high", &value));
  g_assert_cmpuint (value, ==, 7);
  g_assert_true (rcp_app_get_memory_event (app, "oom_kill", &value));
  g_assert_cmpuint (value, ==, 3);
  g_assert_true (rcp_app_get_pressure (app, "CPUPressure", &percent));
  g_assert_cmpfloat (percent, ==, 25.0);
  g_assert_true (rcp_app_get_pressure (app, "MemoryPressure", &percent));
  g_assert_cmpfloat (percent, ==, 1.0);
}

/* No MemoryEvents or pressure keys (cgroup v1, no PSI): no figures, not 0. */
static void
test_held_back_without_figures (void)
{
  g_autoptr(RcpApp) app = rcp_app_new ("org.example.Editor");
  guint64 value = 42;
  double percent = 42;

  rcp_app_update_instance (app, limits_record ("a.scope", -1, 0, 0, -1, -1));
  rcp_app_sample (app, G_USEC_PER_SEC);
  rcp_app_sample (app, 3 * G_USEC_PER_SEC);
  g_assert_false (rcp_app_get_memory_event (app, "oom_kill", &value));
  g_assert_cmpuint (value, ==, 42);
  g_assert_false (rcp_app_get_pressure (app, "CPUPressure", &percent));
  g_assert_false (rcp_app_get_pressure (app, "IOPressure", &percent));
  g_assert_cmpfloat (percent, ==, 42);
  g_assert_cmpint (rcp_app_get_held (app), ==, RCP_HELD_NONE);
  g_assert_false (rcp_app_get_memory_limited (app));
}

static void
test_texts (void)
{
  static const struct
  {
    guint64     weight;
    RcpPriority priority;
    const char *text;
  } weights[] = {
    { 50, RCP_PRIORITY_LOW, "Low (50)" },
    { 100, RCP_PRIORITY_NORMAL, "Normal (100)" },
    { 300, RCP_PRIORITY_HIGH, "High (300)" },
    { 250, RCP_PRIORITY_CUSTOM, "Custom (250)" },
    { 1, RCP_PRIORITY_CUSTOM, "Custom (1)" },
  };
  g_autofree char *usage = NULL;
  g_autofree char *usage2 = NULL;
  g_autofree char *max = NULL;
  g_autofree char *pressure = NULL;
  g_autofree char *kills = NULL;
  g_autofree char *kills2 = NULL;
  g_autofree char *held = NULL;

  for (guint i = 0; i < G_N_ELEMENTS (weights); i++)
    {
      g_autofree char *text = rcp_format_weight (weights[i].weight);

      g_assert_cmpint (rcp_priority_from_weight (weights[i].weight), ==, weights[i].priority);
      g_assert_cmpstr (text, ==, weights[i].text);
    }
  for (guint i = 0; i < RCP_N_PRESETS; i++)
    g_assert_cmpint (rcp_priority_from_weight (rcp_priority_to_weight (i)), ==, i);

  usage = rcp_format_usage (1, -1, 50 * RCP_MIB, G_MAXUINT64);
  g_assert_cmpstr (usage, ==, "1 instance · CPU – · Memory 50.0\u00a0MiB of no limit");
  usage2 = rcp_format_usage (2, 12.4, 200 * RCP_MIB, 100 * RCP_MIB);
  g_assert_cmpstr (usage2, ==, "2 instances · CPU 12 % · Memory 200.0\u00a0MiB of 100.0\u00a0MiB");
  max = rcp_format_bytes (G_MAXUINT64, "none");
  g_assert_cmpstr (max, ==, "none");

  pressure = rcp_format_pressure (12.0);
  g_assert_cmpstr (pressure, ==, "12 %");
  kills = rcp_format_oom_kills (1);
  g_assert_cmpstr (kills, ==, "1 process stopped for lack of memory");
  kills2 = rcp_format_oom_kills (3);
  g_assert_cmpstr (kills2, ==, "3 processes stopped for lack of memory");
  g_assert_null (rcp_format_held (RCP_HELD_NONE));
  held = rcp_format_held (RCP_HELD_MEMORY | RCP_HELD_CPU);
  g_assert_cmpstr (held, ==, "Held back by its limits: its memory limit, its CPU limit");
}

/* The rows of "Recent changes": what an action did, and when. */
static void
test_action_texts (void)
{
  static const struct
  {
    const char *kind, *key, *old_value, *new_value, *text;
  } actions[] = {
    { "rule", "CPUWeight", "100", "50", "CPUWeight 100 → 50" },
    { "boost", "CPUWeight", "50", "300", "CPUWeight 50 → 300" },
    { "freeze", "", "", "", "Frozen" },
    { "thaw", "", "", "", "Resumed" },
    { "notification", "", "", "", "Notified" },
    { "some-later-kind", "", "", "", "some-later-kind" },
  };
  static const struct
  {
    gint64      seconds_ago;
    const char *text;
  } ages[] = {
    { -30, "just now" },   /* the clock went back */
    { 0, "just now" },
    { 59, "just now" },
    { 60, "1 min ago" },
    { 59 * 60 + 59, "59 min ago" },
    { 60 * 60, "1 h ago" },
    { 23 * 60 * 60, "23 h ago" },
  };
  gint64 now = G_GINT64_CONSTANT (1800000000) * G_USEC_PER_SEC;
  g_autoptr(GDateTime) old = g_date_time_new_from_unix_local (now / G_USEC_PER_SEC - 2 * 24 * 60 * 60);
  g_autofree char *expected_old = g_date_time_format (old, "%e %b %H:%M");
  g_autofree char *two_days = rcp_format_ago ((guint64) (now - (gint64) 2 * 24 * 60 * 60 * G_USEC_PER_SEC), now);

  for (guint i = 0; i < G_N_ELEMENTS (actions); i++)
    {
      g_autofree char *text = rcp_format_action (actions[i].kind, actions[i].key,
                                                 actions[i].old_value, actions[i].new_value);

      g_assert_cmpstr (text, ==, actions[i].text);
    }
  for (guint i = 0; i < G_N_ELEMENTS (ages); i++)
    {
      g_autofree char *text = rcp_format_ago ((guint64) (now - ages[i].seconds_ago * G_USEC_PER_SEC), now);

      g_assert_cmpstr (text, ==, ages[i].text);
    }
  /* older than a day: the date */
  g_assert_cmpstr (two_days, ==, expected_old);
}

static void
test_energy_texts (void)
{
  static const struct
  {
    double      joules;
    const char *text;
  } energies[] = {
    { 0, "0 mWh" },
    { 36, "10 mWh" },
    { 358, "99 mWh" },
    { 359, "0.10 Wh" },       /* 99.7 mWh: no "100 mWh" */
    { 360, "0.10 Wh" },
    { 12240, "3.40 Wh" },
    { 90000, "25.0 Wh" },
  };
  static const struct
  {
    double      share;
    const char *text;
  } shares[] = {
    { 0, "0 %" },
    { 0.001, "< 1 %" },
    { 0.3, "30 %" },
    { 1, "100 %" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (energies); i++)
    {
      g_autofree char *text = rcp_format_energy (energies[i].joules);

      g_assert_cmpstr (text, ==, energies[i].text);
    }
  for (guint i = 0; i < G_N_ELEMENTS (shares); i++)
    {
      g_autofree char *text = rcp_format_share (shares[i].share);

      g_assert_cmpstr (text, ==, shares[i].text);
    }
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/panel/app/cpu-percent", test_cpu_percent);
  g_test_add_func ("/panel/app/instances-and-changes", test_instances_and_changes);
  g_test_add_func ("/panel/app/held-back", test_held_back);
  g_test_add_func ("/panel/app/limit-figures-of-instances", test_limit_figures_of_instances);
  g_test_add_func ("/panel/app/held-back-without-figures", test_held_back_without_figures);
  g_test_add_func ("/panel/texts", test_texts);
  g_test_add_func ("/panel/action-texts", test_action_texts);
  g_test_add_func ("/panel/energy-texts", test_energy_texts);
  return g_test_run ();
}
