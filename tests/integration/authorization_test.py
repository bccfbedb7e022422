#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
'''Host integration tests of authorization: the polkit actions and their defaults, a real
polkitd's answers, a hung or absent polkitd, and the bounds on checks in flight
(docs/design.md, "Authorization and safety").

Run as root, like integration_test.py:

    RC_DAEMON=build/src/resource-controld RC_CLIENT=build/src/resourcectl \\
        /usr/bin/python3 tests/integration/authorization_test.py [Class.test_name ...]
'''

import os
import subprocess
import sys
import time

from gi.repository import Gio

import rctest_harness as h
from rctest_harness import MIB, t
from rcnames import ACTIONS
from rcbase import APP, Base


#
# Authorization
#

class AuthorizationTest(Base):

    def setUp(self):
        super().setUp()
        self.add_app(APP)
        self.clear_systemd_calls()

    def assert_writes_work_once_polkitd_is_back(self):
        '''polkitd started again, allowing everything: a write goes through.'''
        self.start_polkitd()
        self.set_rules('allow-all')
        self.set_weight(APP, 300)
        self.assertEqual(self.cgroup_file(APP, 'cpu.weight'), '300')

    def test_policy_defaults(self):
        out = subprocess.run(['pkaction'], capture_output=True, text=True, check=True).stdout
        ours = sorted(a for a in out.split() if a.startswith(h.ACTION_PREFIX))
        self.assertEqual(ours, sorted(h.ACTION_PREFIX + a for a in ACTIONS))
        for action in ACTIONS:
            out = subprocess.run(['pkaction', '--verbose', '--action-id', h.ACTION_PREFIX + action],
                                 capture_output=True, text=True, check=True).stdout
            implicit = {k.strip(): v.strip() for k, v in
                        (line.split(':', 1) for line in out.splitlines()
                         if line.strip().startswith('implicit '))}
            want = 'yes' if action == 'thaw' else 'auth_self_keep'
            # a wrong value on session.slice can stall the desktop: asked even when active
            active = 'auth_self_keep' if action == 'set-slice-limits' else 'yes'
            with self.subTest(action=action):
                self.assertEqual(implicit, {'implicit any': want, 'implicit inactive': want,
                                            'implicit active': active})

    def test_policy_defaults_without_rules(self):
        self.set_rules('none')
        # no logind session here: allow_any (auth_self_keep) decides, no agent answers
        for method, sig, args in self.write_methods(APP):
            with self.subTest(method=method):
                self.assert_rc_error('NotAuthorized', method, args, sig)
        self.assert_no_writes_to_systemd()
        self.assertEqual(len(self.list_apps()), 1)
        self.assertEqual(len(self.get_app(APP)), 1)
        self.mock('SetFreezerState', (APP, 'frozen'), '(ss)')
        self.rc_call('Thaw', (APP,), '(s)')  # thawing is allowed to everyone
        self.assertIn('frozen 0', self.cgroup_file(APP, 'cgroup.events'))

    def test_deny_one_action(self):
        self.set_rules('deny-set-weight')
        self.assert_rc_error('NotAuthorized', 'SetWeight', (APP, 300), '(st)')
        self.assertEqual(self.unit_property_calls(), [])
        self.set_memory_limit(APP, 512 * MIB)
        self.set_limits(APP, {'CPUWeight': t(300)})
        self.assertEqual(self.cgroup_file(APP, 'cpu.weight'), '300')

    def test_deny_all(self):
        self.set_rules('deny-all')
        self.mock('SetFreezerState', (APP, 'frozen'), '(ss)')
        for method, sig, args in self.write_methods(APP) + [('Thaw', '(s)', (APP,))]:
            with self.subTest(method=method):
                self.assert_rc_error('NotAuthorized', method, args, sig)
        self.assert_no_writes_to_systemd()
        self.assertEqual(len(self.list_apps()), 1)

    def test_decisions_are_not_cached(self):
        self.set_weight(APP, 200)
        self.set_rules('deny-all')
        self.assert_rc_error('NotAuthorized', 'SetWeight', (APP, 300), '(st)')
        self.set_rules('allow-all')
        self.set_weight(APP, 400)
        self.assertEqual([c[2]['CPUWeight'] for c in self.unit_property_calls()], [200, 400])

    def test_subject_is_the_calling_process(self):
        self.set_rules(body=f'''
            if (subject.pid == {os.getpid()} && subject.user == "{h.TEST_USER}")
                return polkit.Result.YES;
            return polkit.Result.NO;''')
        self.set_weight(APP, 300)
        self.set_rules(body=f'''
            if (subject.pid == {self.daemon.pid})
                return polkit.Result.YES;
            return polkit.Result.NO;''')
        self.assert_rc_error('NotAuthorized', 'SetWeight', (APP, 400), '(st)')
        self.assertEqual(self.cgroup_file(APP, 'cpu.weight'), '300')

    def test_auth_self_without_agent(self):
        self.set_rules('auth-self')
        start = time.monotonic()
        self.assert_rc_error('NotAuthorized', 'SetWeight', (APP, 300), '(st)')
        self.assert_rc_error('NotAuthorized', 'SetWeight', (APP, 300), '(st)',
                             flags=Gio.DBusCallFlags.ALLOW_INTERACTIVE_AUTHORIZATION)
        self.assertLess(time.monotonic() - start, h.scaled(5))
        self.assert_no_writes_to_systemd()

    def test_caller_waiting_for_a_password_blocks_nobody(self):
        # In the spirit of fprintd's concurrent polkit test: one caller's check hangs in
        # polkitd (its agent shows a password dialog nobody answers) while other callers
        # read and change apps, this app included; then the dialog is dismissed.
        self.set_rules(body=f'    if (action.id == "{h.ACTION_PREFIX}set-weight")\n'
                            '        return polkit.Result.AUTH_SELF;\n'
                            '    return polkit.Result.YES;')
        other = 'app-org.example.Other@1.service'
        self.add_app(other)
        agent = h.SilentAgent(self)
        waiting = self.call_async('SetWeight', (APP, 300), '(st)',
                                  flags=Gio.DBusCallFlags.ALLOW_INTERACTIVE_AUTHORIZATION)
        self.wait_until(lambda: agent.asked, timeout=10, message='polkitd asking the agent')
        self.assertEqual(sorted(a['Unit'] for a in self.list_apps()), sorted([APP, other]))
        conn = self.other_connection()      # another client (the same client's calls keep their order)
        self.rc_call('SetLimits', (other, {'CPUWeight': t(250)}, {}), '(sa{sv}a{sv})', conn=conn)
        self.assertEqual(self.cgroup_file(other, 'cpu.weight'), '250')
        self.rc_call('SetLimits', (APP, {'MemoryHigh': t(900 * MIB)}, {}), '(sa{sv}a{sv})', conn=conn)
        self.assertEqual(self.cgroup_file(APP, 'memory.high'), str(900 * MIB))
        self.assertFalse(waiting.done, 'the interactive check did not wait for the agent')
        agent.dismiss()
        self.wait_pending(waiting)
        self.assertIsNotNone(waiting.error)
        self.assertEqual(h.dbus_error_name(waiting.error), h.RC_ERROR + 'NotAuthorized')
        self.assertEqual(self.cgroup_file(APP, 'cpu.weight'), '100')

    def test_polkitd_stopped_fails_closed(self):
        self.stop_polkitd()
        for method, sig, args in self.write_methods(APP) + [('Thaw', '(s)', (APP,))]:
            with self.subTest(method=method):
                msg = self.assert_rc_error('NotAuthorized', method, args, sig)
                self.assertRegex(msg, r'(?i)authorization service (is )?unavailable')
        self.assert_no_writes_to_systemd()
        self.assertEqual(len(self.list_apps()), 1)
        self.assert_writes_work_once_polkitd_is_back()

    def test_daemon_started_while_polkitd_is_down(self):
        self.stop_daemon()
        self.stop_polkitd()
        self.start_daemon()
        self.assertEqual(len(self.list_apps()), 1)
        self.assert_rc_error('NotAuthorized', 'SetWeight', (APP, 300), '(st)')
        self.assert_writes_work_once_polkitd_is_back()

    def test_hung_polkitd_times_out(self):
        self.pause_polkitd()
        start = time.monotonic()
        pending = self.call_async('SetWeight', (APP, 300), '(st)')
        self.iterate(0.2)
        self.assertEqual(len(self.list_apps()), 1, 'reads must not wait for polkit')
        self.wait_pending(pending, timeout=25)
        elapsed = pending.finished_at - start
        self.assertIsNotNone(pending.error, 'SetWeight succeeded with polkitd stopped')
        self.assertEqual(h.dbus_error_name(pending.error), h.RC_ERROR + 'NotAuthorized')
        self.assertGreaterEqual(elapsed, 9)
        self.assertLess(elapsed, h.scaled(15))
        self.resume_polkitd()
        self.assert_no_writes_to_systemd()

    def test_checks_in_flight_are_capped_per_caller(self):
        self.pause_polkitd()
        conn = self.other_connection()
        calls = [self.call_async('SetWeight', (APP, 200 + i), '(st)', conn=conn) for i in range(20)]
        self.wait_until(lambda: sum(c.done for c in calls) >= 4, h.scaled(5),
                        'the calls over the cap answered')
        refused = [c for c in calls if c.done]
        self.assertEqual(len(refused), 4)
        for c in refused:
            self.assertEqual(h.dbus_error_name(c.error), h.RC_ERROR + 'NotAuthorized')
            self.assertIn('16 authorization checks in flight, at most 16', h.dbus_error_message(c.error))
        # another caller is not held to this one's count
        mine = self.call_async('SetWeight', (APP, 500), '(st)')
        self.iterate(0.5)
        self.assertFalse(mine.done)
        self.resume_polkitd()
        for c in calls + [mine]:
            self.wait_pending(c, timeout=h.scaled(15))
        self.assertEqual(sum(c.error is None for c in calls), 16)
        self.assertIsNone(mine.error)
        self.assertEqual(len(self.unit_property_calls()), 17)

    def test_a_burst_waits_its_turn_and_is_answered(self):
        # more checks than polkitd is given at once (8), from three callers, while polkitd
        # is stopped: the ones waiting are sent as slots free, none times out
        self.pause_polkitd()
        conns = [self.other_connection() for _ in range(3)]
        calls = [self.call_async('SetLimits', (APP, {'CPUWeight': t(200 + i)}, {}), '(sa{sv}a{sv})',
                                 conn=conns[i % 3]) for i in range(30)]
        self.iterate(1)
        self.assertFalse(any(c.done for c in calls))
        self.resume_polkitd()
        for c in calls:
            self.wait_pending(c, timeout=h.scaled(15))
            self.assertIsNone(c.error)
        self.assertEqual(len(self.unit_property_calls()), 30)

    def test_flood_under_deny_all_leaves_others_answered(self):
        self.set_rules('deny-all')
        flooders = [self.other_connection() for _ in range(4)]
        flood = [self.call_async('SetWeight', (APP, 300), '(st)', conn=flooders[i % 4])
                 for i in range(400)]
        reader = self.other_connection()
        worst = 0.0
        while not all(c.done for c in flood):
            start = time.monotonic()
            self.rc_call('ListApps', conn=reader)
            worst = max(worst, time.monotonic() - start)
            self.iterate(0.05)
        self.assertLess(worst, h.scaled(1.0), 'ListApps waited behind the flood')
        for c in flood:
            self.assertEqual(h.dbus_error_name(c.error), h.RC_ERROR + 'NotAuthorized')
        self.assert_no_writes_to_systemd()
        self.set_rules('allow-all')
        self.set_weight(APP, 250)
        self.assertEqual(self.cgroup_file(APP, 'cpu.weight'), '250')

    def test_caller_with_another_uid_is_refused(self):
        res = self.run_as_foreign_user(['gdbus', 'call', '--session', '--dest', h.RC_NAME,
                                        '--object-path', h.RC_PATH, '--method',
                                        h.RC_IFACE + '.SetWeight', APP, '300'])
        self.assertNotEqual(res['rc'], 0, res['stdout'])
        self.assertIn(h.RC_ERROR + 'NotAuthorized', res['stderr'])
        self.assert_no_writes_to_systemd()


if __name__ == '__main__':
    sys.exit(h.main())
