#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
'''Shared by the host integration tests: the app they start with, and Base, the helpers of a test
that drives the daemon (rctest_harness.RcTestCase underneath).'''

import os

from gi.repository import Gio

import rctest_harness as h
from rctest_harness import MIB, HANG, RcTestCase, t

APP = 'app-gnome-org.example.Editor-4711.scope'
APP_ID = 'org.example.Editor'


def online_cpus():
    return os.sysconf('SC_NPROCESSORS_ONLN')


class Base(RcTestCase):
    '''Shared helpers for tests that drive the daemon.'''

    def unit_property_calls(self):
        '''SetUnitProperties calls the daemon made: [(unit, runtime, {prop: value})].'''
        return [(c[0], c[1], dict(c[2])) for c in self.systemd_calls('SetUnitProperties')]

    def assert_no_writes_to_systemd(self):
        for method in ('SetUnitProperties', 'FreezeUnit', 'ThawUnit'):
            self.assertEqual(self.systemd_calls(method), [],
                             f'the daemon called systemd {method} though it should not have')

    def write_methods(self, app):
        '''One call of each write method for app, with harmless values.'''
        return [
            ('SetWeight', '(st)', (app, 200)),
            ('SetMemoryLimit', '(st)', (app, 512 * MIB)),
            ('SetLimits', '(sa{sv}a{sv})', (app, {'CPUWeight': t(200)}, {})),
            ('ResetLimits', '(s)', (app,)),
            ('Freeze', '(s)', (app,)),
        ]

    def other_connection(self):
        '''A second client: its own connection to the session bus.'''
        conn = Gio.DBusConnection.new_for_address_sync(
            self.bus_address,
            Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT |
            Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION, None, None)
        self.addCleanup(h.close_quietly, conn)
        return conn

    def set_weight_with_systemd_hung(self, weight, conn=None):
        '''SetWeight(APP, weight) whose SetUnitProperties the mock holds until
        release_systemd(); returns the pending call once systemd holds it.'''
        self.mock('SetDelays', ('SetUnitProperties', [HANG]), '(sau)')
        pending = self.call_async('SetWeight', (APP, weight), '(st)', conn=conn)
        self.wait_until(lambda: self.mock('CountHung')[0] == 1, message='the hung systemd call')
        return pending

    def release_systemd(self):
        self.mock('ReleaseHung', ('SetUnitProperties',), '(s)')

    def write_rules(self, folder, name, text):
        '''A rules file, saved as an editor does: a new file renamed over the old one.'''
        os.makedirs(folder, exist_ok=True)
        path = os.path.join(folder, name)
        h._write(path + '.tmp', text)
        os.rename(path + '.tmp', path)
        return path

    def list_rules(self):
        return self.rc_call('ListRules')[0]

    def wait_app_changed(self, unit, key, value, timeout=5):
        return self.wait_signal('AppChanged', unit,
                                lambda args: args[1].get(key) == value, timeout)
