/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <gio/gio.h>

#include "rc-action-log.h"
#include "rc-audio-watch.h"
#include "rc-authority.h"
#include "rc-focus-watch.h"
#include "rc-guard.h"
#include "rc-holds.h"
#include "rc-ladder.h"
#include "rc-limits.h"
#include "rc-power-watch.h"
#include "rc-registry.h"
#include "rc-request-queue.h"
#include "rc-rules.h"
#include "rc-systemd.h"

G_BEGIN_DECLS

/* The policy: keeps every running app instance at what the rules, the API
 * and the focus say, through systemd. For each limit the value in force is,
 * first found: the foreground boost, the last value set through the API,
 * the responsiveness guard's lowered CPUWeight, the app's rule, the default
 * (once the daemon changed it). Rules reach an
 * instance when it becomes active and whenever they change; the boost
 * follows SetForeground* calls and Mutter's focus marks; an instance whose
 * rule has FreezeWhenInactiveSec is frozen that long after it lost the
 * focus and thawed when it gets it back. An instance that plays or records
 * sound (@audio_watch) is never frozen that way, and no rule takes its CPU
 * weight below the default or caps its CPU time while it does. The power
 * state (@power_watch) says which rules groups apply (@battery,
 * @power-saver).
 *
 * What it boosted or froze is remembered in @state_file (in
 * $XDG_RUNTIME_DIR), so a restarted daemon undoes a boost it no longer
 * knows about and still thaws what it froze.
 *
 * Its changes go through @queue, like those of D-Bus requests.
 *
 * Signals:
 *   "limits-applied" (RcApp*, GVariant* a{sv})   the daemon changed these
 *                                                limits of the app, or
 *                                                its Audio key
 *   "paused-changed" ()                          it was paused or resumed,
 *                                                or a pause's end moved */
#define RC_TYPE_POLICY (rc_policy_get_type ())
G_DECLARE_FINAL_TYPE (RcPolicy, rc_policy, RC, POLICY, GObject);

RcPolicy *rc_policy_new (RcRegistry     *registry,
                         RcSystemd      *systemd,
                         RcRequestQueue *queue,
                         RcRules        *rules,
                         RcFocusWatch   *focus_watch,
                         RcAudioWatch   *audio_watch,
                         RcPowerWatch   *power_watch,
                         const char     *state_file);

/* The API is about to have systemd apply @limits to @app: they become the
 * app's API values, and limits the boost holds are replaced by the boost's
 * values in @limits, so the boost stays in force until the app loses it. */
void      rc_policy_take_request (RcPolicy *self,
                                  RcApp    *app,
                                  RcLimits *limits);
/* A new instance of @app_id is about to be started (Launch, Adopt) as
 * @unit, with @requested set by the caller: @out_limits gets what it must
 * have from its first moment (@requested, its rule, and CPUWeight 100 for
 * fairness when neither sets one). When @unit appears the policy counts
 * @requested as its API values and @out_limits as applied already.
 * FALSE (and nothing changed) when @unit is being started already.
 * rc_policy_forget_start drops that when the start failed. */
gboolean  rc_policy_prepare_start (RcPolicy       *self,
                                   const char     *unit,
                                   const char     *app_id,
                                   const RcLimits *requested,
                                   RcLimits       *out_limits);
void      rc_policy_forget_start (RcPolicy   *self,
                                  const char *unit);
/* The API froze or thawed @app: the policy will not thaw it on focus. */
void      rc_policy_note_freezer (RcPolicy *self,
                                  RcApp    *app);
/* @apps (RcApp) are now the foreground app; empty for none. @source says
 * who said so ("sway", "a SetForeground call"), for the action record. */
void      rc_policy_set_foreground (RcPolicy   *self,
                                    GPtrArray  *apps,
                                    const char *source);
/* The action record of the policy's changes. */
RcActionLog *rc_policy_get_action_log (RcPolicy *self);
/* The responsiveness guard's CPUWeight holds (rc_guard_apply_hold): in
 * force below a value set through the API and the boost, over the rule's
 * and the default (a hold only ever lowers the weight the app would have). */
RcHolds  *rc_policy_get_guard_holds (RcPolicy *self);
/* Whether the guard may hold @app's CPUWeight (a controllable instance
 * without the focus, sound, or a CPUWeight set through the API); with
 * @sync, has systemd apply its hold as it is now, in the queue. */
gboolean  rc_policy_guard_app (RcPolicy *self,
                               RcApp    *app,
                               gboolean  sync);
/* The memory ladder's MemoryHigh holds (rc_ladder_apply_hold): in force
 * below a value set through the API and the boost, over the rule's and the
 * default. */
RcHolds  *rc_policy_get_ladder_holds (RcPolicy *self);
typedef enum {
  RC_LADDER_MAY_THROTTLE = 1 << 0,
  RC_LADDER_MAY_FREEZE   = 1 << 1,
} RcLadderMay;
/* What the ladder may do to @app: nothing to an instance outside
 * app.slice, with the focus or sound, or while paused; no MemoryHigh over
 * a MemoryHigh or MemoryMax set through the API. @out_frozen: the ladder's
 * freeze is in force. With @sync, has systemd apply its MemoryHigh hold as
 * it is now, in the queue. */
RcLadderMay rc_policy_ladder_app (RcPolicy *self,
                                  RcApp    *app,
                                  gboolean  sync,
                                  gboolean *out_frozen);
/* Freezes or thaws @app for the ladder (through the policy's freeze, so
 * the focus, sound and a pause thaw it), recorded as "ladder" with
 * @reason. */
void      rc_policy_ladder_freeze (RcPolicy   *self,
                                   RcApp      *app,
                                   gboolean    frozen,
                                   const char *reason);

/* The longest timed pause, in seconds (30 days). */
#define RC_PAUSE_MAX_SEC (30 * 24 * 3600)

/* Stops the automation (rules, the boost, power groups, freezing in the
 * background, audio holds) and takes back every automatic change in force;
 * values set through the API stay. @seconds 0: until rc_policy_resume,
 * else it ends by itself then (also across a restart). @reason ("paused
 * by resourcectl") goes into the action record of each change. Pausing
 * again only moves the end. */
void      rc_policy_pause (RcPolicy   *self,
                           guint64     seconds,
                           const char *reason);
/* Applies the rules, the boost and the power groups again; nothing if not
 * paused. */
void      rc_policy_resume (RcPolicy   *self,
                            const char *reason);
/* Whether paused, and until when (CLOCK_REALTIME usec; 0: until resumed). */
gboolean  rc_policy_is_paused (RcPolicy *self,
                               guint64  *out_until_usec);
/* a(sssss): for each instance of @apps (RcApp), each limit now as
 * (unit, key, value, source kind, detail): where its value comes from by
 * the policy's precedence (rc-policy-sources.c lists the kinds). */
GVariant *rc_policy_get_limit_sources (RcPolicy  *self,
                                       GPtrArray *apps);
/* Takes up a pause the state file kept, then serves GetLimitSources, Pause
 * and Resume on @object (asking @authority
 * for the last two), keeps its Paused and PausedUntil properties, and
 * serves the action record (rc_action_log_serve). */
void      rc_policy_serve (RcPolicy              *self,
                           RcDBusResourceControl *object,
                           RcAuthority           *authority);

G_END_DECLS
