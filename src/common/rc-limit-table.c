/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "rc-limit-table.h"
#include "rc-api-keys.h"
#include "rc-error.h"
#include "rc-size.h"

#include <string.h>

typedef enum {
  TEXT_NUMBER,        /* 300 */
  TEXT_CPU_PERCENT,   /* 50% of one CPU, or 50; max = no quota = 0 */
  TEXT_SIZE,          /* 2G, 1536M, infinity */
  TEXT_TASKS,         /* a number or infinity */
  TEXT_PERCENT,       /* 40% or 40 */
  TEXT_NAME,          /* one of the limit's words */
} TextForm;

static const char * const preference_names[] = { "none", "avoid", "omit", NULL };
static const char * const pressure_names[] = { "auto", "kill", NULL };

static const struct {
  const char         *key;
  const char         *type;
  TextForm            form;
  const char * const *names;
} keys[RC_N_LIMITS] = {
  [RC_LIMIT_CPU_WEIGHT] = { RC_KEY_CPU_WEIGHT, "t", TEXT_NUMBER, NULL },
  [RC_LIMIT_IO_WEIGHT] = { RC_KEY_IO_WEIGHT, "t", TEXT_NUMBER, NULL },
  [RC_LIMIT_CPU_QUOTA] = { RC_KEY_CPU_QUOTA, "u", TEXT_CPU_PERCENT, NULL },
  [RC_LIMIT_MEMORY_LOW] = { RC_KEY_MEMORY_LOW, "t", TEXT_SIZE, NULL },
  [RC_LIMIT_MEMORY_HIGH] = { RC_KEY_MEMORY_HIGH, "t", TEXT_SIZE, NULL },
  [RC_LIMIT_MEMORY_MAX] = { RC_KEY_MEMORY_MAX, "t", TEXT_SIZE, NULL },
  [RC_LIMIT_TASKS_MAX] = { RC_KEY_TASKS_MAX, "t", TEXT_TASKS, NULL },
  [RC_LIMIT_MEMORY_MIN] = { RC_KEY_MEMORY_MIN, "t", TEXT_SIZE, NULL },
  [RC_LIMIT_MEMORY_SWAP_MAX] = { RC_KEY_MEMORY_SWAP_MAX, "t", TEXT_SIZE, NULL },
  [RC_LIMIT_OOM_PREFERENCE] = { RC_KEY_OOM_PREFERENCE, "s", TEXT_NAME, preference_names },
  [RC_LIMIT_OOM_PRESSURE] = { RC_KEY_OOM_PRESSURE, "s", TEXT_NAME, pressure_names },
  [RC_LIMIT_OOM_PRESSURE_LIMIT] = { RC_KEY_OOM_PRESSURE_LIMIT, "u", TEXT_PERCENT, NULL },
};

const char *
rc_limit_key (RcLimit limit)
{
  g_return_val_if_fail (limit < RC_N_LIMITS, NULL);
  return keys[limit].key;
}

const char *
rc_limit_type (RcLimit limit)
{
  g_return_val_if_fail (limit < RC_N_LIMITS, NULL);
  return keys[limit].type;
}

const char * const *
rc_limit_names (RcLimit limit)
{
  g_return_val_if_fail (limit < RC_N_LIMITS, NULL);
  return keys[limit].names;
}

gboolean
rc_limit_from_key (const char *key,
                   RcLimit    *out_limit)
{
  for (RcLimit limit = 0; limit < RC_N_LIMITS; limit++)
    if (g_str_equal (keys[limit].key, key))
      {
        *out_limit = limit;
        return TRUE;
      }
  return FALSE;
}

gboolean
rc_limit_from_key_nocase (const char *key,
                          RcLimit    *out_limit)
{
  for (RcLimit limit = 0; limit < RC_N_LIMITS; limit++)
    if (g_ascii_strcasecmp (keys[limit].key, key) == 0)
      {
        *out_limit = limit;
        return TRUE;
      }
  return FALSE;
}

static gboolean
is_unlimited (const char *text)
{
  return g_ascii_strcasecmp (text, "infinity") == 0 || g_ascii_strcasecmp (text, "max") == 0;
}

static gboolean
parse_unsigned (const char *key,
                const char *text,
                gboolean    percent,
                const char *allowed,
                guint64     most,
                guint64    *out_value,
                GError    **error)
{
  g_autofree char *digits = g_strdup (text);
  gsize len = strlen (digits);

  if (percent && len > 0 && digits[len - 1] == '%')
    digits[len - 1] = '\0';
  g_autofree char *shown = NULL;

  if (g_ascii_string_to_unsigned (digits, 10, 0, most, out_value, NULL))
    return TRUE;
  /* Show at most 64 bytes of whatever was written; parse all of it. */
  shown = g_utf8_make_valid (text, MIN (strlen (text), 64));
  g_set_error (error, RC_ERROR, RC_ERROR_INVALID_ARGUMENT,
               "%s “%s” is not %s", key, shown, allowed);
  return FALSE;
}

static gboolean
parse_name (RcLimit     limit,
            const char *text,
            guint64    *out_value,
            GError    **error)
{
  const char * const *names = keys[limit].names;
  g_autofree char *allowed = g_strjoinv (", ", (char **) names);
  g_autofree char *shown = g_utf8_make_valid (text, MIN (strlen (text), 64));

  for (guint i = 0; names[i] != NULL; i++)
    if (g_str_equal (names[i], text))
      {
        *out_value = i;
        return TRUE;
      }
  g_set_error (error, RC_ERROR, RC_ERROR_INVALID_ARGUMENT, "%s “%s” is not one of: %s",
               keys[limit].key, shown, allowed);
  return FALSE;
}

gboolean
rc_limit_parse_text (RcLimit     limit,
                     const char *text,
                     guint64    *out_value,
                     GError    **error)
{
  const char *key;

  g_return_val_if_fail (limit < RC_N_LIMITS, FALSE);
  key = keys[limit].key;
  switch (keys[limit].form)
    {
    case TEXT_NUMBER:
      return parse_unsigned (key, text, FALSE, "a whole number", G_MAXUINT64, out_value, error);

    case TEXT_CPU_PERCENT:
      if (is_unlimited (text))
        {
          *out_value = 0;
          return TRUE;
        }
      return parse_unsigned (key, text, TRUE,
                             "a percentage of one CPU such as 50% (max removes the quota)",
                             G_MAXUINT32, out_value, error);

    case TEXT_SIZE:
      {
        g_autoptr(GError) local = NULL;

        if (rc_size_parse (text, out_value, &local))
          return TRUE;
        g_set_error (error, RC_ERROR, RC_ERROR_INVALID_ARGUMENT, "%s: %s", key, local->message);
        return FALSE;
      }

    case TEXT_TASKS:
      if (is_unlimited (text))
        {
          *out_value = G_MAXUINT64;
          return TRUE;
        }
      return parse_unsigned (key, text, FALSE, "a whole number or “infinity”", G_MAXUINT64,
                             out_value, error);

    case TEXT_PERCENT:
      return parse_unsigned (key, text, TRUE, "a percentage (0% to 100%)", G_MAXUINT32,
                             out_value, error);

    case TEXT_NAME:
      return parse_name (limit, text, out_value, error);

    default:
      g_assert_not_reached ();
    }
}

GVariant *
rc_limit_parse_text_variant (RcLimit     limit,
                             const char *text,
                             GError    **error)
{
  guint64 value;

  if (!rc_limit_parse_text (limit, text, &value, error))
    return NULL;
  if (keys[limit].names != NULL)
    return g_variant_new_string (keys[limit].names[value]);
  if (g_str_equal (keys[limit].type, "u"))
    return g_variant_new_uint32 ((guint32) value);
  return g_variant_new_uint64 (value);
}

/* @exact: the text a rules file keeps, which parses back to @value (2G,
 * 1536M, 1610612736, infinity, 0%); otherwise the text people read in
 * resourcectl and the panel (1.5G, max for no limit or no quota, - for a
 * weight the daemon could not read). */
static char *
format_number (RcLimit  limit,
               guint64  value,
               gboolean exact)
{
  static const char suffixes[] = "KMGTPE";
  guint exponent = 0;

  if (keys[limit].names != NULL)
    {
      for (guint64 i = 0; keys[limit].names[i] != NULL; i++)
        if (i == value)
          return g_strdup (keys[limit].names[i]);
      return g_strdup (keys[limit].names[0]);
    }
  if (!exact && keys[limit].form == TEXT_SIZE)
    return rc_size_format (value);
  if (!exact && keys[limit].form == TEXT_CPU_PERCENT && value == 0)
    return g_strdup ("max");
  if (value == G_MAXUINT64)
    return g_strdup (exact ? "infinity" : keys[limit].form == TEXT_NUMBER ? "-" : "max");
  if (keys[limit].form == TEXT_CPU_PERCENT || keys[limit].form == TEXT_PERCENT)
    return g_strdup_printf ("%" G_GUINT64_FORMAT "%%", value);
  if (keys[limit].form != TEXT_SIZE)
    return g_strdup_printf ("%" G_GUINT64_FORMAT, value);
  /* Exact sizes only: 2G, 1536M, or plain bytes. */
  while (value != 0 && value % 1024 == 0 && exponent < sizeof suffixes - 1)
    {
      value /= 1024;
      exponent++;
    }
  if (exponent == 0)
    return g_strdup_printf ("%" G_GUINT64_FORMAT, value);
  return g_strdup_printf ("%" G_GUINT64_FORMAT "%c", value, suffixes[exponent - 1]);
}

char *
rc_limit_format_text (RcLimit limit,
                      guint64 value)
{
  g_return_val_if_fail (limit < RC_N_LIMITS, NULL);
  return format_number (limit, value, TRUE);
}

char *
rc_limit_format_value (RcLimit   limit,
                       GVariant *value)
{
  g_return_val_if_fail (limit < RC_N_LIMITS, NULL);
  g_return_val_if_fail (value != NULL, NULL);

  if (!g_variant_is_of_type (value, G_VARIANT_TYPE (keys[limit].type)))
    return NULL;
  if (keys[limit].names != NULL)
    {
      const char *name = g_variant_get_string (value, NULL);

      return g_strv_contains (keys[limit].names, name) ? g_strdup (name) : NULL;
    }
  if (g_str_equal (keys[limit].type, "u"))
    return format_number (limit, g_variant_get_uint32 (value), FALSE);
  return format_number (limit, g_variant_get_uint64 (value), FALSE);
}

/* A value no table words: a string as it is, anything else as GVariant
 * prints it. */
static char *
format_plain (GVariant *value)
{
  if (g_variant_is_of_type (value, G_VARIANT_TYPE_STRING))
    {
      const char *text = g_variant_get_string (value, NULL);

      return g_strdup (*text != '\0' ? text : "-");
    }
  return g_variant_print (value, FALSE);
}

static void
append_key_value (GString    *out,
                  const char *key,
                  GVariant   *value,
                  const char *between_key_and_value,
                  const char *between_keys)
{
  g_autofree char *text = NULL;
  RcLimit limit;

  if (rc_limit_from_key (key, &limit))
    text = rc_limit_format_value (limit, value);
  if (text == NULL)
    text = format_plain (value);
  g_string_append_printf (out, "%s%s%s%s", out->len > 0 ? between_keys : "", key,
                          between_key_and_value, text);
}

/* The rule keys beyond the limits, shown after them. */
static const char * const rule_only_keys[] = { RC_KEY_FREEZE_WHEN_INACTIVE_SEC, NULL };

char *
rc_limit_format_rule (GVariant   *rule,
                      const char *between_key_and_value,
                      const char *between_keys)
{
  g_autoptr(GString) out = g_string_new (NULL);
  GVariantIter iter;
  const char *key;
  GVariant *value;
  RcLimit limit;

  g_return_val_if_fail (g_variant_is_of_type (rule, G_VARIANT_TYPE_VARDICT), NULL);

  for (limit = 0; limit < RC_N_LIMITS; limit++)
    {
      g_autoptr(GVariant) known = g_variant_lookup_value (rule, keys[limit].key, NULL);

      if (known != NULL)
        append_key_value (out, keys[limit].key, known, between_key_and_value, between_keys);
    }
  for (guint k = 0; rule_only_keys[k] != NULL; k++)
    {
      g_autoptr(GVariant) known = g_variant_lookup_value (rule, rule_only_keys[k], NULL);

      if (known != NULL)
        append_key_value (out, rule_only_keys[k], known, between_key_and_value, between_keys);
    }
  /* Keys of a daemon newer than this program, as they come. */
  g_variant_iter_init (&iter, rule);
  while (g_variant_iter_loop (&iter, "{&sv}", &key, &value))
    if (!rc_limit_from_key (key, &limit) && !g_strv_contains (rule_only_keys, key))
      append_key_value (out, key, value, between_key_and_value, between_keys);
  return g_string_free (g_steal_pointer (&out), FALSE);
}
