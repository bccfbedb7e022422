# SPDX-License-Identifier: LGPL-2.1-or-later
# The Debian packages in the VM (sourced by system-test.sh; uses its helpers and variables): section
# install's dpkg -i of the packages every later section runs on, and section package, last of the boot:
# an upgrade with the admin's and the user's rules in place, then remove and purge.
# DEBS/current holds the packages built from this tree; DEBS/previous the same packaging built as
# version 0.3.0-1 (tools/build-deb.sh --version). No older release was ever packaged, so "previous" is
# that older-numbered build of the same files: it proves dpkg's upgrade path (conffiles, maintainer
# scripts), not a change of file layout between real releases.

RC_PKGS="resource-control resource-control-panel"

pkg_debs () { # pkg_debs current|previous: the two packages' files
  echo "$DEBS/$1"/resource-control_*.deb "$DEBS/$1"/resource-control-panel_*.deb
}
pkg_versions () { dpkg-query -W -f='${Version} ' $RC_PKGS 2>/dev/null; }
pkg_dpkg () { # pkg_dpkg NAME DPKG-ARGS...: a dpkg run that must succeed, its output indented
  local out rc t0
  t0=$(now)
  out=$(dpkg "${@:2}" 2>&1 < /dev/null)
  rc=$?
  printf '%s\n' "$out" | grep -v '^(Reading database' | sed 's/^/  | /'
  check "$1" 0 "$rc"
  note "dpkg $2 took $(awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }') s"
}

install_debs () {
  # man-db's trigger would rebuild the manual index under emulation for a minute; nothing here reads it
  rm -f /var/lib/man-db/auto-update
  # shellcheck disable=SC2046
  pkg_dpkg "dpkg -i the packages" -i $(pkg_debs current)
  check "both packages installed" "install ok installed install ok installed" \
    "$(dpkg-query -W -f='${Status}\n' $RC_PKGS | paste -sd' ')"
  check "dpkg --verify: every packaged file as shipped" "" "$(dpkg --verify $RC_PKGS 2>&1)"
  check "the admin's rules are conffiles" "3" \
    "$(dpkg-query -W -f='${Conffiles}\n' resource-control | grep -c ' /etc/resource-control/rules.d/')"
  check "README.Debian says when the drop-ins take effect" yes \
    "$(grep -q 'systemctl --user daemon-reload' /usr/share/doc/resource-control/README.Debian && echo yes || echo no)"
}

rule_listed () { cl resourcectl rule list 2>/dev/null | grep -qF "$1"; }

sec_package () {
  local current daemon_pid admin_rules=/etc/resource-control/rules.d/00-example.conf
  local user_rules=$THOME/.config/resource-control/rules.d/50-package-test.conf admin_sum user_sum
  current=$(pkg_versions)
  daemon_pid=$(usc show -P MainPID resource-control.service)
  note "installed: $current; daemon pid $daemon_pid"

  # shellcheck disable=SC2046
  pkg_dpkg "dpkg -i the previous packages (0.3.0-1, over the current ones)" -i $(pkg_debs previous)
  check "previous version installed" "0.3.0-1 0.3.0-1 " "$(pkg_versions)"
  # the admin edits a shipped rules file, the user writes one of their own
  printf '\n# added by the administrator\n[org.example.PackageAdminRule]\nCPUWeight=50\n' >> "$admin_rules"
  "$AU" mkdir -p "${user_rules%/*}"
  printf '[org.example.PackageUserRule]\nCPUWeight=40\n' | "$AU" tee "$user_rules" > /dev/null
  admin_sum=$(md5sum < "$admin_rules")
  user_sum=$(md5sum < "$user_rules")
  wait_for 30 rule_listed org.example.PackageAdminRule
  check "the daemon reads the admin's rule" 0 $?

  # shellcheck disable=SC2046
  pkg_dpkg "dpkg -i the current packages: the upgrade" -i $(pkg_debs current)
  check "upgraded" "$current" "$(pkg_versions)"
  check "upgrade: the admin's edited rules file kept" "$admin_sum" "$(md5sum < "$admin_rules")"
  check "upgrade: no .dpkg-new or .dpkg-dist beside it" "" "$(ls /etc/resource-control/rules.d/ | grep dpkg)"
  check "upgrade: the user's rules file untouched" "$user_sum" "$(md5sum < "$user_rules")"
  check "upgrade: the daemon kept running" "$daemon_pid" "$(usc show -P MainPID resource-control.service)"
  wait_for 30 rule_listed org.example.PackageUserRule
  check "upgrade: the daemon still has the user's rule" 0 $?
  rule_listed org.example.PackageAdminRule
  check "upgrade: the daemon still has the admin's rule" 0 $?

  # what the packages own, read before they go: every path must be gone after the purge
  local listing
  listing=$(dpkg -L $RC_PKGS | sort -u)
  note "dpkg -L: $(printf '%s\n' "$listing" | wc -l) paths"

  note "upgrade done at t=$(now)"
  # apps of their own: earlier sections of a full run stop the first ones (one restarts the user manager)
  local keep_a=app-rctest-org.example.PkgKeepA-1.scope keep_b=app-rctest-org.example.PkgKeepB-1.scope
  start_scope "$keep_a" sleep infinity
  start_scope "$keep_b" sleep infinity
  wait_for 30 all_active "$keep_a" "$keep_b"
  pkg_dpkg "dpkg -r: remove" -r $RC_PKGS
  # the panel has no conffiles: nothing of it stays
  check "removed, the conffiles kept" "deinstall ok config-files" \
    "$(dpkg-query -W -f='${Status}\n' $RC_PKGS 2>/dev/null | grep -v '^unknown ok not-installed$' | paste -sd' ')"
  check "remove: the daemon's and resourcectl's files gone" "no no" \
    "$(for f in /usr/libexec/resource-controld /usr/bin/resourcectl; do [ -e "$f" ] && echo yes || echo no; done | paste -sd' ')"
  check "remove: the admin's rules kept (conffiles)" "$admin_sum" "$(md5sum < "$admin_rules")"
  check "remove: the running daemon is not stopped" "$daemon_pid" "$(usc show -P MainPID resource-control.service)"
  check "remove: the apps keep running" "active active" "$(usc is-active -- "$keep_a" "$keep_b" | paste -sd' ')"
  usc stop -- "$keep_a" "$keep_b"

  note "remove done at t=$(now)"
  pkg_dpkg "dpkg -P: purge" -P $RC_PKGS
  note "purge done at t=$(now)"
  check "purged: dpkg knows neither package" "" \
    "$(dpkg-query -W -f='${Status}\n' $RC_PKGS 2>/dev/null | grep -v '^unknown ok not-installed$')"
  local f left=() dirs=() shared
  while IFS= read -r f; do
    [ "$f" = /. ] && continue
    [ -e "$f" ] || [ -L "$f" ] || continue
    # (a folder through a link too: /lib is one to usr/lib where /usr is merged, as on Debian 12)
    if [ -d "$f" ]; then dirs+=("$f"); else left+=("$f"); fi
  done <<< "$listing"
  # a folder another installed package also has (/usr/bin, /etc, ...) stays, rightly; one dpkg -S for
  # all of them, since each reads the whole database (slow over 9p under emulation)
  if [ ${#dirs[@]} -gt 0 ]; then
    shared=$(dpkg -S "${dirs[@]}" 2>/dev/null | sed 's/^.*: //' | sort -u)
    for f in "${dirs[@]}"; do
      grep -qxF -- "$f" <<< "$shared" || left+=("$f")
    done
  fi
  note "after the purge: $(printf '%s\n' "$listing" | grep -vcx '/.') paths checked, ${#dirs[@]} of them folders other packages share"
  check "purge: nothing of dpkg -L's $(printf '%s\n' "$listing" | wc -l) paths left" "" "${left[*]}"
  check "purge: /etc/resource-control gone" no "$([ -e /etc/resource-control ] && echo yes || echo no)"
  check "purge: dpkg's own records of the packages gone" "" \
    "$(ls /var/lib/dpkg/info/ | grep -E '^resource-control(-panel)?[.:]')"
  # nor anything the maintainer scripts made (deb-systemd-helper's state); the test's own drop-in aside
  check "purge: no other resource-control file under /etc or /var/lib" "" \
    "$(find /etc /var/lib -name '*resource-control*' ! -path /etc/systemd/user/resource-control.service.d \
         ! -path '/etc/systemd/user/resource-control.service.d/*' 2>/dev/null)"
  check "purge: the user's rules file untouched" "$user_sum" "$(md5sum < "$user_rules" 2>&1)"
  check "purge: the running daemon is not stopped" "$daemon_pid" "$(usc show -P MainPID resource-control.service)"
}
