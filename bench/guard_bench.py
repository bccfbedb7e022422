#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
'''The responsiveness guard's figures on the host (mock), beside its budget (bench/README.md):
the daemon's CPU per check while the focused app is under pressure (each check reads every
app's cpu.stat and takes its step), its wake-ups and CPU at rest once everything is given back,
and the RssAnon it leaves behind, at N apps (1,000; 100 with RC_BENCH_QUICK=1). The world of
tests/integration/guard_test.py (its fake kernel grows the pressure and CPU-use counters); the
daemon without debug logging. The VM's figures (the kernel's triggers, wake-ups at rest) are
VM section "guard"'s notes. Figures only, nothing asserted.

    RC_DAEMON=$PWD/build/src/resource-controld [RC_BENCH_QUICK=1] /usr/bin/python3 bench/guard_bench.py
(as root, like the host integration tests). Prints one JSON object.
'''

import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), 'tests', 'integration'))

# pylint: disable=wrong-import-position
import rctest_harness as harness  # noqa: E402
import rcbench as rb  # noqa: E402
import bench  # noqa: E402
from guard_test import FakeKernel, F, B  # noqa: E402
from power_audio_test import Base  # noqa: E402

QUICK = os.environ.get('RC_BENCH_QUICK') == '1'
APPS = 100 if QUICK else 1000
PRESSED_S = 8
IDLE_S = 10 if QUICK else 30


class GuardBench(Base):

    def daemon_env(self):
        return super().daemon_env() if os.environ.get("RC_BENCH_DEBUG") else rb.mock_daemon_env(super().daemon_env())

    def test_guard_figures(self):
        self.write_rules('[Guard]\nCPUWeightFloor=1\n')
        self.start_daemon()
        others = [f'app-gnome-org.example.Bench{i}-{i}.scope' for i in range(APPS - 2)]
        for unit in [F, B] + others:
            self.add_app(unit, wait=False)
        self.wait_until(lambda: len(self.list_apps()) == APPS, 300, f'{APPS} apps listed')
        kernel = FakeKernel()
        kernel.start()
        self.addCleanup(kernel.join)
        self.addCleanup(kernel.stopping.set)
        # the others' cpu.stat stays as the mock wrote it: idle apps
        for unit in (F, B):
            kernel.set_rate(self.cgroup_dir(unit), 'usage', 0)
        kernel.set_rate(self.cgroup_dir(F), 'pressure', 0)
        pid = self.daemon.pid
        anon0 = rb.anon_exact_kib(pid)
        # the fake kernel's writes wake the daemon (its inotify watches on the folders), which
        # the kernel's own counters never do: the same writes with no focused app, so no check,
        # are the control taken off the figure
        kernel.set_rate(self.cgroup_dir(F), 'pressure', 300000)
        kernel.set_rate(self.cgroup_dir(B), 'usage', 1500000)
        time.sleep(1)
        control0, c0 = rb.cpu_seconds(pid), time.monotonic()
        time.sleep(PRESSED_S)
        control1, c1 = rb.cpu_seconds(pid), time.monotonic()
        # under pressure: a check a second, every app's cpu.stat read at each, B stepped down
        # (without a trigger on the fake files, the focus change starts the checks)
        self.rc_call('SetForegroundApp', (F,), '(s)')
        cpu0, t0 = rb.cpu_seconds(pid), time.monotonic()
        time.sleep(PRESSED_S)
        cpu1, t1 = rb.cpu_seconds(pid), time.monotonic()
        held = self.get_property('GuardHeld')
        # calm: given back, then the checks stop
        kernel.set_rate(self.cgroup_dir(F), 'pressure', 0)
        kernel.set_rate(self.cgroup_dir(B), 'usage', 0)
        self.wait_until(lambda: self.get_property('GuardHeld') == [], 120, 'everything given back')
        time.sleep(2)
        anon1 = rb.anon_exact_kib(pid)
        fig = {
            'apps': APPS,
            'held_under_pressure': held,
            'cpu_ms_per_s_control': round((control1 - control0) * 1000 / (c1 - c0), 2),
            'cpu_ms_per_s_under_pressure': round((cpu1 - cpu0) * 1000 / (t1 - t0), 2),
            # a check a second
            'cpu_ms_per_check': round(((cpu1 - cpu0) / (t1 - t0) - (control1 - control0) / (c1 - c0))
                                      * 1000, 2),
            'idle_after': bench.measure_idle(pid, IDLE_S),
            'rss_anon_kib_before': anon0, 'rss_anon_kib_after': anon1,
        }
        print(json.dumps({'label': 'mock', 'figures': fig}, indent=1), file=sys.stderr)
        if os.environ.get('RC_BENCH_DEBUG'):
            with open(self.daemon_logs[-1], encoding='utf-8', errors='replace') as f:
                print(''.join(line for line in f if 'Guard' in line or 'Policy' in line)[-6000:],
                      file=sys.stderr)


if __name__ == '__main__':
    sys.exit(harness.main())
