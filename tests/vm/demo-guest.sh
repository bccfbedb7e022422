#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The README's main job on a machine without a desktop session: runs as root inside the test VM
# (real systemd as PID 1 on cgroup v2), installs the staged build, logs the test user in on tty1 (an
# active local session, so the shipped polkit policy allows changes as on a desktop), starts a few
# real apps, lets D-Bus activate the daemon and shows what a user sees: `resourcectl list`, then the
# fairness demo with the CPU shares measured from the kernel's cpu.stat, and a freeze and thaw.
# Every resourcectl call is made from a plain scope of the user's manager, as from a terminal on a
# desktop: polkit finds the user's session from the caller's cgroup.
#
# A demo is a test a person watches: every step and figure is checked (PASS/FAIL lines), and the exit
# status is 1, with the list of what did not happen, when anything is off.
#
# usage: demo-guest.sh --stage DIR         install DIR first (tools/demo.sh, through run-system-tests.sh)
#        demo-guest.sh --in-system-test    installed already, daemon maybe running (system-test.sh's
#                                          section 'demo', so CI runs the README's main job too)
set -u
STAGE=
IN_SUITE=0
while [ $# -gt 0 ]; do
  case "$1" in
    --stage) STAGE=$2; shift ;;
    --in-system-test) IN_SUITE=1 ;;
    *) echo "demo: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done
U=${VM_TEST_UID:?run by run-in-vm.sh, which sets VM_TEST_UID}
TUSER=${VM_TEST_USER:-$(getent passwd "$U" | cut -d: -f1)}
THOME=$(getent passwd "$U" | cut -d: -f6)
OUT=${VM_OUT:-/tmp}
AU=/mnt/vmshare/as-user
CLIENT=rc-demo-terminal.scope
. "$(dirname "$0")/lib.sh"

say () { printf '\n\033[1m== %s\033[0m\n' "$*"; }
run () { printf '$ %s\n' "$*"; cl "$@"; }
# run_ok NAME CMD...: run a resourcectl command as the user would, and check that it succeeded
run_ok () { local name=$1 rcode; shift; run "$@"; rcode=$?; check "$name" 0 "$rcode"; }

C=app-gnome-org.gnome.Calculator-31.scope
P=app-gnome-org.example.Painter-32.scope
D=app-flatpak-com.discordapp.Discord-33.scope
trap '"$AU" systemctl --user stop "$C" "$P" "$D" 2>/dev/null' EXIT

if [ "$IN_SUITE" = 0 ]; then
  [ -d "$STAGE/usr" ] || { echo "demo: no staged install at '$STAGE'"; exit 1; }
  tar -C "$STAGE" -cf - . | tar -C / -xf - --keep-directory-symlink   # through the /lib -> usr/lib link
fi
apps=$THOME/.local/share/applications
mkdir -p "$apps"
desktop () { # desktop ID NAME ICON: a desktop file, unless the user has one
  [ -e "$apps/$1.desktop" ] ||
    printf '[Desktop Entry]\nType=Application\nName=%s\nIcon=%s\nExec=true\n' "$2" "$3" > "$apps/$1.desktop"
}
desktop org.example.Painter Painter applications-graphics
desktop com.discordapp.Discord Discord discord
desktop org.gnome.Calculator Calculator accessories-calculator
chown -R "$TUSER:" "$THOME/.local"
if [ "$IN_SUITE" = 0 ]; then
  # as after a package install: the running user manager and session bus pick up the new files
  "$AU" systemctl --user daemon-reload
  "$AU" busctl --user call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus ReloadConfig >/dev/null
fi

client_up
check "a terminal-like scope for the user's commands" yes "$([ -d "$CLIENT_CG" ] && echo yes || echo no)"
# An active local session on tty1, as after a console login; polkit must say yes for it before the
# first change (it learns of a new session a little later).
login_session

say "Starting apps: a calculator, Painter with 1 busy process, Discord with 4 busy processes"
# Every busy process on CPU 0, so the two apps really compete.
start_scope "$C" sleep 1000
start_scope "$P" taskset -c 0 sh -c 'while :; do :; done'
start_scope "$D" taskset -c 0 sh -c 'for i in 1 2 3; do (while :; do :; done) & done; while :; do :; done'
wait_for 30 all_active "$C" "$P" "$D"
check "the three apps are running" "active active active" "$(usc is-active -- "$C" "$P" "$D" | paste -sd' ')"
wait_for 10 sh -c "[ \$(wc -l < '$(cg "$D")/cgroup.procs') -ge 5 ]"

say "resourcectl list$([ "$IN_SUITE" = 0 ] && echo ' (the first call D-Bus activates resource-controld)')"
list=$(run resourcectl list); rcode=$?
printf '%s\n' "$list"
check "resourcectl list succeeds" 0 "$rcode"
for a in "$C" "$P" "$D"; do check_has "resourcectl list shows $a" "$a" "$list"; done
check "resource-controld runs in session.slice" "active session.slice" \
  "$(usc is-active resource-control.service) $(usc show -P Slice resource-control.service)"

share () {  # share SECONDS: CPU time of Painter and Discord over SECONDS, from cpu.stat; sets RATIO
  measure "$(cg "$P")" "$(cg "$D")" "$1"
  awk -v p="$DA" -v d="$DB" -v s="$1" -v r="$RATIO" 'BEGIN {
    printf "  over %d s: Painter (1 process) %.2f s CPU, Discord (4 processes) %.2f s CPU, ratio %s : 1\n",
           s, p / 1e6, d / 1e6, r }'
}
weights () { echo "Painter $(cat "$(cg "$P")/cpu.weight"), Discord $(cat "$(cg "$D")/cpu.weight")"; }

say "Fair by default: both apps at CPU weight 100, pinned to one CPU"
echo "  cpu.weight: $(weights)"
share 6
# +-25 %: the system test's tolerance (seen 0.97-1.03 in this VM)
check_range "fair by default: 1-process vs 4-process app get ~1:1" 0.75 1.33 "$RATIO"

say "Give Painter three times Discord's weight"
run_ok "resourcectl set-weight succeeds" resourcectl set-weight org.example.Painter 300
echo "  cpu.weight: $(weights)"
check "cpu.weight after set-weight" "Painter 300, Discord 100" "$(weights)"
nap 0.5
share 6
check_range "set-weight 300: Painter gets ~3 times Discord's CPU" 2.25 3.75 "$RATIO"

# freeze_step VERB FROZEN STATE WHEN LOW HIGH: resourcectl VERB Discord, then its cgroup.events and its
# CPU use over 3 s (microseconds, LOW..HIGH)
freeze_step () {
  run_ok "resourcectl $1 succeeds" resourcectl "$1" com.discordapp.Discord
  echo "  cgroup.events: frozen $(frozen_of "$D")"
  check "Discord's cgroup.events says $3" "$2" "$(frozen_of "$D")"
  measure "$(cg "$D")" "$(cg "$P")" 3
  echo "  Discord's CPU use $4, over 3 s: $((DA / 1000)) ms"
  check_range "$4: Discord's CPU use over 3 s (us)" "$5" "$6" "$DA"
}
say "Freeze Discord, then thaw it"
freeze_step freeze 1 frozen "while frozen" 0 999
# thawed, a quarter of CPU 0 against Painter's weight 300: ~750 ms; 300 ms leaves room for the emulator
freeze_step thaw 0 thawed "after thawing" 300000 100000000

say "resourcectl list, after"
list=$(run resourcectl list); rcode=$?
printf '%s\n' "$list"
check "resourcectl list succeeds" 0 "$rcode"
check "resourcectl list shows Painter at CPU weight 300" 300 "$(printf '%s\n' "$list" | awk -v u="$P" '$3 == u { print $4 }')"

echo
if [ "$FAILED" = 0 ]; then
  echo "demo: all $PASSED checks passed: fair split, set-weight ~3:1, freeze stops the app, thaw resumes it"
else
  echo "demo: FAILED, $FAILED of $((PASSED + FAILED)) checks did not hold:"
  printf '  %s\n' "${FAILS[@]}"
  exit 1
fi
