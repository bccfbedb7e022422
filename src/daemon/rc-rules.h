/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <gio/gio.h>

#include "rc-limits.h"

G_BEGIN_DECLS

/* The rule store: persistent per-AppID limits and the foreground boost, read
 * from key files in the system's rules folder and then the user's (later
 * wins per AppID; one group per AppID, a [Boost] group for the boost, a
 * [Slice session], [Slice app] or [Slice background] group for a slice, a
 * [Notify] group for the desktop notifications, a [Guard] group for the
 * responsiveness guard),
 * re-read when the files change, and written by SetRule and RemoveRule into
 * the user's folder. It knows nothing of running apps.
 *
 * Signals:
 *   "changed" ()   the rules or the boost were read again */
#define RC_TYPE_RULES (rc_rules_get_type ())
G_DECLARE_FINAL_TYPE (RcRules, rc_rules, RC, RULES, GObject);

#define RC_FREEZE_INACTIVE_MAX_SEC 86400
#define RC_BOOST_WEIGHT_DEFAULT 300
/* The focused app's MemoryLow: its working set stays in memory while
 * another app fills it. The package's system drop-ins give user@UID.service
 * 512 MiB of protection, room for this and session.slice's 256 MiB. */
#define RC_BOOST_MEMORY_LOW_DEFAULT (256 * 1024 * 1024)

#define RC_RULE_ORIGIN_MAX 256

typedef struct {
  RcLimits limits;
  guint    freeze_when_inactive_sec;   /* 0: never */
  gboolean has_freeze;                 /* the group gave FreezeWhenInactiveSec */
  /* where it was read, for the action record: "~/.config/…/20-x.conf
   * [org.x]" (the last group that gave a key; shorter than
   * RC_RULE_ORIGIN_MAX), or NULL. A file's rule keeps the text in its
   * own block, right after it (one g_free frees both); a merged rule
   * points into the file's rule. */
  const char *origin;
} RcRule;

/* The power conditions a rule group may be for: its name ends in
 * " @battery" (UPower says the system runs on battery) or " @power-saver"
 * (power-profiles-daemon's active profile is power-saver). While a
 * condition holds, the keys of its groups apply over those of the group
 * without the suffix; @power-saver over @battery when both hold. */
typedef enum {
  RC_CONDITION_BATTERY     = 1 << 0,
  RC_CONDITION_POWER_SAVER = 1 << 1,
} RcConditions;

typedef struct {
  gboolean enabled;
  RcLimits limits;                     /* CPUWeight, IOWeight and MemoryLow */
} RcBoost;

/* The [Notify] group: which desktop notifications the daemon sends. */
typedef struct {
  gboolean out_of_memory;              /* OutOfMemory: an app killed for memory */
  gboolean held_back;                  /* HeldBack: an app held back by its own limit */
  gboolean memory_ladder;              /* MemoryLadder: an app slowed or frozen by the ladder */
  /* PowerDrain: on battery, an app in the background above this percent
   * of the power for this long; 0: off */
  guint power_drain_percent;
  guint power_drain_sec;
} RcNotifyRules;

/* PowerDrain's default, 50%/10min: a busy loop on one core of the VM took
 * half the power beside two lighter apps (tests/vm/notify-sections.sh,
 * section "energy": shares 0.50, 0.33 and 0.13 for 100, 50 and 25 % of a
 * core), so half the power is an app that keeps a core busy on its own; a
 * build or an export in the foreground is never counted, and ten minutes
 * outlasts an update check or a sync catching up. */
#define RC_POWER_DRAIN_PERCENT_DEFAULT 50
#define RC_POWER_DRAIN_SEC_DEFAULT     600
#define RC_POWER_DRAIN_SEC_MAX         (24 * 3600)

#define RC_NOTIFY_RULES_DEFAULT ((RcNotifyRules) { .out_of_memory = TRUE, .held_back = TRUE, \
                                                   .memory_ladder = TRUE, \
                                                   .power_drain_percent = RC_POWER_DRAIN_PERCENT_DEFAULT, \
                                                   .power_drain_sec = RC_POWER_DRAIN_SEC_DEFAULT })

/* PowerDrain's value: "true" (the default), "false" (off: @out_percent 0)
 * or PERCENT%/DURATION, PERCENT 1..100 and DURATION a whole number of s,
 * min or h from 1 s to 24 h ("50%/10min"). FALSE when it is none of these. */
gboolean rc_notify_parse_power_drain (const char *text,
                                      guint      *out_percent,
                                      guint      *out_sec);

/* The [Guard] group: the responsiveness guard (rc-guard.h) and the memory
 * ladder (rc-ladder.h). */
typedef struct {
  gboolean enabled;                    /* Enabled: the CPU guard */
  guint    cpu_pressure_target;        /* CPUPressureTarget: percent, 1..100 */
  guint64  cpu_weight_floor;           /* CPUWeightFloor: 1..10000 */
  gboolean memory_ladder;              /* MemoryLadder */
  guint    memory_pressure_throttle;   /* MemoryPressureThrottle: percent, 1..100 */
  guint    memory_pressure_freeze;     /* MemoryPressureFreeze: percent, above the throttle one */
} RcGuardRules;

#define RC_GUARD_TARGET_DEFAULT 10
#define RC_GUARD_FLOOR_DEFAULT  10
#define RC_LADDER_THROTTLE_DEFAULT 10
#define RC_LADDER_FREEZE_DEFAULT   30
#define RC_GUARD_RULES_DEFAULT  ((RcGuardRules) { .enabled = TRUE, \
                                                  .cpu_pressure_target = RC_GUARD_TARGET_DEFAULT, \
                                                  .cpu_weight_floor = RC_GUARD_FLOOR_DEFAULT, \
                                                  .memory_ladder = TRUE, \
                                                  .memory_pressure_throttle = RC_LADDER_THROTTLE_DEFAULT, \
                                                  .memory_pressure_freeze = RC_LADDER_FREEZE_DEFAULT })

/* The groups of the files by condition: none, @battery, @power-saver (in
 * the order they apply). */
typedef enum {
  RC_RULES_LAYER_BASE,
  RC_RULES_LAYER_BATTERY,
  RC_RULES_LAYER_POWER_SAVER,
  RC_RULES_N_LAYERS
} RcRulesLayer;

/* The condition under which @layer's groups apply (0 for the base). */
RcConditions   rc_rules_layer_condition (RcRulesLayer layer);

/* One rules file's text, parsed (rc-rules-file.c; no file is opened):
 * its AppID groups go into @rules (AppID -> RcRule) and its [Slice ...]
 * groups into @slices (slice unit name -> RcLimits), arrays of
 * RC_RULES_N_LAYERS tables indexed by RcRulesLayer, replacing a group an
 * earlier file gave; its [Boost] keys into @boost, its [Notify] keys into
 * @notify, its [Guard] keys into @guard. A key, group or file
 * that cannot be used is skipped, with a message (naming @path) appended to
 * @problems. */
void           rc_rules_parse_data (const char    *data,
                                    gsize          length,
                                    const char    *path,
                                    GHashTable   **rules,
                                    GHashTable   **slices,
                                    RcBoost       *boost,
                                    RcNotifyRules *notify,
                                    RcGuardRules  *guard,
                                    GPtrArray     *problems);
/* Replaces @app_id's group in @file with @rule, as SetRule writes it. */
void           rc_rules_write_group (GKeyFile     *file,
                                     const char   *app_id,
                                     const RcRule *rule);

/* The system's rules.d folder (the tests' own with --test-hooks). */
char          *rc_rules_system_dir (void);
/* @system_dir and @user_dir are rules.d folders; the user's is created when
 * missing, so that it can be watched without polling. */
RcRules       *rc_rules_new (const char *system_dir,
                             const char *user_dir);
/* The rule of @app_id as it is under the conditions that hold now. */
const RcRule  *rc_rules_lookup (RcRules    *self,
                                const char *app_id);
/* Where @limit of @app_id's rule in force comes from: the origin of the
 * group that gives it ("~/.config/…/20-x.conf [org.x @battery]") and that
 * group's layer; NULL when no group does. */
const char    *rc_rules_lookup_origin (RcRules      *self,
                                       const char   *app_id,
                                       RcLimit       limit,
                                       RcRulesLayer *out_layer);
/* The conditions that hold now; "changed" is emitted when that changes
 * what a rule says. */
void           rc_rules_set_conditions (RcRules     *self,
                                        RcConditions conditions);
/* "org.example.App @battery" -> "org.example.App", RC_CONDITION_BATTERY;
 * a name without a suffix gives 0. FALSE for an unknown suffix. */
gboolean       rc_rules_split_group (const char   *group,
                                     char        **out_base,
                                     RcConditions *out_condition);
const RcBoost *rc_rules_get_boost (RcRules *self);
const RcNotifyRules *rc_rules_get_notify (RcRules *self);
const RcGuardRules *rc_rules_get_guard (RcRules *self);
/* The limits of a [Slice session], [Slice app] or [Slice background]
 * group, by the slice's unit name ("session.slice"); NULL for none. */
const RcLimits *rc_rules_lookup_slice (RcRules    *self,
                                       const char *slice);
/* a{sa{sv}}: AppID -> SetLimits keys, plus FreezeWhenInactiveSec u; the
 * groups without a condition. */
GVariant      *rc_rules_to_variant (RcRules *self);

/* Checks what a SetRule caller sent: SetLimits keys and FreezeWhenInactiveSec. */
gboolean       rc_rule_parse_variant (GVariant *limits,
                                      guint     n_cpus,
                                      RcRule   *out_rule,
                                      GError  **error);

/* Writes the rule into the user's folder (temporary file and rename, other
 * groups and comments kept) and reads the rules again. */
void           rc_rules_set_async (RcRules            *self,
                                   const char         *app_id,
                                   const RcRule       *rule,
                                   GCancellable       *cancellable,
                                   GAsyncReadyCallback callback,
                                   gpointer            user_data);
/* Removes the AppID's group from every user file. Errors: Protected (the
 * rule is only in the system folder), NoSuchApp (there is no rule). */
void           rc_rules_remove_async (RcRules            *self,
                                      const char         *app_id,
                                      GCancellable       *cancellable,
                                      GAsyncReadyCallback callback,
                                      gpointer            user_data);
/* Finishes rc_rules_set_async and rc_rules_remove_async. */
gboolean       rc_rules_edit_finish (RcRules      *self,
                                     GAsyncResult *result,
                                     GError      **error);

G_END_DECLS
