# SPDX-License-Identifier: LGPL-2.1-or-later
# shellcheck shell=bash
#
# Sourced by the benchmark's VM payloads (bench/vm-guest.sh, bench/launch-guest.sh), which
# tests/vm/run-in-vm.sh runs as root in the guest. It reaches the guest's /mnt/vmshare beside them
# through --with (bench/run.sh passes it; for launch-guest.sh, run-system-tests.sh --with).
AU=/mnt/vmshare/as-user
TUSER=${VM_TEST_USER:?run by run-in-vm.sh}

# bench_guest_setup STAGE CONDITION: copy STAGE (a `meson install --destdir` tree of a --prefix=/usr
# build) over the guest's / (a tmpfs overlay: the host is not touched); let the test user, which has no
# login session (the shipped policy would ask it to authenticate), do the actions for which CONDITION
# (a JavaScript test of action.id) holds, as an active local session may; polkit still checks every
# call. Then the user manager reloads, to pick up the fair-by-default drop-ins as after a package install.
bench_guest_setup () {
  local stage=$1 condition=$2
  [ -d "$stage/usr" ] || { echo "$0: no staged install in '$stage'" >&2; exit 125; }
  # tar, not cp -a: the staged /lib/systemd/system goes through the guest's /lib -> usr/lib link
  tar -C "$stage" -cf - . | tar -C / -xf - --keep-directory-symlink
  [ -x /usr/libexec/resource-controld ] || { echo "$0: /usr/libexec/resource-controld not installed" >&2; exit 125; }
  mkdir -p /etc/polkit-1/rules.d
  cat > /etc/polkit-1/rules.d/10-rc-bench.rules <<RULES
// written by bench/guest-preamble.sh
polkit.addRule(function(action, subject) {
    if ($condition && subject.user == "$TUSER")
        return polkit.Result.YES;
    return polkit.Result.NOT_HANDLED;
});
RULES
  "$AU" systemctl --user daemon-reload
}
