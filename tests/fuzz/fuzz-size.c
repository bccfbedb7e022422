/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* libFuzzer target: byte sizes as users type them ("512M", "1.5G"), and
 * the round trip through rc_size_format (). */
#include "fuzz-common.h"
#include "rc-size.h"

#include <string.h>

/* rc_size_format () truncates to one decimal: parsing its text back gives
 * at most @bytes, and exactly @bytes when it printed no fraction. */
static void
check_format (guint64 bytes)
{
  g_autofree char *text = rc_size_format (bytes);
  g_autoptr(GError) error = NULL;
  guint64 back = 0;

  FUZZ_ASSERT (text != NULL);
  FUZZ_ASSERT (rc_size_parse (text, &back, &error));
  FUZZ_ASSERT (back <= bytes);
  if (strchr (text, '.') == NULL)
    FUZZ_ASSERT (back == bytes);
}

int
LLVMFuzzerTestOneInput (const guint8 *data,
                        size_t        size)
{
  g_autofree char *text = NULL;
  g_autoptr(GError) error = NULL;
  guint64 bytes = 0xa5a5a5a5a5a5a5a5;
  gboolean ok;

  /* The same bytes as a number, for the formatter. */
  if (size >= sizeof bytes)
    {
      guint64 raw;

      memcpy (&raw, data, sizeof raw);
      check_format (raw);
    }

  if (memchr (data, '\0', size) != NULL)
    return 0;
  text = g_strndup ((const char *) data, size);

  ok = rc_size_parse (text, &bytes, &error);
  FUZZ_ASSERT (ok == (error == NULL));
  if (ok)
    check_format (bytes);
  else
    {
      FUZZ_ASSERT (bytes == 0xa5a5a5a5a5a5a5a5);
      FUZZ_ASSERT (g_utf8_validate (error->message, -1, NULL));
    }

  return 0;
}
