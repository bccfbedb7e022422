/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Helpers the unit tests share (rc-test-util.c, linked into each). */
#pragma once

#include <glib.h>

void rc_test_remove_tree (const char *path);
char *rc_test_case_path (const char *prefix,
                         const char *text);

/* One test a case of the table @cases: @func with the case, at the path
 * @prefix and the case's text @field (see rc_test_case_path ()). */
#define RC_TEST_ADD_CASES(prefix, cases, field, func)                             \
  for (gsize rc_i_ = 0; rc_i_ < G_N_ELEMENTS (cases); rc_i_++)                    \
    {                                                                             \
      g_autofree char *rc_path_ = rc_test_case_path (prefix, cases[rc_i_].field); \
      g_test_add_data_func (rc_path_, &cases[rc_i_], func);                       \
    }
