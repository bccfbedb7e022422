#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
'''Host integration tests of rules and the foreground boost: rules files, SetRule and
RemoveRule, precedence, the boost, Mutter's focus marks and freezing in the background
(docs/design.md, "Rules and boosting").

Run as root, like integration_test.py:

    RC_DAEMON=build/src/resource-controld RC_CLIENT=build/src/resourcectl \\
        /usr/bin/python3 tests/integration/rules_test.py [Class.test_name ...]
'''

import os
import shutil
import sys
import time

from gi.repository import Gio, GLib

import rctest_harness as h
from rctest_harness import MIB, HANG, t, u, s
from rcbase import Base


#
# Rules and the foreground boost
#

RULED = 'app-gnome-org.example.Ruled-1.scope'
RULED_ID = 'org.example.Ruled'
OTHER = 'app-gnome-org.example.Other-2.scope'


class RulesTest(Base):
    '''Rule files, ListRules/SetRule/RemoveRule, and rules reaching the instances.'''

    def wait_rule(self, app_id, key, value):
        return self.wait_until(lambda: self.list_rules().get(app_id, {}).get(key) == value,
                               message=f'rule {app_id} {key}={value}')

    def wait_cgroup(self, unit, name, value):
        return self.wait_until(lambda: self.cgroup_file(unit, name) == value,
                               message=f'{unit} {name} = {value}')

    def set_rule(self, app_id, limits):
        return self.rc_call('SetRule', (app_id, limits), '(sa{sv})')

    def daemon_log(self):
        with open(self.daemon_logs[-1], encoding='utf-8', errors='replace') as f:
            return f.read()

    def test_rule_applies_when_an_instance_starts(self):
        self.write_rules(self.user_rules_dir, '10-mine.conf',
                         f'[{RULED_ID}]\nCPUWeight=50\nMemoryMax=1G\nCPUQuota=20%\n')
        self.wait_rule(RULED_ID, 'CPUWeight', 50)
        self.add_app(OTHER, controllers='cpu memory pids')
        self.add_app(RULED, controllers='cpu memory pids')
        self.wait_cgroup(RULED, 'cpu.weight', '50')
        self.assertEqual(self.cgroup_file(RULED, 'memory.max'), str(1 << 30))
        self.assertEqual(self.cgroup_file(RULED, 'cpu.max'), '20000 100000')
        self.assertEqual(self.unit_property_calls(),
                         [(RULED, True, {'CPUWeight': 50, 'CPUQuotaPerSecUSec': 200000,
                                         'MemoryMax': 1 << 30})],
                         'only the ruled app is changed, in one runtime call')
        self.wait_app_changed(RULED, 'CPUWeight', 50)
        # a second instance of the same app gets it too
        second = 'app-gnome-org.example.Ruled-2.scope'
        self.add_app(second, controllers='cpu memory pids')
        self.wait_cgroup(second, 'cpu.weight', '50')

    def hold_a_rule_write(self):
        '''RULED running, and the write of a new rule's CPUWeight=50 for it held in systemd.'''
        self.add_app(RULED, controllers='cpu memory pids')
        self.mock('SetDelays', ('SetUnitProperties', [HANG]), '(sau)')
        self.write_rules(self.user_rules_dir, '10-mine.conf', f'[{RULED_ID}]\nCPUWeight=50\n')
        self.wait_until(lambda: self.mock('CountHung')[0] == 1, message='the rule write held by systemd')

    def test_a_rule_and_an_api_call_on_one_unit_take_turns(self):
        # The rule's write reaches systemd first and is held there; the API's
        # SetWeight for the same unit, arriving meanwhile, must wait for it
        # (one change per unit at a time, whoever makes it) and then win.
        self.hold_a_rule_write()
        pending = self.call_async('SetWeight', (RULED, 300), '(st)')
        self.iterate(0.5)
        self.assertFalse(pending.done, 'SetWeight answered while the rule write was still running')
        self.assertEqual(self.unit_property_calls(), [(RULED, True, {'CPUWeight': 50})],
                         'the API call reached systemd while the rule write for the unit ran')
        self.mock('ReleaseHung', ('SetUnitProperties',), '(s)')
        self.wait_pending(pending)
        self.assertIsNone(pending.error)
        self.assertEqual(self.unit_property_calls(),
                         [(RULED, True, {'CPUWeight': 50}), (RULED, True, {'CPUWeight': 300})],
                         'the rule first, then the API call, one after the other')
        self.assertEqual(self.cgroup_file(RULED, 'cpu.weight'), '300')

    def test_an_api_value_queued_behind_a_rule_still_wins(self):
        # The API's SetWeight waits behind a rule's write held in systemd, and the
        # rule changes again meanwhile. The policy's next write is worked out in its
        # turn, after the API's value is in: it carries only the rule's new TasksMax,
        # and cpu.weight stays at the API's 200 (API value > rule).
        self.hold_a_rule_write()
        pending = self.call_async('SetWeight', (RULED, 200), '(st)')
        self.wait_until(lambda: 'set-weight authorized' in self.daemon_log(),
                        message='the API call authorized, waiting for its turn')
        self.write_rules(self.user_rules_dir, '10-mine.conf', f'[{RULED_ID}]\nCPUWeight=60\nTasksMax=99\n')
        self.wait_rule(RULED_ID, 'TasksMax', 99)
        self.assertFalse(pending.done)
        self.mock('ReleaseHung', ('SetUnitProperties',), '(s)')
        self.wait_pending(pending)
        self.assertIsNone(pending.error)
        self.wait_cgroup(RULED, 'pids.max', '99')
        self.assertEqual(self.unit_property_calls(), [(RULED, True, {'CPUWeight': 50}),
                                                      (RULED, True, {'CPUWeight': 200}),
                                                      (RULED, True, {'TasksMax': 99})])
        self.assertEqual(self.cgroup_file(RULED, 'cpu.weight'), '200')

    def test_user_folder_wins_and_later_files_win(self):
        self.write_rules(self.system_rules_dir, '10-a.conf',
                         '[org.example.Both]\nCPUWeight=20\n'
                         '[org.example.System]\nCPUWeight=30\n'
                         '[org.example.Order]\nCPUWeight=10\n')
        self.write_rules(self.system_rules_dir, '20-b.conf', '[org.example.Order]\nCPUWeight=11\n')
        self.write_rules(self.user_rules_dir, '90-z.conf', '[org.example.Both]\nMemoryHigh=512M\n')
        self.wait_until(lambda: len(self.list_rules()) == 3, message='three rules')
        rules = self.list_rules()
        # the user's group replaces the system's for the same AppID, key by key included
        self.assertEqual(rules['org.example.Both'], {'MemoryHigh': 512 * MIB})
        self.assertEqual(rules['org.example.System'], {'CPUWeight': 30})
        self.assertEqual(rules['org.example.Order'], {'CPUWeight': 11})

    def test_set_rule_writes_the_user_file_and_keeps_other_groups(self):
        path = self.write_rules(self.user_rules_dir, '50-resource-control.conf',
                                '# my rules\n\n# the indexer\n[org.example.Indexer]\n'
                                'CPUWeight=20 \n# keep this\nCPUQuota=10%\n')
        self.wait_rule('org.example.Indexer', 'CPUWeight', 20)
        self.add_app(RULED, controllers='cpu memory pids')
        self.clear_systemd_calls()
        self.set_rule(RULED_ID, {'CPUWeight': t(70), 'MemoryMax': t(2 << 30),
                                 'FreezeWhenInactiveSec': u(30)})
        with open(path, encoding='utf-8') as f:
            text = f.read()
        self.assertRegex(text, r'^# my rules\n\n# the indexer\n+\[org\.example\.Indexer\]\n')
        self.assertIn('# keep this\nCPUQuota=10%', text)
        self.assertIn(f'[{RULED_ID}]\nCPUWeight=70\nMemoryMax=2G\nFreezeWhenInactiveSec=30', text)
        self.assertFalse([f for f in os.listdir(self.user_rules_dir) if f != os.path.basename(path)],
                         'SetRule left another file behind')
        self.assertEqual(self.list_rules()[RULED_ID],
                         {'CPUWeight': 70, 'MemoryMax': 2 << 30, 'FreezeWhenInactiveSec': 30})
        # the running instance gets it at once
        self.wait_cgroup(RULED, 'cpu.weight', '70')
        self.assertEqual(self.cgroup_file(RULED, 'memory.max'), str(2 << 30))
        # and it survives a restart
        self.stop_daemon()
        self.start_daemon()
        self.assertEqual(self.list_rules()[RULED_ID]['CPUWeight'], 70)
        self.assertEqual(self.list_rules()['org.example.Indexer'], {'CPUWeight': 20, 'CPUQuota': 10})

    def test_set_rule_replaces_the_rule(self):
        self.set_rule(RULED_ID, {'CPUWeight': t(70), 'MemoryMax': t(2 << 30)})
        self.set_rule(RULED_ID, {'CPUQuota': u(50)})
        self.assertEqual(self.list_rules()[RULED_ID], {'CPUQuota': 50})

    def test_remove_rule_returns_running_instances_to_the_defaults(self):
        self.add_app(RULED, controllers='cpu memory pids')
        self.set_rule(RULED_ID, {'CPUWeight': t(70), 'MemoryMax': t(2 << 30)})
        self.wait_cgroup(RULED, 'cpu.weight', '70')
        self.rc_call('RemoveRule', (RULED_ID,), '(s)')
        self.assertNotIn(RULED_ID, self.list_rules())
        self.wait_cgroup(RULED, 'cpu.weight', '100')
        self.assertEqual(self.cgroup_file(RULED, 'memory.max'), 'max')
        self.assert_rc_error('NoSuchApp', 'RemoveRule', (RULED_ID,), '(s)')

    def test_remove_rule_falls_back_to_the_system_rule(self):
        self.write_rules(self.system_rules_dir, '10-a.conf', f'[{RULED_ID}]\nCPUWeight=40\n')
        self.wait_rule(RULED_ID, 'CPUWeight', 40)
        self.add_app(RULED, controllers='cpu memory pids')
        self.wait_cgroup(RULED, 'cpu.weight', '40')
        self.set_rule(RULED_ID, {'CPUWeight': t(70)})
        self.wait_cgroup(RULED, 'cpu.weight', '70')
        self.rc_call('RemoveRule', (RULED_ID,), '(s)')
        self.wait_cgroup(RULED, 'cpu.weight', '40')
        message = self.assert_rc_error('Protected', 'RemoveRule', (RULED_ID,), '(s)')
        self.assertIn('system', message)
        self.assertEqual(self.list_rules()[RULED_ID], {'CPUWeight': 40})

    def test_hand_edits_are_picked_up(self):
        self.add_app(RULED, controllers='cpu memory pids')
        self.write_rules(self.user_rules_dir, 'mine.conf', f'[{RULED_ID}]\nCPUWeight=60\n')
        self.wait_cgroup(RULED, 'cpu.weight', '60')
        self.write_rules(self.user_rules_dir, 'mine.conf', f'[{RULED_ID}]\nCPUWeight=80\n')
        self.wait_cgroup(RULED, 'cpu.weight', '80')
        os.unlink(os.path.join(self.user_rules_dir, 'mine.conf'))
        self.wait_cgroup(RULED, 'cpu.weight', '100')

    def test_a_folder_removed_and_made_again_is_watched(self):
        self.add_app(RULED, controllers='cpu memory pids')
        self.write_rules(self.user_rules_dir, 'mine.conf', f'[{RULED_ID}]\nCPUWeight=60\n')
        self.wait_cgroup(RULED, 'cpu.weight', '60')
        # the whole of ~/.config/resource-control goes, then comes back with a new rule
        shutil.rmtree(os.path.dirname(self.user_rules_dir))
        self.wait_cgroup(RULED, 'cpu.weight', '100')
        self.write_rules(self.user_rules_dir, 'mine.conf', f'[{RULED_ID}]\nCPUWeight=70\n')
        self.wait_cgroup(RULED, 'cpu.weight', '70')
        # and the folder made again is itself watched, not just found once
        self.write_rules(self.user_rules_dir, 'mine.conf', f'[{RULED_ID}]\nCPUWeight=80\n')
        self.wait_cgroup(RULED, 'cpu.weight', '80')

    def test_a_system_folder_made_after_start_is_watched(self):
        # a package installing its first system rule after the daemon started
        self.add_app(RULED, controllers='cpu memory pids')
        self.stop_daemon()
        shutil.rmtree(self.system_rules_dir)
        self.start_daemon()
        self.write_rules(self.system_rules_dir, 'vendor.conf', f'[{RULED_ID}]\nCPUWeight=40\n')
        self.wait_cgroup(RULED, 'cpu.weight', '40')

    def test_malformed_files_are_reported_once_and_skipped(self):
        self.add_app(RULED, controllers='cpu memory pids')
        self.write_rules(self.user_rules_dir, '10-broken.conf', 'this is [not a key file\n')
        self.write_rules(self.user_rules_dir, '20-mixed.conf',
                         f'[{RULED_ID}]\nCPUWeight=lots\nMemoryMax=1G\nColour=blue\n'
                         '[not an app id!]\nCPUWeight=5\n'
                         '[org.example.Tiny]\nMemoryMax=1K\nCPUWeight=0\nTasksMax=12\n')
        self.wait_rule('org.example.Tiny', 'TasksMax', 12)
        rules = self.list_rules()
        self.assertEqual(rules[RULED_ID], {'MemoryMax': 1 << 30})
        self.assertEqual(rules['org.example.Tiny'], {'TasksMax': 12})
        self.assertEqual(len(rules), 2)
        self.wait_cgroup(RULED, 'memory.max', str(1 << 30))
        self.assertEqual(self.cgroup_file(RULED, 'cpu.weight'), '100')
        # read again (another file changes): the same problems are not logged again
        self.write_rules(self.user_rules_dir, '30-ok.conf', '[org.example.Fine]\nCPUWeight=90\n')
        self.wait_rule('org.example.Fine', 'CPUWeight', 90)
        log = self.daemon_log()
        mixed = os.path.join(self.user_rules_dir, '20-mixed.conf')
        for needle in (f'{mixed}, [{RULED_ID}], CPUWeight: ', f'{mixed}, [{RULED_ID}], Colour: ',
                       f'{mixed}, [not an app id!]: ', f'{mixed}, [org.example.Tiny], MemoryMax: ',
                       f'{mixed}, [org.example.Tiny], CPUWeight: ',
                       os.path.join(self.user_rules_dir, '10-broken.conf') + ': '):
            with self.subTest(problem=needle):
                self.assertEqual(log.count(needle), 1, f'{needle!r} not logged exactly once')
        self.assertIsNone(self.daemon.poll())

    def test_set_rule_bad_input_changes_nothing(self):
        cases = [
            (RULED, {'CPUWeight': t(50)}),                 # a unit name, not an AppID
            ('not an app', {'CPUWeight': t(50)}),
            (RULED_ID, {}),                                # nothing to set
            (RULED_ID, {'Colour': s('blue')}),
            (RULED_ID, {'CPUWeight': t(0)}),
            (RULED_ID, {'CPUWeight': u(50)}),              # wrong type
            (RULED_ID, {'MemoryMax': t(MIB)}),             # below 16 MiB
            (RULED_ID, {'FreezeWhenInactiveSec': t(30)}),  # must be u
            (RULED_ID, {'FreezeWhenInactiveSec': u(86401)}),
            (RULED_ID, {'FreezeWhenInactiveSec': u(0)}),     # leave it out instead
        ]
        for app_id, limits in cases:
            with self.subTest(app_id=app_id, limits=limits):
                self.assert_rc_error('InvalidArgument', 'SetRule', (app_id, limits), '(sa{sv})')
        self.assert_rc_error('InvalidArgument', 'RemoveRule', (RULED,), '(s)')
        self.assertFalse(os.listdir(self.user_rules_dir), 'a rejected SetRule wrote a file')
        self.assertEqual(self.list_rules(), {})

    def test_a_huge_rule_is_refused_before_it_is_read(self):
        entry = GLib.Variant.new_dict_entry(GLib.Variant('s', 'CPUWeight'),
                                            GLib.Variant('v', t(50)))
        limits = GLib.Variant.new_array(GLib.VariantType('{sv}'), [entry] * 100000)
        for method in ('SetRule', 'SetLimits'):
            with self.subTest(method=method):
                name = RULED_ID if method == 'SetRule' else RULED
                args = [GLib.Variant('s', name), limits]
                if method == 'SetLimits':
                    args.append(GLib.Variant('a{sv}', {}))
                with self.assertRaises(GLib.Error) as raised:
                    self.conn.call_sync(h.RC_NAME, h.RC_PATH, h.RC_IFACE, method,
                                        GLib.Variant.new_tuple(*args), None,
                                        Gio.DBusCallFlags.NONE, int(h.scaled(10) * 1000), None)
                self.assertEqual(h.dbus_error_name(raised.exception), h.RC_ERROR + 'InvalidArgument')
                self.assertIn('100000 limits given', h.dbus_error_message(raised.exception))
        self.assertEqual(self.list_rules(), {})

    def test_a_linked_rules_file_is_not_replaced(self):
        target = os.path.join(self.home, 'dotfiles-rules.conf')
        with open(target, 'w', encoding='utf-8') as f:
            f.write(f'[{RULED_ID}]\nCPUWeight=60\n')
        os.makedirs(self.user_rules_dir, exist_ok=True)
        os.symlink(target, os.path.join(self.user_rules_dir, 'mine.conf'))
        self.wait_until(lambda: RULED_ID in self.list_rules())
        for method, args, sig in (('SetRule', (RULED_ID, {'CPUWeight': t(70)}), '(sa{sv})'),
                                  ('RemoveRule', (RULED_ID,), '(s)')):
            with self.subTest(method=method):
                message = self.assert_rc_error('Failed', method, args, sig)
                self.assertIn('is a symbolic link', message)
        self.assertTrue(os.path.islink(os.path.join(self.user_rules_dir, 'mine.conf')))
        with open(target, encoding='utf-8') as f:
            self.assertEqual(f.read(), f'[{RULED_ID}]\nCPUWeight=60\n')

    def test_only_the_first_256_rules_files_are_read(self):
        for i in range(300):
            self.write_rules(self.user_rules_dir, f'{i:03d}.conf', f'[org.example.R{i}]\nCPUWeight=60\n')
        self.wait_until(lambda: 'org.example.R255' in self.list_rules(), h.scaled(10))
        rules = self.list_rules()
        self.assertNotIn('org.example.R256', rules)
        self.assertEqual(len(rules), 256)

    def test_set_rule_below_current_use_is_would_kill(self):
        self.add_app(RULED, controllers='cpu memory pids', memory_current=800 * MIB)
        self.clear_systemd_calls()
        message = self.assert_rc_error('WouldKill', 'SetRule',
                                       (RULED_ID, {'MemoryMax': t(512 * MIB)}), '(sa{sv})')
        self.assertIn(RULED, message)
        self.assertEqual(self.list_rules(), {})
        self.assertFalse(os.listdir(self.user_rules_dir))
        self.assert_no_writes_to_systemd()

    def test_a_hand_written_rule_never_takes_memory_in_use(self):
        self.add_app(RULED, controllers='cpu memory pids', memory_current=800 * MIB)
        self.write_rules(self.user_rules_dir, 'mine.conf',
                         f'[{RULED_ID}]\nMemoryMax=512M\nCPUWeight=60\n')
        self.wait_cgroup(RULED, 'cpu.weight', '60')
        self.assertEqual(self.cgroup_file(RULED, 'memory.max'), 'max')

    def test_api_value_wins_over_the_rule(self):
        self.add_app(RULED, controllers='cpu memory pids')
        self.set_rule(RULED_ID, {'CPUWeight': t(50)})
        self.wait_cgroup(RULED, 'cpu.weight', '50')
        self.set_weight(RULED, 200)
        self.set_rule(RULED_ID, {'CPUWeight': t(60), 'TasksMax': t(99)})
        self.wait_cgroup(RULED, 'pids.max', '99')
        self.assertEqual(self.cgroup_file(RULED, 'cpu.weight'), '200')

    def test_rules_need_authorization(self):
        self.set_rules('deny-all')
        self.assert_rc_error('NotAuthorized', 'SetRule', (RULED_ID, {'CPUWeight': t(5)}),
                             '(sa{sv})')
        self.assert_rc_error('NotAuthorized', 'RemoveRule', (RULED_ID,), '(s)')
        self.assertFalse(os.listdir(self.user_rules_dir))
        self.assertEqual(self.list_rules(), {})  # reading needs none


class ForegroundTest(Base):
    '''SetForegroundApp/Process, Mutter's focus marks, FreezeWhenInactiveSec.'''

    APPS = ['app-gnome-org.example.A-1.scope', 'app-gnome-org.example.B-2.scope',
            'app-gnome-org.example.C-3.scope']

    def setUp(self):
        super().setUp()
        self.pids = []
        for unit in self.APPS:
            pid, cgroup = self.process_in_own_cgroup('foreground')
            self.pids.append(pid)
            self.add_app(unit, controllers='cpu io memory pids', pids=[pid], control_group=cgroup)

    def weights(self):
        '''cpu.weight of the three apps; None for a file the mock is rewriting
        (truncated, not yet written), so wait_weights reads it again.'''
        texts = [self.cgroup_file(unit, 'cpu.weight') for unit in self.APPS]
        return [int(text) if text else None for text in texts]

    def wait_weights(self, expected):
        return self.wait_until(lambda: self.weights() == expected,
                               message=f'cpu.weight {expected} (now {self.weights()})')

    def foreground(self, app):
        return self.rc_call('SetForegroundApp', (app,), '(s)')

    def test_the_boost_follows_the_foreground(self):
        a, b, c = self.APPS
        self.write_rules(self.user_rules_dir, 'r.conf', '[org.example.B]\nCPUWeight=50\n')
        self.wait_weights([100, 50, 100])
        self.foreground(a)
        self.wait_weights([300, 50, 100])
        self.assertEqual(self.cgroup_file(a, 'io.weight'), 'default 300')
        self.foreground('org.example.B')   # an AppID works too
        self.wait_weights([100, 300, 100])
        self.assertEqual(self.cgroup_file(a, 'io.weight'), 'default 100')
        self.foreground(c)
        self.wait_weights([100, 50, 300])
        self.foreground('')
        self.wait_weights([100, 50, 100])

    def memory_lows(self):
        return [self.cgroup_file(unit, 'memory.low') for unit in self.APPS]

    def test_the_boost_protects_the_focused_apps_memory(self):
        # the focused app's working set stays in memory (MemoryLow 256 MiB,
        # counted by the kernel through the package's user@.service drop-in);
        # the protection moves with the focus and is taken back, also to a
        # value set through the API, and [Boost] MemoryLow= changes it
        a, b, c = self.APPS
        low = str(256 * MIB)
        self.foreground(a)
        self.wait_until(lambda: self.memory_lows() == [low, '0', '0'],
                        message=f'memory.low of the focused app (now {self.memory_lows()})')
        self.rc_call('SetLimits', (c, {'MemoryLow': t(64 * MIB)}, {}),
                     '(sa{sv}a{sv})')
        self.foreground(c)
        self.wait_until(lambda: self.memory_lows() == ['0', '0', low],
                        message=f'memory.low moved with the focus (now {self.memory_lows()})')
        self.foreground(b)
        self.wait_until(lambda: self.memory_lows() == ['0', low, str(64 * MIB)],
                        message=f'the API value back after the boost (now {self.memory_lows()})')
        self.write_rules(self.user_rules_dir, 'b.conf', '[Boost]\nMemoryLow=128M\n')
        self.wait_until(lambda: self.memory_lows()[1] == str(128 * MIB),
                        message=f'[Boost] MemoryLow=128M (now {self.memory_lows()})')
        self.foreground('')
        self.wait_until(lambda: self.memory_lows() == ['0', '0', str(64 * MIB)],
                        message=f'no focus, no boost (now {self.memory_lows()})')

    def test_foreground_process(self):
        self.rc_call('SetForegroundProcess', (self.pids[1],), '(u)')
        self.wait_weights([100, 300, 100])
        self.rc_call('SetForegroundProcess', (self.pids[2],), '(u)')
        self.wait_weights([100, 100, 300])
        self.assert_rc_error('InvalidArgument', 'SetForegroundProcess', (0,), '(u)')
        with open('/proc/sys/kernel/pid_max', encoding='ascii') as f:
            gone = next(p for p in range(int(f.read()) - 1, 1, -1)
                        if not os.path.exists(f'/proc/{p}'))
        self.assert_rc_error('NoSuchApp', 'SetForegroundProcess', (gone,), '(u)')
        self.assertEqual(self.weights(), [100, 100, 300])
        # a process in no unit of the user's manager (a terminal in the login session's scope)
        # is focused: no app is in the foreground
        self.rc_call('SetForegroundProcess', (os.getpid(),), '(u)')
        self.wait_weights([100, 100, 100])

    def test_app_stops_while_its_foreground_call_is_authorized(self):
        # the daemon holds the app across the polkit check; under ASan a
        # borrowed pointer read after the app was freed crashes it here
        self.pause_polkitd()
        pending = self.call_async('SetForegroundProcess', (self.pids[1],), '(u)')
        self.iterate(0.5)
        self.stop_app(self.APPS[1])
        self.wait_signal('AppRemoved', self.APPS[1])
        self.resume_polkitd()
        self.wait_pending(pending)
        self.assertIsNone(pending.error)
        self.assertIsNone(self.daemon.poll())
        self.assertEqual(sorted(a['Unit'] for a in self.list_apps()),
                         [self.APPS[0], self.APPS[2]])
        self.assertEqual([self.cgroup_file(u, 'cpu.weight') for u in (self.APPS[0], self.APPS[2])],
                         ['100', '100'])

    def test_bad_foreground_app_changes_nothing(self):
        self.foreground(self.APPS[0])
        self.wait_weights([300, 100, 100])
        self.clear_systemd_calls()
        self.assert_rc_error('InvalidArgument', 'SetForegroundApp', ('no such thing!',), '(s)')
        self.assert_rc_error('NoSuchApp', 'SetForegroundApp', ('org.example.Gone',), '(s)')
        self.assertEqual(self.weights(), [300, 100, 100])
        self.assert_no_writes_to_systemd()

    def test_the_boost_wins_over_the_api_and_gives_it_back(self):
        a, b, _ = self.APPS
        self.foreground(a)
        self.wait_weights([300, 100, 100])
        self.set_weight(a, 150)
        self.assertEqual(self.weights(), [300, 100, 100])
        self.foreground(b)
        self.wait_weights([150, 300, 100])

    def test_boost_settings(self):
        a, b, _ = self.APPS
        self.write_rules(self.user_rules_dir, 'b.conf', '[Boost]\nCPUWeight=500\n')
        self.wait_until(lambda: os.path.exists(os.path.join(self.user_rules_dir, 'b.conf')))
        time.sleep(0.5)  # the folder monitor's batch
        self.foreground(a)
        self.wait_weights([500, 100, 100])
        self.write_rules(self.user_rules_dir, 'b.conf', '[Boost]\nEnabled=false\n')
        self.wait_weights([100, 100, 100])
        self.clear_systemd_calls()
        self.foreground(b)
        time.sleep(0.3)
        self.assertEqual(self.weights(), [100, 100, 100])
        self.assert_no_writes_to_systemd()

    def test_mutter_focus_marks(self):
        a, b, _ = self.APPS
        os.setxattr(self.cgroup_dir(a), 'user.xdg.inactive-since', b'-1')
        self.wait_weights([300, 100, 100])
        # Mutter marks the old app with the time it lost the focus, the new one with -1
        os.setxattr(self.cgroup_dir(a), 'user.xdg.inactive-since', b'123456789')
        os.setxattr(self.cgroup_dir(b), 'user.xdg.inactive-since', b'-1')
        self.wait_weights([100, 300, 100])
        os.setxattr(self.cgroup_dir(b), 'user.xdg.inactive-since', b'223456789')
        self.wait_weights([100, 100, 100])

    def test_a_mark_toggled_fast_costs_a_few_writes(self):
        # any process of the user may set the mark: marks are read at most 5 times a second
        a = self.APPS[0]
        self.clear_systemd_calls()
        start = time.monotonic()
        for i in range(2000):
            os.setxattr(self.cgroup_dir(a), 'user.xdg.inactive-since', b'-1' if i % 2 else b'1')
        elapsed = time.monotonic() - start
        self.wait_weights([300, 100, 100])       # the last value counts
        self.iterate(0.5)
        calls = len(self.unit_property_calls())
        self.assertLessEqual(calls, 2 * (elapsed / 0.2 + 2),
                             f'{calls} systemd writes for 2,000 marks in {elapsed:.2f} s')
        self.assertEqual(self.get_one(a)['CPUWeight'], 300)

    def test_a_focused_app_found_at_start_is_boosted(self):
        self.stop_daemon()
        os.setxattr(self.cgroup_dir(self.APPS[2]), 'user.xdg.inactive-since', b'-1')
        self.start_daemon()
        self.wait_weights([100, 100, 300])

    def freeze_a_in_the_background(self):
        '''A's rule freezes it 1 s after it lost the foreground; focus A, then B.'''
        a, b, _ = self.APPS
        self.write_rules(self.user_rules_dir, 'r.conf', '[org.example.A]\nFreezeWhenInactiveSec=1\n')
        self.wait_until(lambda: 'org.example.A' in self.list_rules())
        self.foreground(a)
        self.foreground(b)
        self.wait_until(lambda: 'frozen 1' in self.cgroup_file(a, 'cgroup.events'), timeout=5,
                        message='A frozen a second after it lost the foreground')

    def test_freeze_when_inactive(self):
        a, b, _ = self.APPS
        self.freeze_a_in_the_background()
        self.wait_app_changed(a, 'FreezerState', 'frozen')
        self.assertEqual(self.systemd_calls('FreezeUnit'), [[a]])
        self.assertNotIn('frozen 1', self.cgroup_file(b, 'cgroup.events'))
        self.foreground(a)
        self.wait_until(lambda: 'frozen 0' in self.cgroup_file(a, 'cgroup.events'),
                        message='A thawed when it is focused')
        self.assertEqual(self.systemd_calls('ThawUnit'), [[a]])

    def test_freeze_when_inactive_is_never_on_by_default(self):
        a, b, _ = self.APPS
        self.foreground(a)
        self.foreground(b)
        time.sleep(1.5)
        self.assertEqual(self.systemd_calls('FreezeUnit'), [])

    def test_a_restart_leaves_no_stale_boost(self):
        a, _, _ = self.APPS
        self.foreground(a)
        self.wait_weights([300, 100, 100])
        self.stop_daemon()
        self.start_daemon()
        self.wait_weights([100, 100, 100])

    def test_a_restart_still_thaws_what_it_froze(self):
        a = self.APPS[0]
        self.freeze_a_in_the_background()
        self.stop_daemon()
        self.start_daemon()
        self.foreground(a)
        self.wait_until(lambda: 'frozen 0' in self.cgroup_file(a, 'cgroup.events'),
                        message='A thawed on focus by the restarted daemon')

    def test_foreground_needs_authorization(self):
        self.set_rules('deny-all')
        self.assert_rc_error('NotAuthorized', 'SetForegroundApp', (self.APPS[0],), '(s)')
        self.assert_rc_error('NotAuthorized', 'SetForegroundProcess', (self.pids[0],), '(u)')
        self.assert_no_writes_to_systemd()


if __name__ == '__main__':
    sys.exit(h.main())
