#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# System tests (docs/design.md, "Tests", tier 3). Runs as root inside the test VM (run-in-vm.sh), where real
# systemd is PID 1 on pure cgroup v2 and the test user (uid 1000) has its own systemd --user manager.
# Normally started by run-system-tests.sh; it is self-contained because run-in-vm.sh copies it into the VM.
#
# usage: system-test.sh --debs DIR [--only "SECTION..."] [--skip "SECTION..."] [--focus-figures]
#   --debs DIR    the Debian packages to install with dpkg -i (DIR/current) and the older build of the same
#                 packaging section package upgrades from (DIR/previous); the guest's / is a tmpfs overlay,
#                 the host is not touched
#   --stage DIR   instead of --debs: a `meson install --destdir` tree of a --prefix=/usr build, copied over /
#   --only/--skip run only / leave out these sections (names below, without the sec_ prefix); install,
#                 apps and activate always run since everything else needs them
#   --focus-figures the focus sections also time focus changes beside a shell bridge and count idle
#                 wake-ups (about two minutes more; tests/vm/focus-sections.sh)
#
# Every check prints "PASS name (value)" or "FAIL name: expected 'x' got 'y'"; the last line is
# "N passed, M failed" and the exit status is non-zero when anything failed.
# Apps are real processes in `systemd-run --user` units; every effect is read from the kernel's cgroup
# files. The daemon is D-Bus activated, as on a desktop. All D-Bus calls are made as the test user
# through /mnt/vmshare/as-user from inside a non-app scope of the user's manager (like a terminal on a
# desktop: polkit finds the user, and later the user's display session, from the caller's cgroup).
set -u

STAGE=
DEBS=
ONLY=
SKIP=
FOCUS_FIGURES=0
while [ $# -gt 0 ]; do
  case "$1" in
    --focus-figures) FOCUS_FIGURES=1 ;;
    --stage) STAGE=$2; shift ;;
    --debs) DEBS=$2; shift ;;
    --only) ONLY=$2; shift ;;
    --skip) SKIP=$2; shift ;;
    *) echo "system-test: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done

U=${VM_TEST_UID:-1000}
TUSER=${VM_TEST_USER:-$(getent passwd "$U" | cut -d: -f1)}
THOME=${VM_TEST_HOME:-$(getent passwd "$U" | cut -d: -f6)}
OUT=${VM_OUT:-/tmp}
AU=/mnt/vmshare/as-user
UM=/sys/fs/cgroup/user.slice/user-$U.slice/user@$U.service
APPS_DIR=$THOME/.local/share/applications

RC_NAME=org.example.ResourceControl
RC_PATH=/org/example/ResourceControl
RC_IFACE=org.example.ResourceControl
RC_ERR=org.example.ResourceControl.Error.
UINT64_MAX=18446744073709551615
MiB=1048576

# The apps. Scopes are started the way GNOME Shell does it, the service the way KDE does it.
C1='app-gnome-org.gnome.Calculator-4711.scope'     # desktop file, two instances of one AppID
C2='app-gnome-org.gnome.Calculator-4712.scope'
K='app-org.kde.krita@3f2a.service'                 # a service app, desktop file
G='app-gnome-google\x2dchrome-5653.scope'          # escaped AppID, no desktop file: the untouched neighbour
NA='rc-not-an-app-1.scope'                         # not an app by name
SS='app-gnome-org.example.InSession-7.scope'       # app name, but in session.slice: never controllable
W='app-gnome-org.gnome.Weather-77.scope'           # comes and goes (AppAdded/AppRemoved)
X='app-gnome-org.example.Fleeting-5.scope'         # stops while a call for it is on its way (faults)
P='app-gnome-org.example.Painter-1.scope'          # 1 busy process
D='app-flatpak-com.discordapp.Discord-2.scope'     # 4 busy processes (Flatpak launcher form)
H1='app-gnome-org.example.Hog-1.scope'             # memory hog, limited and pushed past MemoryMax
H2='app-gnome-org.example.Hog-2.scope'             # its neighbour (same AppID, no limit)
KNOB_APPS=("$C1" "$C2" "$K" "$G")

# check, wait_for, cg, cl, measure, login_session, ...: shared with the demo
. "$(dirname "$0")/lib.sh"
# the session start and the focus sources (sections autostart, focus_sway, focus_i3, focus_kwin)
. "$(dirname "$0")/focus-sections.sh"

# ---------------------------------------------------------------------------------------------------
# helpers: the test user's systemd, cgroups, waiting

# The knobs the daemon may change, as one comparable line. io.weight is "-" when the app's cgroup has no
# io controller (stock Debian delegation).
snap () {
  # bash builtins only: a process start costs ~0.1 s under emulation, and this runs after every call
  local d k v a b w='?' max='?' low='?' high='?' mx='?' pids='?' io=- fz='?'
  [ -n "${CG[$1]:-}" ] || cg "$1" > /dev/null
  d=${CG[$1]:-/nonexistent}
  read -r w 2>/dev/null < "$d/cpu.weight"
  read -r a b 2>/dev/null < "$d/cpu.max" && max=${a}_$b
  read -r low 2>/dev/null < "$d/memory.low"
  read -r high 2>/dev/null < "$d/memory.high"
  read -r mx 2>/dev/null < "$d/memory.max"
  read -r pids 2>/dev/null < "$d/pids.max"
  if [ -e "$d/io.weight" ]; then
    while read -r k v; do [ "$k" = default ] && io=$v; done < "$d/io.weight"
  fi
  while read -r k v; do [ "$k" = frozen ] && fz=$v; done 2>/dev/null < "$d/cgroup.events"
  echo "cpu.weight=$w cpu.max=$max memory.low=$low memory.high=$high memory.max=$mx pids.max=$pids io.weight=$io frozen=$fz"
}

# Expected knob state per app: BASE is what the app started with, EXP what it should be now.
declare -A BASE EXP
exp_set () { # exp_set UNIT key=value...: change the expectation of UNIT
  local unit=$1 kv key line; shift
  line=${EXP[$unit]}
  for kv in "$@"; do
    key=${kv%%=*}
    line=$(printf '%s\n' "$line" | tr ' ' '\n' | awk -v k="$key" -v kv="$kv" -F= '$1 == k { print kv; next } { print }' | paste -sd' ')
  done
  EXP[$unit]=$line
}
exp_reset () { local u; for u in "$@"; do EXP[$u]=${BASE[$u]}; done; }
verify () { # verify LABEL UNIT...: every listed app's knob files are exactly as expected
  local label=$1 u; shift
  for u in "$@"; do check "$label: files of $u" "${EXP[$u]}" "$(snap "$u")"; done
}

# ---------------------------------------------------------------------------------------------------
# helpers: the daemon's D-Bus API, called as the test user

# rc METHOD ARGS...: gdbus call; prints OK or the D-Bus error name without the project prefix, and
# keeps the whole reply or error text in $OUT/last-call.txt.
rc () {
  local m=$1; shift
  local out rcode
  local t0=$(now)
  out=$(cl gdbus call --session --timeout 25 --dest "$RC_NAME" --object-path "$RC_PATH" \
          --method "$RC_IFACE.$m" "$@" 2>&1)
  rcode=$?
  printf '%s %s\n%s\n' "$m" "$*" "$out" > "$OUT/last-call.txt"
  printf '%s..%s %s %s -> %s\n' "$t0" "$(now)" "$m" "$*" "$out" >> "$OUT/calls.log"
  if [ $rcode = 0 ]; then echo OK; return; fi
  local name
  name=$(printf '%s\n' "$out" | sed -n 's/^Error: GDBus\.Error:\([^:]*\):.*/\1/p' | head -1)
  name=${name#"$RC_ERR"}
  echo "${name:-$(printf '%s' "$out" | head -1 | cut -c1-120)}"
}
last_message () { sed -n '2,$p' "$OUT/last-call.txt"; }

# call NAME EXPECTED METHOD ARGS...: one check on the reply, the daemon's message shown on failure
call () {
  local name=$1 expected=$2; shift 2
  local got
  got=$(rc "$@")
  check "$name" "$expected" "$got"
  [ "$got" = "$expected" ] || note "reply: $(last_message | head -3)"
}

# rc_json METHOD [SIGNATURE ARGS...]: busctl's JSON reply (easier to parse than GVariant text)
rc_json () {
  cl busctl --user --json=short --timeout=30 call "$RC_NAME" "$RC_PATH" "$RC_IFACE" "$@" 2> "$OUT/busctl.err"
}

# flatten an aa{sv} JSON reply into "Unit<TAB>Key<TAB>Value" lines; "max" for G_MAXUINT64, sorted
# comma-joined Pids (jq holds numbers as doubles: only G_MAXUINT64 is that large)
JQ_FLAT='def norm: if type == "array" then (map(tonumber) | sort | map(tostring) | join(","))
                   elif type == "number" then (if . >= 1.8e19 then "max" else tostring end)
                   elif type == "boolean" then tostring else . end;
         .data[0][] | . as $r | to_entries[] | "\($r.Unit.data)\t\(.key)\t\(.value.data | norm)"'
flat () { jq -r "$JQ_FLAT" 2>/dev/null; }
field () { # field FLATFILE UNIT KEY
  FU=$2 FK=$3 awk -F'\t' '$1 == ENVIRON["FU"] && $2 == ENVIRON["FK"] { print $3; exit }' "$1"
}
units_in () { cut -f1 "$1" | sort -u | paste -sd' '; }
# listing_keys FLATFILE UNIT: the keys ListApps carries, from a full record (ListAppRecords): all but
# the kernel's figures and the keys at their none value
listing_keys () {
  FU=$2 awk -F'\t' '$1 != ENVIRON["FU"] { next }
    $2 ~ /^(CPUThrottledUSec|MemoryEvents|CPUPressure|MemoryPressure|IOPressure)$/ { next }
    $3 == "" || ($2 == "Audio" && $3 == "false") { next }
    $2 ~ /^(CPUQuota|MemoryLow|MemoryMin)$/ && $3 == "0" { next }
    $2 ~ /^(CPUWeight|IOWeight|MemoryHigh|MemoryMax|TasksMax|MemorySwapMax)$/ && $3 == "max" { next }
    { print $2 }' "$1" | sort | paste -sd' '
}

monitor_has () { grep -qF -- "$1" "$OUT/monitor.log" 2>/dev/null; }
monitor_has_signal () { # monitor_has_signal SIGNAL UNIT
  grep -F -- ".$1 ('$2'" "$OUT/monitor.log" >/dev/null 2>&1
}
# check_signal NAME SIGNAL UNIT: the monitor client (sec_signals) saw it within 15 s
check_signal () {
  if [ -z "$MONITOR_PID" ]; then note "$1: no monitor client (sec_signals not run)"; return; fi
  wait_for 15 monitor_has_signal "$2" "$3"
  check "$1" yes "$(monitor_has_signal "$2" "$3" && echo yes || echo no)"
}

polkit_rule () { # polkit_rule ACTION-SUFFIX RESULT | polkit_rule none: one test rule for the test user
  local f=/etc/polkit-1/rules.d/10-rc-systemtest.rules
  if [ "$1" = none ]; then rm -f "$f"; return; fi
  mkdir -p /etc/polkit-1/rules.d
  cat > "$f" <<EOF
// written by tests/vm/system-test.sh
polkit.addRule(function(action, subject) {
    if (action.id == "org.example.ResourceControl.$1" && subject.user == "$TUSER")
        return polkit.Result.$2;
    return polkit.Result.NOT_HANDLED;
});
EOF
}
# ---------------------------------------------------------------------------------------------------
# sections

sec_install () {
  if [ -n "$DEBS" ]; then
    install_debs
  elif [ -n "$STAGE" ] && [ -d "$STAGE/usr" ]; then
    # tar, not cp -a: the staged /lib/systemd/system goes through the guest's /lib -> usr/lib link
    tar -C "$STAGE" -cf - . | tar -C / -xf - --keep-directory-symlink
  else
    check "packages or a staged install tree given" yes no
    return
  fi
  check "daemon installed" yes "$([ -x /usr/libexec/resource-controld ] && echo yes || echo no)"
  check "resourcectl installed" yes "$([ -x /usr/bin/resourcectl ] && echo yes || echo no)"
  check "D-Bus service file installed" yes \
    "$(grep -qx 'SystemdService=resource-control.service' /usr/share/dbus-1/services/$RC_NAME.service 2>/dev/null && echo yes || echo no)"
  check "polkit policy installed" yes "$([ -f /usr/share/polkit-1/actions/$RC_NAME.policy ] && echo yes || echo no)"
  check "fair-by-default drop-ins installed" "yes yes" \
    "$(for d in scope service; do [ -f /usr/lib/systemd/user/app-.$d.d/10-resource-control.conf ] && echo yes || echo no; done | paste -sd' ')"

  # stock Debian 12 has no systemd-oomd: only section oomd starts it
  systemctl stop systemd-oomd.service systemd-oomd.socket 2>/dev/null

  # test-only: criticals abort the daemon (the NRestarts check catches it); its debug log goes to the journal
  mkdir -p /etc/systemd/user/resource-control.service.d
  printf '[Service]\nEnvironment=G_DEBUG=fatal-criticals G_MESSAGES_DEBUG=all\n' \
    > /etc/systemd/user/resource-control.service.d/90-systemtest.conf

  # desktop files: Name and Icon must come from them
  mkdir -p "$APPS_DIR"
  printf '[Desktop Entry]\nType=Application\nName=Calculator\nIcon=accessories-calculator\nExec=/usr/bin/sleep 1000\n' \
    > "$APPS_DIR/org.gnome.Calculator.desktop"
  printf '[Desktop Entry]\nType=Application\nName=Krita\nIcon=krita\nExec=/usr/bin/sleep 1000\n' \
    > "$APPS_DIR/org.kde.krita.desktop"
  chown -R "$TUSER:" "$THOME/.local"

  # as after a package install: the running user manager and session bus pick up the new files
  usc daemon-reload
  "$AU" busctl --user call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus ReloadConfig
  check "user unit known after daemon-reload" /usr/lib/systemd/user/resource-control.service \
    "$(usc show -P FragmentPath resource-control.service)"
}

sec_apps () {
  client_up
  check "client scope for the test's D-Bus calls" yes "$([ -d "$CLIENT_CG" ] && echo yes || echo no)"
  # They live as long as the run: later sections (oomd, oom, polkit_down) check them, and a
  # slow host can stretch the run past any fixed lifetime.
  start_scope "$C1" sleep infinity
  start_scope "$C2" sleep infinity
  start_scope "$G" sleep infinity
  start_scope "$NA" sleep infinity
  start_scope "$SS" --slice=session.slice -- sleep infinity
  timeout 90 "$AU" systemd-run --user --quiet -u "$K" sleep infinity
  check "service app started" 0 $?
  wait_for 30 all_active "$C1" "$C2" "$G" "$NA" "$SS" "$K"
  check "all apps active" "active active active active active active" \
    "$(usc is-active -- "$C1" "$C2" "$G" "$NA" "$SS" "$K" | paste -sd' ')"
  local u
  for u in "${KNOB_APPS[@]}"; do
    check "cgroup of $u exists" yes "$([ -d "$(cg "$u")" ] && echo yes || echo no)"
  done
  # fair by default: each app unit has its own cpu weight from the shipped drop-in
  check_has "scope sees the fair-by-default drop-in" app-.scope.d/10-resource-control.conf "$(usc show -P DropInPaths -- "$C1")"
  check_has "service sees the fair-by-default drop-in" app-.service.d/10-resource-control.conf "$(usc show -P DropInPaths -- "$K")"
  check_has "cpu controller enabled in app.slice" cpu "$(cat "$UM/app.slice/cgroup.subtree_control")"
  check "cpu.weight of a scope app" 100 "$(cat "$(cg "$C1")/cpu.weight" 2>&1)"
  check "cpu.weight of a service app" 100 "$(cat "$(cg "$K")/cpu.weight" 2>&1)"
  note "user@$U.service controllers: $(cat "$UM/cgroup.controllers"); app.slice: $(cat "$UM/app.slice/cgroup.controllers")"
  for u in "${KNOB_APPS[@]}"; do BASE[$u]=$(snap "$u"); EXP[$u]=${BASE[$u]}; note "base $u: ${BASE[$u]}"; done
}

DAEMON_PID=
DAEMON_UP=0
sec_activate () {
  check "daemon not running before the first call" inactive "$(usc is-active resource-control.service)"
  local t0 t1 v
  t0=$(now)
  v=$(cl busctl --user --timeout=30 get-property "$RC_NAME" "$RC_PATH" "$RC_IFACE" Version 2>&1)
  t1=$(now)
  check_has "Version property (activates the daemon)" 's "' "$v"
  note "activation + first call: $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }') s"
  check "daemon active through D-Bus activation" active "$(usc is-active resource-control.service)"
  case "$v" in
    's "'*) DAEMON_UP=1 ;;
    *)
      note "the daemon did not come up:"
      usc status --no-pager -l resource-control.service 2>&1 | head -12 | sed 's/^/  | /'
      journalctl --no-pager -o cat _SYSTEMD_USER_UNIT=resource-control.service USER_UNIT=resource-control.service 2>&1 \
        | tail -12 | sed 's/^/  | /'
      dmesg | grep 'type=1326' | tail -2 | sed 's/^/  | seccomp: /'
      ;;
  esac
  local cgp
  cgp=$(usc show -P ControlGroup resource-control.service)
  check "daemon runs in session.slice" "session.slice/resource-control.service" "${cgp#*user@"$U".service/}"
  DAEMON_PID=$(usc show -P MainPID resource-control.service)
  check "daemon binary" /usr/libexec/resource-controld "$(readlink "/proc/$DAEMON_PID/exe" 2>&1)"
  check "daemon runs as the test user" "$U" "$(stat -c %u "/proc/$DAEMON_PID" 2>&1)"
  check "FreezeSupported on cgroup v2" "b true" \
    "$(cl busctl --user get-property "$RC_NAME" "$RC_PATH" "$RC_IFACE" FreezeSupported 2>&1)"
}

# one app record against systemctl show and cgroupfs
check_record () { # check_record FLATFILE UNIT APPID LAUNCHER NAME ICON DESKTOPFILE
  local f=$1 u=$2 d show
  d=$(cg "$u")
  check "$u AppId" "$3" "$(field "$f" "$u" AppId)"
  check "$u Launcher" "$4" "$(field "$f" "$u" Launcher)"
  check "$u Name" "$5" "$(field "$f" "$u" Name)"
  [ "$6" = '*' ] || check "$u Icon" "$6" "$(field "$f" "$u" Icon)"
  check "$u DesktopFile" "$7" "$(field "$f" "$u" DesktopFile)"
  show=$(usc show -p Slice -p ActiveState -p FreezerState -- "$u")
  check "$u Slice" "$(printf '%s\n' "$show" | sed -n 's/^Slice=//p')" "$(field "$f" "$u" Slice)"
  check "$u ActiveState" "$(printf '%s\n' "$show" | sed -n 's/^ActiveState=//p')" "$(field "$f" "$u" ActiveState)"
  check "$u FreezerState" "$(printf '%s\n' "$show" | sed -n 's/^FreezerState=//p')" "$(field "$f" "$u" FreezerState)"
  check "$u Pids = cgroup.procs" "$(sort -n "$d/cgroup.procs" | paste -sd,)" "$(field "$f" "$u" Pids)"
  check "$u CPUWeight = cpu.weight" "$(cat "$d/cpu.weight")" "$(field "$f" "$u" CPUWeight)"
  local io=max
  [ -e "$d/io.weight" ] && io=$(awk '$1 == "default" { print $2 }' "$d/io.weight")
  check "$u IOWeight = io.weight" "$io" "$(field "$f" "$u" IOWeight)"
  check "$u CPUQuota = cpu.max" "$(awk '{ print ($1 == "max") ? 0 : int($1 * 100 / $2) }' "$d/cpu.max")" "$(field "$f" "$u" CPUQuota)"
  check "$u MemoryLow = memory.low" "$(cat "$d/memory.low")" "$(field "$f" "$u" MemoryLow)"
  check "$u MemoryHigh = memory.high" "$(cat "$d/memory.high")" "$(field "$f" "$u" MemoryHigh)"
  check "$u MemoryMax = memory.max" "$(cat "$d/memory.max")" "$(field "$f" "$u" MemoryMax)"
  check "$u TasksMax = pids.max" "$(cat "$d/pids.max")" "$(field "$f" "$u" TasksMax)"
  check "$u MemoryMin = memory.min" "$(cat "$d/memory.min")" "$(field "$f" "$u" MemoryMin)"
  check "$u MemorySwapMax = memory.swap.max" "$(cat "$d/memory.swap.max")" "$(field "$f" "$u" MemorySwapMax)"
  check "$u TasksCurrent = pids.current" "$(cat "$d/pids.current")" "$(field "$f" "$u" TasksCurrent)"
}

# usage keys are read at call time: bracket them between two cgroupfs reads
check_usage () { # check_usage UNIT FLATFILE_VAR-producing-command...
  local u=$1 d m0 m1 c0 c1 f; shift
  d=$(cg "$u")
  m0=$(cat "$d/memory.current"); c0=$(usage_us "$d")
  f=$OUT/usage.flat
  "$@" | flat > "$f"
  m1=$(cat "$d/memory.current"); c1=$(usage_us "$d")
  local lo hi
  lo=$(( (m0 < m1 ? m0 : m1) - MiB )); [ "$lo" -lt 0 ] && lo=0; hi=$(( (m0 > m1 ? m0 : m1) + MiB ))
  check_range "$u MemoryCurrent ~ memory.current" "$lo" "$hi" "$(field "$f" "$u" MemoryCurrent)"
  check_range "$u CPUUsageNSec within cpu.stat usage_usec reads" "$((c0 * 1000))" "$((c1 * 1000 + 999))" \
    "$(field "$f" "$u" CPUUsageNSec)"
}

sec_list () {
  local f=$OUT/listapps.flat
  rc_json ListApps > "$OUT/listapps.json"
  check "ListApps answers" 0 $?
  flat < "$OUT/listapps.json" > "$f"
  # every app instance, nothing else (the session.slice app is left out of this comparison: what matters
  # about it is that it is never controllable, which sec_errors checks)
  local listed
  listed=$(cut -f1 "$f" | sort -u | grep -vxF -- "$SS" | paste -sd' ')
  check "ListApps lists exactly the running app units" \
    "$(printf '%s\n' "${KNOB_APPS[@]}" | sort | paste -sd' ')" "$listed"
  check "the daemon's own unit is not an app" "" "$(cut -f1 "$f" | grep -xF resource-control.service)"
  check "a non-app unit is not listed" "" "$(cut -f1 "$f" | grep -xF -- "$NA")"
  # ListAppRecords carries every key; ListApps leaves out what the limits do (the kernel's figures)
  # and the keys at their none value
  rc_json ListAppRecords | flat > "$OUT/listapprecords.flat"
  check "record keys (ListAppRecords)" \
    "ActiveState AppId Audio CPUPressure CPUQuota CPUThrottledUSec CPUUsageNSec CPUWeight DesktopFile FreezerState IOPressure IOWeight Icon Launcher MemoryCurrent MemoryEvents MemoryHigh MemoryLow MemoryMax MemoryMin MemoryPressure MemorySwapMax Name Pids Slice TasksCurrent TasksMax Unit" \
    "$(FU="$C1" awk -F'\t' '$1 == ENVIRON["FU"] { print $2 }' "$OUT/listapprecords.flat" | sort | paste -sd' ')"
  check "record keys (ListApps): ListAppRecords' without the kernel's figures and none values" \
    "$(listing_keys "$OUT/listapprecords.flat" "$C1")" \
    "$(FU="$C1" awk -F'\t' '$1 == ENVIRON["FU"] { print $2 }' "$f" | sort | paste -sd' ')"
  f=$OUT/listapprecords.flat
  check_record "$f" "$C1" org.gnome.Calculator gnome Calculator accessories-calculator "$APPS_DIR/org.gnome.Calculator.desktop"
  check_record "$f" "$C2" org.gnome.Calculator gnome Calculator accessories-calculator "$APPS_DIR/org.gnome.Calculator.desktop"
  check_record "$f" "$K" org.kde.krita "" Krita krita "$APPS_DIR/org.kde.krita.desktop"
  # no desktop file: Name is the AppID (its Icon is not checked)
  check_record "$f" "$G" google-chrome gnome google-chrome '*' ""
  check_usage "$C1" rc_json ListApps
  check_usage "$K" rc_json GetApp s "$K"
}

sec_getapp () {
  local f=$OUT/getapp.flat
  rc_json GetApp s "$C1" | flat > "$f"
  check "GetApp by scope unit" "$C1" "$(units_in "$f")"
  check "GetApp by unit: AppId" org.gnome.Calculator "$(field "$f" "$C1" AppId)"
  rc_json GetApp s "$K" | flat > "$f"
  check "GetApp by service unit" "$K" "$(units_in "$f")"
  rc_json GetApp s org.gnome.Calculator | flat > "$f"
  check "GetApp by AppID: both instances" "$(printf '%s\n' "$C1" "$C2" | sort | paste -sd' ')" "$(units_in "$f")"
  rc_json GetApp s org.kde.krita | flat > "$f"
  check "GetApp by AppID of a service app" "$K" "$(units_in "$f")"
  rc_json GetApp s google-chrome | flat > "$f"
  check "GetApp by unescaped AppID" "$G" "$(units_in "$f")"
  call "GetApp unknown AppID" NoSuchApp GetApp org.example.NotRunning
  call "GetApp unknown unit" NoSuchApp GetApp app-gnome-org.example.Gone-1.scope
  call "GetApp invalid name" InvalidArgument GetApp 'not an app!'
  call "GetApp name longer than 255 bytes" InvalidArgument GetApp "$(printf 'a%.0s' $(seq 300))"
}

MONITOR_PID=
monitor_up () { # a separate client watching the daemon's signals for the rest of the run
  [ -z "$MONITOR_PID" ] || return 0
  : > "$OUT/monitor.log"; chmod 666 "$OUT/monitor.log"
  cl stdbuf -oL gdbus monitor --session --dest "$RC_NAME" >> "$OUT/monitor.log" 2>&1 &
  MONITOR_PID=$!
  wait_for 10 monitor_has "is owned by"
  check "monitor client attached" 0 $?
}
sec_signals () {
  monitor_up
  start_scope "$W" sleep 1000
  wait_for 20 monitor_has_signal AppAdded "$W"
  check "AppAdded seen by a separate client" yes "$(monitor_has_signal AppAdded "$W" && echo yes || echo no)"
  check_has "AppAdded carries the app record" "'AppId': <'org.gnome.Weather'>" "$(grep -F "AppAdded ('$W'" "$OUT/monitor.log" | head -1)"
  usc stop -- "$W"
  wait_for 20 monitor_has_signal AppRemoved "$W"
  check "AppRemoved seen by a separate client" yes "$(monitor_has_signal AppRemoved "$W" && echo yes || echo no)"
  call "GetApp of the stopped app" NoSuchApp GetApp "$W"
}

sec_cli () {
  local out
  out=$(cl resourcectl list 2>&1)
  check "resourcectl list exit status" 0 $?
  printf '%s\n' "$out" | sed 's/^/  | /'
  check_has "resourcectl list shows Calculator" org.gnome.Calculator "$out"
  check_has "resourcectl list shows Krita" org.kde.krita "$out"
  check_has "resourcectl list shows google-chrome" google-chrome "$out"
  out=$(cl resourcectl list --json 2>&1)
  check "resourcectl list --json is JSON" 0 "$(printf '%s' "$out" | jq -e . >/dev/null 2>&1; echo $?)"
  out=$(cl resourcectl show org.gnome.Calculator 2>&1)
  check "resourcectl show exit status" 0 $?
  check_has "resourcectl show AppID: instance 1" 4711 "$out"
  check_has "resourcectl show AppID: instance 2" 4712 "$out"
  # top: apps by the kernel's own CPU figures (cpu.stat), a busy one first
  local first
  start_scope "$P" sh -c 'while :; do :; done'
  wait_for 30 all_active "$P"
  out=$(cl resourcectl top -b -n 2 -d 1 2>&1)
  check "resourcectl top -b -n 2 exit status" 0 $?
  printf '%s\n' "$out" | sed 's/^/  | /'
  check "resourcectl top -b -n 2: two frames" 2 "$(printf '%s\n' "$out" | grep -c '^top - ')"
  first=$(printf '%s\n' "$out" | awk 'BEGIN { RS = "" } NR == 2' | sed -n 3p | awk '{ print $8 }')
  check "resourcectl top: the busy app first in the second frame" org.example.Painter "$first"
  usc stop -- "$P"
}

sec_polkit_default () {
  # no login session yet: the test user is "any" to polkit, and the shipped policy wants auth_self_keep
  # for changes; with no agent that is a refusal. Thaw is allowed to everyone.
  check "no display session yet" "" "$(loginctl show-user "$TUSER" -P Display 2>/dev/null)"
  call "no session: SetWeight refused by the default policy" NotAuthorized SetWeight "$C1" "uint64 200"
  call "no session: Freeze refused by the default policy" NotAuthorized Freeze "$C1"
  call "no session: Thaw allowed to everyone" OK Thaw "$C1"
  verify "no session, refused" "$C1"

  polkit_rule set-weight YES; polkit_wait set-weight 0
  call "rule YES: SetWeight allowed" OK SetWeight "$C1" "uint64 200"
  exp_set "$C1" cpu.weight=200; verify "rule YES" "$C1"
  call "rule YES: SetWeight back to 100" OK SetWeight "$C1" "uint64 100"
  exp_set "$C1" cpu.weight=100
  polkit_rule set-weight NO; polkit_wait set-weight 1
  call "rule NO: SetWeight refused" NotAuthorized SetWeight "$C1" "uint64 300"
  verify "rule NO, knob unchanged" "$C1"
  polkit_rule none

  login_session
  call "active session: SetWeight allowed by the default policy" OK SetWeight "$C1" "uint64 150"
  call "active session: Freeze allowed by the default policy" OK Freeze "$C1"
  call "active session: Thaw" OK Thaw "$C1"
  call "active session: SetWeight back" OK SetWeight "$C1" "uint64 100"
  verify "active session" "$C1"

  # a rule still wins over the session: deny one action, the others keep working
  polkit_rule set-memory-limit NO; polkit_wait set-memory-limit 1
  call "active session + rule NO: SetMemoryLimit refused" NotAuthorized SetMemoryLimit "$C1" "uint64 $((512 * MiB))"
  call "active session + rule NO: other actions still allowed" OK SetWeight "$C1" "uint64 100"
  verify "rule NO, memory.max unchanged" "$C1"
  polkit_rule none; polkit_wait set-memory-limit 0
}

BUSY1="while :; do :; done"
BUSY4="for i in 1 2 3 4; do (while :; do :; done) & done; wait"
sec_fair () {
  # Krita against Discord: 1 busy process against 4, all pinned to CPU 0, no API call made
  start_scope "$P" taskset -c 0 sh -c "$BUSY1"
  start_scope "$D" taskset -c 0 sh -c "$BUSY4"
  wait_for 30 all_active "$P" "$D"
  check "busy apps active" yes "$(all_active "$P" "$D" && echo yes || echo no)"
  all_active "$P" "$D" || return
  wait_for 10 sh -c "[ \$(wc -l < '$(cg "$D")/cgroup.procs') -ge 5 ]"
  sleep 1
  measure "$(cg "$P")" "$(cg "$D")" 6
  note "equal weight, 6 s: 1-process app ${DA} us, 4-process app ${DB} us, ratio $RATIO (without fair-by-default: ~0.25)"
  # tolerance +-25 %: seen 0.97-1.03 in this VM
  check_range "equal weight: 1-process vs 4-process CPU share ~1:1" 0.75 1.33 "$RATIO"
}

sec_weight () {
  login_session
  call "SetWeight busy app 300" OK SetWeight "$P" "uint64 300"
  check "cpu.weight of the busy app" 300 "$(cat "$(cg "$P")/cpu.weight")"
  check "cpu.weight of the other busy app" 100 "$(cat "$(cg "$D")/cpu.weight")"
  sleep 0.5
  measure "$(cg "$P")" "$(cg "$D")" 6
  note "weight 300 vs 100, 6 s: ${DA} us vs ${DB} us, ratio $RATIO"
  # tolerance +-25 % around 3: seen 2.94 in this VM
  check_range "SetWeight(A, 300): CPU share ~3:1" 2.25 3.75 "$RATIO"
  usc daemon-reload
  check "cpu.weight 300 survives systemctl --user daemon-reload" 300 "$(cat "$(cg "$P")/cpu.weight")"
}

sec_freeze_effect () {
  login_session
  call "Freeze busy app" OK Freeze "$P"
  check "busy app cgroup.events frozen" 1 "$(frozen_of "$P")"
  check "busy app FreezerState" frozen "$(usc show -P FreezerState -- "$P")"
  measure "$(cg "$P")" "$(cg "$D")" 3
  note "frozen, 3 s: ${DA} us vs ${DB} us"
  check_range "frozen app's CPU usage stops growing (us in 3 s)" 0 1000 "$DA"
  check_range "its neighbour gets CPU 0 (us in 3 s)" 2000000 4000000 "$DB"
  local f=$OUT/frozen.flat
  rc_json GetApp s "$P" | flat > "$f"
  check "GetApp FreezerState of the frozen app" frozen "$(field "$f" "$P" FreezerState)"
  call "Thaw busy app" OK Thaw "$P"
  check "busy app cgroup.events thawed" 0 "$(frozen_of "$P")"
  measure "$(cg "$P")" "$(cg "$D")" 3
  note "thawed, 3 s: ${DA} us vs ${DB} us"
  check_range "thawed app's CPU usage grows again (us in 3 s)" 1000000 4000000 "$DA"
  check_signal "AppChanged seen for the changed app" AppChanged "$P"
  usc stop -- "$P" "$D"
}

# The README's main job (tools/demo.sh runs the same script in a VM of its own), with its own checks of
# what it shows: the fair split, set-weight ~3:1, a freeze that stops the app and a thaw that resumes it
sec_demo () {
  local log=$OUT/demo.log rcode
  bash "$(dirname "$0")/demo-guest.sh" --in-system-test > "$log" 2>&1
  rcode=$?
  sed 's/^/  | /' "$log"
  check "demo (tools/demo.sh's payload) exits 0" 0 "$rcode"
  check_has "demo: every check passed" "demo: all " "$(tail -1 "$log")"
}

sec_knobs () {
  login_session
  # Each method changes the right kernel file of the right app and nothing else: all four apps' knob
  # files are compared after every call (by unit and by AppID; scope and service; G is never named).
  local A=("${KNOB_APPS[@]}")
  call "SetWeight scope by unit" OK SetWeight "$C1" "uint64 250"
  exp_set "$C1" cpu.weight=250; verify "SetWeight unit" "${A[@]}"
  call "SetWeight by AppID (2 instances)" OK SetWeight org.gnome.Calculator "uint64 400"
  exp_set "$C1" cpu.weight=400; exp_set "$C2" cpu.weight=400; verify "SetWeight AppID" "${A[@]}"
  call "SetWeight service by unit" OK SetWeight "$K" "uint64 50"
  exp_set "$K" cpu.weight=50; verify "SetWeight service" "${A[@]}"
  check_signal "AppChanged after SetWeight" AppChanged "$K"

  call "SetMemoryLimit scope by unit" OK SetMemoryLimit "$C1" "uint64 $((256 * MiB))"
  exp_set "$C1" memory.max=$((256 * MiB)) memory.high=$((224 * MiB)); verify "SetMemoryLimit unit" "${A[@]}"
  call "SetMemoryLimit by AppID" OK SetMemoryLimit org.gnome.Calculator "uint64 $((512 * MiB))"
  exp_set "$C1" memory.max=$((512 * MiB)) memory.high=$((448 * MiB))
  exp_set "$C2" memory.max=$((512 * MiB)) memory.high=$((448 * MiB)); verify "SetMemoryLimit AppID" "${A[@]}"
  call "SetMemoryLimit service" OK SetMemoryLimit "$K" "uint64 $((128 * MiB))"
  exp_set "$K" memory.max=$((128 * MiB)) memory.high=$((112 * MiB)); verify "SetMemoryLimit service" "${A[@]}"
  call "SetMemoryLimit G_MAXUINT64 removes both" OK SetMemoryLimit "$C1" "uint64 $UINT64_MAX"
  exp_set "$C1" memory.max=max memory.high=max; verify "SetMemoryLimit max" "${A[@]}"

  call "SetLimits service: all keys but IOWeight" OK SetLimits "$K" \
    "{'CPUWeight': <uint64 150>, 'CPUQuota': <uint32 10>, 'MemoryLow': <uint64 $((32 * MiB))>, 'MemoryHigh': <uint64 $((200 * MiB))>, 'MemoryMax': <uint64 $((300 * MiB))>, 'TasksMax': <uint64 64>}" '@a{sv} {}'
  exp_set "$K" cpu.weight=150 cpu.max=10000_100000 memory.low=$((32 * MiB)) memory.high=$((200 * MiB)) \
    memory.max=$((300 * MiB)) pids.max=64
  verify "SetLimits service" "${A[@]}"
  call "SetLimits by AppID" OK SetLimits org.gnome.Calculator "{'CPUQuota': <uint32 50>, 'TasksMax': <uint64 32>}" '@a{sv} {}'
  exp_set "$C1" cpu.max=50000_100000 pids.max=32; exp_set "$C2" cpu.max=50000_100000 pids.max=32
  verify "SetLimits AppID" "${A[@]}"
  call "SetLimits CPUQuota 0 removes the quota" OK SetLimits "$C2" "{'CPUQuota': <uint32 0>}" '@a{sv} {}'
  exp_set "$C2" cpu.max=max_100000; verify "SetLimits CPUQuota 0" "${A[@]}"
  call "SetLimits TasksMax G_MAXUINT64" OK SetLimits "$C2" "{'TasksMax': <uint64 $UINT64_MAX>}" '@a{sv} {}'
  exp_set "$C2" pids.max=max; verify "SetLimits TasksMax max" "${A[@]}"

  call "Freeze scope by unit" OK Freeze "$C1"
  exp_set "$C1" frozen=1; verify "Freeze unit" "${A[@]}"
  check "FreezerState after Freeze" frozen "$(usc show -P FreezerState -- "$C1")"
  call "Thaw scope by unit" OK Thaw "$C1"
  exp_set "$C1" frozen=0; verify "Thaw unit" "${A[@]}"
  call "Freeze by AppID" OK Freeze org.gnome.Calculator
  exp_set "$C1" frozen=1; exp_set "$C2" frozen=1; verify "Freeze AppID" "${A[@]}"
  call "Thaw by AppID" OK Thaw org.gnome.Calculator
  exp_set "$C1" frozen=0; exp_set "$C2" frozen=0; verify "Thaw AppID" "${A[@]}"
  call "Freeze service" OK Freeze "$K"
  exp_set "$K" frozen=1; verify "Freeze service" "${A[@]}"
  call "Thaw service" OK Thaw "$K"
  exp_set "$K" frozen=0; verify "Thaw service" "${A[@]}"

  call "ResetLimits service" OK ResetLimits "$K"
  exp_reset "$K"; verify "ResetLimits service" "${A[@]}"
  call "ResetLimits by AppID" OK ResetLimits org.gnome.Calculator
  exp_reset "$C1" "$C2"; verify "ResetLimits AppID" "${A[@]}"
  check "neighbour never named, never changed" "${BASE[$G]}" "$(snap "$G")"
}

sec_errors () {
  login_session
  call "SetWeight 0" InvalidArgument SetWeight "$C1" "uint64 0"
  call "SetWeight 10001" InvalidArgument SetWeight "$C1" "uint64 10001"
  call "SetWeight invalid app name" InvalidArgument SetWeight 'bad name!' "uint64 100"
  call "SetMemoryLimit below 16 MiB" InvalidArgument SetMemoryLimit "$C1" "uint64 $((8 * MiB))"
  call "SetLimits below 16 MiB even with force" InvalidArgument SetLimits "$C1" \
    "{'MemoryMax': <uint64 $((8 * MiB))>}" "{'force': <true>}"
  call "SetLimits unknown key" InvalidArgument SetLimits "$C1" "{'CPUWeigth': <uint64 100>}" '@a{sv} {}'
  call "SetLimits mistyped value" InvalidArgument SetLimits "$C1" "{'CPUWeight': <'100'>}" '@a{sv} {}'
  call "SetLimits CPUQuota above 100 x CPUs" InvalidArgument SetLimits "$C1" "{'CPUQuota': <uint32 $((100 * $(nproc) + 1))>}" '@a{sv} {}'
  call "SetLimits unknown option" InvalidArgument SetLimits "$C1" "{'CPUWeight': <uint64 100>}" "{'frobnicate': <true>}"
  local out
  out=$(cl dbus-send --session --print-reply --dest="$RC_NAME" "$RC_PATH" "$RC_IFACE.SetWeight" string:"$C1" string:x 2>&1)
  check_has "wrong D-Bus signature rejected by GDBus" org.freedesktop.DBus.Error.InvalidArgs "$out"
  call "SetWeight AppID not running" NoSuchApp SetWeight org.example.NotRunning "uint64 100"
  call "Freeze unit not running" NoSuchApp Freeze app-gnome-org.example.Gone-1.scope
  call "SetWeight the daemon's own unit" Protected SetWeight resource-control.service "uint64 100"
  call "Freeze the session bus" Protected Freeze dbus.service
  call "SetWeight a non-app unit" Protected SetWeight "$NA" "uint64 100"
  call "SetWeight an app in session.slice" Protected SetWeight "$SS" "uint64 100"
  call "Freeze an app in session.slice" Protected Freeze "$SS"
  check "session.slice app not frozen" running "$(usc show -P FreezerState -- "$SS")"
  # a caller inside the app it wants to freeze would lock itself out
  out=$("$AU" systemd-run --user --scope --quiet -u app-gnome-org.example.Shell-9.scope \
          gdbus call --session --timeout 30 --dest "$RC_NAME" --object-path "$RC_PATH" \
          --method "$RC_IFACE.Freeze" app-gnome-org.example.Shell-9.scope 2>&1)
  check_has "Freeze the caller's own app" "${RC_ERR}Protected" "$out"
  # stock Debian 12 delegation (cpu memory pids): no io controller for apps
  check "no io controller delegated (stock Debian)" "" "$(tr ' ' '\n' < "$UM/cgroup.controllers" | grep -x io)"
  call "SetLimits IOWeight without io" NotSupported SetLimits "$C1" "{'IOWeight': <uint64 200>}" '@a{sv} {}'
  verify "after refused calls" "${KNOB_APPS[@]}"
}

HOG_PY='
import mmap, os, sys, time
def grab(mib):
    return mmap.mmap(-1, mib << 20, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | getattr(mmap, "MAP_POPULATE", 0x8000))
keep = [grab(48)]
go = sys.argv[1]
while not os.path.exists(go):
    time.sleep(0.2)
for i in range(64):
    keep.append(grab(16))
    print("holding", 48 + 16 * (i + 1), "MiB", flush=True)
time.sleep(1000)
'
sec_oom () {
  login_session
  local go=/run/user/$U/rc-systemtest-hog-go
  rm -f "$go"
  start_scope "$H1" /usr/bin/python3 -c "$HOG_PY" "$go"
  start_scope "$H2" /usr/bin/python3 -c "$HOG_PY" /nonexistent
  wait_for 30 all_active "$H1" "$H2"
  wait_for 30 sh -c "[ \$(cat '$(cg "$H1")/memory.current') -gt $((48 * MiB)) ]"
  local cur
  cur=$(cat "$(cg "$H1")/memory.current")
  note "hog memory.current: $cur"
  call "SetMemoryLimit below current use" WouldKill SetMemoryLimit "$H1" "uint64 $((32 * MiB))"
  call "SetLimits MemoryHigh below current use" WouldKill SetLimits "$H1" "{'MemoryHigh': <uint64 $((32 * MiB))>}" '@a{sv} {}'
  check "memory.max unchanged after WouldKill" max "$(cat "$(cg "$H1")/memory.max")"
  check "memory.high unchanged after WouldKill" max "$(cat "$(cg "$H1")/memory.high")"
  # MemoryMax alone: with SetMemoryLimit's MemoryHigh (7/8) the kernel throttles the hog at MemoryHigh
  # for minutes instead of killing it (seen in this VM), which is the point of MemoryHigh but not this test
  call "SetLimits MemoryMax 128 MiB" OK SetLimits "$H1" "{'MemoryMax': <uint64 $((128 * MiB))>}" '@a{sv} {}'
  check "hog memory.max" $((128 * MiB)) "$(cat "$(cg "$H1")/memory.max")"
  touch "$go"
  wait_for 60 sh -c "[ \"\$($AU systemctl --user is-active -- '$H1')\" != active ]"
  check "hog stopped by the kernel: Result" oom-kill "$(usc show -P Result -- "$H1")"
  check_signal "AppRemoved for the killed app" AppRemoved "$H1"
  check "its neighbour (same AppID) lives" active "$(usc is-active -- "$H2")"
  check "the other apps live" "active active active active" "$(usc is-active -- "${KNOB_APPS[@]}" | paste -sd' ')"
  call "GetApp of the killed app" NoSuchApp GetApp "$H1"
  # force: the caller insists; the kernel then reclaims and kills at once (no swap here)
  call "SetLimits below current use with force" OK SetLimits "$H2" "{'MemoryMax': <uint64 $((32 * MiB))>}" "{'force': <true>}"
  wait_for 30 sh -c "[ \"\$($AU systemctl --user is-active -- '$H2')\" != active ]"
  check "forced limit below use: Result" oom-kill "$(usc show -P Result -- "$H2")"
}

sec_polkit_down () {
  login_session
  # polkitd absent: masked (else the daemon's call would D-Bus activate it again), then stopped
  systemctl mask --runtime --quiet polkit.service
  systemctl stop polkit.service
  check "polkitd stopped" inactive "$(systemctl is-active polkit.service)"
  call "polkitd down: SetWeight" NotAuthorized SetWeight "$C1" "uint64 500"
  check_has "polkitd down: message says so" unavailable "$(last_message)"
  call "polkitd down: SetMemoryLimit" NotAuthorized SetMemoryLimit "$C1" "uint64 $((512 * MiB))"
  call "polkitd down: SetLimits" NotAuthorized SetLimits "$C1" "{'CPUWeight': <uint64 500>}" '@a{sv} {}'
  call "polkitd down: ResetLimits" NotAuthorized ResetLimits "$C1"
  call "polkitd down: Freeze" NotAuthorized Freeze "$C1"
  call "polkitd down: Thaw" NotAuthorized Thaw "$C1"
  verify "polkitd down, nothing changed" "${KNOB_APPS[@]}"
  systemctl unmask --runtime --quiet polkit.service
  call "polkitd back (D-Bus activated): SetWeight" OK SetWeight "$C1" "uint64 100"
}

# Faults the daemon must survive, with real systemd: every caller answered, nothing stale,
# no app the caller did not name changed, and the daemon keeps its PID (sec_health).
running_apps () { usc list-units --type=scope,service --state=active --plain --no-legend -- 'app-*' | awk '{ print $1 }' | sort | paste -sd' '; }
listed_apps () { rc_json ListApps | flat | units_in /dev/stdin; }
lists_running_apps () { [ "$(listed_apps)" = "$(running_apps)" ]; }
one_of () { # one_of NAME ACTUAL ALLOWED...: ACTUAL is one of ALLOWED
  local name=$1 actual=$2 a; shift 2
  for a in "$@"; do [ "$actual" = "$a" ] && { check "$name" "$actual" "$actual"; return; }; done
  check "$name" "one of: $*" "$actual"
}
sec_faults () {
  login_session
  monitor_up
  local d1 i r1 r2 p1 p2
  d1=$(cg "$C1")
  # two clients change one app at once: the kernel files hold all of one request, never a mix
  for i in 1 2 3; do
    # (wait for these two only: a bare `wait` would wait for the monitor and the client scope too)
    rc SetLimits "$C1" "{'CPUWeight': <uint64 200>, 'MemoryHigh': <uint64 $((600 * MiB))>}" '@a{sv} {}' > "$OUT/fault-a" &
    p1=$!
    rc SetLimits "$C1" "{'CPUWeight': <uint64 300>, 'MemoryHigh': <uint64 $((700 * MiB))>}" '@a{sv} {}' > "$OUT/fault-b" &
    p2=$!
    wait "$p1" "$p2"
    check "two clients at once ($i): both answered OK" "OK OK" "$(cat "$OUT/fault-a") $(cat "$OUT/fault-b")"
    one_of "two clients at once ($i): one request's values" "$(cat "$d1/cpu.weight") $(cat "$d1/memory.high")" \
      "200 $((600 * MiB))" "300 $((700 * MiB))"
  done
  call "ResetLimits after the race" OK ResetLimits "$C1"
  exp_reset "$C1"
  verify "two clients at once, others untouched" "${KNOB_APPS[@]}"

  # a client killed while its call is in flight (polkit alone takes ~1 s here)
  # (nested: the outer subshell swallows bash's "Killed" notice)
  ( ( echo "$BASHPID" > "$CLIENT_CG/cgroup.procs" && exec timeout -s KILL 0.3 "$AU" gdbus call --session \
      --dest "$RC_NAME" --object-path "$RC_PATH" --method "$RC_IFACE.SetWeight" "$C1" 250 ) ) > /dev/null 2>&1
  sleep 3
  call "daemon answers after a client was killed mid-call" OK GetApp "$C1"
  one_of "killed client's change: done or not, nothing else" "$(cat "$d1/cpu.weight")" 100 250
  call "SetWeight back to 100" OK SetWeight "$C1" "uint64 100"
  verify "killed client, others untouched" "${KNOB_APPS[@]}"

  # an app that exits while a change for it is on its way: NoSuchApp or done, and no stale record
  start_scope "$X" sleep 1000
  wait_for 20 monitor_has_signal AppAdded "$X"
  ( usc stop -- "$X" ) &
  p1=$!
  r1=$(rc SetWeight "$X" "uint64 300")
  wait "$p1"
  one_of "app stopped during SetWeight: OK or NoSuchApp" "$r1" OK NoSuchApp
  wait_for 20 monitor_has_signal AppRemoved "$X"
  call "stopped app: GetApp" NoSuchApp GetApp "$X"
  check "stopped app: no stale record in ListApps" "" "$(listed_apps | tr ' ' '\n' | grep -xF -- "$X")"

  # the user manager re-executes while calls are in flight
  rc SetWeight "$C1" "uint64 150" > "$OUT/fault-a" &
  p1=$!
  rc SetWeight "$K" "uint64 160" > "$OUT/fault-b" &
  p2=$!
  sleep 0.3
  usc daemon-reexec
  wait "$p1" "$p2"
  r1=$(cat "$OUT/fault-a"); r2=$(cat "$OUT/fault-b")
  one_of "call in flight during daemon-reexec (1): answered" "$r1" OK Failed
  one_of "call in flight during daemon-reexec (2): answered" "$r2" OK Failed
  [ "$r1" = OK ] && exp_set "$C1" cpu.weight=150
  [ "$r2" = OK ] && exp_set "$K" cpu.weight=160
  wait_for 30 lists_running_apps
  check "after daemon-reexec: ListApps lists the running apps" "$(running_apps)" "$(listed_apps)"
  call "after daemon-reexec: SetWeight works" OK SetWeight "$C2" "uint64 170"
  exp_set "$C2" cpu.weight=170
  verify "after daemon-reexec" "${KNOB_APPS[@]}"
  start_scope "$X" sleep 1000
  wait_for 30 sh -c "grep -F 'AppAdded' '$OUT/monitor.log' | grep -cF -- '$X' | grep -qx 2"
  check "after daemon-reexec: AppAdded for a new app" 2 "$(grep -F AppAdded "$OUT/monitor.log" | grep -cF -- "$X")"
  usc stop -- "$X"
  usc daemon-reload
  call "after daemon-reload: SetWeight works" OK SetWeight "$C2" "uint64 100"
  exp_set "$C2" cpu.weight=100
  call "ResetLimits after the re-exec" OK ResetLimits "$C1"
  call "ResetLimits after the re-exec" OK ResetLimits "$K"
  exp_reset "$C1" "$K"
  verify "faults done" "${KNOB_APPS[@]}"
  check "daemon kept running through the faults" "$DAEMON_PID" "$(usc show -P MainPID resource-control.service)"
}


# the sections kept in files of their own (they use the helpers above)
for sections_file in rules-sections.sh launch-sections.sh slices-sections.sh notify-sections.sh memory-sections.sh package-sections.sh; do . "$(dirname "$0")/$sections_file"; done

SECTIONS="install apps activate list getapp signals cli polkit_default fair weight freeze_effect demo knobs errors faults rules boost autostart focus_sway guard focus_kwin focus_i3 launch adopt processes audio_power energy slices oomd oom notify memory polkit_down health io settings scale"
ALWAYS="install apps activate"
NO_DAEMON="install apps activate fair"
SECTIONS="$SECTIONS panel package"
echo "== system test: kernel $(uname -r), systemd $(systemctl --version | head -1 | cut -d' ' -f2), user $TUSER ($U), $(nproc) CPUs"
finish () {
  [ -n "$MONITOR_PID" ] && kill "$MONITOR_PID" 2>/dev/null
  echo "== busiest processes at the end:"
  ps -eo pid,user:10,pcpu,etime,args --sort=-pcpu | head -6 | cut -c1-150 | sed 's/^/  | /'
  journalctl --no-pager -o cat _SYSTEMD_USER_UNIT=resource-control.service > "$OUT/daemon.log" 2>&1
  echo "== timings (s): $(for s in $SECTIONS; do [ -n "${TOOK[$s]:-}" ] && printf '%s=%s ' "$s" "${TOOK[$s]}"; done)total=$(awk -v a="$T_START" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }')"
  if [ "$FAILED" -gt 0 ]; then
    echo "== failed checks:"
    printf '  %s\n' "${FAILS[@]}"
    echo "== daemon log (tail):"
    tail -40 "$OUT/daemon.log" | sed 's/^/  | /'
  fi
  echo "$PASSED passed, $FAILED failed"
}

declare -A TOOK
T_START=$(now)
CURRENT=
trap 'echo "== TERMINATED (time limit) in section $CURRENT"; check "finished within the time limit" yes "no (in $CURRENT)"; finish; exit 124' TERM
for s in $SECTIONS; do
  case " $ALWAYS " in
    *" $s "*) ;;
    *)
      if [ -n "$ONLY" ] && [[ " $ONLY " != *" $s "* ]]; then continue; fi
      if [[ " $SKIP " == *" $s "* ]]; then echo "== $s: not run (--skip $SKIP)"; continue; fi
      ;;
  esac
  t0=$(now)
  CURRENT=$s
  echo "== $s (t=$t0)"
  if [ "$DAEMON_UP" = 0 ] && [[ " $NO_DAEMON " != *" $s "* ]]; then
    check "section $s: the daemon is reachable" yes no
    continue
  fi
  "sec_$s"
  TOOK[$s]=$(awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }')
  echo "== $s took ${TOOK[$s]} s"
done
finish
[ "$FAILED" = 0 ]
