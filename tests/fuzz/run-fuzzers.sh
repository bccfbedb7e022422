#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Builds the libFuzzer targets with clang, ASan and UBSan in a build folder
# of their own, and runs each for a bounded time from its seed corpus.
# Fails on any crash, leak, sanitizer report, timeout or broken invariant.
#
#   bash tests/fuzz/run-fuzzers.sh                 every target, 20 s each
#   FUZZ_SECONDS=120 bash tests/fuzz/run-fuzzers.sh limits
#
# Environment: FUZZ_SECONDS (per target, default 20), FUZZ_JOBS (targets
# run at once, default one a CPU), FUZZ_BUILD_DIR
# (default <source>/build-fuzz). Crash inputs and logs are kept in
# <build>/fuzz-artifacts; a crash replays with `<build>/tests/fuzz/fuzz-NAME FILE`.
# The seed corpora are copied to a temporary folder: the fuzzers never
# write into the source tree. Ends with one line "N passed, M failed".
set -uo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
fuzz_src=$src/tests/fuzz
build=${FUZZ_BUILD_DIR:-$src/build-fuzz}
seconds=${FUZZ_SECONDS:-20}
all_targets=(unit-name limits size exec rules options)
targets=("${@:-${all_targets[@]}}")

passed=0
failed=0
finish() {
  echo
  echo "$passed passed, $failed failed"
  [ "$failed" -eq 0 ]
  exit
}

if ! command -v clang >/dev/null; then
  echo "run-fuzzers: clang is not installed (tools/install-deps.sh installs it)"
  failed=${#targets[@]}; finish
fi

echo "=== fuzz build: $build ==="
options=(-Db_sanitize=address,undefined -Db_lundef=false -Dbuildtype=debugoptimized -Dtests=enabled)
if [ -d "$build/meson-private" ]; then
  meson setup --reconfigure "$build" "$src" "${options[@]}" >/dev/null
else
  CC=clang meson setup "$build" "$src" "${options[@]}" >/dev/null
fi || { echo "run-fuzzers: meson setup failed"; failed=${#targets[@]}; finish; }
if ! grep -m1 '"command"' "$build/compile_commands.json" | grep -q 'clang'; then
  echo "run-fuzzers: $build was set up with another compiler than clang; remove it"
  failed=${#targets[@]}; finish
fi
ninja_targets=()
for t in "${targets[@]}"; do ninja_targets+=("tests/fuzz/fuzz-$t"); done
if ! ninja -C "$build" "${ninja_targets[@]}"; then
  echo "run-fuzzers: build failed (is subdir('fuzz') in tests/meson.build?)"
  failed=${#targets[@]}; finish
fi

artifacts=$build/fuzz-artifacts
mkdir -p "$artifacts"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# GLib's slice allocator hides leaks and overruns from ASan.
export G_SLICE=always-malloc
export ASAN_OPTIONS=detect_leaks=1:detect_stack_use_after_return=1:check_initialization_order=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:abort_on_error=1
export LSAN_OPTIONS=suppressions=$src/tests/lsan.supp

# one target a core at a time: each is one process bound by the CPU, so each
# still gets its seconds of a whole core
fuzz_one() {  # fuzz_one TARGET: runs it, its exit status into $work/TARGET.rc
  local t=$1 corpus=$work/$1 max_len
  mkdir -p "$corpus"
  cp "$fuzz_src/corpus/$t/"* "$corpus/"
  rm -f "$artifacts/$t-"*
  case $t in
    limits | rules) max_len=4096 ;;
    # the caps on URIs, environment and pids are at 4096-byte strings and 1024 pids
    options) max_len=8192 ;;
    *) max_len=512 ;;
  esac
  "$build/tests/fuzz/fuzz-$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -max_len="$max_len" -dict="$fuzz_src/$t.dict" -print_final_stats=1 \
    -artifact_prefix="$artifacts/$t-" "$corpus" >"$artifacts/fuzz-$t.log" 2>&1
  echo $? > "$work/$t.rc"
}
at_once=${FUZZ_JOBS:-$(nproc)}
echo
echo "=== ${#targets[@]} targets, $seconds s each, $at_once at a time ==="
for t in "${targets[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "$at_once" ]; do wait -n; done
  fuzz_one "$t" &
done
wait

for t in "${targets[@]}"; do
  echo
  echo "=== fuzz-$t: $seconds s ==="
  log=$artifacts/fuzz-$t.log
  rc=$(cat "$work/$t.rc" 2>/dev/null || echo 125)

  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
  done_line=$(grep -E '^#[0-9]+[[:space:]]+DONE' "$log" | tail -1)
  cov=$(sed -n 's/.* cov: \([0-9]*\) ft: \([0-9]*\) corp: \([0-9]*\).*/cov \1, ft \2, corpus \3/p' <<<"$done_line")
  echo "fuzz-$t: ${execs:-?} executions, ${cov:-no final stats}, exit status $rc"
  # UBSan halts here, but a report must fail the run even if it did not.
  if [ "$rc" -ne 0 ] || grep -qE 'runtime error:|ERROR: [A-Za-z]+Sanitizer|^==[0-9]+== ?ERROR' "$log"; then
    echo "fuzz-$t: FAILED; log $log"
    grep -E -A25 'runtime error:|ERROR: [A-Za-z]+Sanitizer|assertion failed|deadly signal|ERROR: libFuzzer' "$log" | head -40
    for input in "$artifacts/$t-"*; do
      [ -e "$input" ] || continue
      # Replayed with the slow unwinder: leak stacks then go through GLib.
      echo "reproducer: $input; replayed:"
      ASAN_OPTIONS=$ASAN_OPTIONS:fast_unwind_on_malloc=0 "$build/tests/fuzz/fuzz-$t" "$input" 2>&1 |
        grep -E -A30 'runtime error:|ERROR: [A-Za-z]+Sanitizer|assertion failed' | head -40
    done
    failed=$((failed + 1))
  else
    passed=$((passed + 1))
  fi
done

finish
