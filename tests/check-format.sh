#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The C code's formatting is the machine's job: uncrustify with uncrustify.cfg.
#
#   bash tests/check-format.sh          list the files whose formatting differs (with a short
#                                       diff) and exit 1; TAP, one line per file
#   bash tests/check-format.sh --fix    reformat them in place
#
# Every C file git tracks (generated code lives in the build folder, not here).
# Needs uncrustify (tests/install-deps.sh installs it).
set -uo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
cd "$src"
fix=0
[ "${1:-}" = --fix ] && fix=1
command -v uncrustify >/dev/null || { echo "1..0 # uncrustify is not installed (tests/install-deps.sh)"; exit 1; }
mapfile -t files < <(git ls-files '*.c' '*.h' 2>/dev/null || find src tests bench panel -name '*.[ch]' 2>/dev/null)
[ "$fix" = 1 ] || echo "1..${#files[@]}"
failed=0
n=0
for f in "${files[@]}"; do
  n=$((n + 1))
  if [ "$fix" = 1 ]; then
    uncrustify -q -c uncrustify.cfg --replace --no-backup "$f" || failed=1
    continue
  fi
  if out=$(uncrustify -q -c uncrustify.cfg -f "$f" 2>&1) && [ "$out" = "$(cat "$f")" ]; then
    echo "ok $n $f"
  else
    echo "not ok $n $f: formatting differs (bash tests/check-format.sh --fix)"
    diff -u "$f" <(printf '%s\n' "$out") | head -20 | sed 's/^/# /'
    failed=1
  fi
done
exit $failed
