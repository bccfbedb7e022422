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
import sys

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
        listed = [a for a in self.list_apps() if a['Unit'] == APP][0]
        self.assertEqual(listed['MemoryEvents']['high'], 7)
        self.assertEqual(listed['CPUPressure'], 12.5)

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


if __name__ == '__main__':
    sys.exit(h.main())
