#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
'''Host integration tests for resource-controld (docs/design.md, "Tests", tier 2).

The real daemon from the build folder on a private session bus, a mock systemd user
manager with a fake cgroupfs (mock_systemd.py) and a real polkitd on a private
system bus; see rctest_harness.py. Run as root:

    RC_DAEMON=build/src/resource-controld RC_CLIENT=build/src/resourcectl \\
        /usr/bin/python3 tests/integration/integration_test.py [Class.test_name ...]

or through meson: meson test -C build --suite integration
'''

import json
import os
import subprocess
import sys
import time

from gi.repository import Gio, GLib

import mock_systemd
import rctest_harness as h
from rctest_harness import MIB, UINT64_MAX, HANG, RcTestCase, own_cgroup, t, u, b, s

APP = 'app-gnome-org.example.Editor-4711.scope'
APP_ID = 'org.example.Editor'

from rcnames import ACTIONS, APP_KEYS, LIMIT_KEYS, USAGE_KEYS  # noqa: E402


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


#
# The harness itself, without the daemon: tells harness trouble from daemon bugs.
#

class HarnessTest(Base):
    start_daemon_in_setup = False

    def test_refuses_a_relative_or_empty_top_folder(self):
        for topdir in ('', 'relative', os.path.join(self.workdir, 'missing')):
            with self.subTest(topdir=topdir):
                before = sorted(os.listdir(self.workdir))
                res = subprocess.run([sys.executable, '-B', os.path.abspath(__file__),
                                      'HarnessTest.test_runs_as_unprivileged_test_user'],
                                     cwd=self.workdir, capture_output=True, text=True, check=False,
                                     env=dict(os.environ, RC_TEST_TOPDIR=topdir))
                self.assertNotEqual(res.returncode, 0)
                self.assertIn('RC_TEST_TOPDIR must be an existing absolute folder', res.stderr)
                self.assertEqual(sorted(os.listdir(self.workdir)), before, 'it left files behind')

    def test_runs_as_unprivileged_test_user(self):
        import pwd  # pylint: disable=import-outside-toplevel
        me = pwd.getpwuid(os.getuid())
        self.assertEqual(me.pw_name, h.TEST_USER)
        self.assertNotEqual(os.geteuid(), 0)
        for proc in (self.bus, self.mock_proc):
            self.assertEqual(os.stat(f'/proc/{proc.pid}').st_uid, os.getuid())

    def test_mock_units_signals_and_cgroup_files(self):
        manager = 'org.freedesktop.systemd1.Manager'
        seen = []
        self.conn.signal_subscribe(h.SYSTEMD_NAME, manager, 'UnitNew', h.SYSTEMD_PATH, None,
                                   Gio.DBusSignalFlags.NONE,
                                   lambda *a: seen.append(a[5].unpack()))
        self.mock('Subscribe', iface=manager)
        self.add_app(APP, wait=False, pids=[4242], controllers='cpu io memory pids')
        self.wait_until(lambda: seen, message='UnitNew')
        self.assertEqual(seen[0][0], APP)
        units = self.mock('ListUnitsByPatterns', (['active'], ['app-*']), '(asas)', iface=manager)[0]
        self.assertEqual([x[0] for x in units], [APP])
        self.assertEqual(units[0][6], '/org/freedesktop/systemd1/unit/'
                         'app_2dgnome_2dorg_2eexample_2eEditor_2d4711_2escope')
        self.mock('SetUnitProperties',
                  (APP, True, [('CPUWeight', t(300)), ('IOWeight', t(50)),
                               ('CPUQuotaPerSecUSec', t(250000)),
                               ('MemoryMax', t(100 * MIB + 5)), ('TasksMax', t(UINT64_MAX))]),
                  '(sba(sv))', iface=manager)
        self.assertEqual(self.cgroup_file(APP, 'cpu.weight'), '300')
        self.assertEqual(self.cgroup_file(APP, 'io.weight'), 'default 50')
        self.assertEqual(self.cgroup_file(APP, 'cpu.max'), '25000 100000')
        self.assertEqual(self.cgroup_file(APP, 'memory.max'), str(100 * MIB))
        self.assertEqual(self.cgroup_file(APP, 'pids.max'), 'max')
        self.assertEqual(self.cgroup_file(APP, 'cgroup.procs'), '4242')
        self.mock('FreezeUnit', (APP,), '(s)', iface=manager)
        self.assertIn('frozen 1', self.cgroup_file(APP, 'cgroup.events'))
        calls = self.unit_property_calls()
        self.assertEqual(calls[0][0], APP)
        self.assertEqual(calls[0][2]['CPUWeight'], 300)

    def test_polkit_rule_scenarios(self):
        act = h.ACTION_PREFIX
        self.set_rules('allow-all')
        self.assertEqual(self.pkcheck(act + 'set-weight'), 0)
        self.set_rules('deny-all')
        self.assertEqual(self.pkcheck(act + 'set-weight'), 1)
        self.set_rules('none')
        # no logind here, so the caller is never "active": allow_any decides
        self.assertEqual(self.pkcheck(act + 'set-weight'), 2)
        self.assertEqual(self.pkcheck(act + 'thaw'), 0)

    def test_polkitd_stop_and_start(self):
        self.stop_polkitd()
        self.assertNotEqual(self.pkcheck(h.ACTION_PREFIX + 'thaw'), 0)
        self.start_polkitd()
        self.assertEqual(self.pkcheck(h.ACTION_PREFIX + 'thaw'), 0)


#
# Starting and stopping
#

class StartupTest(Base):
    start_daemon_in_setup = False

    def run_daemon_once(self, *args):
        return subprocess.run([self.daemon_path] + list(args), env=self.daemon_env(),
                              capture_output=True, text=True, timeout=h.scaled(10), check=False)

    def test_version_option(self):
        proc = self.run_daemon_once('--version')
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.start_daemon()
        version = self.get_property('Version')
        self.assertTrue(version)
        self.assertIn(version, proc.stdout)

    def test_system_option_exits_2(self):
        proc = self.run_daemon_once('--system')
        self.assertEqual(proc.returncode, 2, proc.stdout + proc.stderr)
        self.assertTrue((proc.stdout + proc.stderr).strip(), '--system exits without saying why')

    def test_properties(self):
        self.start_daemon()
        self.assertTrue(self.get_property('Version'))
        self.assertIs(self.get_property('FreezeSupported'), True)

    def test_subscribes_to_systemd(self):
        self.start_daemon()
        self.wait_until(lambda: self.mock('CountSubscribers')[0] >= 1, message='Subscribe()')

    def test_owns_its_name_at_once_and_early_calls_wait_for_the_listing(self):
        # systemd holds its answer to the first listing: the daemon owns its name all
        # the same (D-Bus activation must not time out), and calls that come meanwhile
        # are answered only once the listing is read, with every app in it.
        self.add_app(APP, wait=False, announce=False)
        self.add_app('app-org.example.Real@a1b2.service', wait=False, announce=False)
        self.mock('SetDelays', ('ListUnitsByPatterns', [HANG]), '(sau)')
        self.start_daemon(listed=False)    # returns once the daemon owns its name
        self.wait_until(lambda: self.mock('CountHung')[0] == 1, message='the held listing')
        listed = self.call_async('ListApps')
        by_id = self.call_async('GetApp', (APP_ID,), '(s)')
        self.iterate(1)
        self.assertFalse(listed.done, 'ListApps answered before the first listing was read')
        self.assertFalse(by_id.done, 'GetApp answered before the first listing was read')
        self.mock('ReleaseHung', ('ListUnitsByPatterns',), '(s)')
        self.wait_pending(listed)
        self.wait_pending(by_id)
        self.assertIsNone(listed.error)
        self.assertIsNone(by_id.error)
        units = sorted(a['Unit'] for a in listed.result.unpack()[0])
        self.assertEqual(units, sorted([APP, 'app-org.example.Real@a1b2.service']))
        self.assertEqual([a['Unit'] for a in by_id.result.unpack()[0]], [APP])

    def test_lists_apps_running_before_it_started(self):
        self.add_app(APP, wait=False, announce=False)
        self.add_app('app-org.example.Real@a1b2.service', wait=False, announce=False)
        self.add_app('session-2.scope', 'session.slice', wait=False, announce=False)
        self.add_app('app-gnome-org.example.Stopped-3.scope', wait=False, announce=False,
                     active_state='inactive')
        self.start_daemon(listed=False)
        # a client that activated the daemon calls at once; the answer must be complete
        units = sorted(a['Unit'] for a in self.list_apps())
        self.assertEqual(units, sorted([APP, 'app-org.example.Real@a1b2.service']))

    def test_replace(self):
        first = self.start_daemon(args=('--verbose', '--replace'))
        self.add_app(APP)
        second = self.start_daemon(args=('--verbose', '--replace'), wait=False)
        try:
            first.wait(timeout=h.scaled(10))
        except subprocess.TimeoutExpired:
            self.fail('the first daemon kept running after --replace')
        self.assertEqual(first.returncode, 0)
        self.wait_for_name(h.RC_NAME, second, 'the replacing daemon')
        self.wait_until(lambda: [a for a in self.list_apps() if a['Unit'] == APP],
                        message='the replacing daemon to list the app')

    def test_the_service_keeps_its_name(self):
        # started as the service starts it: neither --replace nor another process takes the name
        first = self.start_daemon()
        self.add_app(APP)
        second = self.start_daemon(args=('--verbose', '--replace'), wait=False)
        self.assertEqual(second.wait(timeout=h.scaled(10)), 1)
        self.daemon = first      # the one the harness stops at the end
        reply = self.conn.call_sync('org.freedesktop.DBus', '/org/freedesktop/DBus',
                                    'org.freedesktop.DBus', 'RequestName',
                                    GLib.Variant('(su)', (h.RC_NAME, 0x2 | 0x4)), None,
                                    Gio.DBusCallFlags.NONE, -1, None).unpack()[0]
        self.assertEqual(reply, 3, 'RequestName(REPLACE_EXISTING) must get EXISTS')   # 3: EXISTS
        self.assertIsNone(first.poll())
        self.assertEqual([a['Unit'] for a in self.list_apps()], [APP])

    def test_sigterm_exits_cleanly(self):
        proc = self.start_daemon()
        self.add_app(APP)
        self.stop_daemon(proc)
        self.assertFalse(self.name_has_owner(h.RC_NAME))


#
# Reading: ListApps, GetApp and the app records
#

class ListAppsTest(Base):

    def app_record_types(self, unit):
        '''{key: type string} of the record of unit, from the raw reply.'''
        reply = self.conn.call_sync(h.RC_NAME, h.RC_PATH, h.RC_IFACE, 'GetApp',
                                    GLib.Variant('(s)', (unit,)), GLib.VariantType('(aa{sv})'),
                                    Gio.DBusCallFlags.NONE, 10000, None)
        record = reply.get_child_value(0).get_child_value(0)
        return {record.get_child_value(i).get_child_value(0).get_string():
                record.get_child_value(i).get_child_value(1).get_variant().get_type_string()
                for i in range(record.n_children())}

    def test_empty(self):
        self.assertEqual(self.list_apps(), [])

    def test_record_keys_types_and_values(self):
        self.add_app(APP, pids=[4242, 4243])
        self.assertEqual(self.app_record_types(APP), APP_KEYS)
        rec = self.get_one(APP)
        expected = {
            'Unit': APP, 'AppId': APP_ID, 'Launcher': 'gnome', 'Name': 'Test Editor',
            'Icon': 'accessories-text-editor',
            'DesktopFile': os.path.join(self.applications_dir, 'org.example.Editor.desktop'),
            'Slice': 'app.slice', 'ActiveState': 'active', 'FreezerState': 'running',
            'Audio': False, 'Pids': [4242, 4243], 'CPUWeight': 100,
            'IOWeight': UINT64_MAX,  # no io controller: no io.weight file
            'CPUQuota': 0, 'MemoryLow': 0, 'MemoryHigh': UINT64_MAX, 'MemoryMax': UINT64_MAX,
            'TasksMax': 4915, 'MemoryMin': 0, 'MemorySwapMax': UINT64_MAX,
            'MemoryCurrent': 50 * MIB, 'CPUUsageNSec': 1234567000, 'TasksCurrent': 2,
            'CPUThrottledUSec': 0,
        }
        self.assertEqual(rec, expected)
        self.assertEqual(self.list_apps(), [expected])

    def set_property_behind_back(self, unit, files):
        '''What systemctl --user set-property does: no signal; systemd writes a
        drop-in (a transient unit's in its transient folder) and the cgroup files.'''
        folder = os.path.join(self.runtime_dir, 'systemd', 'transient', unit + '.d')
        os.makedirs(folder, exist_ok=True)
        with open(os.path.join(folder, '50-External.conf'), 'w', encoding='utf-8') as f:
            f.write('[Scope]\nCPUWeight=777\n')
        for name, text in files:
            self.write_cgroup_file(unit, name, text)

    def test_values_follow_cgroup_files(self):
        self.add_app(APP, controllers='cpu io memory pids')
        self.get_one(APP)       # read once: what the daemon keeps must not go stale
        self.set_property_behind_back(APP, [
            ('cpu.weight', '777'), ('io.weight', 'default 250'),
            ('cpu.max', '25000 100000'), ('memory.low', str(64 * MIB)),
            ('memory.high', str(448 * MIB)), ('memory.max', str(512 * MIB)),
            ('pids.max', 'max'), ('memory.current', str(99 * MIB)),
            ('cpu.stat', 'usage_usec 5\nuser_usec 3\nsystem_usec 2\nthrottled_usec 4'),
            ('pids.current', '7'), ('memory.min', str(32 * MIB)),
            ('memory.swap.max', '0')])
        rec = self.get_one(APP)
        got = {k: rec[k] for k in (*LIMIT_KEYS, *USAGE_KEYS)}
        self.assertEqual(got, {'CPUWeight': 777, 'IOWeight': 250, 'CPUQuota': 25,
                               'MemoryLow': 64 * MIB, 'MemoryHigh': 448 * MIB,
                               'MemoryMax': 512 * MIB, 'TasksMax': UINT64_MAX,
                               'MemoryMin': 32 * MIB, 'MemorySwapMax': 0,
                               'MemoryCurrent': 99 * MIB, 'CPUUsageNSec': 5000, 'CPUThrottledUSec': 4,
                               'TasksCurrent': 7})

    def test_open_file_limit_is_kept_to(self):
        # Each app's cgroup and usage files stay open, up to the open file limit
        # but 256: past it they are opened at each read. 150 apps, limit 600.
        self.stop_daemon()
        units = [f'app-gnome-org.example.Many{i}-{i}.scope' for i in range(150)]
        for i, unit in enumerate(units):
            self.add_app(unit, wait=False, announce=False, memory_current=(i + 1) * MIB)
        self.start_daemon(nofile=600)
        records = {r['Unit']: r for r in self.list_apps()}
        self.assertEqual(sorted(records), sorted(units))
        self.assertEqual([records[u]['MemoryCurrent'] for u in units],
                         [(i + 1) * MIB for i in range(150)])
        pid = self.daemon.pid
        self.assertLessEqual(len(os.listdir(f'/proc/{pid}/fd')), 600 - 200)
        # the last apps' usage is read anew all the same
        self.mock('SetMemoryCurrent', (units[-1], 7 * MIB), '(st)')
        self.mock('SetMemoryCurrent', (units[0], 9 * MIB), '(st)')
        records = {r['Unit']: r for r in self.list_apps()}
        self.assertEqual((records[units[0]]['MemoryCurrent'], records[units[-1]]['MemoryCurrent']),
                         (9 * MIB, 7 * MIB))

    def test_values_after_a_reload(self):
        # A drop-in edited by hand takes effect at daemon-reload: systemd sends
        # Reloading and writes the cgroup files, and writes no drop-in itself.
        self.add_app(APP)
        self.assertEqual(self.get_one(APP)['CPUWeight'], 100)
        self.write_cgroup_file(APP, 'cpu.weight', '555')
        self.mock('Reload')
        self.assertEqual(self.get_one(APP)['CPUWeight'], 555)

    def test_values_after_startup_finished(self):
        # At the end of the manager's start-up StartupCPUWeight= gives way to
        # CPUWeight=: systemd writes cpu.weight, and no drop-in.
        self.add_app(APP)
        self.assertEqual(self.get_one(APP)['CPUWeight'], 100)
        self.write_cgroup_file(APP, 'cpu.weight', '40')
        self.mock('FinishStartup')
        self.assertEqual(self.get_one(APP)['CPUWeight'], 40)

    def test_missing_cgroup_files_read_as_max(self):
        self.add_app(APP)
        self.stop_daemon()      # a running daemon keeps memory.current open
        for name in ('cpu.weight', 'memory.max', 'memory.high', 'pids.max', 'memory.current'):
            os.unlink(os.path.join(self.cgroup_dir(APP), name))
        self.start_daemon()
        rec = self.get_one(APP)
        for key in ('CPUWeight', 'MemoryMax', 'MemoryHigh', 'TasksMax', 'MemoryCurrent'):
            self.assertEqual(rec[key], UINT64_MAX, key)

    def test_unit_name_forms(self):
        # (unit, AppId, Launcher or None when the form does not say)
        table = [
            ('app-gnome-org.example.Editor-4711.scope', 'org.example.Editor', 'gnome'),
            ('app-org.example.Tool@a1b2c3.service', 'org.example.Tool', ''),
            ('app-gnome-org.example.Mail@77.service', 'org.example.Mail', 'gnome'),
            ('app-org.example.Plain.service', 'org.example.Plain', ''),
            ('app-kde-org.kde.konsole-77.scope', 'org.kde.konsole', 'kde'),
            ('app-firefox-123.scope', 'firefox', ''),
            ('app-flatpak-org.example.My\\x2dApp-12345.scope', 'org.example.My-App', 'flatpak'),
            ('flatpak-org.example.Flat-12345.scope', 'org.example.Flat', None),
            ('gnome-launched-org.example.Launched.desktop-999.scope', 'org.example.Launched', None),
        ]
        for unit, _, _ in table:
            self.add_app(unit)
        for unit, app_id, launcher in table:
            with self.subTest(unit=unit):
                rec = self.get_one(unit)
                self.assertEqual(rec['AppId'], app_id)
                if launcher is not None:
                    self.assertEqual(rec['Launcher'], launcher)
                self.assertEqual([r['Unit'] for r in self.get_app(app_id)], [unit])

    def test_background_and_nested_app_slices(self):
        self.add_app('app-gnome-org.example.Bg-5.scope', 'background.slice')
        self.add_app('app-gnome-org.example.Nested-6.scope', 'app-gnome.slice')
        self.assertEqual(self.get_one('org.example.Bg')['Slice'], 'background.slice')
        self.assertEqual(self.get_one('org.example.Nested')['Slice'], 'app-gnome.slice')

    def test_source_path_desktop_file_wins(self):
        desktop = os.path.join(self.applications_dir, 'org.example.Real.desktop')
        unit = 'app-gnome-org.example.Fake-1.scope'
        self.add_app(unit, source_path=desktop)
        rec = self.get_one(unit)
        self.assertEqual(rec['AppId'], 'org.example.Real')
        self.assertEqual(rec['Name'], 'The Real App')
        self.assertEqual(rec['DesktopFile'], desktop)
        self.assertEqual([r['Unit'] for r in self.get_app('org.example.Real')], [unit])
        self.assert_rc_error('NoSuchApp', 'GetApp', ('org.example.Fake',), '(s)')

    def test_without_desktop_file_name_is_app_id(self):
        unit = 'app-gnome-org.example.NoDesktop-3.scope'
        self.add_app(unit)
        rec = self.get_one(unit)
        self.assertEqual(rec['AppId'], 'org.example.NoDesktop')
        self.assertEqual(rec['Name'], 'org.example.NoDesktop')
        self.assertEqual(rec['DesktopFile'], '')

    def test_aliases_are_checked_at_startup(self):
        self.stop_daemon()
        self.add_app('custom-tool.service', wait=False, announce=False,
                     aliases=['app-org.example.Aliased@1.service'])
        self.start_daemon()
        self.assertEqual([a['AppId'] for a in self.list_apps()], ['org.example.Aliased'])

    def test_non_apps_are_not_listed(self):
        for unit, slice_name, opts in [
                ('session-2.scope', 'session.slice', {}),
                ('dbus.service', 'session.slice', {}),
                ('pipewire.service', 'session.slice', {}),
                ('app-gnome-org.example.Inactive-1.scope', 'app.slice', {'active_state': 'inactive'}),
                ('app-gnome-org.example.Starting-1.scope', 'app.slice', {'active_state': 'activating',
                                                                         'sub_state': 'start'}),
                ('app-gnome-org.example.Failed-1.scope', 'app.slice', {'active_state': 'failed',
                                                                       'sub_state': 'failed'})]:
            self.add_app(unit, slice_name, wait=False, **opts)
        self.add_app(APP)
        self.assert_no_signal('AppAdded')
        self.assertEqual([a['Unit'] for a in self.list_apps()], [APP])

    def test_reloading_unit_is_an_app(self):
        self.add_app(APP, active_state='reloading', sub_state='reload')
        self.assertEqual(self.get_one(APP)['ActiveState'], 'reloading')

    def test_becomes_an_app_when_active(self):
        self.add_app(APP, wait=False, active_state='activating', sub_state='start')
        self.assert_no_signal('AppAdded')
        self.mock('SetActiveState', (APP, 'active', 'running'), '(sss)')
        self.wait_signal('AppAdded', APP)
        self.assertEqual(self.get_one(APP)['ActiveState'], 'active')

    def reads_of(self, unit):
        '''How often the daemon read the unit's object (GetAll or Get) so far.'''
        path = mock_systemd.unit_path(unit)
        with open(self.mock_log, encoding='utf-8') as f:
            return sum(1 for line in f if f' GetAll {path} ' in line or f' Get {path} ' in line)

    def test_units_not_running_are_never_read(self):
        # Reading the object of a unit systemd has collected makes systemd load it
        # again and send UnitNew. A daemon that read units on UnitNew, or after they
        # stopped, kept the VM's user manager busy loading and collecting one unit
        # until it stopped answering anyone. UnitNew + PropertiesChanged(inactive),
        # as systemd sends them when something loads a unit without starting it.
        # A service from a unit file: one the daemon asks systemd about once it runs.
        app = 'app-org.example.Editor@4711.service'
        self.add_app(app, wait=False, active_state='inactive', sub_state='dead')
        self.list_apps()                    # the daemon has seen both signals by now
        self.assertEqual(self.reads_of(app), 0, 'an inactive unit was read')
        self.mock('SetActiveState', (app, 'active', 'running'), '(sss)')
        self.wait_signal('AppAdded', app)
        reads = self.reads_of(app)
        self.assertGreaterEqual(reads, 1)
        self.mock('SetFreezerState', (app, 'frozen'), '(ss)')
        self.wait_app_changed(app, 'FreezerState', 'frozen')
        self.assertEqual(self.reads_of(app), reads, 'a running app was read again on a change')
        self.stop_app(app)
        self.wait_signal('AppRemoved', app)
        self.list_apps()
        self.assertEqual(self.reads_of(app), reads, 'a stopping unit was read')

    def test_running_transient_units_are_found_without_asking_systemd(self):
        # A transient unit running in a slice: its cgroup folder, cgroup.events
        # and transient file say all a record needs; systemd is asked nothing.
        desktop = os.path.join(self.applications_dir, 'org.example.Real.desktop')
        unit = 'app-gnome-org.example.Fake-7.scope'
        self.add_app(unit, slice_name='app-gnome.slice', source_path=desktop)
        rec = self.get_one(unit)
        self.assertEqual((rec['AppId'], rec['Slice'], rec['FreezerState']),
                         ('org.example.Real', 'app-gnome.slice', 'running'))
        self.assertEqual(self.reads_of(unit), 0, 'systemd was asked about a running transient unit')
        # and at start-up, with one frozen
        self.stop_daemon()
        self.mock('SetFreezerState', (unit, 'frozen'), '(ss)')
        self.start_daemon()
        self.assertEqual(self.get_one(unit)['FreezerState'], 'frozen')
        self.assertEqual(self.reads_of(unit), 0, 'systemd was asked about a running transient unit')

    def test_several_instances_are_several_records(self):
        units = ['app-gnome-org.example.Multi-1.scope', 'app-gnome-org.example.Multi-2.scope',
                 'app-org.example.Multi@3.service']
        for unit in units:
            self.add_app(unit)
        recs = self.get_app('org.example.Multi')
        self.assertEqual(sorted(r['Unit'] for r in recs), sorted(units))
        self.assertTrue(all(r['Name'] == 'Multi Window' for r in recs))
        self.assertEqual(len(self.list_apps()), 3)
        self.assertEqual(len(self.get_app(units[0])), 1)


#
# Signals
#

class SignalsTest(Base):

    def test_app_added_carries_the_record(self):
        unit, record = self.add_app(APP, pids=[4242])
        self.assertEqual(unit, APP)
        self.assertEqual(record['AppId'], APP_ID)
        self.assertEqual(record['Name'], 'Test Editor')
        self.assertEqual(record['Unit'], APP)
        self.assertEqual(set(record) - set(APP_KEYS), set())

    def test_app_removed(self):
        self.add_app(APP)
        self.stop_app(APP)
        self.assertEqual(self.wait_signal('AppRemoved', APP), (APP,))
        self.assertEqual(self.list_apps(), [])
        self.assert_rc_error('NoSuchApp', 'GetApp', (APP,), '(s)')
        self.assert_rc_error('NoSuchApp', 'SetWeight', (APP, 200), '(st)')

    def test_external_freeze_sends_app_changed(self):
        self.add_app(APP)
        self.mock('SetFreezerState', (APP, 'frozen'), '(ss)')
        self.wait_app_changed(APP, 'FreezerState', 'frozen')
        self.assertEqual(self.get_one(APP)['FreezerState'], 'frozen')
        self.mock('SetFreezerState', (APP, 'running'), '(ss)')
        self.wait_app_changed(APP, 'FreezerState', 'running')

    def test_no_signals_for_non_apps(self):
        self.add_app('session-2.scope', 'session.slice', wait=False)
        self.stop_app('session-2.scope')
        self.add_app(APP)
        self.stop_app(APP)
        self.wait_signal('AppRemoved', APP)
        self.assertEqual([x for x in self.signals if x[0] in ('AppAdded', 'AppRemoved')], [])


#
# Writes
#

class WritesTest(Base):

    def setUp(self):
        super().setUp()
        self.add_app(APP, controllers='cpu io memory pids')
        self.clear_systemd_calls()

    def test_set_weight(self):
        self.set_weight(APP, 300)
        self.assertEqual(self.unit_property_calls(), [(APP, True, {'CPUWeight': 300})])
        self.assertEqual(self.cgroup_file(APP, 'cpu.weight'), '300')
        self.wait_app_changed(APP, 'CPUWeight', 300)
        self.assertEqual(self.get_one(APP)['CPUWeight'], 300)

    def test_set_weight_range_ends(self):
        for weight in (1, 10000):
            self.set_weight(APP, weight)
            self.assertEqual(self.cgroup_file(APP, 'cpu.weight'), str(weight))

    def test_app_id_changes_every_instance(self):
        other = 'app-gnome-org.example.Editor-4712.scope'
        self.add_app(other)
        self.set_weight(APP_ID, 500)
        calls = self.unit_property_calls()
        self.assertEqual(sorted(c[0] for c in calls), sorted([APP, other]))
        self.assertTrue(all(c[1] is True and c[2] == {'CPUWeight': 500} for c in calls))
        for unit in (APP, other):
            self.assertEqual(self.cgroup_file(unit, 'cpu.weight'), '500')
            self.wait_app_changed(unit, 'CPUWeight', 500)

    def test_set_memory_limit(self):
        limit = 256 * MIB
        self.set_memory_limit(APP, limit)
        self.assertEqual(self.unit_property_calls(),
                         [(APP, True, {'MemoryMax': limit, 'MemoryHigh': limit - limit // 8})])
        self.assertEqual(self.cgroup_file(APP, 'memory.max'), str(limit))
        self.assertEqual(self.cgroup_file(APP, 'memory.high'), str(224 * MIB))
        rec = self.get_one(APP)
        self.assertEqual((rec['MemoryMax'], rec['MemoryHigh']), (limit, 224 * MIB))
        self.wait_app_changed(APP, 'MemoryMax', limit)

    def test_set_memory_limit_unaligned(self):
        limit = 200000001
        self.set_memory_limit(APP, limit)
        self.assertEqual(self.unit_property_calls(),
                         [(APP, True, {'MemoryMax': limit, 'MemoryHigh': limit - limit // 8})])

    def test_set_memory_limit_max_removes_both(self):
        self.set_memory_limit(APP, 256 * MIB)
        self.set_memory_limit(APP, UINT64_MAX)
        self.assertEqual(self.unit_property_calls()[-1],
                         (APP, True, {'MemoryMax': UINT64_MAX, 'MemoryHigh': UINT64_MAX}))
        self.assertEqual(self.cgroup_file(APP, 'memory.max'), 'max')
        self.assertEqual(self.cgroup_file(APP, 'memory.high'), 'max')

    def test_set_limits_in_one_call(self):
        self.set_limits(APP, {'CPUWeight': t(200), 'IOWeight': t(300), 'CPUQuota': u(50),
                              'MemoryLow': t(32 * MIB), 'MemoryHigh': t(512 * MIB),
                              'MemoryMax': t(1024 * MIB), 'TasksMax': t(100)})
        self.assertEqual(self.unit_property_calls(), [(APP, True, {
            'CPUWeight': 200, 'IOWeight': 300, 'CPUQuotaPerSecUSec': 500000,
            'MemoryLow': 32 * MIB, 'MemoryHigh': 512 * MIB, 'MemoryMax': 1024 * MIB,
            'TasksMax': 100})])
        files = {name: self.cgroup_file(APP, name) for name in
                 ('cpu.weight', 'io.weight', 'cpu.max', 'memory.low', 'memory.high',
                  'memory.max', 'pids.max')}
        self.assertEqual(files, {'cpu.weight': '200', 'io.weight': 'default 300',
                                 'cpu.max': '50000 100000', 'memory.low': str(32 * MIB),
                                 'memory.high': str(512 * MIB), 'memory.max': str(1024 * MIB),
                                 'pids.max': '100'})
        rec = self.get_one(APP)
        self.assertEqual((rec['CPUQuota'], rec['IOWeight'], rec['TasksMax']), (50, 300, 100))
        self.wait_app_changed(APP, 'CPUWeight', 200)

    def test_cpu_quota_zero_removes_it(self):
        self.set_limits(APP, {'CPUQuota': u(50)})
        self.set_limits(APP, {'CPUQuota': u(0)})
        self.assertEqual(self.unit_property_calls()[-1][2], {'CPUQuotaPerSecUSec': UINT64_MAX})
        self.assertEqual(self.cgroup_file(APP, 'cpu.max'), 'max 100000')
        self.assertEqual(self.get_one(APP)['CPUQuota'], 0)

    def test_cpu_quota_up_to_every_cpu(self):
        n = online_cpus()
        self.set_limits(APP, {'CPUQuota': u(100 * n)})
        self.assertEqual(self.unit_property_calls()[-1][2], {'CPUQuotaPerSecUSec': n * 1000000})
        self.assert_rc_error('InvalidArgument', 'SetLimits',
                             (APP, {'CPUQuota': u(100 * n + 1)}, {}), '(sa{sv}a{sv})')

    def test_reset_limits(self):
        self.set_limits(APP, {'CPUWeight': t(200), 'IOWeight': t(300), 'CPUQuota': u(50),
                              'MemoryLow': t(32 * MIB), 'MemoryHigh': t(512 * MIB),
                              'MemoryMax': t(1024 * MIB), 'TasksMax': t(100),
                              'MemoryMin': t(16 * MIB), 'MemorySwapMax': t(0)})
        self.rc_call('ResetLimits', (APP,), '(s)')
        self.assertEqual(self.unit_property_calls()[-1], (APP, True, {
            'CPUWeight': 100, 'IOWeight': 100, 'CPUQuotaPerSecUSec': UINT64_MAX,
            'MemoryLow': 0, 'MemoryHigh': UINT64_MAX, 'MemoryMax': UINT64_MAX,
            'TasksMax': 4915, 'MemoryMin': 0, 'MemorySwapMax': UINT64_MAX}))
        files = {name: self.cgroup_file(APP, name) for name in
                 ('cpu.weight', 'io.weight', 'cpu.max', 'memory.low', 'memory.high',
                  'memory.max', 'pids.max', 'memory.min', 'memory.swap.max')}
        self.assertEqual(files, {'cpu.weight': '100', 'io.weight': 'default 100',
                                 'cpu.max': 'max 100000', 'memory.low': '0',
                                 'memory.high': 'max', 'memory.max': 'max', 'pids.max': '4915',
                                 'memory.min': '0', 'memory.swap.max': 'max'})
        self.wait_app_changed(APP, 'CPUWeight', 100)

    def test_reset_limits_without_io_controller(self):
        unit = 'app-gnome-org.example.NoIO-1.scope'
        self.add_app(unit)
        self.set_weight(unit, 300)
        self.rc_call('ResetLimits', (unit,), '(s)')
        self.assertEqual(self.cgroup_file(unit, 'cpu.weight'), '100')
        self.assertEqual(self.cgroup_file(unit, 'pids.max'), '4915')

    def test_freeze_and_thaw(self):
        self.rc_call('Freeze', (APP,), '(s)')
        self.assertEqual(self.systemd_calls('FreezeUnit'), [[APP]])
        self.assertIn('frozen 1', self.cgroup_file(APP, 'cgroup.events'))
        self.assertEqual(self.get_one(APP)['FreezerState'], 'frozen')
        self.wait_app_changed(APP, 'FreezerState', 'frozen')
        self.rc_call('Thaw', (APP,), '(s)')
        self.assertEqual(self.systemd_calls('ThawUnit'), [[APP]])
        self.assertIn('frozen 0', self.cgroup_file(APP, 'cgroup.events'))
        self.assertEqual(self.get_one(APP)['FreezerState'], 'running')
        self.wait_app_changed(APP, 'FreezerState', 'running')

    def test_freeze_replies_after_systemd_is_done(self):
        self.mock('SetDelays', ('FreezeUnit', [700]), '(sau)')
        start = time.monotonic()
        self.rc_call('Freeze', (APP,), '(s)')
        self.assertGreaterEqual(time.monotonic() - start, 0.6)
        self.assertIn('frozen 1', self.cgroup_file(APP, 'cgroup.events'))

    def test_freeze_app_id_freezes_every_instance(self):
        other = 'app-org.example.Editor@2.service'
        self.add_app(other)
        self.rc_call('Freeze', (APP_ID,), '(s)')
        self.assertEqual(sorted(c[0] for c in self.systemd_calls('FreezeUnit')), sorted([APP, other]))
        self.assertEqual({r['FreezerState'] for r in self.get_app(APP_ID)}, {'frozen'})
        self.rc_call('Thaw', (APP_ID,), '(s)')
        self.assertEqual({r['FreezerState'] for r in self.get_app(APP_ID)}, {'running'})

    def test_would_kill(self):
        self.mock('SetMemoryCurrent', (APP, 200 * MIB), '(st)')
        # (method, args, expected error or None); memory is compared in whole pages
        table = [
            ('SetMemoryLimit', (APP, 128 * MIB), 'WouldKill'),
            ('SetMemoryLimit', (APP, 220 * MIB), 'WouldKill'),  # MemoryHigh 192.5 MiB
            ('SetLimits', (APP, {'MemoryMax': t(199 * MIB)}, {}), 'WouldKill'),
            ('SetLimits', (APP, {'MemoryMax': t(200 * MIB - 1)}, {}), 'WouldKill'),
            ('SetLimits', (APP, {'MemoryHigh': t(100 * MIB)}, {}), 'WouldKill'),
            ('SetLimits', (APP, {'MemoryHigh': t(100 * MIB), 'MemoryMax': t(1024 * MIB)}, {}),
             'WouldKill'),
            ('SetLimits', (APP, {'MemoryMax': t(200 * MIB)}, {}), None),
            ('SetLimits', (APP, {'MemoryMax': t(200 * MIB + 100)}, {}), None),
            ('SetLimits', (APP, {'MemoryHigh': t(200 * MIB)}, {}), None),
            ('SetMemoryLimit', (APP, 256 * MIB), None),
        ]
        sigs = {'SetMemoryLimit': '(st)', 'SetLimits': '(sa{sv}a{sv})'}
        for method, args, error in table:
            with self.subTest(method=method, args=args):
                self.clear_systemd_calls()
                if error:
                    self.assert_rc_error(error, method, args, sigs[method])
                    self.assert_no_writes_to_systemd()
                else:
                    self.rc_call(method, args, sigs[method])
                    self.assertEqual(len(self.unit_property_calls()), 1)

    def test_force_overrides_would_kill(self):
        self.mock('SetMemoryCurrent', (APP, 200 * MIB), '(st)')
        self.set_limits(APP, {'MemoryMax': t(64 * MIB), 'MemoryHigh': t(48 * MIB)},
                        {'force': b(True)})
        self.assertEqual(self.unit_property_calls(),
                         [(APP, True, {'MemoryMax': 64 * MIB, 'MemoryHigh': 48 * MIB})])
        self.assertEqual(self.cgroup_file(APP, 'memory.max'), str(64 * MIB))
        self.clear_systemd_calls()
        self.assert_rc_error('WouldKill', 'SetLimits',
                             (APP, {'MemoryMax': t(64 * MIB)}, {'force': b(False)}), '(sa{sv}a{sv})')

    def test_sixteen_mib_is_the_floor(self):
        self.mock('SetMemoryCurrent', (APP, 8 * MIB), '(st)')
        self.set_limits(APP, {'MemoryMax': t(16 * MIB)})
        self.assertEqual(self.cgroup_file(APP, 'memory.max'), str(16 * MIB))
        for limits, options in [({'MemoryMax': t(16 * MIB - 1)}, {}),
                                ({'MemoryMax': t(16 * MIB - 1)}, {'force': b(True)}),
                                ({'MemoryHigh': t(4096)}, {'force': b(True)})]:
            with self.subTest(limits=limits, options=options):
                self.assert_rc_error('InvalidArgument', 'SetLimits', (APP, limits, options),
                                     '(sa{sv}a{sv})')

    def test_every_instance_is_validated_first(self):
        other = 'app-gnome-org.example.Editor-4712.scope'
        self.add_app(other)
        # MemoryHigh would be 448 MiB: fine for APP (50 MiB), too low for the other
        self.mock('SetMemoryCurrent', (other, 500 * MIB), '(st)')
        self.clear_systemd_calls()
        self.assert_rc_error('WouldKill', 'SetMemoryLimit', (APP_ID, 512 * MIB), '(st)')
        self.assert_no_writes_to_systemd()
        self.assertEqual(self.cgroup_file(APP, 'memory.max'), 'max')

    def test_systemd_error_is_failed_with_its_message(self):
        self.mock('SetFail', ('SetUnitProperties', 'org.freedesktop.DBus.Error.AccessDenied',
                              'Mock systemd refuses: access denied'), '(sss)')
        msg = self.assert_rc_error('Failed', 'SetWeight', (APP, 300), '(st)')
        self.assertIn('Mock systemd refuses: access denied', msg)
        self.assertEqual(self.cgroup_file(APP, 'cpu.weight'), '100')

    def test_systemd_freeze_error_is_failed(self):
        self.mock('SetFail', ('FreezeUnit', 'org.freedesktop.systemd1.UnitInactive',
                              f'Unit {APP} is not active.'), '(sss)')
        msg = self.assert_rc_error('Failed', 'Freeze', (APP,), '(s)')
        self.assertIn(f'Unit {APP} is not active.', msg)

    def test_partial_failure_names_changed_and_failed_instances(self):
        units = [APP, 'app-gnome-org.example.Editor-4712.scope', 'app-gnome-org.example.Editor-4713.scope']
        for unit in units[1:]:
            self.add_app(unit)
        failing = units[1]
        self.mock('SetFailFor', ('SetUnitProperties', failing, 'org.freedesktop.DBus.Error.Failed',
                                 'Mock systemd failure', 0), '(ssssu)')
        self.clear_systemd_calls()
        msg = self.assert_rc_error('Failed', 'SetWeight', (APP_ID, 400), '(st)')
        self.assertIn(failing, msg)
        self.assertIn('Mock systemd failure', msg)
        changed = [c[0] for c in self.unit_property_calls() if c[0] != failing]
        for unit in changed:
            self.assertIn(unit, msg, 'the error must name the instances already changed')
            self.assertEqual(self.cgroup_file(unit, 'cpu.weight'), '400')  # no rollback
        self.assertEqual(self.cgroup_file(failing, 'cpu.weight'), '100')

    def test_requests_for_one_unit_keep_their_order(self):
        # the first systemd call is slow and the second fast: only a daemon that
        # waits for the first before sending the second ends with the second's value
        self.mock('SetDelays', ('SetUnitProperties', [800, 0]), '(sau)')
        first = self.call_async('SetWeight', (APP, 200), '(st)')
        second = self.call_async('SetWeight', (APP, 300), '(st)')
        self.wait_pending(first)
        self.wait_pending(second)
        self.assertIsNone(first.error)
        self.assertIsNone(second.error)
        self.assertEqual([c[2]['CPUWeight'] for c in self.unit_property_calls()], [200, 300])
        self.assertEqual(self.cgroup_file(APP, 'cpu.weight'), '300')
        self.assertLessEqual(first.finished_at, second.finished_at)

    def test_systemd_calls_do_not_auto_start(self):
        self.set_weight(APP, 300)
        self.rc_call('Freeze', (APP,), '(s)')
        self.rc_call('Thaw', (APP,), '(s)')
        self.rc_call('ResetLimits', (APP,), '(s)')
        flags = self.mock('GetAutoStartFlags')[0]
        methods = {m for m, _ in flags}
        self.assertTrue({'SetUnitProperties', 'FreezeUnit', 'ThawUnit'} <= methods, flags)
        self.assertEqual([m for m, auto_start in flags if auto_start], [],
                         'systemd calls without G_DBUS_CALL_FLAGS_NO_AUTO_START')

    def test_hung_systemd_does_not_block_the_daemon(self):
        pending = self.set_weight_with_systemd_hung(300)
        start = time.monotonic()
        self.assertEqual([a['Unit'] for a in self.list_apps()], [APP])
        self.get_one(APP)
        self.assertLess(time.monotonic() - start, h.scaled(1.0))
        self.assertFalse(pending.done)
        self.release_systemd()
        self.wait_pending(pending)
        self.assertIsNone(pending.error)
        self.assertEqual(self.cgroup_file(APP, 'cpu.weight'), '300')


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
# Authorization
#

class AuthorizationTest(Base):

    def setUp(self):
        super().setUp()
        self.add_app(APP)
        self.clear_systemd_calls()

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
        self.start_polkitd()
        self.set_rules('allow-all')
        self.set_weight(APP, 300)
        self.assertEqual(self.cgroup_file(APP, 'cpu.weight'), '300')

    def test_daemon_started_while_polkitd_is_down(self):
        self.stop_daemon()
        self.stop_polkitd()
        self.start_daemon()
        self.assertEqual(len(self.list_apps()), 1)
        self.assert_rc_error('NotAuthorized', 'SetWeight', (APP, 300), '(st)')
        self.start_polkitd()
        self.set_rules('allow-all')
        self.set_weight(APP, 300)
        self.assertEqual(self.cgroup_file(APP, 'cpu.weight'), '300')

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
        self.assertLess(worst, 1.0, 'ListApps waited behind the flood')
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

    def test_a_rule_and_an_api_call_on_one_unit_take_turns(self):
        # The rule's write reaches systemd first and is held there; the API's
        # SetWeight for the same unit, arriving meanwhile, must wait for it
        # (one change per unit at a time, whoever makes it) and then win.
        self.add_app(RULED, controllers='cpu memory pids')
        self.mock('SetDelays', ('SetUnitProperties', [HANG]), '(sau)')
        self.write_rules(self.user_rules_dir, '10-mine.conf', f'[{RULED_ID}]\nCPUWeight=50\n')
        self.wait_until(lambda: self.mock('CountHung')[0] == 1, message='the rule write held by systemd')
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
        self.add_app(RULED, controllers='cpu memory pids')
        self.mock('SetDelays', ('SetUnitProperties', [HANG]), '(sau)')
        self.write_rules(self.user_rules_dir, '10-mine.conf', f'[{RULED_ID}]\nCPUWeight=50\n')
        self.wait_until(lambda: self.mock('CountHung')[0] == 1, message='the rule write held by systemd')
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
                                        Gio.DBusCallFlags.NONE, 10000, None)
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
        for i, unit in enumerate(self.APPS):
            self.add_app(unit, controllers='cpu io memory pids', pids=[5000 + i])

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

    def test_foreground_process(self):
        self.rc_call('SetForegroundProcess', (5001,), '(u)')
        self.wait_weights([100, 300, 100])
        self.rc_call('SetForegroundProcess', (5002,), '(u)')
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
        pending = self.call_async('SetForegroundProcess', (5001,), '(u)')
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
        self.assert_rc_error('NotAuthorized', 'SetForegroundProcess', (5000,), '(u)')
        self.assert_no_writes_to_systemd()


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
