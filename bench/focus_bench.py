#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
'''Focus figures on the host (mock): focus change to the new cpu.weight, and idle wake-ups with a
focus source connected. The host integration harness's world (mock systemd, real polkitd, the
daemon from RC_DAEMON) with the fake compositors of tests/integration/focus_test.py. Beside the
daemon: the shell bridge, a process per event (`gdbus call ... SetForegroundProcess PID`), with the
daemon's own source off. The VM figures with the real compositors are printed by the VM sections
focus_sway, focus_i3 and focus_kwin (tests/vm/focus-sections.sh). Figures only, nothing asserted.

    RC_DAEMON=$PWD/build/src/resource-controld [RC_BENCH_QUICK=1] /usr/bin/python3 bench/focus_bench.py
(as root, like the host integration tests). Prints one JSON object.
'''

import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), 'tests', 'integration'))

# pylint: disable=wrong-import-position
import rctest_harness as harness  # noqa: E402
import rcbench as rb  # noqa: E402
import bench  # noqa: E402
from focus_test import APPS, FakeSway, FocusBase  # noqa: E402

RUNS = 10 if rb.QUICK else 40
IDLE_S = 10 if rb.QUICK else 60


def percentiles(ms):
    ms = sorted(ms)
    return {'n': len(ms), 'p50_ms': round(rb.percentile(ms, 50), 2),
            'p95_ms': round(rb.percentile(ms, 95), 2)}


class FocusBench(FocusBase):

    def daemon_env(self):
        return rb.mock_daemon_env(super().daemon_env())

    def timed_changes(self, send):
        '''send(i) makes app i focused; ms from it to cpu.weight 300 in the kernel file.'''
        out = []
        for n in range(RUNS):
            i = 1 + n % 2
            path = os.path.join(self.cgroup_dir(APPS[i]), 'cpu.weight')
            t0 = time.monotonic()
            send(i)
            while True:
                with open(path, encoding='ascii') as f:
                    if f.read().strip() == '300':
                        break
                time.sleep(0.0005)
            out.append((time.monotonic() - t0) * 1000)
            time.sleep(0.05)
        return percentiles(out)

    def test_focus_figures(self):
        sway = FakeSway(os.path.join(self.workdir, 'sway.sock'))
        self.addCleanup(sway.close)
        self.session_env = {'SWAYSOCK': sway.path}
        self.start_daemon()
        self.wait_until(lambda: not sway.connections.empty(), 10, 'the daemon to subscribe')
        conn = sway.connections.get()
        self.addCleanup(conn.close)
        for unit in APPS:
            self.cgroup_dir(unit)
        fig = {'idle_sway_connected': bench.measure_idle(self.daemon.pid, IDLE_S)}
        fig['daemon_sway'] = self.timed_changes(
            lambda i: conn.sendall(FakeSway.focus_event(self.pids[i])))
        fig['idle_after_focus_changes'] = bench.measure_idle(self.daemon.pid, IDLE_S)
        # the shell bridge: the daemon's source off, a gdbus process per event
        self.set_user_manager_environment(['HOME=/nowhere'])
        self.wait_until(lambda: self.get_property('FocusSource') == 'none', 10, 'no source')

        def bridge(i):
            subprocess.run(['gdbus', 'call', '--session', '--dest', 'org.example.ResourceControl',
                            '--object-path', '/org/example/ResourceControl', '--method',
                            'org.example.ResourceControl.SetForegroundProcess', str(self.pids[i])],
                           env=self.bus_env, stdout=subprocess.DEVNULL, check=True)
        fig['shell_bridge'] = self.timed_changes(bridge)
        fig['speedup_p50'] = round(fig['shell_bridge']['p50_ms'] / fig['daemon_sway']['p50_ms'], 1)
        for idle in (fig['idle_sway_connected'], fig['idle_after_focus_changes']):
            idle['wakeups'] = idle['voluntary_ctxt_switches'] + idle['nonvoluntary_ctxt_switches']
        print(json.dumps({'label': 'mock', 'runs': RUNS, 'figures': fig}, indent=1),
              file=sys.stderr)


if __name__ == '__main__':
    sys.exit(harness.main())
