#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
'''Host tests of what the settings panel says the limits do (docs/design.md, "Settings panel"),
and of opening it on an app's page from outside (app action show-app, D-Bus activation, --app).

The world of panel_test.py (PanelTestCase: the harness, Xvfb, an accessibility bus, AT-SPI); the
kernel's memory.events and pressure files are the mock's, written in the app's fake cgroup folder.
'''

import os
import re
import subprocess
import sys
import time

import rctest_harness as h
from rctest_harness import scaled
from panel_test import APP, APP_ID, PANEL_ID, PANEL_PATH, PanelTestCase, atspi


PSI = ('some avg10={some:.2f} avg60=0.00 avg300=0.00 total=1000\n'
       'full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n')
CPU_STAT = ('usage_usec 1234567\nuser_usec 1000000\nsystem_usec 234567\n'
            'nr_periods {periods}\nnr_throttled {periods}\nthrottled_usec {throttled}\n')


def memory_events(**counters):
    values = {'low': 0, 'high': 0, 'max': 0, 'oom': 0, 'oom_kill': 0, **counters}
    return ''.join(f'{k} {v}\n' for k, v in values.items())


class PanelLimitsTest(PanelTestCase):
    '''What the limits do: the app page's group and the list's "held back" mark, from the
    records' MemoryEvents, CPUThrottledUSec and pressure keys (the mock's cgroup files).'''

    # every pressure under the 10 % that marks an app
    app_files = {
        'memory.events': memory_events(),
        'cpu.pressure': PSI.format(some=5.0),
        'memory.pressure': PSI.format(some=1.0),
        'io.pressure': PSI.format(some=3.0),
    }

    def descriptions(self):
        out = []
        for node in self.walk():
            try:
                out.append(node.get_description())
            except Exception:  # pylint: disable=broad-except
                continue
        return out

    def write_in_place(self, name, text):
        '''As the kernel changes a file: in place, as the daemon keeps it open.'''
        h._write_existing(os.path.join(self.cgroup_dir(APP), name), text)

    def test_page_tells_what_the_limits_do(self):
        # memory.high was hit, memory.max too, and the kernel killed twice
        self.write_in_place('memory.events', memory_events(high=7, max=1, oom=2, oom_kill=2))
        self.write_in_place('memory.pressure', PSI.format(some=34.0))
        self.write_in_place('cpu.pressure', PSI.format(some=12.0))
        self.start_panel()
        self.open_app_page()
        self.wait_shown('What the limits do', 'LABEL')
        for title, percent in (('Waiting for CPU', '12 %'), ('Waiting for memory', '34 %'),
                               ('Waiting for disk', '3 %')):
            self.wait_shown(title, 'LABEL')
            self.wait_shown(percent, 'LABEL')
            # a screen reader hears the figure with its row
            self.assertIn(f'{title} {percent}', self.descriptions(),
                          f'no row described as {title} {percent}:\n{self.dump_tree()}')
        # high and max non-zero with a notable memory pressure: slowed down by it
        self.wait_shown('Slowed down by its memory limit', 'LABEL')
        self.wait_shown('2 processes stopped for lack of memory', 'LABEL')
        self.assertIsNone(self.find('Held back by its CPU limit', 'LABEL'))
        # the CPU limit throttles it: throttled_usec rises at every refresh
        deadline = time.monotonic() + scaled(20)
        throttled = 0
        while self.find('Held back by its CPU limit', 'LABEL') is None:
            self.assertLess(time.monotonic(), deadline,
                            'no "Held back by its CPU limit" while throttled_usec rose:\n' + self.dump_tree())
            throttled += 100000
            self.write_in_place('cpu.stat', CPU_STAT.format(periods=throttled // 1000, throttled=throttled))
            self.iterate(0.5)
        self.screenshot('panel-limits.png')

    def test_rising_high_marks_the_row(self):
        self.start_panel()
        # two refreshes with nothing rising and pressures under 10 %: no mark
        self.calls_to_daemon(scaled(5))
        self.assertIsNone(self.find('Held back by its limits'),
                          'a mark with nothing rising:\n' + self.dump_tree())
        self.write_in_place('memory.events', memory_events(high=3))
        mark = self.wait_shown('Held back by its limits', timeout=scaled(10))
        mark.clear_cache()
        self.assertEqual(mark.get_description(), 'Held back by its limits: its memory limit')
        # nothing rises any more: the mark goes after 10 s
        self.wait_gone('Held back by its limits', timeout=scaled(20))

    def test_high_pressure_marks_the_row(self):
        self.write_in_place('io.pressure', PSI.format(some=40.0))
        self.start_panel()
        mark = self.wait_shown('Held back by its limits', timeout=scaled(10))
        mark.clear_cache()
        self.assertEqual(mark.get_description(), 'Held back by its limits: waiting for CPU, memory or disk')

    def test_absent_files_mean_no_rows(self):
        other = 'app-org.example.Real@c3d4.service'
        self.add_app(other)
        record = self.get_one(other)
        for key in ('MemoryEvents', 'CPUPressure', 'MemoryPressure', 'IOPressure'):
            self.assertNotIn(key, record, f'the mock reports {key} without its file')
        self.start_panel(wait_for='The Real App')
        self.open_app_page('The Real App')
        self.wait_shown('CPU limit in percent', 'LABEL')
        for text in ('What the limits do', 'Waiting for CPU', 'Waiting for memory', 'Waiting for disk',
                     'Slowed down by its memory limit', 'Held back by its CPU limit'):
            self.assertIsNone(self.find(text), f'{text!r} shown without the kernel figures')
        self.assertIsNone(self.find(re.compile('.*stopped for lack of memory')))
        # the app with figures shows them: the absence above is the other app's
        self.press('Back')
        self.open_app_page()
        self.wait_shown('Waiting for CPU', 'LABEL')

    def activate_action(self, *parameters):
        '''org.freedesktop.Application.ActivateAction show-app, as gdbus sends it.'''
        args = ', '.join(f"<'{p}'>" for p in parameters)
        subprocess.run(['gdbus', 'call', '--session', '--dest', PANEL_ID, '--object-path', PANEL_PATH,
                        '--method', 'org.freedesktop.Application.ActivateAction', 'show-app',
                        f'[{args}]', '{}'], env=self.bus_env, check=True, capture_output=True,
                       timeout=scaled(20))

    def test_show_app_action_opens_the_page(self):
        self.start_panel()
        self.activate_action(APP)
        self.wait_shown('Priority High', 'PUSH_BUTTON')
        self.wait_shown('What the limits do', 'LABEL')
        self.press('Back')
        self.wait_gone('Priority High', 'PUSH_BUTTON')
        # by AppID too
        self.activate_action(APP_ID)
        self.wait_shown('Priority High', 'PUSH_BUTTON')
        # an app that is gone: a toast, the list
        self.activate_action('app-gnome-org.example.Gone-1.scope')
        self.wait_shown('app-gnome-org.example.Gone-1.scope is no longer running')
        self.wait_gone('Priority High', 'PUSH_BUTTON')

    def test_dbus_activation_opens_the_page(self):
        # the installed service file, pointed at the built panel
        with open(os.path.join(h.SOURCE_ROOT, 'panel', PANEL_ID + '.service.in'), encoding='utf-8') as f:
            service = f.read().replace('@bindir@/resource-control-panel', self.panel_path)
        self.assertIn(f'Exec={self.panel_path} --gapplication-service\n', service)
        h._write(os.path.join(self.session_services_dir(), PANEL_ID + '.service'), service)
        bus = ('org.freedesktop.DBus', '/org/freedesktop/DBus', 'org.freedesktop.DBus')
        self.conn.call_sync(*bus, 'ReloadConfig', None, None, h.Gio.DBusCallFlags.NONE, -1, None)
        # the display and accessibility bus of the test's desktop, as a session would have them
        env = {k: v for k, v in self.panel_env().items() if not k.startswith('DBUS_')}
        self.conn.call_sync(*bus, 'UpdateActivationEnvironment', h.GLib.Variant('(a{ss})', (env,)),
                            None, h.Gio.DBusCallFlags.NONE, -1, None)
        # no panel runs: the call starts one, which opens the page
        self.assertIsNone(self.panel)
        self.activate_action(APP)
        pid = self.conn.call_sync(*bus, 'GetConnectionUnixProcessID', h.GLib.Variant('(s)', (PANEL_ID,)),
                                  None, h.Gio.DBusCallFlags.NONE, -1, None).unpack()[0]

        def find_activated():
            desktop = atspi().get_desktop(0)
            for i in range(desktop.get_child_count()):
                app = desktop.get_child_at_index(i)
                try:
                    if app is not None and app.get_process_id() == pid:
                        return app
                except Exception:  # pylint: disable=broad-except
                    continue
            return None

        def gone():
            try:
                with open(f'/proc/{pid}/stat', encoding='ascii') as f:
                    return f.read().split(') ', 1)[1].startswith('Z')
            except OSError:
                return True
        try:
            self.app_root = self.wait_until(find_activated, timeout=30,
                                            message='the activated panel on the accessibility bus')
            self.wait_shown('Priority High', 'PUSH_BUTTON', timeout=20)
            self.wait_shown('What the limits do', 'LABEL')
        finally:
            self.conn.call_sync(PANEL_ID, PANEL_PATH, 'org.gtk.Actions', 'Activate',
                                h.GLib.Variant('(sava{sv})', ('quit', [], {})), None,
                                h.Gio.DBusCallFlags.NONE, -1, None)
        self.wait_until(gone, timeout=20, message='the activated panel to quit on app.quit')

    def test_app_option_opens_the_page(self):
        self.start_panel()
        # a second resource-control-panel --app hands the request to the running one
        subprocess.run([self.panel_path, '--app', APP], env=self.panel_env(), check=True,
                       capture_output=True, timeout=scaled(30))
        self.wait_shown('Priority High', 'PUSH_BUTTON')
        self.wait_shown('What the limits do', 'LABEL')


if __name__ == '__main__':
    sys.exit(h.main())
