#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# bench/focus-bench.sh - what the user in front of the screen gets while a build, busy apps and an
# indexer run behind the focused app: its frame intervals (p50, p99, 1% low, missed frames), how late
# its input would be handled, and how much work the background still gets done, for each
# configuration (stock, fair by default, + the focus boost, + the guard), in one VM boot with sway.
#
#   bench/focus-bench.sh [--out DIR] [--seconds S] [--configs "stock fair boost"]
#   bench/focus-bench.sh --desktop [--out DIR] [--seconds S]
#   bench/focus-bench.sh --host-smoke [--out DIR]
#
# Default: boots the test VM (real systemd 252 on cgroup v2; tests/vm/run-system-tests.sh --payload
# bench/focus-bench-guest.sh), then prints the table and writes DIR/focus-bench.json and
# DIR/focus-bench.png (default DIR: $RC_VMDIR/focus-bench). About 4 min of VM per configuration of
# 30 s under emulation. Figures are never asserted; a goal not met is printed as missed.
# --host-smoke: no VM, no systemd: the frame app beside two busy processes on this machine for 2 s,
# through the same report (what CI runs, to keep the programs and the report working).
# --desktop: on your own desktop, as yourself (not root), with resource-control installed: the same
# load in your session, the frame app in a new terminal window (x-terminal-emulator, or $FB_TERMINAL)
# that must keep the focus (do not touch anything for the run's two minutes); configurations: your
# setup without the daemon (stopped and masked for the run) and with it. DIR defaults to
# ~/.cache/resource-control/focus-bench. See bench/README.md, "focus-bench on your own desktop".
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SRC=$(cd "$HERE/.." && pwd)
export RC_VMDIR=${RC_VMDIR:-/var/tmp/resource-control-vm}
OUT=
SMOKE=0
export FB_SECONDS=${FB_SECONDS:-30} FB_CONFIGS=${FB_CONFIGS:-stock fair boost guard}
while [ $# -gt 0 ]; do
  case "$1" in
    --out) OUT=$2; shift ;;
    --seconds) FB_SECONDS=$2; shift ;;
    --configs) FB_CONFIGS=$2; shift ;;
    --host-smoke) SMOKE=1 ;;
    --desktop) SMOKE=desktop ;;
    -h|--help) sed -n '3,24p' "$0"; exit 0 ;;
    *) echo "focus-bench: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done
PY=/usr/bin/python3

if [ "$SMOKE" = 1 ]; then
  OUT=${OUT:-$(mktemp -d)}
  run=$OUT/run
  mkdir -p "$run/host"
  cc -O2 -o "$OUT/frame-app" "$HERE/frame-app.c" -lpthread
  per_ms=$("$OUT/frame-app" calibrate)
  iterations=$((per_ms * 5555 / 1000))
  pids=()
  for i in 1 2; do "$OUT/frame-app" busy --out "$run/host/busy-$i" & pids+=($!); done
  "$OUT/frame-app" frames --iterations "$iterations" --warmup 0.5 --seconds 2 --out "$run/host/frames.json"
  kill -TERM "${pids[@]}"
  wait "${pids[@]}"
  printf '{"cpus": %s, "iterations_per_ms": %s, "frame_iterations": %s, "build_processes": 2, "kernel": "%s", "configs": "host"}\n' \
    "$(nproc)" "$per_ms" "$iterations" "$(uname -r)" > "$run/run.json"
  exec "$PY" "$HERE/focus-bench-report.py" "$run" --json "$OUT/focus-bench.json" --png "$OUT/focus-bench.png"
fi

if [ "$SMOKE" = desktop ]; then
  exec bash "$HERE/focus-bench-desktop.sh" "${OUT:-${XDG_CACHE_HOME:-$HOME/.cache}/resource-control/focus-bench}"
fi

if [ "$(id -u)" != 0 ]; then
  echo "focus-bench: needs root (boots the VM)" >&2
  exit 77
fi
OUT=${OUT:-$RC_VMDIR/focus-bench}
rm -rf "$OUT/vm"
mkdir -p "$OUT"
set +e
bash "$SRC/tests/vm/run-system-tests.sh" --out "$OUT/vm" --timeout 2400 --payload "$HERE/focus-bench-guest.sh" \
  --with "$HERE/guest-preamble.sh" --with "$HERE/frame-app.c" --with "$HERE/focus-bench-load.sh"
rc=$?
set -e
[ -f "$OUT/vm/out/focus-bench/run.json" ] || { echo "focus-bench: the VM run left no figures (exit status $rc)" >&2; exit 1; }
"$PY" "$HERE/focus-bench-report.py" "$OUT/vm/out/focus-bench" --json "$OUT/focus-bench.json" --png "$OUT/focus-bench.png"
exit $rc
