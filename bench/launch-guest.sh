#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Launch's cost, beside systemd's own: the time from the command to the app's first instruction for
# `resourcectl run` (a service) and `resourcectl run --scope` (which joins its scope and becomes the
# app, as `systemd-run --scope` does), next to `systemd-run --user` and `systemd-run --user --scope`,
# in one VM boot. The app is a script whose first command is `touch FILE`: the file's mtime is when
# it ran; it stays 1 s so that the units are listed as apps. Each launch starts on a settled
# machine: the one before it has ended and been cleaned up (SETTLE s after its start), and the order
# of the ways turns each round, so that no way is always the one measured while systemd tears down
# the app before it. Figures only (median of REPS), never asserted; goal: within 1.2x. Beside them, for
# where the time goes: `busctl` making the same Launch call (a new process speaking sd-bus, as
# `resourcectl run` does), and the bare start of each program (`--version`). The ratio is also given
# as the median of each round's own ratio, which a busy host sways less.
#
#     tests/vm/run-system-tests.sh --keep --payload bench/launch-guest.sh --with bench/guest-preamble.sh
set -u
[ "${1:-}" = --stage ] || { echo "launch-guest: run by tests/vm/run-system-tests.sh --payload" >&2; exit 2; }
STAGE=$2
REPS=${REPS:-11}
SETTLE=${SETTLE:-1.8}
# shellcheck source=bench/guest-preamble.sh
. "$(dirname "$0")/guest-preamble.sh"
bench_guest_setup "$STAGE" 'action.id == "org.example.ResourceControl.launch"'
apps=$VM_TEST_HOME/.local/share/applications
mkdir -p "$apps" /tmp/rc-bench-launch
printf '#!/bin/sh\ntouch "$1"\nexec sleep 1\n' > /usr/local/bin/rc-bench-touch
chmod 755 /usr/local/bin/rc-bench-touch
printf '[Desktop Entry]\nType=Application\nName=Touch\nExec=rc-bench-touch %%f\n' > "$apps/org.example.Touch.desktop"
chown -R "$TUSER:" "$VM_TEST_HOME/.local" /tmp/rc-bench-launch
# the daemon up before the first timed call (D-Bus activation is not what is measured)
"$AU" gdbus call --session --dest org.example.ResourceControl --object-path /org/example/ResourceControl \
  --method org.example.ResourceControl.ListApps > /dev/null
"$AU" /usr/bin/python3 - "$REPS" "$SETTLE" <<'PYEOF'
import os, statistics, subprocess, sys, time
reps = int(sys.argv[1])
settle = float(sys.argv[2])
ways = {
    'resourcectl run': ['resourcectl', 'run', 'org.example.Touch'],
    'systemd-run --user': ['systemd-run', '--user', '--quiet', '--collect', '/usr/local/bin/rc-bench-touch'],
    'busctl Launch': None,
    'resourcectl run --scope': ['resourcectl', 'run', '--scope', 'org.example.Touch'],
    'systemd-run --user --scope': ['systemd-run', '--user', '--quiet', '--scope', '/usr/local/bin/rc-bench-touch'],
}
BUSCTL = ['busctl', '--user', 'call', 'org.example.ResourceControl', '/org/example/ResourceControl',
          'org.example.ResourceControl', 'Launch', 'sasa{sv}', 'org.example.Touch', '1']
times = {k: [] for k in ways}
names = list(ways)
for i in range(reps + 1):          # the first round warms the caches and is not counted
    for name in names[i % len(names):] + names[:i % len(names)]:
        argv = ways[name]
        f = f'/tmp/rc-bench-launch/{i}-{len(times[name])}-{name.replace(" ", "_")}'
        command = argv + [f] if argv else BUSCTL + ['file://' + f, '0']
        t0 = time.time()
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
        for _ in range(200):
            if os.path.exists(f):
                break
            time.sleep(0.02)
        if i > 0:
            times[name].append(os.stat(f).st_mtime - t0)
        time.sleep(max(0.0, t0 + settle - time.time()))
def started(argv):
    ts = []
    for _ in range(reps):
        t0 = time.time()
        subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)
        ts.append(time.time() - t0)
    return statistics.median(ts) * 1000
med = {k: statistics.median(v) * 1000 for k, v in times.items()}
print(f'launch: command to the app\'s first instruction, median of {reps} (ms)')
for ours, theirs in (('resourcectl run', 'systemd-run --user'),
                     ('resourcectl run --scope', 'systemd-run --user --scope')):
    ratio = med[ours] / med[theirs]
    per_round = statistics.median(a / b for a, b in zip(times[ours], times[theirs]))
    print(f'  {ours:26s} {med[ours]:8.1f}   {theirs:28s} {med[theirs]:8.1f}   ratio {ratio:.2f} '
          f'(per round {per_round:.2f}; {"met" if ratio <= 1.2 else "missed"}: goal 1.2)')
for name, v in times.items():
    print(f'    {name:28s} each round: {" ".join("%.0f" % (x * 1000) for x in v)}')
print(f'  busctl Launch (sd-bus, the same call) {med["busctl Launch"]:.1f}; '
      f'start (--version): resourcectl {started(["resourcectl", "--version"]):.1f}, '
      f'systemd-run {started(["systemd-run", "--version"]):.1f}, busctl {started(["busctl", "--version"]):.1f}')
PYEOF
