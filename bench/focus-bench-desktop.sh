#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# focus-bench on your own desktop (bench/focus-bench.sh --desktop OUT runs it): as yourself, in your
# session, with resource-control installed. The frame app runs in a new terminal window in an app
# unit of its own, which your compositor focuses; behind it the load of bench/focus-bench-load.sh.
# Configurations: "fair" (your setup with the daemon stopped and masked for the run: the
# fair-by-default drop-ins still act; "stock" if they are not installed) and "guard" (the daemon
# running as you have it: the boost following your compositor's focus and, unless your rules turn it
# off, the responsiveness guard). The daemon's unit is unmasked again at the end.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
OUT=$1
WARMUP=${FB_WARMUP:-5}
MEASURE=${FB_SECONDS:-30}
TERMINAL=${FB_TERMINAL:-x-terminal-emulator}
# shellcheck source=bench/focus-bench-load.sh
. "$HERE/focus-bench-load.sh"
[ "$(id -u)" != 0 ] || { echo "focus-bench --desktop: run it as yourself, in your desktop session" >&2; exit 2; }
systemctl --user is-system-running > /dev/null 2>&1 || [ $? -le 1 ] \
  || { echo "focus-bench --desktop: no systemd user manager" >&2; exit 1; }
command -v "$TERMINAL" > /dev/null || { echo "focus-bench --desktop: no $TERMINAL (set FB_TERMINAL)" >&2; exit 1; }
rm -rf "$OUT/run"
mkdir -p "$OUT/run"
cc -O2 -o "$OUT/frame-app" "$HERE/frame-app.c" -lpthread
APP=$OUT/frame-app
per_ms=$("$APP" calibrate)
ITERATIONS=$((per_ms * 5555 / 1000))
PROCS=$((4 * $(nproc)))
base=fair
systemctl --user cat 'app-.scope' 2>/dev/null | grep -q resource-control || base=stock
printf '{"cpus": %s, "iterations_per_ms": %s, "frame_iterations": %s, "build_processes": %s, "kernel": "%s", "configs": "%s guard"}\n' \
  "$(nproc)" "$per_ms" "$ITERATIONS" "$PROCS" "$(uname -r)" "$base" > "$OUT/run/run.json"

scope () { # scope UNIT [systemd-run options --] CMD...
  local unit=$1 opts=(); shift
  if printf '%s\n' "$@" | grep -qx -- --; then while [ "$1" != -- ]; do opts+=("$1"); shift; done; shift; fi
  systemd-run --user --scope --quiet -u "$unit" "${opts[@]}" "$@" > /dev/null 2>&1 < /dev/null &
}
restore () { systemctl --user unmask --runtime resource-control.service > /dev/null 2>&1 || true; }
trap restore EXIT

n=0
for c in "$base" guard; do
  n=$((n + 1)); dir=$OUT/run/$c
  mkdir -p "$dir"
  if [ "$c" = guard ]; then
    restore
    gdbus call --session --dest org.example.ResourceControl --object-path /org/example/ResourceControl \
      --method org.example.ResourceControl.ListApps > /dev/null
  else
    systemctl --user mask --runtime resource-control.service > /dev/null
    systemctl --user stop resource-control.service
  fi
  fb_units "$n"
  echo "focus-bench: $c: a terminal window opens; leave it focused for $((WARMUP + MEASURE + 10)) s"
  scope "$FB_FRAMES" -- "$TERMINAL" -e "$APP" frames --iterations "$ITERATIONS" --warmup "$WARMUP" \
    --start-file "$dir/load-running" --seconds "$MEASURE" --out "$dir/frames.json"
  sleep 3
  fb_start_load scope "$dir" "$APP" "$PROCS"
  sleep 2
  touch "$dir/load-running"
  sleep "$WARMUP"
  printf 'frames %s\nbuild %s\nindexer %s\n' "$(systemctl --user show -P CPUWeight "$FB_FRAMES")" \
    "$(systemctl --user show -P CPUWeight "$FB_BUILD")" "$(systemctl --user show -P CPUWeight "$FB_INDEXER")" \
    | tr -d '[]' | sed 's/not set/100/' > "$dir/weights"
  for _ in $(seq $((MEASURE + 60))); do [ -s "$dir/frames.json" ] && break; sleep 1; done
  systemctl --user stop -- "$FB_BUILD" "$FB_INDEXER" "${FB_OTHERS[@]}" "$FB_FRAMES" 2>/dev/null || true
  for _ in $(seq 30); do fb_load_done "$dir" "$PROCS" && break; sleep 1; done
done
/usr/bin/python3 "$HERE/focus-bench-report.py" "$OUT/run" --json "$OUT/focus-bench.json" --png "$OUT/focus-bench.png"
