/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Helpers the unit tests share (rc-test-util.c, linked into each). */
#pragma once

#include <glib.h>

void rc_test_remove_tree (const char *path);
