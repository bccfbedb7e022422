#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
'''Host integration tests of the energy ledger (docs/design.md, "What each app costs").

The world of integration_test.py, plus python-dbusmock's UPower on the private system bus
(its DisplayDevice played as a battery), a fake /proc/stat (RC_PROC_STAT) and a fake
powercap folder (RC_POWERCAP_ROOT) beside the fake cgroupfs: the apps' CPU time and the
machine's busy time are what the test writes, so each share is known exactly. The proof
with real processes on a real kernel is VM section "energy".

    RC_DAEMON=build/src/resource-controld RC_CLIENT=build/src/resourcectl \\
        /usr/bin/python3 tests/integration/energy_test.py [Class.test_name ...]
'''

import json
import os
import subprocess
import sys
import time

from gi.repository import Gio, GLib

import rctest_harness as h
from rctest_harness import RcTestCase

UPOWER_NAME = 'org.freedesktop.UPower'
DISPLAY_PATH = '/org/freedesktop/UPower/devices/DisplayDevice'
DEVICE_IFACE = 'org.freedesktop.UPower.Device'
MOCK_IFACE = 'org.freedesktop.DBus.Mock'

A = 'app-gnome-org.example.A-1.scope'
B = 'app-gnome-org.example.B-2.scope'
C = 'app-gnome-org.example.C-3.scope'
HZ = os.sysconf('SC_CLK_TCK')
# a large rate, so the millijoules the history keeps are far below the tolerance
RATE_W = 1000.0


class EnergyBase(RcTestCase):
    start_daemon_in_setup = False

    def setUp(self):
        super().setUp()
        self.proc_stat = os.path.join(self.workdir, 'proc-stat')
        self.busy_ticks = 100000
        self.write_proc_stat()
        self.powercap = os.path.join(self.workdir, 'powercap')
        os.makedirs(self.powercap)
        self.history = os.path.join(self.home, '.local', 'state', 'resource-control', 'energy')
        self.usage = {}
        self.sys = None
        self.rapl_interval_ms = 100

    def daemon_env(self):
        return dict(super().daemon_env(), RC_PROC_STAT=self.proc_stat,
                    RC_POWERCAP_ROOT=self.powercap,
                    RC_ENERGY_RAPL_INTERVAL_MS=str(self.rapl_interval_ms))

    def write_proc_stat(self):
        # user nice system idle iowait irq softirq steal guest guest_nice: busy = user
        h._write(self.proc_stat + '.tmp', f'cpu  {self.busy_ticks} 0 0 900000 0 0 0 0 0 0\n'
                 'cpu0 1 0 0 1 0 0 0 0 0 0\n')
        os.rename(self.proc_stat + '.tmp', self.proc_stat)

    def set_usage(self, unit, usec):
        self.usage[unit] = usec
        self.write_cgroup_file(unit, 'cpu.stat', f'usage_usec {usec}\nuser_usec {usec}\n'
                               'system_usec 0\nnr_periods 0\nnr_throttled 0\nthrottled_usec 0')

    def run_for(self, busy_usec, **app_usec):
        '''The machine was busy busy_usec more; each app (by unit) used its usec more.'''
        self.busy_ticks += busy_usec * HZ // 1000000
        self.write_proc_stat()
        for unit, usec in app_usec.items():
            self.set_usage(unit, self.usage.get(unit, 0) + usec)

    def add_busy_app(self, unit):
        self.add_app(unit)
        self.set_usage(unit, 1000000)

    # UPower, as dbusmock's template plays it

    def start_upower(self):
        self.sys = Gio.DBusConnection.new_for_address_sync(
            os.environ['DBUS_SYSTEM_BUS_ADDRESS'],
            Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT |
            Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION, None, None)
        self.addCleanup(h.close_quietly, self.sys)
        env = dict(self.bus_env)
        env['DBUS_SESSION_BUS_ADDRESS'] = env['DBUS_SYSTEM_BUS_ADDRESS']
        # pylint: disable=consider-using-with
        proc = subprocess.Popen([sys.executable, '-B', '-m', 'dbusmock', '--session', '--template',
                                 'upower'], env=env, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
        self.addCleanup(self._terminate, proc)

        def owned():
            return self.sys.call_sync('org.freedesktop.DBus', '/org/freedesktop/DBus',
                                      'org.freedesktop.DBus', 'NameHasOwner',
                                      GLib.Variant('(s)', (UPOWER_NAME,)), None,
                                      Gio.DBusCallFlags.NONE, -1, None).unpack()[0]
        self.wait_until(owned, 10, 'UPower on the system bus')
        return proc

    def battery(self, **props):
        '''UpdateProperties on the DisplayDevice: sets them and sends PropertiesChanged.'''
        types = {'Type': 'u', 'State': 'u', 'IsPresent': 'b', 'EnergyRate': 'd', 'Energy': 'd'}
        self.sys.call_sync(UPOWER_NAME, DISPLAY_PATH, MOCK_IFACE, 'UpdateProperties',
                           GLib.Variant('(sa{sv})', (DEVICE_IFACE, {
                               k: GLib.Variant(types[k], v) for k, v in props.items()})),
                           None, Gio.DBusCallFlags.NONE, -1, None)

    def discharge(self):
        '''A present battery that starts to discharge: the ledger's baseline.'''
        self.battery(Type=2, IsPresent=True, State=2, EnergyRate=RATE_W, Energy=50.0)
        self.wait_source('upower')

    def sample(self, energy=40.0):
        '''UPower polled the battery: one sample over the time since the last.'''
        self.signals.clear()
        self.battery(Energy=energy)
        self.wait_until(lambda: any(name == 'AppChanged' and 'Energy' in args[1]
                                    for name, args, _ in self.signals), 5,
                        'AppChanged with Energy after a sample')

    # the ledger through the API

    def energy_usage(self, since=0):
        usage, totals = self.rc_call('GetEnergyUsage', (since,), '(t)')
        return {app['AppId']: app for app in usage}, totals

    def wait_source(self, source):
        self.wait_until(lambda: self.energy_usage()[1]['Source'] == source, 5,
                        f'energy source "{source}"')

    def assert_adds_up(self, apps, totals):
        '''Apps + system = the total, as exactly as doubles carry microjoules.'''
        self.assertAlmostEqual(sum(a['Energy'] for a in apps.values()) + totals['SystemEnergy'],
                               totals['Energy'], delta=1e-6)
        for app in apps.values():
            self.assertAlmostEqual(app['ForegroundEnergy'] + app['BackgroundEnergy'], app['Energy'],
                                   delta=1e-6)
            self.assertAlmostEqual(app['Share'], app['Energy'] / totals['Energy'], delta=1e-9)


class EnergyTest(EnergyBase):
    def test_shares_by_cpu_time_and_foreground(self):
        self.start_upower()
        self.start_daemon()
        for unit in (A, B, C):
            self.add_busy_app(unit)
        # a battery that is there but charges: a source, but nothing measured
        self.battery(Type=2, IsPresent=True, State=1, EnergyRate=20.0)
        self.wait_source('upower')
        self.assertEqual(self.get_one(A)['Power'], 0)
        self.rc_call('SetForegroundApp', ('org.example.B',), '(s)')
        self.discharge()
        # 25, 50 and 100 % of one CPU's second, in 2 s of busy time: 1/8, 1/4, 1/2 and 1/8 left
        self.run_for(2000000, **{A: 250000, B: 500000, C: 1000000})
        self.sample()
        apps, totals = self.energy_usage()
        self.assertEqual(totals['Source'], 'upower')
        self.assertNotIn('Reason', totals)
        self.assertGreater(totals['Energy'], 0)
        self.assert_adds_up(apps, totals)
        for app_id, share in (('org.example.A', 1 / 8), ('org.example.B', 1 / 4),
                              ('org.example.C', 1 / 2)):
            with self.subTest(app=app_id):
                self.assertAlmostEqual(apps[app_id]['Share'], share, delta=0.002)
                self.assertTrue(apps[app_id]['Running'])
        self.assertAlmostEqual(totals['SystemEnergy'] / totals['Energy'], 1 / 8, delta=0.002)
        # B had the focus: all of its energy is foreground, the others' background
        self.assertEqual(apps['org.example.B']['BackgroundEnergy'], 0)
        self.assertEqual(apps['org.example.A']['ForegroundEnergy'], 0)
        self.assertGreater(apps['org.example.B']['ForegroundEnergy'], 0)
        self.assertEqual(apps['org.example.A']['Name'], 'org.example.A')
        # the records: Energy since the instance started, Power over the last interval
        rec = self.get_one(C)
        self.assertAlmostEqual(rec['Energy'], apps['org.example.C']['Energy'], delta=0.002)
        self.assertGreater(rec['Power'], 0)
        self.assertAlmostEqual(rec['Power'] / self.get_one(A)['Power'], 4, delta=0.01)
        # the CLI lays it out per app; top gets a W column
        out = self.run_client('energy', check=True).stdout
        self.assertIn('(source: upower)', out)
        self.assertRegex(out, r'org.example.C \*\s+50\.0 %')
        self.assertIn('System (services, kernel, idle)', out)
        data = json.loads(self.run_client('energy', '--json', '--since', '1h', check=True).stdout)
        self.assertEqual(len(data['apps']), 3)
        self.assertEqual(data['totals']['Source'], 'upower')
        top = self.run_client('top', '--batch', '--iterations', '1', '--delay', '1', check=True).stdout
        self.assertRegex(top, r'\n\s+W\s+CPU%')
        self.assertIn('Energy source:    upower', self.run_client('status', check=True).stdout)
        # a discharge that ends: nothing measured, power 0, energy kept
        self.battery(State=1)
        self.wait_signal('AppChanged', C, lambda args: args[1].get('Power') == 0.0)
        self.assertAlmostEqual(self.get_one(C)['Energy'], rec['Energy'], delta=1e-9)

    def test_counters_never_go_back_and_an_app_that_exits_keeps_its_energy(self):
        self.start_upower()
        self.start_daemon()
        for unit in (A, B):
            self.add_busy_app(unit)
        self.discharge()
        self.run_for(1000000, **{A: 500000, B: 250000})
        self.sample()
        first, _ = self.energy_usage()
        energy_a = first['org.example.A']['Energy']
        record_b = self.get_one(B)['Energy']
        # A uses more CPU, then exits before the next sample: that part is the system's
        self.run_for(1000000, **{A: 500000, B: 250000})
        self.stop_app(A)
        self.wait_signal('AppRemoved', A)
        self.sample()
        apps, totals = self.energy_usage()
        self.assertAlmostEqual(apps['org.example.A']['Energy'], energy_a, delta=1e-9)
        self.assertFalse(apps['org.example.A']['Running'])
        self.assertGreater(self.get_one(B)['Energy'], record_b)
        self.assertGreater(apps['org.example.B']['Energy'], first['org.example.B']['Energy'])
        self.assert_adds_up(apps, totals)
        # B's counter goes back (a new cgroup under its name): nothing goes back in the ledger
        before = self.get_one(B)['Energy']
        self.set_usage(B, 10)
        self.run_for(1000000)
        self.sample(energy=30.0)
        self.assertGreaterEqual(self.get_one(B)['Energy'], before)
        again, totals = self.energy_usage()
        self.assertGreaterEqual(again['org.example.B']['Energy'], apps['org.example.B']['Energy'])
        self.assert_adds_up(again, totals)
        # ResetEnergyUsage forgets the history (polkit allows it here)
        self.rc_call('ResetEnergyUsage')
        self.assertEqual(self.energy_usage()[0], {})

    def test_history_survives_a_restart(self):
        self.start_upower()
        self.start_daemon()
        self.add_busy_app(A)
        self.discharge()
        self.run_for(1000000, **{A: 500000})
        self.sample()
        before, totals_before = self.energy_usage()
        self.stop_daemon()
        self.assertTrue(os.path.isfile(self.history))
        self.assertEqual(os.stat(self.history).st_mode & 0o777, 0o600)
        self.start_daemon()
        after, totals_after = self.energy_usage()
        self.assertAlmostEqual(after['org.example.A']['Energy'], before['org.example.A']['Energy'],
                               delta=0.001)
        self.assertAlmostEqual(totals_after['Energy'], totals_before['Energy'], delta=0.002)

    def test_each_bad_history_file_is_set_aside(self):
        good = None
        # a good file first, to cut and scribble on
        self.start_upower()
        self.start_daemon()
        self.add_busy_app(A)
        self.discharge()
        self.run_for(1000000, **{A: 500000})
        self.sample()
        self.stop_daemon()
        with open(self.history, 'rb') as f:
            good = f.read()
        kinds = {
            'truncated': lambda: h._write(self.history, good[:-9].decode('latin-1')),
            'corrupt': lambda: self.write_bytes(good[:-6] + b'\xff' * 6),
            'foreign-version': lambda: self.write_bytes(good[:8] + b'\x09' + good[9:]),
            'fifo': lambda: os.mkfifo(self.history, 0o600),
        }
        for kind, make in kinds.items():
            with self.subTest(kind=kind):
                for path in (self.history, self.history + '.bad'):
                    if os.path.lexists(path):
                        os.unlink(path)
                make()
                self.start_daemon()
                self.assertEqual(self.energy_usage()[0], {})
                self.assertTrue(os.path.lexists(self.history + '.bad'))
                self.stop_daemon()
                with open(self.daemon_logs[-1], encoding='utf-8', errors='replace') as f:
                    lines = [line for line in f if 'set aside' in line]
                self.assertEqual(len(lines), 1, lines)

    def write_bytes(self, data):
        with open(self.history, 'wb') as f:
            f.write(data)


class NoSourceTest(EnergyBase):
    def context_switches(self):
        '''{thread id: voluntary + involuntary context switches} of the daemon.'''
        counts = {}
        for tid in os.listdir(f'/proc/{self.daemon.pid}/task'):
            try:
                with open(f'/proc/{self.daemon.pid}/task/{tid}/status', encoding='ascii') as f:
                    counts[tid] = sum(int(line.split()[1]) for line in f
                                      if line.startswith(('voluntary_ctxt_switches',
                                                          'nonvoluntary_ctxt_switches')))
            except OSError:
                pass
        return counts

    def assert_no_wake_ups(self):
        '''Nothing runs at rest: over a second no thread of the daemon wakes up. (A
        second of nothing is the point here, so it is waited out.)'''
        self.rc_call('ListApps')
        # the worker threads of the calls before wind down first
        time.sleep(0.5)
        before = self.context_switches()
        time.sleep(1)
        after = self.context_switches()
        # a thread that started counts all of its own, one that ended at least one
        woke = sum(n - before.get(tid, 0) for tid, n in after.items()) + len(set(before) - set(after))
        self.assertEqual(woke, 0)

    def test_no_source_no_keys_and_no_wake_ups(self):
        self.start_upower()   # UPower without a battery: a desktop PC
        self.start_daemon()
        self.add_busy_app(A)
        rec = self.get_one(A)
        self.assertNotIn('Power', rec)
        self.assertNotIn('Energy', rec)
        apps, totals = self.energy_usage()
        self.assertEqual(apps, {})
        self.assertEqual(totals['Source'], '')
        self.assertIn('no battery', totals['Reason'])
        out = self.run_client('status', check=True).stdout
        self.assertIn('Energy source:    none (no battery, and the RAPL counters cannot be read', out)
        self.assertIn('Nothing is measured now', self.run_client('energy', check=True).stdout)
        self.assert_no_wake_ups()

    def test_rapl_while_readable_then_no_timer(self):
        zone = os.path.join(self.powercap, 'intel-rapl:0')
        os.makedirs(os.path.join(zone, 'intel-rapl:0:0'))
        counter = os.path.join(zone, 'energy_uj')
        h._write(os.path.join(zone, 'name'), 'package-0\n')
        h._write(os.path.join(zone, 'max_energy_range_uj'), '262143328850\n')
        h._write(counter, '1000\n')
        # the platform's zone holds the packages: it alone counts where there is one
        psys = os.path.join(self.powercap, 'intel-rapl:1')
        os.makedirs(psys)
        h._write(os.path.join(psys, 'name'), 'psys\n')
        h._write(os.path.join(psys, 'max_energy_range_uj'), '262143328850\n')
        # its counter wraps once on the way
        h._write(os.path.join(psys, 'energy_uj'), '262143000000\n')
        psys_uj = 262143000000
        self.start_daemon()
        self.add_busy_app(A)
        self.wait_source('rapl')
        uj = 1000
        written = 0

        def use_some():
            '''A's CPU time and the counter move together: a tick that falls between the
            two writes gives one interval the energy and the next the CPU time, so they
            move again until A has some.'''
            nonlocal uj, psys_uj, written
            uj += 2000000
            psys_uj = (psys_uj + 3000000) % 262143328850
            self.run_for(1000000, **{A: 500000})
            h._write(counter, f'{uj}\n')
            h._write(os.path.join(psys, 'energy_uj'), f'{psys_uj}\n')
            written += 3.0
            self.iterate(0.15)
            return self.get_one(A).get('Energy', 0) > 0
        self.wait_until(use_some, 10, 'A\'s energy from RAPL')
        apps, totals = self.energy_usage()
        self.assertEqual(totals['Source'], 'rapl')
        self.assert_adds_up(apps, totals)
        # psys alone, not psys and the package, across its wrap: nothing counted twice
        self.assertAlmostEqual(totals['Energy'], written, delta=1e-6)
        # no longer readable: the timer stops, nothing measures, nothing runs
        os.chmod(os.path.join(psys, 'energy_uj'), 0)
        self.wait_source('')
        self.assertNotIn('Energy', self.get_one(A))
        self.assert_no_wake_ups()


if __name__ == '__main__':
    sys.exit(h.main())
