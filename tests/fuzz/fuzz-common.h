/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What every libFuzzer target here shares: the entry points libFuzzer
 * calls, and the fuzzer's own check. fuzz-main.c, linked into every
 * target, has LLVMFuzzerInitialize (); each target has only its
 * LLVMFuzzerTestOneInput (). */
#pragma once

#include <glib.h>
#include <stdlib.h>

int LLVMFuzzerInitialize (int *argc, char ***argv);
int LLVMFuzzerTestOneInput (const guint8 *data, size_t size);

/* The fuzzer's own checks: a plain abort () becomes a crash report with the
 * input that caused it. */
#define FUZZ_ASSERT(cond) \
  G_STMT_START { if (!(cond)) { g_printerr ("assertion failed: %s\n", #cond); abort (); } } G_STMT_END
