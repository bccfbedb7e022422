#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# run-system-tests.sh - the system tests (docs/design.md, "Tests", tier 3): boot a VM with real systemd as
# PID 1 on cgroup v2, install the project's Debian packages into it, start real apps as the test user, D-Bus activate the
# daemon and check every feature against the kernel's cgroup files. One VM boot for everything.
#
# Standalone, as root on Debian 12, from anywhere:
#     tests/vm/run-system-tests.sh                       # builds its own --prefix=/usr build dir
#     tests/vm/run-system-tests.sh --build-dir build     # reuse a build dir if it was set up with --prefix=/usr
#     tests/vm/run-system-tests.sh --keep -- --only "list getapp"   # a few sections, keep logs
# From meson: `meson test -C BUILD --suite vm` (test 'system'; passes --build-dir BUILD).
#
# options:
#   --build-dir DIR   build the demo (--payload) installs from; used only if configured with prefix /usr, else
#                     the script configures and compiles its own build dir $RC_VMDIR/build from this source tree
#   --out DIR         keep the VM run folder as DIR (implies --keep)
#   --keep            keep the VM run folder ($RC_VMDIR/runs/run.*: out/output.log, out/journal.txt,
#                     out/daemon.log, out/monitor.log, out/calls.log, console.log)
#   --timeout SEC     wall-clock limit for the VM (default 2400)
#   --delegate LIST   controllers user@.service delegates in the VM (default: Debian's stock cpu memory pids,
#                     which the NotSupported checks rely on; the io section adds io itself later on)
#   --console         stream the guest's serial console to stderr
#   --payload SCRIPT  run SCRIPT --stage DIR in the guest instead of system-test.sh (tools/demo.sh uses
#                     tests/vm/demo-guest.sh)
#   --with FILE       copy FILE into the guest's /mnt/vmshare beside the payload (a file it sources); repeatable
#   -- ARGS           passed to system-test.sh (--only "SECTIONS", --skip "SECTIONS")
# environment: RC_VM_DEBS: a folder with current/ and previous/ .deb files to install (default: built here);
# RC_VMDIR (default /var/tmp/resource-control-vm): kernel, initramfs, build, staging and run
# folders. Nothing is written to the source tree; the host's / is seen read-only by the guest, so nothing
# the guest needs may live in the host's /tmp (the guest's /tmp is empty).
# First run: setup.sh installs qemu-system-x86 busybox-static kmod (and the runtime the guest borrows:
# polkitd dbus-user-session libglib2.0-bin jq ...) and downloads the Debian kernel package (~70 MB).
# Exit status: 0 all passed, 1 a check failed, 77 skipped (not root), 124 VM timeout, 125 harness failure.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SRC=$(cd "$HERE/../.." && pwd)
export RC_VMDIR=${RC_VMDIR:-/var/tmp/resource-control-vm}
BUILD=
VMARGS=()
TIMEOUT=2400
PAYLOAD=
while [ $# -gt 0 ]; do
  case "$1" in
    --build-dir) BUILD=$2; shift ;;
    --keep) VMARGS+=(--keep) ;;
    --out) VMARGS+=(--out "$2"); shift ;;
    --console) VMARGS+=(--console) ;;
    --payload) PAYLOAD=$2; shift ;;
    --with) VMARGS+=(--with "$2"); shift ;;
    --timeout) TIMEOUT=$2; shift ;;
    --delegate) VMARGS+=(--delegate "$2"); shift ;;
    --) shift; break ;;
    -h|--help) sed -n '3,34p' "$0"; exit 0 ;;
    *) echo "run-system-tests: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done

if [ "$(id -u)" != 0 ]; then
  echo "run-system-tests: SKIP: needs root (installs packages, boots a VM)"
  exit 77
fi
mkdir -p "$RC_VMDIR"
# one run at a time: the build, staging and kernel folders are shared
exec 9> "$RC_VMDIR/lock"
flock 9

T0=$(date +%s)
bash "$HERE/setup.sh"

# The system tests install the Debian packages (tools/build-deb.sh), as a user would: the ones in
# $RC_VM_DEBS (current/ and previous/, as tests/run-all.sh builds them from the release tarball), else
# built here from this tree. previous/ is the same packaging as version 0.3.0-1: what section package
# upgrades from. The guest reads them from $RC_VMDIR (it sees the host's / read-only, but not /tmp).
# Only the demo (--payload) installs a meson build's staged tree.
if [ -z "$PAYLOAD" ]; then
  DEBS=$RC_VMDIR/debs
  rm -rf "$DEBS"
  mkdir -p "$DEBS/current" "$DEBS/previous"
  if [ -n "${RC_VM_DEBS:-}" ]; then
    cp "$RC_VM_DEBS"/current/*.deb "$DEBS/current/" && cp "$RC_VM_DEBS"/previous/*.deb "$DEBS/previous/" || exit 125
  else
    bash "$SRC/tools/build-deb.sh" --previous 0.3.0-1 "$DEBS/previous" "$DEBS/current" > "$RC_VMDIR/build-deb.log" 2>&1 || { tail -40 "$RC_VMDIR/build-deb.log"; exit 125; }
  fi
  rm -f "$DEBS"/*/*-dbgsym_*.deb
  T1=$(date +%s)
  echo "run-system-tests: setup + packages: $((T1 - T0)) s ($(cd "$DEBS" && echo */*.deb))"
  set +e
  bash "$HERE/run-in-vm.sh" --timeout "$TIMEOUT" "${VMARGS[@]}" --with "$HERE/lib.sh" --with "$HERE/demo-guest.sh" --with "$HERE/scale-guest.py" \
    --with "$HERE/focus-sections.sh" --with "$HERE/rules-sections.sh" --with "$HERE/launch-sections.sh" \
    --with "$HERE/slices-sections.sh" --with "$HERE/notify-sections.sh" --with "$HERE/memory-sections.sh" --with "$HERE/package-sections.sh" \
    "$HERE/system-test.sh" --debs "$DEBS" "$@"
  RC=$?
  echo "run-system-tests: VM run $(( $(date +%s) - T1 )) s, exit status $RC"
  exit $RC
fi

prefix_of () { meson introspect --buildoptions "$1" 2>/dev/null | jq -r '.[] | select(.name == "prefix") | .value'; }
if [ -n "$BUILD" ] && [ "$(prefix_of "$BUILD")" = /usr ]; then
  BUILD=$(cd "$BUILD" && pwd)
  echo "run-system-tests: using $BUILD (prefix /usr)"
else
  [ -n "$BUILD" ] && echo "run-system-tests: $BUILD is not --prefix=/usr; using $RC_VMDIR/build"
  BUILD=$RC_VMDIR/build
  # a build dir left by a run from another clone would build that clone's sources
  if [ -f "$BUILD/build.ninja" ] && [ "$(jq -r .directories.source "$BUILD/meson-info/meson-info.json" 2>/dev/null)" != "$SRC" ]; then
    echo "run-system-tests: $BUILD was set up for another source tree; starting it afresh"
    rm -rf "$BUILD"
  fi
  if [ -f "$BUILD/build.ninja" ]; then
    meson setup --reconfigure --prefix=/usr -Dtests=disabled "$BUILD" "$SRC" > "$RC_VMDIR/meson-setup.log" 2>&1 \
      || { cat "$RC_VMDIR/meson-setup.log"; exit 125; }
  else
    rm -rf "$BUILD"
    meson setup --prefix=/usr -Dtests=disabled "$BUILD" "$SRC" > "$RC_VMDIR/meson-setup.log" 2>&1 \
      || { cat "$RC_VMDIR/meson-setup.log"; exit 125; }
  fi
fi
meson compile -C "$BUILD" > "$RC_VMDIR/compile.log" 2>&1 || { tail -40 "$RC_VMDIR/compile.log"; exit 125; }
STAGE=$RC_VMDIR/stage
rm -rf "$STAGE"
meson install -C "$BUILD" --no-rebuild --quiet --destdir "$STAGE" > "$RC_VMDIR/install.log" 2>&1 \
  || { cat "$RC_VMDIR/install.log"; exit 125; }
T1=$(date +%s)
echo "run-system-tests: setup + build + staged install: $((T1 - T0)) s"

set +e
bash "$HERE/run-in-vm.sh" --timeout "$TIMEOUT" "${VMARGS[@]}" --with "$HERE/lib.sh" --with "$HERE/demo-guest.sh" --with "$HERE/scale-guest.py" \
  --with "$HERE/focus-sections.sh" --with "$HERE/rules-sections.sh" --with "$HERE/launch-sections.sh" \
  --with "$HERE/slices-sections.sh" --with "$HERE/notify-sections.sh" --with "$HERE/memory-sections.sh" \
  "${PAYLOAD:-$HERE/system-test.sh}" --stage "$STAGE" "$@"
RC=$?
echo "run-system-tests: VM run $(( $(date +%s) - T1 )) s, exit status $RC"
exit $RC
