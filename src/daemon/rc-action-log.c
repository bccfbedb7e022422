/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "rc-action-log.h"
#include "rc-test-hooks.h"
#include "rc-unit-name.h"

#include <string.h>
#include <sys/uio.h>
#include <systemd/sd-journal.h>

#define ACTION_TYPE "(tsssssss)"

struct _RcActionLog {
  GObject         parent_instance;
  GQueue          entries;        /* GVariant (tsssssss), oldest first */
  guint           capacity;
  RcJournalWriter writer;
  gpointer        writer_data;
};

G_DEFINE_TYPE (RcActionLog, rc_action_log, G_TYPE_OBJECT);

enum { SIGNAL_ACTION_TAKEN, N_SIGNALS };
static guint signals[N_SIGNALS];

/* Fixed for good: journalctl MESSAGE_ID=... finds a kind across versions. */
static const struct {
  const char *kind;
  const char *message_id;
} message_ids[] = {
  { RC_ACTION_KIND_RULE, "1691aaf63e32497b89d6bbb391c49a20" },
  { RC_ACTION_KIND_BOOST, "66f53640a3854831af59fc242e65a8ae" },
  { RC_ACTION_KIND_POWER, "c983dd62ece94cf7bd6be1fe3e99e035" },
  { RC_ACTION_KIND_FREEZE, "a5be49de9ea84821abe7d4e948b6bf1f" },
  { RC_ACTION_KIND_THAW, "9333234612d242c6a8459046329627fb" },
  { RC_ACTION_KIND_AUDIO_HOLD, "2b7bd73320394621b4b209ff694ddf5d" },
  { RC_ACTION_KIND_NOTIFICATION, "596bb82e473f41c585a2586cb8126c67" },
  { RC_ACTION_KIND_PAUSE, "a32e2db4ece84ae78a42c71456ff1ffd" },
  { RC_ACTION_KIND_GUARD, "13b96c505f0e4138a82b3e303fdb4d8c" },
};

const char *
rc_action_message_id (const char *kind)
{
  for (gsize i = 0; i < G_N_ELEMENTS (message_ids); i++)
    if (g_str_equal (kind, message_ids[i].kind))
      return message_ids[i].message_id;
  return NULL;
}

GStrv
rc_action_journal_fields (GVariant *action)
{
  GPtrArray *fields = g_ptr_array_new ();
  const char *unit, *app_id, *kind, *key, *old_value, *new_value, *reason;
  const char *message_id;
  guint64 time_usec;

  g_variant_get (action, "(t&s&s&s&s&s&s&s)", &time_usec, &unit, &app_id, &kind, &key,
                 &old_value, &new_value, &reason);
  message_id = rc_action_message_id (kind);
  if (message_id != NULL)
    g_ptr_array_add (fields, g_strconcat ("MESSAGE_ID=", message_id, NULL));
  if (*key != '\0')
    g_ptr_array_add (fields, g_strdup_printf ("MESSAGE=%s: %s %s -> %s (%s)", unit, key,
                                              old_value, new_value, reason));
  else
    g_ptr_array_add (fields, g_strdup_printf ("MESSAGE=%s: %s (%s)", unit, kind, reason));
  g_ptr_array_add (fields, g_strconcat ("RC_UNIT=", unit, NULL));
  g_ptr_array_add (fields, g_strconcat ("RC_APP=", app_id, NULL));
  g_ptr_array_add (fields, g_strconcat ("RC_KIND=", kind, NULL));
  g_ptr_array_add (fields, g_strconcat ("RC_KEY=", key, NULL));
  g_ptr_array_add (fields, g_strconcat ("RC_OLD=", old_value, NULL));
  g_ptr_array_add (fields, g_strconcat ("RC_NEW=", new_value, NULL));
  g_ptr_array_add (fields, g_strconcat ("RC_REASON=", reason, NULL));
  g_ptr_array_add (fields, g_strdup ("PRIORITY=6"));
  g_ptr_array_add (fields, NULL);
  return (GStrv) g_ptr_array_free (fields, FALSE);
}

/* The real writer. Without a journal (the host tests) sd_journal_sendv
 * fails, and the ring still has the entry: nothing to say. */
static void
journal_write (const char * const *fields,
               gpointer            user_data)
{
  guint n = g_strv_length ((char **) fields);
  struct iovec *iov = g_new0 (struct iovec, n);

  for (guint i = 0; i < n; i++)
    {
      iov[i].iov_base = (void *) fields[i];
      iov[i].iov_len = strlen (fields[i]);
    }
  sd_journal_sendv (iov, n);
  g_free (iov);
}

char *
rc_action_format_limit (RcLimit limit,
                        guint64 value)
{
  RcLimits one = { 0, };
  g_autoptr(GVariant) changes = NULL;
  g_autoptr(GVariant) variant = NULL;
  char *text = NULL;

  rc_limits_set (&one, limit, value);
  changes = g_variant_ref_sink (rc_limits_to_app_changes (&one));
  variant = g_variant_lookup_value (changes, rc_limit_key (limit), NULL);
  if (variant != NULL)
    text = rc_limit_format_value (limit, variant);
  return text != NULL ? text : g_strdup_printf ("%" G_GUINT64_FORMAT, value);
}

RcActionLog *
rc_action_log_new (guint capacity)
{
  RcActionLog *self = g_object_new (RC_TYPE_ACTION_LOG, NULL);
  /* the tests make it small, to fill it */
  const char *size = rc_test_hook ("RESOURCE_CONTROL_ACTION_LOG_SIZE");

  if (capacity == 0 && size != NULL)
    capacity = (guint) g_ascii_strtoull (size, NULL, 10);
  self->capacity = capacity > 0 ? capacity : RC_ACTION_LOG_SIZE;
  return self;
}

void
rc_action_log_set_journal_writer (RcActionLog    *self,
                                  RcJournalWriter writer,
                                  gpointer        user_data)
{
  self->writer = writer;
  self->writer_data = user_data;
}

void
rc_action_log_add (RcActionLog *self,
                   const char  *unit,
                   const char  *app_id,
                   const char  *kind,
                   const char  *key,
                   const char  *old_value,
                   const char  *new_value,
                   const char  *reason)
{
  GVariant *action = g_variant_ref_sink (g_variant_new (ACTION_TYPE, (guint64) g_get_real_time (),
                                                        unit, app_id, kind, key, old_value,
                                                        new_value, reason));
  g_auto(GStrv) fields = rc_action_journal_fields (action);

  /* kept serialised: one block per entry rather than a tree of nine */
  g_variant_get_data (action);
  g_debug ("Action: %s", fields[1] + strlen ("MESSAGE="));
  self->writer ((const char * const *) fields, self->writer_data);
  g_queue_push_tail (&self->entries, action);
  while (self->entries.length > self->capacity)
    g_variant_unref (g_queue_pop_head (&self->entries));
  g_signal_emit (self, signals[SIGNAL_ACTION_TAKEN], 0, action);
}

void
rc_action_log_add_limit (RcActionLog *self,
                         RcApp       *app,
                         const char  *kind,
                         RcLimit      limit,
                         guint64      old_value,
                         guint64      new_value,
                         const char  *reason)
{
  g_autofree char *old_text = rc_action_format_limit (limit, old_value);
  g_autofree char *new_text = rc_action_format_limit (limit, new_value);

  rc_action_log_add (self, app->unit, app->app_id, kind, rc_limit_key (limit), old_text, new_text,
                     reason);
}

void
rc_action_log_add_diff (RcActionLog            *self,
                        RcApp                  *app,
                        const RcLimits         *applied,
                        const RcLimits         *defaults,
                        const RcLimits         *diff,
                        const RcActionTriggers *why)
{
  for (RcLimit limit = 0; limit < RC_N_LIMITS; limit++)
    {
      guint64 old_value = rc_limits_has (applied, limit) ? applied->values[limit] :
                          defaults->values[limit];
      const char *kind = why->kind, *reason = why->reason;

      if (!rc_limits_has (diff, limit))
        continue;
      if (why->boost != NULL && rc_limits_has (why->boost, limit))
        kind = RC_ACTION_KIND_BOOST, reason = why->focus;
      else if (why->audio_moved && (limit == RC_LIMIT_CPU_WEIGHT || limit == RC_LIMIT_CPU_QUOTA))
        kind = RC_ACTION_KIND_AUDIO_HOLD,
        reason = why->audio ? "playing audio" : "no longer playing audio";
      else if (why->guard != NULL && limit == RC_LIMIT_CPU_WEIGHT)
        kind = RC_ACTION_KIND_GUARD, reason = why->guard;
      rc_action_log_add_limit (self, app, kind, limit, old_value, diff->values[limit], reason);
    }
}

char *
rc_action_power_reason (const char *profile,
                        gboolean    on_battery)
{
  if (g_strcmp0 (profile, "power-saver") == 0)
    return g_strdup ("power profile power-saver");
  if (on_battery)
    return g_strdup ("on battery");
  if (profile != NULL && *profile != '\0')
    return g_strdup_printf ("power profile %s, on AC power", profile);
  return g_strdup ("on AC power");
}

GVariant *
rc_action_log_get (RcActionLog *self,
                   const char  *app,
                   guint64      since_usec)
{
  g_auto(GVariantBuilder) builder = G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE ("a" ACTION_TYPE));

  for (GList *l = self->entries.head; l != NULL; l = l->next)
    {
      const char *unit, *app_id;
      guint64 time_usec;

      g_variant_get (l->data, "(t&s&s&s&s&s&s&s)", &time_usec, &unit, &app_id, NULL, NULL, NULL,
                     NULL, NULL);
      if (time_usec < since_usec)
        continue;
      if (*app != '\0' && !g_str_equal (app, app_id) && !g_str_equal (app, unit))
        continue;
      g_variant_builder_add_value (&builder, l->data);
    }
  return g_variant_builder_end (&builder);
}

static gboolean
handle_get_actions (RcDBusResourceControl *object,
                    GDBusMethodInvocation *invocation,
                    const char            *app,
                    guint64                since_usec,
                    RcActionLog           *self)
{
  GError *error = NULL;

  if (*app != '\0' && !rc_unit_name_check_app_argument (app, &error))
    {
      g_dbus_method_invocation_return_gerror (invocation, error);
      g_error_free (error);
      return G_DBUS_METHOD_INVOCATION_HANDLED;
    }
  rc_dbus_resource_control_complete_get_actions (object, invocation,
                                                 rc_action_log_get (self, app, since_usec));
  return G_DBUS_METHOD_INVOCATION_HANDLED;
}

static void
action_taken_cb (RcActionLog           *self,
                 GVariant              *action,
                 RcDBusResourceControl *object)
{
  guint64 time_usec;
  const char *unit, *app_id, *kind, *key, *old_value, *new_value, *reason;

  g_variant_get (action, "(t&s&s&s&s&s&s&s)", &time_usec, &unit, &app_id, &kind, &key,
                 &old_value, &new_value, &reason);
  rc_dbus_resource_control_emit_action_taken (object, time_usec, unit, app_id, kind, key,
                                              old_value, new_value, reason);
}

void
rc_action_log_serve (RcActionLog           *self,
                     RcDBusResourceControl *object)
{
  g_signal_connect_object (object, "handle-get-actions", G_CALLBACK (handle_get_actions), self,
                           0);
  g_signal_connect_object (self, "action-taken", G_CALLBACK (action_taken_cb), object, 0);
}

static void
rc_action_log_finalize (GObject *object)
{
  RcActionLog *self = RC_ACTION_LOG (object);

  g_queue_clear_full (&self->entries, (GDestroyNotify) g_variant_unref);
  G_OBJECT_CLASS (rc_action_log_parent_class)->finalize (object);
}

static void
rc_action_log_class_init (RcActionLogClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = rc_action_log_finalize;
  signals[SIGNAL_ACTION_TAKEN] = g_signal_new ("action-taken", G_TYPE_FROM_CLASS (klass),
                                               G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                               G_TYPE_NONE, 1, G_TYPE_VARIANT);
}

static void
rc_action_log_init (RcActionLog *self)
{
  g_queue_init (&self->entries);
  self->writer = journal_write;
}
