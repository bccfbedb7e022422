/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The pause switch of the policy: while paused no rule, boost, power
 * group, freeze in the background or audio hold is in force, and each one
 * that was is taken back through the same writes (and action record) as
 * any other change; values set through the API stay, since the policy
 * keeps them apart. */
#include "rc-policy-private.h"

static void arm_pause_end (RcPolicy *self);

/* Brings every instance to what the policy says now that the pause began
 * or ended, each change recorded with @reason. */
static void
apply_pause (RcPolicy   *self,
             const char *reason)
{
  GHashTableIter iter;
  Unit *unit;

  g_hash_table_iter_init (&iter, self->units);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &unit))
    {
      if (self->paused)
        {
          g_clear_handle_id (&unit->freeze_id, g_source_remove);
          if (unit->frozen_by_us)
            rc_policy_set_frozen (self, unit, FALSE, reason);
        }
      else if (unit->inactive && !unit->foreground)
        rc_policy_start_freeze_timer (self, unit);
      rc_policy_show_audio (self, unit, TRUE, reason);
      if (!rc_app_is_controllable_slice (unit->app->slice))
        continue;
      g_free (unit->pause_reason);
      unit->pause_reason = g_strdup (reason);
      rc_policy_sync_unit (self, unit);
    }
  rc_policy_save_state (self);
  rc_policy_emit_paused_changed (self);
}

static gboolean
pause_end_cb (gpointer user_data)
{
  RcPolicy *self = user_data;

  self->pause_end_id = 0;
  /* a suspend or a clock change may leave the timer early */
  if (g_get_real_time () < (gint64) self->paused_until)
    {
      arm_pause_end (self);
      return G_SOURCE_REMOVE;
    }
  rc_policy_resume (self, "the pause ended");
  return G_SOURCE_REMOVE;
}

static void
arm_pause_end (RcPolicy *self)
{
  gint64 left = (gint64) self->paused_until - g_get_real_time ();
  guint seconds = left <= 0 ? 0 : (guint) ((left + G_USEC_PER_SEC - 1) / G_USEC_PER_SEC);

  g_clear_handle_id (&self->pause_end_id, g_source_remove);
  self->pause_end_id = g_timeout_add_seconds (seconds, pause_end_cb, self);
}

void
rc_policy_pause (RcPolicy   *self,
                 guint64     seconds,
                 const char *reason)
{
  gboolean was_paused = self->paused;

  g_return_if_fail (seconds <= RC_PAUSE_MAX_SEC);
  g_message ("Policy: paused%s (%s)", seconds > 0 ? " for a while" : "", reason);
  self->paused = TRUE;
  self->paused_until = seconds > 0 ? (guint64) g_get_real_time () + seconds * (guint64) G_USEC_PER_SEC : 0;
  if (seconds > 0)
    arm_pause_end (self);
  else
    g_clear_handle_id (&self->pause_end_id, g_source_remove);
  if (was_paused)
    {
      rc_policy_save_state (self);
      rc_policy_emit_paused_changed (self);
      return;
    }
  apply_pause (self, reason);
}

void
rc_policy_resume (RcPolicy   *self,
                  const char *reason)
{
  if (!self->paused)
    return;
  g_message ("Policy: resumed (%s)", reason);
  self->paused = FALSE;
  self->paused_until = 0;
  g_clear_handle_id (&self->pause_end_id, g_source_remove);
  apply_pause (self, reason);
}

gboolean
rc_policy_is_paused (RcPolicy *self,
                     guint64  *out_until_usec)
{
  if (out_until_usec != NULL)
    *out_until_usec = self->paused ? self->paused_until : 0;
  return self->paused;
}

void
rc_policy_restore_pause (RcPolicy *self,
                         gboolean  paused,
                         guint64   until_usec)
{
  /* A timed pause that ended while the daemon was down is over; the
   * instances get the rules as they appear. An end further away than any
   * pause can last is not ours: it counts as ended too. */
  guint64 now = (guint64) g_get_real_time ();

  if (!paused || (until_usec != 0 &&
                  (until_usec <= now || until_usec - now > (guint64) RC_PAUSE_MAX_SEC * G_USEC_PER_SEC)))
    return;
  g_message ("Policy: still paused, as before the restart");
  self->paused = TRUE;
  self->paused_until = until_usec;
  if (until_usec != 0)
    arm_pause_end (self);
}
