/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "rc-action-log.h"
#include "rc-cpu-watch.h"
#include "rc-energy.h"
#include "rc-ladder-watch.h"
#include "rc-memory-watch.h"
#include "rc-rules.h"

G_BEGIN_DECLS

/* The notifier: desktop notifications (org.freedesktop.Notifications) when
 * an app instance is killed for memory (memory.events oom_kill rises: the
 * kernel at its MemoryMax; or systemd-oomd's mark on its folder) and when its
 * own limit has held it back for a sustained time (memory.events high or max
 * rising, or its CPU quota throttling it, for RC_HELD_BACK_SUSTAIN_SEC). At
 * most one of each kind per instance per RC_NOTIFY_QUIET_SEC; the [Notify]
 * rules group turns each kind off. Its "Open settings" action asks the
 * settings panel to show the app. It only listens: the changes come from
 * RcMemoryWatch and RcCpuWatch, nothing polls. On battery, it also tells
 * once per spell of an app in the background that took more than a share
 * of the power for a sustained time (the [Notify] key PowerDrain), from
 * RcEnergy's samples. When the memory ladder slows an app down or freezes
 * it, it tells once for each per spell (RcLadderWatch's "stepped"; the
 * [Notify] key MemoryLadder). Each notification sent for
 * an app is a "notification" entry of @actions. */
#define RC_TYPE_NOTIFIER (rc_notifier_get_type ())
G_DECLARE_FINAL_TYPE (RcNotifier, rc_notifier, RC, NOTIFIER, GObject);

#define RC_HELD_BACK_SUSTAIN_SEC 10
/* a rise within this of the last continues a spell of being held back */
#define RC_HELD_BACK_GAP_SEC     5
#define RC_NOTIFY_QUIET_SEC      600

typedef enum {
  RC_NOTIFY_OUT_OF_MEMORY,
  RC_NOTIFY_HELD_BACK,
  RC_NOTIFY_POWER_DRAIN,
  RC_NOTIFY_LADDER_THROTTLED,
  RC_NOTIFY_LADDER_FROZEN,
  RC_NOTIFY_N_KINDS
} RcNotifyKind;

/* what happened, each told in its own words under one of the kinds */
typedef enum {
  RC_NOTIFY_CAUSE_OOM_KILL,
  RC_NOTIFY_CAUSE_OOMD_KILL,
  RC_NOTIFY_CAUSE_MEMORY_HELD,
  RC_NOTIFY_CAUSE_CPU_HELD,
  RC_NOTIFY_CAUSE_POWER_DRAIN,
  RC_NOTIFY_CAUSE_LADDER_THROTTLED,
  RC_NOTIFY_CAUSE_LADDER_FROZEN,
  RC_NOTIFY_N_CAUSES
} RcNotifyCause;

/* One instance's spell of being held back: whether a rise of its counters
 * at @now_us (monotonic) makes it RC_HELD_BACK_SUSTAIN_SEC long. Pure, for
 * the unit tests. */
typedef struct {
  gint64 since_us;      /* 0: not held back */
  gint64 last_rise_us;
} RcHeldSpell;

gboolean    rc_held_spell_rise (RcHeldSpell *spell,
                                gint64       now_us);

/* One instance's spell of draining the battery: on battery, in the
 * background, above @percent of the power at each sample since @since_us.
 * rc_drain_spell_sample says, at a sample at @now_us (monotonic), whether
 * the spell has now lasted @sustain_sec and was not told yet: once per
 * spell. The spell ends (and may be told again once it comes back and
 * lasts) when the share falls to @percent or below, when the app comes to
 * the foreground, or when the machine leaves its battery. @percent 0:
 * never. Pure, for the unit tests. */
typedef struct {
  gint64   since_us;    /* 0: not draining */
  gboolean told;
} RcDrainSpell;

gboolean    rc_drain_spell_sample (RcDrainSpell *spell,
                                   double        share,
                                   gboolean      foreground,
                                   gboolean      on_battery,
                                   guint         percent,
                                   guint         sustain_sec,
                                   gint64        now_us);

/* An app's name as a notification shows it (it comes from a desktop file
 * any program of the user may write): at most RC_NOTIFY_NAME_MAX
 * characters, cut with an ellipsis, and escaped when the server reads the
 * body as markup (capability "body-markup"), so a name cannot bring in a
 * link or an image. */
#define RC_NOTIFY_NAME_MAX 64

char       *rc_notify_shown_name (const char *name,
                                  gboolean    markup);

/* All notifications together, whatever the app: at most RC_NOTIFY_BURST at
 * once and one more each RC_NOTIFY_REFILL_SEC (a token bucket: 5 a
 * minute). Those over it are counted and told in one notification when
 * the next may go. Pure, for the unit tests; a zeroed budget is full. */
#define RC_NOTIFY_BURST      5
#define RC_NOTIFY_REFILL_SEC 12

typedef struct {
  guint  tokens;
  gint64 refilled_us;   /* monotonic; 0: never used, full */
} RcNotifyBudget;

gboolean    rc_notify_budget_take (RcNotifyBudget *budget,
                                   gint64          now_us);
/* How long from @now_us until the budget has one to give (0: now). */
gint64      rc_notify_budget_wait_us (RcNotifyBudget *budget,
                                      gint64          now_us);

RcNotifier *rc_notifier_new (GDBusConnection *connection,
                             RcRegistry      *registry,
                             RcMemoryWatch   *memory_watch,
                             RcCpuWatch      *cpu_watch,
                             RcRules         *rules,
                             RcActionLog     *actions);
/* Tells of the apps that drain the battery, from @energy's shares. */
void        rc_notifier_watch_energy (RcNotifier *self,
                                      RcEnergy   *energy);
/* Tells of the apps the memory ladder slows down or freezes. */
void        rc_notifier_watch_ladder (RcNotifier    *self,
                                      RcLadderWatch *ladder);

G_END_DECLS
