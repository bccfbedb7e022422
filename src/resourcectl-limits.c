/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* resourcectl set-weight, set-memory-limit, set, reset, freeze and thaw: the
 * KEY=VALUE syntax of limits, checked here only as syntax (ranges are the
 * daemon's to judge). */
#include "resourcectl.h"
#include "rc-common.h"

#include <string.h>

#include "rc-error.h"
#include "rc-size.h"

/* The keys `set` accepts (SetLimits' keys) and, with the rule-only ones,
 * the keys `rule set` accepts (SetRule's). Also the order `rule list`
 * prints them in. */
const RcctlLimitKey rcctl_limit_keys[] = {
  { RC_KEY_CPU_WEIGHT, RCCTL_VALUE_NUMBER, FALSE },
  { RC_KEY_IO_WEIGHT, RCCTL_VALUE_NUMBER, FALSE },
  { RC_KEY_CPU_QUOTA, RCCTL_VALUE_PERCENT, FALSE },
  { RC_KEY_MEMORY_LOW, RCCTL_VALUE_SIZE, FALSE },
  { RC_KEY_MEMORY_HIGH, RCCTL_VALUE_SIZE, FALSE },
  { RC_KEY_MEMORY_MAX, RCCTL_VALUE_SIZE, FALSE },
  { RC_KEY_TASKS_MAX, RCCTL_VALUE_TASKS, FALSE },
  { RC_KEY_MEMORY_MIN, RCCTL_VALUE_SIZE, FALSE },
  { RC_KEY_MEMORY_SWAP_MAX, RCCTL_VALUE_SIZE, FALSE },
  { RC_KEY_OOM_PREFERENCE, RCCTL_VALUE_WORD, FALSE },
  { RC_KEY_OOM_PRESSURE, RCCTL_VALUE_WORD, FALSE },
  { RC_KEY_OOM_PRESSURE_LIMIT, RCCTL_VALUE_SECONDS, FALSE },
  { RC_KEY_FREEZE_WHEN_INACTIVE_SEC, RCCTL_VALUE_SECONDS, TRUE },
};
const gsize rcctl_n_limit_keys = G_N_ELEMENTS (rcctl_limit_keys);

static gboolean
is_unlimited (const char *text)
{
  return g_ascii_strcasecmp (text, "infinity") == 0 || g_ascii_strcasecmp (text, "max") == 0;
}

/* Only the syntax is checked here; ranges are the daemon's to judge. */
static GVariant *
parse_value (RcctlValueKind kind,
             const char    *key,
             const char    *text,
             GError       **error)
{
  guint64 n = 0;

  switch (kind)
    {
    case RCCTL_VALUE_SIZE:
      if (!rc_size_parse (text, &n, error))
        {
          g_prefix_error (error, "%s: ", key);
          return NULL;
        }
      return g_variant_new_uint64 (n);

    case RCCTL_VALUE_PERCENT:
      {
        g_autofree char *digits = g_strdup (text);

        if (is_unlimited (text))
          return g_variant_new_uint32 (0);
        if (g_str_has_suffix (digits, "%"))
          digits[strlen (digits) - 1] = '\0';
        if (!g_ascii_string_to_unsigned (digits, 10, 0, G_MAXUINT32, &n, NULL))
          break;
        return g_variant_new_uint32 ((guint32) n);
      }

    case RCCTL_VALUE_WORD:
      return g_variant_new_string (text);

    case RCCTL_VALUE_SECONDS:
      {
        g_autofree char *digits = g_strdup (text);

        /* the pressure limit is a percentage: "40%" or "40" */
        if (g_str_equal (key, RC_KEY_OOM_PRESSURE_LIMIT) && g_str_has_suffix (digits, "%"))
          digits[strlen (digits) - 1] = '\0';
        if (!g_ascii_string_to_unsigned (digits, 10, 0, G_MAXUINT32, &n, NULL))
          break;
        return g_variant_new_uint32 ((guint32) n);
      }

    case RCCTL_VALUE_TASKS:
      if (is_unlimited (text))
        return g_variant_new_uint64 (G_MAXUINT64);
      G_GNUC_FALLTHROUGH;
    case RCCTL_VALUE_NUMBER:
      if (!g_ascii_string_to_unsigned (text, 10, 0, G_MAXUINT64, &n, NULL))
        break;
      return g_variant_new_uint64 (n);
    }

  g_set_error (error, RC_ERROR, RC_ERROR_INVALID_ARGUMENT, "invalid %s \"%s\": expected %s",
               key, text,
               kind == RCCTL_VALUE_PERCENT ? "a percentage of one CPU such as 50% (0 or max removes the quota)"
               : kind == RCCTL_VALUE_TASKS ? "a number or \"infinity\""
               : kind == RCCTL_VALUE_SECONDS ? "a whole number of seconds"
               : "a whole number");
  return NULL;
}

GVariant *
rcctl_write_options (void)
{
  g_auto(GVariantDict) options = G_VARIANT_DICT_INIT (NULL);

  if (rcctl_opt_force)
    g_variant_dict_insert (&options, RC_OPTION_FORCE, "b", TRUE);
  return g_variant_dict_end (&options);
}

gboolean
rcctl_parse_nothing (char        **args,
                     RcctlRequest *req,
                     GError      **error)
{
  return TRUE;
}

gboolean
rcctl_parse_app (char        **args,
                 RcctlRequest *req,
                 GError      **error)
{
  req->params = g_variant_ref_sink (g_variant_new ("(s)", args[0]));
  return TRUE;
}

gboolean
rcctl_parse_set_weight (char        **args,
                        RcctlRequest *req,
                        GError      **error)
{
  GVariant *weight = parse_value (RCCTL_VALUE_NUMBER, "weight", args[1], error);

  if (weight == NULL)
    return FALSE;
  req->params = g_variant_ref_sink (g_variant_new ("(s@t)", args[0], weight));
  return TRUE;
}

gboolean
rcctl_parse_set_memory_limit (char        **args,
                              RcctlRequest *req,
                              GError      **error)
{
  g_auto(GVariantDict) limits = G_VARIANT_DICT_INIT (NULL);
  guint64 bytes;

  if (!rc_size_parse (args[1], &bytes, error))
    return FALSE;
  if (!rcctl_opt_force)
    {
      req->params = g_variant_ref_sink (g_variant_new ("(st)", args[0], bytes));
      return TRUE;
    }

  /* SetMemoryLimit never forces; SetLimits' MemoryLimit sets the same pair
   * (the daemon derives MemoryHigh) and can. */
  g_variant_dict_insert (&limits, RC_KEY_MEMORY_LIMIT, "t", bytes);
  req->method = "SetLimits";
  req->params = g_variant_ref_sink (g_variant_new ("(s@a{sv}@a{sv})", args[0],
                                                   g_variant_dict_end (&limits),
                                                   rcctl_write_options ()));
  return TRUE;
}

/* KEY=VALUE arguments as an a{sv} of SetLimits' keys, and of SetRule's when
 * @for_rule. Keys match without regard to case, as systemd's do. */
GVariant *
rcctl_parse_limits (char   **args,
                    gboolean for_rule,
                    GError **error)
{
  g_auto(GVariantDict) limits = G_VARIANT_DICT_INIT (NULL);

  for (char **arg = args; *arg != NULL; arg++)
    {
      const char *eq = strchr (*arg, '=');
      g_autofree char *key = eq ? g_strndup (*arg, eq - *arg) : NULL;
      GVariant *value = NULL;
      gsize i;

      if (key == NULL)
        {
          g_set_error (error, RC_ERROR, RC_ERROR_INVALID_ARGUMENT,
                       "\"%s\" is not KEY=VALUE", *arg);
          return NULL;
        }
      for (i = 0; i < G_N_ELEMENTS (rcctl_limit_keys); i++)
        if ((for_rule || !rcctl_limit_keys[i].rule_only) &&
            g_ascii_strcasecmp (key, rcctl_limit_keys[i].key) == 0)
          break;
      if (i == G_N_ELEMENTS (rcctl_limit_keys))
        {
          g_autoptr(GString) known = g_string_new (NULL);

          for (gsize k = 0; k < G_N_ELEMENTS (rcctl_limit_keys); k++)
            if (for_rule || !rcctl_limit_keys[k].rule_only)
              g_string_append_printf (known, "%s%s", known->len > 0 ? ", " : "",
                                      rcctl_limit_keys[k].key);
          g_set_error (error, RC_ERROR, RC_ERROR_INVALID_ARGUMENT,
                       "unknown key \"%s\"; known keys: %s", key, known->str);
          return NULL;
        }

      value = parse_value (rcctl_limit_keys[i].kind, rcctl_limit_keys[i].key, eq + 1, error);
      if (value == NULL)
        return NULL;
      g_variant_dict_insert_value (&limits, rcctl_limit_keys[i].key, value);
    }
  return g_variant_dict_end (&limits);
}

gboolean
rcctl_parse_set (char        **args,
                 RcctlRequest *req,
                 GError      **error)
{
  GVariant *limits = rcctl_parse_limits (args + 1, FALSE, error);

  if (limits == NULL)
    return FALSE;
  req->params = g_variant_ref_sink (g_variant_new ("(s@a{sv}@a{sv})", args[0], limits,
                                                   rcctl_write_options ()));
  return TRUE;
}
