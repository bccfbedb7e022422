/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Variables that point the daemon at a test's own world: RC_CGROUP_ROOT (a
 * fake cgroupfs), RC_OOMD_SOCKET (systemd-oomd's socket),
 * RESOURCE_CONTROL_SCOPE_HELPER (the launch helper) and
 * RESOURCE_CONTROL_SYSTEM_RULES_DIR (the system's rules folder).
 *
 * A D-Bus-activated daemon gets its environment from the user manager's,
 * which any process of the user can change (`systemctl --user
 * set-environment`): such a variable would let it point the daemon at files
 * and programs of its choosing. So they count only after
 * rc_test_hooks_enable (), which main () calls for --test-hooks, an option
 * the shipped units never pass, and the unit tests call themselves. */
void        rc_test_hooks_enable (void);
/* Whether rc_test_hooks_enable () was called: a helper the daemon starts
 * is told to honour its own hooks only then. */
gboolean    rc_test_hooks_enabled (void);
/* The value of test hook @variable: NULL unless hooks are enabled and it is
 * set and not empty. */
const char *rc_test_hook (const char *variable);

G_END_DECLS
