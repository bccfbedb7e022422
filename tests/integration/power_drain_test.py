#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
'''Host integration tests of the power drain notification (docs/design.md, "Telling").

The world of energy_test.py (python-dbusmock's UPower on the private system bus played as a
discharging battery, a fake /proc/stat and the apps' cpu.stat written by the test, so each
share is known exactly) plus a notification server of the test's own (python-dbusmock's
notification_daemon template, which records every Notify) and a mock of the settings panel.
The rules shorten the sustained time to PowerDrain=50%/1s. The proof with real processes on a
real kernel is VM section "energy".

    RC_DAEMON=build/src/resource-controld RC_CLIENT=build/src/resourcectl \\
        /usr/bin/python3 tests/integration/power_drain_test.py [Class.test_name ...]
'''

import os
import subprocess
import sys
import time

from gi.repository import Gio, GLib

import rctest_harness as h
from energy_test import A, B, EnergyBase

NOTIFY_NAME = 'org.freedesktop.Notifications'
NOTIFY_PATH = '/org/freedesktop/Notifications'
PANEL_NAME = 'org.example.ResourceControl.Panel'
PANEL_PATH = '/org/example/ResourceControl/Panel'
SUSTAIN_S = 1.0


class PowerDrainBase(EnergyBase):
    drain_rules = '[Notify]\nPowerDrain=50%/1s\n'

    def setUp(self):
        super().setUp()
        os.makedirs(self.user_rules_dir, exist_ok=True)
        h._write(os.path.join(self.user_rules_dir, '10-drain.conf'), self.drain_rules)
        self.start_dbusmock(['--template', 'notification_daemon'], NOTIFY_NAME)
        self.start_dbusmock([PANEL_NAME, PANEL_PATH, 'org.freedesktop.Application'], PANEL_NAME)
        self.dbusmock_call(PANEL_NAME, PANEL_PATH, 'AddMethod',
                           ('', 'ActivateAction', 'sava{sv}', '', ''), '(sssss)')
        self.start_upower()
        self.start_daemon()
        for unit in (A, B):
            self.add_busy_app(unit)
        self.discharge()

    def start_dbusmock(self, args, name):
        # pylint: disable=consider-using-with
        proc = subprocess.Popen([sys.executable, '-B', '-m', 'dbusmock', '--session'] + args,
                                env=self.bus_env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.addCleanup(self._terminate, proc)
        self.wait_for_name(name, proc, name)

    def dbusmock_call(self, name, path, method, args=None, sig=None):
        params = GLib.Variant(sig, args) if sig is not None else None
        return self.conn.call_sync(name, path, h.DBUSMOCK_IFACE, method, params, None,
                                   Gio.DBusCallFlags.NONE, 10000, None).unpack()

    def calls(self, name, path, method):
        return [list(args) for _, args in self.dbusmock_call(name, path, 'GetMethodCalls', (method,), '(s)')[0]]

    def notifications(self):
        return self.calls(NOTIFY_NAME, NOTIFY_PATH, 'Notify')

    def drains(self):
        return [n for n in self.notifications() if 'draining the battery' in n[3]]

    def run_samples(self, seconds, **app_usec):
        '''UPower's polls for this long, each over 1 s of busy time that the apps take their
        usec of.'''
        end = time.monotonic() + seconds
        energy = 40.0
        while time.monotonic() < end:
            self.run_for(1000000, **app_usec)
            energy -= 0.01
            self.sample(energy)
            self.iterate(0.2)

    def drain_until_told(self, count, **app_usec):
        '''Samples until the count-th drain notification, at most 5 s.'''
        end = time.monotonic() + 5
        while len(self.drains()) < count and time.monotonic() < end:
            self.run_samples(0.2, **app_usec)
        return self.wait_until(lambda: len(self.drains()) >= count and self.drains(), 1,
                               f'drain notification {count}')

    def daemon_log_text(self):
        with open(self.daemon_logs[-1], encoding='utf-8', errors='replace') as f:
            return f.read()


class PowerDrainTest(PowerDrainBase):
    def test_a_background_drainer_is_told_once_and_opens_the_panel(self):
        # B in the foreground with 90 % of the power: never told
        self.rc_call('SetForegroundApp', ('org.example.B',), '(s)')
        self.run_samples(SUSTAIN_S * 2, **{A: 50000, B: 900000})
        self.assertEqual(self.drains(), [], 'a focused app drains')
        # A in the background with 90 %: told once
        self.rc_call('SetForegroundApp', ('',), '(s)')
        sent = self.drain_until_told(1, **{A: 900000, B: 50000})
        self.run_samples(SUSTAIN_S * 2, **{A: 900000, B: 50000})
        self.assertEqual(len(self.drains()), 1, 'told again within one spell')
        app_name, replaces, icon, summary, body, actions, hints, _ = sent[0]
        self.assertEqual(app_name, 'Resource Control')
        self.assertEqual(replaces, 0)
        self.assertEqual(icon, self.get_one(A)['Icon'])
        self.assertEqual(summary, 'org.example.A is draining the battery')
        self.assertIn('in the background', body)
        self.assertIn('default', actions)
        self.assertEqual(hints['desktop-entry'], 'org.example.A')
        entries = [e for e in self.rc_call('GetActions', ('', 0), '(st)')[0] if e[3] == 'notification']
        self.assertEqual([(e[1], e[7]) for e in entries],
                         [(A, "used much of the battery's power in the background")])
        # its default action: the panel opens on the app
        self.wait_until(lambda: f'Notifications: {A} shown as' in self.daemon_log_text(),
                        message='the Notify reply read')
        shown = int(self.daemon_log_text().split(f'Notifications: {A} shown as ')[1].split()[0])
        self.dbusmock_call(NOTIFY_NAME, NOTIFY_PATH, 'EmitSignal',
                           ('', 'ActionInvoked', 'us', [GLib.Variant('u', shown),
                                                        GLib.Variant('s', 'default')]), '(sssav)')
        called = self.wait_until(lambda: self.calls(PANEL_NAME, PANEL_PATH, 'ActivateAction'),
                                 message='ActivateAction on the panel')
        self.assertEqual(called, [['show-app', [A], {}]])

    def test_the_share_falling_back_ends_the_spell(self):
        self.drain_until_told(1, **{A: 900000})
        # at half, not above it: the spell is over
        self.run_samples(0.3, **{A: 500000, B: 500000})
        self.drain_until_told(2, **{A: 900000})

    def test_below_the_share_is_nothing(self):
        self.run_samples(SUSTAIN_S * 2.5, **{A: 450000, B: 450000})
        self.assertEqual(self.drains(), [])
        # above it: told
        self.drain_until_told(1, **{A: 900000})

    def test_ac_ends_the_spell(self):
        self.drain_until_told(1, **{A: 900000})
        # on AC and back: nothing was sampled between, so only AC could end the spell
        self.battery(State=1)
        self.wait_signal('AppChanged', A, lambda args: args[1].get('Power') == 0.0)
        self.discharge()
        self.drain_until_told(2, **{A: 900000})


class PowerDrainOffTest(PowerDrainBase):
    drain_rules = '[Notify]\nPowerDrain=false\n'

    def test_false_turns_it_off(self):
        self.run_samples(SUSTAIN_S * 2.5, **{A: 900000})
        self.assertEqual(self.drains(), [])
        # a key the daemon knows, not one it skips as unknown
        self.assertNotIn('[Notify], PowerDrain', self.daemon_log_text())


if __name__ == '__main__':
    sys.exit(h.main())
