#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# focus-bench's VM payload (bench/focus-bench.sh runs it through tests/vm/run-system-tests.sh): what
# the user in front of the screen gets while the machine is busy. In one boot, with sway (headless)
# started once:
#   - a frame app (bench/frame-app.c) in its own app unit, the focused window of sway: a foot window
#     whose program is the frame loop, so the focus reaches the daemon as it does on a desktop;
#   - behind it a build (four times the CPUs in busy processes, one app), three other busy apps and
#     an indexer in background.slice.
# Each configuration starts from the same state (nothing of the one before left running) and runs
# the same load for FB_WARMUP + FB_SECONDS seconds:
#   stock   no fair-by-default drop-ins, no daemon (the unit masked, so nothing activates it)
#   fair    the drop-ins, no daemon
#   boost   the drop-ins and the daemon, following sway's focus, its guard off ([Guard] Enabled=false)
#   guard   the same with the responsiveness guard on (the default)
# The order is the order of what each adds, so no configuration runs on state a later one leaves.
# The raw figures (every frame's interval, the input probe's delays, each background process's work,
# the units' cpu.weight) go to $VM_OUT/focus-bench/CONFIG/; bench/focus-bench-report.py turns them into
# the table, the JSON and the plot. A step that fails makes the exit status non-zero.
set -u
[ "${1:-}" = --stage ] || { echo "focus-bench-guest: run by bench/focus-bench.sh" >&2; exit 2; }
STAGE=$2
CONFIGS=${FB_CONFIGS:-stock fair boost guard}
WARMUP=${FB_WARMUP:-5}
MEASURE=${FB_SECONDS:-30}
# shellcheck source=bench/guest-preamble.sh
. "$(dirname "$0")/guest-preamble.sh"
export U=$VM_TEST_UID   # lib.sh's
OUT=$VM_OUT
# shellcheck source=tests/vm/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=bench/focus-bench-load.sh
. "$(dirname "$0")/focus-bench-load.sh"
SESSION_OK=0
RC_DBUS=(--dest org.example.ResourceControl --object-path /org/example/ResourceControl)

bench_guest_setup "$STAGE" 'false'
cc -O2 -o /usr/local/bin/rc-frame-app "$(dirname "$0")/frame-app.c" -lpthread \
  || { echo "focus-bench: cannot build frame-app"; exit 125; }
DATA=/var/tmp/focus-bench
mkdir -p "$DATA" && chown "$TUSER:" "$DATA"
NCPU=$(nproc)
BUILD_PROCS=$((4 * NCPU))
DROPINS=$(cd "$STAGE" && find . -path '*/systemd/user/app-.*.d/10-resource-control*.conf' | sed 's#^\.##')
[ -n "$DROPINS" ] || { echo "focus-bench: no fair-by-default drop-ins in the staged install"; exit 125; }

# calibrated alone, before anything else runs: a third of a 60 Hz frame of work
ITER_PER_MS=$("$AU" /usr/local/bin/rc-frame-app calibrate)
ITERATIONS=$((ITER_PER_MS * 5555 / 1000))
echo "focus-bench: $NCPU CPUs, $ITER_PER_MS iterations/ms alone: $ITERATIONS iterations a frame (5.6 ms of work)"

# sway, once for all configurations; its config.d imports WAYLAND_DISPLAY and SWAYSOCK into the manager
printf 'include /etc/sway/config.d/*\n' > /tmp/rc-sway.conf
chmod 644 /tmp/rc-sway.conf
"$AU" systemd-run --user --scope --quiet -u rc-bench-sway.scope env WLR_BACKENDS=headless \
  WLR_RENDERER=pixman WLR_LIBINPUT_NO_DEVICES=1 sway -c /tmp/rc-sway.conf > "$OUT/sway.log" 2>&1 < /dev/null &
wait_for 60 sh -c "$AU systemctl --user show-environment | grep -q ^SWAYSOCK=" \
  || { echo "focus-bench: sway did not start"; cat "$OUT/sway.log"; exit 125; }
WL=$(usc show-environment | sed -n 's/^WAYLAND_DISPLAY=//p')
SOCK=$(usc show-environment | sed -n 's/^SWAYSOCK=//p')

focused_pid () { "$AU" env SWAYSOCK="$SOCK" swaymsg -t get_tree | jq -r '.. | objects | select(.focused == true) | .pid // empty'; }
focus_source () { "$AU" busctl --user get-property org.example.ResourceControl /org/example/ResourceControl \
  org.example.ResourceControl FocusSource 2>/dev/null | sed 's/^s "\(.*\)"$/\1/'; }
# a unit's cpu.weight, or "-" where the cpu controller is not enabled for it (stock)
weight_of () { local w=-; { read -r w < "$(cg "$1")/cpu.weight"; } 2>/dev/null; echo "$w"; }
frames_focused () { local pid; pid=$(focused_pid); [ -n "$pid" ] && grep -qx "$pid" "$(cg "$1")/cgroup.procs"; }

RULES_DIR=$VM_TEST_HOME/.config/resource-control/rules.d
FAILED_STEPS=()
step_failed () { echo "focus-bench: FAILED: $*"; FAILED_STEPS+=("$*"); }

run_config () { # run_config NAME N: the load and the frame app, from a clean start
  local name=$1 n=$2 dir=$DATA/$1
  mkdir -p "$dir" && chown "$TUSER:" "$dir"
  fb_units "$n"
  # the frame app first, alone: sway maps its window and focuses it (and the daemon, when it runs,
  # boosts it) before the load starts; it measures from when the load runs, after the warm-up
  start_scope "$FB_FRAMES" -- env WAYLAND_DISPLAY="$WL" foot -T Frames -- rc-frame-app frames \
    --iterations "$ITERATIONS" --warmup "$WARMUP" --start-file "$dir/load-running" --seconds "$MEASURE" \
    --out "$dir/frames.json"
  wait_for 60 all_active "$FB_FRAMES" || step_failed "$name: the frame app did not start"
  if ! wait_for 60 frames_focused "$FB_FRAMES"; then
    step_failed "$name: sway's focused window ($(focused_pid)) is not the frame app's"
  fi
  if [ "$name" = boost ]; then
    wait_for 30 sh -c "[ \"\$(cat $(cg "$FB_FRAMES")/cpu.weight)\" != 100 ]" \
      || step_failed "boost: the daemon did not boost the focused frame app"
  fi
  fb_start_load start_scope "$dir" rc-frame-app "$BUILD_PROCS"
  wait_for 30 all_active "$FB_BUILD" "$FB_INDEXER" "${FB_OTHERS[@]}" || step_failed "$name: background apps did not start"
  touch "$dir/load-running"
  # mid-run: what the kernel was told
  nap "$WARMUP"
  printf 'frames %s\nbuild %s\nindexer %s\n' "$(weight_of "$FB_FRAMES")" "$(weight_of "$FB_BUILD")" \
    "$(weight_of "$FB_INDEXER")" > "$dir/weights"
  wait_for $((MEASURE + 60)) test -s "$dir/frames.json" || step_failed "$name: the frame app wrote no figures"
  # the frame app's scope has ended with its program (foot exits with it)
  usc stop -- "$FB_BUILD" "$FB_INDEXER" "${FB_OTHERS[@]}" "$FB_FRAMES" 2>/dev/null
  wait_for 30 fb_load_done "$dir" "$BUILD_PROCS" || step_failed "$name: not every background process wrote its work"
  # what the daemon did during the run, for the report's count of weight changes per app
  if [ "$name" = boost ] || [ "$name" = guard ]; then
    "$AU" resourcectl log --json > "$dir/actions.json" 2>/dev/null || step_failed "$name: resourcectl log failed"
  fi
  echo "focus-bench: $name done: cpu.weight $(paste -sd' ' "$dir/weights")"
}

n=0
for c in $CONFIGS; do
  n=$((n + 1))
  case "$c" in
    stock)
      for f in $DROPINS; do rm -f "$f"; done
      usc mask --runtime resource-control.service > /dev/null 2>&1
      usc stop resource-control.service
      usc daemon-reload ;;
    fair)
      for f in $DROPINS; do mkdir -p "$(dirname "$f")"; cp "$STAGE$f" "$f"; done
      usc mask --runtime resource-control.service > /dev/null 2>&1
      usc daemon-reload ;;
    boost|guard)
      for f in $DROPINS; do mkdir -p "$(dirname "$f")"; cp "$STAGE$f" "$f"; done
      if [ "$c" = boost ]; then
        "$AU" mkdir -p "$RULES_DIR"
        printf '[Guard]\nEnabled=false\n' | "$AU" tee "$RULES_DIR/90-focus-bench.conf" > /dev/null
      else
        rm -f "$RULES_DIR/90-focus-bench.conf"
      fi
      usc unmask --runtime resource-control.service > /dev/null 2>&1
      usc daemon-reload
      "$AU" gdbus call --session "${RC_DBUS[@]}" --method org.example.ResourceControl.ListApps > /dev/null \
        || step_failed "$c: the daemon was not activated"
      wait_for 30 sh -c "[ \"\$($AU busctl --user get-property org.example.ResourceControl /org/example/ResourceControl org.example.ResourceControl FocusSource 2>/dev/null)\" = 's \"sway\"' ]" \
        || step_failed "$c: FocusSource is '$(focus_source)', not sway"
      # the daemon reads a rules folder's change within a second; the report counts the guard's
      # entries in each run's record (none with it off)
      nap 2 ;;
    *) echo "focus-bench: unknown configuration $c (stock fair boost guard)"; exit 2 ;;
  esac
  echo "focus-bench: $c: $WARMUP s warm-up, $MEASURE s measured"
  run_config "$c" "$n"
done

mkdir -p "$OUT/focus-bench"
cp -r "$DATA"/. "$OUT/focus-bench/"
printf '{"cpus": %s, "iterations_per_ms": %s, "frame_iterations": %s, "build_processes": %s, "kernel": "%s", "configs": "%s"}\n' \
  "$NCPU" "$ITER_PER_MS" "$ITERATIONS" "$BUILD_PROCS" "$(uname -r)" "$CONFIGS" > "$OUT/focus-bench/run.json"
usc stop rc-bench-sway.scope
if [ ${#FAILED_STEPS[@]} -gt 0 ]; then
  printf 'focus-bench: %d steps failed:\n' "${#FAILED_STEPS[@]}"; printf '  %s\n' "${FAILED_STEPS[@]}"
  exit 1
fi
echo "focus-bench: all configurations ran"
