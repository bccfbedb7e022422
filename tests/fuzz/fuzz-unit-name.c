/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* libFuzzer target: the unit-name parser and the syntax check of an app
 * argument. Every string a caller or systemd sends passes through these. */
#include "fuzz-common.h"
#include "rc-registry.h"
#include "rc-unit-name.h"

#include <string.h>

static void
check_unescaped (const char *s)
{
  FUZZ_ASSERT (g_utf8_validate (s, -1, NULL));
  for (const char *p = s; *p; p++)
    FUZZ_ASSERT (*p != '/' && (guchar) *p >= 0x20 && *p != 0x7f);
}

int
LLVMFuzzerTestOneInput (const guint8 *data,
                        size_t        size)
{
  g_autofree char *text = NULL;
  g_autofree char *unescaped = NULL;
  g_autoptr(RcUnitName) name = NULL;
  g_autoptr(GError) error = NULL;
  gboolean unit_valid, app_id_valid, accepted;

  /* D-Bus strings never hold a NUL: an input with one is not a name. */
  if (memchr (data, '\0', size) != NULL)
    return -1;
  text = g_strndup ((const char *) data, size);

  unit_valid = rc_unit_name_is_valid (text);
  app_id_valid = rc_app_id_is_valid (text);
  /* Methods take either; the two sets must not overlap (rc-unit-name.c). */
  FUZZ_ASSERT (!(unit_valid && app_id_valid));

  unescaped = rc_unit_name_unescape (text);
  if (unescaped != NULL)
    check_unescaped (unescaped);

  name = rc_unit_name_parse (text);
  if (name != NULL)
    {
      FUZZ_ASSERT (unit_valid);
      FUZZ_ASSERT (name->app_id != NULL && name->app_id[0] != '\0');
      FUZZ_ASSERT (name->launcher != NULL && name->instance != NULL);
      check_unescaped (name->app_id);
      check_unescaped (name->launcher);
      check_unescaped (name->instance);
      if (name->kind == RC_UNIT_KIND_SCOPE)
        FUZZ_ASSERT (g_str_has_suffix (text, ".scope") && name->instance[0] != '\0');
      else
        FUZZ_ASSERT (name->kind == RC_UNIT_KIND_SERVICE && g_str_has_suffix (text, ".service"));
    }

  accepted = rc_unit_name_check_app_argument (text, &error);
  FUZZ_ASSERT (accepted == (error == NULL));
  FUZZ_ASSERT (accepted == (size <= 255 && (unit_valid || app_id_valid)));
  if (error != NULL)
    FUZZ_ASSERT (g_utf8_validate (error->message, -1, NULL));

  return 0;
}
