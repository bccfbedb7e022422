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

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

# pylint: disable=wrong-import-position
# rcbench first: it puts tests/integration on the path
import rcbench as rb  # noqa: E402
import rctest_harness as harness  # noqa: E402
import bench  # noqa: E402
from guard_test import FakeKernel, F, B  # noqa: E402
from power_audio_test import Base  # noqa: E402

APPS = rb.POLICY_BENCH_APPS
IDLE_S = 10 if rb.QUICK else 30


class GuardBench(Base):

    def daemon_env(self):
        return super().daemon_env() if os.environ.get("RC_BENCH_DEBUG") else rb.mock_daemon_env(super().daemon_env())

    def test_guard_figures(self):
        self.write_rules('[Guard]\nCPUWeightFloor=1\n')
        self.start_daemon()
        others = [f'app-gnome-org.example.Bench{i}-{i}.scope' for i in range(APPS - 2)]
        rb.add_apps_listed(self, [(unit, {}) for unit in [F, B] + others], 300)
        kernel = rb.start_fake_kernel(self, FakeKernel())
        # the others' cpu.stat stays as the mock wrote it: idle apps
        for unit in (F, B):
            kernel.set_rate(self.cgroup_dir(unit), 'usage', 0)
        kernel.set_rate(self.cgroup_dir(F), 'pressure', 0)
        pid = self.daemon.pid
        anon0 = rb.anon_exact_kib(pid)
        # the control: the same writes with no focused app, so no check
        kernel.set_rate(self.cgroup_dir(F), 'pressure', 300000)
        kernel.set_rate(self.cgroup_dir(B), 'usage', 1500000)
        time.sleep(1)
        control = rb.cpu_window(pid, rb.POLICY_BENCH_WINDOW_S)
        # under pressure: a check a second, every app's cpu.stat read at each, B stepped down
        # (without a trigger on the fake files, the focus change starts the checks)
        self.rc_call('SetForegroundApp', (F,), '(s)')
        checking = rb.cpu_window(pid, rb.POLICY_BENCH_WINDOW_S)
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
            **rb.checks_cpu_figures(control, checking),
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
