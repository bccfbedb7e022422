#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# bench/run.sh - measure resource-controld against what a client without it must do.
#
#   bench/run.sh [--quick] [--host-only] [--sizes LIST] [--out FILE.json] [--build-dir DIR] [--keep] [--timeout SEC]
#
# Default: the real figures. Boots the test VM (tests/vm/run-in-vm.sh: real systemd 252 as PID 1 on
# cgroup v2), installs a --prefix=/usr build into it as tests/vm/run-system-tests.sh does, starts 1,000
# app scopes with StartTransientUnit from one process and runs bench/bench.py as the test user.
# --host-only: no VM; the host integration harness's world instead (python-dbusmock systemd with a
# fake cgroupfs, a real polkitd on a private system bus, the daemon from the build folder); those
# figures are labelled "mock" (only the daemon's side is real code).
# --quick: fewer iterations, a 3 s idle window instead of 60 s, 10 energy samples instead of 40 (the CI
# smoke: --quick --host-only).
#
# Prints a table and writes every figure to FILE.json (default: BUILD/bench-vm.json or
# BUILD/bench-mock.json). The headline is ratios: absolute times under the VM's emulation are inflated.
# Nothing is asserted on timings; a goal that is not met is printed as "missed". The exit status is
# non-zero only when something broke (the daemon crashed, a call failed, the VM did not come up).
#
# Needs root (creates the test user, runs polkitd in its own mount namespace, boots the VM).
# --build-dir DIR: build to use (default BENCH_SOURCE/build-bench, configured --prefix=/usr
# -Dtests=disabled when missing). The VM run needs a --prefix=/usr build.
# Environment: RC_VMDIR (default /var/tmp/resource-control-vm): the VM kernel and initramfs (shared with
# the system tests, prepared by tests/vm/setup.sh), and this script's own staging and run folders
# (bench-stage, bench-runs/). VM runs take RC_VMDIR/lock, as run-system-tests.sh does, so two VMs do not
# compete for the CPUs and spoil each other's figures.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SRC=$(cd "$HERE/.." && pwd)
export RC_VMDIR=${RC_VMDIR:-/var/tmp/resource-control-vm}
QUICK=0 HOST=0 OUT= BUILD=$SRC/build-bench KEEP=0 TIMEOUT= SIZES=
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) QUICK=1 ;;
    --host-only) HOST=1 ;;
    --out) OUT=$2; shift ;;
    --build-dir) BUILD=$2; shift ;;
    --keep) KEEP=1 ;;
    --timeout) TIMEOUT=$2; shift ;;
    --sizes) SIZES=$2; shift ;;     # for debugging the harness, e.g. 10,100
    -h|--help) sed -n '3,28p' "$0"; exit 0 ;;
    *) echo "bench/run.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done
if [ "$(id -u)" != 0 ]; then
  echo "bench/run.sh: needs root (test user, polkitd in a mount namespace, VM)" >&2
  exit 77
fi
# the benchmark runs as the test user from another folder: a relative build folder would not be found
BUILD=$(realpath -m "$BUILD")
PY=/usr/bin/python3
REV=$(git -C "$SRC" describe --always --dirty 2>/dev/null || echo unknown)

# --- build ---
prefix_of () { meson introspect --buildoptions "$1" 2>/dev/null | "$PY" -c \
  'import json,sys; print(next(o["value"] for o in json.load(sys.stdin) if o["name"] == "prefix"))'; }
if [ ! -f "$BUILD/build.ninja" ]; then
  meson setup --prefix=/usr -Dtests=disabled "$BUILD" "$SRC" > /dev/null
fi
ninja -C "$BUILD" > /dev/null || { ninja -C "$BUILD"; exit 1; }
DAEMON=$BUILD/src/resource-controld

if [ "$HOST" = 1 ]; then
  OUT=${OUT:-$BUILD/bench-mock.json}
  TMP=$(mktemp -d)
  trap 'rm -rf "$TMP"' EXIT
  chmod 0777 "$TMP"          # the benchmark runs as the harness's test user
  echo "bench: host-only (mock systemd), daemon $DAEMON"
  RC_DAEMON=$DAEMON RC_BENCH_OUT=$TMP/bench.json RC_BENCH_QUICK=$QUICK BENCH_GIT_REV=$REV \
    RC_BENCH_SIZES=${SIZES:-10,100,1000} PYTHONDONTWRITEBYTECODE=1 \
    "$PY" -B "$HERE/host_bench.py" -v
  [ -s "$TMP/bench.json" ] || { echo "bench: no result file" >&2; exit 1; }
  cp "$TMP/bench.json" "$OUT"
else
  OUT=${OUT:-$BUILD/bench-vm.json}
  [ "$(prefix_of "$BUILD")" = /usr ] || {
    echo "bench: $BUILD is not configured with --prefix=/usr (the VM installs it); use --build-dir" >&2
    exit 2
  }
  mkdir -p "$RC_VMDIR"
  exec 9> "$RC_VMDIR/lock"
  if ! flock -n 9; then
    echo "bench: waiting for another VM run to finish ($RC_VMDIR/lock)"
    flock -w 3600 9 || { echo "bench: gave up waiting for $RC_VMDIR/lock" >&2; exit 125; }
  fi
  bash "$SRC/tests/vm/setup.sh"
  STAGE=$RC_VMDIR/bench-stage
  rm -rf "$STAGE"
  meson install -C "$BUILD" --no-rebuild --quiet --destdir "$STAGE" > /dev/null
  RUN=$RC_VMDIR/bench-runs/run-$(date +%Y%m%d-%H%M%S)
  mkdir -p "$RC_VMDIR/bench-runs"
  ARGS=(--stage "$STAGE" --src "$SRC" --rev "$REV")
  [ "$QUICK" = 1 ] && ARGS+=(--quick)
  [ -n "$SIZES" ] && ARGS+=(--sizes "$SIZES")
  TIMEOUT=${TIMEOUT:-$([ "$QUICK" = 1 ] && echo 1200 || echo 3000)}
  echo "bench: VM run (real systemd), timeout ${TIMEOUT}s, run folder $RUN"
  set +e
  bash "$SRC/tests/vm/run-in-vm.sh" --timeout "$TIMEOUT" --mem 3072 --out "$RUN" --with "$HERE/guest-preamble.sh" \
    "$HERE/vm-guest.sh" "${ARGS[@]}"
  RC=$?
  set -e
  if [ "$RC" != 0 ] || [ ! -s "$RUN/out/bench.json" ]; then
    echo "bench: the VM run failed (status $RC); logs in $RUN (console.log, out/output.log," \
      "out/monitor.log, out/bench-daemon.log, out/journal.txt)" >&2
    if [ -s "$RUN/out/bench.json.partial" ]; then
      cp "$RUN/out/bench.json.partial" "$OUT.partial"
      echo "bench: the figures measured before it failed: $OUT.partial" >&2
    fi
    exit 1
  fi
  cp "$RUN/out/bench.json" "$OUT"
  [ "$KEEP" = 1 ] || rm -rf "$RUN"
fi
echo
"$PY" -B "$HERE/bench.py" --print "$OUT"
echo
echo "bench: figures in $OUT"
