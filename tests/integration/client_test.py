#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
'''Host integration tests of resourcectl against the real daemon: its commands, output,
exit statuses and rule commands (man resourcectl).

Run as root, like integration_test.py:

    RC_DAEMON=build/src/resource-controld RC_CLIENT=build/src/resourcectl \\
        /usr/bin/python3 tests/integration/client_test.py [Class.test_name ...]
'''

import json
import os
import subprocess
import sys


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

    def wait_weight_call(self, weight):
        self.wait_until(lambda: any(unit == APP and props.get('CPUWeight') == weight
                                    for unit, _, props in self.unit_property_calls()),
                        message=f'SetUnitProperties CPUWeight={weight} for {APP}')
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
        self.client_ok('foreground', '--pid', '4242')
        self.assertEqual(self.systemd_calls('GetUnitByPID'), [[4242]])
        self.wait_weight_call(300)
        proc = self.run_client('foreground', '--pid', '99999')
        self.assertNotEqual(proc.returncode, 2, proc.stderr)
        self.client_ok('foreground', '--none')
        self.wait_weight_call(100)


if __name__ == '__main__':
    sys.exit(h.main())
