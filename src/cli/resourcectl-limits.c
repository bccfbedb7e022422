/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* resourcectl set-weight, set-memory-limit, set, reset, freeze and thaw: the
 * KEY=VALUE syntax of limits, checked here only as syntax (ranges are the
 * daemon's to judge). */
#include "resourcectl.h"
#include "rc-api-keys.h"

#include <string.h>

#include "rc-error.h"
#include "rc-limit-table.h"
#include "rc-size.h"

/* FreezeWhenInactiveSec: whole seconds; the daemon judges the range. */
static GVariant *
parse_seconds (const char *key,
               const char *text,
               GError    **error)
{
  guint64 n;

  if (g_ascii_string_to_unsigned (text, 10, 0, G_MAXUINT32, &n, NULL))
    return g_variant_new_uint32 ((guint32) n);
  g_set_error (error, RC_ERROR, RC_ERROR_INVALID_ARGUMENT, "%s “%s” is not a whole number of seconds",
               key, text);
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
  GVariant *weight = rc_limit_parse_text_variant (RC_LIMIT_CPU_WEIGHT, args[1], error);

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
      const char *canonical;
      RcLimit limit;

      if (key == NULL)
        {
          g_set_error (error, RC_ERROR, RC_ERROR_INVALID_ARGUMENT,
                       "\"%s\" is not KEY=VALUE", *arg);
          return NULL;
        }
      /* The same table and text forms as a rules file's. */
      if (rc_limit_from_key_nocase (key, &limit))
        {
          value = rc_limit_parse_text_variant (limit, eq + 1, error);
          canonical = rc_limit_key (limit);
        }
      else if (for_rule && g_ascii_strcasecmp (key, RC_KEY_FREEZE_WHEN_INACTIVE_SEC) == 0)
        {
          canonical = RC_KEY_FREEZE_WHEN_INACTIVE_SEC;
          value = parse_seconds (canonical, eq + 1, error);
        }
      else
        {
          g_autoptr(GString) known = g_string_new (NULL);

          for (RcLimit k = 0; k < RC_N_LIMITS; k++)
            g_string_append_printf (known, "%s%s", known->len > 0 ? ", " : "", rc_limit_key (k));
          if (for_rule)
            g_string_append_printf (known, ", %s", RC_KEY_FREEZE_WHEN_INACTIVE_SEC);
          g_set_error (error, RC_ERROR, RC_ERROR_INVALID_ARGUMENT,
                       "unknown key \"%s\"; known keys: %s", key, known->str);
          return NULL;
        }
      if (value == NULL)
        return NULL;
      g_variant_dict_insert_value (&limits, canonical, value);
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
