# SPDX-License-Identifier: LGPL-2.1-or-later
#
# rules-sections.sh - VM sections of rules and the foreground boost
# (sourced by system-test.sh, after its helpers; lib.sh's helpers).

# ---------------------------------------------------------------------------------------------------
# rules and the foreground boost

SYS_RULES=/etc/resource-control/rules.d
USR_RULES=$THOME/.config/resource-control/rules.d
I1='app-gnome-org.example.Indexer-1.scope'        # rules: an instance started after the rule
I2='app-gnome-org.example.Indexer-2.scope'        # a second instance, changed through the API too
FA='app-gnome-org.example.FgA-1.scope'            # boost: three apps the focus moves between
FB='app-gnome-org.example.FgB-2.scope'
FC='app-gnome-org.example.FgC-3.scope'

as_user_write () { # as_user_write FILE: stdin to FILE as the test user, saved as an editor does (rename)
  local text; text=$(cat)
  "$AU" sh -c 'mkdir -p "$(dirname "$1")" && printf "%s\n" "$2" > "$1.tmp" && mv "$1.tmp" "$1"' sh "$1" "$text"
}
rule_value () { # rule_value APPID KEY: from ListRules ("-" when absent)
  rc_json ListRules | jq -r --arg a "$1" --arg k "$2" '.data[0][$a][$k].data // "-"' 2>/dev/null
}
rule_is () { [ "$(rule_value "$1" "$2")" = "$3" ]; }
file_is () { local v=; read -r v 2>/dev/null < "$1"; [ "$v" = "$2" ]; }
weights () { local u v out=; for u in "$@"; do v=?; read -r v < "$(cg "$u")/cpu.weight"; out="$out $v"; done; echo "${out# }"; }
weights_are () { local want=$1; shift; [ "$(weights "$@")" = "$want" ]; }
# Mutter's mark on an app's cgroup: -1 while focused, the time it lost the focus after that
mark_focus () { "$AU" setfattr -n user.xdg.inactive-since -v "$2" -- "$(cg "$1")"; }
frozen_is () { [ "$(frozen_of "$1")" = "$2" ]; }

# rule_gap UNIT FILE VALUE: start UNIT and print the seconds from its cgroup appearing to FILE holding
# VALUE ("none" if it never did within 20 s); bash builtins only, so the poll itself costs nothing
rule_gap () {
  local d=$UM/app.slice/$1 t_dir= v= i
  start_scope "$1" sleep infinity
  for ((i = 0; i < 1000; i++)); do
    if [ -z "$t_dir" ] && [ -d "$d" ]; then t_dir=$(now); fi
    if [ -n "$t_dir" ]; then
      v=; read -r v 2>/dev/null < "$d/$2"
      if [ "$v" = "$3" ]; then awk -v a="$t_dir" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }'; return; fi
    fi
    nap 0.02
  done
  echo none
}

# rule_journal_entry UNIT [all]: the journal's action record (kind "rule", MESSAGE_ID fixed in
# rc-action-log.c) of the rule giving UNIT CPUWeight 40, as JSON; fails while there is none
# (with "all": every such entry, one a line); fields as "NAME":"value", whatever journalctl's spacing
rule_journal_entry () {
  local out
  out=$(journalctl --no-pager -o json --output-fields=RC_UNIT,RC_APP,RC_KIND,RC_KEY,RC_OLD,RC_NEW,RC_REASON \
    MESSAGE_ID=1691aaf63e32497b89d6bbb391c49a20 RC_UNIT="$1" RC_NEW=40 2>/dev/null | sed 's/" *: *"/":"/g')
  [ "${2:-}" = all ] || out=$(tail -n 1 <<<"$out")
  [ -n "$out" ] && echo "$out"
}

sec_rules () {
  login_session
  local f
  # a system rule, a user rule for the same AppID (wins as a whole group), a system-only rule, and
  # a malformed file and key, all before any instance runs
  printf '[org.example.Indexer]\nCPUWeight=20\nCPUQuota=10%%\n\n[org.example.SysOnly]\nCPUWeight=30\n' \
    > "$SYS_RULES/50-systemtest.conf"
  printf 'this is [not a key file\n' > "$SYS_RULES/60-broken.conf"
  printf '[org.example.Indexer]\nCPUWeight=40\nMemoryMax=512M\nColour=blue\n' | as_user_write "$USR_RULES/50-resource-control.conf"
  wait_for 15 rule_is org.example.Indexer CPUWeight 40
  check "ListRules: the user's group wins" "40 536870912 -" \
    "$(rule_value org.example.Indexer CPUWeight) $(rule_value org.example.Indexer MemoryMax) $(rule_value org.example.Indexer CPUQuota)"
  check "ListRules: a system-only rule" 30 "$(rule_value org.example.SysOnly CPUWeight)"
  check "malformed file and key survived: daemon active" active "$(usc is-active resource-control.service)"

  # a new instance gets the rule: measured from its cgroup appearing to the kernel file holding it
  local gap
  gap=$(rule_gap "$I1" cpu.weight 40)
  note "rule gap for a new instance (cgroup created -> cpu.weight 40): $gap s"
  check_range "new instance: the rule is in cpu.weight within 5 s of the unit starting" 0 5 "${gap/none/99}"
  wait_for 10 file_is "$(cg "$I1")/memory.max" 536870912
  check "new instance: memory.max from the rule" 536870912 "$(cat "$(cg "$I1")/memory.max")"
  check "new instance: cpu.max (the system group's quota is replaced)" "max 100000" "$(cat "$(cg "$I1")/cpu.max")"
  check "another app untouched" 100 "$(cat "$(cg "$G")/cpu.weight" 2>&1)"

  # the action record: the rule reaching the new instance is one structured journal entry
  wait_for 10 rule_journal_entry "$I1"
  local entry field
  entry=$(rule_journal_entry "$I1")
  for field in '"RC_KIND":"rule"' '"RC_APP":"org.example.Indexer"' '"RC_KEY":"CPUWeight"' \
               '"RC_OLD":"100"' '"RC_NEW":"40"' \
               '"RC_REASON":"rule ~/.config/resource-control/rules.d/50-resource-control.conf [org.example.Indexer]"'; do
    check_has "journal: the rule's record has $field" "$field" "$entry"
  done
  check "journal: one record of the rule for the instance" 1 "$(rule_journal_entry "$I1" all | wc -l)"

  # a hand edit reaches the running instance without a restart
  printf '[org.example.Indexer]\nCPUWeight=60\nMemoryMax=512M\n' | as_user_write "$USR_RULES/50-resource-control.conf"
  wait_for 15 file_is "$(cg "$I1")/cpu.weight" 60
  check "hand edit: cpu.weight of the running instance" 60 "$(cat "$(cg "$I1")/cpu.weight")"
  # resourcectl why names the user's real file and group as the source of the kernel's value
  local why
  why=$(cl resourcectl why "$I1" 2>&1)
  check_has "resourcectl why: CPUWeight from the user's rules file" \
    "# rule: ~/.config/resource-control/rules.d/50-resource-control.conf [org.example.Indexer]" \
    "$(printf '%s\n' "$why" | grep '^CPUWeight=60 ')"
  check_has "resourcectl why: MemoryMax from the same group" "MemoryMax=512M " "$why"

  # SetRule: written to the user's file, applied at once, and to a later instance
  call "SetRule" OK SetRule org.example.Indexer "{'CPUWeight': <uint64 70>, 'MemoryMax': <uint64 1073741824>}"
  wait_for 10 file_is "$(cg "$I1")/cpu.weight" 70
  check "SetRule: running instance cpu.weight / memory.max" "70 1073741824" \
    "$(cat "$(cg "$I1")/cpu.weight") $(cat "$(cg "$I1")/memory.max")"
  f=$USR_RULES/50-resource-control.conf
  check_has "SetRule: the user's file holds the rule" "MemoryMax=1G" "$(cat "$f")"
  check "SetRule: the file belongs to the user" "$TUSER" "$(stat -c %U "$f")"
  start_scope "$I2" sleep infinity
  wait_for 15 file_is "$(cg "$I2")/cpu.weight" 70
  check "SetRule: a later instance gets it" 70 "$(cat "$(cg "$I2")/cpu.weight")"

  # the last API value wins over the rule, for that instance only
  call "SetWeight on one instance" OK SetWeight "$I2" "uint64 200"
  call "SetRule again" OK SetRule org.example.Indexer "{'CPUWeight': <uint64 75>}"
  wait_for 10 file_is "$(cg "$I1")/cpu.weight" 75
  check "API value kept over the new rule / rule on the other instance" "200 75" \
    "$(cat "$(cg "$I2")/cpu.weight") $(cat "$(cg "$I1")/cpu.weight")"
  check "SetRule replaces the rule: memory.max back to max" max "$(cat "$(cg "$I1")/memory.max")"

  # RemoveRule: back to the system rule, then Protected (the system's file is not ours to edit)
  call "RemoveRule" OK RemoveRule org.example.Indexer
  wait_for 10 file_is "$(cg "$I1")/cpu.weight" 20
  check "RemoveRule: back to the system rule (cpu.weight, cpu.max)" "20 10000 100000" \
    "$(cat "$(cg "$I1")/cpu.weight") $(cat "$(cg "$I1")/cpu.max")"
  check_has "resourcectl why: CPUWeight from the system's rules file" \
    "# rule: $SYS_RULES/50-systemtest.conf [org.example.Indexer]" \
    "$(cl resourcectl why "$I1" 2>&1 | grep '^CPUWeight=20 ')"
  call "RemoveRule of a system-only rule" Protected RemoveRule org.example.Indexer
  call "SetRule with a unit name" InvalidArgument SetRule "$I1" "{'CPUWeight': <uint64 70>}"
  call "SetRule with a bad value" InvalidArgument SetRule org.example.Indexer "{'CPUWeight': <uint64 0>}"
  rm -f "$SYS_RULES/50-systemtest.conf"
  wait_for 10 file_is "$(cg "$I1")/cpu.weight" 100
  check "system rule file removed: defaults again" "100 max 100000" "$(cat "$(cg "$I1")/cpu.weight") $(cat "$(cg "$I1")/cpu.max")"
  local n
  n=$(journalctl --no-pager -o cat _SYSTEMD_USER_UNIT=resource-control.service | grep -c '60-broken.conf')
  check "malformed file reported once in the journal" 1 "$n"
  rm -f "$SYS_RULES/60-broken.conf"
  usc stop -- "$I1" "$I2"
}

sec_boost () {
  login_session
  local pc
  start_scope "$FA" sleep infinity
  start_scope "$FB" sleep infinity
  start_scope "$FC" sleep infinity
  wait_for 30 all_active "$FA" "$FB" "$FC"
  call "SetRule FgB CPUWeight 50" OK SetRule org.example.FgB "{'CPUWeight': <uint64 50>}"
  call "SetRule FgA FreezeWhenInactiveSec 3" OK SetRule org.example.FgA "{'FreezeWhenInactiveSec': <uint32 3>}"
  wait_for 10 weights_are "100 50 100" "$FA" "$FB" "$FC"
  call "SetForegroundApp A" OK SetForegroundApp "$FA"
  wait_for 10 weights_are "300 50 100" "$FA" "$FB" "$FC"
  check "foreground A: cpu.weight A B C" "300 50 100" "$(weights "$FA" "$FB" "$FC")"
  call "SetForegroundApp B (by AppID)" OK SetForegroundApp org.example.FgB
  wait_for 10 weights_are "100 300 100" "$FA" "$FB" "$FC"
  check "foreground B: cpu.weight A B C" "100 300 100" "$(weights "$FA" "$FB" "$FC")"
  pc=$(head -1 "$(cg "$FC")/cgroup.procs")
  call "SetForegroundProcess (C's pid)" OK SetForegroundProcess "uint32 $pc"
  wait_for 10 weights_are "100 50 300" "$FA" "$FB" "$FC"
  check "foreground C by pid: cpu.weight A B C (B back to its rule)" "100 50 300" "$(weights "$FA" "$FB" "$FC")"
  call "SetForegroundProcess of a process that does not exist" NoSuchApp SetForegroundProcess "uint32 4194000"
  # focus on a terminal in the login session (a unit of the system's manager, unknown to the user's)
  pc=$(systemctl show -P MainPID rc-systemtest-login.service)
  call "SetForegroundProcess of a process outside the user's units" OK SetForegroundProcess "uint32 $pc"
  wait_for 10 weights_are "100 50 100" "$FA" "$FB" "$FC"
  check "no app in the foreground: cpu.weight A B C" "100 50 100" "$(weights "$FA" "$FB" "$FC")"

  # A lost the foreground when B got it: FreezeWhenInactiveSec=3 freezes it
  wait_for 15 frozen_is "$FA" 1
  check "FreezeWhenInactiveSec: A frozen in the background" 1 "$(frozen_of "$FA")"
  check "B and C never frozen" "0 0" "$(frozen_of "$FB") $(frozen_of "$FC")"
  check_has "resourcectl why: A frozen by its rule" "FreezerState=frozen" "$(cl resourcectl why "$FA" 2>&1 | grep '# freeze: inactive for 3 s')"

  # a pause takes back what the automation did, in the kernel's files (B's rule, A's freeze),
  # and resuming gives it again
  local rcode
  cl resourcectl pause --for 1h > "$OUT/pause.txt" 2>&1; rcode=$?
  check "resourcectl pause --for 1h" 0 "$rcode"
  wait_for 10 frozen_is "$FA" 0
  check "paused: A thawed (cgroup.events frozen)" 0 "$(frozen_of "$FA")"
  wait_for 10 weights_are "100 100 100" "$FA" "$FB" "$FC"
  check "paused: B's rule taken back (cpu.weight A B C)" "100 100 100" "$(weights "$FA" "$FB" "$FC")"
  check_has "resourcectl status: paused until a time" "Paused:           yes, until " "$(cl resourcectl status 2>&1)"
  cl resourcectl resume > "$OUT/resume.txt" 2>&1; rcode=$?
  check "resourcectl resume" 0 "$rcode"
  wait_for 10 weights_are "100 50 100" "$FA" "$FB" "$FC"
  check "resumed: B's rule again (cpu.weight A B C)" "100 50 100" "$(weights "$FA" "$FB" "$FC")"
  wait_for 15 frozen_is "$FA" 1
  check "resumed: A frozen again in the background" 1 "$(frozen_of "$FA")"

  # Mutter's marks: A focused (thawed at once, boosted), then B, as Mutter writes them
  mark_focus "$FC" 1000000
  mark_focus "$FA" -1
  wait_for 10 weights_are "300 50 100" "$FA" "$FB" "$FC"
  check "xattr -1 on A: cpu.weight A B C" "300 50 100" "$(weights "$FA" "$FB" "$FC")"
  wait_for 10 frozen_is "$FA" 0
  check "focused again: A thawed" 0 "$(frozen_of "$FA")"
  mark_focus "$FA" 2000000
  mark_focus "$FB" -1
  wait_for 10 weights_are "100 300 100" "$FA" "$FB" "$FC"
  check "xattr moves to B: cpu.weight A B C" "100 300 100" "$(weights "$FA" "$FB" "$FC")"

  # a restart keeps the rules and leaves no stale boost: C is boosted through the API, B loses its
  # mark, and the daemon is restarted
  mark_focus "$FB" 3000000
  call "SetForegroundApp C" OK SetForegroundApp "$FC"
  wait_for 10 weights_are "100 50 300" "$FA" "$FB" "$FC"
  usc stop resource-control.service
  call "daemon activated again" OK ListApps
  DAEMON_PID=$(usc show -P MainPID resource-control.service)
  wait_for 15 weights_are "100 50 100" "$FA" "$FB" "$FC"
  check "after a restart: no stale boost on C, B keeps its rule" "100 50 100" "$(weights "$FA" "$FB" "$FC")"
  check "after a restart: ListRules keeps the rules" "50 3" "$(rule_value org.example.FgB CPUWeight) $(rule_value org.example.FgA FreezeWhenInactiveSec)"
  call "RemoveRule FgA" OK RemoveRule org.example.FgA
  call "RemoveRule FgB" OK RemoveRule org.example.FgB
  usc stop -- "$FA" "$FB" "$FC"
}

sec_health () {
  check "daemon still active" active "$(usc is-active resource-control.service)"
  # G_DEBUG=fatal-criticals (sec_install): a critical would have aborted it and systemd restarted it
  check "daemon never restarted" "MainPID=$DAEMON_PID NRestarts=0" \
    "$(usc show -p MainPID -p NRestarts resource-control.service | sort | paste -sd' ')"
  note "daemon warnings: $(journalctl --no-pager -o cat -p warning _SYSTEMD_USER_UNIT=resource-control.service 2>&1 | sort | uniq -c | head -5)"
}

sec_io () {
  # last: restarts the user manager with io delegated (what the README's user@.service drop-in does)
  kill "$MONITOR_PID" 2>/dev/null
  mkdir -p /etc/systemd/system/user@.service.d
  printf '[Service]\nDelegate=cpu cpuset io memory pids\n' > /etc/systemd/system/user@.service.d/90-rc-systemtest-io.conf
  systemctl daemon-reload
  systemctl restart "user@$U.service"
  wait_for 30 test -S "/run/user/$U/bus"
  check_has "io delegated to the user manager" io "$(cat "$UM/cgroup.controllers")"
  local I=app-gnome-org.gnome.Maps-31.scope
  unset "CG[$I]"
  client_up
  start_scope "$I" sleep 1000
  wait_for 30 all_active "$I"
  local f=$OUT/io.flat
  rc_json GetApp s "$I" | flat > "$f"
  check "daemon activated again after the user manager restart" "$I" "$(units_in "$f")"
  call "SetLimits IOWeight with io delegated" OK SetLimits "$I" "{'IOWeight': <uint64 500>}" '@a{sv} {}'
  check "io.weight" "default 500" "$(head -1 "$(cg "$I")/io.weight" 2>&1)"
  rc_json GetApp s "$I" | flat > "$f"
  check "GetApp IOWeight" 500 "$(field "$f" "$I" IOWeight)"
  call "ResetLimits with io delegated" OK ResetLimits "$I"
  check "io.weight after ResetLimits" "default 100" "$(head -1 "$(cg "$I")/io.weight" 2>&1)"
  check "cpu.weight after ResetLimits" 100 "$(cat "$(cg "$I")/cpu.weight")"
}
