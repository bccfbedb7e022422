#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Installs everything resource-control needs to build, run and test, on
# Debian 12 as root. Safe to run again.
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive

packages=(
  # build
  gcc libc6-dev meson ninja-build pkg-config
  libglib2.0-dev libglib2.0-bin libpolkit-gobject-1-dev libsystemd-dev libdbus-1-dev
  libjson-glib-dev libxcb1-dev
  # man pages: the man-pages test renders them with groff
  groff-base
  # the API reference in HTML (rst2html5) and its test
  python3-docutils
  # runtime pieces the tests use for real
  dbus dbus-daemon dbus-user-session polkitd pkexec systemd procps util-linux
  # host integration tests
  python3 python3-gi python3-dbusmock libxml2-utils desktop-file-utils
  # resourcectl's bash completion: its folder (bash-completion.pc), its test and its lint
  bash-completion shellcheck
  # focus_test.py plays an X11 window manager on Xvfb
  python3-xlib
  # focus-bench's plot (bench/focus-bench-report.py)
  python3-matplotlib
  # the VM focus sections: the real compositors (sway with Debian's config.d, i3 on Xvfb, KWin 5.27,
  # which pulls in Xwayland), xprop, and foot, the cheapest Wayland window to start under emulation
  sway i3-wm kwin-wayland x11-utils foot
  # memory checking
  valgrind clang libclang-rt-14-dev
  # fuzzing and static analysis
  cppcheck clang-tools-14
  # formatting (tests/check-format.sh) and Python lint
  uncrustify flake8
  # the settings panel (-Dpanel) and its tests: an X server, AT-SPI, key presses, screenshots
  libgtk-4-dev libadwaita-1-dev adwaita-icon-theme librsvg2-common
  xvfb at-spi2-core gir1.2-atspi-2.0 xdotool imagemagick
  # VM system tests
  qemu-system-x86 busybox-static kmod bc jq
  # the Debian packages (tools/build-deb.sh): dpkg-buildpackage, dh, lintian, and dch for the older
  # version the VM tier upgrades from
  debhelper dpkg-dev lintian devscripts
  # the VM boost test writes Mutter's focus mark (user.xdg.inactive-since) with setfattr
  attr
  # the VM oomd section: systemd-oomd acting on the ManagedOOM keys (the VM starts it only there)
  systemd-oomd
  # the audio hold (pw-dump at run time; the VM audio_power section: a real PipeWire with
  # WirePlumber, pw-play/pw-record) and the power conditions (a real power-profiles-daemon)
  pipewire pipewire-bin wireplumber power-profiles-daemon
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "install-deps: installing ${missing[*]}"
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
echo "install-deps: all ${#packages[@]} packages present"
