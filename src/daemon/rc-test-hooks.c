/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "rc-test-hooks.h"

/* Set once, before the main loop and any thread start. */
static gboolean enabled;

void
rc_test_hooks_enable (void)
{
  enabled = TRUE;
}

gboolean
rc_test_hooks_enabled (void)
{
  return enabled;
}

const char *
rc_test_hook (const char *variable)
{
  const char *value;

  if (!enabled)
    return NULL;
  value = g_getenv (variable);
  return value != NULL && *value != '\0' ? value : NULL;
}
