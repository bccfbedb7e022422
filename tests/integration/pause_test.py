#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
'''Host integration tests of Pause and Resume (docs/design.md, "Saying why"): while paused no
automatic change is in force (a rule, the boost, a power group, a freeze by policy, an audio
hold are each taken back and recorded), values set through the API stay; Resume applies them
again; a timed pause ends by itself, also across a restart; polkit may say no. The proof on
the kernel's files is VM sections "rules" and "focus".

    RC_DAEMON=build/src/resource-controld RC_CLIENT=build/src/resourcectl \\
        /usr/bin/python3 tests/integration/pause_test.py [Class.test_name ...]
'''

import sys
import time

import rctest_harness as h
from why_test import Base as WhyBase, A, B, FAIR, RULES

GIB = 1 << 30
DAY_30 = 30 * 24 * 3600
API = ('200', 'api', 'set through the API')


class Base(WhyBase):
    def pause(self, seconds=0):
        self.rc_call('Pause', (seconds,), '(t)')

    def resume(self):
        self.rc_call('Resume')

    def paused(self):
        return self.get_property('Paused'), self.get_property('PausedUntil')

    def pause_entries(self, kind=None):
        reasons = ('paused by', 'resumed by', 'the pause ended')
        return [e for e in self.actions()
                if e['reason'].startswith(reasons) and (kind is None or e['kind'] == kind)]


class PauseTest(Base):
    def test_a_rule_is_taken_back_and_applied_again_api_values_stay(self):
        self.write_rules('[org.example.A]\nCPUWeight=50\nTasksMax=99\n', name='20-x.conf')
        self.start_daemon()
        self.add_app(A)
        self.wait_value(lambda: self.weight(A), 50, 'A\'s rule weight')
        self.set_limits(A, {'MemoryMax': h.t(GIB)})
        self.assertEqual(self.paused(), (False, 0))
        self.pause()
        self.assertEqual(self.paused(), (True, 0))
        self.wait_value(lambda: self.weight(A), 100, 'the rule taken back')
        self.assertEqual(self.source(A, 'CPUWeight'), ('100', 'default', FAIR))
        self.assertEqual(self.source(A, 'MemoryMax'), ('1G', 'api', 'set through the API'))
        self.assertEqual(self.get_one(A)['MemoryMax'], GIB)
        entries = self.brief(self.pause_entries())
        self.assertEqual([e[:3] for e in entries], [(A, 'pause', 'CPUWeight'), (A, 'pause', 'TasksMax')])
        self.assertRegex(entries[0][5], r'^paused by \S+ \(pid \d+\)$')
        # an app that starts while paused gets no rule
        self.add_app('app-gnome-org.example.A-9.scope')
        self.iterate(0.3)
        self.assertEqual(self.weight('app-gnome-org.example.A-9.scope'), 100)
        # the API keeps working, and its value stays through the resume
        self.set_weight(A, 200)
        self.resume()
        self.assertEqual(self.paused(), (False, 0))
        self.wait_value(lambda: self.weight('app-gnome-org.example.A-9.scope'), 50, 'the rule again')
        self.wait_source(A, 'TasksMax', ('99', 'rule', RULES + '20-x.conf [org.example.A]'))
        self.assertEqual(self.source(A, 'CPUWeight'), API)
        self.assertEqual(self.get_one(A)['MemoryMax'], GIB)
        self.assertRegex(self.pause_entries()[-1]['reason'], r'^resumed by \S+ \(pid \d+\)$')

    def test_the_boost_is_taken_back_and_follows_the_focus_again(self):
        self.start_daemon()
        self.add_app(A)
        self.add_app(B)
        self.set_weight(B, 200)
        self.rc_call('SetForegroundApp', (A,), '(s)')
        self.wait_value(lambda: self.weight(A), 300, 'A boosted')
        self.pause()
        self.wait_value(lambda: self.weight(A), 100, 'the boost taken back')
        reason = self.pause_entries()[0]['reason']
        self.assertEqual(self.brief(self.pause_entries()),
                         [(A, 'pause', 'CPUWeight', '300', '100', reason),
                          (A, 'pause', 'MemoryLow', '256M', '0', reason)])
        # the focus moves while paused: nobody is boosted
        self.rc_call('SetForegroundApp', (B,), '(s)')
        self.iterate(0.3)
        self.assertEqual((self.weight(A), self.weight(B)), (100, 200))
        self.resume()
        self.wait_source(B, 'CPUWeight', ('300', 'boost', 'focus from a SetForeground call'))
        self.assertEqual(self.weight(A), 100)
        self.rc_call('SetForegroundApp', (A,), '(s)')
        self.wait_value(lambda: self.weight(B), 200, 'B\'s API value back after the boost')

    def test_a_power_group_is_taken_back_and_given_again(self):
        self.write_rules('[org.example.A]\nCPUWeight=80\n[org.example.A @power-saver]\nCPUWeight=20\n')
        sys_conn = self.start_ppd()
        self.start_daemon()
        self.add_app(A)
        self.wait_value(lambda: self.weight(A), 80, 'A\'s weight')
        self.set_profile(sys_conn, 'power-saver')
        self.wait_value(lambda: self.weight(A), 20, 'A\'s power-saver weight')
        self.pause()
        self.wait_value(lambda: self.weight(A), 100, 'the power group taken back')
        self.resume()
        self.wait_source(A, 'CPUWeight', ('20', 'power', RULES + 'r.conf [org.example.A @power-saver] '
                                          '(power profile power-saver)'))

    def test_an_app_frozen_by_policy_is_thawed_and_not_frozen_while_paused(self):
        self.write_rules('[org.example.A]\nFreezeWhenInactiveSec=1\n')
        self.start_daemon()
        self.add_app(A)
        self.add_app(B)
        self.wait_until(lambda: 'org.example.A' in self.rc_call('ListRules')[0])
        self.rc_call('SetForegroundApp', (A,), '(s)')
        self.rc_call('SetForegroundApp', (B,), '(s)')
        self.wait_until(lambda: self.systemd_calls('FreezeUnit') == [[A]], 5, 'A frozen')
        self.pause()
        self.wait_until(lambda: self.systemd_calls('ThawUnit') == [[A]], 5, 'A thawed')
        self.wait_source(A, 'FreezerState', ('running', 'default', 'running'))
        (thaw,) = self.pause_entries('thaw')
        self.assertEqual(thaw['unit'], A)
        # focused and left again while paused, and its FreezeWhenInactiveSec passed twice over:
        # still running
        self.rc_call('SetForegroundApp', (A,), '(s)')
        self.rc_call('SetForegroundApp', (B,), '(s)')
        self.iterate(2.2)
        self.assertEqual(self.systemd_calls('FreezeUnit'), [[A]])
        self.resume()
        self.wait_until(lambda: self.systemd_calls('FreezeUnit') == [[A], [A]], 5, 'A frozen again')

    def test_an_audio_hold_is_taken_back_and_held_again(self):
        self.write_rules('[org.example.A]\nCPUWeight=20\n')
        player = self.start_player()
        self.start_daemon()
        self.add_app(A, control_group=h.own_cgroup(player.pid), pids=[player.pid])
        self.wait_value(lambda: self.weight(A), 20, 'A\'s rule weight')
        self.play()
        self.wait_source(A, 'CPUWeight', ('100', 'audio-hold', 'playing audio (the rule says 20)'))
        self.assertTrue(self.get_one(A)['Audio'])
        self.pause()
        self.wait_signal('AppChanged', A, lambda a: a[1].get('Audio') is False)
        self.assertFalse(self.get_one(A)['Audio'])
        self.assertEqual(self.source(A, 'CPUWeight'), ('100', 'default', FAIR))
        (hold,) = self.pause_entries('audio-hold')
        self.assertEqual((hold['key'], hold['old'], hold['new']), ('Audio', 'yes', 'no'))
        self.resume()
        self.wait_source(A, 'CPUWeight', ('100', 'audio-hold', 'playing audio (the rule says 20)'))
        self.assertTrue(self.get_one(A)['Audio'])


class TimedPauseTest(Base):
    def test_a_timed_pause_ends_by_itself(self):
        self.write_rules('[org.example.A]\nCPUWeight=50\n')
        self.start_daemon()
        self.add_app(A)
        self.wait_value(lambda: self.weight(A), 50, 'A\'s rule weight')
        before = time.time()
        self.pause(1)
        paused, until = self.paused()
        self.assertTrue(paused)
        self.assertGreaterEqual(until / 1e6, before + 1)
        self.assertLessEqual(until / 1e6, time.time() + 1)
        self.wait_value(lambda: self.weight(A), 100, 'the rule taken back')
        self.wait_until(lambda: self.paused() == (False, 0), 5, 'the pause over')
        self.assertGreaterEqual(time.time(), until / 1e6)
        self.wait_value(lambda: self.weight(A), 50, 'the rule again')
        self.assertEqual(self.pause_entries()[-1]['reason'], 'the pause ended')

    def test_a_pause_outlives_a_restart_and_still_ends(self):
        self.write_rules('[org.example.A]\nCPUWeight=50\n')
        self.start_daemon()
        self.add_app(A)
        self.wait_value(lambda: self.weight(A), 50, 'A\'s rule weight')
        self.pause(3)
        until = self.paused()[1]
        self.wait_value(lambda: self.weight(A), 100, 'the rule taken back')
        self.stop_daemon()
        self.start_daemon()
        self.assertEqual(self.paused(), (True, until))
        self.assertEqual(self.source(A, 'CPUWeight'), ('100', 'default', FAIR))
        self.wait_until(lambda: self.paused() == (False, 0), 8, 'the pause over')
        self.assertGreaterEqual(time.time(), until / 1e6)
        self.wait_value(lambda: self.weight(A), 50, 'the rule again')

    def test_a_pause_until_resumed_outlives_a_restart(self):
        self.write_rules('[org.example.A]\nCPUWeight=50\n')
        self.start_daemon()
        self.add_app(A)
        self.pause()
        self.stop_daemon()
        self.start_daemon()
        self.assertEqual(self.paused(), (True, 0))
        self.iterate(0.3)
        self.assertEqual(self.weight(A), 100)
        self.resume()
        self.wait_value(lambda: self.weight(A), 50, 'the rule again')

    def test_a_pause_that_ended_while_the_daemon_was_down_is_over(self):
        self.write_rules('[org.example.A]\nCPUWeight=50\n')
        self.start_daemon()
        self.add_app(A)
        self.pause(1)
        until = self.paused()[1]
        self.stop_daemon()
        self.wait_until(lambda: time.time() > until / 1e6, 5, 'the end passed')
        self.start_daemon()
        self.assertEqual(self.paused(), (False, 0))
        self.wait_value(lambda: self.weight(A), 50, 'the rule again')

    def test_pausing_again_moves_the_end_and_a_too_long_pause_is_refused(self):
        self.start_daemon()
        self.pause(3600)
        first = self.paused()[1]
        self.pause(7200)
        self.assertGreaterEqual(self.paused()[1], first + 3600 * 10 ** 6)
        self.pause(0)
        self.assertEqual(self.paused(), (True, 0))
        self.assert_rc_error('InvalidArgument', 'Pause', (DAY_30 + 1,), '(t)')
        self.assertEqual(self.paused(), (True, 0))
        self.assert_rc_error('org.freedesktop.DBus.Error.InvalidArgs', 'Pause', ('1h',), '(s)')


class PauseAuthorizationTest(Base):
    def test_polkit_saying_no_changes_nothing(self):
        self.write_rules('[org.example.A]\nCPUWeight=50\n')
        self.start_daemon()
        self.add_app(A)
        self.wait_value(lambda: self.weight(A), 50, 'A\'s rule weight')
        entries = self.actions()
        self.set_rules(body=f'    if (action.id == "{h.ACTION_PREFIX}pause")\n'
                            '        return polkit.Result.NO;\n'
                            '    return polkit.Result.YES;')
        self.clear_systemd_calls()
        self.assert_rc_error('NotAuthorized', 'Pause', (0,), '(t)')
        self.assert_rc_error('NotAuthorized', 'Pause', (60,), '(t)')
        self.assertEqual(self.paused(), (False, 0))
        self.set_rules('allow-all')
        self.pause()
        self.wait_value(lambda: self.weight(A), 100, 'the rule taken back')
        self.set_rules('deny-all')
        self.assert_rc_error('NotAuthorized', 'Resume')
        self.assertEqual(self.paused(), (True, 0))
        self.iterate(0.3)
        self.assertEqual(self.weight(A), 100)
        # one write only: the allowed pause's
        self.assertEqual(len(self.systemd_calls('SetUnitProperties')), 1)
        self.assertEqual(self.actions()[:len(entries)], entries)
        self.assertEqual(len(self.actions()), len(entries) + 1)
        self.assertFalse(any(e['reason'].startswith('resumed') for e in self.actions()))


class PauseClientTest(Base):
    def status_paused(self):
        lines = self.run_client('status', check=True).stdout.splitlines()
        return [line for line in lines if line.startswith('Paused:')]

    def test_pause_resume_and_status(self):
        self.start_daemon()
        self.assertEqual(self.status_paused(), ['Paused:           no'])
        self.run_client('pause', check=True)
        self.assertEqual(self.status_paused(), ['Paused:           yes, until resumed (resourcectl resume)'])
        self.run_client('pause', '--for', '1h30m', check=True)
        until = self.paused()[1]
        self.assertAlmostEqual(until / 1e6, time.time() + 5400, delta=30)
        when = time.strftime('%Y-%m-%d %H:%M:%S', time.localtime(until // 10 ** 6))
        self.assertEqual(self.status_paused(), [f'Paused:           yes, until {when}'])
        self.run_client('resume', check=True)
        self.assertEqual(self.status_paused(), ['Paused:           no'])
        for bad in ('0', 'soon', '1x', '', '99999999999'):
            with self.subTest(duration=bad):
                out = self.run_client('pause', '--for', bad)
                self.assertEqual(out.returncode, 2, out)
        self.assertEqual(self.paused(), (False, 0))

    def test_the_record_names_resourcectl(self):
        self.start_daemon()
        self.add_app(A)
        self.rc_call('SetForegroundApp', (A,), '(s)')
        self.wait_value(lambda: self.weight(A), 300, 'A boosted')
        self.run_client('pause', check=True)
        entry = self.wait_until(lambda: self.pause_entries(), 5, 'the boost taken back')[0]
        self.assertRegex(entry['reason'], r'^paused by resourcectl \(pid \d+\)$')


if __name__ == '__main__':
    sys.exit(h.main())
