#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Sets everything up on a fresh Debian 12 machine (as root) and runs every
# test tier: unit and host integration tests (built with ASan+UBSan, from
# the release tarball; and under valgrind), the DESTDIR install
# check, the Debian packages with lintian, and the VM system tests with real
# systemd on cgroup v2, which install those packages. This is the README's
# test command and what .ci/run calls.
#
#   bash tests/run-all.sh            everything
#   RC_SKIP_VM=1 bash tests/run-all.sh   all but the VM tier (for quick local runs; CI never sets it)
#
# Ends with one line "N passed, M failed"; exits non-zero if any test failed
# or was skipped.
set -uo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
cd "$src"
T_DEPS=$SECONDS
bash tools/install-deps.sh || exit 1
T_DEPS=$((SECONDS - T_DEPS))

results=()   # "stage:build dir" pairs whose meson test logs are counted
status=0
times=("$T_DEPS	dependencies (tools/install-deps.sh)")   # "seconds<TAB>stage", for the table at the end

stage() {  # stage NAME COMMAND...
  local name=$1 t0=$SECONDS; shift
  echo
  echo "=== $name ==="
  if ! "$@"; then
    echo "=== $name: FAILED ==="
    status=1
  fi
  times+=("$((SECONDS - t0))	$name")
}

print_times() {
  local line s
  echo
  echo "=== time per tier (s) ==="
  for line in "${times[@]}"; do
    s=${line%%	*}
    printf '%6d  %3d:%02d  %s\n' "$s" $((s / 60)) $((s % 60)) "${line#*	}"
  done
  s=$SECONDS   # bash counts from the script's start
  printf '%6d  %3d:%02d  %s\n' "$s" $((s / 60)) $((s % 60)) "all of run-all.sh (dependencies included)"
}

setup() {  # setup DIR [MESON OPTIONS...]
  local dir=$1; shift
  if [ -d "$dir/meson-private" ]; then
    meson setup --reconfigure "$dir" --werror -Dtests=enabled "$@" >/dev/null
  else
    meson setup "$dir" --werror -Dtests=enabled "$@" >/dev/null
  fi && ninja -C "$dir"
}

mtest() {  # mtest DIR LOGNAME [MESON TEST OPTIONS...]
  local dir=$1 log=$2 suffix= a; shift 2
  # meson appends the setup's name to the log's base name.
  for a in "$@"; do case $a in --setup=*) suffix=-${a#--setup=};; esac; done
  results+=("$dir/meson-logs/$log$suffix.json")
  meson test -C "$dir" --logbase "$log" --print-errorlogs --no-rebuild "$@"
}

stage "build" setup build
stage "format and lint (check-format: uncrustify; flake8)" mtest build testlog-lint --suite lint
# The release tarball, built and tested from itself: the unit and host
# integration tiers run there (not in the git tree), so a file the build or
# a test needs but the tarball lacks fails here. Without a clean git tree the
# tarball holds the last commit (meson dist --allow-dirty).
# Its build has ASan and UBSan in, at the optimisation the packages ship
# (debugoptimized): the one run of every unit and host test checks both that
# they pass and that nothing in them makes a memory error, leak or undefined
# behaviour. The plain build of the git tree runs the unit tests and suite
# memcheck under valgrind below.
dist_build() {
  local version
  version=$(meson introspect build --projectinfo | /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["version"])') || return 1
  rm -rf build/meson-dist build-dist && mkdir build-dist || return 1
  meson dist -C build --no-tests --allow-dirty --formats xztar || return 1
  TARBALL=$src/build/meson-dist/resource-control-$version.tar.xz
  tar -xf "$TARBALL" -C build-dist || return 1
  meson setup build-dist/build "build-dist/resource-control-$version" --werror -Dtests=enabled \
    -Db_sanitize=address,undefined -Db_lundef=false -Dbuildtype=debugoptimized >/dev/null &&
    ninja -C build-dist/build
}
TARBALL=
# The host integration tests mostly wait (D-Bus round trips, polkitd, the
# daemon's timers; each test has its own buses, polkitd and daemon): several
# a core keep the CPUs busy. valgrind's tiers are bound by the CPU and keep
# meson's default (one test a core).
waiting_jobs=$((4 * $(nproc)))
stage "release tarball (meson dist) and its build with ASan+UBSan" dist_build
# The settings panel's tests (suite panel: an X server, an accessibility bus
# and GTK each) run two at a time beside the rest; eight of them at once
# starve a 2-core machine until their waits time out.
host_tests() {  # host_tests BUILD_DIR
  local dir=$1 panel_pid rc=0
  results+=("$dir/meson-logs/testlog-panel-sanitizers.json")
  meson test -C "$dir" --logbase testlog-panel --print-errorlogs --no-rebuild --setup=sanitizers \
    --suite panel --num-processes 2 > "$dir/meson-logs/panel-run.txt" 2>&1 &
  panel_pid=$!
  mtest "$dir" testlog --setup=sanitizers --suite unit --suite integration --no-suite panel \
    --num-processes "$waiting_jobs" || rc=1
  wait "$panel_pid" || rc=1
  echo; echo "--- the panel's tests:"; cat "$dir/meson-logs/panel-run.txt"
  return $rc
}
stage "ASan+UBSan: unit + host integration tests, from the release tarball" host_tests build-dist/build
stage "valgrind: unit tests" mtest build testlog --setup=valgrind --suite unit
stage "valgrind: the daemon in the host integration tests of suite memcheck" \
  mtest build testlog --setup=memcheck --suite memcheck
stage "load test (50 clients, mock systemd, real polkitd; and its leak check catching a leak)" \
  mtest build testlog-load --suite load
stage "benchmark smoke (mock systemd; figures only, no timing goals)" \
  bash bench/run.sh --quick --host-only --build-dir "$src/build"
stage "focus-bench smoke (the frame app beside two busy processes for 2 s, the report and its plot)" \
  bash bench/focus-bench.sh --host-smoke --out "$src/build/focus-bench-smoke"
stage "fuzzing (libFuzzer, ASan+UBSan; a smoke of 10 s a target)" env FUZZ_SECONDS=10 bash tests/fuzz/run-fuzzers.sh
stage "static analysis (cppcheck, scan-build)" bash tests/static-analysis.sh
# The Debian packages, built from the release tarball as CI builds them
# (nocheck: the tests ran above), lintian with no error or warning; and the
# same packaging as version 0.3.0-1, which the VM tier upgrades from.
build_debs() {
  [ -n "$TARBALL" ] || { echo "no release tarball"; return 1; }
  rm -rf build-debs &&
    bash tools/build-deb.sh --tarball "$TARBALL" --lintian --previous 0.3.0-1 build-debs/previous build-debs/current
}
stage "Debian packages (dpkg-buildpackage, lintian; and the older one the VM upgrades from)" build_debs
if [ "${RC_SKIP_VM:-0}" = 1 ]; then
  # Not counted as passed, and CI never sets it.
  echo; echo "=== VM system tests: NOT RUN (RC_SKIP_VM=1) ==="
  [ "${CI:-}" = true ] && { echo "RC_SKIP_VM=1 is not allowed in CI"; status=1; }
else
  # the VM tier installs the packages built above (tests/vm/run-system-tests.sh)
  export RC_VM_DEBS=$src/build-debs
  stage "VM system tests (real systemd on cgroup v2; installs the .deb)" \
    mtest build testlog-vm --suite vm
fi

print_times

# Count what ran. A skipped test is a failure: every test here must run.
/usr/bin/python3 - "${results[@]}" <<'PY' || status=1
import json, sys, os
passed = failed = skipped = 0
for path in sys.argv[1:]:
    if not os.path.exists(path):
        print(f"missing test log {path}: that stage did not run"); failed += 1; continue
    for line in open(path):
        t = json.loads(line)
        r = t.get("result")
        if r in ("OK", "EXPECTEDFAIL"):
            passed += 1
        elif r == "SKIP":
            skipped += 1
            print(f"unexpected skip: {t.get('name')} ({os.path.basename(path)})")
        else:
            failed += 1
            print(f"failed: {t.get('name')} ({os.path.basename(path)}): {r}")
print()
print(f"{passed} passed, {failed + skipped} failed" + (f", {skipped} skipped" if skipped else ""))
sys.exit(1 if failed or skipped else 0)
PY
exit $status
