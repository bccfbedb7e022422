#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# meson install into a DESTDIR puts every file where the system's
# pkg-config says dbus, systemd and polkitd look for it.
set -euo pipefail
build=$1
dest=$(mktemp -d)
trap 'rm -rf "$dest"' EXIT
meson install -C "$build" --no-rebuild --quiet --destdir "$dest" >/dev/null

prefix=$(meson introspect "$build" --buildoptions | /usr/bin/python3 -c \
  'import json,sys; print(next(o["value"] for o in json.load(sys.stdin) if o["name"]=="prefix"))')
libexecdir=$prefix/libexec
expect=(
  "$libexecdir/resource-controld"
  "$libexecdir/resource-control-scope-helper"
  "$prefix/bin/resourcectl"
  "$(pkg-config --variable=session_bus_services_dir dbus-1)/org.example.ResourceControl.service"
  "$(pkg-config --variable=interfaces_dir dbus-1)/org.example.ResourceControl.xml"
  "$(pkg-config --variable=systemduserunitdir systemd)/resource-control.service"
  "$(pkg-config --variable=systemduserunitdir systemd)/app-.scope.d/10-resource-control.conf"
  "$(pkg-config --variable=systemduserunitdir systemd)/app-.service.d/10-resource-control.conf"
  "$(pkg-config --variable=systemdsystemunitdir systemd)/user.slice.d/10-resource-control.conf"
  "$(pkg-config --variable=systemdsystemunitdir systemd)/user-.slice.d/10-resource-control.conf"
  "$(pkg-config --variable=systemdsystemunitdir systemd)/user@.service.d/10-resource-control.conf"
  "$(pkg-config --variable=policydir polkit-gobject-1)/org.example.ResourceControl.policy"
  "$(pkg-config --variable=systemduserunitdir systemd)/graphical-session.target.wants/resource-control.service"
  "$([ "$prefix" = /usr ] && echo /etc || echo "$prefix/etc")/xdg/autostart/resource-control.desktop"
  "$(pkg-config --variable=completionsdir bash-completion 2>/dev/null || echo "$prefix/share/bash-completion/completions")/resourcectl"
)
passed=0 failed=0
for f in "${expect[@]}"; do
  if [ -e "$dest$f" ]; then echo "ok - installed $f"; passed=$((passed + 1))
  else echo "not ok - missing $f"; failed=$((failed + 1)); fi
done
svc="$dest$(pkg-config --variable=session_bus_services_dir dbus-1)/org.example.ResourceControl.service"
if grep -qx "Exec=$libexecdir/resource-controld" "$svc" && grep -qx 'SystemdService=resource-control.service' "$svc"; then
  echo "ok - D-Bus service file activates $libexecdir/resource-controld through resource-control.service"; passed=$((passed + 1))
else
  echo "not ok - D-Bus service file content:"; sed 's/^/#   /' "$svc"; failed=$((failed + 1))
fi
# the panel (-Dpanel) is D-Bus activatable: its service file starts it as a GApplication service
if [ -e "$dest$prefix/bin/resource-control-panel" ]; then
  panel_svc="$dest$(pkg-config --variable=session_bus_services_dir dbus-1)/org.example.ResourceControl.Panel.service"
  panel_desktop="$dest$prefix/share/applications/org.example.ResourceControl.Panel.desktop"
  if [ -e "$panel_svc" ] && grep -qx 'Name=org.example.ResourceControl.Panel' "$panel_svc" &&
     grep -qx "Exec=$prefix/bin/resource-control-panel --gapplication-service" "$panel_svc" &&
     grep -qx DBusActivatable=true "$panel_desktop"; then
    echo "ok - the panel is D-Bus activatable ($prefix/bin/resource-control-panel --gapplication-service)"; passed=$((passed + 1))
  else
    echo "not ok - the panel's D-Bus service file or desktop file:"; sed 's/^/#   /' "$panel_svc" "$panel_desktop" || true
    failed=$((failed + 1))
  fi
fi
unit="$dest$(pkg-config --variable=systemduserunitdir systemd)/resource-control.service"
for line in Type=dbus BusName=org.example.ResourceControl Slice=session.slice PartOf=graphical-session.target \
            "ExecStart=$libexecdir/resource-controld"; do
  if grep -qx "$line" "$unit"; then echo "ok - user unit has $line"; passed=$((passed + 1))
  else echo "not ok - user unit lacks $line"; failed=$((failed + 1)); fi
done
# enabled for every user: the link is the one `systemctl --global enable` makes
wants="$dest$(pkg-config --variable=systemduserunitdir systemd)/graphical-session.target.wants/resource-control.service"
if [ "$(readlink "$wants")" = ../resource-control.service ] && grep -qx WantedBy=graphical-session.target "$unit"; then
  echo "ok - graphical-session.target wants the unit"; passed=$((passed + 1))
else
  echo "not ok - graphical-session.target.wants link: $(readlink "$wants")"; failed=$((failed + 1))
fi
autostart="$dest$([ "$prefix" = /usr ] && echo /etc || echo "$prefix/etc")/xdg/autostart/resource-control.desktop"
if desktop-file-validate "$autostart" && grep -qx X-systemd-skip=true "$autostart"; then
  echo "ok - the autostart entry is valid and skipped by systemd's generator"; passed=$((passed + 1))
else
  echo "not ok - autostart entry"; failed=$((failed + 1))
fi
# systemd itself accepts the unit (pointed at the staged binary).
rt=$(mktemp -d); chmod 700 "$rt"; vdir=$(mktemp -d)
sed "s|=$libexecdir/|=$dest$libexecdir/|" "$unit" > "$vdir/resource-control.service"
if out=$(XDG_RUNTIME_DIR=$rt systemd-analyze verify --user --man=no "$vdir/resource-control.service" 2>&1); then
  echo "ok - systemd-analyze verify accepts the user unit"; passed=$((passed + 1))
else
  echo "not ok - systemd-analyze verify: $out"; failed=$((failed + 1))
fi
rm -rf "$rt" "$vdir"
# the memory protection drop-ins hold MemoryLow and nothing else systemd would refuse
sysdir="$dest$(pkg-config --variable=systemdsystemunitdir systemd)"
for d in user.slice.d:Slice user-.slice.d:Slice user@.service.d:Service; do
  f=$sysdir/${d%%:*}/10-resource-control.conf
  if [ "$(grep -v '^#' "$f" | paste -sd' ')" = "[${d##*:}] MemoryLow=512M" ]; then
    echo "ok - ${d%%:*} drop-in sets MemoryLow=512M"; passed=$((passed + 1))
  else
    echo "not ok - ${d%%:*} drop-in: $(grep -v '^#' "$f" | paste -sd' ')"; failed=$((failed + 1))
  fi
done
echo "1..$((passed + failed))"
[ "$failed" = 0 ]
