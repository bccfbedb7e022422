#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
'''Host integration tests of resourcectl against the real daemon: its commands, output,
exit statuses and rule commands (man resourcectl).

Run as root, like integration_test.py:

    RC_DAEMON=build/src/resource-controld RC_CLIENT=build/src/resourcectl \\
        /usr/bin/python3 tests/integration/client_test.py [Class.test_name ...]
'''

import fcntl
import json
import os
import pty
import re
import select
import signal
import struct
import subprocess
import sys
import termios
import time


import rctest_harness as h
from rctest_harness import MIB, UINT64_MAX
from rcbase import APP, APP_ID, Base


#
# resourcectl, the command-line client, against the same daemon
#

class ClientBase(Base):
    '''resourcectl against the daemon, with APP running.'''

    def setUp(self):
        super().setUp()
        self.assertTrue(self.client_path and os.access(self.client_path, os.X_OK),
                        f'RC_CLIENT ({self.client_path}) is not an executable')
        self.add_app(APP, pids=[4242])
        self.clear_systemd_calls()

    def client_ok(self, *args):
        proc = self.run_client(*args)
        self.assertEqual(proc.returncode, 0, f'resourcectl {" ".join(args)}: {proc.stderr}')
        return proc.stdout


class ClientTest(ClientBase):

    def test_list_and_show_json(self):
        apps = json.loads(self.client_ok('list', '--json'))
        self.assertEqual([(a['Unit'], a['AppId'], a['Name']) for a in apps],
                         [(APP, APP_ID, 'Test Editor')])
        self.assertIsNone(apps[0]['MemoryMax'], 'G_MAXUINT64 ("max") should be null in JSON')
        self.assertEqual(apps[0]['CPUWeight'], 100)
        shown = json.loads(self.client_ok('show', APP_ID, '--json'))
        self.assertEqual([a['Unit'] for a in shown], [APP])

    def test_list_and_show_text(self):
        self.assertIn(APP_ID, self.client_ok('list'))
        out = self.client_ok('show', APP)
        self.assertIn(f'Unit: {APP}', out)
        self.assertIn('Name: Test Editor', out)

    def test_set_weight(self):
        self.client_ok('set-weight', APP_ID, '300')
        self.assertEqual(self.unit_property_calls(), [(APP, True, {'CPUWeight': 300})])
        self.assertEqual(self.cgroup_file(APP, 'cpu.weight'), '300')

    def test_set_memory_limit_with_size_suffix(self):
        self.client_ok('set-memory-limit', APP, '512M')
        self.assertEqual(self.unit_property_calls(),
                         [(APP, True, {'MemoryMax': 512 * MIB, 'MemoryHigh': 448 * MIB})])
        self.client_ok('set-memory-limit', APP, 'infinity')
        self.assertEqual(self.unit_property_calls()[-1][2],
                         {'MemoryMax': UINT64_MAX, 'MemoryHigh': UINT64_MAX})

    def test_set_memory_limit_force(self):
        self.mock('SetMemoryCurrent', (APP, 200 * MIB), '(st)')
        proc = self.run_client('set-memory-limit', APP, '128M')
        self.assertEqual(proc.returncode, 1, proc.stderr)
        self.assertTrue(proc.stderr.strip())
        self.assertEqual(self.unit_property_calls(), [])
        self.client_ok('set-memory-limit', '--force', APP, '128M')
        self.assertEqual(self.unit_property_calls(),
                         [(APP, True, {'MemoryMax': 128 * MIB, 'MemoryHigh': 112 * MIB})])
        self.assertEqual(self.cgroup_file(APP, 'memory.max'), str(128 * MIB))

    def test_set_several_limits(self):
        self.client_ok('set', APP, 'CPUWeight=200', 'CPUQuota=50%', 'MemoryMax=1G',
                       'TasksMax=infinity')
        self.assertEqual(self.unit_property_calls(), [(APP, True, {
            'CPUWeight': 200, 'CPUQuotaPerSecUSec': 500000, 'MemoryMax': 1024 * MIB,
            'TasksMax': UINT64_MAX})])

    def test_reset_freeze_thaw(self):
        self.client_ok('set-weight', APP, '300')
        self.client_ok('reset', APP)
        self.assertEqual(self.cgroup_file(APP, 'cpu.weight'), '100')
        self.client_ok('freeze', APP)
        self.assertIn('frozen 1', self.cgroup_file(APP, 'cgroup.events'))
        self.client_ok('thaw', APP)
        self.assertIn('frozen 0', self.cgroup_file(APP, 'cgroup.events'))

    def test_daemon_errors_exit_1(self):
        for args in [('set-weight', 'org.example.NotRunning', '100'),
                     ('show', 'org.example.NotRunning'),
                     ('set-weight', 'session-2.scope', '100'),
                     ('set', APP, 'IOWeight=200')]:
            with self.subTest(args=args):
                proc = self.run_client(*args)
                self.assertEqual(proc.returncode, 1, proc.stdout + proc.stderr)
                self.assertTrue(proc.stderr.strip(), 'an error without a message')
        self.set_rules('deny-all')
        proc = self.run_client('set-weight', APP, '100')
        self.assertEqual(proc.returncode, 1)
        self.assertEqual(self.unit_property_calls(), [])

    def test_usage_errors_exit_2(self):
        for args in [(), ('bogus',), ('set-weight', APP), ('set-weight', APP, 'heavy'),
                     ('set-weight', APP, '100', 'extra'), ('set-memory-limit', APP, '12Q'),
                     ('set', APP, 'NoSuchKey=1'), ('set', APP, 'CPUWeight')]:
            with self.subTest(args=args):
                proc = self.run_client(*args)
                self.assertEqual(proc.returncode, 2, proc.stdout + proc.stderr)
                self.assertTrue(proc.stderr.strip())
        self.assertEqual(self.unit_property_calls(), [])

    def test_daemon_not_running(self):
        self.stop_daemon()
        proc = self.run_client('list')
        self.assertEqual(proc.returncode, 1)
        self.assertIn('not running', proc.stderr)

    def test_monitor_prints_events(self):
        # pylint: disable=consider-using-with
        proc = subprocess.Popen([self.client_path, 'monitor'], env=self.bus_env,
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.addCleanup(proc.stdout.close)
        self.addCleanup(self._terminate, proc)
        os.set_blocking(proc.stdout.fileno(), False)
        out = bytearray()
        other = 'app-gnome-org.example.Monitored-5.scope'

        def mentions():
            out.extend(proc.stdout.read() or b'')
            return out.count(other.encode())
        # monitor subscribes before it prints anything; give it a moment
        self.iterate(0.5)
        self.add_app(other)
        self.wait_until(lambda: mentions() >= 1, message='monitor output for a new app '
                        '(is stdout flushed when it is a pipe?)')
        self.stop_app(other)
        self.wait_until(lambda: mentions() >= 2, message='monitor output for a removed app')


class RuleCommandsTest(ClientBase):
    '''resourcectl rule list/set/remove and foreground.'''

    RULE_APP = 'org.example.App'

    def setUp(self):
        super().setUp()
        self.rules_file = os.path.join(self.user_rules_dir, '50-resource-control.conf')

    def rules_file_groups(self):
        '''{group: {key: value}} of the user's rule file, as written.'''
        if not os.path.exists(self.rules_file):
            return {}
        groups, group = {}, None
        with open(self.rules_file, encoding='utf-8') as f:
            for line in f:
                line = line.strip()
                if line.startswith('[') and line.endswith(']'):
                    group = groups.setdefault(line[1:-1], {})
                elif '=' in line and not line.startswith('#') and group is not None:
                    key, value = line.split('=', 1)
                    group[key.strip()] = value.strip()
        return groups

    def rule_line(self, app_id):
        '''The line of `rule list` for app_id, split into words.'''
        lines = self.client_ok('rule', 'list').splitlines()
        self.assertEqual(lines[0].split(), ['APP', 'RULE'])
        found = [line.split() for line in lines[1:] if line.split()[0] == app_id]
        return found[0] if found else None

    def test_set_list_remove(self):
        self.client_ok('rule', 'set', self.RULE_APP, 'CPUWeight=50', 'MemoryMax=2G',
                       'FreezeWhenInactiveSec=30')
        self.assertEqual(self.rules_file_groups().get(self.RULE_APP),
                         {'CPUWeight': '50', 'MemoryMax': '2G', 'FreezeWhenInactiveSec': '30'})
        self.assertEqual(self.rule_line(self.RULE_APP),
                         [self.RULE_APP, 'CPUWeight=50', 'MemoryMax=2G', 'FreezeWhenInactiveSec=30'])
        rules = json.loads(self.client_ok('rule', 'list', '--json'))
        self.assertEqual(rules, {self.RULE_APP: {'CPUWeight': 50, 'MemoryMax': 2147483648,
                                                 'FreezeWhenInactiveSec': 30}})
        self.assertEqual(rules, self.rc_call('ListRules')[0], 'the JSON is ListRules as it is')

        self.client_ok('rule', 'remove', self.RULE_APP)
        self.assertNotIn(self.RULE_APP, self.rules_file_groups())
        self.assertIsNone(self.rule_line(self.RULE_APP))
        self.assertEqual(json.loads(self.client_ok('rule', 'list', '--json')), {})

        proc = self.run_client('rule', 'remove', self.RULE_APP)
        self.assertEqual(proc.returncode, 1, proc.stdout + proc.stderr)
        self.assertIn(self.RULE_APP, proc.stderr)
        self.assertIn('no rule', proc.stderr.lower())
        self.assertNotIn('GDBus.Error', proc.stderr)

    def test_value_forms(self):
        self.client_ok('rule', 'set', self.RULE_APP, 'cpuquota=50%', 'MemoryHigh=1.5G',
                       'MemoryLow=0', 'TasksMax=infinity', 'IOWeight=200')
        rule = self.rc_call('ListRules')[0][self.RULE_APP]
        self.assertEqual(rule, {'CPUQuota': 50, 'MemoryHigh': 1536 * MIB, 'MemoryLow': 0,
                                'TasksMax': UINT64_MAX, 'IOWeight': 200})
        self.assertEqual(self.rule_line(self.RULE_APP),
                         [self.RULE_APP, 'IOWeight=200', 'CPUQuota=50%', 'MemoryLow=0',
                          'MemoryHigh=1.5G', 'TasksMax=max'])
        rules = json.loads(self.client_ok('rule', 'list', '--json'))
        self.assertIsNone(rules[self.RULE_APP]['TasksMax'], 'G_MAXUINT64 should be null in JSON')
        # a second set replaces the rule
        self.client_ok('rule', 'set', self.RULE_APP, 'FreezeWhenInactiveSec=5')
        self.assertEqual(self.rc_call('ListRules')[0][self.RULE_APP],
                         {'FreezeWhenInactiveSec': 5})

    def test_the_client_and_a_rules_file_take_the_same_values(self):
        # one table of keys and one text parser: what `rule set` takes, a rules file takes
        cases = ['CPUQuota=max', 'CPUQuota=50%', 'CPUQuota=50', 'CPUQuota=half', 'CPUWeight=300',
                 'CPUWeight=abc', 'CPUWeight=0', 'CPUWeight=-5', 'MemoryMax=2G', 'MemoryMax=1.5G',
                 'MemoryMax=infinity', 'MemoryMax=1K', 'MemoryMax=lots', 'MemoryLow=0',
                 'TasksMax=max', 'TasksMax=infinity', 'TasksMax=12', 'TasksMax=many',
                 'MemorySwapMax=0', 'IOWeight=10001', 'ManagedOOMPreference=bogus']
        by_client = {}
        for i, case in enumerate(cases):
            proc = self.run_client('rule', 'set', f'org.example.Client{i}', case)
            by_client[case] = proc.returncode == 0
            if proc.returncode != 0:
                self.assertIn(case.split('=')[0], proc.stderr, proc.stderr)
        self.write_rules(self.user_rules_dir, 'same.conf',
                         ''.join(f'[org.example.File{i}]\n{case}\n' for i, case in enumerate(cases)))
        self.wait_until(lambda: 'org.example.File0' in self.rc_call('ListRules')[0])
        rules = self.rc_call('ListRules')[0]
        # a value the file's reader refuses is left out of the group (and logged)
        by_file = {case: case.split('=')[0] in rules.get(f'org.example.File{i}', {})
                   for i, case in enumerate(cases)}
        self.assertEqual(by_client, by_file)
        for i, case in enumerate(cases):
            if by_client[case]:
                self.assertEqual(rules[f'org.example.Client{i}'], rules[f'org.example.File{i}'], case)
        self.assertTrue(by_client['CPUQuota=max'])
        self.assertEqual(rules[f'org.example.File{cases.index("CPUQuota=max")}'], {'CPUQuota': 0})
        self.assertFalse(by_client['MemoryMax=1K'])

    def test_system_rule(self):
        self.write_rules(self.system_rules_dir, '10-system.conf',
                         f'[{self.RULE_APP}]\nCPUWeight=20\n')
        self.wait_until(lambda: self.RULE_APP in self.rc_call('ListRules')[0],
                        message='the system rule')
        self.assertEqual(self.rule_line(self.RULE_APP), [self.RULE_APP, 'CPUWeight=20'])
        proc = self.run_client('rule', 'remove', self.RULE_APP)
        self.assertEqual(proc.returncode, 1, proc.stdout + proc.stderr)
        self.assertIn('system', proc.stderr)
        # a rule of the user's own overrides it, and removing that brings it back
        self.client_ok('rule', 'set', self.RULE_APP, 'CPUWeight=40')
        self.assertEqual(self.rule_line(self.RULE_APP), [self.RULE_APP, 'CPUWeight=40'])
        self.client_ok('rule', 'remove', self.RULE_APP)
        self.assertEqual(self.rule_line(self.RULE_APP), [self.RULE_APP, 'CPUWeight=20'])

    def test_rule_reaches_the_running_app(self):
        self.client_ok('rule', 'set', APP_ID, 'CPUWeight=50')
        self.wait_until(lambda: (APP, True, {'CPUWeight': 50}) in self.unit_property_calls(),
                        message='SetUnitProperties CPUWeight=50 for the running instance')

    def test_usage_errors_exit_2(self):
        for args in [('rule',), ('rule', 'bogus'), ('rule', 'list', 'extra'),
                     ('rule', 'set', self.RULE_APP), ('rule', 'set', self.RULE_APP, 'CPUWeight'),
                     ('rule', 'set', self.RULE_APP, 'NoSuchKey=1'),
                     ('rule', 'set', self.RULE_APP, 'MemoryMax=lots'),
                     ('rule', 'set', self.RULE_APP, 'CPUWeight=heavy'),
                     ('rule', 'set', self.RULE_APP, 'FreezeWhenInactiveSec=soon'),
                     ('rule', 'remove'), ('rule', 'remove', self.RULE_APP, 'extra'),
                     ('set', APP, 'FreezeWhenInactiveSec=30'),
                     ('foreground',), ('foreground', APP, APP), ('foreground', '--none', APP),
                     ('foreground', '--pid', 'x'), ('foreground', '--pid', '0'),
                     ('foreground', '--pid', '4242', APP)]:
            with self.subTest(args=args):
                proc = self.run_client(*args)
                self.assertEqual(proc.returncode, 2, proc.stdout + proc.stderr)
                self.assertTrue(proc.stderr.strip())
        self.assertFalse(os.path.exists(self.rules_file))
        self.assertEqual(self.systemd_calls('SetUnitProperties'), [])

    def test_daemon_errors_exit_1(self):
        for args in [('rule', 'set', APP, 'CPUWeight=50'),        # a unit name, not an AppID
                     ('rule', 'set', self.RULE_APP, 'CPUWeight=0'),
                     ('rule', 'set', self.RULE_APP, 'FreezeWhenInactiveSec=100000'),
                     ('foreground', 'org.example.NotRunning')]:
            with self.subTest(args=args):
                proc = self.run_client(*args)
                self.assertEqual(proc.returncode, 1, proc.stdout + proc.stderr)
                self.assertTrue(proc.stderr.strip(), 'an error without a message')
        self.set_rules('deny-all')
        for args in [('rule', 'set', self.RULE_APP, 'CPUWeight=50'),
                     ('rule', 'remove', self.RULE_APP), ('foreground', APP_ID)]:
            with self.subTest(args=args):
                proc = self.run_client(*args)
                self.assertEqual(proc.returncode, 1, proc.stdout + proc.stderr)
        self.assertFalse(os.path.exists(self.rules_file))
        self.assertEqual(self.systemd_calls('SetUnitProperties'), [])

    def wait_weight_call(self, weight, app=APP):
        self.wait_until(lambda: any(unit == app and props.get('CPUWeight') == weight
                                    for unit, _, props in self.unit_property_calls()),
                        message=f'SetUnitProperties CPUWeight={weight} for {app}')
        self.clear_systemd_calls()

    def test_foreground(self):
        self.client_ok('foreground', APP_ID)
        self.wait_weight_call(300)
        self.client_ok('foreground', '--none')
        self.wait_weight_call(100)
        self.client_ok('foreground', APP)
        self.wait_weight_call(300)
        self.client_ok('foreground', '')
        self.wait_weight_call(100)

    def test_foreground_pid(self):
        # the daemon finds the app of a pid from its cgroup: a process in one of its own
        pid, cgroup = self.process_in_own_cgroup('client')
        focused = 'app-gnome-org.example.Focused-9.scope'
        self.add_app(focused, pids=[pid], control_group=cgroup)
        self.client_ok('foreground', '--pid', str(pid))
        self.wait_weight_call(300, focused)
        proc = self.run_client('foreground', '--pid', '99999')
        self.assertNotEqual(proc.returncode, 2, proc.stderr)
        self.client_ok('foreground', '--none')
        self.wait_weight_call(100, focused)


BUSY = 'app-gnome-org.example.Busy-7.scope'
BUSY_ID = 'org.example.Busy'


class TopTest(ClientBase):
    '''resourcectl top: frames of the apps, busiest first.'''

    def start_top(self, *args):
        # pylint: disable=consider-using-with
        proc = subprocess.Popen([self.client_path, 'top'] + list(args), env=self.bus_env,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.addCleanup(self._terminate, proc)
        self.addCleanup(proc.stdout.close)
        self.addCleanup(proc.stderr.close)
        return proc

    def burn(self, proc, unit, usec_per_second=800000, memory=None):
        '''Let unit use CPU (its cpu.stat grows) until proc exits.'''
        usage = 1234567
        start = time.monotonic()
        if memory is not None:
            self.write_cgroup_file(unit, 'memory.current', str(memory))
        while proc.poll() is None and time.monotonic() - start < h.scaled(20):
            usage += usec_per_second // 10
            self.write_cgroup_file(unit, 'cpu.stat', f'usage_usec {usage}\nuser_usec {usage}\n'
                                   'system_usec 0\nthrottled_usec 0')
            time.sleep(0.1)
        out, err = proc.communicate(timeout=h.scaled(10))
        return proc.returncode, out, err

    @staticmethod
    def frames(out):
        return [f.split('\n') for f in out.rstrip('\n').split('\n\n')]

    def test_busy_app_first_in_two_frames(self):
        self.add_app(BUSY)
        start = time.monotonic()
        proc = self.start_top('-b', '-n', '2', '-d', '1')
        status, out, err = self.burn(proc, BUSY)
        elapsed = time.monotonic() - start
        self.assertEqual(status, 0, err)
        self.assertNotIn('\033', out, 'escape codes in batch mode')
        frames = self.frames(out)
        self.assertEqual(len(frames), 2, out)
        self.assertGreaterEqual(elapsed, 1.5, 'two frames one second apart came too fast')
        for frame in frames:
            self.assertTrue(frame[0].startswith('top - '), out)
            self.assertEqual(frame[1].split()[:7],
                             ['CPU%', 'MEMORY', 'THR%', 'CPU-P', 'MEM-P', 'IO-P', 'INST'], out)
            self.assertEqual(len(frame), 4, f'one line per app: {out}')
        rows = [line.split() for line in frames[1][2:]]
        self.assertEqual(rows[0][7], BUSY_ID, out)
        self.assertEqual(rows[1][7], APP_ID, out)
        self.assertGreater(float(rows[0][0]), 20.0, out)
        self.assertEqual(rows[1][0], '0.0', out)
        self.assertEqual(rows[1][1], '50M', out)     # the mock's memory.current
        self.assertEqual(rows[0][2], '0.0', 'throttled_usec did not grow')
        self.assertEqual(rows[0][3:6], ['-', '-', '-'], 'no pressure keys: "-"')
        self.assertEqual(rows[1][6], '1', out)
        self.assertEqual(' '.join(rows[1][8:]), 'Test Editor', out)

    def test_instances_of_one_app_are_one_line(self):
        second = 'app-gnome-org.example.Editor-4712.scope'
        self.add_app(second, memory_current=30 * MIB)
        self.add_app(BUSY, memory_current=10 * MIB)
        out = self.client_ok('top', '-b', '-n', '1', '-d', '1', '--sort', 'memory')
        rows = [line.split() for line in self.frames(out)[0][2:]]
        self.assertEqual([(r[7], r[6], r[1]) for r in rows],
                         [(APP_ID, '2', '80M'), (BUSY_ID, '1', '10M')], out)
        out = self.client_ok('top', '-b', '-n', '1', '-d', '1', '-o', 'name')
        self.assertEqual([line.split()[7] for line in self.frames(out)[0][2:]],
                         [BUSY_ID, APP_ID], out)

    def test_bad_options_exit_2(self):
        for args in [('-d', '0'), ('-d', 'soon'), ('-n', '0'), ('-o', 'colour'),
                     ('--bogus',), ('extra',)]:
            with self.subTest(args=args):
                proc = self.run_client('top', *args)
                self.assertEqual(proc.returncode, 2, proc.stdout + proc.stderr)
                self.assertIn('resourcectl top --help', proc.stderr)
                self.assertEqual(proc.stdout, '')

    def test_daemon_not_running(self):
        self.stop_daemon()
        proc = self.run_client('top', '-b', '-n', '1', '-d', '1')
        self.assertEqual(proc.returncode, 1, proc.stdout + proc.stderr)
        self.assertIn('resource-controld is not running', proc.stderr)
        self.assertEqual(proc.stdout, '')

    def test_interactive_in_a_terminal(self):
        main, tty = pty.openpty()
        fcntl.ioctl(tty, termios.TIOCSWINSZ, struct.pack('HHHH', 10, 60, 0, 0))
        # pylint: disable=consider-using-with
        proc = subprocess.Popen([self.client_path, 'top', '-d', '1'], env=self.bus_env,
                                stdin=tty, stdout=tty, stderr=tty, start_new_session=True)
        os.close(tty)
        self.addCleanup(self._terminate, proc)
        self.addCleanup(os.close, main)
        out = bytearray()

        def read():
            while select.select([main], [], [], 0)[0]:
                try:
                    out.extend(os.read(main, 65536))
                except OSError:
                    break
            return out
        self.wait_until(lambda: b'org.exampl' in read(), timeout=h.scaled(5),
                        message='a frame on the terminal')
        self.assertIn(b'\033[H\033[2J', out)
        lines = out.decode(errors='replace').split('\033[2J')[-1].splitlines()
        self.assertLessEqual(max(len(line) for line in lines), 60, 'lines cut to the width')
        self.assertNotIn(b'Test Editor', out, 'the name is beyond 60 columns')
        fcntl.ioctl(main, termios.TIOCSWINSZ, struct.pack('HHHH', 10, 120, 0, 0))
        os.kill(proc.pid, signal.SIGWINCH)
        self.wait_until(lambda: b'Test Editor' in read(), timeout=h.scaled(5),
                        message='a wider frame after SIGWINCH')
        os.write(main, b'q')
        self.assertEqual(proc.wait(timeout=h.scaled(5)), 0)
        self.assertIn(b'\033[?1049l', read(), 'the normal screen back')

    def test_daemon_restart_is_survived(self):
        # enough frames to outlast a restart, slower under valgrind
        n = max(4, int(h.scaled(4)))
        proc = self.start_top('-b', '-n', str(n), '-d', '1')
        time.sleep(1.5)
        self.stop_daemon()
        time.sleep(1.5)
        self.start_daemon()
        out, err = proc.communicate(timeout=h.scaled(15) + n)
        self.assertEqual(proc.returncode, 0, err)
        self.assertIn('left the session bus', err)
        self.assertIn('back on the session bus', err)
        frames = self.frames(out)
        self.assertEqual(len(frames), n, out)
        self.assertIn(APP_ID, frames[-1][-1], out)


COMPLETION = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'data',
                          'completion', 'resourcectl')


class CompletionTest(ClientBase):
    '''data/completion/resourcectl in bash with bash-completion, against the daemon.'''

    def complete(self, line):
        '''COMPREPLY for line, completed at its end ("" after a space is a new word).
        The words are split as bash splits them (COMP_WORDBREAKS): "=" is a word.'''
        bash_completion = '/usr/share/bash-completion/bash_completion'
        if not os.path.exists(bash_completion):
            self.skipTest('bash-completion is not installed')
        words = []
        for token in line.split(' '):
            parts = [p for p in re.split('(=)', token) if p] or ['']
            words.extend(parts)
        script = (f'source {bash_completion}; source "$COMPLETION"; '
                  'mapfile -t COMP_WORDS <<<"$WORDS"; '
                  'COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); COMP_LINE=$LINE; COMP_POINT=${#LINE};'
                  '_resourcectl; printf "%s\\n" "${COMPREPLY[@]}"')
        env = dict(self.bus_env, COMPLETION=COMPLETION, LINE=line, WORDS='\n'.join(words),
                   PATH=os.path.dirname(self.client_path) + ':' + os.environ.get('PATH', ''))
        proc = subprocess.run(['bash', '--norc', '-c', script], env=env, capture_output=True,
                              text=True, timeout=h.scaled(30), check=False)
        self.assertEqual((proc.returncode, proc.stderr), (0, ''), f'completing {line!r}')
        return [w for w in proc.stdout.split('\n') if w]

    def test_commands(self):
        got = self.complete('resourcectl ')
        listed = self.client_ok('--help').split('Commands:\n')[1].split('\n\n')[0]
        commands = {line.split()[0] for line in listed.splitlines()}
        self.assertEqual(set(got), commands, 'every command of --help, and no other')
        self.assertEqual(self.complete('resourcectl sl'), ['slices', 'slice-set'])
        self.assertEqual(sorted(self.complete('resourcectl rule ')), ['--help', 'list', 'remove', 'set'])

    def test_options_come_from_the_commands_help(self):
        self.assertEqual(sorted(self.complete('resourcectl top --')),
                         ['--batch', '--delay', '--help', '--iterations', '--sort'])
        self.assertEqual(self.complete('resourcectl top -o m'), ['memory'])
        self.assertEqual(self.complete('resourcectl top --sort=n'), ['name'])
        self.assertIn('--force', self.complete('resourcectl set-memory-limit --'))

    def test_running_apps(self):
        self.add_app('app-gnome-org.example.Other-9.scope')
        self.assertEqual(sorted(self.complete('resourcectl set-weight ')),
                         sorted([APP, APP_ID, 'app-gnome-org.example.Other-9.scope',
                                 'org.example.Other']))
        self.assertEqual(self.complete('resourcectl freeze org.example.E'), [APP_ID])
        self.assertEqual(self.complete(f'resourcectl set-weight {APP_ID} '), [])
        self.assertEqual(self.complete('resourcectl rule set org.example.O'), ['org.example.Other'])
        self.client_ok('rule', 'set', 'org.example.Ruled', 'CPUWeight=200')
        self.assertEqual(self.complete('resourcectl rule remove '), ['org.example.Ruled'])

    def test_limit_keys(self):
        self.assertEqual(sorted(self.complete(f'resourcectl set {APP_ID} Mem')),
                         ['MemoryHigh=', 'MemoryLow=', 'MemoryMax=', 'MemoryMin=', 'MemorySwapMax='])
        self.assertEqual(self.complete(f'resourcectl set {APP_ID} CPUWeight=200 CPUQ'), ['CPUQuota='])
        self.assertEqual(self.complete('resourcectl slice-set app.slice Tas'), ['TasksMax='])
        self.assertEqual(self.complete('resourcectl slice-set back'), ['background.slice'])
        self.assertEqual(self.complete(f'resourcectl rule set {APP_ID} Fr'), ['FreezeWhenInactiveSec='])
        self.assertEqual(self.complete(f'resourcectl set {APP_ID} Fr'), [])
        # after KEY=, bash replaces what follows the "="
        self.assertEqual(sorted(self.complete(f'resourcectl set {APP} ManagedOOMPreference=')),
                         ['avoid', 'none', 'omit'])
        self.assertEqual(self.complete(f'resourcectl set {APP} ManagedOOMMemoryPressure=k'), ['kill'])
        self.assertEqual(self.complete('resourcectl run --set Managed'),
                         ['ManagedOOMPreference=', 'ManagedOOMMemoryPressure=',
                          'ManagedOOMMemoryPressureLimit='])

    def test_no_daemon_no_apps_and_no_noise(self):
        self.stop_daemon()
        self.assertEqual(self.complete('resourcectl show '), [])
        self.assertEqual(self.complete('resourcectl rule remove '), [])
        self.assertIn('MemoryMax=', self.complete('resourcectl set x Mem'))


if __name__ == '__main__':
    sys.exit(h.main())
