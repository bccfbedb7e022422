#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
'''Host integration tests of which app a process is, an app's processes, and the slices
(docs/design.md, "Processes" and "Slices").

The same world as integration_test.py: the real daemon, a private session bus, the mock
systemd and a real polkitd. The VM tier (tests/vm/system-test.sh, sections "processes" and
"slices") is the proof against real systemd and the kernel's files.

    RC_DAEMON=build/src/resource-controld RC_CLIENT=build/src/resourcectl \\
        /usr/bin/python3 tests/integration/seed_test.py [Class.test_name ...]
'''

import json
import subprocess
import sys

import rctest_harness as h
from rctest_harness import RcTestCase, own_cgroup

APP = 'app-gnome-org.example.Editor-4711.scope'


class ProcessesTest(RcTestCase):

    def setUp(self):
        super().setUp()
        # a process with a child: the app's, in a real cgroup the app's record names
        # pylint: disable=consider-using-with
        self.proc = subprocess.Popen(['sh', '-c', 'sleep 60 & wait'], stdin=subprocess.DEVNULL)
        self.addCleanup(self.proc.wait)
        self.addCleanup(self.proc.kill)
        self.wait_until(lambda: self.child_pid() is not None, 5, 'the child')
        self.add_app(APP, control_group=own_cgroup(self.proc.pid),
                     pids=[self.proc.pid, self.child_pid()])

    def child_pid(self):
        out = subprocess.run(['pgrep', '-P', str(self.proc.pid)], capture_output=True, text=True,
                             check=False).stdout.split()
        return int(out[0]) if out else None

    def test_get_app_by_pid(self):
        for pid in (self.proc.pid, self.child_pid()):
            with self.subTest(pid=pid):
                (app,) = self.rc_call('GetAppByPid', (pid,), '(u)')[0]
                self.assertEqual((app['Unit'], app['AppId'], app['Name']),
                                 (APP, 'org.example.Editor', 'Test Editor'))

    def test_get_app_by_pid_errors(self):
        dead = subprocess.run(['sh', '-c', 'echo $$'], capture_output=True, text=True,
                              check=True).stdout.strip()
        message = self.assert_rc_error('NoSuchApp', 'GetAppByPid', (int(dead),), '(u)')
        self.assertIn(f'no process {dead}', message)
        message = self.assert_rc_error('NoSuchApp', 'GetAppByPid', (1,), '(u)')
        self.assertIn('is in no app', message)
        self.assert_rc_error('InvalidArgument', 'GetAppByPid', (0,), '(u)')

    def test_list_processes(self):
        procs = self.rc_call('ListProcesses', (APP,), '(s)')[0]
        self.assertEqual([p[0] for p in procs], sorted([self.proc.pid, self.child_pid()]))
        by_pid = {p[0]: p for p in procs}
        _, comm, cmdline, rss, cpu_ns, start_ns = by_pid[self.proc.pid]
        self.assertEqual((comm, cmdline), ('sh', 'sh -c sleep 60 & wait'))
        self.assertEqual(by_pid[self.child_pid()][1:3], ('sleep', 'sleep 60'))
        self.assertGreater(rss, 0)
        self.assertGreaterEqual(cpu_ns, 0)
        with open('/proc/uptime', encoding='ascii') as f:
            uptime_ns = float(f.read().split()[0]) * 1e9
        self.assertTrue(uptime_ns - 120e9 < start_ns <= uptime_ns + 1e9, (start_ns, uptime_ns))
        # by AppID too, and the errors of GetApp
        self.assertEqual(self.rc_call('ListProcesses', ('org.example.Editor',), '(s)')[0], procs)
        self.assert_rc_error('NoSuchApp', 'ListProcesses', ('org.example.Nope',), '(s)')
        self.assert_rc_error('InvalidArgument', 'ListProcesses', ('not an app',), '(s)')

    def test_a_process_that_ended_is_left_out(self):
        gone = subprocess.run(['sh', '-c', 'echo $$'], capture_output=True, text=True,
                              check=True).stdout.strip()
        self.mock('StopApp', (APP,), '(s)')
        self.wait_signal('AppRemoved', APP)
        self.add_app(APP, control_group=own_cgroup(self.proc.pid),
                     pids=[self.proc.pid, int(gone)])
        procs = self.rc_call('ListProcesses', (APP,), '(s)')[0]
        self.assertEqual([p[0] for p in procs], [self.proc.pid])

    def test_client_which_and_ps(self):
        out = self.run_client('which', str(self.child_pid()))
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertEqual(out.stdout.split('\t')[:2], [APP, 'org.example.Editor'])
        out = self.run_client('which', '1')
        self.assertEqual(out.returncode, 1, out.stderr)
        out = self.run_client('which', 'x')
        self.assertEqual(out.returncode, 2, out.stderr)
        out = self.run_client('ps', APP)
        self.assertEqual(out.returncode, 0, out.stderr)
        lines = out.stdout.splitlines()
        self.assertEqual(lines[0].split(), ['PID', 'RSS', 'CPU', 'COMMAND'])
        self.assertIn(f'{self.proc.pid} ', lines[1] + lines[2])
        out = self.run_client('ps', '--json', APP)
        self.assertEqual(out.returncode, 0, out.stderr)
        procs = json.loads(out.stdout)
        self.assertEqual({p['pid'] for p in procs}, {self.proc.pid, self.child_pid()})
        self.assertEqual({p['comm'] for p in procs}, {'sh', 'sleep'})


if __name__ == '__main__':
    sys.exit(h.main())
