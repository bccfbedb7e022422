#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# memory-bench's VM payload (bench/memory-bench.sh runs it through tests/vm/run-system-tests.sh):
# what a hog filling memory does to the desktop, in one boot, for each configuration:
#   stock   no memory drop-ins (user.slice, user-.slice, user@.service), no daemon (masked)
#   ladder  the drop-ins and the daemon: session.slice's and the focused app's MemoryLow, the ladder
# Both run the same workload (tests/vm/memory-sections.sh): swap on zram, the focused app and its
# unprotected twin touching 96 MiB of anonymous and 48 MiB of file pages every 100 ms, a compositor
# stand-in in session.slice touching 64 MiB, and a hog growing 8 MiB each 50 ms to MemAvailable +
# 640 MiB (writing to 32 MiB of it each turn), held for MB_SECONDS, then let go; systemd-oomd
# is off in both (it would kill the hog at 90 % swap before anything else shows). Figures per configuration go to
# $VM_OUT/memory-bench/CONFIG.txt (key value lines) and the touch logs beside them.
set -u
[ "${1:-}" = --stage ] || { echo "memory-bench-guest: run by bench/memory-bench.sh" >&2; exit 2; }
STAGE=$2
CONFIGS=${MB_CONFIGS:-stock ladder}
HOLD=${MB_SECONDS:-60}
# shellcheck source=bench/guest-preamble.sh
. "$(dirname "$0")/guest-preamble.sh"
export U=$VM_TEST_UID   # lib.sh's
OUT=$VM_OUT
UM=/sys/fs/cgroup/user.slice/user-$U.slice/user@$U.service
RC_NAME=org.example.ResourceControl
RC_PATH=/org/example/ResourceControl
RC_IFACE=org.example.ResourceControl
MiB=1048576
# shellcheck source=tests/vm/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/vm/memory-sections.sh
. "$(dirname "$0")/memory-sections.sh"
# the payload calls the daemon from its own cgroup: polkit's rule below names the user
client_up () { :; }
cl () { "$AU" "$@"; }
file_is () { local v=; read -r v 2>/dev/null < "$1"; [ "$v" = "$2" ]; }

bench_guest_setup "$STAGE" 'action.id.indexOf("org.example.ResourceControl.") == 0'
DROPINS=$(cd "$STAGE" && find . -path '*/systemd/system/*.d/10-resource-control.conf' | sed 's#^\./#/#')
[ -n "$DROPINS" ] || { echo "memory-bench: no memory drop-ins in the staged install"; exit 125; }
DATA=$OUT/memory-bench
mkdir -p "$DATA" && chmod 777 "$DATA"
FAILED_STEPS=()
step_failed () { echo "memory-bench: FAILED: $*"; FAILED_STEPS+=("$*"); }

mem_disk_up || { echo "memory-bench: no guest-local disk"; exit 125; }
mem_swap_up
[ "$MEM_SWAP" != none ] || { echo "memory-bench: no swap"; exit 125; }
mem_oomd_off
# one target for every configuration, taken before anything runs
TARGET=$(mem_hog_target)
SWAP_KIND=$MEM_SWAP
echo "memory-bench: swap $MEM_SWAP, hog target $TARGET MiB, held ${HOLD} s; $(nproc) CPUs, $(awk '$1 == "MemTotal:" { print int($2 / 1024) }' /proc/meminfo) MiB RAM"

no_ladder_step () {
  [ "$(ladder_prop MemoryLadderHeld)" = "a(ssst) 0" ] && [ "$(ladder_prop MemoryLadderLevel)" = 's "normal"' ]
}
# the hog let go of its memory, or was killed
hog_done () {
  grep -q '^let go' "$OUT/app-$(printf '%s' "$MEM_HOG" | tr -c 'A-Za-z0-9.@-' _).log" 2>/dev/null ||
    [ "$(usc is-active -- "$MEM_HOG")" != active ]
}
killed_apps () { # the workload's apps the kernel killed (oom_kill in their memory.events, or gone with oom-kill)
  local u r k
  for u in "$MEM_HOG" "$MEM_FOCUS" "$MEM_TWIN" "$MEM_SESSION"; do
    r=$(usc show -P Result -- "$u" 2>/dev/null)
    k=$(mevent "$(cg "$u")" oom_kill)
    if [ "$r" = oom-kill ] || [ "${k:-0}" != 0 ]; then echo "$u"; fi
  done | paste -sd, -
}

run_config () {
  local name=$1 f=$DATA/$1.txt t0 t_stop t_back psi0 psi1 p99 worst
  mem_workload_apps "$name-"
  if [ "$name" = ladder ]; then
    cl gdbus call --session --dest "$RC_NAME" --object-path "$RC_PATH" --method "$RC_IFACE.SetForegroundApp" \
      "$MEM_FOCUS" > /dev/null || step_failed "$name: SetForegroundApp"
    wait_for 15 file_is "$(cg "$MEM_FOCUS")/memory.low" $((256 * MiB)) || step_failed "$name: the focused app has no memory.low"
  fi
  printf 'memory.low user.slice %s user@ %s session.slice %s focused %s\n' "$(cat /sys/fs/cgroup/user.slice/memory.low)" \
    "$(cat "$UM/memory.low")" "$(cat "$UM/session.slice/memory.low")" "$(cat "$(cg "$MEM_FOCUS")/memory.low")" > "$f"
  psi0=$(full_total "$UM/session.slice")
  t0=$(now)
  mem_hog_start "$TARGET"
  nap "$HOLD"
  touch "$MEM_STOP"
  wait_for 120 hog_done || step_failed "$name: the hog did not let go in 120 s"
  t_stop=$(now)
  if [ "$name" = ladder ]; then
    if wait_for 180 no_ladder_step; then
      t_back=$(now)
      echo "back_s $(awk -v a="$t_stop" -v b="$t_back" 'BEGIN { printf "%.1f", b - a }')" >> "$f"
    else
      step_failed "$name: a ladder step still in force 180 s after the hog's end"
      echo "back_s more than 180 (a step still in force)" >> "$f"
    fi
    cl resourcectl log --json > "$MEM_LOGS/$name-actions.json" 2>/dev/null; cp "$MEM_LOGS/$name-actions.json" "$DATA/"
  else
    nap 5
  fi
  psi1=$(full_total "$UM/session.slice")
  read -r p99 worst <<< "$(touch_p99 "$MEM_LOGS/$name-touch-editor.log" "$t0")"
  {
    echo "session_full_us $((psi1 - psi0))"
    echo "focus_p99_ms $p99"
    echo "focus_max_ms $worst"
    echo "twin_p99_ms $(touch_p99 "$MEM_LOGS/$name-touch-viewer.log" "$t0" | cut -d' ' -f1)"
    echo "session_p99_ms $(touch_p99 "$MEM_LOGS/$name-touch-session.log" "$t0" | cut -d' ' -f1)"
    echo "killed $(killed_apps)"
    echo "seconds $(awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }')"
    echo "focus_swap_mib $(mib "$(cat "$(cg "$MEM_FOCUS")/memory.swap.current" 2>/dev/null)")"
  } >> "$f"
  mem_workload_stop
  cp "$MEM_LOGS/$name"-touch-*.log "$DATA/"
  echo "memory-bench: $name: $(paste -sd' ' "$f")"
}

for c in $CONFIGS; do
  case "$c" in
    stock)
      for f in $DROPINS; do mv "$f" "$f.off"; done
      systemctl daemon-reload
      usc mask --runtime resource-control.service > /dev/null 2>&1
      usc stop resource-control.service ;;
    ladder)
      for f in $DROPINS; do [ -e "$f.off" ] && mv "$f.off" "$f"; done
      systemctl daemon-reload
      usc unmask --runtime resource-control.service > /dev/null 2>&1
      usc daemon-reload
      cl gdbus call --session --dest "$RC_NAME" --object-path "$RC_PATH" --method "$RC_IFACE.ListApps" > /dev/null \
        || step_failed "$c: the daemon was not activated"
      wait_for 15 file_is "$UM/session.slice/memory.low" $((256 * MiB)) || step_failed "$c: session.slice has no memory.low" ;;
    *) echo "memory-bench: unknown configuration $c (stock ladder)"; exit 2 ;;
  esac
  echo "memory-bench: $c: the hog held for $HOLD s"
  run_config "$c"
done
mem_swap_down
mem_oomd_back
printf 'kernel %s\ncpus %s\nram_mib %s\nswap %s\ntarget_mib %s\nhold_s %s\n' "$(uname -r)" "$(nproc)" \
  "$(awk '$1 == "MemTotal:" { print int($2 / 1024) }' /proc/meminfo)" "$SWAP_KIND" "$TARGET" "$HOLD" > "$DATA/run.txt"
if [ ${#FAILED_STEPS[@]} -gt 0 ]; then
  printf 'memory-bench: %d steps failed:\n' "${#FAILED_STEPS[@]}"; printf '  %s\n' "${FAILED_STEPS[@]}"
  exit 1
fi
echo "memory-bench: all configurations ran"
