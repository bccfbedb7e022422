#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The benchmark's payload inside the test VM (tests/vm/run-in-vm.sh runs it as root; real systemd is PID 1
# and the test user has its own systemd --user manager). Started by bench/run.sh; not meant to be run by hand.
#
# usage: vm-guest.sh --stage DIR --src DIR [--quick] [--sizes LIST] [--rev REV]
#   --stage DIR   a `meson install --destdir` tree of a --prefix=/usr build, copied over the guest's /
#                 (a tmpfs overlay: the host is not touched)
#   --src DIR     the source tree (the host's, seen read-only): bench/bench.py runs from there
# Writes $VM_OUT/bench.json (copied back to the host by run-in-vm.sh).
set -u
STAGE= SRC= QUICK= SIZES= REV=
while [ $# -gt 0 ]; do
  case "$1" in
    --stage) STAGE=$2; shift ;;
    --src) SRC=$2; shift ;;
    --quick) QUICK=--quick ;;
    --sizes) SIZES=$2; shift ;;
    --rev) REV=$2; shift ;;
    *) echo "vm-guest: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done
# shellcheck source=bench/guest-preamble.sh
. "$(dirname "$0")/guest-preamble.sh"
bench_guest_setup "$STAGE" 'action.id.indexOf("org.example.ResourceControl.") == 0'
ok=
for _ in $(seq 100); do
  if "$AU" sh -c 'pkcheck --action-id org.example.ResourceControl.set-weight --process $$' >/dev/null 2>&1; then
    ok=1; break
  fi
  sleep 0.2
done
[ -n "$ok" ] || { echo "vm-guest: polkit does not authorize the benchmark user" >&2; exit 125; }

# progress and load, every 30 s, for when a run is slower than expected (out/monitor.log)
APPS=/sys/fs/cgroup/user.slice/user-$VM_TEST_UID.slice/user@$VM_TEST_UID.service/app.slice
( while sleep 30; do
    n=$(cd "$APPS" 2>/dev/null && set -- app-bench-*; [ -e "$1" ] && echo $# || echo 0)
    echo "== uptime $(cut -d' ' -f1 /proc/uptime) load $(cut -d' ' -f1-3 /proc/loadavg) bench scope cgroups: $n"
    ps -eo pcpu,rss,comm --sort=-pcpu | head -6
  done > "$VM_OUT/monitor.log" 2>&1 ) &
MON=$!
echo "vm-guest: $(nproc) CPUs, $(awk '/MemTotal/ {print $2}' /proc/meminfo) KiB RAM, systemd $(systemctl --version | head -1)"
# The benchmark runs in a scope of the user's manager (session.slice, where the daemon would run): the
# processes it puts into app scopes are then inside the manager's own subtree, which it can move them
# within itself; from the runner's system.slice every move would need PID 1 (AttachProcessesToUnit)
# and 1,000 of those back up the user manager for minutes.
# shellcheck disable=SC2086
"$AU" systemd-run --user --scope --quiet --slice=session.slice -u rc-bench-driver.scope -- \
  env BENCH_GIT_REV="$REV" /usr/bin/python3 -B "$SRC/bench/bench.py" --vm \
  --daemon /usr/libexec/resource-controld --out "$VM_OUT/bench.json" $QUICK ${SIZES:+--sizes "$SIZES"}
rc=$?
kill $MON 2>/dev/null
exit $rc
