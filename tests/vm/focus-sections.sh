# SPDX-License-Identifier: LGPL-2.1-or-later
#
# focus-sections.sh - VM sections of the daemon starting with the session and following the focus
# with the real compositors, moving the focus between two windows (foot on Wayland, a bare X11
# window on i3) in app scopes (sourced by system-test.sh; lib.sh's helpers). Each compositor is
# started once; every check of it is made in its one run. The latency figures (focus change to the
# new cpu.weight, the daemon beside a shell bridge of compositor events -> gdbus call, a process per
# event; idle wake-ups) are notes, not checks, taken only with system-test.sh --focus-figures
# (bash tests/vm/run-system-tests.sh ... -- --only "focus_sway focus_i3" --focus-figures):
# benchmarks report, tests do not time.

FW_A='app-sway-org.example.FocA-1.scope'     # the two windows the focus moves between
FW_B='app-sway-org.example.FocB-2.scope'
FIRST='app-gnome-org.example.First-1.scope'   # the session's first app
FOCUS_RUNS=${FOCUS_RUNS:-10}
# set by section focus_kwin: section focus_i3, after it, is an X11 session after a KDE one
KWIN_SESSION_ENDED=0

# focus_source: the daemon's FocusSource, without the quotes
focus_source () { cl busctl --user get-property "$RC_NAME" "$RC_PATH" "$RC_IFACE" FocusSource 2>/dev/null | sed 's/^s "\(.*\)"$/\1/'; }
focus_source_is () { [ "$(focus_source)" = "$1" ]; }
# the session's environment in the user manager, changed over the bus as the desktops' own scripts
# do (dbus-update-activation-environment --systemd): `systemctl --user` talks to the manager over
# its private socket, which no one else sees
session_env () { # session_env show-environment | set-environment A=B... | unset-environment A...
  case "$1" in
    show-environment) "$AU" systemctl --user show-environment ;;
    set-environment) shift; cl busctl --user call org.freedesktop.systemd1 /org/freedesktop/systemd1 \
                       org.freedesktop.systemd1.Manager SetEnvironment as $# "$@" ;;
    unset-environment) shift; cl busctl --user call org.freedesktop.systemd1 /org/freedesktop/systemd1 \
                         org.freedesktop.systemd1.Manager UnsetEnvironment as $# "$@" ;;
  esac
}

# The cheapest windows to start and redraw under emulation: foot (Wayland; the focused window is the
# foot process) and a bare X11 window from python3-xlib that sets WM_NAME and _NET_WM_PID, as
# toolkits do.
focus_window_script () {
  cat > /tmp/rc-x11-window.py <<'PY'
import os
import sys
from Xlib import X, Xatom, display
d = display.Display()
w = d.screen().root.create_window(0, 0, 120, 80, 0, d.screen().root_depth,
                                  event_mask=X.ExposureMask | X.FocusChangeMask)
w.set_wm_name(sys.argv[1])
w.change_property(d.intern_atom('_NET_WM_PID'), Xatom.CARDINAL, 32, [os.getpid()])
w.map()
while True:
    d.next_event()
PY
  chmod 644 /tmp/rc-x11-window.py
}
# KWin 5.27 --virtual maps no foot window (it starts and waits): a GTK 4 window there
gtk_window_script () {
  cat > /tmp/rc-gtk-window.py <<'PY'
import sys
import gi
gi.require_version('Gtk', '4.0')
from gi.repository import GLib, Gtk  # noqa: E402
win = Gtk.Window(title=sys.argv[1])
win.set_default_size(120, 80)
win.present()
GLib.MainLoop().run()
PY
  chmod 644 /tmp/rc-gtk-window.py
}
start_gtk_window () { # start_gtk_window UNIT TITLE ENV...
  local unit=$1 title=$2; shift 2
  start_scope "$unit" env GSK_RENDERER=cairo NO_AT_BRIDGE=1 "$@" /usr/bin/python3 /tmp/rc-gtk-window.py "$title"
}
start_window () { # start_window UNIT TITLE ENV...: a window in its own app scope (Wayland with WAYLAND_DISPLAY)
  local unit=$1 title=$2; shift 2
  case "$*" in
    *WAYLAND_DISPLAY=*) start_scope "$unit" env "$@" foot -T "$title" -- sleep infinity ;;
    *) start_scope "$unit" env "$@" /usr/bin/python3 /tmp/rc-x11-window.py "$title" ;;
  esac
}
pid_of () { # the window's process: the scope's process that is not the terminal's sleep
  local p c
  for p in $(cat "$(cg "$1")/cgroup.procs" 2>/dev/null); do
    read -r c < "/proc/$p/comm" 2>/dev/null; [ "$c" != sleep ] && { echo "$p"; return; }
  done
}
# the daemon's context switches (the idle figure of bench/bench.py, read in the guest),
# per thread ("TID SWITCHES" lines): GLib's pool threads end after a while idle, and a sum over
# the threads alive at each reading would lose what they counted
daemon_switch_map () {
  local pid t n k v
  pid=$(usc show -P MainPID resource-control.service)
  for t in /proc/"$pid"/task/*; do
    n=0
    while read -r k v; do case "$k" in voluntary_ctxt_switches:|nonvoluntary_ctxt_switches:) n=$((n + v)) ;; esac; done < "$t/status"
    echo "${t##*/} $n"
  done
}
# wakeups_since FILE: the context switches since daemon_switch_map wrote FILE, of the threads alive
# now (a thread new since then counts whole; one that ended counts its last switch as one)
wakeups_since () {
  daemon_switch_map | awk -v before="$1" 'BEGIN { while ((getline l < before) > 0) { split(l, f, " "); was[f[1]] = f[2] } }
    { n += $2 - ($1 in was ? was[$1] : 0); seen[$1] = 1 } END { for (t in was) if (!(t in seen)) n++; print n }'
}

# latency RUNS CMD_A CMD_B [EVENTS]: CMD_A focuses FW_A, CMD_B FW_B; prints "p50 p95" in ms from the
# focus command's start to the new app's cpu.weight reading 300 (bash builtins only in the wait),
# then, with EVENTS (a file a listener appends $EPOCHREALTIME to at each of the compositor's focus
# events), "p50 p95" from the event to the weight
latency () {
  local runs=$1 cmd_a=$2 cmd_b=$3 events=${4:-} i t0 t1 te v unit cmd want out=() ev=()
  for ((i = 0; i < runs; i++)); do
    if ((i % 2)); then unit=$FW_B; cmd=$cmd_b; else unit=$FW_A; cmd=$cmd_a; fi
    want=$(cg "$unit")/cpu.weight   # before the clock starts: cg may ask systemctl
    t0=$EPOCHREALTIME
    eval "$cmd" > /dev/null 2>&1
    for ((v = 0; v < 2000; v++)); do
      read -r t1 < "$want"; [ "$t1" = 300 ] && break
      nap 0.002
    done
    t1=$EPOCHREALTIME
    if [ "$v" -lt 2000 ]; then
      out+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.0f", (b - a) * 1000 }')")
      # the first event after the command started
      if [ -n "$events" ]; then
        te=$(awk -v a="$t0" '$1 >= a { print; exit }' "$events")
        [ -n "$te" ] && ev+=("$(awk -v a="$te" -v b="$t1" 'BEGIN { printf "%.0f", (b - a) * 1000 }')")
      fi
    fi
    nap 0.3
  done
  percentiles "${out[@]}"
  [ -n "$events" ] && { echo -n " | from the event: "; percentiles "${ev[@]}"; }
  echo
}
percentiles () {
  [ $# -eq 0 ] && { echo -n "none none"; return; }
  printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END { p95 = v[int(NR * 0.95 + 0.999)]; if (p95 == "") p95 = v[NR]; printf "%s %s", v[int((NR + 1) / 2)], p95 }'
}
net () { awk -v a="${1%% *}" -v c="$2" 'BEGIN { if (a + 0 == a) print a - c; else print "none" }'; }
# the floor: the same focus commands when nobody follows them (the command's own cost)
command_cost () { # command_cost RUNS CMD: median ms of CMD alone
  local i t0 out=()
  for ((i = 0; i < $1; i++)); do t0=$EPOCHREALTIME; eval "$2" > /dev/null 2>&1
    out+=("$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.0f", (b - a) * 1000 }')"); done
  printf '%s\n' "${out[@]}" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}

# The system test runs the daemon with every debug message on (sec_install); each goes to journald,
# which the emulated VM drains slowly. Timed parts run it as installed: debug off (quiet_daemon on),
# then back (quiet_daemon off).
quiet_daemon () {
  local f=/etc/systemd/user/resource-control.service.d/95-focus-timing.conf
  if [ "$1" = on ]; then printf '[Service]\nEnvironment=G_MESSAGES_DEBUG=\n' > "$f"; else rm -f "$f"; fi
  usc daemon-reload
  usc restart resource-control.service
  wait_for 15 all_active resource-control.service
  DAEMON_PID=$(usc show -P MainPID resource-control.service)
}

# ---------------------------------------------------------------------------------------------------
# the daemon starts with the session: no call needed

sec_autostart () {
  login_session
  usc stop resource-control.service
  check "daemon stopped before the session starts" inactive "$(usc is-active resource-control.service)"
  check "installed: graphical-session.target wants the daemon" ../resource-control.service \
    "$(readlink /usr/lib/systemd/user/graphical-session.target.wants/resource-control.service)"
  check "XDG autostart entry installed, skipped by systemd's generator" X-systemd-skip=true \
    "$(grep -x X-systemd-skip=true /etc/xdg/autostart/resource-control.desktop)"
  printf '[org.example.First]\nCPUWeight=44\n' > "$SYS_RULES/50-first.conf"
  # a desktop session's target, as GNOME's, Plasma's and uwsm's are
  printf '[Unit]\nDescription=resource-control test session\nBindsTo=graphical-session.target\nBefore=graphical-session.target\n' \
    > /etc/systemd/user/rc-test-session.target
  usc daemon-reload
  local t0=$EPOCHREALTIME
  usc start rc-test-session.target
  start_scope "$FIRST" sleep infinity
  wait_for 30 all_active "$FIRST"
  wait_for 30 file_is "$(cg "$FIRST")/cpu.weight" 44
  check "session started: the first app has its rule with no call" 44 "$(cat "$(cg "$FIRST")/cpu.weight")"
  note "session target started -> first app at cpu.weight 44: $(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2f", b - a }') s"
  check "daemon started by the session" active "$(usc is-active resource-control.service)"
  check "graphical-session.target active" active "$(usc is-active graphical-session.target)"
  # the autostart entry where it runs outside systemd: only a ping, never a second instance
  local pid_before exec_line
  pid_before=$(usc show -P MainPID resource-control.service)
  exec_line=$(sed -n 's/^Exec=//p' /etc/xdg/autostart/resource-control.desktop)
  cl sh -c "$exec_line" > /dev/null 2>&1
  check "autostart entry's command: the same daemon" "$pid_before" "$(usc show -P MainPID resource-control.service)"
  # the session ends: the daemon goes with it (PartOf), and D-Bus activation still works
  usc stop rc-test-session.target
  wait_for 15 sh -c "! systemctl --user -q is-active resource-control.service" 2>/dev/null
  usc stop -- "$FIRST"
  rm -f "$SYS_RULES/50-first.conf" /etc/systemd/user/rc-test-session.target
  usc daemon-reload
  call "D-Bus activation after the session" OK ListApps
  DAEMON_PID=$(usc show -P MainPID resource-control.service)
}

# focus_latency_figures NAME ENV MSG FOCUS_A FOCUS_B LISTEN BRIDGE BEFORE AFTER VAR...: the timed part of
# a compositor's focus section (--focus-figures), with the daemon run as installed. MSG (swaymsg,
# i3-msg), run with the compositor's ENV (VAR=VALUE), focuses FW_A with the arguments FOCUS_A and FW_B
# with FOCUS_B (quoted for eval). LISTEN is a bash script appending $EPOCHREALTIME to the file "$0" at
# each of the compositor's focus events; BRIDGE the shell bridge (sh: the events -> the window's pid
# -> gdbus call SetForegroundProcess). BEFORE runs once the daemon follows the compositor, AFTER after
# its figures (a function, or :). Unsetting the VARs in the user manager turns the daemon's source off
# for the bridge's figures. Notes the figures of both, beside MSG's own cost.
focus_latency_figures () {
  local name=$1 env=$2 msg=$3 focus_a=$4 focus_b=$5 listen=$6 bridge_script=$7 before=$8 after=$9
  shift 9
  local source=${name%% *} events=/tmp/rc-${name%% *}-events lat base cost listener bridge
  local cmd="$AU env $env $msg"
  quiet_daemon on
  wait_for 15 focus_source_is "$source"
  : > "$events"; chmod 666 "$events"
  "$AU" env "$env" bash -c "$listen" "$events" > /dev/null 2>&1 < /dev/null &
  listener=$!
  nap 1
  "$before"
  lat=$(latency "$FOCUS_RUNS" "$cmd $focus_a" "$cmd $focus_b" "$events")
  cost=$(command_cost 5 "$cmd $focus_a")
  "$after"
  session_env unset-environment "$@"
  wait_for 15 focus_source_is none
  check "$source's variables gone from the session: FocusSource" none "$(focus_source)"
  cl env "$env" sh -c "$bridge_script" > /dev/null 2>&1 < /dev/null &
  bridge=$!
  nap 2
  base=$(latency "$FOCUS_RUNS" "$cmd $focus_a" "$cmd $focus_b" "$events")
  pkill -P "$bridge" 2>/dev/null; kill "$bridge" 2>/dev/null
  pkill -P "$listener" 2>/dev/null; kill "$listener" 2>/dev/null
  quiet_daemon off
  note "FIGURES $name, focus command -> cpu.weight, ms (p50 p95, $FOCUS_RUNS changes): daemon $lat, shell bridge $base; $msg alone $cost (p50 net of it: daemon $(net "$lat" "$cost"), bridge $(net "$base" "$cost"))"
}

# ---------------------------------------------------------------------------------------------------
# sway: the daemon hears its IPC socket, which Debian's config.d imports into the user manager

# the timed part of focus_sway (--focus-figures): SOCK PID_A PID_B
focus_figures_sway () {
  local sock=$1 pa=$2 pb=$3
  # shellcheck disable=SC2016 # expanded by the listener's and the bridge's own shells
  focus_latency_figures sway "SWAYSOCK=$sock" swaymsg "'[pid=$pa] focus'" "'[pid=$pb] focus'" \
    'swaymsg -t subscribe -m "[\"window\"]" | while read -r l; do case "$l" in *\"focus\"*) echo "$EPOCHREALTIME" >> "$0" ;; esac; done' \
    'swaymsg -t subscribe -m "[\"window\"]" | jq --unbuffered -r "select(.change == \"focus\") | .container.pid" | while read -r p; do gdbus call --session --dest org.example.ResourceControl --object-path /org/example/ResourceControl --method org.example.ResourceControl.SetForegroundProcess "$p" > /dev/null; done' \
    : focus_idle_with_sway SWAYSOCK DISPLAY
}
# idle with sway connected and nothing happening: the daemon's context switches over 20 s
focus_idle_with_sway () {
  nap 1; daemon_switch_map > /tmp/rc-switches; nap 20
  note "FIGURES idle with sway's socket connected: $(wakeups_since /tmp/rc-switches) daemon wake-ups in 20 s (goal 0)"
}

sec_focus_sway () {
  login_session
  focus_window_script
  local t0=$EPOCHREALTIME wl sock pa pb lat base cost
  printf 'include /etc/sway/config.d/*\n' > /tmp/rc-sway.conf
  chmod 644 /tmp/rc-sway.conf
  "$AU" systemd-run --user --scope --quiet -u rc-test-sway.scope env WLR_BACKENDS=headless \
    WLR_RENDERER=pixman WLR_LIBINPUT_NO_DEVICES=1 sway -c /tmp/rc-sway.conf \
    > "$OUT/sway.log" 2>&1 < /dev/null &
  wait_for 60 sh -c "$AU systemctl --user show-environment | grep -q ^SWAYSOCK="
  sock=$(session_env show-environment | sed -n 's/^SWAYSOCK=//p')
  wl=$(session_env show-environment | sed -n 's/^WAYLAND_DISPLAY=//p')
  note "sway up, its environment imported: $(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }') s (SWAYSOCK=$sock)"
  wait_for 15 focus_source_is sway
  check "FocusSource after sway imported its environment" sway "$(focus_source)"
  start_window "$FW_A" FocA WAYLAND_DISPLAY="$wl"
  wait_for 30 all_active "$FW_A"
  wait_for 60 weights_are "300" "$FW_A"
  start_window "$FW_B" FocB WAYLAND_DISPLAY="$wl"
  wait_for 30 all_active "$FW_B"
  wait_for 60 weights_are "100 300" "$FW_A" "$FW_B"
  check "sway: a new window is focused and boosted (A B)" "100 300" "$(weights "$FW_A" "$FW_B")"
  pa=$(pid_of "$FW_A"); pb=$(pid_of "$FW_B")
  "$AU" env SWAYSOCK="$sock" swaymsg "[pid=$pa] focus" > /dev/null
  wait_for 10 weights_are "300 100" "$FW_A" "$FW_B"
  check "sway: focus moved to A with swaymsg" "300 100" "$(weights "$FW_A" "$FW_B")"
  check_has "resourcectl why: A's CPUWeight is sway's focus" "# boost: focus from sway" \
    "$(cl resourcectl why "$FW_A" 2>&1 | grep '^CPUWeight=300 ')"
  if [ "$FOCUS_FIGURES" = 1 ]; then
    focus_figures_sway "$sock" "$pa" "$pb"
  else
    session_env unset-environment SWAYSOCK DISPLAY
    wait_for 15 focus_source_is none
    check "sway's socket gone from the session: FocusSource" none "$(focus_source)"
  fi
  # sway goes away, comes back: the daemon follows the new socket
  usc stop rc-test-sway.scope
  session_env unset-environment WAYLAND_DISPLAY DISPLAY
  check "daemon still active after sway went away" active "$(usc is-active resource-control.service)"
  usc stop -- "$FW_A" "$FW_B"
  note "section focus_sway: sway started once; $(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }') s"
}

# ---------------------------------------------------------------------------------------------------
# i3 on Xvfb: EWMH (_NET_ACTIVE_WINDOW, _NET_WM_PID); DISPLAY arrives as an i3 config with systemd
# integration sends it: systemctl --user import-environment, then its session target

# the timed part of focus_i3 (--focus-figures)
focus_figures_i3 () {
  # shellcheck disable=SC2016 # expanded by the listener's and the bridge's own shells
  focus_latency_figures "i3 (X11, EWMH)" DISPLAY=:7 i3-msg "'[title=\"^FocA\$\"] focus'" "'[title=\"^FocB\$\"] focus'" \
    'xprop -root -spy _NET_ACTIVE_WINDOW | while read -r l; do echo "$EPOCHREALTIME" >> "$0"; done' \
    'xprop -root -spy _NET_ACTIVE_WINDOW | while read -r _ _ _ _ w; do p=$(xprop -id "$w" _NET_WM_PID 2>/dev/null | sed -n "s/.* = //p"); [ -n "$p" ] && gdbus call --session --dest org.example.ResourceControl --object-path /org/example/ResourceControl --method org.example.ResourceControl.SetForegroundProcess "$p" > /dev/null; done' \
    focus_i3_moves_to_a : DISPLAY
}
focus_i3_moves_to_a () {
  "$AU" env DISPLAY=:7 i3-msg '[title="^FocA$"] focus' > /dev/null
  wait_for 10 weights_are "300 100" "$FW_A" "$FW_B"
  check "i3: focus moved to A with i3-msg" "300 100" "$(weights "$FW_A" "$FW_B")"
}

sec_focus_i3 () {
  login_session
  focus_window_script
  local t0=$EPOCHREALTIME pa pb lat base cost
  # a KWin session ended before this one (section focus_kwin ran): Plasma leaves
  # XDG_CURRENT_DESKTOP=KDE in the user manager, and nothing takes it back
  if [ "$KWIN_SESSION_ENDED" = 1 ]; then session_env set-environment XDG_CURRENT_DESKTOP=KDE; fi
  # the session target of an i3 config with systemd integration (as sway-session.target is sway's)
  # (loaded now: the reload is over before DISPLAY comes, so only the target's job can tell the daemon)
  printf '[Unit]\nDescription=i3 session (resource-control test)\n' > /etc/systemd/user/rc-test-i3-session.target
  usc daemon-reload
  "$AU" systemd-run --user --scope --quiet -u rc-test-xvfb.scope Xvfb :7 -nolisten tcp -screen 0 640x480x24 \
    > "$OUT/xvfb.log" 2>&1 < /dev/null &
  wait_for 30 test -S /tmp/.X11-unix/X7
  printf 'font pango:monospace 8\nfocus_on_window_activation focus\n' > /tmp/rc-i3.conf
  chmod 644 /tmp/rc-i3.conf
  "$AU" systemd-run --user --scope --quiet -u rc-test-i3.scope env DISPLAY=:7 i3 -c /tmp/rc-i3.conf \
    > "$OUT/i3.log" 2>&1 < /dev/null &
  # what an i3 config with systemd integration does once i3 is up: import-environment (over
  # systemd's private socket: no call on the bus, no signal), then start its session target
  "$AU" env DISPLAY=:7 systemctl --user import-environment DISPLAY
  usc start rc-test-i3-session.target
  wait_for 30 focus_source_is i3
  check "FocusSource after systemctl --user import-environment DISPLAY and a session target" i3 "$(focus_source)"
  if [ "$KWIN_SESSION_ENDED" = 1 ]; then
    check "X11 after a KDE session ended (KWin gone, XDG_CURRENT_DESKTOP=KDE left): FocusSource" i3 "$(focus_source)"
  fi
  start_window "$FW_A" FocA DISPLAY=:7
  wait_for 30 all_active "$FW_A"
  wait_for 60 weights_are "300" "$FW_A"
  start_window "$FW_B" FocB DISPLAY=:7
  wait_for 30 all_active "$FW_B"
  wait_for 60 weights_are "100 300" "$FW_A" "$FW_B"
  check "i3: a new window is focused and boosted (A B)" "100 300" "$(weights "$FW_A" "$FW_B")"
  if [ "$KWIN_SESSION_ENDED" = 1 ]; then
    check "X11 after a KDE session ended: i3's focused window is boosted (A B)" "100 300" "$(weights "$FW_A" "$FW_B")"
  fi
  if [ "$FOCUS_FIGURES" = 1 ]; then focus_figures_i3; else session_env unset-environment DISPLAY; fi
  usc stop -- "$FW_A" "$FW_B" rc-test-i3.scope rc-test-xvfb.scope rc-test-i3-session.target
  session_env unset-environment XDG_CURRENT_DESKTOP
  rm -f /etc/systemd/user/rc-test-i3-session.target
  usc daemon-reload
  check "daemon still active after the X server went away" active "$(usc is-active resource-control.service)"
  note "section focus_i3: Xvfb and i3 started once; $(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }') s"
}

# ---------------------------------------------------------------------------------------------------
# KWin 5.27 (kwin_wayland --virtual): the shipped script calls SetForegroundWindowProcess

# kwin_focus TITLE: KWin activates the window TITLE, by a script loaded over its Scripting D-Bus
# interface (what a test can do to KWin from outside; a person clicks)
kwin_focus () {
  local js=/tmp/rc-kwin-focus-$1.js
  if [ ! -f "$js" ]; then
    printf 'var cs = workspace.clientList();\nfor (var i = 0; i < cs.length; i++)\n    if (cs[i].caption == "%s") workspace.activeClient = cs[i];\n' "$1" > "$js"
    chmod 644 "$js"
  fi
  local ks="$AU dbus-send --session --print-reply --dest=org.kde.KWin /Scripting org.kde.kwin.Scripting"
  $ks.unloadScript string:rc-focus > /dev/null 2>&1
  $ks.loadScript string:"$js" string:rc-focus > /dev/null 2>&1
  $ks.start > /dev/null 2>&1
}

# the timed part of focus_kwin (--focus-figures): the focus moved by a KWin script, to the new
# cpu.weight through the shipped script's SetForegroundWindowProcess. There is no shell bridge on
# KWin (it has no event stream outside its scripts): the figure stands beside sway's and i3's.
focus_figures_kwin () {
  local lat cost events=/tmp/rc-kwin-events
  quiet_daemon on
  : > "$events"; chmod 666 "$events"
  printf '%s\n' "dbus-monitor --session \"interface='$RC_IFACE',member='SetForegroundWindowProcess'\" |" \
    '  while read -r l; do case "$l" in *member=SetForegroundWindowProcess*) echo "$EPOCHREALTIME" >> '"$events"' ;; esac; done' \
    > /tmp/rc-kwin-listen.sh
  chmod 644 /tmp/rc-kwin-listen.sh
  "$AU" bash /tmp/rc-kwin-listen.sh > /dev/null 2>&1 < /dev/null &
  local listener=$!
  nap 1
  kwin_focus FocA
  wait_for 10 weights_are "300 100" "$FW_A" "$FW_B"
  check "KWin: focus moved to A by a KWin script" "300 100" "$(weights "$FW_A" "$FW_B")"
  lat=$(latency "$FOCUS_RUNS" "kwin_focus FocA" "kwin_focus FocB" "$events")
  cost=$(command_cost 5 "kwin_focus FocA")
  pkill -P "$listener" 2>/dev/null; kill "$listener" 2>/dev/null
  quiet_daemon off
  note "FIGURES KWin 5.27 (Wayland, the shipped script), focus command -> cpu.weight, ms (p50 p95, $FOCUS_RUNS changes): daemon $lat; the three dbus-send calls of the command alone $cost (p50 net of it: daemon $(net "$lat" "$cost"))"
}

sec_focus_kwin () {
  login_session
  gtk_window_script
  local t0=$EPOCHREALTIME sig sender
  session_env set-environment XDG_CURRENT_DESKTOP=KDE
  # what KWin's callDBus really sends
  "$AU" dbus-monitor --session "interface='$RC_IFACE',member='SetForegroundWindowProcess'" \
    > "$OUT/kwin-dbus-monitor.log" 2>&1 < /dev/null &
  local monitor=$!
  "$AU" systemd-run --user --scope --quiet -u rc-test-kwin.scope env KWIN_COMPOSE=Q \
    kwin_wayland --virtual --no-lockscreen --no-global-shortcuts --socket rc-kwin --width 640 --height 480 \
    > "$OUT/kwin.log" 2>&1 < /dev/null &
  wait_for 120 test -S "/run/user/$U/rc-kwin"
  note "kwin_wayland up: $(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }') s"
  # KWin speaks for a KDE session once it owns org.kde.KWin
  wait_for 15 focus_source_is kwin
  check "FocusSource on a KDE session with KWin running" kwin "$(focus_source)"
  start_gtk_window "$FW_A" FocA WAYLAND_DISPLAY=rc-kwin
  wait_for 30 all_active "$FW_A"
  wait_for 90 weights_are "300" "$FW_A"
  check "KWin: the first window is focused and boosted through the script" 300 "$(weights "$FW_A")"
  start_gtk_window "$FW_B" FocB WAYLAND_DISPLAY=rc-kwin
  wait_for 30 all_active "$FW_B"
  wait_for 60 weights_are "100 300" "$FW_A" "$FW_B"
  check "KWin: a new window is focused and boosted (A B)" "100 300" "$(weights "$FW_A" "$FW_B")"
  if [ "$FOCUS_FIGURES" = 1 ]; then
    focus_figures_kwin
    # the figures restarted the daemon: B focused again, by KWin, before it closes
    kwin_focus FocB
    wait_for 30 weights_are "100 300" "$FW_A" "$FW_B"
  fi
  # B closes: KWin gives the focus back to A, and the script says so
  usc stop -- "$FW_B"
  wait_for 30 weights_are "300" "$FW_A"
  check "KWin: B closed, the focus back on A" 300 "$(weights "$FW_A")"
  kill "$monitor" 2>/dev/null
  sig=$(grep -m1 -A1 'member=SetForegroundWindowProcess' "$OUT/kwin-dbus-monitor.log" | tail -1 | awk '{ print $1 }')
  check "KWin's callDBus sends the pid as" int32 "$sig"
  # the script's call comes from KWin's own connection, which the daemon trusts as it trusts
  # sway's socket (no polkit check per focus change)
  sender=$(grep -m1 'member=SetForegroundWindowProcess' "$OUT/kwin-dbus-monitor.log" | sed -n 's/.*sender=\([^ ]*\).*/\1/p')
  check "the script calls from the connection owning org.kde.KWin" "${sender:-no sender seen}" \
    "$($AU dbus-send --session --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus \
         org.freedesktop.DBus.GetNameOwner string:org.kde.KWin 2>&1 | sed -n 's/.*string "\(.*\)"/\1/p')"
  usc stop -- "$FW_A" "$FW_B" rc-test-kwin.scope
  wait_for 15 focus_source_is none
  check "KWin gone, XDG_CURRENT_DESKTOP still KDE: FocusSource" none "$(focus_source)"
  session_env unset-environment XDG_CURRENT_DESKTOP
  KWIN_SESSION_ENDED=1
  check "daemon still active after KWin went away" active "$(usc is-active resource-control.service)"
  note "section focus_kwin: KWin started once; $(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }') s"
}

# ---------------------------------------------------------------------------------------------------

# ---------------------------------------------------------------------------------------------------
# power conditions (real power-profiles-daemon, its placeholder driver) and the audio hold (real
# PipeWire and WirePlumber as the test user's services; a null sink, pw-play and pw-record in app
# scopes, and a quiet control app)

rc_prop () { cl busctl --user get-property "$RC_NAME" "$RC_PATH" "$RC_IFACE" "$1" 2>&1; }
prop_is () { [ "$(rc_prop "$1")" = "$2" ]; }
app_audio () { rc_json GetApp s "$1" | jq -r '.data[0][0].Audio.data' 2>/dev/null; }
audio_is () { [ "$(app_audio "$1")" = "$2" ]; }
frozen_is () { [ "$(frozen_of "$1")" = "$2" ]; }
# cpu_of SECS CGROUP: the cgroup's CPU time over about SECS seconds, in CPUs (1.00 = one whole
# CPU), divided by the time that really passed between the two reads: under emulation the reads
# themselves take long enough to show a busy process above one CPU.
cpu_of () {
  local a b t0 t1
  t0=$(date +%s%N); a=$(usage_us "$2"); sleep "$1"; b=$(usage_us "$2"); t1=$(date +%s%N)
  awk -v d=$((b - a)) -v ns=$((t1 - t0)) 'BEGIN { printf "%.2f", d * 1000 / ns }'
}
kill_in () { # kill_in UNIT COMM: end the unit's processes named COMM, not the unit
  local p
  for p in $(cat "$(cg "$1")/cgroup.procs"); do
    [ "$(cat "/proc/$p/comm" 2>/dev/null)" = "$2" ] && kill "$p"
  done
}

# the idle figure with every source connected (--focus-figures): PipeWire (the daemon's pw-dump),
# power-profiles-daemon, sway's IPC socket, and nothing happening for 60 s
idle_figure_all_sources () {
  local dump
  printf 'include /etc/sway/config.d/*\n' > /tmp/rc-sway.conf
  chmod 644 /tmp/rc-sway.conf
  "$AU" systemd-run --user --scope --quiet -u rc-test-sway-idle.scope env WLR_BACKENDS=headless \
    WLR_RENDERER=pixman WLR_LIBINPUT_NO_DEVICES=1 sway -c /tmp/rc-sway.conf \
    > "$OUT/sway-idle.log" 2>&1 < /dev/null &
  wait_for 60 sh -c "$AU systemctl --user show-environment | grep -q ^SWAYSOCK="
  wait_for 15 prop_is FocusSource 's "sway"'
  quiet_daemon on
  wait_for 15 prop_is FocusSource 's "sway"'
  wait_for 15 sh -c "pgrep -P $(usc show -P MainPID resource-control.service) -x pw-dump > /dev/null"
  dump=$(pgrep -P "$(usc show -P MainPID resource-control.service)" -x pw-dump | head -1)
  note "idle with every source: FocusSource $(rc_prop FocusSource), PowerProfile $(rc_prop PowerProfile), the daemon's pw-dump ${dump:-not running}"
  nap 20    # the start's own work done (the first listing; GLib's pool threads end 15 s idle)
  daemon_switch_map > /tmp/rc-switches; nap 60
  daemon_switch_map > /tmp/rc-switches-after
  note "FIGURES idle with every source connected (sway, PipeWire, power-profiles-daemon): $(wakeups_since /tmp/rc-switches) daemon wake-ups in 60 s (goal 0); threads (tid switches) before: $(paste -sd' ' /tmp/rc-switches), after: $(paste -sd' ' /tmp/rc-switches-after)"
  quiet_daemon off
  usc stop rc-test-sway-idle.scope
  cl busctl --user call org.freedesktop.systemd1 /org/freedesktop/systemd1 \
    org.freedesktop.systemd1.Manager UnsetEnvironment as 3 SWAYSOCK WAYLAND_DISPLAY DISPLAY > /dev/null
}

sec_audio_power () {
  login_session
  local bg='app-gnome-org.example.Indexer5-1.scope' app='app-gnome-org.example.Busy5-1.scope'
  local s0 s1 alone0 alone1 out
  systemctl start power-profiles-daemon.service
  wait_for 20 sh -c 'powerprofilesctl get > /dev/null 2>&1'
  check "power-profiles-daemon runs in the VM (placeholder driver)" balanced "$(powerprofilesctl get 2>&1)"
  wait_for 10 prop_is PowerProfile 's "balanced"'
  check "PowerProfile property" 's "balanced"' "$(rc_prop PowerProfile)"
  check "OnBattery property (no UPower battery)" "b false" "$(rc_prop OnBattery)"

  # a busy indexer in background.slice against a busy app, both on CPU 0
  start_scope "$bg" --slice=background.slice -- taskset -c 0 sh -c "$(busy)"
  start_scope "$app" taskset -c 0 sh -c "$(busy)"
  wait_for 30 all_active "$bg" "$app"
  wait_for 15 file_is "$UM/background.slice/cpu.weight" 20
  nap 1
  s0=$(share 5 "$UM/background.slice" "$UM/app.slice")
  powerprofilesctl set power-saver
  wait_for 15 file_is "$UM/background.slice/cpu.weight" 5
  check "power-saver: background.slice cpu.weight (shipped @power-saver group)" 5 "$(cat "$UM/background.slice/cpu.weight")"
  check "power-saver: background.slice cpu.max (CPUQuota=25%)" "25000 100000" "$(cat "$UM/background.slice/cpu.max")"
  check "PowerProfile property follows" 's "power-saver"' "$(rc_prop PowerProfile)"
  nap 1
  s1=$(share 5 "$UM/background.slice" "$UM/app.slice")
  note "indexer share against a busy app: balanced $s0, power-saver $s1"
  check_range "balanced: the indexer's share (expected 20/120 = 0.17)" 0.08 0.28 "$s0"
  check_range "power-saver: the indexer's share (expected 5/105 = 0.05)" 0.00 0.12 "$s1"
  usc stop "$app"
  nap 1
  alone1=$(cpu_of 5 "$UM/background.slice")
  powerprofilesctl set balanced
  wait_for 15 file_is "$UM/background.slice/cpu.weight" 20
  check "balanced again: background.slice cpu.weight back" 20 "$(cat "$UM/background.slice/cpu.weight")"
  check "balanced again: background.slice cpu.max back" "max 100000" "$(cat "$UM/background.slice/cpu.max")"
  nap 1
  alone0=$(cpu_of 5 "$UM/background.slice")
  note "the indexer alone, in CPUs: balanced $alone0, power-saver $alone1"
  check_range "power-saver: the indexer alone uses a quarter of a CPU" 0.15 0.35 "$alone1"
  check_range "balanced: the indexer alone uses the whole CPU" 0.75 1.05 "$alone0"
  usc stop "$bg"

  # audio: Player plays, Recorder records, Quiet has no sound; all three freeze 1 s after losing
  # the focus by rule, and Player's and Quiet's rule says CPUWeight=20
  local play='app-gnome-org.example.Player-1.scope' rec='app-gnome-org.example.Recorder-1.scope'
  local quiet='app-gnome-org.example.Quiet-1.scope'
  printf '[org.example.Player]\nFreezeWhenInactiveSec=1\nCPUWeight=20\n[org.example.Recorder]\nFreezeWhenInactiveSec=1\n[org.example.Quiet]\nFreezeWhenInactiveSec=1\nCPUWeight=20\n' \
    > "$SYS_RULES/50-audio-test.conf"
  usc start pipewire.socket pipewire.service wireplumber.service
  wait_for 30 sh -c "'$AU' pw-cli ls Node 2>/dev/null | grep -q Dummy-Driver"
  check "PipeWire runs as the test user" yes "$("$AU" pw-cli ls Node 2>/dev/null | grep -q Dummy-Driver && echo yes || echo no)"
  "$AU" pw-cli create-node adapter '{ factory.name=support.null-audio-sink node.name=rc-null media.class=Audio/Sink object.linger=1 audio.position=[FL FR] }' > /dev/null 2>&1
  wait_for 15 sh -c "'$AU' pw-cli ls Node 2>/dev/null | grep -q rc-null"
  python3 -c 'import wave; w = wave.open("/tmp/rc-silence.wav", "wb"); w.setnchannels(2); w.setsampwidth(2); w.setframerate(48000); w.writeframes(bytes(4 * 48000 * 300)); w.close()'
  chmod 644 /tmp/rc-silence.wav
  start_scope "$play" sh -c 'pw-play --target rc-null /tmp/rc-silence.wav; exec sleep 600'
  start_scope "$rec" pw-record --target rc-null /tmp/rc-recorded.wav
  start_scope "$quiet" sleep 600
  wait_for 30 all_active "$play" "$rec" "$quiet"
  wait_for 20 audio_is "$play" true
  wait_for 10 audio_is "$rec" true
  check "Audio key: the player (pw-play)" true "$(app_audio "$play")"
  check "Audio key: the recorder (pw-record)" true "$(app_audio "$rec")"
  check "Audio key: the quiet app" false "$(app_audio "$quiet")"
  wait_for 10 file_is "$(cg "$quiet")/cpu.weight" 20
  check "the quiet app has its rule's cpu.weight" 20 "$(cat "$(cg "$quiet")/cpu.weight")"
  check "the player keeps the default cpu.weight while it plays (rule says 20)" 100 "$(cat "$(cg "$play")/cpu.weight")"
  for u in "$play" "$rec" "$quiet"; do call "SetForegroundApp $u" OK SetForegroundApp "$u"; done
  call "SetForegroundApp none: all three in the background" OK SetForegroundApp "''"
  wait_for 10 frozen_is "$quiet" 1
  nap 2
  check "the quiet app is frozen in the background (cgroup.events)" 1 "$(frozen_of "$quiet")"
  check "the player is not frozen while it plays" 0 "$(frozen_of "$play")"
  check "the recorder is not frozen while it records" 0 "$(frozen_of "$rec")"
  out=$(cl resourcectl status 2>&1)
  note "resourcectl status: $(printf '%s' "$out" | tr '\n' '|')"
  check_has "status: the player held for audio" "$play" "$out"
  check_has "status: the recorder held for audio" "$rec" "$out"
  check_has "status: the power profile" "Power profile:    balanced" "$out"
  # the player stops: its hold ends, it is frozen a second later and gets its rule's weight
  kill_in "$play" pw-play
  wait_for 10 frozen_is "$play" 1
  check "the player is frozen once it stopped playing" 1 "$(frozen_of "$play")"
  check "... and has its rule's cpu.weight" 20 "$(cat "$(cg "$play")/cpu.weight")"
  check "Audio key: the player after it stopped" false "$(app_audio "$play")"
  check "the recorder still is not frozen" 0 "$(frozen_of "$rec")"
  usc stop "$play" "$rec" "$quiet"
  rm -f "$SYS_RULES/50-audio-test.conf" /tmp/rc-silence.wav /tmp/rc-recorded.wav
  [ "$FOCUS_FIGURES" = 1 ] && idle_figure_all_sources
  usc stop wireplumber.service pipewire.service pipewire.socket
  systemctl stop power-profiles-daemon.service
}

# ---------------------------------------------------------------------------------------------------
# the responsiveness guard under real CPU pressure: the focused window's app (a foot window whose
# shell spins) against a build of four busy processes, all on CPU 0, sway telling the focus; the
# kernel's cpu.weight files show the guard's steps, and their undoing when the build's loops end

GF='app-sway-org.example.GuardFocused-1.scope'   # the focused window, busy
GB='app-sway-org.example.GuardBuild-2.scope'     # a build: four busy processes, then idle
GI='app-sway-org.example.GuardIdle-3.scope'      # an idle app: never lowered

# guard_steps UNIT FIELD: FIELD (RC_NEW, __REALTIME_TIMESTAMP, RC_REASON) of each "guard" entry of
# UNIT in the journal, one a line, oldest first
guard_steps () {
  journalctl --no-pager -o json --output-fields=RC_NEW,RC_REASON RC_KIND=guard RC_UNIT="$1" 2>/dev/null |
    sed 's/" *: *"/":"/g' | grep -o "\"$2\":\"[^\"]*\"" | cut -d'"' -f4
}
weight_below () { local v=; read -r v 2>/dev/null < "$(cg "$1")/cpu.weight"; [ -n "$v" ] && [ "$v" -lt "$2" ]; }
# no new guard entry for UNIT in 8 s
guard_settled () {
  local a b
  a=$(guard_steps "$1" RC_NEW | wc -l); nap 8; b=$(guard_steps "$1" RC_NEW | wc -l)
  [ "$a" = "$b" ]
}
# how many of the daemon's log lines have TEXT (its debug lines: the system test runs it verbose)
guard_log_count () {
  journalctl --no-pager -o cat _SYSTEMD_USER_UNIT=resource-control.service 2>/dev/null | grep -cF "$1"
}
guard_log_grew () { [ "$(guard_log_count "$1")" -gt "$2" ]; }

sec_guard () {
  login_session
  local t0=$EPOCHREALTIME wl sock held out steps gaps cur n0 n1 stops stop=/tmp/rc-guard-stop
  rm -f "$stop"
  printf 'include /etc/sway/config.d/*\n' > /tmp/rc-sway.conf
  chmod 644 /tmp/rc-sway.conf
  "$AU" systemd-run --user --scope --quiet -u rc-test-sway-guard.scope env WLR_BACKENDS=headless \
    WLR_RENDERER=pixman WLR_LIBINPUT_NO_DEVICES=1 sway -c /tmp/rc-sway.conf \
    > "$OUT/sway-guard.log" 2>&1 < /dev/null &
  wait_for 60 sh -c "$AU systemctl --user show-environment | grep -q ^SWAYSOCK="
  sock=$(session_env show-environment | sed -n 's/^SWAYSOCK=//p')
  wl=$(session_env show-environment | sed -n 's/^WAYLAND_DISPLAY=//p')
  wait_for 15 focus_source_is sway
  check "guard: FocusSource" sway "$(focus_source)"
  start_scope "$GI" sleep infinity
  # foot runs the spinning shell from a script: no "--" or option of its own in start_scope's words
  printf 'exec taskset -c 0 sh -c %s\n' "'$(busy)'" > /tmp/rc-guard-spin.sh
  chmod 644 /tmp/rc-guard-spin.sh
  start_scope "$GF" env WAYLAND_DISPLAY="$wl" foot -T GuardFocused /bin/sh /tmp/rc-guard-spin.sh
  wait_for 30 all_active "$GF" "$GI"
  wait_for 60 file_is "$(cg "$GF")/cpu.weight" 300
  check "guard: the focused window's app is boosted" 300 "$(cat "$(cg "$GF")/cpu.weight")"
  # the build: its loops end when $stop appears; the scope stays
  start_scope "$GB" taskset -c 0 sh -c \
    "for i in 1 2 3 4; do sh -c 'while [ ! -e $stop ]; do :; done' & done; wait; exec sleep infinity"
  wait_for 30 all_active "$GB"
  # the kernel's own figure for the focused app, before the guard acts (avg10 lags: a note)
  nap 3
  note "guard: the focused app's cpu.pressure with the build running: $(head -1 "$(cg "$GF")/cpu.pressure")"
  # How far it goes depends on how short of CPU the focused app still is after each step (the
  # kernel's scheduling under emulation): the steps are checked for their form, not their count.
  wait_for 60 weight_below "$GB" 100
  check "guard: the build's cpu.weight lowered" yes "$(weight_below "$GB" 100 && echo yes || echo no)"
  wait_for 90 guard_settled "$GB"
  cur=$(cat "$(cg "$GB")/cpu.weight")
  steps=$(guard_steps "$GB" RC_NEW | tr '\n' ' ' | sed 's/ $//')
  note "guard: the build's steps down: $steps"
  # a step halves, never below the floor; one given back doubles (and is undone if the pressure
  # comes back: the next step back then waits twice as long)
  check "guard: each step halves (or doubles, given back), never below the floor (10), the last in the kernel" yes \
    "$(awk -v cur="$cur" '{ p = 100; ok = NF > 0; for (i = 1; i <= NF; i++) { w = int(p / 2); if (w < 10) w = 10; if ($i != w && $i != p * 2) ok = 0; p = $i } print (ok && p == cur) ? "yes" : "no" }' <<<"$steps")"
  check_range "guard: steps back undone while the build runs (the calm wait doubles each time)" 0 2 \
    "$(awk '{ n = 0; for (i = 2; i <= NF; i++) if ($i > $(i - 1)) n++; print n }' <<<"$steps")"
  # decided 2 s apart at least by the guard's clock; each record is the write's, in its turn after
  # the decision, so a first write that waited may come a little later: 1.9 s
  gaps=$(guard_steps "$GB" __REALTIME_TIMESTAMP |
    awk 'NR > 1 { d = ($1 - p) / 1e6; if (m == "" || d < m) m = d } { p = $1 } END { printf "%.2f", (m == "" ? 99 : m) }')
  check_range "guard: at most one change of the build per 2 s (shortest gap, s)" 1.9 1000 "$gaps"
  check_has "guard: the reason names the focused app's pressure" "CPU pressure of the focused app" \
    "$(guard_steps "$GB" RC_REASON | head -1)"
  check "guard: the idle app is not lowered" 100 "$(cat "$(cg "$GI")/cpu.weight")"
  check "guard: the focused app keeps its boost" 300 "$(cat "$(cg "$GF")/cpu.weight")"
  held=$(cl busctl --user get-property "$RC_NAME" "$RC_PATH" "$RC_IFACE" GuardHeld 2>&1)
  check "guard: GuardHeld" "a(ssu) 1 \"$GB\" \"org.example.GuardBuild\" $cur" "$held"
  out=$(cl resourcectl status 2>&1)
  check_has "guard: resourcectl status" "Guard holds back: org.example.GuardBuild ($GB) at CPUWeight $cur" "$out"
  out=$(journalctl --no-pager -o cat _SYSTEMD_USER_UNIT=resource-control.service 2>/dev/null)
  check "guard: the kernel took the PSI triggers (Debian 12's 6.1, the user's cgroups)" 0 \
    "$(grep -c 'no PSI trigger' <<<"$out")"
  check_has "guard: a trigger woke the guard" "is short of CPU" "$out"
  note "guard: the focused app's cpu.pressure, the build held at $cur: $(head -1 "$(cg "$GF")/cpu.pressure")"

  # the build's loops end: the pressure falls and the steps are given back, one per calm spell
  stops=$(guard_log_count 'no more checks')
  touch "$stop"
  wait_for 90 file_is "$(cg "$GB")/cpu.weight" 100
  check "guard: the build given back its weight" 100 "$(cat "$(cg "$GB")/cpu.weight")"
  out=$(guard_steps "$GB" RC_NEW | tr '\n' ' ' | sed 's/ $//')
  note "guard: the build's steps, down and back: $out"
  check "guard: given back by doubling, then let go at its weight" yes \
    "$(awk -v n="$(wc -w <<<"$steps")" '{ ok = NF > n; for (i = n + 1; i <= NF; i++) { w = (i < NF) ? $(i - 1) * 2 : 100; if ($i != w) ok = 0 } print ok ? "yes" : "no" }' <<<"$out")"
  held=$(cl busctl --user get-property "$RC_NAME" "$RC_PATH" "$RC_IFACE" GuardHeld 2>&1)
  check "guard: GuardHeld empty" "a(ssu) 0" "$held"
  # at rest: no more checks, though the focused app still spins (alone on its CPU, no pressure)
  wait_for 15 guard_log_grew 'no more checks' "$stops"
  check "guard: the checks stopped once all was given back" yes \
    "$(guard_log_grew 'no more checks' "$stops" && echo yes || echo no)"
  # (journald writes the daemon's lines a moment late under emulation: counted once it caught up)
  nap 3; n0=$(guard_log_count 'Guard: CPU pressure of'); daemon_switch_map > /tmp/rc-switches; nap 10
  n1=$(guard_log_count 'Guard: CPU pressure of')
  check "guard: no check in 10 s at rest" "$n0" "$n1"
  note "FIGURES guard at rest (the focused app busy alone): $(wakeups_since /tmp/rc-switches) daemon wake-ups in 10 s (goal 0)"
  usc stop -- "$GF" "$GB" "$GI" rc-test-sway-guard.scope
  session_env unset-environment SWAYSOCK WAYLAND_DISPLAY DISPLAY
  rm -f "$stop"
  note "section guard: $(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }') s"
}
