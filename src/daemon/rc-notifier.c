/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "rc-notifier.h"
#include "rc-subscription.h"
#include "rc-names.h"
#include "rc-unit-name.h"

#define CALL_TIMEOUT_MS 10000
/* ids of sent notifications kept for their actions; past this, the oldest
 * go (a server closes them long before) */
#define MAX_SENT 256

typedef struct {
  char        *unit;
  guint32      ids[RC_NOTIFY_N_KINDS];      /* the server's, for replaces_id */
  gint64       sent_us[RC_NOTIFY_N_KINDS];  /* monotonic; 0: never */
  RcHeldSpell  held;        /* by its memory limit */
  RcHeldSpell  cpu_held;    /* by its CPU quota */
  RcDrainSpell drain;
} Instance;

struct _RcNotifier {
  GObject          parent_instance;
  GDBusConnection *connection;
  RcRules         *rules;
  RcActionLog     *actions;
  GCancellable    *cancellable;
  GHashTable      *instances;   /* unit -> Instance */
  GHashTable      *sent;        /* notification id -> unit */
  GQueue           sent_order;  /* ids, oldest first */
  guint            action_id;   /* ActionInvoked subscription, made with the first Notify call */
  guint            closed_id;
  gboolean         told_no_server;
  RcNotifyBudget   budget;
  guint            held_count;  /* notifications over the budget, not yet told */
  guint            held_id;     /* tells them when the budget allows */
  guint32          held_shown;  /* the server's id of the last such notice */
  RcLadderWatch   *ladder;      /* whose MemoryHigh is no limit of the app's own */
};

G_DEFINE_TYPE (RcNotifier, rc_notifier, G_TYPE_OBJECT);

gboolean
rc_held_spell_rise (RcHeldSpell *spell,
                    gint64       now_us)
{
  if (spell->since_us == 0 || now_us - spell->last_rise_us > RC_HELD_BACK_GAP_SEC * G_USEC_PER_SEC)
    spell->since_us = now_us;
  spell->last_rise_us = now_us;
  return now_us - spell->since_us >= RC_HELD_BACK_SUSTAIN_SEC * G_USEC_PER_SEC;
}

gboolean
rc_drain_spell_sample (RcDrainSpell *spell,
                       double        share,
                       gboolean      foreground,
                       gboolean      on_battery,
                       guint         percent,
                       guint         sustain_sec,
                       gint64        now_us)
{
  if (percent == 0 || !on_battery || foreground || share * 100 <= percent)
    {
      spell->since_us = 0;
      spell->told = FALSE;
      return FALSE;
    }
  if (spell->since_us == 0)
    spell->since_us = now_us;
  if (spell->told || now_us - spell->since_us < (gint64) sustain_sec * G_USEC_PER_SEC)
    return FALSE;
  spell->told = TRUE;
  return TRUE;
}

static void
refill (RcNotifyBudget *budget,
        gint64          now_us)
{
  gint64 refill_us = RC_NOTIFY_REFILL_SEC * G_USEC_PER_SEC;
  gint64 earned;

  if (budget->refilled_us == 0)
    {
      budget->tokens = RC_NOTIFY_BURST;
      budget->refilled_us = now_us;
      return;
    }
  earned = (now_us - budget->refilled_us) / refill_us;
  if (earned <= 0)
    return;
  budget->tokens = (guint) MIN ((gint64) RC_NOTIFY_BURST, budget->tokens + earned);
  /* a full bucket earns nothing: the next one is a whole period away */
  budget->refilled_us = budget->tokens == RC_NOTIFY_BURST ? now_us
                                                          : budget->refilled_us + earned * refill_us;
}

gboolean
rc_notify_budget_take (RcNotifyBudget *budget,
                       gint64          now_us)
{
  refill (budget, now_us);
  if (budget->tokens == 0)
    return FALSE;
  budget->tokens--;
  return TRUE;
}

gint64
rc_notify_budget_wait_us (RcNotifyBudget *budget,
                          gint64          now_us)
{
  refill (budget, now_us);
  if (budget->tokens > 0)
    return 0;
  return MAX (0, budget->refilled_us + RC_NOTIFY_REFILL_SEC * G_USEC_PER_SEC - now_us);
}

char *
rc_notify_shown_name (const char *name,
                      gboolean    markup)
{
  g_autofree char *valid = g_utf8_make_valid (name, -1);
  g_autofree char *cut = NULL;

  if (g_utf8_strlen (valid, -1) > RC_NOTIFY_NAME_MAX)
    {
      g_autofree char *head = g_utf8_substring (valid, 0, RC_NOTIFY_NAME_MAX - 1);

      cut = g_strconcat (head, "…", NULL);
    }
  else
    cut = g_steal_pointer (&valid);
  return markup ? g_markup_escape_text (cut, -1) : g_steal_pointer (&cut);
}

static void
instance_free (Instance *instance)
{
  g_free (instance->unit);
  g_free (instance);
}

static Instance *
lookup_instance (RcNotifier *self,
                 const char *unit)
{
  Instance *instance = g_hash_table_lookup (self->instances, unit);

  if (instance == NULL)
    {
      instance = g_new0 (Instance, 1);
      instance->unit = g_strdup (unit);
      g_hash_table_insert (self->instances, instance->unit, instance);
    }
  return instance;
}

/* ---- the panel ---------------------------------------------------------- */

static void
panel_activated_cb (GObject      *source,
                    GAsyncResult *result,
                    gpointer      user_data)
{
  g_autoptr(GVariant) reply = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *unit = user_data;

  reply = g_dbus_connection_call_finish (G_DBUS_CONNECTION (source), result, &error);
  if (reply == NULL && !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    g_message ("Notifications: the settings panel could not show %s: %s", unit, error->message);
}

static void
action_invoked_cb (GDBusConnection *connection,
                   const char      *sender,
                   const char      *path,
                   const char      *interface,
                   const char      *signal,
                   GVariant        *parameters,
                   gpointer         user_data)
{
  RcNotifier *self = user_data;
  GVariantBuilder target;
  const char *key;
  const char *unit;
  guint32 id;

  if (!g_variant_is_of_type (parameters, G_VARIANT_TYPE ("(us)")))
    return;
  g_variant_get (parameters, "(u&s)", &id, &key);
  unit = g_hash_table_lookup (self->sent, GUINT_TO_POINTER (id));
  if (unit == NULL || !(g_str_equal (key, "default") || g_str_equal (key, "open")))
    return;
  g_debug ("Notifications: %s: open the settings of %s", key, unit);
  g_variant_builder_init (&target, G_VARIANT_TYPE ("av"));
  g_variant_builder_add (&target, "v", g_variant_new_string (unit));
  /* The panel may be D-Bus activated. */
  g_dbus_connection_call (self->connection, RC_PANEL_DBUS_NAME, RC_PANEL_DBUS_PATH,
                          GAPPLICATION_INTERFACE, "ActivateAction",
                          g_variant_new ("(sava{sv})", "show-app", &target, NULL), NULL,
                          G_DBUS_CALL_FLAGS_NONE, CALL_TIMEOUT_MS, self->cancellable,
                          panel_activated_cb, g_strdup (unit));
}

static void
forget_sent (RcNotifier *self,
             guint32     id)
{
  if (g_hash_table_remove (self->sent, GUINT_TO_POINTER (id)))
    g_queue_remove (&self->sent_order, GUINT_TO_POINTER (id));
}

static void
notification_closed_cb (GDBusConnection *connection,
                        const char      *sender,
                        const char      *path,
                        const char      *interface,
                        const char      *signal,
                        GVariant        *parameters,
                        gpointer         user_data)
{
  guint32 id, reason;

  if (g_variant_is_of_type (parameters, G_VARIANT_TYPE ("(uu)")))
    {
      g_variant_get (parameters, "(uu)", &id, &reason);
      forget_sent (user_data, id);
    }
}

static void
remember_sent (RcNotifier *self,
               guint32     id,
               const char *unit)
{
  forget_sent (self, id);
  if (g_queue_get_length (&self->sent_order) >= MAX_SENT)
    g_hash_table_remove (self->sent, g_queue_pop_head (&self->sent_order));
  g_hash_table_insert (self->sent, GUINT_TO_POINTER (id), g_strdup (unit));
  g_queue_push_tail (&self->sent_order, GUINT_TO_POINTER (id));
}

/* Made with the first Notify call, not at start: no match rule at rest.
 * The AddMatch goes out on the connection before that call, so the bus
 * has the rule before the server can show the notification, and a click
 * however quick is heard. */
static void
listen_for_actions (RcNotifier *self)
{
  if (self->action_id != 0)
    return;
  self->action_id = g_dbus_connection_signal_subscribe (self->connection, NOTIFICATIONS_DBUS_NAME,
                                                        NOTIFICATIONS_INTERFACE, "ActionInvoked",
                                                        NOTIFICATIONS_DBUS_PATH, NULL,
                                                        G_DBUS_SIGNAL_FLAGS_NONE,
                                                        action_invoked_cb, self, NULL);
  self->closed_id = g_dbus_connection_signal_subscribe (self->connection, NOTIFICATIONS_DBUS_NAME,
                                                        NOTIFICATIONS_INTERFACE,
                                                        "NotificationClosed",
                                                        NOTIFICATIONS_DBUS_PATH, NULL,
                                                        G_DBUS_SIGNAL_FLAGS_NONE,
                                                        notification_closed_cb, self, NULL);
}

/* ---- sending ------------------------------------------------------------ */

/* The notifier's dispose cancels every call: a callback that was not
 * cancelled has a live notifier. */
typedef struct {
  RcNotifier   *notifier;
  char         *unit;      /* NULL: the notice of those over the budget */
  RcNotifyKind  kind;
  RcNotifyCause cause;
  char         *name;      /* the app's, as the registry has it */
  char         *icon;
  char         *entry;     /* desktop-entry hint */
  guint32       replaces;
} Sending;

static void
sending_free (Sending *sending)
{
  g_free (sending->unit);
  g_free (sending->name);
  g_free (sending->icon);
  g_free (sending->entry);
  g_free (sending);
}

static void
notified_cb (GObject      *source,
             GAsyncResult *result,
             gpointer      user_data)
{
  Sending *sending = user_data;
  RcNotifier *self = sending->notifier;
  g_autoptr(GVariant) reply = NULL;
  g_autoptr(GError) error = NULL;
  Instance *instance;
  guint32 id;

  reply = g_dbus_connection_call_finish (G_DBUS_CONNECTION (source), result, &error);
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      sending_free (sending);
      return;
    }
  if (reply == NULL)
    {
      /* No server (none installed, none activatable) is normal on some
       * desktops: said once, and nothing is tried again before the next
       * event of that kind and app, after the quiet period. */
      if (!self->told_no_server)
        g_message ("Notifications: not shown, the notification server is unavailable: %s",
                   error->message);
      else
        g_debug ("Notifications: not shown: %s", error->message);
      self->told_no_server = TRUE;
      sending_free (sending);
      return;
    }
  self->told_no_server = FALSE;
  g_variant_get (reply, "(u)", &id);
  if (sending->unit == NULL)
    {
      self->held_shown = id;
      sending_free (sending);
      return;
    }
  instance = g_hash_table_lookup (self->instances, sending->unit);
  if (instance != NULL)
    instance->ids[sending->kind] = id;
  remember_sent (self, id, sending->unit);
  g_debug ("Notifications: %s shown as %u", sending->unit, id);
  sending_free (sending);
}

/* "org.gnome.Calculator" from its desktop file, else the AppID. */
static char *
desktop_id (RcApp *app)
{
  char *id = *app->desktop_file != '\0' ? rc_desktop_file_id (app->desktop_file) : NULL;

  return id != NULL ? id : g_strdup (app->app_id);
}

/* What each cause says: the summary and the body, each with the app's name
 * for %s, and the action record's reason. */
static const struct {
  RcNotifyKind kind;
  const char  *summary;
  const char  *body;
  const char  *reason;
} causes[RC_NOTIFY_N_CAUSES] = {
  [RC_NOTIFY_CAUSE_OOM_KILL] = { RC_NOTIFY_OUT_OF_MEMORY, "%s ran out of memory",
                                 "The system stopped a process of %s: the app reached the memory it may use. "
                                 "Open settings to raise its limit.", "killed at its memory limit" },
  [RC_NOTIFY_CAUSE_OOMD_KILL] = { RC_NOTIFY_OUT_OF_MEMORY, "%s was stopped to free memory",
                                  "The system was short of memory and systemd-oomd stopped %s, the app that made it so. "
                                  "Open settings to limit its memory or to protect it.",
                                  "stopped by systemd-oomd to free memory" },
  [RC_NOTIFY_CAUSE_MEMORY_HELD] = { RC_NOTIFY_HELD_BACK, "%s is held back by its limit",
                                    "%s has been at its memory limit for a while and may be slow. "
                                    "Open settings to raise its limit.",
                                    "held back by its memory limit" },
  [RC_NOTIFY_CAUSE_CPU_HELD] = { RC_NOTIFY_HELD_BACK, "%s is held back by its CPU limit",
                                 "%s has wanted more CPU than its quota allows for a while and may be slow. "
                                 "Open settings to raise its limit.",
                                 "held back by its CPU quota" },
  [RC_NOTIFY_CAUSE_POWER_DRAIN] = { RC_NOTIFY_POWER_DRAIN, "%s is draining the battery",
                                    "%s, in the background, has used much of the battery's power for a while. "
                                    "Open settings to limit it, or close it if it is not needed.",
                                    "used much of the battery's power in the background" },
  [RC_NOTIFY_CAUSE_LADDER_THROTTLED] = { RC_NOTIFY_LADDER_THROTTLED,
                                         "%s was slowed down to keep the desktop responsive",
                                         "Memory is short: %s, in the background, may use less of it for now. "
                                         "It gets it back once memory is no longer short.",
                                         "slowed down by the memory ladder" },
  [RC_NOTIFY_CAUSE_LADDER_FROZEN] = { RC_NOTIFY_LADDER_FROZEN,
                                      "%s was frozen to keep the desktop responsive",
                                      "Memory is short: %s, in the background, is paused for now. "
                                      "It runs again when you switch to it or memory is no longer short.",
                                      "frozen by the memory ladder" },
};

/* @format: one of causes[]' texts, each with one %s */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
static char *
with_name (const char *format,
           const char *name)
{
  return g_strdup_printf (format, name);
}
#pragma GCC diagnostic pop

static void
call_notify (RcNotifier *self,
             Sending    *sending,
             const char *summary,
             const char *body,
             gboolean    with_actions)
{
  static const char * const actions[] = { "default", "Open settings", "open", "Open settings", NULL };
  static const char * const no_actions[] = { NULL };
  GVariantBuilder hints;

  g_variant_builder_init (&hints, G_VARIANT_TYPE_VARDICT);
  if (sending->entry != NULL)
    g_variant_builder_add (&hints, "{sv}", "desktop-entry", g_variant_new_string (sending->entry));
  g_variant_builder_add (&hints, "{sv}", "urgency", g_variant_new_byte (1));
  listen_for_actions (self);
  /* Notification servers are usually D-Bus activated: auto start allowed. */
  g_dbus_connection_call (self->connection, NOTIFICATIONS_DBUS_NAME, NOTIFICATIONS_DBUS_PATH,
                          NOTIFICATIONS_INTERFACE, "Notify",
                          g_variant_new ("(susss^asa{sv}i)", "Resource Control",
                                         sending->replaces, sending->icon, summary, body,
                                         with_actions ? actions : no_actions, &hints, -1),
                          G_VARIANT_TYPE ("(u)"), G_DBUS_CALL_FLAGS_NONE, CALL_TIMEOUT_MS,
                          self->cancellable, notified_cb, sending);
}

/* The server's capabilities say how the body is read: as markup, the
 * name is escaped; the summary is plain text by the specification. */
static void
capabilities_cb (GObject      *source,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  Sending *sending = user_data;
  RcNotifier *self = sending->notifier;
  g_autoptr(GVariant) reply = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree const char **caps = NULL;
  g_autofree char *plain_name = NULL;
  g_autofree char *body_name = NULL;
  g_autofree char *summary = NULL;
  g_autofree char *body = NULL;
  gboolean markup = FALSE;

  reply = g_dbus_connection_call_finish (G_DBUS_CONNECTION (source), result, &error);
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      sending_free (sending);
      return;
    }
  if (reply != NULL)
    {
      g_variant_get (reply, "(^a&s)", &caps);
      markup = g_strv_contains (caps, "body-markup");
    }
  plain_name = rc_notify_shown_name (sending->name, FALSE);
  body_name = rc_notify_shown_name (sending->name, markup);
  summary = with_name (causes[sending->cause].summary, plain_name);
  body = with_name (causes[sending->cause].body, body_name);
  g_debug ("Notifications: %s: %s", sending->unit, summary);
  call_notify (self, sending, summary, body, TRUE);
}

static void
send (RcNotifier   *self,
      RcApp        *app,
      Instance     *instance,
      RcNotifyCause cause)
{
  Sending *sending = g_new0 (Sending, 1);

  sending->notifier = self;
  sending->unit = g_strdup (app->unit);
  sending->kind = causes[cause].kind;
  sending->cause = cause;
  sending->name = g_strdup (app->name);
  sending->icon = g_strdup (app->icon);
  sending->entry = desktop_id (app);
  sending->replaces = instance->ids[sending->kind];
  rc_action_log_add (self->actions, app->unit, app->app_id, RC_ACTION_KIND_NOTIFICATION, "", "",
                     "", causes[cause].reason);
  g_dbus_connection_call (self->connection, NOTIFICATIONS_DBUS_NAME, NOTIFICATIONS_DBUS_PATH,
                          NOTIFICATIONS_INTERFACE, "GetCapabilities", NULL,
                          G_VARIANT_TYPE ("(as)"), G_DBUS_CALL_FLAGS_NONE, CALL_TIMEOUT_MS,
                          self->cancellable, capabilities_cb, sending);
}

/* Those over the budget, in one notification once it allows one more. */
static gboolean
tell_held_cb (gpointer user_data)
{
  RcNotifier *self = user_data;
  gint64 wait_us = rc_notify_budget_wait_us (&self->budget, g_get_monotonic_time ());
  g_autofree char *summary = NULL;
  g_autofree char *body = NULL;
  Sending *sending;

  self->held_id = 0;
  if (wait_us > 0)
    {
      self->held_id = g_timeout_add (MAX (1, (guint) (wait_us / 1000)), tell_held_cb, self);
      return G_SOURCE_REMOVE;
    }
  rc_notify_budget_take (&self->budget, g_get_monotonic_time ());
  summary = self->held_count == 1
            ? g_strdup ("1 more app ran out of memory, was held back or drained the battery")
            : g_strdup_printf ("%u more apps ran out of memory, were held back or drained the battery",
                               self->held_count);
  body = g_strdup ("They were not each shown, to keep notifications few. "
                   "Open the Resource Control settings to see your apps.");
  g_debug ("Notifications: %s", summary);
  self->held_count = 0;
  sending = g_new0 (Sending, 1);
  sending->notifier = self;
  sending->icon = g_strdup ("");
  sending->replaces = self->held_shown;
  call_notify (self, sending, summary, body, FALSE);
  return G_SOURCE_REMOVE;
}

/* Within the budget, sent; over it, counted for one notice later. */
static void
send_within_budget (RcNotifier   *self,
                    RcApp        *app,
                    Instance     *instance,
                    RcNotifyCause cause,
                    gint64        now_us)
{
  gint64 wait_us;

  if (rc_notify_budget_take (&self->budget, now_us))
    {
      send (self, app, instance, cause);
      return;
    }
  self->held_count++;
  g_debug ("Notifications: %s: over the budget (%u held)", app->unit, self->held_count);
  if (self->held_id != 0)
    return;
  wait_us = rc_notify_budget_wait_us (&self->budget, now_us);
  self->held_id = g_timeout_add (MAX (1, (guint) (wait_us / 1000)), tell_held_cb, self);
}

static void
maybe_notify (RcNotifier   *self,
              RcApp        *app,
              Instance     *instance,
              RcNotifyCause cause,
              gint64        now_us)
{
  const RcNotifyRules *rules = rc_rules_get_notify (self->rules);
  RcNotifyKind kind = causes[cause].kind;
  gboolean per_spell = kind == RC_NOTIFY_POWER_DRAIN || kind == RC_NOTIFY_LADDER_THROTTLED ||
                       kind == RC_NOTIFY_LADDER_FROZEN;
  gboolean wanted = kind == RC_NOTIFY_OUT_OF_MEMORY ? rules->out_of_memory
                    : kind == RC_NOTIFY_HELD_BACK ? rules->held_back
                    : kind == RC_NOTIFY_POWER_DRAIN ? rules->power_drain_percent > 0
                    : rules->memory_ladder;

  if (!wanted)
    return;
  /* a drain or a ladder step is told once per spell (its source says
   * when one begins), and a spell lasts long: no quiet time */
  if (!per_spell && instance->sent_us[kind] != 0 &&
      now_us - instance->sent_us[kind] < RC_NOTIFY_QUIET_SEC * G_USEC_PER_SEC)
    return;
  instance->sent_us[kind] = now_us;
  send_within_budget (self, app, instance, cause, now_us);
}

static guint64
counter (GVariant   *events,
         const char *name)
{
  guint64 value = 0;

  if (events != NULL)
    g_variant_lookup (events, name, "t", &value);
  return value;
}

static void
events_changed_cb (RcMemoryWatch *watch,
                   RcApp         *app,
                   GVariant      *before,
                   GVariant      *now,
                   RcNotifier    *self)
{
  gint64 now_us = g_get_monotonic_time ();
  Instance *instance;

  /* Nothing to compare with: the first figures of the instance. */
  if (before == NULL)
    return;
  instance = lookup_instance (self, app->unit);
  if (counter (now, "oom_kill") > counter (before, "oom_kill"))
    maybe_notify (self, app, instance, RC_NOTIFY_CAUSE_OOM_KILL, now_us);
  /* held back by the ladder's MemoryHigh, not a limit of its own: the
   * ladder tells of that itself, once a spell */
  if (counter (now, "max") <= counter (before, "max") && self->ladder != NULL &&
      rc_ladder_watch_throttles (self->ladder, app->unit))
    return;
  if ((counter (now, "high") > counter (before, "high") ||
       counter (now, "max") > counter (before, "max")) &&
      rc_held_spell_rise (&instance->held, now_us))
    maybe_notify (self, app, instance, RC_NOTIFY_CAUSE_MEMORY_HELD, now_us);
}

static void
oomd_kill_cb (RcMemoryWatch *watch,
              RcApp         *app,
              RcNotifier    *self)
{
  maybe_notify (self, app, lookup_instance (self, app->unit), RC_NOTIFY_CAUSE_OOMD_KILL,
                g_get_monotonic_time ());
}

static void
throttled_cb (RcCpuWatch *watch,
              RcApp      *app,
              RcNotifier *self)
{
  gint64 now_us = g_get_monotonic_time ();
  Instance *instance = lookup_instance (self, app->unit);

  if (rc_held_spell_rise (&instance->cpu_held, now_us))
    maybe_notify (self, app, instance, RC_NOTIFY_CAUSE_CPU_HELD, now_us);
}

static void
app_share_cb (RcEnergy   *energy,
              RcApp      *app,
              double      share,
              gboolean    foreground,
              RcNotifier *self)
{
  const RcNotifyRules *rules = rc_rules_get_notify (self->rules);
  gint64 now_us = g_get_monotonic_time ();
  Instance *instance = lookup_instance (self, app->unit);

  /* every instance at every sample: said only of those above the share */
  if (rules->power_drain_percent > 0 && share * 100 > rules->power_drain_percent)
    g_debug ("Notifications: %s: %.3f of the power%s", app->unit, share,
             foreground ? ", in the foreground" : "");
  if (rc_drain_spell_sample (&instance->drain, share, foreground, TRUE, rules->power_drain_percent,
                             rules->power_drain_sec, now_us))
    maybe_notify (self, app, instance, RC_NOTIFY_CAUSE_POWER_DRAIN, now_us);
}

static void
battery_changed_cb (RcEnergy   *energy,
                    gboolean    on_battery,
                    RcNotifier *self)
{
  GHashTableIter iter;
  Instance *instance;

  if (on_battery)
    return;
  /* on AC every spell of draining ends */
  g_hash_table_iter_init (&iter, self->instances);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &instance))
    rc_drain_spell_sample (&instance->drain, 0, FALSE, FALSE, 0, 0, 0);
}

void
rc_notifier_watch_energy (RcNotifier *self,
                          RcEnergy   *energy)
{
  g_signal_connect_object (energy, "app-share", G_CALLBACK (app_share_cb), self, 0);
  g_signal_connect_object (energy, "battery-changed", G_CALLBACK (battery_changed_cb), self, 0);
}

static void
ladder_stepped_cb (RcLadderWatch *ladder,
                   RcApp         *app,
                   const char    *step,
                   RcNotifier    *self)
{
  gint64 now_us = g_get_monotonic_time ();

  maybe_notify (self, app, lookup_instance (self, app->unit),
                g_str_equal (step, "frozen") ? RC_NOTIFY_CAUSE_LADDER_FROZEN :
                RC_NOTIFY_CAUSE_LADDER_THROTTLED, now_us);
}

void
rc_notifier_watch_ladder (RcNotifier    *self,
                          RcLadderWatch *ladder)
{
  g_set_object (&self->ladder, ladder);
  g_signal_connect_object (ladder, "stepped", G_CALLBACK (ladder_stepped_cb), self, 0);
}

static void
app_removed_cb (RcRegistry *registry,
                RcApp      *app,
                RcNotifier *self)
{
  g_hash_table_remove (self->instances, app->unit);
}

RcNotifier *
rc_notifier_new (GDBusConnection *connection,
                 RcRegistry      *registry,
                 RcMemoryWatch   *memory_watch,
                 RcCpuWatch      *cpu_watch,
                 RcRules         *rules,
                 RcActionLog     *actions)
{
  RcNotifier *self = g_object_new (RC_TYPE_NOTIFIER, NULL);

  self->connection = g_object_ref (connection);
  self->rules = g_object_ref (rules);
  self->actions = g_object_ref (actions);
  g_signal_connect_object (memory_watch, "events-changed", G_CALLBACK (events_changed_cb), self, 0);
  g_signal_connect_object (memory_watch, "oomd-kill", G_CALLBACK (oomd_kill_cb), self, 0);
  g_signal_connect_object (cpu_watch, "throttled", G_CALLBACK (throttled_cb), self, 0);
  /* after the memory watch (made before), which may tell of a last change */
  g_signal_connect_object (registry, "app-removed", G_CALLBACK (app_removed_cb), self, 0);
  return self;
}

static void
rc_notifier_dispose (GObject *object)
{
  RcNotifier *self = RC_NOTIFIER (object);

  g_cancellable_cancel (self->cancellable);
  g_clear_handle_id (&self->held_id, g_source_remove);
  rc_clear_subscription (self->connection, &self->action_id);
  rc_clear_subscription (self->connection, &self->closed_id);
  g_clear_object (&self->connection);
  g_clear_object (&self->rules);
  g_clear_object (&self->actions);
  g_clear_object (&self->ladder);
  G_OBJECT_CLASS (rc_notifier_parent_class)->dispose (object);
}

static void
rc_notifier_finalize (GObject *object)
{
  RcNotifier *self = RC_NOTIFIER (object);

  g_clear_object (&self->cancellable);
  g_hash_table_unref (self->instances);
  g_hash_table_unref (self->sent);
  g_queue_clear (&self->sent_order);
  G_OBJECT_CLASS (rc_notifier_parent_class)->finalize (object);
}

static void
rc_notifier_class_init (RcNotifierClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = rc_notifier_dispose;
  G_OBJECT_CLASS (klass)->finalize = rc_notifier_finalize;
}

static void
rc_notifier_init (RcNotifier *self)
{
  self->cancellable = g_cancellable_new ();
  self->instances = g_hash_table_new_full (g_str_hash, g_str_equal, NULL,
                                           (GDestroyNotify) instance_free);
  self->sent = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  g_queue_init (&self->sent_order);
}
