#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Launch's cost, beside systemd's own: the time from the command to the app's first instruction for
# `resourcectl run` (a service) and `resourcectl run --scope` (which joins its scope and becomes the
# app, as `systemd-run --scope` does), next to `systemd-run --user` and `systemd-run --user --scope`,
# in one VM boot. The app is a script whose
# first command is `touch FILE`: the file's mtime is when it ran; it stays 2 s so that the units are
# listed as apps. Figures only (median of REPS), never asserted; goal: within 1.2x.
#
#     tests/vm/run-system-tests.sh --keep --payload bench/launch-guest.sh
set -u
STAGE=
while [ $# -gt 0 ]; do
  case "$1" in
    --stage) STAGE=$2; shift ;;
    *) ;;
  esac
  shift
done
AU=/mnt/vmshare/as-user
TUSER=${VM_TEST_USER:?run by run-in-vm.sh}
REPS=${REPS:-7}
cp -a "$STAGE"/. /
mkdir -p /etc/polkit-1/rules.d
cat > /etc/polkit-1/rules.d/10-rc-bench.rules <<EOF
polkit.addRule(function(action, subject) {
    if (action.id == "org.example.ResourceControl.launch" && subject.user == "$TUSER")
        return polkit.Result.YES;
    return polkit.Result.NOT_HANDLED;
});
EOF
apps=$VM_TEST_HOME/.local/share/applications
mkdir -p "$apps" /tmp/rc-bench-launch
printf '#!/bin/sh\ntouch "$1"\nexec sleep 2\n' > /usr/local/bin/rc-bench-touch
chmod 755 /usr/local/bin/rc-bench-touch
printf '[Desktop Entry]\nType=Application\nName=Touch\nExec=rc-bench-touch %%f\n' > "$apps/org.example.Touch.desktop"
chown -R "$TUSER:" "$VM_TEST_HOME/.local" /tmp/rc-bench-launch
"$AU" systemctl --user daemon-reload
# the daemon up before the first timed call (D-Bus activation is not what is measured)
"$AU" gdbus call --session --dest org.example.ResourceControl --object-path /org/example/ResourceControl \
  --method org.example.ResourceControl.ListApps > /dev/null
"$AU" /usr/bin/python3 - "$REPS" <<'PYEOF'
import os, statistics, subprocess, sys, time
reps = int(sys.argv[1])
ways = {
    'resourcectl run': ['resourcectl', 'run', 'org.example.Touch'],
    'systemd-run --user': ['systemd-run', '--user', '--quiet', '--collect', '/usr/local/bin/rc-bench-touch'],
    'resourcectl run --scope': ['resourcectl', 'run', '--scope', 'org.example.Touch'],
    'systemd-run --user --scope': ['systemd-run', '--user', '--quiet', '--scope', '/usr/local/bin/rc-bench-touch'],
}
times = {k: [] for k in ways}
for i in range(reps + 1):          # the first round warms the caches and is not counted
    for name, argv in ways.items():
        f = f'/tmp/rc-bench-launch/{i}-{len(times[name])}-{name.replace(" ", "_")}'
        t0 = time.time()
        subprocess.run(argv + [f], check=True, stdout=subprocess.DEVNULL)
        for _ in range(200):
            if os.path.exists(f):
                break
            time.sleep(0.02)
        if i > 0:
            times[name].append(os.stat(f).st_mtime - t0)
med = {k: statistics.median(v) * 1000 for k, v in times.items()}
print(f'launch: command to the app\'s first instruction, median of {reps} (ms)')
for ours, theirs in (('resourcectl run', 'systemd-run --user'),
                     ('resourcectl run --scope', 'systemd-run --user --scope')):
    ratio = med[ours] / med[theirs]
    print(f'  {ours:26s} {med[ours]:8.1f}   {theirs:28s} {med[theirs]:8.1f}   ratio {ratio:.2f} '
          f'({"met" if ratio <= 1.2 else "missed"}: goal 1.2)')
PYEOF
