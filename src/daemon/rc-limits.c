/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "rc-limits.h"
#include "rc-api-keys.h"
#include "rc-cgroup.h"
#include "rc-error.h"
#include "rc-size.h"
#include "rc-test-hooks.h"

#include <gio/gio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#define PAGE_BYTES 4096

typedef enum {
  RANGE_WEIGHT,       /* 1..10000 */
  RANGE_QUOTA,        /* 0..100 x CPUs, a u */
  RANGE_MEMORY,       /* >= 16 MiB, or G_MAXUINT64 */
  RANGE_MEMORY_LOW,   /* as RANGE_MEMORY, and 0 (no protection) */
  RANGE_TASKS,        /* >= 1, or G_MAXUINT64 */
  RANGE_SWAP,         /* any size: 0 (no swap) to G_MAXUINT64 (no limit) */
  RANGE_PERCENT,      /* 0..100, a u */
  RANGE_PREFERENCE,   /* an s: none, avoid, omit */
  RANGE_PRESSURE,     /* an s: auto, kill */
} Range;

static const struct {
  const char *property;   /* systemd unit property */
  Range       range;
} limit_info[RC_N_LIMITS] = {
  [RC_LIMIT_CPU_WEIGHT] = { "CPUWeight", RANGE_WEIGHT },
  [RC_LIMIT_IO_WEIGHT] = { "IOWeight", RANGE_WEIGHT },
  [RC_LIMIT_CPU_QUOTA] = { "CPUQuotaPerSecUSec", RANGE_QUOTA },
  [RC_LIMIT_MEMORY_LOW] = { "MemoryLow", RANGE_MEMORY_LOW },
  [RC_LIMIT_MEMORY_HIGH] = { "MemoryHigh", RANGE_MEMORY },
  [RC_LIMIT_MEMORY_MAX] = { "MemoryMax", RANGE_MEMORY },
  [RC_LIMIT_TASKS_MAX] = { "TasksMax", RANGE_TASKS },
  [RC_LIMIT_MEMORY_MIN] = { "MemoryMin", RANGE_MEMORY_LOW },
  [RC_LIMIT_MEMORY_SWAP_MAX] = { "MemorySwapMax", RANGE_SWAP },
  [RC_LIMIT_OOM_PREFERENCE] = { "ManagedOOMPreference", RANGE_PREFERENCE },
  [RC_LIMIT_OOM_PRESSURE] = { "ManagedOOMMemoryPressure", RANGE_PRESSURE },
  [RC_LIMIT_OOM_PRESSURE_LIMIT] = { "ManagedOOMMemoryPressureLimit", RANGE_PERCENT },
};

static const char * const *
names_of (RcLimit limit)
{
  return rc_limit_names (limit);
}

/* The name of value @value of a named limit (the first one for a value
 * that is none of them, which parsing never gives). */
static const char *
name_of (RcLimit limit,
         guint64 value)
{
  const char * const *names = names_of (limit);

  g_return_val_if_fail (names != NULL, "");
  for (guint64 i = 0; names[i] != NULL; i++)
    if (i == value)
      return names[i];
  return names[0];
}

/* The index of @text in the words of @limit; FALSE with the words allowed. */
static gboolean
parse_name (RcLimit     limit,
            const char *text,
            guint64    *out_value,
            GError    **error)
{
  return rc_limit_parse_text (limit, text, out_value, error);
}

void
rc_limits_set (RcLimits *limits,
               RcLimit   limit,
               guint64   value)
{
  limits->set |= 1u << limit;
  limits->values[limit] = value;
}

gboolean
rc_limits_has (const RcLimits *limits,
               RcLimit         limit)
{
  return (limits->set & (1u << limit)) != 0;
}

static gboolean
check_range (RcLimit  limit,
             guint64  value,
             guint    n_cpus,
             GError **error)
{
  const char *key = rc_limit_key (limit);

  switch (limit_info[limit].range)
    {
    case RANGE_WEIGHT:
      if (value >= RC_WEIGHT_MIN && value <= RC_WEIGHT_MAX)
        return TRUE;
      g_set_error (error, RC_ERROR, RC_ERROR_INVALID_ARGUMENT,
                   "%s %" G_GUINT64_FORMAT " is out of range: allowed are %d to %d "
                   "(systemd's default is %d)", key, value, RC_WEIGHT_MIN, RC_WEIGHT_MAX,
                   RC_WEIGHT_DEFAULT);
      return FALSE;

    case RANGE_QUOTA:
      if (value <= 100 * (guint64) n_cpus)
        return TRUE;
      g_set_error (error, RC_ERROR, RC_ERROR_INVALID_ARGUMENT,
                   "%s %" G_GUINT64_FORMAT "%% is out of range: allowed are 1 to %u percent "
                   "of one CPU (100 x %u CPUs), or 0 to remove the quota",
                   key, value, 100 * n_cpus, n_cpus);
      return FALSE;

    case RANGE_MEMORY_LOW:
      if (value == 0)
        return TRUE;
      G_GNUC_FALLTHROUGH;
    case RANGE_MEMORY:
      if (value >= RC_MEMORY_MIN_BYTES)
        return TRUE;
      g_set_error (error, RC_ERROR, RC_ERROR_INVALID_ARGUMENT,
                   "%s %" G_GUINT64_FORMAT " bytes is too small: allowed are at least "
                   "16 MiB (%d bytes)%s, or %" G_GUINT64_FORMAT " for no limit",
                   key, value, RC_MEMORY_MIN_BYTES,
                   limit_info[limit].range == RANGE_MEMORY_LOW ? ", 0 for no protection" : "",
                   G_MAXUINT64);
      return FALSE;

    case RANGE_TASKS:
      if (value >= 1)
        return TRUE;
      g_set_error (error, RC_ERROR, RC_ERROR_INVALID_ARGUMENT,
                   "%s 0 is out of range: allowed are 1 or more, or %" G_GUINT64_FORMAT
                   " for no limit", key, G_MAXUINT64);
      return FALSE;

    case RANGE_SWAP:
    case RANGE_PREFERENCE:
    case RANGE_PRESSURE:
      return TRUE;

    case RANGE_PERCENT:
      if (value <= 100)
        return TRUE;
      g_set_error (error, RC_ERROR, RC_ERROR_INVALID_ARGUMENT,
                   "%s %" G_GUINT64_FORMAT "%% is out of range: allowed are 0 to 100 percent",
                   key, value);
      return FALSE;

    default:
      g_assert_not_reached ();
    }
}

gboolean
rc_limits_validate (const RcLimits *limits,
                    guint           n_cpus,
                    GError        **error)
{
  for (RcLimit limit = 0; limit < RC_N_LIMITS; limit++)
    {
      if (rc_limits_has (limits, limit) &&
          !check_range (limit, limits->values[limit], n_cpus, error))
        return FALSE;
    }
  return TRUE;
}

static gboolean
parse_options (GVariant *options,
               gboolean *out_force,
               GError  **error)
{
  GVariantIter iter;
  const char *key;
  GVariant *value;
  gboolean force = FALSE, seen = FALSE;

  g_variant_iter_init (&iter, options);
  while (g_variant_iter_next (&iter, "{&sv}", &key, &value))
    {
      g_autoptr(GVariant) owned G_GNUC_UNUSED = value;   /* frees value */

      if (!g_str_equal (key, RC_OPTION_FORCE))
        {
          g_autofree char *shown = g_utf8_make_valid (key, MIN (strlen (key), 64));

          g_set_error (error, RC_ERROR, RC_ERROR_INVALID_ARGUMENT,
                       "Unknown option “%s”: the only option is force (b)", shown);
          return FALSE;
        }
      if (seen)
        {
          g_set_error_literal (error, RC_ERROR, RC_ERROR_INVALID_ARGUMENT,
                               "Option force is given twice");
          return FALSE;
        }
      if (!g_variant_is_of_type (value, G_VARIANT_TYPE_BOOLEAN))
        {
          g_set_error (error, RC_ERROR, RC_ERROR_INVALID_ARGUMENT,
                       "Option force has type %s: it must be b (boolean)",
                       g_variant_get_type_string (value));
          return FALSE;
        }
      seen = TRUE;
      force = g_variant_get_boolean (value);
    }
  *out_force = force;
  return TRUE;
}

gboolean
rc_limits_check_size (GVariant *limits,
                      guint     n_other_keys,
                      GError  **error)
{
  /* Counted before anything is read: each key may come once. */
  gsize n = g_variant_n_children (limits), most = RC_N_LIMITS + 1 + n_other_keys;

  if (n <= most)
    return TRUE;
  g_set_error (error, RC_ERROR, RC_ERROR_INVALID_ARGUMENT,
               "%" G_GSIZE_FORMAT " limits given: there are %" G_GSIZE_FORMAT " keys, and "
               "each may be given once", n, most);
  return FALSE;
}

gboolean
rc_limits_parse (GVariant *limits,
                 GVariant *options,
                 guint     n_cpus,
                 RcLimits *out_limits,
                 GError  **error)
{
  RcLimits parsed = { 0, };
  GVariantIter iter;
  const char *key;
  GVariant *value;
  g_autoptr(GVariant) memory_limit = NULL;

  if (!rc_limits_check_size (limits, 0, error))
    return FALSE;
  g_variant_iter_init (&iter, limits);
  while (g_variant_iter_next (&iter, "{&sv}", &key, &value))
    {
      g_autoptr(GVariant) owned G_GNUC_UNUSED = value;   /* frees value */
      RcLimit limit;

      /* The pair SetMemoryLimit sets, for a caller that needs "force":
       * the rule that ties MemoryHigh to MemoryMax stays here. */
      if (g_str_equal (key, RC_KEY_MEMORY_LIMIT))
        {
          if (memory_limit != NULL || !g_variant_is_of_type (value, G_VARIANT_TYPE_UINT64))
            {
              g_set_error (error, RC_ERROR, RC_ERROR_INVALID_ARGUMENT,
                           memory_limit != NULL ? "Limit %s is given twice"
                                                : "Limit %s has type %s: it must be t",
                           key, g_variant_get_type_string (value));
              return FALSE;
            }
          memory_limit = g_variant_ref (value);
          continue;
        }
      if (!rc_limit_from_key (key, &limit))
        {
          /* Show at most 64 bytes of whatever the caller sent. */
          g_autofree char *shown = g_utf8_make_valid (key, MIN (strlen (key), 64));

          g_set_error (error, RC_ERROR, RC_ERROR_INVALID_ARGUMENT,
                       "Unknown limit “%s”: allowed are CPUWeight (t), IOWeight (t), "
                       "CPUQuota (u), MemoryMin (t), MemoryLow (t), MemoryHigh (t), "
                       "MemoryMax (t), MemorySwapMax (t), TasksMax (t), MemoryLimit (t), "
                       "ManagedOOMPreference (s), ManagedOOMMemoryPressure (s), "
                       "ManagedOOMMemoryPressureLimit (u)", shown);
          return FALSE;
        }
      if (rc_limits_has (&parsed, limit))
        {
          g_set_error (error, RC_ERROR, RC_ERROR_INVALID_ARGUMENT,
                       "Limit %s is given twice", key);
          return FALSE;
        }
      if (!g_variant_is_of_type (value, G_VARIANT_TYPE (rc_limit_type (limit))))
        {
          g_set_error (error, RC_ERROR, RC_ERROR_INVALID_ARGUMENT,
                       "Limit %s has type %s: it must be %s", key,
                       g_variant_get_type_string (value), rc_limit_type (limit));
          return FALSE;
        }
      if (names_of (limit) != NULL)
        {
          guint64 index;

          if (!parse_name (limit, g_variant_get_string (value, NULL), &index, error))
            return FALSE;
          rc_limits_set (&parsed, limit, index);
        }
      else
        rc_limits_set (&parsed, limit,
                       g_variant_is_of_type (value, G_VARIANT_TYPE_UINT32)
                       ? g_variant_get_uint32 (value) : g_variant_get_uint64 (value));
    }

  if (memory_limit != NULL)
    {
      RcLimits pair;

      if (rc_limits_has (&parsed, RC_LIMIT_MEMORY_MAX) || rc_limits_has (&parsed, RC_LIMIT_MEMORY_HIGH))
        {
          g_set_error_literal (error, RC_ERROR, RC_ERROR_INVALID_ARGUMENT,
                               "MemoryLimit sets MemoryMax and MemoryHigh together: give either "
                               "MemoryLimit or those two");
          return FALSE;
        }
      rc_limits_init_memory_limit (&pair, g_variant_get_uint64 (memory_limit));
      rc_limits_set (&parsed, RC_LIMIT_MEMORY_MAX, pair.values[RC_LIMIT_MEMORY_MAX]);
      rc_limits_set (&parsed, RC_LIMIT_MEMORY_HIGH, pair.values[RC_LIMIT_MEMORY_HIGH]);
    }
  if (parsed.set == 0)
    {
      g_set_error_literal (error, RC_ERROR, RC_ERROR_INVALID_ARGUMENT,
                           "No limits given: pass at least one of CPUWeight, IOWeight, "
                           "CPUQuota, MemoryLow, MemoryHigh, MemoryMax, TasksMax, MemoryLimit");
      return FALSE;
    }
  if (!parse_options (options, &parsed.force, error) ||
      !rc_limits_validate (&parsed, n_cpus, error))
    return FALSE;

  *out_limits = parsed;
  return TRUE;
}

void
rc_limits_init_memory_limit (RcLimits *limits,
                             guint64   bytes)
{
  *limits = (RcLimits) { 0, };
  rc_limits_set (limits, RC_LIMIT_MEMORY_MAX, bytes);
  /* Throttle and reclaim a little before the hard limit, so the app slows
   * down instead of being killed at the first peak. */
  rc_limits_set (limits, RC_LIMIT_MEMORY_HIGH,
                 bytes == G_MAXUINT64 ? G_MAXUINT64 : bytes - bytes / 8);
}

void
rc_limits_init_reset (RcLimits *limits,
                      guint64   default_tasks_max)
{
  *limits = (RcLimits) { 0, };
  /* Explicit 100 rather than "unset": the app keeps its own cpu and io
   * controllers, and so its fair share (docs/design.md, "Fair by default"). */
  rc_limits_set (limits, RC_LIMIT_CPU_WEIGHT, RC_WEIGHT_DEFAULT);
  rc_limits_set (limits, RC_LIMIT_IO_WEIGHT, RC_WEIGHT_DEFAULT);
  rc_limits_set (limits, RC_LIMIT_CPU_QUOTA, 0);
  rc_limits_set (limits, RC_LIMIT_MEMORY_LOW, 0);
  rc_limits_set (limits, RC_LIMIT_MEMORY_HIGH, G_MAXUINT64);
  rc_limits_set (limits, RC_LIMIT_MEMORY_MAX, G_MAXUINT64);
  rc_limits_set (limits, RC_LIMIT_TASKS_MAX, default_tasks_max);
  rc_limits_set (limits, RC_LIMIT_MEMORY_MIN, 0);
  rc_limits_set (limits, RC_LIMIT_MEMORY_SWAP_MAX, G_MAXUINT64);
}

/* systemd-oomd listens on this socket for the managers' ManagedOOM cgroups
 * (the tests point it elsewhere). A socket file stays behind when
 * systemd-oomd.socket stops, so it counts only if it takes a connection:
 * a local connect answers at once, and starts systemd-oomd if it is
 * socket-activated, as the user's manager would. */
gboolean
rc_limits_oomd_running (void)
{
  const char *path = rc_test_hook ("RC_OOMD_SOCKET");
  struct sockaddr_un addr = { .sun_family = AF_UNIX };
  gboolean listening;
  int fd;

  if (path == NULL)
    path = "/run/systemd/oom/io.system.ManagedOOM";
  if (strlen (path) >= sizeof addr.sun_path)
    return FALSE;
  strcpy (addr.sun_path, path);
  fd = socket (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0)
    return FALSE;
  listening = connect (fd, (struct sockaddr *) &addr, sizeof addr) == 0;
  close (fd);
  return listening;
}

guint
rc_limits_oom_without_oomd (const RcLimits *limits)
{
  guint oom = limits->set & RC_LIMITS_OOM;

  return oom != 0 && !rc_limits_oomd_running () ? oom : 0;
}

gboolean
rc_limits_check_oomd (const RcLimits *limits,
                      GError        **error)
{
  if (rc_limits_oom_without_oomd (limits) == 0)
    return TRUE;
  g_set_error_literal (error, RC_ERROR, RC_ERROR_NOT_SUPPORTED,
                       "systemd-oomd does not run on this system, so ManagedOOMPreference, "
                       "ManagedOOMMemoryPressure and ManagedOOMMemoryPressureLimit would do "
                       "nothing (install and start systemd-oomd)");
  return FALSE;
}

gboolean
rc_limits_check_app (const RcLimits *limits,
                     const char     *unit,
                     const char     *control_group,
                     GError        **error)
{
  static const RcLimit memory_limits[] = { RC_LIMIT_MEMORY_MAX, RC_LIMIT_MEMORY_HIGH };
  guint64 current;

  if (rc_limits_has (limits, RC_LIMIT_IO_WEIGHT) &&
      !rc_cgroup_is_delegated (control_group, "io"))
    {
      g_set_error (error, RC_ERROR, RC_ERROR_NOT_SUPPORTED,
                   "IOWeight is not supported for %s: the io controller is not delegated to "
                   "the user's service manager (see docs/user-guide.md, “IO weight”)", unit);
      return FALSE;
    }
  if (!rc_limits_check_oomd (limits, error))
    return FALSE;
  /* measured with systemd 252: a runtime ManagedOOMPreference changes the
   * unit's property but not the cgroup's user.oomd_avoid/omit xattr that
   * systemd-oomd reads, which is written only when the cgroup is made */
  if (rc_limits_has (limits, RC_LIMIT_OOM_PREFERENCE))
    {
      g_set_error (error, RC_ERROR, RC_ERROR_NOT_SUPPORTED,
                   "ManagedOOMPreference cannot change for %s, which runs already: systemd "
                   "writes it for systemd-oomd only when a unit starts (give it to Launch, "
                   "resourcectl run --set, or a rule)", unit);
      return FALSE;
    }

  if (limits->force || !rc_cgroup_read_u64 (control_group, "memory.current", &current) ||
      current == G_MAXUINT64)
    return TRUE;

  for (guint i = 0; i < G_N_ELEMENTS (memory_limits); i++)
    {
      RcLimit limit = memory_limits[i];
      guint64 value = limits->values[limit];

      /* The kernel keeps memory in pages: compare whole 4 KiB pages. */
      if (rc_limits_has (limits, limit) && value != G_MAXUINT64 &&
          value / PAGE_BYTES < (current + PAGE_BYTES - 1) / PAGE_BYTES)
        {
          g_set_error (error, RC_ERROR, RC_ERROR_WOULD_KILL,
                       "%s %" G_GUINT64_FORMAT " bytes is below the %" G_GUINT64_FORMAT
                       " bytes %s uses now: the kernel would reclaim hard or kill it and "
                       "unsaved work would be lost. Choose a higher limit, or pass the "
                       "force option to SetLimits to insist", rc_limit_key (limit), value,
                       current, unit);
          return FALSE;
        }
    }
  return TRUE;
}

void
rc_limits_diff (const RcLimits *wanted,
                const RcLimits *applied,
                RcLimits       *out_diff)
{
  RcLimits diff = { 0, };

  for (RcLimit limit = 0; limit < RC_N_LIMITS; limit++)
    {
      if (rc_limits_has (wanted, limit) &&
          (!rc_limits_has (applied, limit) || applied->values[limit] != wanted->values[limit]))
        rc_limits_set (&diff, limit, wanted->values[limit]);
    }
  *out_diff = diff;
}

void
rc_limits_add_unit_properties (const RcLimits  *limits,
                               GVariantBuilder *builder)
{
  for (RcLimit limit = 0; limit < RC_N_LIMITS; limit++)
    {
      guint64 value = limits->values[limit];

      if (!rc_limits_has (limits, limit))
        continue;
      /* systemd takes the quota as CPU time per second; infinity removes it. */
      if (limit == RC_LIMIT_CPU_QUOTA)
        value = value == 0 ? G_MAXUINT64 : value * G_USEC_PER_SEC / 100;
      if (names_of (limit) != NULL)
        g_variant_builder_add (builder, "(sv)", limit_info[limit].property,
                               g_variant_new_string (name_of (limit, value)));
      /* systemd's pressure limit is a fraction of 2^32 - 1 (20% is 858993459) */
      else if (limit == RC_LIMIT_OOM_PRESSURE_LIMIT)
        g_variant_builder_add (builder, "(sv)", limit_info[limit].property,
                               g_variant_new_uint32 ((guint32) (value * G_MAXUINT32 / 100)));
      else
        g_variant_builder_add (builder, "(sv)", limit_info[limit].property,
                               g_variant_new_uint64 (value));
    }
}

GVariant *
rc_limits_to_unit_properties (const RcLimits *limits)
{
  g_auto(GVariantBuilder) builder = G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE ("a(sv)"));

  rc_limits_add_unit_properties (limits, &builder);
  return g_variant_builder_end (&builder);
}

GVariant *
rc_limits_to_app_changes (const RcLimits *limits)
{
  g_auto(GVariantBuilder) builder = G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE_VARDICT);

  for (RcLimit limit = 0; limit < RC_N_LIMITS; limit++)
    {
      GVariant *value;

      if (!rc_limits_has (limits, limit))
        continue;
      if (names_of (limit) != NULL)
        value = g_variant_new_string (name_of (limit, limits->values[limit]));
      else if (g_str_equal (rc_limit_type (limit), "u"))
        value = g_variant_new_uint32 ((guint32) limits->values[limit]);
      else
        value = g_variant_new_uint64 (limits->values[limit]);
      g_variant_builder_add (&builder, "{sv}", rc_limit_key (limit), value);
    }
  return g_variant_builder_end (&builder);
}

void
rc_limits_resolve (const RcLimits *boost,
                   const RcLimits *api,
                   const RcLimits *rule,
                   const RcLimits *applied,
                   const RcLimits *defaults,
                   RcLimits       *out_limits)
{
  RcLimits out = { 0, };

  for (RcLimit limit = 0; limit < RC_N_LIMITS; limit++)
    {
      if (boost != NULL && rc_limits_has (boost, limit))
        rc_limits_set (&out, limit, boost->values[limit]);
      else if (rc_limits_has (api, limit))
        rc_limits_set (&out, limit, api->values[limit]);
      else if (rule != NULL && rc_limits_has (rule, limit))
        rc_limits_set (&out, limit, rule->values[limit]);
      else if (rc_limits_has (applied, limit))
        rc_limits_set (&out, limit, defaults->values[limit]);
    }
  *out_limits = out;
}
