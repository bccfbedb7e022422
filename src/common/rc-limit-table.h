/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* The limit keys of the API (SetLimits, SetRule, the app records), their
 * D-Bus types and their text form (rules files, resourcectl): one table,
 * shared by the daemon, its rules, the command line and the panel. */
typedef enum {
  RC_LIMIT_CPU_WEIGHT,
  RC_LIMIT_IO_WEIGHT,
  RC_LIMIT_CPU_QUOTA,
  RC_LIMIT_MEMORY_LOW,
  RC_LIMIT_MEMORY_HIGH,
  RC_LIMIT_MEMORY_MAX,
  RC_LIMIT_TASKS_MAX,
  RC_LIMIT_MEMORY_MIN,
  RC_LIMIT_MEMORY_SWAP_MAX,
  RC_LIMIT_OOM_PREFERENCE,        /* RcOomPreference */
  RC_LIMIT_OOM_PRESSURE,          /* RcOomPressure */
  RC_LIMIT_OOM_PRESSURE_LIMIT,    /* percent, 0..100 */
  RC_N_LIMITS
} RcLimit;

typedef enum { RC_OOM_PREFERENCE_NONE, RC_OOM_PREFERENCE_AVOID, RC_OOM_PREFERENCE_OMIT } RcOomPreference;
typedef enum { RC_OOM_PRESSURE_AUTO, RC_OOM_PRESSURE_KILL } RcOomPressure;

/* The key as the API and rules files spell it ("CPUWeight"). */
const char *rc_limit_key (RcLimit limit);
/* The D-Bus type of its value: "t", "u" or "s". */
const char *rc_limit_type (RcLimit limit);
/* The words a named limit takes (NULL-terminated; its value is the index),
 * or NULL for a number. */
const char * const *rc_limit_names (RcLimit limit);
/* Exact spelling, as in rules files and on the bus. */
gboolean    rc_limit_from_key (const char *key,
                               RcLimit    *out_limit);
/* Any case, as systemd and resourcectl take keys on the command line. */
gboolean    rc_limit_from_key_nocase (const char *key,
                                      RcLimit    *out_limit);

/* One value as people write it: 300, 50%, 2G, infinity, max, avoid.
 * Syntax only (ranges are the daemon's rc_limits_validate), the same for a
 * rules file and for resourcectl. "max" and "infinity" mean no limit: for
 * CPUQuota that is 0 (no quota). Named limits give the index of the word. */
gboolean    rc_limit_parse_text (RcLimit     limit,
                                 const char *text,
                                 guint64    *out_value,
                                 GError    **error);
/* The value as the API's SetLimits takes it (a floating GVariant). */
GVariant   *rc_limit_parse_text_variant (RcLimit     limit,
                                         const char *text,
                                         GError    **error);
/* The inverse of rc_limit_parse_text: 2G, 50%, infinity, avoid (what a
 * rules file keeps: it parses back to @value). */
char       *rc_limit_format_text (RcLimit limit,
                                  guint64 value);
/* A value of the limit (of its D-Bus type, as in the app records and rules)
 * as people read it, the one wording of resourcectl and the panel: 300, 50%,
 * 1.5G, max (no limit, no quota), avoid; "-" for a weight the daemon could
 * not read. NULL for a value of another type or a word the limit does not
 * know (from a newer daemon): the caller shows it as it is. */
char       *rc_limit_format_value (RcLimit   limit,
                                   GVariant *value);
/* A rule (SetRule's and ListRules' a{sv}) in words, the one text of
 * `resourcectl rule list` (KEY=VALUE KEY=VALUE) and the panel's rules page
 * (KEY VALUE · KEY VALUE): the limits in the table's order, then
 * FreezeWhenInactiveSec, then keys this program does not know, each value
 * as rc_limit_format_value words it (other values as they are). "" for an
 * empty rule. */
char       *rc_limit_format_rule (GVariant   *rule,
                                  const char *between_key_and_value,
                                  const char *between_keys);

G_END_DECLS
