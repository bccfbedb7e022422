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
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/panel/app/cpu-percent", test_cpu_percent);
  g_test_add_func ("/panel/app/instances-and-changes", test_instances_and_changes);
  g_test_add_func ("/panel/texts", test_texts);
  return g_test_run ();
}
