# SPDX-License-Identifier: LGPL-2.1-or-later
#
# lib.sh - what the VM payloads share (system-test.sh and demo-guest.sh, sourced from /mnt/vmshare, where
# run-system-tests.sh puts it): checks that count, waiting without busy loops, the test user's systemd and
# cgroups, the client scope every D-Bus call is made from, CPU shares from cpu.stat, and the active login
# session that lets the shipped polkit policy allow changes.
# The payload sets U, TUSER, OUT and AU before sourcing it.

# reporting

PASSED=0
FAILED=0
FAILS=()
check () { # check NAME EXPECTED ACTUAL
  if [ "$2" = "$3" ]; then
    echo "PASS $1 ($3)"; PASSED=$((PASSED + 1))
  else
    echo "FAIL $1: expected '$2' got '$3'"; FAILED=$((FAILED + 1)); FAILS+=("$1")
  fi
}
check_range () { # check_range NAME LOW HIGH ACTUAL: LOW <= ACTUAL <= HIGH (numbers, may be fractions)
  if awk -v v="$4" -v lo="$2" -v hi="$3" 'BEGIN { exit !(v != "" && v + 0 == v && v >= lo && v <= hi) }'; then
    echo "PASS $1 ($4 in [$2, $3])"; PASSED=$((PASSED + 1))
  else
    echo "FAIL $1: expected in [$2, $3] got '$4'"; FAILED=$((FAILED + 1)); FAILS+=("$1")
  fi
}
check_has () { # check_has NAME NEEDLE HAYSTACK: HAYSTACK contains NEEDLE (fixed string)
  case "$3" in
    *"$2"*) echo "PASS $1 (has '$2')"; PASSED=$((PASSED + 1)) ;;
    *) echo "FAIL $1: '$2' not in '$(printf '%s' "$3" | head -c 400)'"; FAILED=$((FAILED + 1)); FAILS+=("$1") ;;
  esac
}
note () { echo "  .. $*"; }
now () { local u _; read -r u _ < /proc/uptime; echo "$u"; }

# ---------------------------------------------------------------------------------------------------
# helpers: the test user's systemd, cgroups, waiting

# bounded: a wedged user manager must fail checks, not hang the run until the VM's timeout
usc () { timeout 90 "$AU" systemctl --user "$@"; }

# Clients of the daemon run as the test user inside CLIENT, a plain (non-app) scope of the user's
# manager. Left in the payload's system.slice cgroup, a caller has no owner uid for sd-login, and
# polkit cannot give it the user's display session.
CLIENT=${CLIENT:-rc-systemtest-client.scope}
CLIENT_CG=
client_up () {
  "$AU" systemd-run --user --scope --quiet -u "$CLIENT" sleep infinity > /dev/null 2>&1 < /dev/null &
  wait_for 30 all_active "$CLIENT"
  unset "CG[$CLIENT]"
  CLIENT_CG=$(cg "$CLIENT")
}
cl () { ( echo "$BASHPID" > "$CLIENT_CG/cgroup.procs" && exec "$AU" "$@" ); }

declare -A CG
cg () { # cg UNIT: the unit's cgroup folder (cached: ControlGroup never changes while a unit runs)
  if [ -z "${CG[$1]:-}" ]; then
    local p
    p=$(usc show -P ControlGroup -- "$1")
    [ -n "$p" ] && CG[$1]=/sys/fs/cgroup$p
  fi
  echo "${CG[$1]:-/nonexistent}"
}

# fd 8: a fifo nobody writes, so `read -t` is a sleep without starting a process (~0.1 s each under
# emulation, which a poll loop would pay at every turn)
[ -p /tmp/rc-never ] || mkfifo /tmp/rc-never
exec 8<> /tmp/rc-never
nap () { read -rt "$1" -u 8 _; }
# mem_avail: MemAvailable and free swap in MiB, for the log
mem_avail () { awk '$1 == "MemAvailable:" { a = $2 } $1 == "SwapFree:" { s = $2 } END { printf "MemAvailable %d MiB, swap free %d MiB", a / 1024, s / 1024 }' /proc/meminfo; }

# ladder_switch on|off: [Guard] MemoryLadder in the admin's rules, for the sections that prove what
# systemd-oomd, the kernel or the notifier do under memory pressure by themselves: the ladder acts
# before them (its job; section memory proves it). Waits for the daemon's "Ladder: turned off".
LADDER_OFF_RULES=/etc/resource-control/rules.d/90-rc-systemtest-no-ladder.conf
ladder_turned () { journalctl --no-pager -o cat _SYSTEMD_USER_UNIT=resource-control.service 2>/dev/null | grep -F "Ladder: turned" | tail -1 | grep -qF "turned $1"; }
ladder_switch () {
  if [ "$1" = off ]; then
    mkdir -p "$(dirname "$LADDER_OFF_RULES")"
    printf '[Guard]\nMemoryLadder=false\n' > "$LADDER_OFF_RULES"
  else
    rm -f "$LADDER_OFF_RULES"
  fi
  wait_for 15 ladder_turned "$1" || note "the daemon did not say the ladder was turned $1"
}
wait_for () { # wait_for SECONDS CMD...: poll CMD every 0.2 s until it succeeds (SECONDS: whole number)
  local end u _
  read -r u _ < /proc/uptime
  end=$((10#${u/./} + $1 * 100)); shift
  until "$@"; do
    read -r u _ < /proc/uptime
    (( 10#${u/./} > end )) && return 1
    nap 0.2
  done
  return 0
}

all_active () { # all_active UNIT...: one systemctl call for all
  local s
  s=$(usc is-active -- "$@" 2>/dev/null | sort -u)
  [ "$s" = active ]
}

start_scope () { # start_scope UNIT [systemd-run options --] CMD...: a scope started by the user, in the background
  local unit=$1; shift
  local opts=()
  if printf '%s\n' "$@" | grep -qx -- --; then
    while [ "$1" != -- ]; do opts+=("$1"); shift; done
    shift
  fi
  "$AU" systemd-run --user --scope --quiet -u "$unit" "${opts[@]}" "$@" \
    > "$OUT/app-$(printf '%s' "$unit" | tr -c 'A-Za-z0-9.@-' _).log" 2>&1 < /dev/null &
  disown   # no "Killed" job notices when the kernel or a test ends an app
}

usage_us () { awk '$1 == "usage_usec" { print $2 }' "$1/cpu.stat" 2>/dev/null; }

frozen_of () { local k v; while read -r k v; do [ "$k" = frozen ] && echo "$v"; done 2>/dev/null < "$(cg "$1")/cgroup.events"; }

# CPU time of two cgroups over SECS seconds; sets DA DB (microseconds) and RATIO (A / B)
measure () {
  local a0 b0 a1 b1
  a0=$(usage_us "$1"); b0=$(usage_us "$2")
  sleep "$3"
  a1=$(usage_us "$1"); b1=$(usage_us "$2")
  DA=$((a1 - a0)); DB=$((b1 - b0))
  RATIO=$(awk -v a="$DA" -v b="$DB" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "inf" }')
}

# wait until polkitd answers EXPECTED (pkcheck: 0 yes, 1 no, 2 challenge) for ACTION and a process in the
# client scope, where every call comes from: polkitd reloads rules, and sees a new session, a little later
polkit_wait () {
  local action=org.example.ResourceControl.$1 want=$2 pid
  pid=$(head -1 "$CLIENT_CG/cgroup.procs")
  wait_for 10 sh -c "pkcheck --action-id $action --process $pid >/dev/null 2>&1; [ \$? = $want ]"
}

SESSION_OK=0
# An active local session on tty1 for the test user, as after a console or display-manager login: the
# shipped policy (allow_active=yes) then lets the user change limits. polkit gives a process outside any
# session (our callers, apps in app.slice) the user's display session (sd_uid_get_display). Set up by
# sec_polkit_default after its no-session checks, or by the first write section when that is skipped.
login_session () {
  [ "$SESSION_OK" = 0 ] || return 0
  SESSION_OK=1
  # started already by another payload in this boot (the demo runs inside the system test)
  if ! systemctl -q is-active rc-systemtest-login.service; then
    printf 'account required pam_permit.so\nsession required pam_loginuid.so\nsession required pam_systemd.so\n' \
      > /etc/pam.d/rc-systemtest
    systemd-run --quiet --unit=rc-systemtest-login -p PAMName=rc-systemtest -p User="$TUSER" -p TTYPath=/dev/tty1 \
      -p StandardInput=tty-force -p StandardOutput=journal sleep infinity
  fi
  local sid=
  wait_for 15 sh -c "[ -n \"\$(loginctl show-user $TUSER -P Display 2>/dev/null)\" ]"
  sid=$(loginctl show-user "$TUSER" -P Display 2>/dev/null)
  check "active local session for the test user" "Active=yes Seat=seat0 Type=tty" \
    "$(loginctl show-session "$sid" -p Active -p Type -p Seat 2>&1 | sort | paste -sd' ')"
  if polkit_wait set-weight 0; then
    check "polkit allows the active session's user to change limits (shipped policy)" yes yes
  else
    check "polkit allows the active session's user to change limits (shipped policy)" yes no
    # stand-in so the write-path sections can still run; the check above failed
    note "polkit does not say yes: a rules file grants all actions to the test user instead"
    cat > /etc/polkit-1/rules.d/20-rc-systemtest-standin.rules <<EOF
polkit.addRule(function(action, subject) {
    if (action.id.indexOf("org.example.ResourceControl.") == 0 && subject.user == "$TUSER")
        return polkit.Result.YES;
});
EOF
    polkit_wait set-weight 0
  fi
}
