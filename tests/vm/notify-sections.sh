# SPDX-License-Identifier: LGPL-2.1-or-later
#
# notify-sections.sh - VM section of what the limits do: the kernel's memory.events and PSI figures in
# the records, AppChanged when memory.events changes, and the desktop notifications of an app killed
# for memory and of one held back by its MemoryHigh or its CPUQuota (sourced by system-test.sh, after its
# helpers). The notification of a systemd-oomd kill is checked in sec_oomd (slices-sections.sh).

# A notification server of the test's own on the test user's session bus: it logs every Notify with
# its CLOCK_MONOTONIC time.
NOTIFYD_PY='
import sys, time
from gi.repository import Gio, GLib
XML = """<node><interface name="org.freedesktop.Notifications">
<method name="Notify"><arg type="s" direction="in"/><arg type="u" direction="in"/>
<arg type="s" direction="in"/><arg type="s" direction="in"/><arg type="s" direction="in"/>
<arg type="as" direction="in"/><arg type="a{sv}" direction="in"/><arg type="i" direction="in"/>
<arg type="u" direction="out"/></method>
<method name="GetCapabilities"><arg type="as" direction="out"/></method>
<method name="CloseNotification"><arg type="u" direction="in"/></method>
<signal name="ActionInvoked"><arg type="u"/><arg type="s"/></signal>
<signal name="NotificationClosed"><arg type="u"/><arg type="u"/></signal>
</interface></node>"""
log = sys.stdout
count = [0]
def call(conn, sender, path, iface, method, params, inv):
    if method == "Notify":
        a = params.unpack()
        count[0] += 1
        log.write("notify %.6f id=%d app=%s icon=%s entry=%s urgency=%s summary=%s\n" % (
            time.monotonic(), count[0], a[0], a[2], a[6].get("desktop-entry"), a[6].get("urgency"), a[3]))
        log.flush()
        inv.return_value(GLib.Variant("(u)", (count[0],)))
    elif method == "GetCapabilities":
        inv.return_value(GLib.Variant("(as)", (["body", "actions"],)))
    else:
        inv.return_value(None)
bus = Gio.bus_get_sync(Gio.BusType.SESSION)
bus.register_object("/org/freedesktop/Notifications",
                    Gio.DBusNodeInfo.new_for_xml(XML).interfaces[0], call, None, None)
Gio.bus_own_name_on_connection(bus, "org.freedesktop.Notifications", 0,
                               lambda c, n: print("ready", flush=True), None)
GLib.MainLoop().run()
'
# WATCH_PY MEMORY.EVENTS LOG: the kernel's own word of an OOM kill, from poll () on memory.events
# (POLLPRI: the same cgroup_file_notify as inotify), with its CLOCK_MONOTONIC time and the figures
WATCH_PY='
import select, sys, time
f = open(sys.argv[1])
def read():
    f.seek(0)
    return dict(l.split() for l in f.read().splitlines() if l)
first = int(read().get("oom_kill", 0))
log = open(sys.argv[2], "a", buffering=1)
p = select.poll()
p.register(f, select.POLLPRI | select.POLLERR)
end = time.monotonic() + 120
while time.monotonic() < end:
    p.poll(20)
    now = read()
    if int(now.get("oom_kill", 0)) > first:
        log.write("oomkill %.6f %s\n" % (time.monotonic(), " ".join("%s=%s" % kv for kv in sorted(now.items()))))
        break
'
# grows past any MemoryMax, 1 MiB at a time
ALLOC_PY='
b = bytearray()
while True:
    b += bytearray(1 << 20)
'
# keeps 40 MiB and allocates and frees 8 MiB over and over: above a MemoryHigh of 32 MiB every new
# page is charged over it, for as long as it runs
CHURN_PY='
import time
keep = bytearray(40 << 20)
end = time.monotonic() + float(__import__("sys").argv[1])
while time.monotonic() < end:
    x = bytearray(8 << 20)
    del x
time.sleep(1000)
'

NOTIFY_LOG=
notifyd_up () {
  [ -z "$NOTIFY_LOG" ] || return 0
  NOTIFY_LOG=$OUT/notifyd.log
  : > "$NOTIFY_LOG"; chmod 666 "$NOTIFY_LOG"
  # written by this shell: the guest's user may not open files in the shared folder
  cl python3 -u -c "$NOTIFYD_PY" >> "$NOTIFY_LOG" 2> "$OUT/notifyd.err" &
  wait_for 15 grep -qx ready "$NOTIFY_LOG"
  check "test notification server on the session bus" 0 $?
}
notified () { grep -F -- "$1" "$NOTIFY_LOG" 2>/dev/null | grep -F -- "$2"; } # notified SUMMARY-PART NAME
events_line () { tr '\n' ' ' < "$1" | sed 's/ $//'; } # memory.events as one "name value ..." line
# the record's MemoryEvents of UNIT in the kernel's order, "name value ..."
record_events () {
  rc_json GetApp s "$1" | jq -r '.data[0][0].MemoryEvents.data | to_entries | map("\(.key) \(.value)") | join(" ")'
}

sec_notify () {
  login_session
  monitor_up
  notifyd_up
  # only this section's notifications are counted: the server may have been up since sec_oomd, and
  # sec_oom's kills were told to it (the server appends, so emptying the log is safe)
  : > "$NOTIFY_LOG"
  printf '[Desktop Entry]\nType=Application\nName=Memory Hog\nIcon=utilities-system-monitor\nExec=/usr/bin/sleep 1000\n' \
    > "$APPS_DIR/org.example.Hog.desktop"
  chown "$TUSER:" "$APPS_DIR/org.example.Hog.desktop"

  # 1. the record keys, as the kernel's files say
  local idle=app-rctest-org.example.Idle-1.scope
  start_scope "$idle" sleep 1000
  wait_for 30 all_active "$idle"
  local d; d=$(cg "$idle")
  check "kernel has memory.events" yes "$([ -f "$d/memory.events" ] && echo yes || echo no)"
  check "record MemoryEvents = the kernel's memory.events" "$(events_line "$d/memory.events")" "$(record_events "$idle")"
  local psi
  psi=$(rc_json GetApp s "$idle" | jq -r '.data[0][0] | [has("CPUPressure"), has("MemoryPressure"), has("IOPressure")] | map(tostring) | join(" ")')
  if [ -f "$d/cpu.pressure" ]; then
    check "record has the three pressures (PSI on)" "true true true" "$psi"
  else
    check "record has no pressure (PSI off)" "false false false" "$psi"
  fi

  # 2. killed for memory: the kernel's oom_kill, AppChanged, the Notify; and the time from the kill to
  # the Notify, over a few runs. OOMPolicy=continue and a sleep beside the allocator keep the unit, so
  # its record can be compared with the kernel's file after the kill.
  local i unit t_kill t_notify lat lats=() kernel
  for i in 1 2 3; do
    unit=app-rctest-org.example.Hog-$i.scope
    start_scope "$unit" -p MemoryMax=64M -p MemorySwapMax=0 -p OOMPolicy=continue -- \
      /bin/sh -c "sleep 1000 & exec sleep 1000"
    wait_for 30 all_active "$unit"
    d=$(cg "$unit")
    check "run $i: memory.max 64M" $((64 * MiB)) "$(cat "$d/memory.max")"
    : > "$OUT/oomwatch-$i.log"
    python3 -c "$WATCH_PY" "$d/memory.events" "$OUT/oomwatch-$i.log" &
    local watcher=$!
    nap 0.5
    # the allocator in the app's cgroup, as a process the app started
    ( echo "$BASHPID" > "$d/cgroup.procs" && exec "$AU" python3 -c "$ALLOC_PY" ) > /dev/null 2>&1 &
    wait "$watcher"
    t_kill=$(awk '$1 == "oomkill" { print $2 }' "$OUT/oomwatch-$i.log")
    check "run $i: the kernel's oom_kill rose" yes "$([ -n "$t_kill" ] && echo yes || echo no)"
    wait_for 15 notified "ran out of memory" "app=Resource Control" > /dev/null
    t_notify=$(grep -F "ran out of memory" "$NOTIFY_LOG" | sed -n "${i}p" | awk '{ print $2 }')
    check "run $i: Notify for the kill" yes "$([ -n "$t_notify" ] && echo yes || echo no)"
    if [ -n "$t_kill" ] && [ -n "$t_notify" ]; then
      lat=$(awk -v a="$t_kill" -v b="$t_notify" 'BEGIN { printf "%.1f", (b - a) * 1000 }')
      lats+=("$lat")
      note "run $i: oom_kill -> Notify $lat ms"
    fi
    if [ "$i" = 1 ]; then
      kernel=$(events_line "$d/memory.events")
      note "kernel memory.events after the kill: $kernel"
      check_has "kernel oom_kill >= 1" "oom_kill 1" "$kernel"
      check "record MemoryEvents = the kernel's file after the kill" "$kernel" "$(record_events "$unit")"
      wait_for 15 grep -qF "AppChanged ('$unit', {'MemoryEvents': <{'low'" "$OUT/monitor.log"
      check "AppChanged with MemoryEvents seen by a client" 0 $?
      check_has "AppChanged carries oom_kill 1" "'oom_kill': 1" \
        "$(grep -F "AppChanged ('$unit', {'MemoryEvents'" "$OUT/monitor.log" | tail -1)"
      local line; line=$(grep -F "ran out of memory" "$NOTIFY_LOG" | head -1)
      check_has "Notify names the app" "summary=Memory Hog ran out of memory" "$line"
      check_has "Notify has the app's icon" "icon=utilities-system-monitor" "$line"
      check_has "Notify has the desktop entry" "entry=org.example.Hog" "$line"
    fi
    usc stop -- "$unit" 2>/dev/null
  done
  check "one Notify per killed instance" 3 "$(grep -cF "ran out of memory" "$NOTIFY_LOG")"
  if [ "${#lats[@]}" -gt 0 ]; then
    echo "== figure: OOM kill (kernel oom_kill) -> Notify on the bus, p50 of ${#lats[@]}: $(printf '%s\n' "${lats[@]}" | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }') ms (runs: ${lats[*]} ms)"
  fi

  # 3. held back by its own MemoryHigh: the kernel's high counter rises for as long as the app pushes;
  # an app without a MemoryHigh never moves it
  local held=app-rctest-org.example.Hog-held.scope h0 h1 i0 i1
  start_scope "$held" -p MemoryHigh=32M -p MemoryMax=256M -p MemorySwapMax=0 -- python3 -c "$CHURN_PY" 40
  wait_for 30 all_active "$held"
  d=$(cg "$held")
  wait_for 20 sh -c "[ \$(awk '\$1 == \"high\" { print \$2 }' '$d/memory.events') -gt 0 ]"
  h0=$(awk '$1 == "high" { print $2 }' "$d/memory.events"); i0=$(awk '$1 == "high" { print $2 }' "$(cg "$idle")/memory.events")
  sleep 4
  h1=$(awk '$1 == "high" { print $2 }' "$d/memory.events"); i1=$(awk '$1 == "high" { print $2 }' "$(cg "$idle")/memory.events")
  check "kernel's high rises for the app at its MemoryHigh" yes "$([ "$h1" -gt "$h0" ] && echo yes || echo no)"
  check "an app without MemoryHigh: high stays" "$i0" "$i1"
  echo "== figure: memory.events high at MemoryHigh=32M (40 MiB kept, 8 MiB churned): $(( (h1 - h0) / 4 )) events/s; an idle app without MemoryHigh: $(( (i1 - i0) / 4 )) events/s"
  wait_for 15 grep -qF "AppChanged ('$held', {'MemoryEvents'" "$OUT/monitor.log"
  check "AppChanged with the rising high seen by a client" 0 $?
  local n_changed
  n_changed=$(grep -cF "AppChanged ('$held', {'MemoryEvents'" "$OUT/monitor.log")
  note "AppChanged of the held-back app so far: $n_changed"
  wait_for 30 notified "held back" "Memory Hog" > /dev/null
  check "held-back Notify" 1 "$(grep -F "held back" "$NOTIFY_LOG" | grep -cF "Memory Hog")"
  usc stop -- "$held" "$idle" 2>/dev/null

  # 4. held back by its own CPUQuota: the kernel throttles a busy app with a quota (cpu.stat), its
  # cpu.pressure rises, and the daemon's PSI trigger on that file wakes it; an app without a quota
  # gets no trigger
  printf '[Desktop Entry]\nType=Application\nName=Busy Loop\nExec=/bin/sh\n' > "$APPS_DIR/org.example.Busy.desktop"
  printf '[Desktop Entry]\nType=Application\nName=Free Loop\nExec=/bin/sh\n' > "$APPS_DIR/org.example.Free.desktop"
  chown "$TUSER:" "$APPS_DIR/org.example.Busy.desktop" "$APPS_DIR/org.example.Free.desktop"
  local busy=app-rctest-org.example.Busy-1.scope free=app-rctest-org.example.Free-1.scope t_start t_held n0 n1
  t_start=$(awk '{ print $1 }' /proc/uptime)
  start_scope "$busy" -p CPUQuota=10% -- taskset -c 0 /bin/sh -c 'while :; do :; done'
  # beside it on the same CPU, a busy app without a quota: short of CPU too, but no limit holds it back
  start_scope "$free" -- taskset -c 0 /bin/sh -c 'while :; do :; done'
  wait_for 30 all_active "$busy" "$free"
  d=$(cg "$busy")
  check "cpu.max of the app: 10% of one CPU" "10000 100000" "$(cat "$d/cpu.max")"
  n0=$(awk '$1 == "nr_throttled" { print $2 }' "$d/cpu.stat"); sleep 2
  n1=$(awk '$1 == "nr_throttled" { print $2 }' "$d/cpu.stat")
  check "kernel throttles it (cpu.stat nr_throttled rises)" yes "$([ "$n1" -gt "$n0" ] && echo yes || echo no)"
  check "the daemon holds a PSI trigger on its cpu.pressure, none on the other's" "1 0" \
    "$(trigger_fds "$d") $(trigger_fds "$(cg "$free")")"
  note "cpu.pressure of the app: $(head -1 "$d/cpu.pressure")"
  wait_for 40 notified "held back by its CPU limit" "Busy Loop" > /dev/null
  check "held back by its CPU limit: one Notify" 1 "$(grep -F "held back by its CPU limit" "$NOTIFY_LOG" | grep -cF "Busy Loop")"
  t_held=$(awk '{ print $1 }' /proc/uptime)
  echo "== figure: a busy app at CPUQuota=10% -> held-back Notify after $(awk -v a="$t_start" -v b="$t_held" 'BEGIN { printf "%.0f", b - a }') s (goal: the ${RC_HELD_BACK_SUSTAIN_SEC:-10} s spell, plus a PSI window of 2 s)"
  note "cpu.pressure of the app without a quota: $(head -1 "$(cg "$free")/cpu.pressure")"
  check "no CPU held-back Notify for the app without a quota" 0 "$(grep -F "held back by its CPU limit" "$NOTIFY_LOG" | grep -cF "Free Loop")"
  usc stop -- "$busy" "$free" 2>/dev/null
  check "daemon kept running" "$DAEMON_PID" "$(usc show -P MainPID resource-control.service)"

  if [ "$FOCUS_FIGURES" = 1 ]; then
    # idle with every watch of this section armed: an app with a quota (its PSI trigger) and a
    # MemoryHigh, resting
    local rest=app-rctest-org.example.Busy-2.scope
    quiet_daemon on
    start_scope "$rest" -p CPUQuota=10% -p MemoryHigh=64M -- sleep 1000
    wait_for 30 all_active "$rest"
    nap 20
    note "the daemon's PSI triggers on the resting app: $(trigger_fds "$(cg "$rest")")"
    daemon_switch_map > /tmp/rc-switches; nap 60
    note "FIGURES idle with a PSI trigger, memory.events and folder watches armed: $(wakeups_since /tmp/rc-switches) daemon wake-ups in 60 s (goal 0)"
    quiet_daemon off
    usc stop -- "$rest" 2>/dev/null
  fi
}
# trigger_fds CGROUP_DIR: how many of the daemon's fds are open for writing on that cgroup's
# cpu.pressure (a PSI trigger; the fd its record reads keep is read-only)
trigger_fds () {
  local pid fd flags n=0
  pid=$(usc show -P MainPID resource-control.service)
  for fd in /proc/"$pid"/fd/*; do
    [ "$(readlink "$fd")" = "$1/cpu.pressure" ] || continue
    flags=$(awk '$1 == "flags:" { print $2 }' "/proc/$pid/fdinfo/${fd##*/}")
    (( (flags & 3) == 2 )) && n=$((n + 1))   # O_RDWR (flags is octal, with its leading 0)
  done
  echo "$n"
}

# ---------------------------------------------------------------------------------------------------
# the energy ledger: python-dbusmock's UPower on the VM's real system bus plays a discharging
# battery at a steady 10 W and is "polled" every 5 s (its PropertiesChanged, as UPower's own polls
# send it); three real apps pinned to CPU 0 at about 25, 50 and 100 % of it for 40 s. Each app's
# share of the energy must be its share of the busy CPU time (cpu.stat against /proc/stat over the
# same window) within 10 %. The power drain notification: a rule PowerDrain=25%/20s; the unfocused
# 100 % app (about half the power) is told once, to the notification server of section "notify";
# the focused 50 % app (about a third) and the 25 % app (about an eighth) are not.
DRAIN_RULES=$THOME/.config/resource-control/rules.d/40-rc-test-drain.conf
UPOWER_CONF=/etc/dbus-1/system.d/rc-test-upower.conf
UPOWER_DISPLAY=/org/freedesktop/UPower/devices/DisplayDevice
upower_set () { # upower_set N KEY TYPE VALUE...: dbusmock's UpdateProperties on the DisplayDevice
  busctl call org.freedesktop.UPower "$UPOWER_DISPLAY" org.freedesktop.DBus.Mock UpdateProperties \
    'sa{sv}' org.freedesktop.UPower.Device "$@"
}
busy_stat () { awk '$1 == "cpu" { print ($2 + $3 + $4 + $7 + $8 + $9) * 10000 }' /proc/stat; }  # µs, USER_HZ 100
duty () { # a loop busy for $1 ms of every 100 ms
  echo "import time
while True:
    t = time.monotonic()
    while time.monotonic() - t < $1 / 1000: pass
    time.sleep((100 - $1) / 1000)"
}
energy_source () { cl resourcectl status 2>/dev/null | awk '/^Energy source:/ { print $3 }'; }
energy_source_is () { [ "$(energy_source)" = "$1" ]; }
energy_of () { # energy_of JSON APPID KEY: a number of GetEnergyUsage's reply
  jq -r --arg a "$2" --arg k "$3" '.data[0][] | select(.AppId.data == $a) | .[$k].data' <<< "$1"
}

sec_energy () {
  login_session
  local a='app-gnome-org.example.Energy25-1.scope' b='app-gnome-org.example.Energy50-1.scope'
  local c='app-gnome-org.example.Energy100-1.scope' mock json json2 total system sum u
  local -A before after
  printf '<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-BUS Bus Configuration 1.0//EN" "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">\n<busconfig><policy user="root"><allow own="org.freedesktop.UPower"/></policy><policy context="default"><allow send_destination="org.freedesktop.UPower"/></policy></busconfig>\n' > "$UPOWER_CONF"
  busctl call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus ReloadConfig
  /usr/bin/python3 -m dbusmock --system --template upower > "$OUT/upower-mock.log" 2>&1 &
  mock=$!
  wait_for 30 busctl status org.freedesktop.UPower
  wait_for 15 energy_source_is none
  check "no battery yet: no energy source" none "$(energy_source)"
  notifyd_up
  mkdir -p "$(dirname "$DRAIN_RULES")"
  printf '[Notify]\nPowerDrain=25%%/20s\n' > "$DRAIN_RULES"
  chown -R "$TUSER:" "$THOME/.config/resource-control"
  # a folder that was not there when the daemon started is not watched: read it anew
  usc restart resource-control.service
  wait_for 30 sh -c "'$AU' busctl --user status $RC_NAME > /dev/null 2>&1"
  DAEMON_PID=$(usc show -P MainPID resource-control.service)   # restarted on purpose: the later checks' daemon

  start_scope "$a" taskset -c 0 python3 -c "$(duty 25)"
  start_scope "$b" taskset -c 0 python3 -c "$(duty 50)"
  start_scope "$c" taskset -c 0 sh -c "$(busy)"
  wait_for 30 all_active "$a" "$b" "$c"
  call "SetForegroundApp Energy50" OK SetForegroundApp org.example.Energy50
  nap 2
  # the battery starts to discharge: the ledger's baseline
  # (the CPU times read at once: the ledger's window starts at this sample and ends at the last one,
  # and the shares are compared over the same window)
  upower_set 5 Type u 2 IsPresent b true State u 2 EnergyRate d 10 Energy d 50 > /dev/null
  for u in "$a" "$b" "$c"; do before[$u]=$(usage_us "$(cg "$u")"); done
  before[machine]=$(busy_stat)
  wait_for 15 energy_source_is upower
  check "a discharging battery: the energy source is UPower" upower "$(energy_source)"
  for i in $(seq 8); do   # 40 s: twice the rule's 20 s
    nap 5
    upower_set 1 Energy d "$((50 - i)).0" > /dev/null
  done
  for u in "$a" "$b" "$c"; do after[$u]=$(usage_us "$(cg "$u")"); done
  after[machine]=$(busy_stat)
  wait_for 15 notified "draining the battery" "Energy100" > /dev/null
  check "power drain: one Notify for the unfocused 100 % app" 1 \
    "$(grep -F "draining the battery" "$NOTIFY_LOG" | grep -cF "summary=org.example.Energy100 ")"
  check_has "power drain: the Notify has the desktop entry" "entry=org.example.Energy100" \
    "$(grep -F "draining the battery" "$NOTIFY_LOG" | grep -F Energy100 | head -1)"
  check "power drain: none for the focused app or the 25 % one" 0 \
    "$(grep -F "draining the battery" "$NOTIFY_LOG" | grep -cE "Energy50|Energy25")"
  check "power drain: an action record entry" 1 \
    "$(cl resourcectl log 2>/dev/null | grep -cF "used much of the battery's power in the background")"
  nap 1
  json=$(rc_json GetEnergyUsage t 0)
  total=$(jq -r '.data[1].Energy.data' <<< "$json")
  system=$(jq -r '.data[1].SystemEnergy.data' <<< "$json")
  note "energy: total $total J, system $system J; $(cl resourcectl energy | tr '\n' '|')"
  for u in "$a" "$b" "$c"; do
    local id=${u#app-gnome-}; id=${id%-1.scope}
    local cpu_share energy_share
    cpu_share=$(awk -v d=$((after[$u] - before[$u])) -v m=$((after[machine] - before[machine])) 'BEGIN { printf "%.4f", d / m }')
    energy_share=$(energy_of "$json" "$id" Share)
    note "$id: CPU share $cpu_share, energy share $energy_share"
    check_range "$id: energy share within 10 % of its CPU share ($cpu_share)" \
      "$(awk -v s="$cpu_share" 'BEGIN { print s * 0.9 }')" "$(awk -v s="$cpu_share" 'BEGIN { print s * 1.1 }')" "$energy_share"
  done
  sum=$(jq -r '[.data[0][].Energy.data] | add' <<< "$json")
  check_range "apps + system = total within 1 %" 0.99 1.01 "$(awk -v s="$sum" -v y="$system" -v t="$total" 'BEGIN { if (t > 0) printf "%.4f", (s + y) / t }')"
  check "the focused app's energy is all foreground" 0 "$(energy_of "$json" org.example.Energy50 BackgroundEnergy)"
  check_range "the focused app has foreground energy" 0.001 1000000 "$(energy_of "$json" org.example.Energy50 ForegroundEnergy)"
  check "an unfocused app has no foreground energy" 0 "$(energy_of "$json" org.example.Energy100 ForegroundEnergy)"
  # the history is still there after a restart
  usc restart resource-control.service
  wait_for 30 sh -c "'$AU' busctl --user status $RC_NAME > /dev/null 2>&1"
  DAEMON_PID=$(usc show -P MainPID resource-control.service)   # restarted on purpose: the later checks' daemon
  json2=$(rc_json GetEnergyUsage t 0)
  check_range "history after a daemon restart: the 100 % app's energy (was $(energy_of "$json" org.example.Energy100 Energy))" \
    "$(awk -v e="$(energy_of "$json" org.example.Energy100 Energy)" 'BEGIN { print e - 0.01 }')" \
    "$(awk -v e="$(energy_of "$json" org.example.Energy100 Energy)" 'BEGIN { print e + 0.01 }')" \
    "$(energy_of "$json2" org.example.Energy100 Energy)"
  call "SetForegroundApp none" OK SetForegroundApp "''"
  usc stop "$a" "$b" "$c"
  kill "$mock"; wait "$mock" 2>/dev/null
  rm -f "$UPOWER_CONF" "$DRAIN_RULES"
  busctl call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus ReloadConfig
}
