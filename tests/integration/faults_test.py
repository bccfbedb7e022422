#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
'''Host integration tests of faults and bad input: systemd reloading, re-executing or hanging,
clients leaving mid-call, every malformed argument, a host without cgroup v2 (docs/design.md,
"Errors", "Tests").

Run as root, like integration_test.py:

    RC_DAEMON=build/src/resource-controld RC_CLIENT=build/src/resourcectl \\
        /usr/bin/python3 tests/integration/faults_test.py [Class.test_name ...]
'''

import os
import subprocess
import sys

from gi.repository import GLib

import rctest_harness as h
from rctest_harness import MIB, UINT64_MAX, own_cgroup, t, u, b, s
from rcnames import LIMIT_KEYS, USAGE_KEYS
from rcbase import APP, APP_ID, Base, online_cpus


class FaultsTest(Base):
    '''Faults the daemon must survive: nothing lost, nothing stale,
    every caller answered. The VM tier repeats the systemd ones for real
    (tests/vm/system-test.sh, section faults).'''

    def setUp(self):
        super().setUp()
        self.add_app(APP)

    def test_systemd_reexec_with_a_call_in_flight(self):
        gone = 'app-gnome-org.example.Gone-1.scope'
        new = 'app-gnome-org.example.New-1.scope'
        self.add_app(gone)
        in_flight = self.set_weight_with_systemd_hung(300)
        # the manager leaves the bus for 1.5 s; one app stops and one starts meanwhile
        self.mock('Reexec', (1500, [gone], [new]), '(uasas)')
        during = self.call_async('SetWeight', (APP, 400), '(st)')
        self.wait_signal('AppRemoved', gone, timeout=10)
        self.wait_signal('AppAdded', new, timeout=10)
        self.assertEqual(sorted(a['Unit'] for a in self.list_apps()), sorted([APP, new]))
        self.assertEqual(self.mock('CountSubscribers')[0], 1, 'the daemon did not subscribe again')
        # the call sent before the re-exec is answered once systemd answers it
        self.release_systemd()
        self.wait_pending(in_flight)
        self.assertIsNone(in_flight.error)
        # the call made while systemd was away: a clear error, or done after it came back
        self.wait_pending(during)
        if during.error is not None:
            self.assertEqual(h.dbus_error_name(during.error), h.RC_ERROR + 'Failed')
            self.assertIn('systemd', h.dbus_error_message(during.error))
        self.set_weight(new, 500)
        self.assertEqual(self.cgroup_file(new, 'cpu.weight'), '500')
        self.set_weight(APP, 600)
        self.assertEqual(self.cgroup_file(APP, 'cpu.weight'), '600')

    def test_systemd_reload_keeps_the_apps(self):
        other = 'app-org.example.Other@1.service'
        self.add_app(other)
        self.signals.clear()
        self.mock('Reload')
        self.iterate(0.5)
        self.assertEqual(sorted(a['Unit'] for a in self.list_apps()), sorted([APP, other]))
        self.assert_no_signal('AppRemoved')
        self.assert_no_signal('AppAdded')
        self.set_weight(other, 300)
        self.assertEqual(self.cgroup_file(other, 'cpu.weight'), '300')
        # a unit that really goes: its UnitRemoved after the stop still removes it
        self.stop_app(APP)
        self.wait_signal('AppRemoved', APP)
        self.assertEqual([a['Unit'] for a in self.list_apps()], [other])

    def test_app_exits_between_lookup_and_change(self):
        pending = self.set_weight_with_systemd_hung(300)
        self.stop_app(APP)          # the daemon had found the app; systemd no longer has it
        self.wait_signal('AppRemoved', APP)
        self.release_systemd()
        self.wait_pending(pending)
        self.assertIsNotNone(pending.error)
        self.assertEqual(h.dbus_error_name(pending.error), h.RC_ERROR + 'NoSuchApp')
        self.assertIn(APP, h.dbus_error_message(pending.error))
        self.assertEqual(self.list_apps(), [])
        self.assert_rc_error('NoSuchApp', 'GetApp', (APP,), '(s)')
        self.assert_rc_error('NoSuchApp', 'GetApp', (APP_ID,), '(s)')

    def test_client_disconnects_during_the_systemd_call(self):
        conn = self.other_connection()
        self.set_weight_with_systemd_hung(300, conn=conn)
        conn.close_sync(None)
        self.release_systemd()
        # an authorized change is carried out even though nobody waits for the reply
        self.wait_until(lambda: self.cgroup_file(APP, 'cpu.weight') == '300',
                        message='cpu.weight 300')
        self.set_weight(APP, 200)
        self.assertEqual(self.cgroup_file(APP, 'cpu.weight'), '200')
        self.assertIsNone(self.daemon.poll())

    def test_client_disconnects_during_the_polkit_check(self):
        self.pause_polkitd()
        conn = self.other_connection()
        self.call_async('SetWeight', (APP, 300), '(st)', conn=conn)
        self.iterate(0.5)
        conn.close_sync(None)
        self.iterate(0.2)
        self.resume_polkitd()
        self.assertEqual([a['Unit'] for a in self.list_apps()], [APP])
        self.set_weight(APP, 200)
        # the check of a caller that left ends with it: its change is never made, even after
        # a later caller's (polkitd answered both)
        self.iterate(0.5)
        self.assertEqual(self.cgroup_file(APP, 'cpu.weight'), '200')
        self.assertEqual([c[2]['CPUWeight'] for c in self.unit_property_calls()], [200])
        self.assertIsNone(self.daemon.poll())

    def test_two_clients_change_one_app_at_once(self):
        # each SetLimits sets two knobs; the result must be all of one request
        a = {'CPUWeight': t(200), 'MemoryHigh': t(600 * MIB)}
        b = {'CPUWeight': t(300), 'MemoryHigh': t(700 * MIB)}
        other = self.other_connection()
        for _ in range(5):
            first = self.call_async('SetLimits', (APP, a, {}), '(sa{sv}a{sv})')
            second = self.call_async('SetLimits', (APP, b, {}), '(sa{sv}a{sv})', conn=other)
            self.wait_pending(first)
            self.wait_pending(second)
            self.assertIsNone(first.error)
            self.assertIsNone(second.error)
            state = (self.cgroup_file(APP, 'cpu.weight'), self.cgroup_file(APP, 'memory.high'))
            self.assertIn(state, [('200', str(600 * MIB)), ('300', str(700 * MIB))])

    def test_session_bus_goes_away(self):
        self.bus.terminate()
        try:
            rc = self.daemon.wait(timeout=h.scaled(10))
        except subprocess.TimeoutExpired:
            self.fail('resource-controld kept running without its bus')
        self.daemon = None
        self.assertEqual(rc, 0, 'resource-controld did not exit cleanly when the bus went away')
        with open(self.daemon_logs[-1], encoding='utf-8', errors='replace') as f:
            self.assertIn('The session bus went away', f.read())


class StockDelegationTest(Base):
    '''A user manager with Debian 12's stock delegation: cpu memory pids, no io.'''

    def test_io_weight_needs_io_controller(self):
        unit = 'app-gnome-org.example.NoIO-1.scope'
        self.add_app(unit)
        self.clear_systemd_calls()
        msg = self.assert_rc_error('NotSupported', 'SetLimits',
                                   (unit, {'IOWeight': t(200)}, {}), '(sa{sv}a{sv})')
        self.assertIn('io', msg)
        self.assert_no_writes_to_systemd()


#
# Bad input, missing and protected apps
#

BAD_NAMES = [
    '', ' ', 'foo bar', 'foo/bar', '../etc/passwd', 'org.example.Tab\tApp', 'a' * 256,
    'app-gnome-' + 'a' * 240 + '-1.scope', '-', '.scope', 'org..example', 'org.example.App\n',
    '*', 'app-*.scope',
]


class BadInputTest(Base):

    def setUp(self):
        super().setUp()
        self.add_app(APP, controllers='cpu io memory pids')
        self.clear_systemd_calls()

    def test_bad_input_table(self):
        n = online_cpus()
        sl = '(sa{sv}a{sv})'
        table = [(m, '(s)', (name,), 'InvalidArgument')
                 for m in ('GetApp', 'ResetLimits', 'Freeze', 'Thaw') for name in BAD_NAMES]
        table += [('SetWeight', '(st)', (name, 100), 'InvalidArgument') for name in BAD_NAMES]
        table += [('SetLimits', sl, (name, {'CPUWeight': t(100)}, {}), 'InvalidArgument')
                  for name in BAD_NAMES[:4]]
        table += [
            ('SetWeight', '(st)', (APP, 0), 'InvalidArgument'),
            ('SetWeight', '(st)', (APP, 10001), 'InvalidArgument'),
            ('SetWeight', '(st)', (APP, UINT64_MAX), 'InvalidArgument'),
            ('SetMemoryLimit', '(st)', (APP, 0), 'InvalidArgument'),
            ('SetMemoryLimit', '(st)', (APP, 16 * MIB - 1), 'InvalidArgument'),
            ('SetLimits', sl, (APP, {'CPUWeight': t(0)}, {}), 'InvalidArgument'),
            ('SetLimits', sl, (APP, {'CPUWeight': t(10001)}, {}), 'InvalidArgument'),
            ('SetLimits', sl, (APP, {'IOWeight': t(0)}, {}), 'InvalidArgument'),
            ('SetLimits', sl, (APP, {'IOWeight': t(10001)}, {}), 'InvalidArgument'),
            ('SetLimits', sl, (APP, {'CPUQuota': u(100 * n + 1)}, {}), 'InvalidArgument'),
            ('SetLimits', sl, (APP, {'CPUQuota': u(2 ** 32 - 1)}, {}), 'InvalidArgument'),
            ('SetLimits', sl, (APP, {'TasksMax': t(0)}, {}), 'InvalidArgument'),
            ('SetLimits', sl, (APP, {'MemoryMax': t(1)}, {}), 'InvalidArgument'),
            ('SetLimits', sl, (APP, {'MemoryMax': t(16 * MIB - 1)}, {'force': b(True)}), 'InvalidArgument'),
            ('SetLimits', sl, (APP, {'MemoryHigh': t(16 * MIB - 1)}, {}), 'InvalidArgument'),
            # mistyped and unknown keys
            ('SetLimits', sl, (APP, {'CPUWeight': u(100)}, {}), 'InvalidArgument'),
            ('SetLimits', sl, (APP, {'CPUWeight': s('100')}, {}), 'InvalidArgument'),
            ('SetLimits', sl, (APP, {'CPUQuota': t(50)}, {}), 'InvalidArgument'),
            ('SetLimits', sl, (APP, {'MemoryMax': GLib.Variant('i', 64)}, {}), 'InvalidArgument'),
            ('SetLimits', sl, (APP, {'Nice': GLib.Variant('i', 5)}, {}), 'InvalidArgument'),
            ('SetLimits', sl, (APP, {'cpuweight': t(100)}, {}), 'InvalidArgument'),
            ('SetLimits', sl, (APP, {'CPUQuotaPerSecUSec': t(500000)}, {}), 'InvalidArgument'),
            ('SetLimits', sl, (APP, {'CPUWeight': t(100), 'Bogus': t(1)}, {}), 'InvalidArgument'),
            ('SetLimits', sl, (APP, {'CPUWeight': t(100)}, {'force': s('yes')}), 'InvalidArgument'),
            ('SetLimits', sl, (APP, {'CPUWeight': t(100)}, {'Force': b(True)}), 'InvalidArgument'),
            # the second version's keys
            ('SetLimits', sl, (APP, {'MemoryMin': t(MIB)}, {}), 'InvalidArgument'),
            ('SetLimits', sl, (APP, {'MemoryMin': u(64)}, {}), 'InvalidArgument'),
            ('SetLimits', sl, (APP, {'MemorySwapMax': s('0')}, {}), 'InvalidArgument'),
            ('SetLimits', sl, (APP, {'ManagedOOMPreference': s('never')}, {}), 'InvalidArgument'),
            ('SetLimits', sl, (APP, {'ManagedOOMMemoryPressureLimit': u(200)}, {}), 'InvalidArgument'),
            ('GetAppByPid', '(u)', (0,), 'InvalidArgument'),
            ('ListProcesses', '(s)', ('bad name!',), 'InvalidArgument'),
            ('SetSliceLimits', sl, ('session', {'CPUWeight': t(100)}, {}), 'InvalidArgument'),
            ('SetSliceLimits', sl, ('session.slice', {'CPUWeight': t(0)}, {}), 'InvalidArgument'),
            ('Launch', '(sasa{sv})', ('bad name!', [], {}), 'InvalidArgument'),
            ('Adopt', '(aua{sv})', ([], {}), 'InvalidArgument'),
            # a wrong signature is GDBus's to refuse
            ('SetWeight', '(su)', (APP, 100), 'org.freedesktop.DBus.Error.InvalidArgs'),
            ('SetWeight', '(s)', (APP,), 'org.freedesktop.DBus.Error.InvalidArgs'),
            ('GetApp', '(i)', (5,), 'org.freedesktop.DBus.Error.InvalidArgs'),
            ('GetApp', None, None, 'org.freedesktop.DBus.Error.InvalidArgs'),
            ('SetLimits', '(sa{sv})', (APP, {'CPUWeight': t(100)}), 'org.freedesktop.DBus.Error.InvalidArgs'),
        ]
        for method, sig, args, error in table:
            with self.subTest(method=method, args=args):
                self.assert_rc_error(error, method, args, sig)
        self.assert_no_writes_to_systemd()
        self.assertEqual(self.cgroup_file(APP, 'cpu.weight'), '100')

    def test_name_length_limit(self):
        longest_id = 'org.example.' + 'a' * (255 - len('org.example.'))
        longest_unit = 'app-gnome-' + 'b' * (255 - len('app-gnome--1.scope')) + '-1.scope'
        self.assertEqual((len(longest_id), len(longest_unit)), (255, 255))
        for name in (longest_id, longest_unit):
            with self.subTest(length=len(name), name=name[:20]):
                self.assert_rc_error('NoSuchApp', 'GetApp', (name,), '(s)')
                self.assert_rc_error('InvalidArgument', 'GetApp', (name + 'x',), '(s)')

    def test_no_such_app(self):
        for name in ('org.example.NotRunning', 'app-gnome-org.example.NotRunning-1.scope',
                     'app-org.example.NotRunning@x.service', 'firefox'):
            for method, sig, args in [('GetApp', '(s)', (name,))] + self.write_methods(name) + \
                    [('Thaw', '(s)', (name,))]:
                with self.subTest(method=method, name=name):
                    msg = self.assert_rc_error('NoSuchApp', method, args, sig)
                    self.assertIn(name, msg)
        self.assert_no_writes_to_systemd()

    def test_inactive_unit_is_no_such_app(self):
        unit = 'app-gnome-org.example.Inactive-1.scope'
        self.add_app(unit, wait=False, active_state='inactive')
        self.assert_rc_error('NoSuchApp', 'GetApp', (unit,), '(s)')
        self.assert_rc_error('NoSuchApp', 'SetWeight', (unit, 300), '(st)')
        self.assert_rc_error('NoSuchApp', 'SetWeight', ('org.example.Inactive', 300), '(st)')
        self.assert_no_writes_to_systemd()

    def test_protected_units(self):
        units = [
            ('session-2.scope', 'session.slice'),
            ('dbus.service', 'session.slice'),
            ('resource-control.service', 'session.slice'),
            ('org.gnome.Shell@wayland.service', 'session.slice'),
            # app-named, but not where apps live
            ('app-gnome-org.example.InSession-1.scope', 'session.slice'),
            ('app-gnome-org.example.Elsewhere-1.scope', 'other.slice'),
        ]
        for unit, slice_name in units:
            self.add_app(unit, slice_name, wait=False)
        self.add_app('app-gnome-org.example.Sync-1.scope')
        for unit, _ in units:
            for method, sig, args in self.write_methods(unit):
                with self.subTest(unit=unit, method=method):
                    msg = self.assert_rc_error('Protected', method, args, sig)
                    self.assertIn(unit, msg)
        self.assert_no_writes_to_systemd()

    def test_get_app_of_a_non_app_unit_is_protected(self):
        for unit in ('session-2.scope', 'dbus.service'):
            self.add_app(unit, 'session.slice', wait=False)
        self.add_app('app-gnome-org.example.Sync-1.scope')
        for unit in ('session-2.scope', 'dbus.service'):
            with self.subTest(unit=unit):
                self.assert_rc_error('Protected', 'GetApp', (unit,), '(s)')

    def needs_delegated_cgroup(self):
        if not os.environ.get('RC_TEST_CGROUP_DIR'):
            self.fail('no writable cgroup v2 hierarchy to give the caller a cgroup of its own '
                      '(the root harness prints why)')

    def test_unit_holding_the_caller_is_protected(self):
        self.needs_delegated_cgroup()
        unit = 'app-gnome-org.gnome.Terminal-77.scope'
        self.add_app(unit, control_group=own_cgroup(), pids=[os.getpid()])
        for method, sig, args in self.write_methods(unit):
            with self.subTest(method=method):
                self.assert_rc_error('Protected', method, args, sig)
        self.assert_rc_error('Protected', 'Freeze', ('org.gnome.Terminal',), '(s)')
        self.assert_no_writes_to_systemd()
        # reading is fine
        self.assertEqual(self.get_one(unit)['Unit'], unit)

    def test_unit_holding_the_daemon_is_protected(self):
        self.needs_delegated_cgroup()
        unit = 'app-gnome-org.example.Daemon-78.scope'
        self.add_app(unit, control_group=own_cgroup(self.daemon.pid), pids=[self.daemon.pid])
        for method, sig, args in self.write_methods(unit):
            with self.subTest(method=method):
                self.assert_rc_error('Protected', method, args, sig)
        self.assert_no_writes_to_systemd()


#
# A cgroup v1/hybrid host
#

class HybridHostTest(Base):
    cgroup_layout = 'hybrid'

    def test_freeze_not_supported(self):
        self.add_app(APP)
        self.assertIs(self.get_property('FreezeSupported'), False)
        self.clear_systemd_calls()
        self.assert_rc_error('NotSupported', 'Freeze', (APP,), '(s)')
        self.assert_no_writes_to_systemd()

    def test_limits_read_as_max(self):
        self.add_app(APP)
        rec = self.get_one(APP)
        for key in (*LIMIT_KEYS, *USAGE_KEYS):
            if key != 'CPUQuota':   # no quota reads as 0
                self.assertEqual(rec[key], UINT64_MAX, key)


if __name__ == '__main__':
    sys.exit(h.main())
