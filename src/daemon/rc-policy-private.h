/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* What the policy's files (rc-policy.c, rc-policy-pause.c,
 * rc-policy-sources.c, rc-policy-bus.c, rc-policy-guard.c, rc-policy-ladder.c)
 * share; nothing
 * else includes it. */

#include "rc-policy.h"

G_BEGIN_DECLS

/* The policy's caller name in the request queue: not a bus name, so it
 * never shares a D-Bus caller's order. */
#define POLICY_CALLER "resource-controld policy"

typedef struct {
  RcLimits api;            /* values set through the API */
  RcLimits applied;        /* what systemd was last told, by us or the API */
} UnitLimits;

/* What the policy knows of one running instance. */
typedef struct {
  RcPolicy *policy;
  RcApp    *app;
  /* NULL while both are empty: most apps never get a value from the API,
   * a rule or the boost, and the pair was most of what the policy kept
   * for every app (224 of 280 bytes). Read with unit_api (),
   * unit_applied (), written through unit_limits (). */
  UnitLimits *limits;
  gboolean    foreground;
  gboolean    inactive;    /* lost the focus and has not had it back */
  gboolean    frozen_by_us; /* FreezeWhenInactiveSec or the memory ladder froze it */
  gboolean    ladder_frozen; /* the memory ladder did */
  gboolean    audio;       /* plays or records: held */
  gboolean    write_queued; /* a limits write waits for its turn */
  /* why the next write happens, for the action record */
  gboolean boost_moved, audio_moved, power_changed;
  char    *pause_reason;   /* a pause or its end moved it: "paused by resourcectl" */
  guint    freeze_id;
} Unit;

static inline const RcLimits *
unit_api (const Unit *unit)
{
  static const RcLimits none;

  return unit->limits != NULL ? &unit->limits->api : &none;
}

static inline const RcLimits *
unit_applied (const Unit *unit)
{
  static const RcLimits none;

  return unit->limits != NULL ? &unit->limits->applied : &none;
}

/* The pair, to write into. */
static inline UnitLimits *
unit_limits (Unit *unit)
{
  if (unit->limits == NULL)
    unit->limits = g_new0 (UnitLimits, 1);
  return unit->limits;
}

struct _RcPolicy {
  GObject         parent_instance;
  RcRegistry     *registry;
  RcSystemd      *systemd;
  RcRequestQueue *queue;
  RcRules        *rules;
  RcFocusWatch   *focus_watch;
  RcAudioWatch   *audio_watch;
  RcPowerWatch   *power_watch;
  RcActionLog    *actions;
  RcHolds        *guard;           /* the responsiveness guard's CPUWeight holds */
  RcHolds        *ladder;          /* the memory ladder's MemoryHigh holds */
  char           *focus_reason;    /* "focus from sway": who moved the boost last */
  gboolean        power_changing;  /* the rules change for the power state */
  char           *state_file;
  char           *state_written;
  GHashTable     *units;           /* unit name -> Unit */
  GHashTable     *restored_boosted; /* unit names, from the state file */
  GHashTable     *restored_frozen;
  GHashTable     *starting;        /* unit name -> Start: limits it was started with */
  guint64         default_tasks_max;
  gboolean        paused;          /* Pause: no automation, no automatic change in force */
  guint64         paused_until;    /* CLOCK_REALTIME usec; 0: until Resume */
  gboolean        restored_paused; /* the state file's pause, until rc_policy_serve takes it up */
  guint64         restored_paused_until;
  guint           pause_end_id;
  GCancellable   *cancellable;
};

/* rc-policy.c */
void rc_policy_save_state (RcPolicy *self);
/* What @unit should have now, by precedence (none of the automatic values
 * while paused). */
void rc_policy_effective_limits (RcPolicy *self,
                                 Unit     *unit,
                                 RcLimits *out);
/* Has systemd apply what differs from what @unit was last given. */
void rc_policy_sync_unit (RcPolicy *self,
                          Unit     *unit);
/* Freezes or thaws @unit, recorded as @kind (NULL: "freeze" or "thaw"). */
void rc_policy_freeze_as (RcPolicy   *self,
                          Unit       *unit,
                          gboolean    frozen,
                          const char *kind,
                          const char *reason);
static inline void
rc_policy_set_frozen (RcPolicy   *self,
                      Unit       *unit,
                      gboolean    frozen,
                      const char *reason)
{
  rc_policy_freeze_as (self, unit, frozen, NULL, reason);
}
void rc_policy_start_freeze_timer (RcPolicy *self,
                                   Unit     *unit);
/* Shows @unit as held for audio (its Audio key) when it plays and the
 * policy is not paused; records and announces a change. */
void rc_policy_show_audio (RcPolicy   *self,
                           Unit       *unit,
                           gboolean    notify,
                           const char *reason);
void rc_policy_emit_paused_changed (RcPolicy *self);

/* rc-policy-ladder.c: whether the ladder's MemoryHigh is what @unit
 * should have now (@wanted, by precedence). */
gboolean rc_policy_ladder_in_force (RcPolicy       *self,
                                    Unit           *unit,
                                    const RcLimits *wanted);

/* rc-policy-pause.c: the state file said paused until @until_usec. */
void rc_policy_restore_pause (RcPolicy *self,
                              gboolean  paused,
                              guint64   until_usec);

G_END_DECLS
