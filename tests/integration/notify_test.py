#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
'''Host integration tests of what the limits do (docs/design.md, "Telling the user what the
limits do"): the record keys MemoryEvents, CPUPressure, MemoryPressure and IOPressure read from
the app's cgroup folder, AppChanged when memory.events changes (inotify), and the desktop
notifications.

The world of integration_test.py: the fake cgroupfs of mock_systemd.py stands for the kernel's
files. The proof with the kernel's own memory.events is VM section "notify".

    RC_DAEMON=build/src/resource-controld RC_CLIENT=build/src/resourcectl \\
        /usr/bin/python3 tests/integration/notify_test.py [Class.test_name ...]
'''

import json
import os
import subprocess
import sys
import time

from gi.repository import Gio, GLib

import rctest_harness as h
from rcbase import APP, Base

EVENTS = 'low 0\nhigh 0\nmax 0\noom 0\noom_kill 0\n'
PSI = ('some avg10={some:.2f} avg60=0.00 avg300=0.00 total=1000\n'
       'full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n')
KERNEL_FILES = {
    'memory.events': EVENTS,
    'cpu.pressure': PSI.format(some=12.5),
    'memory.pressure': PSI.format(some=0.25),
    'io.pressure': PSI.format(some=3.0),
}


def events_text(**counters):
    values = {'low': 0, 'high': 0, 'max': 0, 'oom': 0, 'oom_kill': 0, **counters}
    return ''.join(f'{k} {v}\n' for k, v in values.items())


def append(path, text):
    '''As the kernel changes memory.events: the file written in place (IN_MODIFY).'''
    with open(path, 'w', encoding='ascii') as f:
        f.write(text)


class MemoryEventsTest(Base):
    '''The record keys and AppChanged on a change of memory.events.'''

    def add_reporting_app(self, unit=APP, files=None):
        self.add_app(unit, files=KERNEL_FILES if files is None else files)

    def test_records_have_the_kernel_figures(self):
        self.add_reporting_app()
        self.write_cgroup_file(APP, 'memory.events', events_text(high=7, max=2, oom=1, oom_kill=1).strip())
        record = self.get_one(APP)
        self.assertEqual(record['MemoryEvents'],
                         {'low': 0, 'high': 7, 'max': 2, 'oom': 1, 'oom_kill': 1})
        self.assertEqual(record['CPUPressure'], 12.5)
        self.assertEqual(record['MemoryPressure'], 0.25)
        self.assertEqual(record['IOPressure'], 3.0)
        listed = [a for a in self.rc_call('ListAppRecords')[0] if a['Unit'] == APP][0]
        self.assertEqual(listed['MemoryEvents']['high'], 7)
        self.assertEqual(listed['CPUPressure'], 12.5)
        self.assertEqual(listed['CPUThrottledUSec'], record['CPUThrottledUSec'])
        # ListApps leaves them out: four files fewer per app, a smaller reply
        listed = [a for a in self.list_apps() if a['Unit'] == APP][0]
        for key in ('MemoryEvents', 'CPUThrottledUSec', 'CPUPressure', 'MemoryPressure',
                    'IOPressure'):
            self.assertNotIn(key, listed)
        self.assertEqual(listed['MemoryCurrent'], record['MemoryCurrent'])

    def test_absent_files_mean_absent_keys(self):
        self.add_reporting_app(files={'memory.events': EVENTS})
        record = self.get_one(APP)
        self.assertEqual(record['MemoryEvents']['oom_kill'], 0)
        for key in ('CPUPressure', 'MemoryPressure', 'IOPressure'):
            self.assertNotIn(key, record, f'{key} without a PSI file')
        # a cgroup v1 or hybrid host: neither
        other = 'app-gnome-org.example.Viewer-1.scope'
        self.add_app(other)
        record = self.get_one(other)
        for key in ('MemoryEvents', 'CPUPressure', 'MemoryPressure', 'IOPressure'):
            self.assertNotIn(key, record, f'{key} without its file')

    def test_slices_have_them_where_the_files_are(self):
        slices = self.rc_call('ListSlices')[0]
        self.assertTrue(slices)
        for record in slices:
            self.assertNotIn('MemoryEvents', record)
        self.add_reporting_app()
        folder = os.path.dirname(self.cgroup_dir(APP))
        h._write(os.path.join(folder, 'memory.events'), events_text(high=3))
        h._write(os.path.join(folder, 'io.pressure'), PSI.format(some=1.5))
        app_slice = [s for s in self.rc_call('ListSlices')[0] if s['Unit'] == 'app.slice'][0]
        self.assertEqual(app_slice['MemoryEvents']['high'], 3)
        self.assertEqual(app_slice['IOPressure'], 1.5)
        self.assertNotIn('CPUPressure', app_slice)

    def test_resourcectl_shows_them(self):
        self.add_reporting_app()
        self.write_cgroup_file(APP, 'memory.events', events_text(high=7, oom_kill=1).strip())
        shown = self.run_client('show', APP, check=True).stdout
        self.assertIn('MemoryEvents: low=0 high=7 max=0 oom=0 oom_kill=1\n', shown)
        self.assertIn('CPUPressure: 12.50%\n', shown)
        self.assertIn('IOPressure: 3.00%\n', shown)
        listed = json.loads(self.run_client('list', '--json', check=True).stdout)
        self.assertEqual(listed[0]['MemoryEvents']['high'], 7)
        self.assertEqual(listed[0]['MemoryPressure'], 0.25)

    def test_a_change_of_memory_events_is_app_changed(self):
        self.add_reporting_app()
        path = os.path.join(self.cgroup_dir(APP), 'memory.events')
        append(path, events_text(high=1))
        args = self.wait_signal('AppChanged', APP, lambda a: 'MemoryEvents' in a[1])
        self.assertEqual(args[1], {'MemoryEvents': {'low': 0, 'high': 1, 'max': 0, 'oom': 0,
                                                    'oom_kill': 0}})
        append(path, events_text(high=1, max=1, oom=1, oom_kill=1))
        args = self.wait_signal('AppChanged', APP, lambda a: 'MemoryEvents' in a[1])
        self.assertEqual(args[1]['MemoryEvents']['oom_kill'], 1)
        self.assertEqual(self.get_one(APP)['MemoryEvents']['oom_kill'], 1)

    def test_a_burst_is_coalesced(self):
        '''A thrashing app: a thousand changes in a moment give a handful of signals, the last
        with the last figures.'''
        self.add_reporting_app()
        path = os.path.join(self.cgroup_dir(APP), 'memory.events')
        for i in range(1, 1001):
            append(path, events_text(high=i))
        self.wait_signal('AppChanged', APP, lambda a: a[1].get('MemoryEvents', {}).get('high') == 1000)
        self.iterate(0.3)
        seen = [s for s in self.signals if s[0] == 'AppChanged' and 'MemoryEvents' in s[1][1]]
        # one every 100 ms at most: the writes take well under a few seconds
        self.assertLess(len(seen), 30, f'{len(seen)} AppChanged for one burst')

    def test_no_signal_without_a_change(self):
        self.add_reporting_app()
        path = os.path.join(self.cgroup_dir(APP), 'memory.events')
        append(path, EVENTS)    # rewritten, the same figures
        self.assert_no_signal('AppChanged', APP, wait=0.5)

    def test_watch_ends_with_the_app(self):
        self.add_reporting_app()
        path = os.path.join(self.cgroup_dir(APP), 'memory.events')
        self.stop_app(APP)
        self.wait_signal('AppRemoved', APP)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        append(path, events_text(oom_kill=1))
        self.assert_no_signal('AppChanged', APP, wait=0.5)


NOTIFY_NAME = 'org.freedesktop.Notifications'
NOTIFY_PATH = '/org/freedesktop/Notifications'
PANEL_NAME = 'org.example.ResourceControl.Panel'
PANEL_PATH = '/org/example/ResourceControl/Panel'


class NotifyTest(Base):
    '''Desktop notifications, to a notification server of the test's own (python-dbusmock's
    notification_daemon template, which records every Notify) on the private session bus.'''

    def setUp(self):
        super().setUp()
        self.notifyd = self.start_dbusmock(['--template', 'notification_daemon'], NOTIFY_NAME)

    def start_dbusmock(self, args, name):
        # pylint: disable=consider-using-with
        proc = subprocess.Popen([sys.executable, '-B', '-m', 'dbusmock', '--session'] + args,
                                env=self.bus_env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.addCleanup(self._terminate, proc)
        self.wait_for_name(name, proc, name)
        return proc

    def start_panel(self):
        self.start_dbusmock([PANEL_NAME, PANEL_PATH, 'org.freedesktop.Application'], PANEL_NAME)
        self.dbusmock_call(PANEL_NAME, PANEL_PATH, 'AddMethod',
                           ('', 'ActivateAction', 'sava{sv}', '', ''), '(sssss)')

    def dbusmock_call(self, name, path, method, args=None, sig=None):
        params = GLib.Variant(sig, args) if sig is not None else None
        return self.conn.call_sync(name, path, h.DBUSMOCK_IFACE, method, params, None,
                                   Gio.DBusCallFlags.NONE, 10000, None).unpack()

    def calls(self, name, path, method):
        return [list(args) for _, args in self.dbusmock_call(name, path, 'GetMethodCalls', (method,), '(s)')[0]]

    def daemon_log_text(self):
        with open(self.daemon_logs[-1], encoding='utf-8', errors='replace') as f:
            return f.read()

    def notifications(self):
        return self.calls(NOTIFY_NAME, NOTIFY_PATH, 'Notify')

    def add_watched_app(self):
        self.add_app(APP, files={'memory.events': EVENTS})
        return os.path.join(self.cgroup_dir(APP), 'memory.events')

    def oom_kill(self, path, count):
        append(path, events_text(max=count, oom=count, oom_kill=count))
        self.wait_signal('AppChanged', APP,
                         lambda a: a[1].get('MemoryEvents', {}).get('oom_kill') == count)

    def test_oom_kill_is_one_notification_with_the_apps_name_and_icon(self):
        path = self.add_watched_app()
        self.oom_kill(path, 1)
        sent = self.wait_until(self.notifications, message='a Notify call')
        self.assertEqual(len(sent), 1)
        app_name, replaces, icon, summary, body, actions, hints, timeout = sent[0]
        self.assertEqual(app_name, 'Resource Control')
        self.assertEqual(replaces, 0)
        self.assertEqual(icon, 'accessories-text-editor')
        self.assertIn('Test Editor', summary)
        self.assertIn('memory', summary + body)
        self.assertEqual(list(actions), ['default', 'Open settings', 'open', 'Open settings'])
        self.assertEqual(hints['desktop-entry'], 'org.example.Editor')
        self.assertEqual(hints['urgency'], 1)
        self.assertEqual(timeout, -1)
        # a second kill within the quiet period: no second notification
        self.oom_kill(path, 2)
        self.iterate(0.5)
        self.assertEqual(len(self.notifications()), 1)

    def test_systemd_oomd_kill_is_a_notification(self):
        '''systemd-oomd counts up user.oomd_ooms on the cgroup folder before it kills there (as
        its oomd_cgroup_kill does); the daemon sees the attribute change (inotify IN_ATTRIB).'''
        self.add_watched_app()
        folder = self.cgroup_dir(APP)
        try:
            os.setxattr(folder, 'user.oomd_avoid', b'1')
        except OSError as e:
            self.skipTest(f'the fake cgroup tree takes no user xattrs here ({e})')
        self.iterate(0.5)
        self.assertEqual(self.notifications(), [], 'an attribute that is not the kill counter')
        os.setxattr(folder, 'user.oomd_ooms', b'1')
        sent = self.wait_until(self.notifications, message='the systemd-oomd Notify')
        self.assertEqual(len(sent), 1)
        self.assertIn('stopped to free memory', sent[0][3])
        self.assertIn('Test Editor', sent[0][3])
        self.assertIn('systemd-oomd', sent[0][4])
        self.assertEqual(sent[0][6]['desktop-entry'], 'org.example.Editor')

    def rise_for(self, path, seconds, high, every=0.5):
        """The kernel's high counter rising every @every s for @seconds, as at a MemoryHigh the
        app keeps pushing past; returns the last value."""
        start = time.monotonic()
        while time.monotonic() - start < seconds:
            high += 17
            append(path, events_text(high=high))
            self.iterate(every)
        return high

    def test_sustained_high_is_one_held_back_notification(self):
        path = self.add_watched_app()
        start = time.monotonic()
        # rises 2 s apart: the kernel's longest penalty sleep at memory.high (measured in the VM)
        high = self.rise_for(path, 9, 0, every=2)
        self.assertEqual(self.notifications(), [], 'held back before 10 s')
        self.rise_for(path, 12 - (time.monotonic() - start), high)
        sent = self.wait_until(self.notifications, message='the held-back Notify')
        self.assertEqual(len(sent), 1)
        self.assertIn('held back', sent[0][3])
        self.assertIn('Test Editor', sent[0][3])

    def test_a_short_spell_is_no_notification(self):
        path = self.add_watched_app()
        high = self.rise_for(path, 6, 0)
        self.iterate(6)     # a gap longer than 5 s: the next rise starts a new spell
        self.rise_for(path, 6, high)
        self.iterate(0.5)
        self.assertEqual(self.notifications(), [])

    def test_rules_turn_out_of_memory_off(self):
        readings = self.daemon_log_text().count('Rules: ')
        self.write_rules(self.user_rules_dir, '10-quiet.conf', '[Notify]\nOutOfMemory=false\n')
        self.wait_until(lambda: self.daemon_log_text().count('Rules: ') > readings,
                        message='the rules read again')
        path = self.add_watched_app()
        self.oom_kill(path, 1)
        self.iterate(1)
        self.assertEqual(self.notifications(), [])

    def test_no_server_daemon_fine(self):
        self._terminate(self.notifyd)
        self.wait_until(lambda: not self.name_has_owner(NOTIFY_NAME), message='the server gone')
        path = self.add_watched_app()
        self.oom_kill(path, 1)
        self.iterate(0.5)
        self.assertEqual(len(self.get_one(APP)['MemoryEvents']), 5, 'the daemon answers')
        self.wait_until(lambda: 'notification server is unavailable' in self.daemon_log_text(),
                        message='the message in the log')
        self.assertEqual(self.daemon_log_text().count('notification server is unavailable'), 1)

    def test_action_opens_the_panel_on_the_app(self):
        self.start_panel()
        path = self.add_watched_app()
        self.oom_kill(path, 1)
        # the daemon has the server's id (and listens for its actions) once it logs it
        self.wait_until(lambda: f'{APP} shown as 1' in self.daemon_log_text(),
                        message='the Notify reply read')
        self.dbusmock_call(NOTIFY_NAME, NOTIFY_PATH, 'EmitSignal',
                           ('', 'ActionInvoked', 'us', [GLib.Variant('u', 1), GLib.Variant('s', 'open')]),
                           '(sssav)')
        called = self.wait_until(lambda: self.calls(PANEL_NAME, PANEL_PATH, 'ActivateAction'),
                                 message='ActivateAction on the panel')
        self.assertEqual(called, [['show-app', [APP], {}]])
        # an action of someone else's notification: nothing
        self.dbusmock_call(NOTIFY_NAME, NOTIFY_PATH, 'EmitSignal',
                           ('', 'ActionInvoked', 'us', [GLib.Variant('u', 99), GLib.Variant('s', 'default')]),
                           '(sssav)')
        self.iterate(0.5)
        self.assertEqual(len(self.calls(PANEL_NAME, PANEL_PATH, 'ActivateAction')), 1)


if __name__ == '__main__':
    sys.exit(h.main())
