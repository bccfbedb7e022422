# SPDX-License-Identifier: LGPL-2.1-or-later
# shellcheck shell=bash
#
# focus-bench's load, shared by its VM payload (bench/focus-bench-guest.sh) and its desktop run
# (bench/focus-bench.sh --desktop): the units of configuration N and how they are started.
#   FB_FRAMES          the frame app's unit (its window is the focused one)
#   FB_BUILD           a build: four times the CPUs in busy processes, one app
#   FB_OTHERS          three other busy apps
#   FB_INDEXER         an indexer in background.slice
# Each busy process is `frame-app busy`, which writes the work it got done to DIR when stopped.

# shellcheck disable=SC2034  # the names are for the scripts that source this file
fb_units () { # fb_units N
  FB_FRAMES=app-org.example.Frames-$1.scope
  FB_BUILD=app-org.example.Build-$1.scope
  FB_OTHERS=(app-org.example.Browser-"$1".scope app-org.example.Chat-"$1".scope app-org.example.Player-"$1".scope)
  FB_INDEXER=app-org.example.Indexer-$1.scope
}

# fb_start_load SCOPE_FN DIR APP BUILD_PROCS: starts the load of the units fb_units named; SCOPE_FN
# UNIT [systemd-run options --] CMD... starts one scope of the user's manager in the background
fb_start_load () {
  local scope_fn=$1 dir=$2 app=$3 procs=$4 u
  "$scope_fn" "$FB_BUILD" sh -c "for i in \$(seq $procs); do $app busy --out $dir/build-\$i & done; wait"
  for u in "${FB_OTHERS[@]}"; do
    "$scope_fn" "$u" "$app" busy --out "$dir/${u#app-org.example.}"
  done
  "$scope_fn" "$FB_INDEXER" --slice=background.slice -- "$app" busy --out "$dir/indexer"
}

# fb_load_done DIR BUILD_PROCS: every busy process has written its work
fb_load_done () {
  [ "$(find "$1" -name 'build-*' -o -name 'indexer' -o -name '*.scope' | wc -l)" -ge $(($2 + 4)) ]
}
