/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The action record without a bus: the ring's bound and filters, the
 * journal fields each entry sends (through a writer the test puts in place
 * of journald), the wording of values and power reasons. */
#include "rc-action-log.h"

#include <string.h>

/* What the writer saw: one string per entry, the fields joined by '\n'. */
static void
capture_writer (const char * const *fields,
                gpointer            user_data)
{
  g_ptr_array_add (user_data, g_strjoinv ("\n", (char **) fields));
}

static RcActionLog *
new_log (guint      capacity,
         GPtrArray *sent)
{
  RcActionLog *log = rc_action_log_new (capacity);

  rc_action_log_set_journal_writer (log, capture_writer, sent);
  return log;
}

static void
add (RcActionLog *log,
     const char  *unit,
     const char  *app_id,
     const char  *new_value)
{
  rc_action_log_add (log, unit, app_id, RC_ACTION_KIND_BOOST, "CPUWeight", "100", new_value,
                     "focus from sway");
}

static GPtrArray *
new_values (GVariant *actions)
{
  GPtrArray *values = g_ptr_array_new_with_free_func (g_free);
  GVariantIter iter;
  const char *new_value;

  g_variant_iter_init (&iter, actions);
  while (g_variant_iter_next (&iter, "(t&s&s&s&s&s&s&s)", NULL, NULL, NULL, NULL, NULL, NULL,
                              &new_value, NULL))
    g_ptr_array_add (values, g_strdup (new_value));
  g_ptr_array_add (values, NULL);
  return values;
}

static char *
joined (GVariant *actions)
{
  g_autoptr(GVariant) owned = g_variant_ref_sink (actions);
  g_autoptr(GPtrArray) values = new_values (owned);

  return g_strjoinv (" ", (char **) values->pdata);
}

static void
test_the_ring_drops_the_oldest (void)
{
  g_autoptr(GPtrArray) sent = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(RcActionLog) log = new_log (3, sent);
  g_autofree char *all = NULL;

  for (int i = 1; i <= 5; i++)
    {
      g_autofree char *value = g_strdup_printf ("%d", i);

      add (log, "app-a-org.example.A-1.scope", "org.example.A", value);
    }
  all = joined (rc_action_log_get (log, "", 0));
  g_assert_cmpstr (all, ==, "3 4 5");
  /* every entry went to the journal, dropped or not */
  g_assert_cmpuint (sent->len, ==, 5);
}

static void
test_the_default_bound (void)
{
  g_autoptr(GPtrArray) sent = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(RcActionLog) log = new_log (0, sent);
  g_autoptr(GVariant) actions = NULL;

  for (int i = 0; i < RC_ACTION_LOG_SIZE + 10; i++)
    add (log, "app-a-org.example.A-1.scope", "org.example.A", "300");
  actions = g_variant_ref_sink (rc_action_log_get (log, "", 0));
  g_assert_cmpuint (g_variant_n_children (actions), ==, RC_ACTION_LOG_SIZE);
}

/* Entries share their strings: seven fields repeated over the ring are
 * seven strings, and a string goes when the last entry that used it does. */
static void
test_strings_are_shared (void)
{
  g_autoptr(GPtrArray) sent = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(RcActionLog) log = new_log (3, sent);
  g_autofree char *all = NULL;

  g_assert_cmpuint (rc_action_log_count_strings (log), ==, 0);
  for (int i = 0; i < 3; i++)
    add (log, "app-a-org.example.A-1.scope", "org.example.A", "300");
  /* unit, AppID, "boost", "CPUWeight", "100", "300", the reason */
  g_assert_cmpuint (rc_action_log_count_strings (log), ==, 7);
  add (log, "app-b-org.example.B-2.scope", "org.example.B", "300");
  add (log, "app-b-org.example.B-2.scope", "org.example.B", "300");
  /* one entry of A is left: its unit and AppID stay */
  g_assert_cmpuint (rc_action_log_count_strings (log), ==, 9);
  add (log, "app-b-org.example.B-2.scope", "org.example.B", "200");
  /* A's last entry gone, and its strings with it; "200" came */
  g_assert_cmpuint (rc_action_log_count_strings (log), ==, 8);
  all = joined (rc_action_log_get (log, "org.example.B", 0));
  g_assert_cmpstr (all, ==, "300 300 200");
}

static void
keep_taken (RcActionLog *log,
            GVariant    *action,
            GPtrArray   *taken)
{
  g_ptr_array_add (taken, g_variant_ref (action));
}

/* GetActions' reply, written by hand from the entries, is byte for byte what
 * a GVariantBuilder makes of the tuples ActionTaken gave. */
static void
assert_reply_as_built (RcActionLog *log,
                       GPtrArray   *taken,
                       guint        capacity,
                       const char  *app)
{
  g_auto(GVariantBuilder) builder = G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE ("a(tsssssss)"));
  g_autoptr(GVariant) expected = NULL;
  g_autoptr(GVariant) reply = g_variant_ref_sink (rc_action_log_get (log, app, 0));

  for (guint i = taken->len > capacity ? taken->len - capacity : 0; i < taken->len; i++)
    {
      const char *unit, *app_id;

      g_variant_get (g_ptr_array_index (taken, i), "(t&s&s&s&s&s&s&s)", NULL, &unit, &app_id,
                     NULL, NULL, NULL, NULL, NULL);
      if (*app == '\0' || g_str_equal (app, unit) || g_str_equal (app, app_id))
        g_variant_builder_add_value (&builder, g_ptr_array_index (taken, i));
    }
  expected = g_variant_ref_sink (g_variant_builder_end (&builder));
  g_assert_true (g_variant_is_normal_form (reply));
  g_assert_cmpuint (g_variant_get_size (reply), ==, g_variant_get_size (expected));
  g_assert_cmpmem (g_variant_get_data (reply), g_variant_get_size (reply),
                   g_variant_get_data (expected), g_variant_get_size (expected));
}

static void
test_reply_is_serialised_right (void)
{
  /* framing offsets of 1 byte (three short entries), 2 (a long reason), 4 (the
   * full ring of 1,024 is over 64 KiB) */
  guint capacities[] = { 3, 3, RC_ACTION_LOG_SIZE };
  guint counts[] = { 5, 5, RC_ACTION_LOG_SIZE + 10 };
  guint reason_lengths[] = { 5, 300, 40 };

  for (gsize c = 0; c < G_N_ELEMENTS (capacities); c++)
    {
      g_autoptr(GPtrArray) sent = g_ptr_array_new_with_free_func (g_free);
      g_autoptr(GPtrArray) taken = g_ptr_array_new_with_free_func ((GDestroyNotify) g_variant_unref);
      g_autoptr(RcActionLog) log = new_log (capacities[c], sent);

      g_signal_connect (log, "action-taken", G_CALLBACK (keep_taken), taken);
      assert_reply_as_built (log, taken, capacities[c], "");
      for (guint i = 0; i < counts[c]; i++)
        {
          g_autofree char *value = g_strdup_printf ("%u", i * 7);
          g_autofree char *reason = g_strnfill (reason_lengths[c] + i % 3, 'r');

          rc_action_log_add (log, i % 2 ? "app-a-org.example.A-1.scope" : "app-b-org.example.B-2.scope",
                             i % 2 ? "org.example.A" : "org.example.B", RC_ACTION_KIND_BOOST,
                             i % 5 ? "CPUWeight" : "", "100", value, reason);
        }
      assert_reply_as_built (log, taken, capacities[c], "");
      assert_reply_as_built (log, taken, capacities[c], "org.example.A");
      assert_reply_as_built (log, taken, capacities[c], "app-b-org.example.B-2.scope");
      assert_reply_as_built (log, taken, capacities[c], "org.example.C");
    }
}

static void
test_filters (void)
{
  g_autoptr(GPtrArray) sent = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(RcActionLog) log = new_log (0, sent);
  g_autofree char *by_app = NULL, *by_unit = NULL, *none = NULL, *later = NULL;
  g_autoptr(GVariant) first = NULL;
  guint64 first_time;

  add (log, "app-a-org.example.A-1.scope", "org.example.A", "1");
  add (log, "app-b-org.example.B-2.scope", "org.example.B", "2");
  g_usleep (2000);
  add (log, "app-a-org.example.A-3.scope", "org.example.A", "3");
  by_app = joined (rc_action_log_get (log, "org.example.A", 0));
  g_assert_cmpstr (by_app, ==, "1 3");
  by_unit = joined (rc_action_log_get (log, "app-a-org.example.A-3.scope", 0));
  g_assert_cmpstr (by_unit, ==, "3");
  none = joined (rc_action_log_get (log, "org.example.C", 0));
  g_assert_cmpstr (none, ==, "");
  first = g_variant_ref_sink (rc_action_log_get (log, "", 0));
  g_variant_get_child (first, 1, "(tsssssss)", &first_time, NULL, NULL, NULL, NULL, NULL,
                       NULL, NULL, NULL);
  later = joined (rc_action_log_get (log, "", first_time + 1));
  g_assert_cmpstr (later, ==, "3");
}

static void
test_journal_fields (void)
{
  g_autoptr(GPtrArray) sent = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(RcActionLog) log = new_log (0, sent);

  rc_action_log_add (log, "app-sway-org.example.A-1.scope", "org.example.A", RC_ACTION_KIND_RULE,
                     "CPUWeight", "100", "50",
                     "rule ~/.config/resource-control/rules.d/20-x.conf [org.example.A]");
  rc_action_log_add (log, "app-sway-org.example.A-1.scope", "org.example.A",
                     RC_ACTION_KIND_FREEZE, "", "", "", "inactive for 60 s");
  g_assert_cmpuint (sent->len, ==, 2);
  g_assert_cmpstr (g_ptr_array_index (sent, 0), ==,
                   "MESSAGE_ID=1691aaf63e32497b89d6bbb391c49a20\n"
                   "MESSAGE=app-sway-org.example.A-1.scope: CPUWeight 100 -> 50 "
                   "(rule ~/.config/resource-control/rules.d/20-x.conf [org.example.A])\n"
                   "RC_UNIT=app-sway-org.example.A-1.scope\n"
                   "RC_APP=org.example.A\n"
                   "RC_KIND=rule\n"
                   "RC_KEY=CPUWeight\n"
                   "RC_OLD=100\n"
                   "RC_NEW=50\n"
                   "RC_REASON=rule ~/.config/resource-control/rules.d/20-x.conf [org.example.A]\n"
                   "PRIORITY=6");
  g_assert_cmpstr (g_ptr_array_index (sent, 1), ==,
                   "MESSAGE_ID=a5be49de9ea84821abe7d4e948b6bf1f\n"
                   "MESSAGE=app-sway-org.example.A-1.scope: freeze (inactive for 60 s)\n"
                   "RC_UNIT=app-sway-org.example.A-1.scope\n"
                   "RC_APP=org.example.A\n"
                   "RC_KIND=freeze\n"
                   "RC_KEY=\n"
                   "RC_OLD=\n"
                   "RC_NEW=\n"
                   "RC_REASON=inactive for 60 s\n"
                   "PRIORITY=6");
}

static void
test_message_ids_differ (void)
{
  const char *kinds[] = {
    RC_ACTION_KIND_RULE, RC_ACTION_KIND_BOOST, RC_ACTION_KIND_POWER, RC_ACTION_KIND_FREEZE,
    RC_ACTION_KIND_THAW, RC_ACTION_KIND_AUDIO_HOLD, RC_ACTION_KIND_NOTIFICATION, RC_ACTION_KIND_PAUSE,
    RC_ACTION_KIND_GUARD, RC_ACTION_KIND_LADDER,
  };
  g_autoptr(GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);

  for (gsize i = 0; i < G_N_ELEMENTS (kinds); i++)
    {
      const char *id = rc_action_message_id (kinds[i]);

      g_assert_nonnull (id);
      g_assert_cmpuint (strlen (id), ==, 32);
      g_assert_cmpuint (strspn (id, "0123456789abcdef"), ==, 32);
      g_assert_true (g_hash_table_add (seen, (gpointer) id));
    }
  g_assert_null (rc_action_message_id ("no-such-kind"));
}

static void
test_power_reasons (void)
{
  struct {
    const char *profile;
    gboolean    on_battery;
    const char *reason;
  } cases[] = {
    { "power-saver", TRUE, "power profile power-saver" },
    { "balanced", TRUE, "on battery" },
    { "", TRUE, "on battery" },
    { "balanced", FALSE, "power profile balanced, on AC power" },
    { "", FALSE, "on AC power" },
    { NULL, FALSE, "on AC power" },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *reason = rc_action_power_reason (cases[i].profile, cases[i].on_battery);

      g_assert_cmpstr (reason, ==, cases[i].reason);
    }
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/action-log/ring-drops-oldest", test_the_ring_drops_the_oldest);
  g_test_add_func ("/action-log/default-bound", test_the_default_bound);
  g_test_add_func ("/action-log/strings-are-shared", test_strings_are_shared);
  g_test_add_func ("/action-log/reply-is-serialised-right", test_reply_is_serialised_right);
  g_test_add_func ("/action-log/filters", test_filters);
  g_test_add_func ("/action-log/journal-fields", test_journal_fields);
  g_test_add_func ("/action-log/message-ids-differ", test_message_ids_differ);
  g_test_add_func ("/action-log/power-reasons", test_power_reasons);
  return g_test_run ();
}
