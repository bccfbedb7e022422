/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* What the daemon and resource-control-scope-helper agree on. The daemon
 * starts the helper as a transient service of the user's manager (so it and
 * the app it starts have the manager's defaults, as under `systemd-run
 * --user`), with the request on its stdin and a pipe back on its stdout.
 *
 * The request, a serialized GVariant of RC_SCOPE_HELPER_REQUEST_TYPE:
 *   s      the scope to start (app-<launcher>-<AppID>-<16 hex>.scope)
 *   a(sv)  the scope's properties (Description, Slice, limits...): the
 *          helper adds PIDs
 *   as     the app's argv, argv[0] an absolute path
 *   as     KEY=VALUE to add to the app's environment
 *   s      the app's working directory, "" for the helper's own (home)
 *   s      the AppID: the identifier of the app's journal stream
 *
 * The answer, one line on stdout: RC_SCOPE_HELPER_OK when the app runs in
 * its scope, else why it does not. No line (the helper died) means it does
 * not run either: the held process exits when the helper is gone. */
#define RC_SCOPE_HELPER_REQUEST_TYPE "(sa(sv)asasss)"
#define RC_SCOPE_HELPER_OK           "ok"
/* The helper's one argument, which the daemon passes only when it runs
 * with --test-hooks itself: without it the helper reads no test hook. Its
 * environment is the user manager's, which any process of the user can
 * change (`systemctl --user set-environment`); these variables would let
 * that process stop every scope launch or say where the app's cgroup is. */
#define RC_SCOPE_HELPER_TEST_HOOKS_ARG "--test-hooks"
/* Test hooks, read by the helper from its environment with
 * RC_SCOPE_HELPER_TEST_HOOKS_ARG only. This one, "before-start" or
 * "after-start", stops the helper (SIGSTOP) with the app's process held,
 * before the scope's StartTransientUnit or after its job is done, so that
 * a test can kill the daemon or the helper there. RC_CGROUP_ROOT, as the
 * daemon reads it, is the host tests' fake cgroupfs. */
#define RC_SCOPE_HELPER_PAUSE_ENV    "RC_SCOPE_HELPER_TEST_PAUSE"
#define RC_SCOPE_HELPER_CGROUP_ROOT_ENV "RC_CGROUP_ROOT"
/* Largest request the helper reads (the daemon's Exec lines and URIs). */
#define RC_SCOPE_HELPER_MAX_REQUEST  (4 * 1024 * 1024)
