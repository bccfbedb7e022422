/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* libFuzzer target: a desktop file's Exec line expanded into argv
 * (rc-exec-line.c), with the URIs a Launch caller sends. The input is the Exec
 * line, then one URI per line. */
#include "fuzz-common.h"
#include "rc-error.h"
#include "rc-exec-line.h"

#include <string.h>

static gboolean
expand (const char         *exec,
        const char * const *uris,
        char             ***out_argv,
        GError            **error)
{
  return rc_exec_expand (exec, "Fuzzed App", "fuzz-icon", "/usr/share/applications/fuzz.desktop",
                         uris, out_argv, error);
}

int
LLVMFuzzerTestOneInput (const guint8 *data,
                        size_t        size)
{
  g_autofree char *text = NULL;
  g_auto(GStrv) lines = NULL;
  g_auto(GStrv) argv = NULL;
  g_auto(GStrv) again = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GError) error_again = NULL;
  static const char * const no_uris[] = { NULL };
  const char * const *uris;
  const char *exec;
  gboolean ok;

  /* Desktop files (GKeyFile) and D-Bus strings are UTF-8 without NUL. */
  if (memchr (data, '\0', size) != NULL || !g_utf8_validate ((const char *) data, size, NULL))
    return -1;
  text = g_strndup ((const char *) data, size);
  lines = g_strsplit (text, "\n", 6);
  /* "" splits into no line at all */
  exec = lines[0] != NULL ? lines[0] : "";
  uris = lines[0] != NULL ? (const char * const *) lines + 1 : no_uris;

  ok = expand (exec, uris, &argv, &error);
  FUZZ_ASSERT (ok == (error == NULL));
  if (!ok)
    {
      FUZZ_ASSERT (error->domain == RC_ERROR);
      FUZZ_ASSERT (error->code == RC_ERROR_INVALID_ARGUMENT || error->code == RC_ERROR_FAILED);
      FUZZ_ASSERT (g_utf8_validate (error->message, -1, NULL));
      FUZZ_ASSERT (argv == NULL);
    }
  else
    {
      /* a program to run, and only strings that can go into D-Bus */
      FUZZ_ASSERT (argv != NULL && argv[0] != NULL && argv[0][0] != '\0');
      for (guint i = 0; argv[i] != NULL; i++)
        FUZZ_ASSERT (g_utf8_validate (argv[i], -1, NULL));
      /* every URI given is used: none is dropped silently */
      if (g_strv_length ((char **) uris) > 0)
        FUZZ_ASSERT (g_strv_length (argv) > 1);
    }

  /* the same input, the same answer */
  FUZZ_ASSERT (expand (exec, uris, &again, &error_again) == ok);
  if (ok)
    FUZZ_ASSERT (g_strv_equal ((const char * const *) argv, (const char * const *) again));
  else
    FUZZ_ASSERT (g_str_equal (error->message, error_again->message));
  return 0;
}
