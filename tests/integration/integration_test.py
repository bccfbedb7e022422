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

import os
import subprocess
import sys
import time

from gi.repository import Gio, GLib

import mock_systemd
import rctest_harness as h
from rctest_harness import MIB, UINT64_MAX, HANG, t, u, b

from rcnames import APP_KEYS, LIMIT_KEYS, USAGE_KEYS
from rcbase import APP, APP_ID, Base, online_cpus


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
        self.assertEqual(self.rc_call('ListAppRecords')[0], [expected])
        # ListApps leaves out what the limits do (here CPUThrottledUSec) and the keys at
        # their none value (listing_test.py)
        for key in ('CPUThrottledUSec', 'Audio', 'IOWeight', 'CPUQuota', 'MemoryLow', 'MemoryHigh',
                    'MemoryMax', 'MemoryMin', 'MemorySwapMax'):
            del expected[key]
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

    def assert_weight_read_after(self, mock_method, weight):
        '''systemd writes cpu.weight itself, then does @mock_method: the record has the new value.'''
        self.add_app(APP)
        self.assertEqual(self.get_one(APP)['CPUWeight'], 100)
        self.write_cgroup_file(APP, 'cpu.weight', str(weight))
        self.mock(mock_method)
        self.assertEqual(self.get_one(APP)['CPUWeight'], weight)

    def test_values_after_a_reload(self):
        # A drop-in edited by hand takes effect at daemon-reload: systemd sends
        # Reloading and writes the cgroup files, and writes no drop-in itself.
        self.assert_weight_read_after('Reload', 555)

    def test_values_after_startup_finished(self):
        # At the end of the manager's start-up StartupCPUWeight= gives way to
        # CPUWeight=: systemd writes cpu.weight, and no drop-in.
        self.assert_weight_read_after('FinishStartup', 40)

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


if __name__ == '__main__':
    sys.exit(h.main())
