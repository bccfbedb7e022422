/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The rules files' format: one file's text read into rules, slices and the
 * boost, and one rule written as a group. No file is opened here: the
 * store (rc-rules.c) reads and writes them. */
#include "rc-rules.h"
#include "rc-api-keys.h"
#include "rc-error.h"
#include "rc-names.h"
#include "rc-unit-name.h"

#include <errno.h>
#include <string.h>

#define BOOST_GROUP "Boost"
#define FREEZE_KEY RC_KEY_FREEZE_WHEN_INACTIVE_SEC
#define ENABLED_KEY "Enabled"
#define SLICE_GROUP_PREFIX "Slice "
#define NOTIFY_GROUP "Notify"
#define GUARD_GROUP "Guard"

static const struct {
  const char  *suffix;
  RcConditions condition;
} layers[RC_RULES_N_LAYERS] = {
  [RC_RULES_LAYER_BASE] = { NULL, 0 },
  [RC_RULES_LAYER_BATTERY] = { " @battery", RC_CONDITION_BATTERY },
  [RC_RULES_LAYER_POWER_SAVER] = { " @power-saver", RC_CONDITION_POWER_SAVER },
};

RcConditions
rc_rules_layer_condition (RcRulesLayer layer)
{
  g_return_val_if_fail (layer < RC_RULES_N_LAYERS, 0);
  return layers[layer].condition;
}

static void problem (GPtrArray  *problems,
                     const char *format,
                     ...) G_GNUC_PRINTF (2, 3);

static void
problem (GPtrArray  *problems,
         const char *format,
         ...)
{
  va_list args;

  va_start (args, format);
  g_ptr_array_add (problems, g_strdup_vprintf (format, args));
  va_end (args);
}

static gboolean
parse_freeze_sec (const char *text,
                  guint      *out_sec,
                  GError    **error)
{
  guint64 value;

  if (!g_ascii_string_to_unsigned (text, 10, 0, RC_FREEZE_INACTIVE_MAX_SEC, &value, NULL))
    {
      g_set_error (error, RC_ERROR, RC_ERROR_INVALID_ARGUMENT,
                   FREEZE_KEY " must be a number of seconds from 0 (never) to %d",
                   RC_FREEZE_INACTIVE_MAX_SEC);
      return FALSE;
    }
  *out_sec = (guint) value;
  return TRUE;
}

/* One limit key of a group: its value parsed and checked like SetLimits. */
static gboolean
parse_limit_key (RcLimits   *limits,
                 const char *key,
                 const char *text,
                 GError    **error)
{
  RcLimits one = { 0, };
  RcLimit limit;
  guint64 value;

  if (!rc_limit_from_key (key, &limit))
    {
      g_set_error (error, RC_ERROR, RC_ERROR_INVALID_ARGUMENT,
                   "unknown key: allowed are CPUWeight, IOWeight, CPUQuota, MemoryMin, "
                   "MemoryLow, MemoryHigh, MemoryMax, MemorySwapMax, TasksMax and "
                   FREEZE_KEY " (not in a [Slice ...] group)");
      return FALSE;
    }
  if (!rc_limit_parse_text (limit, text, &value, error))
    return FALSE;
  rc_limits_set (&one, limit, value);
  if (!rc_limits_validate (&one, g_get_num_processors (), error))
    return FALSE;
  rc_limits_set (limits, limit, value);
  return TRUE;
}

static void
read_boost_group (GPtrArray  *problems,
                  GKeyFile   *file,
                  const char *path,
                  RcBoost    *boost)
{
  g_auto(GStrv) keys = g_key_file_get_keys (file, BOOST_GROUP, NULL, NULL);

  for (guint i = 0; keys != NULL && keys[i] != NULL; i++)
    {
      g_autoptr(GError) error = NULL;
      g_autofree char *text = g_key_file_get_value (file, BOOST_GROUP, keys[i], NULL);

      g_strstrip (text);
      if (g_str_equal (keys[i], ENABLED_KEY))
        {
          gboolean enabled = g_key_file_get_boolean (file, BOOST_GROUP, keys[i], &error);

          if (error == NULL)
            boost->enabled = enabled;
        }
      else if (!g_str_equal (keys[i], RC_KEY_CPU_WEIGHT) && !g_str_equal (keys[i], RC_KEY_IO_WEIGHT) &&
               !g_str_equal (keys[i], RC_KEY_MEMORY_LOW))
        g_set_error_literal (&error, RC_ERROR, RC_ERROR_INVALID_ARGUMENT,
                             "unknown key: allowed are Enabled, CPUWeight, IOWeight and MemoryLow");
      else
        parse_limit_key (&boost->limits, keys[i], text, &error);
      if (error != NULL)
        problem (problems, "%s, [%s], %s: %s", path, BOOST_GROUP, keys[i], error->message);
    }
}

static gboolean
parse_whole (const char *text,
             const char *end_expected,
             guint64     min,
             guint64     max,
             guint64    *out)
{
  char *end = NULL;
  guint64 value;

  if (!g_ascii_isdigit (*text))
    return FALSE;
  errno = 0;
  value = g_ascii_strtoull (text, &end, 10);
  if (errno != 0 || end == text || value < min || value > max)
    return FALSE;
  *out = value;
  return g_str_equal (end, end_expected);
}

gboolean
rc_notify_parse_power_drain (const char *text,
                             guint      *out_percent,
                             guint      *out_sec)
{
  static const struct {
    const char *suffix;
    guint       sec;
  } units[] = { { "s", 1 }, { "min", 60 }, { "h", 3600 } };
  g_auto(GStrv) parts = NULL;
  g_autofree char *number = NULL;
  guint64 percent, count;

  if (g_str_equal (text, "false"))
    {
      *out_percent = 0;
      *out_sec = 0;
      return TRUE;
    }
  if (g_str_equal (text, "true"))
    {
      *out_percent = RC_POWER_DRAIN_PERCENT_DEFAULT;
      *out_sec = RC_POWER_DRAIN_SEC_DEFAULT;
      return TRUE;
    }
  parts = g_strsplit (text, "/", 3);
  if (g_strv_length (parts) != 2 || !parse_whole (parts[0], "%", 1, 100, &percent))
    return FALSE;
  for (gsize u = 0; u < G_N_ELEMENTS (units); u++)
    {
      if (!g_str_has_suffix (parts[1], units[u].suffix))
        continue;
      number = g_strndup (parts[1], strlen (parts[1]) - strlen (units[u].suffix));
      if (!parse_whole (number, "", 1, RC_POWER_DRAIN_SEC_MAX / units[u].sec, &count))
        return FALSE;
      *out_percent = (guint) percent;
      *out_sec = (guint) count * units[u].sec;
      return TRUE;
    }
  return FALSE;
}

static void
read_notify_group (GPtrArray     *problems,
                   GKeyFile      *file,
                   const char    *path,
                   RcNotifyRules *notify)
{
  static const struct {
    const char *key;
    gsize       offset;
  } keys[] = {
    { "OutOfMemory", G_STRUCT_OFFSET (RcNotifyRules, out_of_memory) },
    { "HeldBack", G_STRUCT_OFFSET (RcNotifyRules, held_back) },
    { "MemoryLadder", G_STRUCT_OFFSET (RcNotifyRules, memory_ladder) },
  };
  g_auto(GStrv) names = g_key_file_get_keys (file, NOTIFY_GROUP, NULL, NULL);

  for (guint i = 0; names != NULL && names[i] != NULL; i++)
    {
      g_autoptr(GError) error = NULL;
      gboolean value;
      gsize k;

      if (g_str_equal (names[i], "PowerDrain"))
        {
          g_autofree char *text = g_key_file_get_value (file, NOTIFY_GROUP, names[i], NULL);

          if (!rc_notify_parse_power_drain (g_strstrip (text), &notify->power_drain_percent,
                                            &notify->power_drain_sec))
            problem (problems, "%s, [%s], %s: must be false, true or PERCENT%%/DURATION "
                     "(1..100 %%, 1 s..24 h, as in 50%%/10min)", path, NOTIFY_GROUP, names[i]);
          continue;
        }
      for (k = 0; k < G_N_ELEMENTS (keys) && !g_str_equal (names[i], keys[k].key); k++)
        ;
      if (k == G_N_ELEMENTS (keys))
        {
          problem (problems, "%s, [%s], %s: unknown key: allowed are OutOfMemory, HeldBack, "
                   "MemoryLadder and PowerDrain", path, NOTIFY_GROUP, names[i]);
          continue;
        }
      value = g_key_file_get_boolean (file, NOTIFY_GROUP, names[i], &error);
      if (error != NULL)
        problem (problems, "%s, [%s], %s: must be true or false", path, NOTIFY_GROUP, names[i]);
      else
        G_STRUCT_MEMBER (gboolean, notify, keys[k].offset) = value;
    }
}

/* A percent from 1 to 100, a trailing % allowed (@text is cut there). */
static gboolean
parse_percent (char  *text,
               guint *out_percent)
{
  guint64 value;

  if (g_str_has_suffix (text, "%"))
    text[strlen (text) - 1] = '\0';
  if (!g_ascii_string_to_unsigned (text, 10, 1, 100, &value, NULL))
    return FALSE;
  *out_percent = (guint) value;
  return TRUE;
}

/* [Guard]: Enabled (true, false), CPUPressureTarget (percent, 1..100, a
 * trailing % allowed), CPUWeightFloor (a CPUWeight); the memory ladder's
 * MemoryLadder (true, false), MemoryPressureThrottle and
 * MemoryPressureFreeze (percents, the freeze one above the throttle one:
 * a group that leaves them the other way round keeps the earlier pair). */
static void
read_guard_group (GPtrArray    *problems,
                  GKeyFile     *file,
                  const char   *path,
                  RcGuardRules *guard)
{
  g_auto(GStrv) names = g_key_file_get_keys (file, GUARD_GROUP, NULL, NULL);
  guint throttle = guard->memory_pressure_throttle, freeze = guard->memory_pressure_freeze;

  for (guint i = 0; names != NULL && names[i] != NULL; i++)
    {
      g_autoptr(GError) error = NULL;
      g_autofree char *text = g_key_file_get_value (file, GUARD_GROUP, names[i], NULL);
      const char *why = NULL;
      guint64 value;

      g_strstrip (text);
      if (g_str_equal (names[i], ENABLED_KEY) || g_str_equal (names[i], "MemoryLadder"))
        {
          gboolean enabled = g_key_file_get_boolean (file, GUARD_GROUP, names[i], &error);

          if (error != NULL)
            why = "must be true or false";
          else if (g_str_equal (names[i], ENABLED_KEY))
            guard->enabled = enabled;
          else
            guard->memory_ladder = enabled;
        }
      else if (g_str_equal (names[i], "CPUPressureTarget"))
        {
          if (!parse_percent (text, &guard->cpu_pressure_target))
            why = "must be a percent from 1 to 100";
        }
      else if (g_str_equal (names[i], "MemoryPressureThrottle"))
        {
          if (!parse_percent (text, &guard->memory_pressure_throttle))
            why = "must be a percent from 1 to 100";
        }
      else if (g_str_equal (names[i], "MemoryPressureFreeze"))
        {
          if (!parse_percent (text, &guard->memory_pressure_freeze))
            why = "must be a percent from 1 to 100";
        }
      else if (g_str_equal (names[i], "CPUWeightFloor"))
        {
          if (!g_ascii_string_to_unsigned (text, 10, RC_WEIGHT_MIN, RC_WEIGHT_MAX, &value, NULL))
            why = "must be a CPU weight from 1 to 10000";
          else
            guard->cpu_weight_floor = value;
        }
      else
        why = "unknown key: allowed are Enabled, CPUPressureTarget, CPUWeightFloor, "
              "MemoryLadder, MemoryPressureThrottle and MemoryPressureFreeze";
      if (why != NULL)
        problem (problems, "%s, [%s], %s: %s", path, GUARD_GROUP, names[i], why);
    }
  if (guard->memory_pressure_freeze <= guard->memory_pressure_throttle)
    {
      problem (problems, "%s, [%s], MemoryPressureFreeze: must be above MemoryPressureThrottle "
               "(%u %% and %u %%)", path, GUARD_GROUP, guard->memory_pressure_freeze,
               guard->memory_pressure_throttle);
      guard->memory_pressure_throttle = throttle;
      guard->memory_pressure_freeze = freeze;
    }
}

/* "~/.config/resource-control/rules.d/20-x.conf [org.x]": D-Bus and
 * journal text, so valid UTF-8 whatever bytes the file name has, and cut
 * at a character below RC_RULE_ORIGIN_MAX bytes. */
static char *
origin_text (const char *path,
             const char *group)
{
  const char *home = g_get_home_dir ();
  gsize home_len = strlen (home);
  g_autofree char *text = NULL;
  g_autofree char *valid = NULL;
  const char *end;

  if (home_len > 1 && g_str_has_prefix (path, home) && path[home_len] == '/')
    text = g_strdup_printf ("~%s [%s]", path + home_len, group);
  else
    text = g_strdup_printf ("%s [%s]", path, group);
  valid = g_utf8_make_valid (text, -1);
  if (strlen (valid) >= RC_RULE_ORIGIN_MAX)
    valid[RC_RULE_ORIGIN_MAX - 1] = '\0';
  if (!g_utf8_validate (valid, -1, &end))
    *(char *) end = '\0';
  return g_steal_pointer (&valid);
}

static RcRule *
read_rule_group (GPtrArray  *problems,
                 GKeyFile   *file,
                 const char *path,
                 const char *group)
{
  g_auto(GStrv) keys = g_key_file_get_keys (file, group, NULL, NULL);
  g_autofree char *origin = origin_text (path, group);
  gsize origin_size = strlen (origin) + 1;
  RcRule *rule = g_malloc0 (sizeof (RcRule) + origin_size);

  rule->origin = memcpy (rule + 1, origin, origin_size);

  for (guint i = 0; keys != NULL && keys[i] != NULL; i++)
    {
      g_autoptr(GError) error = NULL;
      g_autofree char *text = g_key_file_get_value (file, group, keys[i], NULL);

      g_strstrip (text);
      if (g_str_equal (keys[i], FREEZE_KEY))
        rule->has_freeze = parse_freeze_sec (text, &rule->freeze_when_inactive_sec, &error);
      else
        parse_limit_key (&rule->limits, keys[i], text, &error);
      if (error != NULL)
        problem (problems, "%s, [%s], %s: %s", path, group, keys[i], error->message);
    }
  return rule;
}

/* "Slice session" -> "session.slice"; NULL for a group of another kind. */
static char *
slice_of_group (const char *group)
{
  static const char * const names[] = { "session", "app", "background" };

  if (!g_str_has_prefix (group, SLICE_GROUP_PREFIX))
    return NULL;
  for (gsize i = 0; i < G_N_ELEMENTS (names); i++)
    if (g_str_equal (group + strlen (SLICE_GROUP_PREFIX), names[i]))
      return g_strconcat (names[i], ".slice", NULL);
  return NULL;
}

static RcLimits *
read_slice_group (GPtrArray  *problems,
                  GKeyFile   *file,
                  const char *path,
                  const char *group)
{
  RcRule *rule = read_rule_group (problems, file, path, group);
  RcLimits *limits = g_new0 (RcLimits, 1);

  if (rule->freeze_when_inactive_sec != 0)
    problem (problems, "%s, [%s], %s: a slice is never frozen", path, group, FREEZE_KEY);
  *limits = rule->limits;
  g_free (rule);
  return limits;
}

gboolean
rc_rules_split_group (const char   *group,
                      char        **out_base,
                      RcConditions *out_condition)
{
  const char *at = strstr (group, " @");

  if (at == NULL)
    {
      *out_base = g_strdup (group);
      *out_condition = 0;
      return TRUE;
    }
  for (guint i = RC_RULES_LAYER_BASE + 1; i < RC_RULES_N_LAYERS; i++)
    if (g_str_equal (at, layers[i].suffix))
      {
        *out_base = g_strndup (group, at - group);
        *out_condition = layers[i].condition;
        return TRUE;
      }
  return FALSE;
}

static guint
layer_of_condition (RcConditions condition)
{
  for (guint i = 0; i < RC_RULES_N_LAYERS; i++)
    if (layers[i].condition == condition)
      return i;
  g_assert_not_reached ();
}

void
rc_rules_parse_data (const char    *data,
                     gsize          length,
                     const char    *path,
                     GHashTable   **rules,
                     GHashTable   **slices,
                     RcBoost       *boost,
                     RcNotifyRules *notify,
                     RcGuardRules  *guard,
                     GPtrArray     *problems)
{
  g_autoptr(GKeyFile) file = g_key_file_new ();
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) groups = NULL;

  if (!g_key_file_load_from_data (file, data, length, G_KEY_FILE_NONE, &error))
    {
      problem (problems, "%s: %s", path, error->message);
      return;
    }
  groups = g_key_file_get_groups (file, NULL);
  for (guint i = 0; groups[i] != NULL; i++)
    {
      g_autofree char *base = NULL;
      g_autofree char *slice = NULL;
      RcConditions condition;
      guint layer;

      if (!rc_rules_split_group (groups[i], &base, &condition))
        {
          problem (problems, "%s, [%s]: a group name may end in \" @battery\" or "
                   "\" @power-saver\" only", path, groups[i]);
          continue;
        }
      layer = layer_of_condition (condition);
      slice = slice_of_group (base);
      if (g_str_equal (base, BOOST_GROUP) && layer == RC_RULES_LAYER_BASE)
        read_boost_group (problems, file, path, boost);
      else if (g_str_equal (base, BOOST_GROUP))
        problem (problems, "%s, [%s]: the boost has no power conditions", path, groups[i]);
      else if (g_str_equal (base, NOTIFY_GROUP) && layer == RC_RULES_LAYER_BASE)
        read_notify_group (problems, file, path, notify);
      else if (g_str_equal (base, NOTIFY_GROUP))
        problem (problems, "%s, [%s]: notifications have no power conditions", path, groups[i]);
      else if (g_str_equal (base, GUARD_GROUP) && layer == RC_RULES_LAYER_BASE)
        read_guard_group (problems, file, path, guard);
      else if (g_str_equal (base, GUARD_GROUP))
        problem (problems, "%s, [%s]: the guard has no power conditions", path, groups[i]);
      else if (slice != NULL)
        g_hash_table_replace (slices[layer], g_steal_pointer (&slice),
                              read_slice_group (problems, file, path, groups[i]));
      else if (g_str_has_prefix (base, SLICE_GROUP_PREFIX))
        problem (problems, "%s, [%s]: the slices are [Slice session], [Slice app] and "
                 "[Slice background]", path, groups[i]);
      else if (!rc_app_id_is_valid (base))
        problem (problems, "%s, [%s]: not a desktop AppID (e.g. org.gnome.Calculator)",
                 path, groups[i]);
      else
        g_hash_table_replace (rules[layer], g_steal_pointer (&base),
                              read_rule_group (problems, file, path, groups[i]));
    }
}

void
rc_rules_write_group (GKeyFile     *file,
                      const char   *app_id,
                      const RcRule *rule)
{
  g_key_file_remove_group (file, app_id, NULL);
  for (RcLimit limit = 0; limit < RC_N_LIMITS; limit++)
    {
      g_autofree char *text = NULL;

      if (!rc_limits_has (&rule->limits, limit))
        continue;
      text = rc_limit_format_text (limit, rule->limits.values[limit]);
      g_key_file_set_value (file, app_id, rc_limit_key (limit), text);
    }
  if (rule->freeze_when_inactive_sec > 0)
    g_key_file_set_uint64 (file, app_id, FREEZE_KEY, rule->freeze_when_inactive_sec);
}
