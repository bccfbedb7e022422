/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "rc-action-log.h"
#include "rc-test-hooks.h"
#include "rc-unit-name.h"

#include <string.h>
#include <sys/uio.h>
#include <systemd/sd-journal.h>

#define ACTION_TYPE "(tsssssss)"
#define GVARIANT_ALIGN8(n) (((n) + 7) & ~(gsize) 7)

/* One string the entries share, with how many of their fields point at
 * it; the table holds it while that count is above zero. */
typedef struct {
  guint refs;
  char  text[];
} SharedString;

/* One entry, packed: the strings repeat from entry to entry (a unit, its
 * AppID, the kind, the key, the reason, and values such as "100"), so each
 * field points into the log's table of shared strings rather than owning a
 * copy. 64 bytes an entry in the ring's one array; the GVariant GetActions
 * and ActionTaken give is built only when asked for. */
typedef struct {
  guint64     time_usec;
  const char *unit;
  const char *app_id;
  const char *kind;
  const char *key;
  const char *old_value;
  const char *new_value;
  const char *reason;
} ActionEntry;

struct _RcActionLog {
  GObject         parent_instance;
  ActionEntry    *ring;           /* capacity entries, taken at the first */
  guint           head;           /* the oldest entry */
  guint           length;
  guint           capacity;
  GHashTable     *strings;        /* text -> itself, inside a SharedString */
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
  { RC_ACTION_KIND_LADDER, "58b2df049bee4b1286b6acdac86ac7bc" },
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

/* @text from the table, counted once more; added when new. The table maps
 * each text to its SharedString. */
static const char *
shared_string_acquire (RcActionLog *self,
                       const char  *text)
{
  SharedString *shared = g_hash_table_lookup (self->strings, text);
  gsize size;

  if (shared != NULL)
    {
      shared->refs++;
      return shared->text;
    }
  size = strlen (text) + 1;
  shared = g_malloc (sizeof (SharedString) + size);
  shared->refs = 1;
  memcpy (shared->text, text, size);
  g_hash_table_insert (self->strings, shared->text, shared);
  return shared->text;
}

/* Counts one field fewer pointing at @text; the last one frees it. */
static void
shared_string_release (RcActionLog *self,
                       const char  *text)
{
  SharedString *shared = g_hash_table_lookup (self->strings, text);

  if (shared == NULL || --shared->refs > 0)
    return;
  g_hash_table_remove (self->strings, text);
  g_free (shared);
}

static void
action_entry_clear (RcActionLog *self,
                    ActionEntry *entry)
{
  shared_string_release (self, entry->unit);
  shared_string_release (self, entry->app_id);
  shared_string_release (self, entry->kind);
  shared_string_release (self, entry->key);
  shared_string_release (self, entry->old_value);
  shared_string_release (self, entry->new_value);
  shared_string_release (self, entry->reason);
}

/* The @index-th entry, oldest first. */
static ActionEntry *
ring_entry (RcActionLog *self,
            guint        index)
{
  return &self->ring[(self->head + index) % self->capacity];
}

/* A new slot at the tail; once full, the oldest entry gives up its place. The
 * array is taken whole at the first entry: malloc gives pages only as the ring
 * writes them, where growing it by doubling would leave as much again in freed
 * smaller arrays. */
static ActionEntry *
ring_push (RcActionLog *self)
{
  ActionEntry *slot;

  if (self->ring == NULL)
    self->ring = g_new (ActionEntry, self->capacity);
  if (self->length == self->capacity)
    {
      slot = ring_entry (self, 0);
      action_entry_clear (self, slot);
      self->head = (self->head + 1) % self->capacity;
      return slot;
    }
  self->length++;
  return ring_entry (self, self->length - 1);
}

static GVariant *
action_entry_to_variant (const ActionEntry *entry)
{
  return g_variant_new (ACTION_TYPE, entry->time_usec, entry->unit, entry->app_id, entry->kind,
                        entry->key, entry->old_value, entry->new_value, entry->reason);
}

guint
rc_action_log_count_strings (RcActionLog *self)
{
  return g_hash_table_size (self->strings);
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
  ActionEntry *entry = ring_push (self);
  g_autoptr(GVariant) action = NULL;
  g_auto(GStrv) fields = NULL;

  entry->time_usec = (guint64) g_get_real_time ();
  entry->unit = shared_string_acquire (self, unit);
  entry->app_id = shared_string_acquire (self, app_id);
  entry->kind = shared_string_acquire (self, kind);
  entry->key = shared_string_acquire (self, key);
  entry->old_value = shared_string_acquire (self, old_value);
  entry->new_value = shared_string_acquire (self, new_value);
  entry->reason = shared_string_acquire (self, reason);
  /* the tuple lives only for the journal and the signal */
  action = g_variant_ref_sink (action_entry_to_variant (entry));
  fields = rc_action_journal_fields (action);
  g_debug ("Action: %s", fields[1] + strlen ("MESSAGE="));
  self->writer ((const char * const *) fields, self->writer_data);
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
      else if (why->ladder != NULL && limit == RC_LIMIT_MEMORY_HIGH)
        kind = RC_ACTION_KIND_LADDER, reason = why->ladder;
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

/* GetActions' reply is written here in GVariant's serialised form (see "GVariant
 * Serialisation" in GLib's docs), straight from the entries: one block the size of
 * the reply (some 130 KiB for a full ring), where a builder's tree of nine nodes an
 * entry would take some 1.7 MiB at its peak, which malloc keeps after the reply. */

/* The size of a container of @body bytes and @n framing offsets, the offsets as
 * small as that size allows. */
static gsize
framed_size (gsize body,
             gsize n)
{
  if (body + n <= G_MAXUINT8)
    return body + n;
  if (body + 2 * n <= G_MAXUINT16)
    return body + 2 * n;
  if (body + 4 * n <= G_MAXUINT32)
    return body + 4 * n;
  return body + 8 * n;
}

static guint
offset_size (gsize container_size)
{
  if (container_size > G_MAXUINT32)
    return 8;
  if (container_size > G_MAXUINT16)
    return 4;
  if (container_size > G_MAXUINT8)
    return 2;
  return container_size > 0 ? 1 : 0;
}

static void
write_offset (guint8 *dest,
              gsize   value,
              guint   size)
{
  for (guint i = 0; i < size; i++)
    dest[i] = (guint8) (value >> (8 * i));
}

#define N_ENTRY_STRINGS 7

static void
entry_strings (const ActionEntry *entry,
               const char       **out_strings)
{
  out_strings[0] = entry->unit;
  out_strings[1] = entry->app_id;
  out_strings[2] = entry->kind;
  out_strings[3] = entry->key;
  out_strings[4] = entry->old_value;
  out_strings[5] = entry->new_value;
  out_strings[6] = entry->reason;
}

/* (tsssssss): the time, the strings with their NULs, and the end of every string
 * but the last, from the end backwards. */
static gsize
entry_serialised_size (const ActionEntry *entry)
{
  const char *strings[N_ENTRY_STRINGS];
  gsize body = sizeof (guint64);

  entry_strings (entry, strings);
  for (guint i = 0; i < N_ENTRY_STRINGS; i++)
    body += strlen (strings[i]) + 1;
  return framed_size (body, N_ENTRY_STRINGS - 1);
}

static void
entry_serialise (const ActionEntry *entry,
                 guint8            *dest,
                 gsize              size)
{
  const char *strings[N_ENTRY_STRINGS];
  guint framing = offset_size (size);
  gsize pos = sizeof (guint64), end = size;

  entry_strings (entry, strings);
  memcpy (dest, &entry->time_usec, sizeof (guint64));
  for (guint i = 0; i < N_ENTRY_STRINGS; i++)
    {
      gsize length = strlen (strings[i]) + 1;

      memcpy (dest + pos, strings[i], length);
      pos += length;
      if (i + 1 < N_ENTRY_STRINGS)
        {
          end -= framing;
          write_offset (dest + end, pos, framing);
        }
    }
}

static gboolean
entry_matches (const ActionEntry *entry,
               const char        *app,
               guint64            since_usec)
{
  if (entry->time_usec < since_usec)
    return FALSE;
  return *app == '\0' || g_str_equal (app, entry->app_id) || g_str_equal (app, entry->unit);
}

/* The tuples start 8-aligned (for the t), each followed by its end in the
 * array's framing offsets. */
GVariant *
rc_action_log_get (RcActionLog *self,
                   const char  *app,
                   guint64      since_usec)
{
  gsize body = 0, n = 0, total, pos = 0, offsets;
  g_autoptr(GBytes) bytes = NULL;
  guint framing;
  guint8 *data;

  for (guint i = 0; i < self->length; i++)
    if (entry_matches (ring_entry (self, i), app, since_usec))
      {
        body = GVARIANT_ALIGN8 (body) + entry_serialised_size (ring_entry (self, i));
        n++;
      }
  if (n == 0)
    return g_variant_new_array (G_VARIANT_TYPE (ACTION_TYPE), NULL, 0);
  total = framed_size (body, n);
  framing = offset_size (total);
  data = g_malloc0 (total);
  offsets = body;
  for (guint i = 0; i < self->length; i++)
    {
      const ActionEntry *entry = ring_entry (self, i);
      gsize size;

      if (!entry_matches (entry, app, since_usec))
        continue;
      pos = GVARIANT_ALIGN8 (pos);
      size = entry_serialised_size (entry);
      entry_serialise (entry, data + pos, size);
      pos += size;
      write_offset (data + offsets, pos, framing);
      offsets += framing;
    }
  bytes = g_bytes_new_take (data, total);
  return g_variant_new_from_bytes (G_VARIANT_TYPE ("a" ACTION_TYPE), bytes, FALSE);
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

  for (guint i = 0; i < self->length; i++)
    action_entry_clear (self, ring_entry (self, i));
  g_clear_pointer (&self->ring, g_free);
  g_clear_pointer (&self->strings, g_hash_table_unref);
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
  self->strings = g_hash_table_new (g_str_hash, g_str_equal);
  self->writer = journal_write;
}
