#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
'''Host tests of the settings panel's "Battery use" page (docs/design.md, "What each app costs"
and "Settings panel"): the apps by their share of the energy with the share, a level bar and the
watt-hours, the chart of the last 24 hours, the reason when nothing can be measured, and an app's
page opened from its row.

The world of panel_test.py (PanelTestCase: the harness, Xvfb, an accessibility bus, AT-SPI) and of
energy_test.py (EnergyBase: dbusmock's UPower on the private system bus, a fake /proc/stat and the
apps' cpu.stat written by the test, so that each share is known exactly).
'''

import os
import re
import sys

import rctest_harness as h
from energy_test import EnergyBase
from panel_test import APP, APP_ID, APP_NAME, PanelTestCase, atspi

BROWSER = 'app-gnome-org.example.Browser-12.scope'
BROWSER_ID = 'org.example.Browser'
BROWSER_NAME = 'Web Browser'
MUSIC = 'app-gnome-org.example.Music-13.scope'
MUSIC_ID = 'org.example.Music'
# a name with markup in it: the page shows it as it is
MUSIC_NAME = 'Music <b>&amp;</b> Radio'
# of 2 s of busy CPU time: 50, 30 and 10 %, and 10 % for the system
CPU_USEC = {APP: 1000000, BROWSER: 600000, MUSIC: 200000}
SHARES = ((APP_ID, APP_NAME, '50 %'), (BROWSER_ID, BROWSER_NAME, '30 %'), (MUSIC_ID, MUSIC_NAME, '10 %'))


def wh(joules):
    '''As the page writes an energy.'''
    value = joules / 3600
    if value * 1000 < 99.5:
        return f'{value * 1000:.0f} mWh'
    return f'{value:.2f} Wh' if value < 10 else f'{value:.1f} Wh'


class EnergyWorld(EnergyBase):
    '''UPower (without a battery until a test gives it one) and the daemon, started before
    PanelTestCase's setUp adds the editor (APP), which waits for the daemon to announce it.'''

    def setUp(self):
        super().setUp()
        self.start_upower()
        self.start_daemon()


class PanelEnergyTest(PanelTestCase, EnergyWorld):

    def add_named_app(self, unit, app_id, name):
        h._write(os.path.join(self.applications_dir, app_id + '.desktop'),
                 f'[Desktop Entry]\nType=Application\nExec=/bin/true\nName={name}\n')
        self.add_busy_app(unit)

    def open_battery_page(self):
        self.press('Battery use')
        self.wait_shown('Energy by hour', 'IMAGE')

    def chart_description(self):
        chart = self.wait_find('Energy by hour', 'IMAGE')
        chart.clear_cache()
        return chart.get_description()

    def test_apps_by_share_chart_and_app_page(self):
        self.set_usage(APP, 1000000)
        self.add_named_app(BROWSER, BROWSER_ID, BROWSER_NAME)
        self.add_named_app(MUSIC, MUSIC_ID, MUSIC_NAME)
        self.rc_call('SetForegroundApp', (APP_ID,), '(s)')
        # the most the daemon believes (10 kW): the short wait for the sample makes watt-hours
        # then, for the picture
        self.battery(Type=2, IsPresent=True, State=2, EnergyRate=9000.0, Energy=50.0)
        self.wait_source('upower')
        self.run_for(2000000, **CPU_USEC)
        self.sample()
        apps, totals = self.energy_usage()
        for app_id, _, share in SHARES:
            self.assertEqual(f'{apps[app_id]["Share"] * 100:.0f} %', share)

        self.start_panel()
        self.open_battery_page()
        for app_id, name, share in SHARES:
            with self.subTest(app=app_id):
                self.wait_shown(name, 'LABEL')
                self.wait_shown(share, 'LABEL')
                self.wait_find(f'Share of {name}')
                energy = apps[app_id]
                self.wait_shown(f'{wh(energy["Energy"])} · foreground {wh(energy["ForegroundEnergy"])}'
                                f' · background {wh(energy["BackgroundEnergy"])}', 'LABEL')
        # most first, as the daemon orders them
        labels = self.names('LABEL')
        order = [labels.index(name) for _, name, _ in SHARES]
        self.assertEqual(order, sorted(order), 'not by share:\n' + self.dump_tree())
        # the level bars carry the shares
        Atspi = atspi()
        for _, name, share in SHARES:
            bar = self.find(f'Share of {name}')
            self.assertAlmostEqual(Atspi.Value.get_current_value(bar), int(share[:-2]) / 100, delta=0.005)
        # the chart: every joule of the day in it, the current hour the busiest
        self.assertRegex(self.chart_description(),
                         rf'^{re.escape(wh(totals["Energy"]))} in the last 24 hours, most in the hour '
                         rf'from \d\d:00: {re.escape(wh(totals["Energy"]))}$')
        self.assertIsNone(self.find(re.compile('^No battery or energy meter.*')))
        self.xdotool('windowsize', self.xid(), '720', '760')
        self.screenshot('panel-battery-use.png')

        # the last 7 days hold the same, here
        self.press('Last 7 days')
        self.wait_shown('Apps, last 7 days', 'LABEL')
        self.wait_shown('50 %', 'LABEL')
        self.press('Last 24 hours')
        self.wait_shown('Apps, last 24 hours', 'LABEL')

        # a click on an app opens its page
        self.press(f'Open {BROWSER_NAME}')
        self.wait_shown('Priority High', 'PUSH_BUTTON')
        self.wait_shown(BROWSER_NAME, 'LABEL')
        self.assertIsNone(self.find('Energy by hour', 'IMAGE'))
        self.press('Back')
        self.wait_shown('Energy by hour', 'IMAGE')

        # an app that stopped keeps its share; it has no page to open
        self.stop_app(MUSIC)
        self.wait_signal('AppRemoved', MUSIC)
        self.press('Apps')
        self.press('Battery use')
        self.wait_until(lambda: not self.states(self.wait_find(f'Open {MUSIC_NAME}', 'PUSH_BUTTON')).contains(
            Atspi.StateType.SENSITIVE), message='the stopped app\'s button insensitive')
        self.wait_shown('10 %', 'LABEL')
        self.assertTrue(self.states(self.find(f'Open {BROWSER_NAME}', 'PUSH_BUTTON')).contains(
            Atspi.StateType.SENSITIVE))

    def test_no_source_says_why(self):
        # UPower without a battery: a desktop PC
        _, totals = self.energy_usage()
        self.assertEqual(totals['Source'], '')
        self.start_panel()
        self.open_battery_page()
        self.wait_shown('No battery or energy meter this user can read: ' + totals['Reason'], 'LABEL')
        self.wait_shown('No energy measured in this time', 'LABEL')
        self.assertEqual(self.chart_description(), 'No energy measured in the last 24 hours')
        # the ledger changes at the battery's pace: not at each of the window's 2 s refreshes
        # (which the monitor sees: the app list's)
        calls = self.calls_to_daemon(h.scaled(2.5))
        self.assertTrue(calls, 'the monitor saw no call of the panel')
        self.assertNotIn('GetEnergyUsage', calls)


if __name__ == '__main__':
    sys.exit(h.main())
