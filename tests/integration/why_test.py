#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
'''Host integration tests of GetLimitSources and `resourcectl why` (docs/design.md, "Saying
why"): each limit of each instance now, and where its value comes from by the precedence
(focus boost > last API value > rule > default), one test per kind of source: api, rule,
power, boost, audio-hold, freeze, default, outside. The proof with a real rules file and a
real compositor's focus is VM section "rules" and "focus".

    RC_DAEMON=build/src/resource-controld RC_CLIENT=build/src/resourcectl \\
        /usr/bin/python3 tests/integration/why_test.py [Class.test_name ...]
'''

import json
import os
import sys

from gi.repository import GLib

import rctest_harness as h
from actions_test import Base as ActionsBase
from power_audio_test import PPD_NAME, PPD_PATH, PLAYER_NAME, PLAYER_PATH, PLAYER_IFACE, MOCK_IFACE

A = 'app-gnome-org.example.A-1.scope'
A2 = 'app-gnome-org.example.A-7.scope'
B = 'app-gnome-org.example.B-2.scope'
RULES = '~/.config/resource-control/rules.d/'
FAIR = 'fair-by-default drop-in 10-resource-control.conf'


class Base(ActionsBase):
    def sources(self, app):
        '''{unit: {key: (value, kind, detail)}} from GetLimitSources.'''
        out = {}
        for unit, key, value, kind, detail in self.rc_call('GetLimitSources', (app,), '(s)')[0]:
            out.setdefault(unit, {})[key] = (value, kind, detail)
        return out

    def source(self, unit, key):
        return self.sources(unit)[unit][key]

    def wait_source(self, unit, key, want):
        return self.wait_until(lambda: self.source(unit, key) == want, 5,
                               f'{unit} {key} = {want} (now {self.source(unit, key)})')

    def start_player(self):
        '''A dbusmock MPRIS player, paused, in a real cgroup: its app is held for audio
        once it plays (power_audio_test.py's world).'''
        if not os.environ.get('RC_TEST_CGROUP_DIR'):
            self.fail('no writable cgroup v2 hierarchy to put the player in a real cgroup')
        player = self.start_dbusmock('session', [PLAYER_NAME, PLAYER_PATH, PLAYER_IFACE])
        self.wait_owned(self.conn, PLAYER_NAME)
        self.conn.call_sync(PLAYER_NAME, PLAYER_PATH, MOCK_IFACE, 'AddProperty',
                            GLib.Variant('(ssv)', (PLAYER_IFACE, 'PlaybackStatus',
                                                   GLib.Variant('s', 'Paused'))),
                            None, 0, -1, None)
        return player

    def play(self, status='Playing'):
        self.update_properties(self.conn, PLAYER_NAME, PLAYER_PATH, PLAYER_IFACE,
                               {'PlaybackStatus': GLib.Variant('s', status)})

    def start_ppd(self, profile='balanced'):
        sys_conn = self.system_conn()
        self.start_dbusmock('system', ['--template', 'power_profiles_daemon', '-p',
                                       f'{{"ActiveProfile": "{profile}"}}'])
        self.wait_owned(sys_conn, PPD_NAME)
        return sys_conn

    def set_profile(self, sys_conn, profile):
        self.update_properties(sys_conn, PPD_NAME, PPD_PATH, PPD_NAME,
                               {'ActiveProfile': GLib.Variant('s', profile)})


class SourcesTest(Base):
    def test_an_app_nobody_changed_has_the_defaults(self):
        self.start_daemon()
        self.add_app(A)
        got = self.sources(A)[A]
        self.assertEqual(got['CPUWeight'], ('100', 'default', FAIR))
        self.assertEqual(got['MemoryMax'], ('max', 'default', "systemd's default"))
        self.assertEqual(got['CPUQuota'], ('max', 'default', "systemd's default"))
        self.assertEqual(got['FreezerState'], ('running', 'default', 'running'))
        # this host's mock gives no io.weight: shown as not available, not as set by someone
        self.assertEqual(got['IOWeight'][:2], ('-', 'default'))
        self.assertEqual(list(got)[:3], ['CPUWeight', 'IOWeight', 'CPUQuota'])

    def test_a_value_set_outside_the_daemon_says_so(self):
        self.start_daemon()
        self.add_app(A, files={'cpu.weight': '500\n'})
        self.assertEqual(self.source(A, 'CPUWeight'), ('500', 'outside', 'not set by resource-control'))

    def test_a_value_set_through_the_api(self):
        self.start_daemon()
        self.add_app(A)
        self.set_limits(A, {'CPUWeight': h.t(200), 'MemoryMax': h.t(1 << 30)})
        got = self.sources(A)[A]
        self.assertEqual(got['CPUWeight'], ('200', 'api', 'set through the API'))
        self.assertEqual(got['MemoryMax'], ('1G', 'api', 'set through the API'))

    def test_a_rule_names_its_file_and_group_and_the_api_wins_over_it(self):
        self.write_rules('[org.example.A]\nCPUWeight=50\nTasksMax=99\n', name='20-x.conf')
        self.start_daemon()
        self.add_app(A)
        origin = RULES + '20-x.conf [org.example.A]'
        self.wait_source(A, 'CPUWeight', ('50', 'rule', origin))
        self.assertEqual(self.source(A, 'TasksMax'), ('99', 'rule', origin))
        self.set_weight(A, 200)
        self.assertEqual(self.source(A, 'CPUWeight'), ('200', 'api', 'set through the API'))
        self.assertEqual(self.source(A, 'TasksMax'), ('99', 'rule', origin))

    def test_the_boost_names_who_moved_the_focus_and_wins_over_the_api(self):
        self.start_daemon()
        self.add_app(A)
        self.add_app(B)
        self.set_weight(A, 200)
        self.rc_call('SetForegroundApp', (A,), '(s)')
        self.wait_source(A, 'CPUWeight', ('300', 'boost', 'focus from a SetForeground call'))
        self.rc_call('SetForegroundApp', (B,), '(s)')
        self.wait_source(A, 'CPUWeight', ('200', 'api', 'set through the API'))
        self.assertEqual(self.source(B, 'CPUWeight'),
                         ('300', 'boost', 'focus from a SetForeground call'))

    def test_a_power_group_names_its_group_and_the_power_state(self):
        self.write_rules('[org.example.A]\nCPUWeight=80\nTasksMax=99\n'
                         '[org.example.A @power-saver]\nCPUWeight=20\n')
        sys_conn = self.start_ppd()
        self.start_daemon()
        self.add_app(A)
        self.wait_source(A, 'CPUWeight', ('80', 'rule', RULES + 'r.conf [org.example.A]'))
        self.set_profile(sys_conn, 'power-saver')
        self.wait_source(A, 'CPUWeight', ('20', 'power', RULES + 'r.conf [org.example.A @power-saver] '
                                          '(power profile power-saver)'))
        # a key the power group does not give is still the base group's
        self.assertEqual(self.source(A, 'TasksMax'), ('99', 'rule', RULES + 'r.conf [org.example.A]'))

    def test_an_audio_hold_says_what_the_rule_would_have(self):
        self.write_rules('[org.example.A]\nCPUWeight=20\n')
        player = self.start_player()
        self.start_daemon()
        self.add_app(A, control_group=h.own_cgroup(player.pid), pids=[player.pid])
        self.wait_source(A, 'CPUWeight', ('20', 'rule', RULES + 'r.conf [org.example.A]'))
        self.play()
        self.wait_source(A, 'CPUWeight', ('100', 'audio-hold', 'playing audio (the rule says 20)'))

    def test_a_freeze_by_policy_names_the_rule(self):
        self.write_rules('[org.example.A]\nFreezeWhenInactiveSec=1\n')
        self.start_daemon()
        self.add_app(A)
        self.add_app(B)
        self.wait_until(lambda: 'org.example.A' in self.rc_call('ListRules')[0])
        self.rc_call('SetForegroundApp', (A,), '(s)')
        self.rc_call('SetForegroundApp', (B,), '(s)')
        self.wait_source(A, 'FreezerState', ('frozen', 'freeze',
                                             'inactive for 1 s, rule ' + RULES + 'r.conf [org.example.A]'))

    def test_every_instance_of_an_app_id_and_the_errors(self):
        self.start_daemon()
        self.add_app(A)
        self.add_app(A2)
        self.set_weight(A2, 400)
        got = self.sources('org.example.A')
        self.assertEqual(sorted(got), [A, A2])
        self.assertEqual(got[A2]['CPUWeight'], ('400', 'api', 'set through the API'))
        self.assertEqual(got[A]['CPUWeight'], ('100', 'default', FAIR))
        self.assert_rc_error('NoSuchApp', 'GetLimitSources', ('org.example.Nothing',), '(s)')
        self.assert_rc_error('InvalidArgument', 'GetLimitSources', ('no such thing!',), '(s)')


class WhyClientTest(Base):
    def test_why_prints_each_limit_with_its_source(self):
        self.write_rules('[org.example.A]\nTasksMax=99\n', name='20-x.conf')
        self.start_daemon()
        self.add_app(A)
        self.wait_source(A, 'TasksMax', ('99', 'rule', RULES + '20-x.conf [org.example.A]'))
        self.set_weight(A, 200)
        lines = self.run_client('why', 'org.example.A', check=True).stdout.splitlines()
        self.assertEqual(lines[0], f'# {A}')
        by_key = {line.split('=', 1)[0]: line for line in lines[1:]}
        self.assertRegex(by_key['CPUWeight'], r'^CPUWeight=200 +# api: set through the API$')
        self.assertRegex(by_key['TasksMax'],
                         r'^TasksMax=99 +# rule: ~/\.config/resource-control/rules\.d/20-x\.conf '
                         r'\[org\.example\.A\]$')
        self.assertRegex(by_key['FreezerState'], r'^FreezerState=running +# default: running$')
        # the comments line up
        self.assertEqual(len({line.index('#') for line in lines[1:]}), 1, lines)
        bad = self.run_client('why', 'no such thing!')
        self.assertEqual(bad.returncode, 1, bad)

    def test_why_json(self):
        self.start_daemon()
        self.add_app(A)
        self.set_weight(A, 200)
        out = json.loads(self.run_client('why', '--json', A, check=True).stdout)
        self.assertIn({'Unit': A, 'Key': 'CPUWeight', 'Value': '200', 'Source': 'api',
                       'Detail': 'set through the API'}, out)
        self.assertEqual(len(out), len(self.rc_call('GetLimitSources', (A,), '(s)')[0]))


if __name__ == '__main__':
    sys.exit(h.main())
