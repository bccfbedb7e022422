/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <gio/gio.h>

#include "rc-app.h"
#include "rc-generated.h"
#include "rc-limits.h"

G_BEGIN_DECLS

/* The action record: one entry for every change the daemon makes by itself
 * (a rule applied, the boost moved, a power group taken or given back, a
 * freeze or thaw by policy, an audio hold, a guard step, a notification, a
 * value taken back by a pause or given back when it ends), never for a
 * value set through the API. Each entry goes to the journal (structured,
 * a MESSAGE_ID per kind) and into a bounded ring, oldest dropped, that
 * GetActions reads and ActionTaken announces.
 *
 * Signals:
 *   "action-taken" (GVariant* (tsssssss))   an entry was added */
#define RC_TYPE_ACTION_LOG (rc_action_log_get_type ())
G_DECLARE_FINAL_TYPE (RcActionLog, rc_action_log, RC, ACTION_LOG, GObject);

/* How many entries the ring keeps by default. */
#define RC_ACTION_LOG_SIZE 1024

/* The kinds of entry, as RC_KIND= and GetActions give them. */
#define RC_ACTION_KIND_RULE         "rule"
#define RC_ACTION_KIND_BOOST        "boost"
#define RC_ACTION_KIND_POWER        "power"
#define RC_ACTION_KIND_FREEZE       "freeze"
#define RC_ACTION_KIND_THAW         "thaw"
#define RC_ACTION_KIND_AUDIO_HOLD   "audio-hold"
#define RC_ACTION_KIND_NOTIFICATION "notification"
#define RC_ACTION_KIND_PAUSE        "pause"   /* a pause took a value back, or its end gave it */
#define RC_ACTION_KIND_GUARD        "guard"
#define RC_ACTION_KIND_LADDER       "ladder"  /* a memory ladder step: MemoryHigh, a freeze */

/* Sends one journal entry, @fields as "NAME=value" strings. */
typedef void (*RcJournalWriter) (const char * const *fields,
                                 gpointer            user_data);

/* @capacity entries at most (0: RC_ACTION_LOG_SIZE, or with --test-hooks
 * RESOURCE_CONTROL_ACTION_LOG_SIZE when set). */
RcActionLog *rc_action_log_new (guint capacity);
/* Replaces the writer that sends entries to journald (for tests). */
void         rc_action_log_set_journal_writer (RcActionLog    *self,
                                               RcJournalWriter writer,
                                               gpointer        user_data);
/* Records one automatic change, now. @key, @old_value, @new_value may be
 * "" (a freeze has no key); @reason says the trigger in a user's words. */
void         rc_action_log_add (RcActionLog *self,
                                const char  *unit,
                                const char  *app_id,
                                const char  *kind,
                                const char  *key,
                                const char  *old_value,
                                const char  *new_value,
                                const char  *reason);
/* Records a change of @limit from @old_value to @new_value (as the
 * limits hold them), worded as resourcectl words them. */
void         rc_action_log_add_limit (RcActionLog *self,
                                      RcApp       *app,
                                      const char  *kind,
                                      RcLimit      limit,
                                      guint64      old_value,
                                      guint64      new_value,
                                      const char  *reason);

/* What made the policy change an instance's limits since its last write. */
typedef struct {
  const RcLimits *boost;        /* the boost's keys if the boost moved, else NULL */
  const char     *focus;        /* who moved it: "focus from sway" */
  gboolean        audio_moved;  /* sound started or stopped: CPU keys held */
  gboolean        audio;
  const char     *kind;         /* for any other key: RC_ACTION_KIND_RULE or _POWER */
  const char     *reason;
  const char     *guard;        /* why the guard moved CPUWeight, else NULL */
  const char     *ladder;       /* why the memory ladder moved MemoryHigh, else NULL */
} RcActionTriggers;

/* Records each limit of @diff, the change from @applied (what systemd was
 * told; @defaults where it was told nothing) explained by @why: the boost
 * for its keys when it moved, sound for CPUWeight and CPUQuota when it
 * started or stopped, the guard for CPUWeight when it moved, else @why's
 * kind and reason. */
void         rc_action_log_add_diff (RcActionLog            *self,
                                     RcApp                  *app,
                                     const RcLimits         *applied,
                                     const RcLimits         *defaults,
                                     const RcLimits         *diff,
                                     const RcActionTriggers *why);
/* @value of @limit in resourcectl's words (300, 1.5G, max). */
char        *rc_action_format_limit (RcLimit limit,
                                     guint64 value);
/* The reason of a power change: "power profile power-saver", "on battery",
 * or, when neither holds, "power profile balanced, on AC power". */
char        *rc_action_power_reason (const char *profile,
                                     gboolean    on_battery);
/* a(tsssssss): the entries at or after @since_usec (CLOCK_REALTIME), of
 * the AppID or unit @app ("" for all), oldest first. */
GVariant    *rc_action_log_get (RcActionLog *self,
                                const char  *app,
                                guint64      since_usec);
/* The journal fields of an entry (the (tsssssss) tuple). */
GStrv        rc_action_journal_fields (GVariant *action);
/* The MESSAGE_ID of @kind (32 hex digits); NULL for an unknown kind. */
const char  *rc_action_message_id (const char *kind);
/* Serves GetActions on @object and emits its ActionTaken. */
void         rc_action_log_serve (RcActionLog           *self,
                                  RcDBusResourceControl *object);

/* How many distinct strings the entries share (for tests). */
guint        rc_action_log_count_strings (RcActionLog *self);

G_END_DECLS
