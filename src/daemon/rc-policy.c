/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "rc-policy-private.h"
#include "rc-action-log.h"
#include "rc-policy-state.h"
#include "rc-cgroup.h"
#include "rc-api-keys.h"
#include "rc-error.h"
#include "rc-guard.h"
#include "rc-request-queue.h"

G_DEFINE_TYPE (RcPolicy, rc_policy, G_TYPE_OBJECT);

enum { SIGNAL_LIMITS_APPLIED, SIGNAL_PAUSED_CHANGED, N_SIGNALS };
static guint signals[N_SIGNALS];

/* An instance being started with its limits (rc_policy_prepare_start). */
typedef struct {
  RcLimits api;
  RcLimits applied;
} Start;

static void
unit_free (Unit *unit)
{
  g_clear_handle_id (&unit->freeze_id, g_source_remove);
  rc_app_unref (unit->app);
  g_free (unit->pause_reason);
  g_free (unit->limits);
  g_free (unit);
}

/* ---- the state file ---------------------------------------------------- */

void
rc_policy_save_state (RcPolicy *self)
{
  g_autoptr(GPtrArray) boosted = g_ptr_array_new ();
  g_autoptr(GPtrArray) frozen = g_ptr_array_new ();
  GHashTableIter iter;
  Unit *unit;

  g_hash_table_iter_init (&iter, self->units);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &unit))
    {
      /* a paused policy boosts no one: nothing to undo after a restart */
      if (unit->foreground && !self->paused)
        g_ptr_array_add (boosted, unit->app->unit);
      if (unit->frozen_by_us)
        g_ptr_array_add (frozen, unit->app->unit);
    }
  rc_policy_state_save (self->state_file, &self->state_written, boosted, frozen, self->paused,
                        self->paused_until);
}

/* ---- limits ------------------------------------------------------------ */

static gboolean
boost_holds (RcPolicy *self,
             Unit     *unit,
             RcLimit   limit)
{
  const RcBoost *boost = rc_rules_get_boost (self->rules);

  return !self->paused && unit->foreground && boost->enabled &&
         rc_limits_has (&boost->limits, limit);
}

void
rc_policy_effective_limits (RcPolicy *self,
                            Unit     *unit,
                            RcLimits *out)
{
  /* Paused: only the API's values, and the defaults where an automatic
   * value was in force, so that each of those is taken back. */
  const RcRule *rule = self->paused ? NULL : rc_rules_lookup (self->rules, unit->app->app_id);
  const RcBoost *boost = rc_rules_get_boost (self->rules);
  gboolean boosted = !self->paused && unit->foreground && boost->enabled;
  RcLimits defaults;

  rc_limits_init_reset (&defaults, self->default_tasks_max);
  rc_limits_resolve (boosted ? &boost->limits : NULL,
                     unit_api (unit), rule != NULL ? &rule->limits : NULL, unit_applied (unit),
                     &defaults, out);
  if (!self->paused)
    {
      rc_guard_apply_hold (self->guard, unit->app->unit, unit->foreground, unit_api (unit), out);
      rc_ladder_apply_hold (self->ladder, unit->app->unit, unit->foreground, unit_api (unit), out);
    }
  /* Sound keeps at least its normal share: a rule (a power-saver one,
   * say) neither lowers its weight below the default nor caps it. */
  if (unit->audio && !rc_limits_has (unit_api (unit), RC_LIMIT_CPU_WEIGHT) &&
      rc_limits_has (out, RC_LIMIT_CPU_WEIGHT) && out->values[RC_LIMIT_CPU_WEIGHT] < RC_WEIGHT_DEFAULT)
    out->values[RC_LIMIT_CPU_WEIGHT] = RC_WEIGHT_DEFAULT;
  if (unit->audio && !rc_limits_has (unit_api (unit), RC_LIMIT_CPU_QUOTA) &&
      rc_limits_has (out, RC_LIMIT_CPU_QUOTA))
    out->values[RC_LIMIT_CPU_QUOTA] = 0;
  /* IOWeight means nothing where io is not delegated (and SetLimits would
   * say NotSupported): leave it out there. */
  if (rc_limits_has (out, RC_LIMIT_IO_WEIGHT) &&
      !rc_cgroup_is_delegated (unit->app->control_group, "io"))
    out->set &= ~(1u << RC_LIMIT_IO_WEIGHT);
}

/* One change the policy has systemd make: limits, or a freeze or thaw. It
 * waits for its turn in the request queue like a D-Bus request, so a unit
 * sees one change at a time whoever makes it. */
typedef struct {
  RcPolicy *policy;
  RcApp    *app;
  RcQueued *queued;
  gboolean  freezer;   /* a freeze or thaw, not limits */
  gboolean  freeze;
  RcLimits  limits;
} Write;

static void
write_free (Write *write)
{
  rc_request_queue_done (write->policy->queue, write->queued);
  g_object_unref (write->policy);
  rc_app_unref (write->app);
  g_free (write);
}

static void
limits_written_cb (GObject      *source,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  Write *write = user_data;
  g_autoptr(GError) error = NULL;

  if (rc_systemd_set_unit_properties_finish (RC_SYSTEMD (source), result, &error))
    g_signal_emit (write->policy, signals[SIGNAL_LIMITS_APPLIED], 0, write->app,
                   rc_limits_to_app_changes (&write->limits));
  else if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    g_message ("Could not apply the rule or boost of %s: %s", write->app->unit,
               error->message);
  write_free (write);
}

static void
freezer_written_cb (GObject      *source,
                    GAsyncResult *result,
                    gpointer      user_data)
{
  Write *write = user_data;
  g_autoptr(GError) error = NULL;

  /* On success the registry has the new freezer state already. */
  if (!rc_systemd_freeze_unit_finish (RC_SYSTEMD (source), result, &error) &&
      !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    g_message ("Could not %s %s: %s", write->freeze ? "freeze" : "thaw", write->app->unit,
               error->message);
  write_free (write);
}

static void take_diff (RcPolicy *self,
                       Unit     *unit,
                       RcLimits *out_diff);

static void
write_start (RcQueued *queued,
             gpointer  user_data)
{
  Write *write = user_data;
  RcPolicy *self = write->policy;
  Unit *unit;

  if (g_cancellable_is_cancelled (self->cancellable))
    {
      write_free (write);
      return;
    }
  if (write->freezer)
    {
      rc_systemd_freeze_unit_async (self->systemd, write->app->unit, write->freeze,
                                    self->cancellable, freezer_written_cb, write);
      return;
    }
  /* What to send is worked out now, in the write's turn: an API value set
   * while it waited must not be undone by an older idea of the rule. */
  unit = g_hash_table_lookup (self->units, write->app->unit);
  if (unit == NULL || unit->app != write->app)
    {
      write_free (write);     /* the instance stopped meanwhile */
      return;
    }
  unit->write_queued = FALSE;
  take_diff (self, unit, &write->limits);
  if (write->limits.set == 0)
    {
      write_free (write);
      return;
    }
  g_debug ("Policy: applying %x to %s", write->limits.set, unit->app->unit);
  rc_systemd_set_unit_properties_async (self->systemd, write->app->unit,
                                        rc_limits_to_unit_properties (&write->limits),
                                        self->cancellable, limits_written_cb, write);
}

static Write *
write_new (RcPolicy *self,
           Unit     *unit)
{
  Write *write = g_new0 (Write, 1);

  write->policy = g_object_ref (self);
  write->app = rc_app_ref (unit->app);
  return write;
}

static void
write_submit (Write *write)
{
  RcRequestQueue *queue = write->policy->queue;
  const char *units[] = { write->app->unit };

  write->queued = rc_request_queue_push (queue, POLICY_CALLER, write_start, write);
  rc_request_queue_set_units (queue, write->queued, units, G_N_ELEMENTS (units));
  rc_request_queue_ready (queue, write->queued);
}

static gboolean
is_controllable (Unit *unit)
{
  return rc_app_is_controllable_slice (unit->app->slice);
}

/* Puts each change of @diff in the action record, with the last trigger
 * that reached @unit. */
static void
record_diff (RcPolicy       *self,
             Unit           *unit,
             const RcLimits *diff)
{
  const RcRule *found = rc_rules_lookup (self->rules, unit->app->app_id);
  g_autofree char *rule = found != NULL && found->origin != NULL ?
                          g_strconcat ("rule ", found->origin, NULL) :
                          g_strdup_printf ("no rule for %s", unit->app->app_id);
  g_autofree char *guard = rc_holds_take_reason (self->guard, unit->app->unit);
  g_autofree char *ladder = rc_holds_take_reason (self->ladder, unit->app->unit);
  g_autofree char *power = rc_action_power_reason (rc_power_watch_get_profile (self->power_watch),
                                                   rc_power_watch_get_on_battery (self->power_watch));
  RcActionTriggers why = {
    .boost = unit->boost_moved ? &rc_rules_get_boost (self->rules)->limits : NULL,
    .focus = self->focus_reason, .audio_moved = unit->audio_moved, .audio = unit->audio,
    .kind = unit->power_changed ? RC_ACTION_KIND_POWER : RC_ACTION_KIND_RULE,
    .reason = unit->power_changed ? power : rule, .guard = guard, .ladder = ladder,
  };
  RcActionTriggers paused = { .kind = RC_ACTION_KIND_PAUSE, .reason = unit->pause_reason };
  RcLimits old;

  rc_limits_init_reset (&old, self->default_tasks_max);
  rc_action_log_add_diff (self->actions, unit->app, unit_applied (unit), &old, diff,
                          unit->pause_reason != NULL ? &paused : &why);
  unit->boost_moved = unit->audio_moved = unit->power_changed = FALSE;
  g_clear_pointer (&unit->pause_reason, g_free);
}

/* What differs between what @unit should have and what systemd was last
 * told; from now on systemd counts as told. */
static void
take_diff (RcPolicy *self,
           Unit     *unit,
           RcLimits *out_diff)
{
  g_autoptr(GError) error = NULL;
  RcLimits wanted, diff;
  guint skip, ladder;

  rc_policy_effective_limits (self, unit, &wanted);
  /* the ladder's MemoryHigh is meant to be under the use: it reclaims */
  ladder = rc_policy_ladder_in_force (self, unit, &wanted) ? 1u << RC_LIMIT_MEMORY_HIGH : 0;
  rc_limits_diff (&wanted, unit_applied (unit), &diff);
  /* What systemd cannot do for a unit that runs: its ManagedOOMPreference
   * (written only when a unit starts: Launch gives it), and any ManagedOOM
   * key without systemd-oomd. Counted as done, so it is not tried again. */
  skip = (diff.set & (1u << RC_LIMIT_OOM_PREFERENCE)) | rc_limits_oom_without_oomd (&diff);
  if (skip != 0)
    {
      g_debug ("Policy: %s: the rule's ManagedOOM keys %x cannot be applied to a running unit",
               unit->app->unit, skip);
      unit_limits (unit)->applied.set |= skip;
      diff.set &= ~skip;
    }
  /* A rule never takes memory away from an app that uses it now (only a
   * memory cap needs memory.current read). */
  if ((diff.set & RC_LIMITS_MEMORY_CAPS & ~ladder) != 0 &&
      !rc_limits_check_app (&diff, unit->app->unit, unit->app->control_group, &error))
    {
      g_message ("Not applying the memory limits of the %s rule to %s: %s",
                 unit->app->app_id, unit->app->unit, error->message);
      diff.set &= ~(RC_LIMITS_MEMORY_CAPS & ~ladder);
      unit_limits (unit)->applied.set |= wanted.set & RC_LIMITS_MEMORY_CAPS & ~ladder;
    }
  record_diff (self, unit, &diff);
  for (RcLimit limit = 0; limit < RC_N_LIMITS; limit++)
    if (rc_limits_has (&diff, limit))
      rc_limits_set (&unit_limits (unit)->applied, limit, diff.values[limit]);
  *out_diff = diff;
}

/* Has systemd apply whatever differs between what @unit should have and
* what it was last given, in a write that waits for its turn in the queue
* (one at a time per instance: a later change joins the waiting one). */
void
rc_policy_sync_unit (RcPolicy *self,
                     Unit     *unit)
{
  if (!is_controllable (unit) || unit->write_queued)
    return;
  unit->write_queued = TRUE;
  write_submit (write_new (self, unit));
}

void
rc_policy_take_request (RcPolicy *self,
                        RcApp    *app,
                        RcLimits *limits)
{
  Unit *unit = g_hash_table_lookup (self->units, app->unit);
  const RcBoost *boost = rc_rules_get_boost (self->rules);

  if (unit == NULL)
    return;
  for (RcLimit limit = 0; limit < RC_N_LIMITS; limit++)
    {
      if (!rc_limits_has (limits, limit))
        continue;
      rc_limits_set (&unit_limits (unit)->api, limit, limits->values[limit]);
      if (boost_holds (self, unit, limit))
        limits->values[limit] = boost->limits.values[limit];
      rc_limits_set (&unit_limits (unit)->applied, limit, limits->values[limit]);
    }
}

gboolean
rc_policy_prepare_start (RcPolicy       *self,
                         const char     *unit,
                         const char     *app_id,
                         const RcLimits *requested,
                         RcLimits       *out_limits)
{
  const RcRule *rule = self->paused ? NULL : rc_rules_lookup (self->rules, app_id);
  RcLimits none = { 0, };
  Start *start;

  if (g_hash_table_contains (self->starting, unit))
    return FALSE;
  start = g_new0 (Start, 1);

  rc_limits_resolve (NULL, requested, rule != NULL ? &rule->limits : NULL, &none, &none,
                     out_limits);
  if (!rc_limits_has (out_limits, RC_LIMIT_CPU_WEIGHT))
    rc_limits_set (out_limits, RC_LIMIT_CPU_WEIGHT, RC_WEIGHT_DEFAULT);
  out_limits->force = FALSE;
  start->api = *requested;
  start->api.force = FALSE;
  start->applied = *out_limits;
  g_hash_table_replace (self->starting, g_strdup (unit), start);
  return TRUE;
}

void
rc_policy_forget_start (RcPolicy   *self,
                        const char *unit)
{
  g_hash_table_remove (self->starting, unit);
}

/* ---- freezing in the background ---------------------------------------- */

static guint
freeze_delay (RcPolicy *self,
              Unit     *unit)
{
  const RcRule *rule = rc_rules_lookup (self->rules, unit->app->app_id);

  return rule != NULL ? rule->freeze_when_inactive_sec : 0;
}

void
rc_policy_freeze_as (RcPolicy   *self,
                     Unit       *unit,
                     gboolean    frozen,
                     const char *kind,
                     const char *reason)
{
  Write *write = write_new (self, unit);

  g_debug ("Policy: %s %s", frozen ? "freezing" : "thawing", unit->app->unit);
  unit->frozen_by_us = frozen;
  unit->ladder_frozen = frozen && unit->ladder_frozen;
  write->freezer = TRUE;
  write->freeze = frozen;
  if (kind != NULL)
    rc_action_log_add (self->actions, unit->app->unit, unit->app->app_id, kind,
                       RC_KEY_FREEZER_STATE, frozen ? "running" : "frozen",
                       frozen ? "frozen" : "running", reason);
  else
    rc_action_log_add (self->actions, unit->app->unit, unit->app->app_id,
                       frozen ? RC_ACTION_KIND_FREEZE : RC_ACTION_KIND_THAW, "", "", "", reason);
  write_submit (write);
  rc_policy_save_state (self);
}

static gboolean
freeze_cb (gpointer user_data)
{
  Unit *unit = user_data;
  RcPolicy *self = unit->policy;

  unit->freeze_id = 0;
  if (!self->paused && !unit->foreground && !unit->audio && freeze_delay (self, unit) > 0 &&
      !unit->frozen_by_us)
    {
      g_autofree char *reason = g_strdup_printf ("inactive for %u s", freeze_delay (self, unit));

      rc_policy_set_frozen (self, unit, TRUE, reason);
    }
  return G_SOURCE_REMOVE;
}

void
rc_policy_start_freeze_timer (RcPolicy *self,
                              Unit     *unit)
{
  guint delay = freeze_delay (self, unit);

  if (delay == 0 || self->paused || unit->freeze_id != 0 || unit->frozen_by_us || unit->audio ||
      !is_controllable (unit) ||
      g_strcmp0 (unit->app->freezer_state, "frozen") == 0 ||
      !rc_cgroup_freeze_supported ())
    return;
  unit->freeze_id = g_timeout_add_seconds (delay, freeze_cb, unit);
}

/* ---- focus ------------------------------------------------------------- */

static void
set_unit_foreground (RcPolicy *self,
                     Unit     *unit,
                     gboolean  foreground)
{
  if (unit->foreground == foreground)
    return;
  unit->foreground = foreground;
  unit->app->foreground = foreground;
  unit->boost_moved = TRUE;
  rc_holds_note_focus (self->guard, unit->app, foreground);
  rc_holds_note_focus (self->ladder, unit->app, foreground);
  if (foreground)
    {
      unit->inactive = FALSE;
      g_clear_handle_id (&unit->freeze_id, g_source_remove);
      if (unit->frozen_by_us)
        rc_policy_set_frozen (self, unit, FALSE, self->focus_reason);
    }
  else
    {
      unit->inactive = TRUE;
      rc_policy_start_freeze_timer (self, unit);
    }
  rc_policy_sync_unit (self, unit);
}

void
rc_policy_set_foreground (RcPolicy   *self,
                          GPtrArray  *apps,
                          const char *source)
{
  g_autoptr(GHashTable) wanted = g_hash_table_new (g_str_hash, g_str_equal);
  GHashTableIter iter;
  Unit *unit;

  g_free (self->focus_reason);
  self->focus_reason = g_strconcat ("focus from ", source, NULL);
  for (guint i = 0; i < apps->len; i++)
    g_hash_table_add (wanted, ((RcApp *) g_ptr_array_index (apps, i))->unit);
  /* Take the boost away first, then give it. */
  for (int pass = 0; pass < 2; pass++)
    {
      g_hash_table_iter_init (&iter, self->units);
      while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &unit))
        {
          gboolean foreground = g_hash_table_contains (wanted, unit->app->unit);

          if (foreground == (pass == 1))
            set_unit_foreground (self, unit, foreground);
        }
    }
  rc_policy_save_state (self);
}

static void
focus_changed_cb (RcFocusWatch *watch,
                  const char   *unit_name,
                  gboolean      focused,
                  RcPolicy     *self)
{
  Unit *unit = g_hash_table_lookup (self->units, unit_name);
  g_autoptr(GPtrArray) apps = g_ptr_array_new ();

  if (unit == NULL)
    return;
  if (focused)
    {
      g_ptr_array_add (apps, unit->app);
      rc_policy_set_foreground (self, apps, "gnome");
      return;
    }
  if (unit->foreground)
    {
      g_free (self->focus_reason);
      self->focus_reason = g_strdup ("focus from gnome");
      set_unit_foreground (self, unit, FALSE);
    }
  else
    {
      unit->inactive = TRUE;
      rc_policy_start_freeze_timer (self, unit);
    }
  rc_policy_save_state (self);
}

void
rc_policy_note_freezer (RcPolicy *self,
                        RcApp    *app)
{
  Unit *unit = g_hash_table_lookup (self->units, app->unit);

  if (unit == NULL)
    return;
  /* The user froze or thawed it by hand: that stands. */
  g_clear_handle_id (&unit->freeze_id, g_source_remove);
  unit->frozen_by_us = unit->ladder_frozen = FALSE;
  rc_policy_save_state (self);
}

/* ---- audio and power --------------------------------------------------- */

void
rc_policy_show_audio (RcPolicy   *self,
                      Unit       *unit,
                      gboolean    notify,
                      const char *reason)
{
  gboolean held = unit->audio && !self->paused;
  g_auto(GVariantBuilder) changes = G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE_VARDICT);

  if (unit->app->audio == held)
    return;
  unit->app->audio = held;
  rc_action_log_add (self->actions, unit->app->unit, unit->app->app_id, RC_ACTION_KIND_AUDIO_HOLD,
                     RC_KEY_AUDIO, held ? "no" : "yes", held ? "yes" : "no", reason);
  g_variant_builder_add (&changes, "{sv}", RC_KEY_AUDIO, g_variant_new_boolean (held));
  if (notify)
    {
      g_autoptr(GVariant) changed = g_variant_ref_sink (g_variant_builder_end (&changes));

      g_signal_emit (self, signals[SIGNAL_LIMITS_APPLIED], 0, unit->app, changed);
    }
}

/* @notify: FALSE for an instance just added, whose record (AppAdded,
 * sent after this) says it already. While paused the sound is followed
 * but holds nothing. */
static void
set_unit_audio (RcPolicy *self,
                Unit     *unit,
                gboolean  audio,
                gboolean  notify)
{
  if (unit->audio == audio)
    return;
  g_debug ("Policy: %s %s", unit->app->unit, audio ? "plays or records: held" : "is silent");
  unit->audio = audio;
  unit->audio_moved = TRUE;
  rc_policy_show_audio (self, unit, notify, audio ? "playing audio" : "no longer playing audio");
  if (audio)
    {
      g_clear_handle_id (&unit->freeze_id, g_source_remove);
      if (unit->frozen_by_us)
        rc_policy_set_frozen (self, unit, FALSE, "playing audio");
    }
  else if (unit->inactive && !unit->foreground)
    rc_policy_start_freeze_timer (self, unit);
  rc_policy_sync_unit (self, unit);
}

/* Which instances hold a process that plays or records: the process's
 * cgroup names its app, as for GetAppByPid; a process in no app counts
 * for nothing. */
static void
update_audio (RcPolicy *self,
              Unit     *added)
{
  g_autoptr(GArray) pids = rc_audio_watch_get_pids (self->audio_watch);
  g_autoptr(GHashTable) held = g_hash_table_new (g_str_hash, g_str_equal);
  GHashTableIter iter;
  Unit *unit;

  for (guint i = 0; i < pids->len; i++)
    {
      RcApp *app = rc_registry_lookup_pid (self->registry, g_array_index (pids, guint32, i));

      if (app != NULL)
        g_hash_table_add (held, app->unit);
    }
  g_hash_table_iter_init (&iter, self->units);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &unit))
    set_unit_audio (self, unit, g_hash_table_contains (held, unit->app->unit), unit != added);
}

static void
audio_changed_cb (RcAudioWatch *watch,
                  RcPolicy     *self)
{
  update_audio (self, NULL);
}

static void
power_changed_cb (RcPowerWatch *watch,
                  RcPolicy     *self)
{
  RcConditions conditions = 0;

  if (g_strcmp0 (rc_power_watch_get_profile (watch), "power-saver") == 0)
    conditions |= RC_CONDITION_POWER_SAVER;
  if (rc_power_watch_get_on_battery (watch))
    conditions |= RC_CONDITION_BATTERY;
  self->power_changing = TRUE;
  rc_rules_set_conditions (self->rules, conditions);
  self->power_changing = FALSE;
}

/* ---- events ------------------------------------------------------------ */

static void
app_added_cb (RcRegistry *registry,
              RcApp      *app,
              RcPolicy   *self)
{
  Unit *unit = g_new0 (Unit, 1);
  const RcBoost *boost = rc_rules_get_boost (self->rules);
  gboolean restored = FALSE;
  Start *start;
  RcFocus focus;

  unit->policy = self;
  unit->app = rc_app_ref (app);
  g_hash_table_replace (self->units, app->unit, unit);

  /* Started by Launch or Adopt: systemd has its limits already, the
   * rule's among them from its first moment. */
  start = g_hash_table_lookup (self->starting, app->unit);
  if (start != NULL)
    {
      const RcRule *rule = self->paused ? NULL : rc_rules_lookup (self->rules, app->app_id);
      RcLimits ruled = start->applied;

      ruled.set &= ~start->api.set & (rule != NULL ? rule->limits.set : 0);
      record_diff (self, unit, &ruled);
      unit_limits (unit)->api = start->api;
      unit_limits (unit)->applied = start->applied;
      g_hash_table_remove (self->starting, app->unit);
    }

  /* A boost or a freeze left by an earlier run of the daemon. */
  if (g_hash_table_remove (self->restored_boosted, app->unit))
    {
      restored = TRUE;
      unit->boost_moved = TRUE;
      for (RcLimit limit = 0; limit < RC_N_LIMITS; limit++)
        if (rc_limits_has (&boost->limits, limit))
          rc_limits_set (&unit_limits (unit)->applied, limit, boost->limits.values[limit]);
    }
  if (g_hash_table_remove (self->restored_frozen, app->unit))
    {
      restored = TRUE;
      unit->frozen_by_us = g_strcmp0 (app->freezer_state, "frozen") == 0;
      if (unit->frozen_by_us && self->paused)
        rc_policy_set_frozen (self, unit, FALSE, "paused");
    }

  focus = rc_focus_watch_add (self->focus_watch, app->unit, app->control_group);
  if (focus == RC_FOCUS_FOCUSED)
    {
      g_autoptr(GPtrArray) apps = g_ptr_array_new ();

      g_ptr_array_add (apps, app);
      rc_policy_set_foreground (self, apps, "gnome");
    }
  else
    {
      if (focus == RC_FOCUS_INACTIVE)
        {
          unit->inactive = TRUE;
          rc_policy_start_freeze_timer (self, unit);
        }
      rc_policy_sync_unit (self, unit);
    }
  {
    g_autoptr(GArray) pids = rc_audio_watch_get_pids (self->audio_watch);

    if (pids->len > 0)
      update_audio (self, unit);
  }
  /* A new instance is neither boosted nor frozen by us unless it was
   * focused (rc_policy_set_foreground saved that) or restored. */
  if (restored)
    rc_policy_save_state (self);
}

static void
app_removed_cb (RcRegistry *registry,
                RcApp      *app,
                RcPolicy   *self)
{
  Unit *unit = g_hash_table_lookup (self->units, app->unit);
  gboolean in_state;

  rc_focus_watch_remove (self->focus_watch, app->unit);
  if (unit == NULL)
    return;
  in_state = unit->foreground || unit->frozen_by_us;
  g_hash_table_remove (self->units, app->unit);
  if (in_state)
    rc_policy_save_state (self);
}

static void
rules_changed_cb (RcRules  *rules,
                  RcPolicy *self)
{
  GHashTableIter iter;
  Unit *unit;

  g_hash_table_iter_init (&iter, self->units);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &unit))
    {
      unit->power_changed = self->power_changing;
      if (unit->frozen_by_us && !unit->ladder_frozen && freeze_delay (self, unit) == 0)
        rc_policy_set_frozen (self, unit, FALSE, self->power_changing ? "power state changed" :
                              "the rule no longer freezes it");
      else if (unit->inactive)
        rc_policy_start_freeze_timer (self, unit);
      rc_policy_sync_unit (self, unit);
    }
}

static void
default_tasks_max_cb (GObject      *source,
                      GAsyncResult *result,
                      gpointer      user_data)
{
  g_autoptr(RcPolicy) self = user_data;
  g_autoptr(GError) error = NULL;
  guint64 value;

  if (rc_systemd_get_default_tasks_max_finish (RC_SYSTEMD (source), result, &value, &error))
    self->default_tasks_max = value;
  else
    g_debug ("Policy: no DefaultTasksMax from systemd: %s", error->message);
}

static void
systemd_appeared_cb (RcSystemd *systemd,
                     RcPolicy  *self)
{
  rc_systemd_get_default_tasks_max_async (systemd, self->cancellable, default_tasks_max_cb,
                                          g_object_ref (self));
}

RcPolicy *
rc_policy_new (RcRegistry     *registry,
               RcSystemd      *systemd,
               RcRequestQueue *queue,
               RcRules        *rules,
               RcFocusWatch   *focus_watch,
               RcAudioWatch   *audio_watch,
               RcPowerWatch   *power_watch,
               const char     *state_file)
{
  RcPolicy *self = g_object_new (RC_TYPE_POLICY, NULL);

  self->registry = g_object_ref (registry);
  self->systemd = g_object_ref (systemd);
  self->queue = g_object_ref (queue);
  self->rules = g_object_ref (rules);
  self->focus_watch = g_object_ref (focus_watch);
  self->audio_watch = g_object_ref (audio_watch);
  self->power_watch = g_object_ref (power_watch);
  self->state_file = g_strdup (state_file);
  self->actions = rc_action_log_new (0);
  /* a pause in the state file is taken up when the policy is served */
  rc_policy_state_load (self->state_file, &self->restored_boosted, &self->restored_frozen,
                        &self->restored_paused, &self->restored_paused_until);
  g_signal_connect_object (registry, "app-added", G_CALLBACK (app_added_cb), self, 0);
  g_signal_connect_object (registry, "app-removed", G_CALLBACK (app_removed_cb), self, 0);
  g_signal_connect_object (rules, "changed", G_CALLBACK (rules_changed_cb), self, 0);
  g_signal_connect_object (focus_watch, "focus-changed", G_CALLBACK (focus_changed_cb), self, 0);
  g_signal_connect_object (systemd, "appeared", G_CALLBACK (systemd_appeared_cb), self, 0);
  g_signal_connect_object (audio_watch, "changed", G_CALLBACK (audio_changed_cb), self, 0);
  g_signal_connect_object (power_watch, "changed", G_CALLBACK (power_changed_cb), self, 0);
  power_changed_cb (power_watch, self);
  if (rc_systemd_is_present (systemd))
    systemd_appeared_cb (systemd, self);
  return self;
}

static void
rc_policy_dispose (GObject *object)
{
  RcPolicy *self = RC_POLICY (object);

  g_cancellable_cancel (self->cancellable);
  g_clear_handle_id (&self->pause_end_id, g_source_remove);
  g_clear_pointer (&self->units, g_hash_table_unref);
  g_clear_object (&self->registry);
  g_clear_object (&self->systemd);
  g_clear_object (&self->rules);
  g_clear_object (&self->focus_watch);
  g_clear_object (&self->audio_watch);
  g_clear_object (&self->power_watch);
  g_clear_object (&self->actions);
  G_OBJECT_CLASS (rc_policy_parent_class)->dispose (object);
}

static void
rc_policy_finalize (GObject *object)
{
  RcPolicy *self = RC_POLICY (object);

  g_clear_object (&self->cancellable);
  /* kept until here: writes finishing after dispose leave the queue */
  g_clear_object (&self->queue);
  g_clear_pointer (&self->restored_boosted, g_hash_table_unref);
  g_clear_pointer (&self->restored_frozen, g_hash_table_unref);
  g_clear_pointer (&self->starting, g_hash_table_unref);
  g_clear_pointer (&self->guard, rc_holds_free);
  g_clear_pointer (&self->ladder, rc_holds_free);
  g_free (self->state_file);
  g_free (self->state_written);
  g_free (self->focus_reason);
  G_OBJECT_CLASS (rc_policy_parent_class)->finalize (object);
}

static void
rc_policy_class_init (RcPolicyClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = rc_policy_dispose;
  object_class->finalize = rc_policy_finalize;
  signals[SIGNAL_LIMITS_APPLIED] = g_signal_new ("limits-applied", G_TYPE_FROM_CLASS (klass),
                                                 G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                                 G_TYPE_NONE, 2, G_TYPE_POINTER,
                                                 G_TYPE_VARIANT);
  signals[SIGNAL_PAUSED_CHANGED] = g_signal_new ("paused-changed", G_TYPE_FROM_CLASS (klass),
                                                 G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                                 G_TYPE_NONE, 0);
}

void
rc_policy_emit_paused_changed (RcPolicy *self)
{
  g_signal_emit (self, signals[SIGNAL_PAUSED_CHANGED], 0);
}

static void
rc_policy_init (RcPolicy *self)
{
  self->guard = rc_holds_new ();
  self->ladder = rc_holds_new ();
  self->starting = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  self->cancellable = g_cancellable_new ();
  self->units = g_hash_table_new_full (g_str_hash, g_str_equal, NULL,
                                       (GDestroyNotify) unit_free);
  self->default_tasks_max = G_MAXUINT64;
  /* until a focus change: only a restored boost is taken back */
  self->focus_reason = g_strdup ("a boost left by an earlier run");
}

RcActionLog *
rc_policy_get_action_log (RcPolicy *self)
{
  return self->actions;
}
