/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "rc-size.h"
#include "rc-error.h"

#include <string.h>

/* Binary units, as systemd reads them: K = 1024, M = 1024 K, ... */
static const char size_units[] = "KMGTPE";

/* Fraction digits beyond this are below any unit's resolution that matters. */
#define MAX_FRACTION_DEN G_GUINT64_CONSTANT (1000000000)

static gboolean
size_error (GError    **error,
            const char *text,
            const char *why)
{
  /* @text may come from anywhere; the message must stay valid UTF-8. */
  g_autofree char *shown = g_utf8_make_valid (text, -1);

  g_set_error (error, RC_ERROR, RC_ERROR_INVALID_ARGUMENT,
               "Invalid size \"%s\": %s; use a number of bytes with an optional "
               "K, M, G, T, P or E suffix (powers of 1024, e.g. 512M, 1.5G, 512MiB), "
               "or \"infinity\"", shown, why);
  return FALSE;
}

gboolean
rc_size_parse (const char *text,
               guint64    *out_bytes,
               GError    **error)
{
  const char *p = text;
  const char *unit;
  guint64 whole = 0;
  guint64 fraction = 0;
  guint64 fraction_den = 1;
  guint64 fraction_bytes = 0;
  guint64 bytes;
  guint exponent = 0;
  gboolean has_fraction = FALSE;

  g_return_val_if_fail (text != NULL, FALSE);
  g_return_val_if_fail (out_bytes != NULL, FALSE);

  if (g_ascii_strcasecmp (text, "infinity") == 0 || g_ascii_strcasecmp (text, "max") == 0)
    {
      *out_bytes = G_MAXUINT64;
      return TRUE;
    }

  if (!g_ascii_isdigit (*p))
    return size_error (error, text, "not a number");
  for (; g_ascii_isdigit (*p); p++)
    {
      guint digit = *p - '0';

      if (whole > (G_MAXUINT64 - digit) / 10)
        return size_error (error, text, "too large");
      whole = whole * 10 + digit;
    }

  if (*p == '.')
    {
      p++;
      if (!g_ascii_isdigit (*p))
        return size_error (error, text, "no digits after the decimal point");
      for (; g_ascii_isdigit (*p); p++)
        if (fraction_den < MAX_FRACTION_DEN)
          {
            fraction = fraction * 10 + (guint) (*p - '0');
            fraction_den *= 10;
          }
      has_fraction = TRUE;
    }

  if (*p != '\0' && (unit = strchr (size_units, g_ascii_toupper (*p))) != NULL)
    {
      exponent = unit - size_units + 1;
      p++;
    }
  if (exponent > 0 && g_ascii_strcasecmp (p, "iB") == 0)
    p += 2;
  else if (g_ascii_strcasecmp (p, "B") == 0)
    p++;
  if (*p != '\0')
    return size_error (error, text, "unknown suffix");
  if (has_fraction && exponent == 0)
    return size_error (error, text, "a fraction of a byte");

  if (whole > G_MAXUINT64 >> (10 * exponent))
    return size_error (error, text, "too large");
  bytes = whole << (10 * exponent);

  /* fraction / fraction_den * 1024^exponent, rounded down, by long division so
   * nothing overflows: the remainder stays below fraction_den. */
  for (guint i = 0; i < exponent; i++)
    {
      fraction *= 1024;
      fraction_bytes = fraction_bytes * 1024 + fraction / fraction_den;
      fraction %= fraction_den;
    }
  if (bytes > G_MAXUINT64 - fraction_bytes)
    return size_error (error, text, "too large");

  *out_bytes = bytes + fraction_bytes;
  return TRUE;
}

char *
rc_size_format (guint64 bytes)
{
  if (bytes == G_MAXUINT64)
    return g_strdup ("max");
  if (bytes == 0)
    return g_strdup ("0");

  for (guint exponent = strlen (size_units); exponent > 0; exponent--)
    {
      guint64 unit = G_GUINT64_CONSTANT (1) << (10 * exponent);
      char suffix = size_units[exponent - 1];

      if (bytes < unit)
        continue;
      if (bytes % unit == 0)
        return g_strdup_printf ("%" G_GUINT64_FORMAT "%c", bytes / unit, suffix);
      /* One decimal, truncated like systemctl does. */
      return g_strdup_printf ("%" G_GUINT64_FORMAT ".%u%c", bytes / unit,
                              (guint) ((bytes % unit) * 10 / unit), suffix);
    }

  return g_strdup_printf ("%" G_GUINT64_FORMAT "B", bytes);
}
