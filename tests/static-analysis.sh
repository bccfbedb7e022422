#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Static analysis: cppcheck over the sources and tests, then clang's
# analyzer (scan-build) over a full build. Exits non-zero on any finding
# not listed, with a reason, in tests/scan-build.ignore.
#
#   bash tests/static-analysis.sh              both
#   STATIC_ANALYSIS=cppcheck bash tests/static-analysis.sh   one of them
#
# Needs cppcheck and clang-tools (scan-build); tools/install-deps.sh has both.
set -uo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
cd "$src"
which=${STATIC_ANALYSIS:-cppcheck scan-build}
status=0

if [[ " $which " == *" cppcheck "* ]]; then
  echo "=== cppcheck ==="
  # --library=gtk teaches it G_DEFINE_TYPE, g_autoptr and GLib's allocators;
  # without it every GObject file stops at an "unknown macro".
  if cppcheck --quiet -j "$(nproc)" --enable=warning,performance,portability --std=c11 \
       --library=gtk --library=posix --inline-suppr --error-exitcode=1 \
       -I src/common -I src/daemon -I src/cli -I panel src panel tests/unit tests/fuzz; then
    echo "cppcheck: no findings"
  else
    echo "cppcheck: FAILED"
    status=1
  fi
fi

if [[ " $which " == *" scan-build "* ]]; then
  echo "=== scan-build ==="
  scan_build=$(command -v scan-build || command -v scan-build-14)
  if [ -z "$scan_build" ]; then
    echo "scan-build: not installed (apt-get install clang-tools-14)"
    status=1
  else
    work=$(mktemp -d)
    trap 'rm -rf "$work"' EXIT
    if "$scan_build" -o "$work/out" meson setup "$work/build" -Dtests=disabled >/dev/null &&
       "$scan_build" -plist -o "$work/out" ninja -C "$work/build" >"$work/log" 2>&1; then
      # Count what lies in our sources (not GLib's headers, not generated
      # code), minus the reviewed false positives.
      /usr/bin/python3 - "$src" "$work/out" "$src/tests/scan-build.ignore" "$work/build" <<'PY' || status=1
import glob, os, plistlib, sys
src, out, ignore_file, build = sys.argv[1:]
ignored = set()
for line in open(ignore_file):
    line = line.split('#', 1)[0].split()
    if line:
        ignored.add(tuple(line))
findings = set()
for path in glob.glob(os.path.join(out, '**', '*.plist'), recursive=True):
    with open(path, 'rb') as f:
        report = plistlib.load(f)
    for d in report.get('diagnostics', []):
        loc = d['location']
        # Paths are relative to the build folder the compiler ran in.
        file = os.path.realpath(os.path.join(build, report['files'][loc['file']]))
        if not file.startswith(src + '/'):
            continue
        rel = os.path.relpath(file, src)
        if rel.startswith('build'):
            continue
        key = (rel, d.get('issue_context', '?'), d['check_name'])
        mark = '(ignored)' if key in ignored else ''
        findings.add(f"{rel}:{loc['line']}: {d['check_name']} in {key[1]}: {d['description']} {mark}")
real = sorted(f for f in findings if not f.endswith('(ignored)'))
for f in sorted(findings):
    print(f)
print(f"scan-build: {len(real)} findings, {len(findings) - len(real)} ignored")
sys.exit(1 if real else 0)
PY
    else
      echo "scan-build: the build failed"; tail -20 "$work/log"
      status=1
    fi
  fi
fi

exit $status
