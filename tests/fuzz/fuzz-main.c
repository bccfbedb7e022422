/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The setup libFuzzer runs once before the first input, the same for every
 * target: linked into each of them by meson.build. */
#include "fuzz-common.h"

int
LLVMFuzzerInitialize (int    *argc,
                      char ***argv)
{
  /* A critical means a g_return_if_fail () in our code fired: a bug. */
  g_log_set_always_fatal (G_LOG_FATAL_MASK | G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_WARNING);
  return 0;
}
