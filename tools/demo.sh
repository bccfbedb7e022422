#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The README's main job, as root on Debian 12: set everything up and run resource-control.
#  - On a desktop with a systemd user session (the user who ran sudo, or RC_DEMO_USER): build, install
#    into /usr, reload that user's manager, and show the user's apps with resourcectl; the daemon is
#    D-Bus activated by that first call.
#  - Elsewhere (a server, CI): boot the test VM with real systemd on cgroup v2, start a few real apps,
#    let the daemon be D-Bus activated, show `resourcectl list` and the measured fairness demo.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
bash "$src/tools/install-deps.sh"

user=${RC_DEMO_USER:-${SUDO_USER:-}}
uid=$([ -n "$user" ] && id -u "$user" 2>/dev/null || true)
if [ -n "$uid" ] && [ "$uid" != 0 ] && [ -S "/run/user/$uid/bus" ] && [ -d /run/systemd/system ]; then
  echo "demo: $user has a systemd user session: installing resource-control for it"
  as_user () { runuser -u "$user" -- env XDG_RUNTIME_DIR=/run/user/$uid \
                 DBUS_SESSION_BUS_ADDRESS=unix:path=/run/user/$uid/bus "$@"; }
  build=$src/build-demo
  [ -f "$build/build.ninja" ] || meson setup "$build" "$src" --prefix=/usr -Dtests=disabled
  meson compile -C "$build"
  meson install -C "$build" --no-rebuild
  as_user systemctl --user daemon-reload
  as_user busctl --user call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus ReloadConfig
  echo "demo: apps started from now on get their fair share (the fair-by-default drop-ins)."
  as_user resourcectl list
else
  echo "demo: no systemd user session here: running the demo in the test VM (real systemd, cgroup v2)"
  exec bash "$src/tests/vm/run-system-tests.sh" --payload "$src/tests/vm/demo-guest.sh"
fi
