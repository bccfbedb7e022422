#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Builds the Debian packages (debian/) with the ordinary tools, in a copy,
# so the source tree gets no build output:
#   DEB_BUILD_OPTIONS=nocheck dpkg-buildpackage -us -uc -b
# The tests are not run by the package build (nocheck): CI runs them from
# the release tarball and in the VM, which installs these packages.
#
#   tools/build-deb.sh [--tarball FILE] [--lintian] [--previous V DIR] OUTDIR
#     --tarball FILE  build from this release tarball (meson dist) plus this
#                     tree's debian/; default: the files git tracks or would
#                     track in this tree, as they are now
#     --previous V DIR  then the same build again as version V (dch
#                     --newversion) into DIR, without compiling again (-nc):
#                     the older package the VM tests upgrade from
#     --lintian       run lintian on the result; fails on any error or warning
# Puts the .deb, .changes and .buildinfo files into OUTDIR.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
tarball='' previous='' previous_dir='' lintian=0
while [ $# -gt 1 ]; do
  case "$1" in
    --tarball) tarball=$(realpath "$2"); shift ;;
    --previous) previous=$2; mkdir -p "$3"; previous_dir=$(cd "$3" && pwd); shift 2 ;;
    --lintian) lintian=1 ;;
    *) echo "build-deb: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
[ $# = 1 ] || { sed -n '9,17p' "$0" >&2; exit 2; }
mkdir -p "$1"
out=$(cd "$1" && pwd)

work=$(mktemp -d "${TMPDIR:-/var/tmp}/rc-deb.XXXXXX")
trap 'rm -rf "$work"' EXIT
tree=$work/resource-control
if [ -n "$tarball" ]; then
  mkdir "$tree"
  tar -xf "$tarball" -C "$tree" --strip-components=1
  rm -rf "$tree/debian"
  cp -a "$src/debian" "$tree/debian"
else
  mkdir "$tree"
  (cd "$src" && git ls-files -z --cached --others --exclude-standard |
     while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done |
     tar --null -T - -cf -) | tar -xf - -C "$tree"
fi
(cd "$tree" && DEB_BUILD_OPTIONS="nocheck parallel=$(nproc)" dpkg-buildpackage -us -uc -b) \
  > "$work/build.log" 2>&1 || { tail -60 "$work/build.log"; echo "build-deb: dpkg-buildpackage failed" >&2; exit 1; }
grep -E '^dpkg-deb: building package' "$work/build.log" || true
cp "$work"/*.deb "$work"/*.changes "$work"/*.buildinfo "$out/"
if [ "$lintian" = 1 ]; then
  echo "build-deb: lintian $(lintian --version | cut -d' ' -f2) on $(basename "$work"/*.changes)"
  # -I: informational tags are printed too; only errors and warnings fail.
  lintian -I --pedantic --fail-on error,warning "$work"/*.changes
  echo "build-deb: lintian: no errors, no warnings"
fi
if [ -n "$previous" ]; then
  rm -f "$work"/*.deb "$work"/*.changes "$work"/*.buildinfo
  (cd "$tree" && DEBFULLNAME="resource-control developers" DEBEMAIL=resource-control@example.org \
     dch --newversion "$previous" --distribution unstable --force-distribution --force-bad-version \
       "Built for the upgrade test: the same sources under an older version number." &&
   DEB_BUILD_OPTIONS="nocheck parallel=$(nproc)" dpkg-buildpackage -us -uc -b -nc) \
    > "$work/build-previous.log" 2>&1 || { tail -60 "$work/build-previous.log"; echo "build-deb: the $previous build failed" >&2; exit 1; }
  grep -E '^dpkg-deb: building package' "$work/build-previous.log" || true
  cp "$work"/*.deb "$work"/*.changes "$work"/*.buildinfo "$previous_dir/"
fi
