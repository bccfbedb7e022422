#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
'''Host integration tests of which app a process is, an app's processes, and the slices
(docs/design.md, "Processes" and "Slices").

The same world as integration_test.py: the real daemon, a private session bus, the mock
systemd and a real polkitd. The VM tier (tests/vm/system-test.sh, sections "processes" and
"slices") is the proof against real systemd and the kernel's files.

    RC_DAEMON=build/src/resource-controld RC_CLIENT=build/src/resourcectl \\
        /usr/bin/python3 tests/integration/processes_slices_test.py [Class.test_name ...]
'''

import json
import os
import shutil
import socket
import subprocess
import sys

from gi.repository import Gio, GLib

import rctest_harness as h
from rctest_harness import MIB, RcTestCase, own_cgroup, s, t, u
from rcnames import LIMIT_KEYS, USAGE_KEYS

APP = 'app-gnome-org.example.Editor-4711.scope'


class ProcessesTest(RcTestCase):

    def setUp(self):
        super().setUp()
        # a process with a child: the app's, in a real cgroup the app's record names
        # pylint: disable=consider-using-with
        self.proc = subprocess.Popen(['sh', '-c', 'sleep 60 & wait'], stdin=subprocess.DEVNULL)
        self.addCleanup(self.proc.wait)
        self.addCleanup(self.proc.kill)
        # a child just forked is still "sh": wait until it runs sleep
        self.wait_until(lambda: self.child_pid() is not None, 10, 'the child to run sleep')
        self.add_app(APP, control_group=own_cgroup(self.proc.pid),
                     pids=[self.proc.pid, self.child_pid()])

    def child_pid(self):
        '''The shell's sleep, or None while it is not running sleep yet.'''
        out = subprocess.run(['pgrep', '-P', str(self.proc.pid), '-x', 'sleep'],
                             capture_output=True, text=True, check=False).stdout.split()
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
        # another user's process is in that user's units, never in this daemon's apps
        message = self.assert_rc_error('NoSuchApp', 'GetAppByPid', (1,), '(u)')
        self.assertIn('belongs to user 0', message)
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

    def test_long_command_lines_are_cut(self):
        # 50 processes with 100 KiB command lines were a 4 MiB reply; now each line is cut
        long_arg = 'x' * (100 * 1024)
        procs = []
        for _ in range(50):
            # pylint: disable=consider-using-with
            p = subprocess.Popen(['sh', '-c', 'sleep 60; :', long_arg], stdin=subprocess.DEVNULL)
            self.addCleanup(p.wait)
            self.addCleanup(p.kill)
            procs.append(p.pid)

        def started(pid):
            with open(f'/proc/{pid}/cmdline', 'rb') as f:
                return f.read(16)
        # on a loaded machine a child may not have run its exec yet when Popen returns
        self.wait_until(lambda: all(started(pid).startswith(b"sh\0") for pid in procs),
                        message='every sh started')
        self.mock('StopApp', (APP,), '(s)')
        self.wait_signal('AppRemoved', APP)
        self.add_app(APP, control_group=own_cgroup(self.proc.pid), pids=procs)
        reply = self.conn.call_sync(h.RC_NAME, h.RC_PATH, h.RC_IFACE, 'ListProcesses',
                                    GLib.Variant('(s)', (APP,)), None, Gio.DBusCallFlags.NONE,
                                    30000, None)
        self.assertLess(reply.get_size(), 1024 * 1024)
        listed = reply.unpack()[0]
        self.assertEqual(sorted(p[0] for p in listed), sorted(procs))
        for _, _, cmdline, _, _, _ in listed:
            self.assertLessEqual(len(cmdline.encode()), 4096)
            self.assertTrue(cmdline.startswith('sh -c sleep 60; : xxx'), cmdline[:40])
            self.assertTrue(cmdline.endswith('…'))

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


SL = '(sa{sv}a{sv})'
SHIPPED_SLICES = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'data',
                              'rules', '10-slices.conf')


class SlicesTest(RcTestCase):

    def slice_file(self, name, file):
        path = os.path.join(self.cgroup_root, 'user.slice', f'user-{os.getuid()}.slice',
                            f'user@{os.getuid()}.service', name, file)
        with open(path, encoding='ascii') as f:
            return f.read().strip()

    def slice_calls(self):
        return [(c[0], c[1], dict(c[2])) for c in self.systemd_calls('SetUnitProperties')
                if c[0].endswith('.slice')]

    def test_list_slices(self):
        slices = self.rc_call('ListSlices')[0]
        self.assertEqual([s['Unit'] for s in slices],
                         ['session.slice', 'app.slice', 'background.slice'])
        for rec in slices:
            self.assertEqual((rec['CPUWeight'], rec['MemoryLow'], rec['MemoryMax'], rec['MemoryMin'],
                              rec['MemoryCurrent']), (100, 0, h.UINT64_MAX, 0, 200 * MIB))
        self.assertEqual(set(slices[0]), {'Unit', *LIMIT_KEYS, *USAGE_KEYS})

    def test_set_slice_limits_changes_that_slice_only(self):
        self.rc_call('SetSliceLimits', ('session.slice', {'CPUWeight': t(300),
                                                          'MemoryMin': t(64 * MIB)}, {}), SL)
        self.assertEqual(self.slice_calls(), [('session.slice', True, {
            'CPUWeight': 300, 'MemoryMin': 64 * MIB})])
        self.assertEqual((self.slice_file('session.slice', 'cpu.weight'),
                          self.slice_file('session.slice', 'memory.min')), ('300', str(64 * MIB)))
        for other in ('app.slice', 'background.slice'):
            self.assertEqual(self.slice_file(other, 'cpu.weight'), '100')
        (session, _, _) = self.rc_call('ListSlices')[0]
        self.assertEqual((session['CPUWeight'], session['MemoryMin']), (300, 64 * MIB))

    def test_bad_input(self):
        table = [
            (('user.slice', {'CPUWeight': t(10)}, {}), 'Protected'),
            (('init.scope', {'CPUWeight': t(10)}, {}), 'Protected'),
            (('app-gnome-org.example.Editor-1.scope', {'CPUWeight': t(10)}, {}), 'Protected'),
            (('session', {'CPUWeight': t(10)}, {}), 'InvalidArgument'),
            (('session.slice', {'CPUWeight': t(0)}, {}), 'InvalidArgument'),
            (('session.slice', {'Bogus': t(1)}, {}), 'InvalidArgument'),
            (('session.slice', {}, {}), 'InvalidArgument'),
            (('session.slice', {'MemoryMax': t(64 * MIB)}, {}), 'WouldKill'),
        ]
        for args, error in table:
            with self.subTest(args=args):
                self.assert_rc_error(error, 'SetSliceLimits', args, SL)
        self.assertEqual(self.slice_calls(), [])
        # forced, the cap goes through
        self.rc_call('SetSliceLimits', ('app.slice', {'MemoryMax': t(64 * MIB)},
                                        {'force': GLib.Variant('b', True)}), SL)
        self.assertEqual(self.slice_file('app.slice', 'memory.max'), str(64 * MIB))

    def test_shipped_defaults_and_the_api_over_them(self):
        shutil.copy(SHIPPED_SLICES, self.system_rules_dir)
        self.wait_until(lambda: self.slice_file('background.slice', 'cpu.weight') == '20', 5,
                        'the shipped background.slice weight')
        self.assertEqual(self.slice_file('session.slice', 'cpu.weight'), '300')
        self.assertEqual(self.slice_file('app.slice', 'cpu.weight'), '100')
        # the compositor's working set is protected; the apps' slices are not
        self.assertEqual(self.slice_file('session.slice', 'memory.low'), str(256 * MIB))
        self.assertEqual(self.slice_file('app.slice', 'memory.low'), '0')
        # the API wins over the rule, also when the rule changes afterwards
        self.rc_call('SetSliceLimits', ('background.slice', {'CPUWeight': t(50)}, {}), SL)
        self.write_user_rule('[Slice background]\nCPUWeight=30\n[Slice session]\n')
        self.wait_until(lambda: self.slice_file('session.slice', 'cpu.weight') == '100', 5,
                        'the user\'s empty group to take the shipped weight away')
        self.wait_until(lambda: self.slice_file('session.slice', 'memory.low') == '0', 5,
                        'the user\'s empty group to take the shipped protection away')
        self.assertEqual(self.slice_file('background.slice', 'cpu.weight'), '50')

    def test_a_refused_value_is_not_applied_later(self):
        self.mock('SetFailFor', ('SetUnitProperties', 'background.slice',
                                 'org.freedesktop.DBus.Error.AccessDenied', 'computer says no', 1),
                  '(ssssu)')
        message = self.assert_rc_error('Failed', 'SetSliceLimits',
                                       ('background.slice', {'CPUWeight': t(50)}, {}), SL)
        self.assertIn('computer says no', message)
        # the rules are read again: what systemd refused is not slipped in then
        self.write_user_rule('[Slice app]\nCPUWeight=90\n')
        self.wait_until(lambda: self.slice_file('app.slice', 'cpu.weight') == '90', 5,
                        'the app.slice rule')
        self.assertEqual(self.slice_file('background.slice', 'cpu.weight'), '100')

    def write_user_rule(self, text):
        os.makedirs(self.user_rules_dir, exist_ok=True)
        path = os.path.join(self.user_rules_dir, '50-slices.conf')
        h._write(path + '.tmp', text)
        os.rename(path + '.tmp', path)

    def test_denied_by_polkit(self):
        self.set_rules(body=f'''
            if (action.id == "{h.ACTION_PREFIX}set-slice-limits")
                return polkit.Result.NO;
            return polkit.Result.YES;''')
        self.assert_rc_error('NotAuthorized', 'SetSliceLimits',
                             ('session.slice', {'CPUWeight': t(300)}, {}), SL)
        self.assertEqual(self.slice_calls(), [])

    def test_client_slices_and_slice_set(self):
        out = self.run_client('slice-set', 'background.slice', 'CPUWeight=25', 'MemoryMin=0')
        self.assertEqual(out.returncode, 0, out.stderr)
        out = self.run_client('slices')
        self.assertEqual(out.returncode, 0, out.stderr)
        lines = out.stdout.splitlines()
        self.assertEqual(lines[0].split()[:3], ['SLICE', 'CPU', 'WEIGHT'])
        self.assertEqual(lines[3].split()[:2], ['background.slice', '25'])
        out = self.run_client('slice-set', 'user.slice', 'CPUWeight=25')
        self.assertEqual(out.returncode, 1, out.stderr)
        self.assertIn('not one of the slices', out.stderr)


APP2 = 'app-gnome-org.example.Real-77.scope'


def oomd_socket(test, name, listening):
    '''A unix socket file in the test's workdir for RC_OOMD_SOCKET: one that takes
    connections, or one that does not (listening=False).'''
    path = os.path.join(test.workdir, name)
    if not os.path.exists(path):
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.bind(path)
        if listening:
            sock.listen(16)
            test.addCleanup(sock.close)
        else:
            sock.close()
    return path


class OomKeysWithoutOomdTest(RcTestCase):
    '''No systemd-oomd (as on stock Debian 12): the ManagedOOM keys would do nothing.'''

    def daemon_env(self):
        # a socket file left behind by a stopped systemd-oomd.socket takes no connection
        return dict(super().daemon_env(),
                    RC_OOMD_SOCKET=oomd_socket(self, 'stale-oomd-socket', listening=False))

    def test_not_supported(self):
        self.add_app(APP)
        for limits in ({'ManagedOOMMemoryPressure': s('kill')},
                       {'ManagedOOMMemoryPressureLimit': u(40)},
                       {'ManagedOOMPreference': s('avoid')}):
            with self.subTest(limits=limits):
                message = self.assert_rc_error('NotSupported', 'SetLimits', (APP, limits, {}), SL)
                self.assertIn('systemd-oomd', message)
        self.assertEqual(self.systemd_calls('SetUnitProperties'), [])


class OomKeysTest(RcTestCase):
    '''systemd-oomd runs (its socket is there).'''

    def daemon_env(self):
        return dict(super().daemon_env(),
                    RC_OOMD_SOCKET=oomd_socket(self, 'oomd-socket', listening=True))

    def test_pressure_keys_on_a_running_app(self):
        self.add_app(APP)
        self.rc_call('SetLimits', (APP, {'ManagedOOMMemoryPressure': s('kill'),
                                         'ManagedOOMMemoryPressureLimit': u(40)}, {}), SL)
        ((unit, runtime, props),) = self.systemd_calls('SetUnitProperties')
        # systemd's limit is a fraction of 2^32 - 1, as `systemctl show` prints it for 40%
        self.assertEqual((unit, runtime, dict(props)), (APP, True, {
            'ManagedOOMMemoryPressure': 'kill', 'ManagedOOMMemoryPressureLimit': 1717986918}))

    def test_preference_only_when_a_unit_starts(self):
        self.add_app(APP)
        message = self.assert_rc_error('NotSupported', 'SetLimits',
                                       (APP, {'ManagedOOMPreference': s('avoid')}, {}), SL)
        self.assertIn('only when a unit starts', message)
        # a rule's preference is not tried on a unit that runs; its other keys are
        self.write_rules(self.system_rules_dir, '50-oom.conf',
                         '[org.example.Real]\nManagedOOMPreference=omit\nCPUWeight=40\n')
        self.wait_until(lambda: 'org.example.Real' in self.rc_call('ListRules')[0], 5, 'the rule')
        self.add_app(APP2)
        self.wait_until(lambda: self.systemd_calls('SetUnitProperties'), 5, 'the rule applied')
        ((unit, _, props),) = self.systemd_calls('SetUnitProperties')
        self.assertEqual((unit, dict(props)), (APP2, {'CPUWeight': 40}))
        self.assertEqual(self.rc_call('ListRules')[0]['org.example.Real']['ManagedOOMPreference'],
                         'omit')

    def test_preference_at_launch(self):
        unit = self.rc_call('Launch', ('org.example.Editor', [], {
            'Limits': GLib.Variant('a{sv}', {'ManagedOOMPreference': s('avoid')})}),
            '(sasa{sv})')[0]
        ((name, _, props, _),) = self.systemd_calls('StartTransientUnit')
        self.assertEqual((name, dict(props)['ManagedOOMPreference']), (unit, 'avoid'))

    def write_rules(self, folder, name, text):
        path = os.path.join(folder, name)
        h._write(path + '.tmp', text)
        os.rename(path + '.tmp', path)

    def test_bad_values(self):
        self.add_app(APP)
        for limits in ({'ManagedOOMPreference': s('sometimes')},
                       {'ManagedOOMMemoryPressure': s('Kill')},
                       {'ManagedOOMMemoryPressure': u(1)},
                       {'ManagedOOMMemoryPressureLimit': u(101)},
                       {'ManagedOOMMemoryPressureLimit': t(40)}):
            with self.subTest(limits=limits):
                message = self.assert_rc_error('InvalidArgument', 'SetLimits', (APP, limits, {}), SL)
                self.assertIn(list(limits)[0], message)
        self.assertEqual(self.systemd_calls('SetUnitProperties'), [])

    def test_client_set(self):
        self.add_app(APP)
        out = self.run_client('set', APP, 'ManagedOOMMemoryPressure=kill',
                              'ManagedOOMMemoryPressureLimit=20%')
        self.assertEqual(out.returncode, 0, out.stderr)
        ((_, _, props),) = self.systemd_calls('SetUnitProperties')
        self.assertEqual(dict(props)['ManagedOOMMemoryPressureLimit'], 858993459)


if __name__ == '__main__':
    sys.exit(h.main())
