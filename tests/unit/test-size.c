/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Table-driven tests of size parsing and formatting: add a row to extend them. */
#include "rc-size.h"
#include "rc-error.h"
#include "rc-test-util.h"

#define KiB G_GUINT64_CONSTANT (1024)
#define MiB (KiB * 1024)
#define GiB (MiB * 1024)
#define TiB (GiB * 1024)
#define PiB (TiB * 1024)
#define EiB (PiB * 1024)

typedef struct {
  const char *text;
  gboolean    ok;
  guint64     bytes;
} ParseCase;

static const ParseCase parse_cases[] = {
  { "0", TRUE, 0 },
  { "1", TRUE, 1 },
  { "1048576", TRUE, MiB },
  { "512K", TRUE, 512 * KiB },
  { "512k", TRUE, 512 * KiB },
  { "512M", TRUE, 512 * MiB },
  { "512MiB", TRUE, 512 * MiB },
  { "512mib", TRUE, 512 * MiB },
  { "512MB", TRUE, 512 * MiB },
  { "512mb", TRUE, 512 * MiB },
  { "2G", TRUE, 2 * GiB },
  { "1.5G", TRUE, GiB + GiB / 2 },
  { "0.5K", TRUE, 512 },
  { "1.25M", TRUE, MiB + MiB / 4 },
  { "0.1K", TRUE, 102 },             /* rounded down to whole bytes */
  { "1.0000000000001G", TRUE, GiB }, /* digits past 1e-9 are ignored */
  { "1T", TRUE, TiB },
  { "1P", TRUE, PiB },
  { "15E", TRUE, 15 * EiB },
  { "15.5E", TRUE, 15 * EiB + EiB / 2 },
  /* floor (999999999 * 2^60 / 10^9), exact without 128-bit arithmetic */
  { "15.999999999E", TRUE, G_GUINT64_CONSTANT (18446744072556630111) },
  { "15.9999999999E", TRUE, G_GUINT64_CONSTANT (18446744072556630111) },
  { "100B", TRUE, 100 },
  { "100b", TRUE, 100 },
  { "16M", TRUE, 16 * MiB },
  { "18446744073709551614", TRUE, G_MAXUINT64 - 1 },
  { "infinity", TRUE, G_MAXUINT64 },
  { "Infinity", TRUE, G_MAXUINT64 },
  { "max", TRUE, G_MAXUINT64 },
  { "MAX", TRUE, G_MAXUINT64 },

  { "", FALSE },
  { "M", FALSE },
  { "-1", FALSE },
  { "+1", FALSE },
  { " 1", FALSE },
  { "1 ", FALSE },
  { "1 M", FALSE },
  { ".5G", FALSE },
  { "1.G", FALSE },
  { "1.5", FALSE },                  /* a fraction of a byte */
  { "1.5B", FALSE },
  { "1,5G", FALSE },
  { "1X", FALSE },
  { "1iB", FALSE },
  { "1MiBB", FALSE },
  { "1MM", FALSE },
  { "1e6", FALSE },
  { "0x10", FALSE },
  { "inf", FALSE },
  { "none", FALSE },
  { "16E", FALSE },                  /* 2^64: overflow */
  { "17179869184G", FALSE },
  { "18446744073709551616", FALSE },
  { "99999999999999999999999", FALSE },
};

typedef struct {
  guint64     bytes;
  const char *text;
} FormatCase;

static const FormatCase format_cases[] = {
  { 0, "0" },
  { 1, "1B" },
  { 1023, "1023B" },
  { KiB, "1K" },
  { KiB + 1, "1.0K" },
  { KiB + KiB / 2, "1.5K" },
  { 512 * MiB, "512M" },
  { GiB + GiB / 2, "1.5G" },
  { 2 * GiB, "2G" },
  { GiB - 1, "1023.9M" },
  { TiB, "1T" },
  { 3 * PiB, "3P" },
  { 15 * EiB, "15E" },
  { G_MAXUINT64 - 1, "15.9E" },
  { G_MAXUINT64, "max" },
};

static void
test_parse (gconstpointer data)
{
  const ParseCase *c = data;
  g_autoptr(GError) error = NULL;
  guint64 bytes = 4242;
  gboolean ok = rc_size_parse (c->text, &bytes, &error);

  if (c->ok)
    {
      g_assert_no_error (error);
      g_assert_true (ok);
      g_assert_cmpuint (bytes, ==, c->bytes);
      return;
    }
  g_assert_error (error, RC_ERROR, RC_ERROR_INVALID_ARGUMENT);
  g_assert_false (ok);
  /* out-parameters are written only on success */
  g_assert_cmpuint (bytes, ==, 4242);
  /* The message names the text and the allowed forms. */
  g_assert_nonnull (g_strstr_len (error->message, -1, c->text));
  g_assert_nonnull (g_strstr_len (error->message, -1, "infinity"));
}

static void
test_format (gconstpointer data)
{
  const FormatCase *c = data;
  g_autofree char *text = rc_size_format (c->bytes);

  g_assert_cmpstr (text, ==, c->text);
}

/* What rc_size_format prints reads back as the same value when it is exact. */
static void
test_round_trip (void)
{
  const guint64 values[] = { 0, 1, 1023, KiB, 16 * MiB, 512 * MiB, 2 * GiB,
                             GiB + GiB / 2, 7 * TiB, G_MAXUINT64 };

  for (gsize i = 0; i < G_N_ELEMENTS (values); i++)
    {
      g_autofree char *text = rc_size_format (values[i]);
      g_autoptr(GError) error = NULL;
      guint64 back = 0;

      g_assert_true (rc_size_parse (text, &back, &error));
      g_assert_no_error (error);
      g_assert_cmpuint (back, ==, values[i]);
    }
}

static void
test_invalid_utf8 (void)
{
  g_autoptr(GError) error = NULL;
  guint64 bytes = 0;

  g_assert_false (rc_size_parse ("1\xff", &bytes, &error));
  g_assert_error (error, RC_ERROR, RC_ERROR_INVALID_ARGUMENT);
  g_assert_true (g_utf8_validate (error->message, -1, NULL));
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  RC_TEST_ADD_CASES ("/size/parse/", parse_cases, text, test_parse);
  RC_TEST_ADD_CASES ("/size/format/", format_cases, text, test_format);
  g_test_add_func ("/size/round-trip", test_round_trip);
  g_test_add_func ("/size/invalid-utf8", test_invalid_utf8);

  return g_test_run ();
}
