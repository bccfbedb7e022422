#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
'''Host integration tests of the action record (docs/design.md, "Saying why"): one entry per
automatic change, from the path that makes it (a rule, the boost, a power group, a freeze or
thaw by policy, the audio hold, a notification), none for a value set through the API;
GetActions with its filters and its bound; ActionTaken; `resourcectl log`. The journal
entries themselves are checked by the unit test test-action-log (the fields) and VM section "rules" (journalctl).

    RC_DAEMON=build/src/resource-controld RC_CLIENT=build/src/resourcectl \\
        /usr/bin/python3 tests/integration/actions_test.py [Class.test_name ...]
'''

import json
import os
import subprocess
import sys
import time

from gi.repository import GLib

import rctest_harness as h
from rctest_harness import t
from power_audio_test import (Base as PowerAudioBase, PPD_NAME, PPD_PATH, PLAYER_NAME,
                              PLAYER_PATH, PLAYER_IFACE, MOCK_IFACE)
from notify_test import EVENTS, append, events_text
from launch_test import LA, LAUNCHED, LaunchBase

A = 'app-gnome-org.example.A-1.scope'
B = 'app-gnome-org.example.B-2.scope'
FIELDS = ('time', 'unit', 'app', 'kind', 'key', 'old', 'new', 'reason')


class Base(PowerAudioBase):
    '''The daemon started by each test; the record read as dicts.'''

    def actions(self, app='', since=0):
        return [dict(zip(FIELDS, entry))
                for entry in self.rc_call('GetActions', (app, since), '(st)')[0]]

    def taken(self):
        '''The ActionTaken signals so far, as dicts (not consumed).'''
        return [dict(zip(FIELDS, args)) for name, args, _ in self.signals if name == 'ActionTaken']

    def wait_actions(self, count, app=''):
        return self.wait_until(lambda: len(self.actions(app)) >= count and self.actions(app), 5,
                               f'{count} recorded actions (now {self.actions(app)})')

    @staticmethod
    def brief(entries):
        return [(e['unit'], e['kind'], e['key'], e['old'], e['new'], e['reason']) for e in entries]


class ActionsTest(Base):
    def test_a_rule_applied_when_an_app_starts_is_one_entry(self):
        self.write_rules('[org.example.A]\nCPUWeight=50\n', name='20-x.conf')
        self.start_daemon()
        self.wait_until(lambda: 'org.example.A' in self.rc_call('ListRules')[0])
        before = int(time.time() * 1e6)
        self.add_app(A)
        self.add_app(B)
        self.wait_value(lambda: self.weight(A), 50, 'A\'s rule weight')
        entries = self.wait_actions(1)
        self.assertEqual(self.brief(entries),
                         [(A, 'rule', 'CPUWeight', '100', '50',
                           'rule ~/.config/resource-control/rules.d/20-x.conf [org.example.A]')])
        self.assertEqual(entries[0]['app'], 'org.example.A')
        self.assertGreaterEqual(entries[0]['time'], before)
        self.assertLessEqual(entries[0]['time'], int(time.time() * 1e6))
        # ActionTaken carries the same tuple
        self.wait_until(lambda: self.taken() == entries, 5, 'ActionTaken')

    def test_a_rules_file_name_that_is_not_utf8_gives_a_readable_reason(self):
        # the bytes 0xff 0xfe, as Python's surrogateescape spells them
        self.write_rules('[org.example.A]\nCPUWeight=50\n', name='\udcff\udcfe.conf')
        self.start_daemon()
        self.add_app(A)
        self.wait_value(lambda: self.weight(A), 50, 'A\'s rule weight')
        (entry,) = self.wait_actions(1)
        self.assertEqual(entry['reason'],
                         'rule ~/.config/resource-control/rules.d/\ufffd\ufffd.conf [org.example.A]')

    def test_the_boost_moving_is_recorded_with_its_source(self):
        self.start_daemon()
        self.add_app(A)
        self.add_app(B)
        self.rc_call('SetForegroundApp', (A,), '(s)')
        self.wait_actions(2)
        self.rc_call('SetForegroundApp', (B,), '(s)')
        entries = self.wait_actions(6)
        reason = 'focus from a SetForeground call'
        self.assertEqual(self.brief(entries),
                         [(A, 'boost', 'CPUWeight', '100', '300', reason),
                          (A, 'boost', 'MemoryLow', '0', '256M', reason),
                          (A, 'boost', 'CPUWeight', '300', '100', reason),
                          (A, 'boost', 'MemoryLow', '256M', '0', reason),
                          (B, 'boost', 'CPUWeight', '100', '300', reason),
                          (B, 'boost', 'MemoryLow', '0', '256M', reason)])
        self.assertEqual(self.taken(), entries)

    def test_a_boost_left_by_an_earlier_run_taken_back_is_a_boost_entry(self):
        self.start_daemon()
        self.add_app(A)
        self.rc_call('SetForegroundApp', (A,), '(s)')
        self.wait_value(lambda: self.weight(A), 300, 'A boosted')
        self.stop_daemon()
        self.start_daemon()
        self.wait_value(lambda: self.weight(A), 100, 'the stale boost taken back')
        self.assertEqual(self.brief(self.wait_actions(2)),
                         [(A, 'boost', 'CPUWeight', '300', '100', 'a boost left by an earlier run'),
                          (A, 'boost', 'MemoryLow', '256M', '0', 'a boost left by an earlier run')])

    def test_values_set_through_the_api_are_not_recorded(self):
        self.start_daemon()
        self.add_app(A)
        self.rc_call('SetWeight', (A, 200), '(st)')
        self.rc_call('SetLimits', (A, {'CPUWeight': t(150), 'TasksMax': t(500)}, {}),
                     '(sa{sv}a{sv})')
        self.rc_call('ResetLimits', (A,), '(s)')
        self.rc_call('Freeze', (A,), '(s)')
        self.rc_call('Thaw', (A,), '(s)')
        self.wait_until(lambda: len(self.systemd_calls('SetUnitProperties')) == 3, 5,
                        'the three API writes')
        self.iterate(0.3)
        self.assertEqual(self.actions(), [])
        self.assertEqual(self.taken(), [])

    def test_a_freeze_and_a_thaw_by_policy_are_recorded(self):
        self.write_rules('[org.example.A]\nFreezeWhenInactiveSec=1\n')
        self.start_daemon()
        self.add_app(A)
        self.add_app(B)
        self.wait_until(lambda: 'org.example.A' in self.rc_call('ListRules')[0])
        self.rc_call('SetForegroundApp', (A,), '(s)')
        self.rc_call('SetForegroundApp', (B,), '(s)')
        self.wait_until(lambda: self.systemd_calls('FreezeUnit') == [[A]], 5, 'A frozen')
        self.rc_call('SetForegroundApp', (A,), '(s)')
        self.wait_until(lambda: self.systemd_calls('ThawUnit') == [[A]], 5, 'A thawed')
        freezer = [e for e in self.wait_actions(5) if e['kind'] in ('freeze', 'thaw')]
        self.assertEqual(self.brief(freezer),
                         [(A, 'freeze', '', '', '', 'inactive for 1 s'),
                          (A, 'thaw', '', '', '', 'focus from a SetForeground call')])

    def test_get_actions_filters_by_app_and_time_and_checks_the_app(self):
        self.start_daemon()
        self.add_app(A)
        self.add_app(B)
        self.rc_call('SetForegroundApp', (A,), '(s)')
        first = self.wait_actions(2)[0]
        time.sleep(0.01)
        self.rc_call('SetForegroundApp', (B,), '(s)')
        entries = self.wait_actions(6)
        # each boost move is a CPUWeight and a MemoryLow entry
        self.assertEqual([e['unit'] for e in self.actions('org.example.B')], [B, B])
        self.assertEqual([e['unit'] for e in self.actions(A)], [A, A, A, A])
        self.assertEqual(self.actions('org.example.Nothing'), [])
        self.assertEqual(self.actions('', first['time'] + 1),
                         [e for e in entries if e['time'] > first['time']])
        self.assertEqual(self.actions('', entries[-1]['time'] + 1), [])
        self.assert_rc_error('InvalidArgument', 'GetActions', ('no such thing!', 0), '(st)')
        self.assert_rc_error('InvalidArgument', 'GetActions', ('x' * 300, 0), '(st)')


class LogTest(Base):
    '''resourcectl log, its filter, --json and -f.'''

    def boost_a_then_b(self):
        self.start_daemon()
        self.add_app(A)
        self.add_app(B)
        self.rc_call('SetForegroundApp', (A,), '(s)')
        self.wait_actions(2)
        self.rc_call('SetForegroundApp', (B,), '(s)')
        return self.wait_actions(6)

    def test_log_prints_each_change_with_its_reason(self):
        entries = self.boost_a_then_b()
        lines = self.run_client('log', check=True).stdout.splitlines()
        self.assertEqual(len(lines), 6, lines)
        for line, entry in zip(lines, entries):
            when = time.strftime('%Y-%m-%d %H:%M:%S', time.localtime(entry['time'] // 1000000))
            self.assertEqual(line, f'{when}  {entry["unit"]}  boost  {entry["key"]} {entry["old"]} -> '
                                   f'{entry["new"]}  (focus from a SetForeground call)')
        only_b = self.run_client('log', 'org.example.B', check=True).stdout.splitlines()
        self.assertEqual(only_b, lines[4:])
        bad = self.run_client('log', 'no such thing!')
        self.assertEqual(bad.returncode, 2, bad)

    def test_log_json(self):
        entries = self.boost_a_then_b()
        out = json.loads(self.run_client('log', '--json', A, check=True).stdout)
        self.assertEqual(out, [{'Time': e['time'], 'Unit': e['unit'], 'AppId': e['app'],
                                'Kind': e['kind'], 'Key': e['key'], 'Old': e['old'],
                                'New': e['new'], 'Reason': e['reason']} for e in entries[:4]])

    def test_log_follow_prints_new_changes(self):
        self.start_daemon()
        self.add_app(A)
        self.add_app(B)
        self.rc_call('SetForegroundApp', (A,), '(s)')
        self.wait_actions(2)
        # pylint: disable=consider-using-with
        proc = subprocess.Popen([self.client_path, 'log', '-f', '--json'],
                                env=self.bus_env, stdout=subprocess.PIPE, text=True)
        self.addCleanup(proc.wait)
        self.addCleanup(proc.kill)

        def read():
            entry = json.loads(proc.stdout.readline())
            return (entry['Unit'], entry['Kind'], entry['Key'], entry['Old'], entry['New'])
        # the record first: once it is printed the client listens (its match rule
        # went to the bus before its GetActions call)
        self.assertEqual([read(), read()], [(A, 'boost', 'CPUWeight', '100', '300'),
                                            (A, 'boost', 'MemoryLow', '0', '256M')])
        self.rc_call('SetForegroundApp', (B,), '(s)')
        self.assertEqual([read() for _ in range(4)],
                         [(A, 'boost', 'CPUWeight', '300', '100'), (A, 'boost', 'MemoryLow', '256M', '0'),
                          (B, 'boost', 'CPUWeight', '100', '300'), (B, 'boost', 'MemoryLow', '0', '256M')])
        proc.terminate()
        self.assertEqual(proc.wait(timeout=5), 0)


class BoundTest(Base):
    '''The ring, made small through the tests' hook, fills and drops its oldest entries.'''

    def daemon_env(self):
        return dict(super().daemon_env(), RESOURCE_CONTROL_ACTION_LOG_SIZE='4')

    def test_the_oldest_entries_are_dropped(self):
        self.start_daemon()
        self.add_app(A)
        self.add_app(B)
        # each move: the boost's CPUWeight and MemoryLow taken and given
        for app, count in ((A, 2), (B, 6), (A, 10), (B, 14)):
            self.rc_call('SetForegroundApp', (app,), '(s)')
            self.wait_until(lambda: len(self.taken()) == count, 5,
                            f'{count} changes announced (now {len(self.taken())})')
        self.iterate(0.2)
        self.assertEqual(len(self.taken()), 14)
        self.assertEqual(self.actions(), self.taken()[-4:])


class PowerActionsTest(Base):
    def test_a_power_group_taken_and_given_back_is_recorded(self):
        self.write_rules('[org.example.A]\nCPUWeight=80\n[org.example.A @power-saver]\nCPUWeight=20\n')
        sys_conn = self.system_conn()
        self.start_dbusmock('system', ['--template', 'power_profiles_daemon', '-p',
                                       '{"ActiveProfile": "balanced"}'])
        self.wait_owned(sys_conn, PPD_NAME)
        self.start_daemon()
        self.add_app(A)
        self.wait_value(lambda: self.weight(A), 80, 'A\'s weight')
        self.update_properties(sys_conn, PPD_NAME, PPD_PATH, PPD_NAME,
                               {'ActiveProfile': GLib.Variant('s', 'power-saver')})
        self.wait_value(lambda: self.weight(A), 20, 'A\'s power-saver weight')
        self.update_properties(sys_conn, PPD_NAME, PPD_PATH, PPD_NAME,
                               {'ActiveProfile': GLib.Variant('s', 'balanced')})
        self.wait_value(lambda: self.weight(A), 80, 'A\'s weight back')
        entries = self.wait_actions(3)
        self.assertEqual(self.brief(entries),
                         [(A, 'rule', 'CPUWeight', '100', '80',
                           'rule ~/.config/resource-control/rules.d/r.conf [org.example.A]'),
                          (A, 'power', 'CPUWeight', '80', '20', 'power profile power-saver'),
                          (A, 'power', 'CPUWeight', '20', '80',
                           'power profile balanced, on AC power')])


class AudioActionsTest(Base):
    def test_an_audio_hold_is_recorded(self):
        if not os.environ.get('RC_TEST_CGROUP_DIR'):
            self.fail('no writable cgroup v2 hierarchy to put the player in a real cgroup')
        self.write_rules('[org.example.A]\nCPUWeight=20\n')
        player = self.start_dbusmock('session', [PLAYER_NAME, PLAYER_PATH, PLAYER_IFACE])
        self.wait_owned(self.conn, PLAYER_NAME)
        self.conn.call_sync(PLAYER_NAME, PLAYER_PATH, MOCK_IFACE, 'AddProperty',
                            GLib.Variant('(ssv)', (PLAYER_IFACE, 'PlaybackStatus',
                                                   GLib.Variant('s', 'Paused'))),
                            None, 0, -1, None)
        self.start_daemon()
        self.add_app(A, control_group=h.own_cgroup(player.pid), pids=[player.pid])
        self.wait_value(lambda: self.weight(A), 20, 'A\'s rule weight')
        self.update_properties(self.conn, PLAYER_NAME, PLAYER_PATH, PLAYER_IFACE,
                               {'PlaybackStatus': GLib.Variant('s', 'Playing')})
        self.wait_value(lambda: self.weight(A), 100, 'A\'s weight while it plays')
        entries = self.wait_actions(3)
        self.assertEqual(self.brief(entries[1:]),
                         [(A, 'audio-hold', 'Audio', 'no', 'yes', 'playing audio'),
                          (A, 'audio-hold', 'CPUWeight', '20', '100', 'playing audio')])


class LaunchActionsTest(LaunchBase):
    def test_a_rule_given_at_launch_is_one_entry(self):
        self.rc_call('SetRule', (LAUNCHED, {'CPUWeight': t(40), 'TasksMax': t(99)}), '(sa{sv})')
        unit = self.rc_call('Launch', (LAUNCHED, [], {'Limits': GLib.Variant('a{sv}', {
            'TasksMax': t(77)})}), LA)[0]
        entries = self.wait_until(lambda: self.rc_call('GetActions', ('', 0), '(st)')[0], 5,
                                  'the rule recorded')
        self.iterate(0.3)
        self.assertEqual([e[1:] for e in self.rc_call('GetActions', ('', 0), '(st)')[0]],
                         [(unit, LAUNCHED, 'rule', 'CPUWeight', '100', '40',
                           'rule ~/.config/resource-control/rules.d/50-resource-control.conf '
                           f'[{LAUNCHED}]')], f'only the rule\'s key, not the caller\'s: {entries}')


class NotificationActionsTest(Base):
    def test_a_notification_is_recorded(self):
        notifyd = self.start_dbusmock('session', ['--template', 'notification_daemon'])
        self.wait_owned(self.conn, 'org.freedesktop.Notifications')
        self.start_daemon()
        self.add_app(A, files={'memory.events': EVENTS})
        path = os.path.join(self.cgroup_dir(A), 'memory.events')
        append(path, events_text(max=1, oom=1, oom_kill=1))
        self.wait_signal('AppChanged', A, lambda a: a[1].get('MemoryEvents', {}).get('oom_kill') == 1)
        entries = self.wait_actions(1)
        self.assertEqual(self.brief(entries),
                         [(A, 'notification', '', '', '', 'killed at its memory limit')])
        self.assertIsNone(notifyd.poll())


if __name__ == '__main__':
    sys.exit(h.main())
