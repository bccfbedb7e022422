/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>

#include "rc-limit-table.h"

G_BEGIN_DECLS

/* The limits validator: what a caller may ask for, checked before anything
 * changes, and turned into systemd unit properties. The keys and their text
 * form are rc-limit-table.h's. */

/* The keys systemd-oomd acts on: nothing without it. */
#define RC_LIMITS_OOM ((1u << RC_LIMIT_OOM_PREFERENCE) | (1u << RC_LIMIT_OOM_PRESSURE) | \
                       (1u << RC_LIMIT_OOM_PRESSURE_LIMIT))

/* Memory limits below this leave no room for any desktop app to run. */
#define RC_MEMORY_MIN_BYTES (16 * 1024 * 1024)
#define RC_WEIGHT_MIN 1
#define RC_WEIGHT_MAX 10000
#define RC_WEIGHT_DEFAULT 100

/* The limits that can make the kernel reclaim hard or kill (WouldKill). */
#define RC_LIMITS_MEMORY_CAPS ((1u << RC_LIMIT_MEMORY_HIGH) | (1u << RC_LIMIT_MEMORY_MAX))

typedef struct {
  guint    set;                   /* one bit per RcLimit */
  guint64  values[RC_N_LIMITS];   /* CPUQuota in percent of one CPU */
  gboolean force;
} RcLimits;

void        rc_limits_set (RcLimits *limits,
                           RcLimit   limit,
                           guint64   value);
gboolean    rc_limits_has (const RcLimits *limits,
                           RcLimit         limit);

gboolean    rc_limits_validate (const RcLimits *limits,
                                guint           n_cpus,
                                GError        **error);
/* InvalidArgument when @limits (a{sv}) has more entries than there are
 * limit keys (plus MemoryLimit and @n_other_keys): an O(1) check to make
 * before reading a caller's dictionary. */
gboolean    rc_limits_check_size (GVariant *limits,
                                  guint     n_other_keys,
                                  GError  **error);
gboolean    rc_limits_parse (GVariant *limits,
                             GVariant *options,
                             guint     n_cpus,
                             RcLimits *out_limits,
                             GError  **error);
void        rc_limits_init_memory_limit (RcLimits *limits,
                                         guint64   bytes);
void        rc_limits_init_reset (RcLimits *limits,
                                  guint64   default_tasks_max);

/* Checks against one app's cgroup as it is now: NotSupported for IOWeight
 * without the io controller and for the ManagedOOM keys without
 * systemd-oomd or (the preference) on a unit that runs already, WouldKill
 * for a memory limit below current use unless forced. */
gboolean    rc_limits_check_app (const RcLimits *limits,
                                 const char     *unit,
                                 const char     *control_group,
                                 GError        **error);

/* The limits of @wanted that @applied does not have with the same value. */
void        rc_limits_diff (const RcLimits *wanted,
                            const RcLimits *applied,
                            RcLimits       *out_diff);
GVariant   *rc_limits_to_unit_properties (const RcLimits *limits);
/* The same, added to an a(sv) being built. */
void        rc_limits_add_unit_properties (const RcLimits  *limits,
                                           GVariantBuilder *builder);
GVariant   *rc_limits_to_app_changes (const RcLimits *limits);
/* Is systemd-oomd there to act on the ManagedOOM keys? */
gboolean    rc_limits_oomd_running (void);
/* The ManagedOOM keys of @limits that would do nothing because systemd-oomd
 * does not run (asked only when @limits has any): all of them, or none. */
guint       rc_limits_oom_without_oomd (const RcLimits *limits);
/* NotSupported when @limits has ManagedOOM keys and systemd-oomd does not run. */
gboolean    rc_limits_check_oomd (const RcLimits *limits,
                                  GError        **error);

/* Which value each limit should have, first found: @boost (NULL unless the
 * app holds the boost), @api (set through the API), @rule (NULL: none),
 * and for a limit that has been applied (@applied) but no one sets any
 * more, @defaults. A limit no one ever set is left out of @out_limits. */
void         rc_limits_resolve (const RcLimits *boost,
                                const RcLimits *api,
                                const RcLimits *rule,
                                const RcLimits *applied,
                                const RcLimits *defaults,
                                RcLimits       *out_limits);

G_END_DECLS
