# SPDX-License-Identifier: LGPL-2.1-or-later
#
# launch-sections.sh - VM sections of Launch, Adopt and which app a process is
# (sourced by system-test.sh, after its helpers; lib.sh's helpers).

# ---------------------------------------------------------------------------------------------------
# launching and adopting: apps into units of their own on desktops that do not put them there

LAUNCHED_OUT=/tmp/rc-launched      # the test app writes what it saw here, one file per start
# the test app: what it was given, its display, and its own cgroup's files as it first reads them
make_launch_apps () {
  mkdir -p "$LAUNCHED_OUT" && chown "$TUSER:" "$LAUNCHED_OUT"
  cat > /usr/local/bin/rc-launched-app <<'APP'
#!/bin/sh
cg=$(sed -n 's/^0:://p' /proc/self/cgroup)
f=/tmp/rc-launched/$$
{ echo "cpu.weight=$(cat /sys/fs/cgroup$cg/cpu.weight)"; echo "memory.max=$(cat /sys/fs/cgroup$cg/memory.max)"
  echo "cgroup=$cg"; echo "WAYLAND_DISPLAY=$WAYLAND_DISPLAY"; echo "pwd=$(pwd)"
  for a in "$@"; do echo "arg=$a"; done; } > "$f.tmp"
mv "$f.tmp" "$f"
exec sleep infinity
APP
  chmod 755 /usr/local/bin/rc-launched-app
  cp /usr/bin/sleep /usr/local/bin/rc-writer
  cp /usr/bin/sleep /usr/local/bin/rc-mystery
  printf '[Desktop Entry]\nType=Application\nName=Launched\nIcon=launched\nExec=rc-launched-app --name %%c %%U\n' \
    > "$APPS_DIR/org.example.Launched.desktop"
  printf '[Desktop Entry]\nType=Application\nName=Term App\nTerminal=true\nExec=rc-launched-app\n' \
    > "$APPS_DIR/org.example.TermApp.desktop"
  printf '[Desktop Entry]\nType=Application\nName=Painter\nExec=/usr/bin/sleep 1000\n' \
    > "$APPS_DIR/org.example.Painter.desktop"
  printf '[Desktop Entry]\nType=Application\nName=Writer\nExec=rc-writer %%F\n' > "$APPS_DIR/org.example.Writer.desktop"
  # the probe: what its process may do (network, W+X memory, user namespaces), its sandbox, limits,
  # umask, cgroup and arguments, into the file named by its first argument
  cat > /usr/local/bin/rc-probe <<'PROBE'
#!/usr/bin/python3
import ctypes, errno, mmap, os, resource, socket, sys, time
def err(e):
    return errno.errorcode.get(e, str(e))
r = []
try:
    socket.socket(socket.AF_INET, socket.SOCK_STREAM).close(); r.append('inet=ok')
except OSError as e:
    r.append('inet=' + err(e.errno))
try:
    mmap.mmap(-1, 4096, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC).close(); r.append('wx=ok')
except OSError as e:
    r.append('wx=' + err(e.errno))
pid = os.fork()
if pid == 0:
    libc = ctypes.CDLL(None, use_errno=True)
    os._exit(0 if libc.unshare(0x10000000) == 0 else min(ctypes.get_errno(), 255))
code = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
r.append('userns=' + ('ok' if code == 0 else err(code)))
status = dict(l.split(':', 1) for l in open('/proc/self/status') if ':' in l)
r += ['NoNewPrivs=' + status['NoNewPrivs'].strip(), 'Seccomp=' + status['Seccomp'].strip()]
r.append('nofile=%d:%d' % resource.getrlimit(resource.RLIMIT_NOFILE))
r.append('umask=%04o' % os.umask(0))
cg = [l[3:].strip() for l in open('/proc/self/cgroup') if l.startswith('0::')][0]
with open(sys.argv[1] + '.tmp', 'w') as f:
    f.write(' '.join(r) + '\ncgroup=' + cg + '\nargs=' + '|'.join(sys.argv[1:]) + '\n')
os.rename(sys.argv[1] + '.tmp', sys.argv[1])
time.sleep(float(os.environ.get('RC_PROBE_HOLD', '3')))   # launched apps stay until listed
PROBE
  chmod 755 /usr/local/bin/rc-probe
  printf '[Desktop Entry]\nType=Application\nName=Probe\nExec=rc-probe %%f\n' > "$APPS_DIR/org.example.Probe.desktop"
  printf '[Desktop Entry]\nType=Application\nName=$HOME\nExec=rc-probe %%f %%c\n' > "$APPS_DIR/org.example.Dollar.desktop"
  chown -R "$TUSER:" "$APPS_DIR"
}
launched_file () { # launched_file UNIT: the output of the test app in UNIT
  local pid; read -r pid 2>/dev/null < "$(cg "$1")/cgroup.procs"; echo "$LAUNCHED_OUT/${pid:-none}"
}
has_file () { [ -s "$1" ]; }
units_like () { usc list-units --all --plain --no-legend "$1" 2>/dev/null | awk '{ print $1 }' | paste -sd' '; }

sec_launch () {
  login_session
  make_launch_apps
  printf '[org.example.Launched]\nCPUWeight=40\nMemoryMax=768M\n' | as_user_write "$USR_RULES/60-launch.conf"
  wait_for 15 rule_is org.example.Launched CPUWeight 40

  # a service, with field codes, URIs, the caller's display and folder
  local unit out f
  out=$(cl env WAYLAND_DISPLAY=wayland-9 sh -c 'cd /tmp && resourcectl run --launcher sway org.example.Launched "a b.txt" https://example.org/x' 2>&1)
  unit=$(printf '%s\n' "$out" | tail -1)
  check "run: unit named app-sway-AppID@16hex.service" yes \
    "$([[ $unit =~ ^app-sway-org\.example\.Launched@[0-9a-f]{16}\.service$ ]] && echo yes || echo "no: $out")"
  check "run: the unit is active when run returns" active "$(usc is-active -- "$unit" 2>&1)"
  check "run: Description and SourcePath" "Launched $APPS_DIR/org.example.Launched.desktop" \
    "$(usc show -P Description -- "$unit") $(usc show -P SourcePath -- "$unit")"
  check "run: in app.slice" app.slice "$(usc show -P Slice -- "$unit")"
  rc_json GetApp s "$unit" | flat > "$OUT/launched.flat"
  check "run: listed, its name parsed back" "org.example.Launched sway Launched launched" \
    "$(for k in AppId Launcher Name Icon; do field "$OUT/launched.flat" "$unit" "$k"; done | paste -sd' ')"
  f=$(launched_file "$unit")
  wait_for 10 has_file "$f"
  check "run: argv with %c and %U expanded" "arg=--name arg=Launched arg=file:///tmp/a%20b.txt arg=https://example.org/x" \
    "$(grep '^arg=' "$f" 2>&1 | paste -sd' ')"
  check "run: the caller's display and folder reach the app" "WAYLAND_DISPLAY=wayland-9 pwd=/tmp" \
    "$(grep -E '^(WAYLAND_DISPLAY|pwd)=' "$f" 2>&1 | paste -sd' ')"
  # the rule is in the kernel's files before the app's first instruction: no gap at all
  check "run: the rule's cpu.weight and memory.max at the app's first read" "cpu.weight=40 memory.max=805306368" \
    "$(grep -E '^(cpu.weight|memory.max)=' "$f" 2>&1 | paste -sd' ')"
  note "rule gap with Launch: none (the app's own first read of its cgroup had cpu.weight 40, memory.max 768M)"
  call "SetWeight on a launched app" OK SetWeight "$unit" "uint64 300"
  check "cpu.weight after SetWeight" 300 "$(cat "$(cg "$unit")/cpu.weight")"
  usc stop -- "$unit"

  # a scope in background.slice with a limit of the call: held until it is in its scope
  out=$(cl resourcectl run --scope --background --set CPUWeight=50 org.example.Launched 2>&1)
  unit=$(printf '%s\n' "$out" | tail -1)
  check "run --scope: unit named app-rc-AppID-16hex.scope" yes \
    "$([[ $unit =~ ^app-rc-org\.example\.Launched-[0-9a-f]{16}\.scope$ ]] && echo yes || echo "no: $out")"
  check "run --background: in background.slice" background.slice "$(usc show -P Slice -- "$unit" 2>&1)"
  f=$(launched_file "$unit")
  wait_for 10 has_file "$f"
  check "run --scope: --set and the rule at the app's first read" "cpu.weight=50 memory.max=805306368" \
    "$(grep -E '^(cpu.weight|memory.max)=' "$f" 2>&1 | paste -sd' ')"
  check_has "run --scope: the app ran inside its scope" "background.slice/$unit" "$(grep '^cgroup=' "$f" 2>&1)"
  usc stop -- "$unit"

  # errors: nothing starts
  local before
  before=$(units_like 'app-*Launched*')
  call "Launch an unknown desktop ID" NoSuchApp Launch org.example.NoSuch '@as []' '@a{sv} {}'
  call "Launch a Terminal=true app" NotSupported Launch org.example.TermApp '@as []' '@a{sv} {}'
  call "Launch a bad option" InvalidArgument Launch org.example.Launched '@as []' "{'Kind': <'vm'>}"
  check_has "the error names the option" Kind "$(last_message)"
  polkit_rule launch NO
  polkit_wait launch 1
  call "Launch refused by a polkit deny rule" NotAuthorized Launch org.example.Launched '@as []' '@a{sv} {}'
  polkit_rule none
  polkit_wait launch 0
  check "nothing started by the refused calls" "$before" "$(units_like 'app-*Launched*')"

  launch_context
  launch_window
  launch_hostile_files
}

# Files any app of the user can put where the daemon reads: a FIFO named as an app's desktop file in
# the user's applications folder, and a FIFO in place of a transient unit's file. The daemon still
# answers and lists the apps (the code before the bounded reads hung at the first such file).
listed_unit () { rc_json GetApp s "$1" > /dev/null 2>&1; }
launch_hostile_files () {
  local fifo_unit=app-rc-org.example.FifoApp-1.scope painter_unit=app-rc-org.example.Painter-77.scope
  local transient=/run/user/$U/systemd/transient/$painter_unit
  mkfifo "$APPS_DIR/org.example.FifoApp.desktop" && chown "$TUSER:" "$APPS_DIR/org.example.FifoApp.desktop"
  start_scope "$fifo_unit" sleep 1000
  wait_for 15 all_active "$fifo_unit"
  wait_for 15 listed_unit "$fifo_unit"
  rc_json GetApp s "$fifo_unit" | flat > "$OUT/fifo-app.flat"
  check "a FIFO as the app's desktop file: listed, its AppID as Name" org.example.FifoApp \
    "$(field "$OUT/fifo-app.flat" "$fifo_unit" Name)"
  # a transient unit file made a FIFO, read by a daemon starting anew
  start_scope "$painter_unit" sleep 1000
  wait_for 15 all_active "$painter_unit"
  wait_for 15 test -f "$transient"
  rm -f "$transient" && mkfifo "$transient" && chown "$TUSER:" "$transient"
  usc restart resource-control.service
  wait_for 15 all_active resource-control.service
  DAEMON_PID=$(usc show -P MainPID resource-control.service)
  call "a FIFO as a transient unit's file: the restarted daemon answers" OK ListApps
  rc_json ListApps | flat > "$OUT/fifo-transient.flat"
  check "a FIFO as a transient unit's file: both apps listed with their names" "Painter org.example.FifoApp" \
    "$(field "$OUT/fifo-transient.flat" "$painter_unit" Name) $(field "$OUT/fifo-transient.flat" "$fifo_unit" Name)"
  usc stop -- "$fifo_unit" "$painter_unit"
  rm -f "$APPS_DIR/org.example.FifoApp.desktop" "$transient"
}

# launch_helper_scope APP_ID FILE: Launch with Kind "scope" and no CallerPid (a panel's or shell's call):
# the daemon's launch helper starts the app in its scope
launch_helper_scope () {
  cl gdbus call --session --dest org.example.ResourceControl --object-path /org/example/ResourceControl \
    --method org.example.ResourceControl.Launch "$1" "['$2']" "{'Kind': <'scope'>}"
}
probe_out () { # probe_out FILE: the probe's first line (what it may do), once written
  wait_for 20 has_file "$1"; head -1 "$1" 2>&1
}
# Apps run as `systemd-run --user` runs them: Kind=scope as under --scope, Kind=service as a plain
# transient service; never with the daemon's own sandbox (RestrictAddressFamilies=AF_UNIX,
# MemoryDenyWriteExecute, RestrictNamespaces, NoNewPrivileges, the seccomp filter, UMask=0077 and the
# daemon's RLIMIT_NOFILE).
launch_context () {
  local P=$LAUNCHED_OUT/probe out unit
  rm -f "$P".*
  launch_helper_scope org.example.Probe "$P.scope" > "$OUT/probe-scope.txt" 2>&1
  cl resourcectl run org.example.Probe "$P.service" > "$OUT/probe-service.txt" 2>&1
  # systemd-run --scope runs the app with its caller's limits: here from a user service, as a desktop's
  # terminal (a unit of the user's manager) runs it; from this test's system service (the tty-scope note)
  # the hard RLIMIT_NOFILE is the system manager's instead. resourcectl run --scope joins its scope as
  # systemd-run --scope does and starts the app there: run from the same place.
  cl systemd-run --user --quiet --wait -E RC_PROBE_HOLD=0 /bin/sh -c \
    "systemd-run --user --scope --quiet /usr/local/bin/rc-probe $P.run-scope" > /dev/null 2>&1
  cl systemd-run --user --quiet --wait -E RC_PROBE_HOLD=0 /bin/sh -c \
    "resourcectl run --scope org.example.Probe $P.cli-scope > $P.cli-scope.out 2>&1" > /dev/null 2>&1
  cl env RC_PROBE_HOLD=0 systemd-run --user --scope --quiet /usr/local/bin/rc-probe "$P.tty-scope" > /dev/null 2>&1
  cl systemd-run --user --quiet -E RC_PROBE_HOLD=0 /usr/local/bin/rc-probe "$P.run-service" > /dev/null 2>&1
  local k
  for k in scope cli-scope service run-scope tty-scope run-service; do note "probe $k: $(probe_out "$P.$k") $(grep '^cgroup=' "$P.$k" 2>&1)"; done
  check "Launch Kind=scope: the app may do what it may under systemd-run --user --scope" \
    "$(probe_out "$P.run-scope")" "$(probe_out "$P.scope")"
  check "run --scope: the app may do what it may under systemd-run --user --scope" \
    "$(probe_out "$P.run-scope")" "$(probe_out "$P.cli-scope")"
  check "Launch Kind=service: the app may do what it may under systemd-run --user" \
    "$(probe_out "$P.run-service")" "$(probe_out "$P.service")"
  unit=$(grep -o "app-rc-[^']*\\.scope" "$OUT/probe-scope.txt")
  check "Launch Kind=scope: the probe ran in its scope" "cgroup=/user.slice/user-$U.slice/user@$U.service/app.slice/$unit" \
    "$(grep '^cgroup=' "$P.scope" 2>&1)"
  check "Launch Kind=scope: the launch helper's service is gone" "" "$(units_like 'resource-control-launch-*')"
  unit=$(tail -1 "$P.cli-scope.out")
  check "run --scope: the probe ran in its scope, which took in the process that made the call" \
    "cgroup=/user.slice/user-$U.slice/user@$U.service/app.slice/$unit" "$(grep '^cgroup=' "$P.cli-scope" 2>&1)"

  # $ and % in arguments reach the app as they are (systemd would expand $HOME in ExecStart)
  local d="$LAUNCHED_OUT/d\${HOME}\$HOME%h"
  cl resourcectl run org.example.Dollar "$d" > "$OUT/probe-dollar.txt" 2>&1
  wait_for 20 has_file "$d"
  check "Launch Kind=service: \$, \${} and % in arguments reach the app verbatim" "args=$d|\$HOME" \
    "$(grep '^args=' "$d" 2>&1)"
}

helper_state () { # helper_state PID: the process state letter (T: stopped)
  local st; read -r st < "/proc/$1/stat" 2>/dev/null; st=${st##*) }; echo "${st%% *}"
}
# daemon_test_hooks on|off: the daemon run with --test-hooks (which it passes on to its launch helper)
# or as installed. On restarts it at once; off takes effect at its next start.
daemon_test_hooks () {
  local f=/etc/systemd/user/resource-control.service.d/96-launch-test-hooks.conf exec_start
  if [ "$1" = on ]; then
    exec_start=$(sed -n 's/^ExecStart=//p' /usr/lib/systemd/user/resource-control.service)
    printf '[Service]\nExecStart=\nExecStart=%s --test-hooks\n' "$exec_start" > "$f"
    usc daemon-reload
    usc restart resource-control.service
    wait_for 15 all_active resource-control.service
  else
    rm -f "$f"
    usc daemon-reload
  fi
}
# The window between the held process and its scope: the test hook stops the helper there; the daemon
# killed then changes nothing, the helper killed then leaves no app running, in or out of a scope.
# The hook is in the manager's environment, which any process of the user can set: the installed
# daemon's helper ignores it; only a daemon run with --test-hooks (this part's drop-in) has it followed.
launch_window () {
  local P=$LAUNCHED_OUT/window helper held dpid
  rm -f "$P".*
  usc set-environment RC_SCOPE_HELPER_TEST_PAUSE=before-start
  find_stopped_helper () {
    helper=$(pgrep -o -u "$U" -f '^/usr/libexec/resource-control-scope-helper')
    [ -n "$helper" ] && [ "$(helper_state "$helper")" = T ]
  }
  # 0. the daemon as installed: the hook set in the manager's environment stops nothing
  launch_helper_scope org.example.Probe "$P.no-hooks" > "$OUT/window-0.txt" 2>&1
  check "installed daemon: the manager's RC_SCOPE_HELPER_TEST_PAUSE does not stop its helper, the app ran in its scope" yes \
    "$(wait_for 20 has_file "$P.no-hooks" && grep -qE '^cgroup=.*/app\.slice/app-rc-org\.example\.Probe-[0-9a-f]{16}\.scope$' "$P.no-hooks" && echo yes || echo "no: $(cat "$OUT/window-0.txt" "$P.no-hooks" 2>&1)")"
  daemon_test_hooks on
  # 1. the daemon SIGKILLed while the app's process is held: the helper goes on, the app runs in its scope
  ( launch_helper_scope org.example.Probe "$P.daemon-killed" > "$OUT/window-1.txt" 2>&1 & )
  if wait_for 30 find_stopped_helper; then
    held=$(pgrep -P "$helper" | head -1)
    dpid=$(usc show -P MainPID resource-control.service)
    kill -KILL "$dpid"
    check "daemon killed while the app is held: held, not the app yet" "resource-contro" "$(cat "/proc/$held/comm" 2>&1)"
    kill -CONT "$helper"
    check "daemon killed while the app is held: the app ran in its scope" yes \
      "$(wait_for 20 has_file "$P.daemon-killed" && grep -qE '^cgroup=.*/app\.slice/app-rc-org\.example\.Probe-[0-9a-f]{16}\.scope$' "$P.daemon-killed" && echo yes || echo "no: $(cat "$P.daemon-killed" 2>&1)")"
  else
    check "daemon killed while the app is held: the launch helper held it" yes no
  fi
  # 2. and 3. the helper SIGKILLed before the scope's start, and after it but before the app's exec
  local where
  for where in before-start after-start; do
    usc set-environment RC_SCOPE_HELPER_TEST_PAUSE=$where
    ( launch_helper_scope org.example.Probe "$P.$where" > "$OUT/window-$where.txt" 2>&1 & )
    if wait_for 30 find_stopped_helper; then
      held=$(pgrep -P "$helper" | head -1)
      kill -KILL "$helper"
      wait_for 10 sh -c "! [ -e /proc/$held ]"
      check "helper killed $where: the held process ended without running the app" "gone no-output" \
        "$([ -e "/proc/$held" ] && echo "running: $(cat /proc/$held/cgroup)" || echo gone) $(nap 2; [ -e "$P.$where" ] && echo "app ran: $(cat "$P.$where")" || echo no-output)"
    else
      check "helper killed $where: the launch helper held it" yes no
    fi
  done
  usc unset-environment RC_SCOPE_HELPER_TEST_PAUSE
  # the daemon restarted below (after the kill, and for the sections after) runs as installed again
  daemon_test_hooks off
  # 4. resourcectl run --scope with the daemon SIGKILLed before it answers: the app never starts
  # (resourcectl starts it only once the daemon says the scope holds resourcectl)
  dpid=$(usc show -P MainPID resource-control.service)
  kill -STOP "$dpid"
  local cli_status=$LAUNCHED_OUT/window-cli.status
  ( cl resourcectl run --scope org.example.Probe "$P.cli-daemon-killed" > "$OUT/window-cli.txt" 2>&1
    echo $? > "$cli_status" ) &
  find_cli () { pgrep -u "$U" -f 'resourcectl run --scope org.example.Probe' > /dev/null; }
  wait_for 10 find_cli
  nap 1
  kill -KILL "$dpid"
  wait_for 20 has_file "$cli_status"
  check "run --scope, daemon killed before it answers: the app never ran" "exit 1, no-output, no probe" \
    "exit $(cat "$cli_status" 2>&1), $(nap 2; [ -e "$P.cli-daemon-killed" ] && echo "app ran: $(cat "$P.cli-daemon-killed")" || echo no-output), $(pgrep -u "$U" -f 'rc-probe .*cli-daemon-killed' > /dev/null && echo 'probe running' || echo 'no probe')"
  note "run --scope, daemon killed: $(cat "$OUT/window-cli.txt")"
  # the daemon was restarted by systemd (Restart=on-failure); start it afresh for the sections after
  usc stop resource-control.service; usc reset-failed resource-control.service 2>/dev/null
  call "daemon activated again after the kill" OK ListApps
  DAEMON_PID=$(usc show -P MainPID resource-control.service)
}

SESSION_CG=
# in_session CMD...: start CMD as the test user inside the tty login session's scope (as if typed there)
in_session () {
  ( echo "$BASHPID" > "$SESSION_CG/cgroup.procs" && exec "$AU" "$@" ) > /dev/null 2>&1 < /dev/null &
  disown
}
pid_of_arg () { pgrep -u "$U" -f -x -- "$1" | head -1; }
in_cgroup_all () { # in_cgroup_all DIR PID...: every PID is in DIR/cgroup.procs
  local p; for p in "${@:2}"; do grep -qx "$p" "$1/cgroup.procs" || return 1; done
}
tree_pids () { echo "$1 $(pgrep -P "$1" | paste -sd' ')"; }
running () { pgrep -u "$U" -f -x -- "$1" > /dev/null; }

# The desktop's own services are never adopted: everything in session.slice (gnome-shell, PipeWire, the
# portals, the polkit agent run there) and any service's main process; and a pid that went to another
# process between the check and the move is not moved.
adopt_protected () {
  local child main
  "$AU" systemd-run --user --quiet --slice=session.slice -u rc-session-svc.service \
    sh -c 'sleep 1007 & exec sleep infinity'
  wait_for 10 running 'sleep 1007'
  child=$(pid_of_arg 'sleep 1007')
  call "Adopt a process of a session.slice service" Protected Adopt "@au [$child]" "{'AppId': <'org.example.Painter'>}"
  check_has "the error names the pid and the unit" "Process $child (sleep) runs in rc-session-svc.service" "$(last_message)"
  check "the session.slice process did not move" yes "$(in_cgroup_all "$(cg rc-session-svc.service)" "$child" && echo yes || echo no)"
  usc stop rc-session-svc.service
  main=$(usc show -P MainPID rc-compositor.service)
  call "Adopt a service's main process (app.slice)" Protected Adopt "@au [$main]" "{'AppId': <'org.example.Painter'>}"
  check_has "the error names the pid and the unit" "Process $main is the main process of rc-compositor.service" "$(last_message)"
  check "the main process did not move" yes "$(in_cgroup_all "$(cg rc-compositor.service)" "$main" && echo yes || echo no)"

  # pid reuse while polkit decides (as while a password dialog is up): the process named ends and another
  # of the same user gets its pid (ns_last_pid); the other one is not moved
  local root new try
  in_session env GIO_LAUNCHED_DESKTOP_FILE="$APPS_DIR/org.example.Painter.desktop" sh -c 'sleep 1008; : adopt-reuse'
  wait_for 10 running 'sh -c sleep 1008; : adopt-reuse'
  root=$(pid_of_arg 'sh -c sleep 1008; : adopt-reuse')
  rm -f /tmp/rc-adopt-asked
  mkdir -p /etc/polkit-1/rules.d
  cat > /etc/polkit-1/rules.d/10-rc-systemtest.rules <<EOF
polkit.addRule(function(action, subject) {
    if (action.id == "org.example.ResourceControl.adopt" && subject.user == "$TUSER") {
        polkit.spawn(["/bin/sh", "-c", "touch /tmp/rc-adopt-asked; sleep 6"]);
        return polkit.Result.YES;
    }
    return polkit.Result.NOT_HANDLED;
});
EOF
  nap 1
  ( cl resourcectl adopt "$root" > "$OUT/adopt-reuse.txt" 2>&1 & )
  wait_for 20 test -e /tmp/rc-adopt-asked
  kill -KILL $(tree_pids "$root") 2>/dev/null
  wait_for 10 sh -c "! [ -e /proc/$root ]"
  for try in $(seq 50); do
    echo $((root - 1)) > /proc/sys/kernel/ns_last_pid
    ( echo "$BASHPID" > "$SESSION_CG/cgroup.procs" && exec "$AU" sleep 1009 ) > /dev/null 2>&1 < /dev/null &
    new=$!
    [ "$new" = "$root" ] && break
    kill "$new" 2>/dev/null
  done
  disown "$new" 2>/dev/null
  wait_for 10 sh -c "[ \"\$(cat /proc/$new/comm 2>&1)\" = sleep ]"
  check "pid reuse: another process got pid $root" "$root sleep" "$new $(cat /proc/$new/comm 2>&1)"
  wait_for 30 sh -c "! pgrep -u $U -f 'resourcectl adopt $root' > /dev/null"
  check "pid reuse: the other process was not moved" yes "$(in_cgroup_all "$SESSION_CG" "$new" && echo yes || echo "no: $(cat /proc/$new/cgroup)")"
  check_has "pid reuse: the caller is told" "another process has its pid now" "$(cat "$OUT/adopt-reuse.txt")"
  kill "$new" 2>/dev/null
  polkit_rule none
}

sec_adopt () {
  login_session
  [ -f /usr/local/bin/rc-launched-app ] || make_launch_apps
  local sid
  sid=$(loginctl show-user "$TUSER" -P Display 2>/dev/null)
  SESSION_CG=/sys/fs/cgroup/user.slice/user-$U.slice/session-$sid.scope
  check "the tty session has a scope" yes "$([ -d "$SESSION_CG" ] && echo yes || echo no)"

  # 1. a process tree started from the login session scope (a terminal of sway or i3)
  in_session env GIO_LAUNCHED_DESKTOP_FILE="$APPS_DIR/org.example.Painter.desktop" \
    sh -c 'sleep 1001 & sleep 1002 & wait; : adopt-tree-1'
  local root pids unit rcode
  wait_for 10 running 'sleep 1002'
  root=$(pid_of_arg "sh -c sleep 1001 & sleep 1002 & wait; : adopt-tree-1")
  pids=$(tree_pids "$root")
  check "the tree runs in the session scope" yes "$(in_cgroup_all "$SESSION_CG" $pids && echo yes || echo no)"
  unit=$(cl resourcectl adopt "$root" 2>"$OUT/adopt.err"); rcode=$?
  if [ "$rcode" = 0 ]; then
    check "adopt from a login session: scope name" "app-rc-org.example.Painter-$root.scope" "$unit"
    check "adopt from a login session: every pid of the tree in the scope" yes \
      "$(in_cgroup_all "$(cg "$unit")" $pids && echo yes || echo "no: $(paste -sd, "$(cg "$unit")/cgroup.procs") vs $pids")"
    check "adopt from a login session: nothing left in the session scope" "" \
      "$(for p in $pids; do grep -x "$p" "$SESSION_CG/cgroup.procs"; done)"
    note "systemd $(systemctl --version | head -1 | cut -d' ' -f2) moved a login session's processes into a user scope"
    call "SetWeight on the adopted app" OK SetWeight "$unit" "uint64 300"
    check "cpu.weight of the adopted app" 300 "$(cat "$(cg "$unit")/cpu.weight")"
    rc_json GetApp s "$unit" | flat > "$OUT/adopted.flat"
    check "the adopted app is listed with its name" Painter "$(field "$OUT/adopted.flat" "$unit" Name)"
    usc stop -- "$unit"
  else
    check_has "adopt from a login session refused by systemd: Failed with its message" "systemd" "$(cat "$OUT/adopt.err")"
    check "refused: every pid still in the session scope" yes "$(in_cgroup_all "$SESSION_CG" $pids && echo yes || echo no)"
    note "systemd refused to move a login session's processes: $(cat "$OUT/adopt.err")"
    kill $pids 2>/dev/null
  fi

  # 2. an app started by a compositor that runs as a plain user service
  "$AU" systemd-run --user --quiet -u rc-compositor.service sh -c \
    "env GIO_LAUNCHED_DESKTOP_FILE=$APPS_DIR/org.example.Painter.desktop sh -c 'sleep 1003 & wait; : adopt-tree-2' & exec sleep infinity"
  wait_for 10 running 'sleep 1003'
  root=$(pid_of_arg "sh -c sleep 1003 & wait; : adopt-tree-2")
  pids=$(tree_pids "$root")
  unit=$(cl resourcectl adopt --launcher sway "$root" 2>&1)
  check "adopt from a user service: scope name" "app-sway-org.example.Painter-$root.scope" "$unit"
  check "adopt from a user service: the tree moved" yes "$(in_cgroup_all "$(cg "$unit")" $pids && echo yes || echo no)"
  check "adopt from a user service: the compositor stays" 1 "$(wc -l < "$(cg rc-compositor.service)/cgroup.procs")"
  usc stop -- "$unit"

  # 3. a process that forks while it is adopted: its children follow it
  local forker='sh -c while :; do sleep 0.3 & sleep 0.02; done; : adopt-forker'
  in_session env GIO_LAUNCHED_DESKTOP_FILE="$APPS_DIR/org.example.Painter.desktop" \
    sh -c 'while :; do sleep 0.3 & sleep 0.02; done; : adopt-forker'
  wait_for 10 running "$forker"
  root=$(pid_of_arg "$forker")
  unit=$(cl resourcectl adopt "$root" 2>&1)
  if [ -d "$(cg "$unit")" ]; then
    local left p
    left=$(for p in $(cat "$SESSION_CG/cgroup.procs"); do
             [ "$(awk '{ print $4 }' "/proc/$p/stat" 2>/dev/null)" = "$root" ] && echo "$p"; done)
    check "adopt a forking process: none of its children left behind" "" "$left"
    check "adopt a forking process: it is in the scope" yes "$(in_cgroup_all "$(cg "$unit")" "$root" && echo yes || echo no)"
    usc stop -- "$unit"
  else
    check "adopt a forking process" "a scope" "$unit"
    kill "$root" 2>/dev/null
  fi

  # 4. errors: nothing moves
  local app_pid root_pid
  read -r app_pid < "$(cg "$C1")/cgroup.procs"
  root_pid=$(pgrep -x -u root systemd-journal | head -1)
  call "Adopt PID 1" Protected Adopt "@au [1]" '@a{sv} {}'
  call "Adopt a kernel thread" Protected Adopt "@au [2]" '@a{sv} {}'
  call "Adopt another user's process" Protected Adopt "@au [$root_pid]" '@a{sv} {}'
  call "Adopt a process of an app unit" Protected Adopt "@au [$app_pid]" '@a{sv} {}'
  check_has "the error names the app unit" "$C1" "$(last_message)"
  check "the app's process did not move" yes "$(in_cgroup_all "$(cg "$C1")" "$app_pid" && echo yes || echo no)"
  adopt_protected
  in_session /usr/local/bin/rc-mystery 1005
  wait_for 10 running '/usr/local/bin/rc-mystery 1005'
  call "Adopt an unknown program without AppId" InvalidArgument Adopt "@au [$(pid_of_arg '/usr/local/bin/rc-mystery 1005')]" '@a{sv} {}'
  kill "$(pid_of_arg '/usr/local/bin/rc-mystery 1005')" 2>/dev/null
  in_session env GIO_LAUNCHED_DESKTOP_FILE="$APPS_DIR/org.example.Painter.desktop" sh -c 'sleep 1004; : adopt-denied'
  wait_for 10 running 'sh -c sleep 1004; : adopt-denied'
  root=$(pid_of_arg "sh -c sleep 1004; : adopt-denied")
  polkit_rule adopt NO
  polkit_wait adopt 1
  call "Adopt refused by a polkit deny rule" NotAuthorized Adopt "@au [$root]" '@a{sv} {}'
  polkit_rule none
  polkit_wait adopt 0
  check "nothing moved by the refused call" yes "$(in_cgroup_all "$SESSION_CG" "$root" && echo yes || echo no)"
  kill $(tree_pids "$root") 2>/dev/null

  # 5. adopt --all on a session with a shell, two apps (a desktop file's program, a Flatpak-style one) and an
  # unknown program: the two apps get their scopes, the shell and the unknown stay
  in_session bash -c 'sleep 2001; : adopt-all-shell'
  in_session /usr/local/bin/rc-writer 2002
  in_session /usr/local/bin/rc-mystery 2003
  local fp=/run/rc-flatpak-root
  mkdir -p "$fp/usr" "$fp/proc" "$fp/tmp"
  mountpoint -q "$fp/usr" || mount --bind /usr "$fp/usr"
  ln -sfn usr/bin "$fp/bin"; ln -sfn usr/lib "$fp/lib"; ln -sfn usr/lib64 "$fp/lib64"
  printf '[Application]\nname=org.example.Flat\nruntime=runtime/org.freedesktop.Platform/x86_64/23.08\n' > "$fp/.flatpak-info"
  ( echo "$BASHPID" > "$SESSION_CG/cgroup.procs" && exec chroot "$fp" /usr/bin/setpriv --reuid="$U" --regid="$U" \
      --clear-groups /usr/bin/sleep 2004 ) > /dev/null 2>&1 < /dev/null &
  disown
  wait_for 10 running '/usr/bin/sleep 2004'
  wait_for 10 running '/usr/local/bin/rc-mystery 2003'
  local shell writer mystery flat plan moving staying
  shell=$(pid_of_arg "bash -c sleep 2001; : adopt-all-shell")
  writer=$(pid_of_arg "/usr/local/bin/rc-writer 2002")
  mystery=$(pid_of_arg "/usr/local/bin/rc-mystery 2003")
  flat=$(pid_of_arg "/usr/bin/sleep 2004")
  plan=$(cl resourcectl adopt --all < /dev/null 2>&1)
  printf '%s\n' "$plan" > "$OUT/adopt-all-plan.txt"
  moving=$(printf '%s\n' "$plan" | sed -n '/^Will move/,/^Will stay/p' | grep -E '^  [^ ]' | sed 's/^ *//' | sort | paste -sd' ')
  staying=$(printf '%s\n' "$plan" | sed -n '/^Will stay/,$p')
  check "adopt --all: the listing before asking names the two apps" "org.example.Flat org.example.Writer" "$moving"
  check_has "adopt --all: the listing has the writer's pid" "$writer (rc-writer)" "$plan"
  check_has "adopt --all: the listing has the Flatpak-style app's pid" "$flat (sleep)" "$plan"
  check_has "adopt --all: the shell stays" "$shell (bash)" "$staying"
  check_has "adopt --all: the unknown program stays" "$mystery (rc-mystery)" "$staying"
  check_has "adopt --all without a terminal asks for --yes" "--yes" "$plan"
  out=$(cl resourcectl adopt --all --yes < /dev/null 2>&1)
  printf '%s\n' "$out" >> "$OUT/adopt-all-plan.txt"
  check_has "adopt --all --yes: the writer in its scope" "org.example.Writer: app-rc-org.example.Writer-$writer.scope" "$out"
  check_has "adopt --all --yes: the Flatpak-style app in its scope" "org.example.Flat: app-rc-org.example.Flat-$flat.scope" "$out"
  check "adopt --all --yes: the writer's process moved" yes \
    "$(in_cgroup_all "$(cg "app-rc-org.example.Writer-$writer.scope")" "$writer" && echo yes || echo no)"
  check "adopt --all --yes: the shell and the unknown stayed" yes \
    "$(in_cgroup_all "$SESSION_CG" "$shell" "$mystery" && echo yes || echo no)"
  kill $(tree_pids "$shell") "$mystery" 2>/dev/null
  usc stop "app-rc-org.example.Writer-$writer.scope" "app-rc-org.example.Flat-$flat.scope" rc-compositor.service 2>/dev/null
  umount "$fp/usr" 2>/dev/null
}

# ---------------------------------------------------------------------------------------------------
# which app a process is, an app's processes, and the memory keys of the second version

TREE='app-gnome-org.example.Tree-1.scope'          # an app whose process has a child
sec_processes () {
  login_session
  start_scope "$TREE" sh -c 'sleep 1000 & wait'
  wait_for 30 all_active "$TREE"
  local d root child out login dead
  d=$(cg "$TREE")
  wait_for 10 sh -c "[ \$(wc -l < $d/cgroup.procs) = 2 ]"
  local p
  for p in $(cat "$d/cgroup.procs"); do
    case "$(cat "/proc/$p/comm")" in sh) root=$p ;; sleep) child=$p ;; esac
  done
  rc_json GetAppByPid u "$root" | flat > "$OUT/bypid.flat"
  check "GetAppByPid of an app's process" "$TREE" "$(units_in "$OUT/bypid.flat")"
  rc_json GetAppByPid u "$child" | flat > "$OUT/bypid.flat"
  check "GetAppByPid of its child" "$TREE org.example.Tree" \
    "$(units_in "$OUT/bypid.flat") $(field "$OUT/bypid.flat" "$TREE" AppId)"
  login=$(systemctl show -P MainPID rc-systemtest-login.service)
  call "GetAppByPid of the login session's process" NoSuchApp GetAppByPid "uint32 $login"
  dead=$(sh -c 'echo $$')
  call "GetAppByPid of a process that ended" NoSuchApp GetAppByPid "uint32 $dead"
  out=$(cl resourcectl which "$child" 2>&1)
  check "resourcectl which" "$TREE org.example.Tree" "$(printf '%s' "$out" | cut -f1,2 | tr '\t' ' ')"

  # ListProcesses: exactly cgroup.procs, with names and figures from /proc
  rc_json ListProcesses s "$TREE" > "$OUT/procs.json"
  check "ListProcesses lists cgroup.procs" "$(sort -n "$d/cgroup.procs" | paste -sd' ')" \
    "$(jq -r '.data[0][] | .[0]' "$OUT/procs.json" | paste -sd' ')"
  check "ListProcesses: comm and cmdline" "sh:/usr/bin/sh -c sleep 1000 & wait sleep:sleep 1000" \
    "$(jq -r '.data[0][] | "\(.[1]):\(.[2])"' "$OUT/procs.json" | paste -sd' ')"
  local rss_kb start_ticks
  rss_kb=$(awk '/^VmRSS:/ { print $2 }' "/proc/$child/status")
  check_range "ListProcesses: RSS of the child ~ VmRSS" $(( (rss_kb - 64) * 1024 )) $(( (rss_kb + 64) * 1024 )) \
    "$(jq -r --argjson p "$child" '.data[0][] | select(.[0] == $p) | .[3]' "$OUT/procs.json")"
  start_ticks=$(awk '{ print $22 }' "/proc/$child/stat")
  check "ListProcesses: start time from /proc/PID/stat" "$((start_ticks * 10000000))" \
    "$(jq -r --argjson p "$child" '.data[0][] | select(.[0] == $p) | .[5]' "$OUT/procs.json")"
  out=$(cl resourcectl ps "$TREE" 2>&1)
  check_has "resourcectl ps shows the child" "sleep 1000" "$out"

  # MemoryMin and MemorySwapMax reach memory.min and memory.swap.max, and the record
  call "SetLimits MemoryMin and MemorySwapMax" OK SetLimits "$TREE" \
    "{'MemoryMin': <uint64 $((32 * MiB))>, 'MemorySwapMax': <uint64 0>}" '@a{sv} {}'
  check "memory.min and memory.swap.max" "$((32 * MiB)) 0" "$(cat "$d/memory.min") $(cat "$d/memory.swap.max")"
  rc_json GetApp s "$TREE" | flat > "$OUT/tree.flat"
  check "the record has them" "$((32 * MiB)) 0" \
    "$(field "$OUT/tree.flat" "$TREE" MemoryMin) $(field "$OUT/tree.flat" "$TREE" MemorySwapMax)"
  call "ResetLimits" OK ResetLimits "$TREE"
  check "memory.min and memory.swap.max after ResetLimits" "0 max" "$(cat "$d/memory.min") $(cat "$d/memory.swap.max")"
  usc stop -- "$TREE"
}
