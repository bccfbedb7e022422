#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# bench/memory-bench.sh - what a memory hog does to the desktop: stock (no memory drop-ins, no
# daemon) beside the package's drop-ins with the daemon (session.slice's and the focused app's
# MemoryLow, the memory ladder), the same workload in one VM boot (bench/memory-bench-guest.sh):
#
#   bench/memory-bench.sh [--out DIR] [--seconds S]
#   bench/memory-bench.sh --report DIR      the table again from a run's figures
#
# Boots the test VM (tests/vm/run-system-tests.sh --payload bench/memory-bench-guest.sh), then
# prints the table: session.slice's memory.pressure "full" total over the run, the focused app's
# p99 time to touch its working set, the apps the kernel killed, and the time from the hog's end
# until no ladder step is in force, each beside its goal, "met" or "missed". About 6 min of VM with
# the hog held S seconds from its start (default 60). DIR (default $RC_VMDIR/memory-bench) keeps the guest's
# figures (memory-bench/CONFIG.txt, the touch logs) and the VM run folder.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SRC=$(cd "$HERE/.." && pwd)
export RC_VMDIR=${RC_VMDIR:-/var/tmp/resource-control-vm}
OUT=
REPORT=
export MB_SECONDS=${MB_SECONDS:-60}
while [ $# -gt 0 ]; do
  case "$1" in
    --out) OUT=$2; shift ;;
    --seconds) MB_SECONDS=$2; shift ;;
    --report) REPORT=$2; shift ;;
    -h|--help) sed -n '3,17p' "$0"; exit 0 ;;
    *) echo "memory-bench: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done

# get FILE KEY: the value of a "key value..." line
get () { awk -v k="$2" '$1 == k { $1 = ""; sub(/^ /, ""); print; exit }' "$1" 2>/dev/null; }
# verdict A OP B: "met" when A OP B holds for numbers, else "missed"
verdict () { awk -v a="$1" -v b="$3" -v op="$2" 'BEGIN {
  if (a == "" || b == "" || a == "-" || b == "-") { print "missed"; exit }
  ok = (op == "<=") ? (a + 0 <= b + 0) : 0; print ok ? "met" : "missed" }'; }

report () {
  local d=$1 s=$1/stock.txt l=$1/ladder.txt
  [ -f "$s" ] && [ -f "$l" ] || { echo "memory-bench: no figures in $d" >&2; return 1; }
  local s_psi l_psi s_p99 l_p99 s_k l_k back goal_psi goal_p99 k_ok
  s_psi=$(get "$s" session_full_us); l_psi=$(get "$l" session_full_us)
  s_p99=$(get "$s" focus_p99_ms); l_p99=$(get "$l" focus_p99_ms)
  s_k=$(get "$s" killed); l_k=$(get "$l" killed)
  back=$(get "$l" back_s)
  goal_psi=$(awk -v a="$s_psi" 'BEGIN { printf "%d", a / 5 }')
  goal_p99=$(awk -v a="$s_p99" 'BEGIN { printf "%.1f", a / 3 }')
  # met: nobody, or the hog alone
  case "${l_k:-}" in ''|*BigHog-1.scope) k_ok=met ;; *) k_ok=missed ;; esac
  case "${l_k:-}" in *,*) k_ok=missed ;; esac
  printf '%s\n' "memory-bench: $(get "$d/run.txt" kernel), $(get "$d/run.txt" cpus) CPUs, $(get "$d/run.txt" ram_mib) MiB RAM, swap $(get "$d/run.txt" swap), hog to $(get "$d/run.txt" target_mib) MiB held $(get "$d/run.txt" hold_s) s"
  printf '%s\n' "  stock:   $(get "$s" memory.low)" "  ladder:  $(get "$l" memory.low)"
  echo
  echo "| figure | stock | drop-ins + daemon + ladder | goal | |"
  echo "| --- | --- | --- | --- | --- |"
  printf '| session.slice memory.pressure full total over the run | %s ms | %s ms | at most 1/5 of stock (%s ms) | %s |\n' \
    "$((s_psi / 1000))" "$((l_psi / 1000))" "$((goal_psi / 1000))" "$(verdict "$l_psi" '<=' "$goal_psi")"
  printf '| focused app: p99 time to touch its working set (max) | %s ms (%s) | %s ms (%s) | at most 1/3 of stock (%s ms) | %s |\n' \
    "$s_p99" "$(get "$s" focus_max_ms)" "$l_p99" "$(get "$l" focus_max_ms)" "$goal_p99" "$(verdict "$l_p99" '<=' "$goal_p99")"
  printf '| apps killed by the kernel | %s | %s | the hog at most | %s |\n' "${s_k:-none}" "${l_k:-none}" "$k_ok"
  printf '| hog let go -> no ladder step in force | - | %s s | a figure | |\n' "${back:--}"
  printf '| the unprotected twin: p99 touch | %s ms | %s ms | a figure | |\n' "$(get "$s" twin_p99_ms)" "$(get "$l" twin_p99_ms)"
  printf '| the session stand-in: p99 touch | %s ms | %s ms | a figure | |\n' "$(get "$s" session_p99_ms)" "$(get "$l" session_p99_ms)"
  printf '| the focused app in swap at the end | %s MiB | %s MiB | a figure | |\n' "$(get "$s" focus_swap_mib)" "$(get "$l" focus_swap_mib)"
}

if [ -n "$REPORT" ]; then
  report "$REPORT"
  exit
fi
if [ "$(id -u)" != 0 ]; then
  echo "memory-bench: needs root (boots the VM)" >&2
  exit 77
fi
OUT=${OUT:-$RC_VMDIR/memory-bench}
rm -rf "$OUT/vm"
mkdir -p "$OUT"
set +e
bash "$SRC/tests/vm/run-system-tests.sh" --out "$OUT/vm" --timeout 1500 --payload "$HERE/memory-bench-guest.sh" \
  --with "$HERE/guest-preamble.sh"
rc=$?
set -e
[ -f "$OUT/vm/out/memory-bench/ladder.txt" ] || { echo "memory-bench: the VM run left no figures (exit status $rc)" >&2; exit 1; }
rm -rf "$OUT/memory-bench"
cp -r "$OUT/vm/out/memory-bench" "$OUT/memory-bench"
report "$OUT/memory-bench"
exit $rc
