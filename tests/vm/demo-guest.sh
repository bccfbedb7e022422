#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The README's main job on a machine without a desktop session: runs as root inside the test VM
# (real systemd as PID 1 on cgroup v2), installs the staged build, logs the test user in on tty1 (an
# active local session, so the shipped polkit policy allows changes as on a desktop), starts a few
# real apps, lets D-Bus activate the daemon and shows what a user sees: `resourcectl list`, then the
# fairness demo with the CPU shares measured from the kernel's cpu.stat, and a freeze and thaw.
#
# usage: demo-guest.sh --stage DIR       (started by tests/demo.sh through run-system-tests.sh)
set -u
STAGE=
while [ $# -gt 0 ]; do
  case "$1" in
    --stage) STAGE=$2; shift ;;
    *) echo "demo: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done
U=${VM_TEST_UID:-1000}
TUSER=${VM_TEST_USER:-$(getent passwd "$U" | cut -d: -f1)}
THOME=$(getent passwd "$U" | cut -d: -f6)
AU=/mnt/vmshare/as-user
say () { printf '\n\033[1m== %s\033[0m\n' "$*"; }
run () { printf '$ %s\n' "$*"; "$AU" "$@"; }
cg () { echo "/sys/fs/cgroup$("$AU" systemctl --user show -P ControlGroup -- "$1")"; }
usage_us () { awk '$1 == "usage_usec" { print $2 }' "$1/cpu.stat"; }

[ -d "$STAGE/usr" ] || { echo "demo: no staged install at '$STAGE'"; exit 1; }
cp -a "$STAGE"/. /
mkdir -p "$THOME/.local/share/applications"
printf '[Desktop Entry]\nType=Application\nName=Painter\nIcon=applications-graphics\nExec=true\n' \
  > "$THOME/.local/share/applications/org.example.Painter.desktop"
printf '[Desktop Entry]\nType=Application\nName=Discord\nIcon=discord\nExec=true\n' \
  > "$THOME/.local/share/applications/com.discordapp.Discord.desktop"
printf '[Desktop Entry]\nType=Application\nName=Calculator\nIcon=accessories-calculator\nExec=true\n' \
  > "$THOME/.local/share/applications/org.gnome.Calculator.desktop"
chown -R "$U:" "$THOME/.local"
"$AU" systemctl --user daemon-reload
"$AU" busctl --user call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus ReloadConfig >/dev/null

# An active local session on tty1, as after a console login.
printf 'account required pam_permit.so\nsession required pam_loginuid.so\nsession required pam_systemd.so\n' \
  > /etc/pam.d/rc-demo
systemd-run --quiet --unit=rc-demo-login -p PAMName=rc-demo -p User="$TUSER" -p TTYPath=/dev/tty1 \
  -p StandardInput=tty-force -p StandardOutput=journal sleep infinity
for _ in $(seq 50); do [ -n "$(loginctl show-user "$TUSER" -P Display 2>/dev/null)" ] && break; sleep 0.2; done
echo "session: $(loginctl show-session "$(loginctl show-user "$TUSER" -P Display)" -p Active -p Type -p Seat | paste -sd' ')"

say "Starting apps: a calculator, Painter with 1 busy process, Discord with 4 busy processes"
P=app-gnome-org.example.Painter-1.scope
D=app-flatpak-com.discordapp.Discord-2.scope
# Every busy process on CPU 0, so the two apps really compete.
"$AU" systemd-run --user --scope --quiet -u app-gnome-org.gnome.Calculator-4711.scope sleep 1000 >/dev/null 2>&1 &
"$AU" systemd-run --user --scope --quiet -u "$P" taskset -c 0 sh -c 'while :; do :; done' >/dev/null 2>&1 &
"$AU" systemd-run --user --scope --quiet -u "$D" taskset -c 0 \
  sh -c 'for i in 1 2 3; do (while :; do :; done) & done; while :; do :; done' >/dev/null 2>&1 &
for _ in $(seq 50); do
  [ "$("$AU" systemctl --user is-active "$P" "$D" app-gnome-org.gnome.Calculator-4711.scope | sort -u)" = active ] && break
  sleep 0.2
done

say "resourcectl list (the first call D-Bus activates resource-controld)"
run resourcectl list
echo "resource-controld: $("$AU" systemctl --user is-active resource-control.service), in $("$AU" systemctl --user show -P Slice resource-control.service)"

share () {  # share SECONDS: CPU time of Painter and Discord over SECONDS, from cpu.stat
  local p0 d0 p1 d1
  p0=$(usage_us "$(cg "$P")"); d0=$(usage_us "$(cg "$D")")
  sleep "$1"
  p1=$(usage_us "$(cg "$P")"); d1=$(usage_us "$(cg "$D")")
  awk -v p=$((p1 - p0)) -v d=$((d1 - d0)) -v s="$1" 'BEGIN {
    printf "  over %d s: Painter (1 process) %.2f s CPU, Discord (4 processes) %.2f s CPU, ratio %.2f : 1\n",
           s, p / 1e6, d / 1e6, (d > 0 ? p / d : 0) }'
}
say "Fair by default: both apps at CPU weight 100, pinned to one CPU"
echo "  cpu.weight: Painter $(cat "$(cg "$P")/cpu.weight"), Discord $(cat "$(cg "$D")/cpu.weight")"
share 6
say "Give Painter three times Discord's weight"
run resourcectl set-weight org.example.Painter 300
echo "  cpu.weight: Painter $(cat "$(cg "$P")/cpu.weight"), Discord $(cat "$(cg "$D")/cpu.weight")"
share 6

say "Freeze Discord, then thaw it"
run resourcectl freeze com.discordapp.Discord
echo "  cgroup.events: $(grep frozen "$(cg "$D")/cgroup.events")"
d0=$(usage_us "$(cg "$D")"); sleep 3; d1=$(usage_us "$(cg "$D")")
echo "  Discord's CPU use while frozen, over 3 s: $(( (d1 - d0) / 1000 )) ms"
run resourcectl thaw com.discordapp.Discord
echo "  cgroup.events: $(grep frozen "$(cg "$D")/cgroup.events")"
d0=$(usage_us "$(cg "$D")"); sleep 3; d1=$(usage_us "$(cg "$D")")
echo "  Discord's CPU use after thawing, over 3 s: $(( (d1 - d0) / 1000 )) ms"

say "resourcectl list, after"
run resourcectl list
"$AU" systemctl --user stop "$P" "$D"
