#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
'''The memory ladder's figures on the host (mock), beside its budget (bench/README.md): the
daemon's CPU per check while app.slice is under memory pressure (each check reads the eligible
apps' memory.current and takes its steps), its wake-ups once everything is given back, and the
RssAnon while apps are held and after, at N apps (1,000; 100 with RC_BENCH_QUICK=1). The world
of tests/integration/ladder_test.py (its fake kernel grows the pressure counters); the daemon
without debug logging. The VM's figures (real pressure, the kernel's triggers) are VM section
"memory"'s and bench/memory-bench.sh's. Figures only, nothing asserted.

    RC_DAEMON=$PWD/build/src/resource-controld [RC_BENCH_QUICK=1] /usr/bin/python3 bench/ladder_bench.py
(as root, like the host integration tests). Prints one JSON object.
'''

import glob
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
from ladder_test import FakeKernel, F, GIB, MIB  # noqa: E402
from power_audio_test import Base  # noqa: E402

APPS = rb.POLICY_BENCH_APPS
IDLE_S = 10 if rb.QUICK else 20
BUDGET = {'cpu_ms_per_check': 5, 'wakeups_at_rest': 0, 'rss_anon_kib_held': 16}


class LadderBench(Base):

    def daemon_env(self):
        return rb.mock_daemon_env(super().daemon_env())

    def test_ladder_figures(self):
        # freezing out of reach: the figure is the throttling check's
        self.write_rules('[Guard]\nMemoryPressureFreeze=90\n')
        self.start_daemon()
        others = [f'app-gnome-org.example.Bench{i}-{i}.scope' for i in range(APPS - 1)]
        rb.add_apps_listed(self, [(F, {'memory_current': GIB})] +
                           [(unit, {'memory_current': (200 + i) * MIB})
                            for i, unit in enumerate(others)], 600)
        manager = glob.glob(os.path.join(self.cgroup_root, 'user.slice', 'user-*.slice',
                                         'user@*.service'))[0]
        app_slice = os.path.join(manager, 'app.slice')
        kernel = rb.start_fake_kernel(self, FakeKernel())
        kernel.set_rate(manager, 0)
        pid = self.daemon.pid
        # the control: the same writes with no check running
        kernel.set_rate(app_slice, 200000)
        time.sleep(1)
        control = rb.cpu_window(pid, rb.POLICY_BENCH_WINDOW_S)
        anon0 = rb.anon_exact_kib(pid)
        # without a trigger on the fake files, the focus change starts the checks
        self.rc_call('SetForegroundApp', (F,), '(s)')
        checking = rb.cpu_window(pid, rb.POLICY_BENCH_WINDOW_S)
        held = self.get_property('MemoryLadderHeld')
        anon_held = rb.anon_exact_kib(pid)
        kernel.set_rate(app_slice, 0)
        self.wait_until(lambda: self.get_property('MemoryLadderHeld') == [], 600,
                        'everything given back')
        time.sleep(2)
        idle = bench.measure_idle(pid, IDLE_S)
        fig = {
            'apps': APPS,
            'held_under_pressure': len(held),
            **rb.checks_cpu_figures(control, checking),
            'idle_after': idle,
            'rss_anon_kib_before': anon0, 'rss_anon_kib_held': anon_held,
            'rss_anon_kib_after': rb.anon_exact_kib(pid),
        }
        wakeups = idle['voluntary_ctxt_switches'] + idle['nonvoluntary_ctxt_switches']
        added = anon_held - anon0
        verdict = {
            'cpu_ms_per_check': [fig['cpu_ms_per_check'], BUDGET['cpu_ms_per_check'],
                                 'met' if fig['cpu_ms_per_check'] <= BUDGET['cpu_ms_per_check'] else 'missed'],
            'wakeups_at_rest': [wakeups, BUDGET['wakeups_at_rest'],
                                'met' if wakeups <= BUDGET['wakeups_at_rest'] else 'missed'],
            'rss_anon_kib_held': [added, BUDGET['rss_anon_kib_held'],
                                  'met' if added <= BUDGET['rss_anon_kib_held'] else 'missed'],
        }
        print(json.dumps({'label': 'mock', 'figures': fig, 'figure_budget_verdict': verdict},
                         indent=1), file=sys.stderr)


if __name__ == '__main__':
    sys.exit(harness.main())
