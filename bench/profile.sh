#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# bench/profile.sh - the daemon's per-call costs on the host mock, see bench/profile.py.
#
#   bench/profile.sh [--build-dir DIR] [--apps N] [--calls N] [--callgrind FILE | --strace | --steps]
#
# --callgrind FILE: run the daemon under callgrind, collecting only inside the skeleton's method handler
#   (all method calls: only the CALLS + 1 ListApps happen then; per ListApps = total / (CALLS + 1)).
# --strace: syscalls of the daemon during the calls only (strace -c -f attached to it).
# --steps: RssAnon at 0, 100 and N apps in one daemon run.
# Needs root (the host harness creates its test user and runs polkitd).
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SRC=$(cd "$HERE/.." && pwd)
BUILD=$SRC/build-bench APPS=1000 CALLS=10 WRAPPER= STRACE=0 STEPS=0 MULT=1
while [ $# -gt 0 ]; do
  case "$1" in
    --build-dir) BUILD=$2; shift ;;
    --apps) APPS=$2; shift ;;
    --calls) CALLS=$2; shift ;;
    --callgrind) OUTF=$(realpath -m "$2"); shift
                 mkdir -p "$(dirname "$OUTF")"; chmod 0777 "$(dirname "$OUTF")"
                 WRAPPER="valgrind --tool=callgrind ${CG_OPTS:---collect-atstart=no --toggle-collect=_rc_dbus_resource_control_skeleton_handle_method_call} --callgrind-out-file=$OUTF"
                 MULT=50 ;;
    --strace) STRACE=1 ;;
    --steps) STEPS=1 ;;
    -h|--help) sed -n '3,12p' "$0"; exit 0 ;;
    *) echo "bench/profile.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done
BUILD=$(realpath "$BUILD")
LOG=$(mktemp /tmp/rc-profile.XXXXXX.log)
ninja -C "$BUILD" > /dev/null
RC_DAEMON=$BUILD/src/resource-controld RC_DAEMON_WRAPPER=$WRAPPER RC_TEST_TIMEOUT_MULTIPLIER=$MULT \
  RC_PROFILE_APPS=$APPS RC_PROFILE_CALLS=$CALLS RC_PROFILE_STRACE=$STRACE RC_PROFILE_STEPS=$STEPS \
  PYTHONDONTWRITEBYTECODE=1 /usr/bin/python3 -B "$HERE/profile.py" > "$LOG" 2>&1 || {
  tail -40 "$LOG" >&2
  echo "bench/profile.sh: the run failed (log: $LOG)" >&2
  exit 1
}
grep -o '{.*}' "$LOG"
