#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
'''Host integration tests of the power conditions and the audio hold (docs/design.md,
"Power and audio").

The world of integration_test.py, plus python-dbusmock's power-profiles-daemon and UPower on
the private system bus, and a dbusmock MPRIS player on the test session bus whose process sits
in a real cgroup that an app's record names. The proof with real PipeWire, power-profiles-daemon
and the kernel's files is VM section "audio-power".

    RC_DAEMON=build/src/resource-controld RC_CLIENT=build/src/resourcectl \\
        /usr/bin/python3 tests/integration/power_audio_test.py [Class.test_name ...]
'''

import os
import subprocess
import sys
import time

from gi.repository import Gio, GLib

import rctest_harness as h
from rctest_harness import RcTestCase, own_cgroup

PPD_NAME = 'net.hadess.PowerProfiles'
PPD_PATH = '/net/hadess/PowerProfiles'
UPOWER_NAME = 'org.freedesktop.UPower'
UPOWER_PATH = '/org/freedesktop/UPower'
MOCK_IFACE = 'org.freedesktop.DBus.Mock'
PLAYER_NAME = 'org.mpris.MediaPlayer2.testplayer'
PLAYER_PATH = '/org/mpris/MediaPlayer2'
PLAYER_IFACE = 'org.mpris.MediaPlayer2.Player'

A = 'app-gnome-org.example.A-1.scope'
B = 'app-gnome-org.example.B-2.scope'


class Base(RcTestCase):
    start_daemon_in_setup = False

    def write_rules(self, text, name='r.conf'):
        os.makedirs(self.user_rules_dir, exist_ok=True)
        path = os.path.join(self.user_rules_dir, name)
        h._write(path + '.tmp', text)
        os.rename(path + '.tmp', path)

    def start_dbusmock(self, bus, args):
        '''python-dbusmock on the private system bus (bus 'system') or the test session bus.'''
        env = dict(self.bus_env)
        if bus == 'system':
            env['DBUS_SESSION_BUS_ADDRESS'] = env['DBUS_SYSTEM_BUS_ADDRESS']
        # pylint: disable=consider-using-with
        proc = subprocess.Popen([sys.executable, '-B', '-m', 'dbusmock', '--session'] + args,
                                env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.addCleanup(self._terminate, proc)
        return proc

    def system_conn(self):
        conn = Gio.DBusConnection.new_for_address_sync(
            os.environ['DBUS_SYSTEM_BUS_ADDRESS'],
            Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT |
            Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION, None, None)
        self.addCleanup(h.close_quietly, conn)
        return conn

    def wait_owned(self, conn, name):
        def owned():
            return conn.call_sync('org.freedesktop.DBus', '/org/freedesktop/DBus',
                                  'org.freedesktop.DBus', 'NameHasOwner', GLib.Variant('(s)', (name,)),
                                  None, Gio.DBusCallFlags.NONE, -1, None).unpack()[0]
        self.wait_until(owned, 10, f'{name} on the bus')

    def update_properties(self, conn, name, path, iface, props):
        '''dbusmock's UpdateProperties: sets them and sends PropertiesChanged.'''
        conn.call_sync(name, path, MOCK_IFACE, 'UpdateProperties',
                       GLib.Variant('(sa{sv})', (iface, props)), None,
                       Gio.DBusCallFlags.NONE, -1, None)

    def weight(self, unit):
        return self.get_one(unit)['CPUWeight']

    def slice_weight(self, name):
        slices = self.rc_call('ListSlices')[0]
        return next(sl['CPUWeight'] for sl in slices if sl['Unit'] == name)

    def wait_value(self, read, value, what):
        self.wait_until(lambda: read() == value, 5, f'{what} to be {value} (is {read()})')


class PowerTest(Base):
    RULES = ('[org.example.A]\nCPUWeight=80\n'
             '[org.example.A @power-saver]\nCPUWeight=20\n'
             '[org.example.A @battery]\nCPUWeight=40\nCPUQuota=50%\n'
             '[Slice background @power-saver]\nCPUWeight=7\n')

    def setUp(self):
        super().setUp()
        self.write_rules(self.RULES)
        self.sys = self.system_conn()

    def start_ppd(self, profile='balanced'):
        proc = self.start_dbusmock('system', ['--template', 'power_profiles_daemon', '-p',
                                              f'{{"ActiveProfile": "{profile}"}}'])
        self.wait_owned(self.sys, PPD_NAME)
        return proc

    def start_upower(self, on_battery=False):
        self.start_dbusmock('system', ['--template', 'upower', '-p',
                                       f'{{"OnBattery": {"true" if on_battery else "false"}}}'])
        self.wait_owned(self.sys, UPOWER_NAME)

    def set_profile(self, profile):
        self.update_properties(self.sys, PPD_NAME, PPD_PATH, PPD_NAME,
                               {'ActiveProfile': GLib.Variant('s', profile)})

    def set_on_battery(self, on_battery):
        self.update_properties(self.sys, UPOWER_NAME, UPOWER_PATH, UPOWER_NAME,
                               {'OnBattery': GLib.Variant('b', on_battery)})

    def test_without_the_services_the_suffixed_groups_never_apply(self):
        self.start_daemon()
        self.add_app(A)
        self.wait_value(lambda: self.weight(A), 80, 'A\'s weight')
        self.assertEqual(self.get_property('PowerProfile'), '')
        self.assertFalse(self.get_property('OnBattery'))
        time.sleep(0.3)
        self.assertEqual(self.weight(A), 80)
        self.assertNotEqual(self.slice_weight('background.slice'), 7)
        out = self.run_client('status', check=True).stdout
        self.assertIn('Power profile:    none (power-profiles-daemon does not run)', out)
        self.assertIn('On battery:       no', out)

    def test_power_saver_applies_and_is_taken_back(self):
        self.start_ppd()
        self.start_daemon()
        self.add_app(A)
        self.wait_value(lambda: self.weight(A), 80, 'A\'s weight')
        self.assertEqual(self.get_property('PowerProfile'), 'balanced')
        before = self.slice_weight('background.slice')

        self.set_profile('power-saver')
        self.wait_value(lambda: self.weight(A), 20, 'A\'s power-saver weight')
        self.wait_value(lambda: self.slice_weight('background.slice'), 7, 'background.slice weight')
        self.wait_value(lambda: self.get_property('PowerProfile'), 'power-saver', 'PowerProfile')
        self.assertIn('Power profile:    power-saver', self.run_client('status', check=True).stdout)
        # an app that starts now gets the power-saver rule too
        a2 = 'app-gnome-org.example.A-3.scope'
        self.add_app(a2)
        self.wait_value(lambda: self.weight(a2), 20, 'the new instance\'s weight')

        self.set_profile('balanced')
        self.wait_value(lambda: self.weight(A), 80, 'A\'s weight back')
        self.wait_value(lambda: self.slice_weight('background.slice'), before,
                        'background.slice weight back')

    def test_power_saver_service_going_away_takes_it_back(self):
        ppd = self.start_ppd('power-saver')
        self.start_daemon()
        self.add_app(A)
        self.wait_value(lambda: self.weight(A), 20, 'A\'s power-saver weight')
        self._terminate(ppd)
        self.wait_value(lambda: self.weight(A), 80, 'A\'s weight once the service is gone')
        self.assertEqual(self.get_property('PowerProfile'), '')

    def test_battery_applies_and_power_saver_wins(self):
        self.start_upower()
        self.start_ppd()
        self.start_daemon()
        self.add_app(A)
        self.wait_value(lambda: self.weight(A), 80, 'A\'s weight')
        self.set_on_battery(True)
        self.wait_value(lambda: self.weight(A), 40, 'A\'s battery weight')
        self.wait_value(lambda: self.get_one(A)['CPUQuota'], 50, 'A\'s battery quota')
        self.assertTrue(self.get_property('OnBattery'))
        self.set_profile('power-saver')
        self.wait_value(lambda: self.weight(A), 20, 'A\'s power-saver weight')
        self.assertEqual(self.get_one(A)['CPUQuota'], 50)
        self.set_on_battery(False)
        self.wait_value(lambda: self.get_one(A)['CPUQuota'], 0, 'A\'s quota gone')
        self.assertEqual(self.weight(A), 20)
        self.set_profile('performance')
        self.wait_value(lambda: self.weight(A), 80, 'A\'s weight back')


class AudioTest(Base):
    '''A plays (an MPRIS player in its cgroup); B, the control, has no sound.'''

    def setUp(self):
        super().setUp()
        if not os.environ.get('RC_TEST_CGROUP_DIR'):
            self.fail('no writable cgroup v2 hierarchy to put the player in a real cgroup '
                      '(the root harness prints why)')
        self.write_rules('[org.example.A]\nFreezeWhenInactiveSec=1\nCPUWeight=20\n'
                         '[org.example.B]\nFreezeWhenInactiveSec=1\nCPUWeight=20\n')
        self.player = self.start_dbusmock('session', [PLAYER_NAME, PLAYER_PATH, PLAYER_IFACE])
        self.wait_owned(self.conn, PLAYER_NAME)
        self.conn.call_sync(PLAYER_NAME, PLAYER_PATH, MOCK_IFACE, 'AddProperty',
                            GLib.Variant('(ssv)', (PLAYER_IFACE, 'PlaybackStatus',
                                                   GLib.Variant('s', 'Paused'))),
                            None, Gio.DBusCallFlags.NONE, -1, None)
        self.start_daemon()
        # A's record names the player's (real) cgroup; B's is the mock's own
        self.add_app(A, control_group=own_cgroup(self.player.pid), pids=[self.player.pid])
        self.add_app(B)

    def play(self, status):
        self.update_properties(self.conn, PLAYER_NAME, PLAYER_PATH, PLAYER_IFACE,
                               {'PlaybackStatus': GLib.Variant('s', status)})

    def frozen(self, unit):
        return 'frozen 1' in self.cgroup_file(unit, 'cgroup.events')

    def test_a_playing_app_is_never_frozen_and_keeps_its_share(self):
        self.assertFalse(self.get_one(A)['Audio'])
        self.wait_value(lambda: self.weight(A), 20, 'A\'s rule weight')
        self.play('Playing')
        self.wait_signal('AppChanged', A, lambda args: args[1].get('Audio') is True)
        self.assertTrue(self.get_one(A)['Audio'])
        self.assertFalse(self.get_one(B)['Audio'])
        # ListApps carries Audio only while it is true
        self.assertEqual({r['Unit']: r.get('Audio') for r in self.list_apps()}, {A: True, B: None})
        # the rule's weight of 20 does not hold while it plays
        self.wait_value(lambda: self.weight(A), 100, 'A\'s weight while it plays')
        self.rc_call('SetForegroundApp', (A,), '(s)')
        self.rc_call('SetForegroundApp', (B,), '(s)')
        self.rc_call('SetForegroundApp', ('',), '(s)')
        self.wait_until(lambda: self.frozen(B), 5, 'B (no sound) frozen in the background')
        time.sleep(1.5)
        self.assertFalse(self.frozen(A), 'A was frozen while it plays')
        self.assertEqual([c[0] for c in self.systemd_calls('FreezeUnit')], [B])
        out = self.run_client('status', check=True).stdout
        self.assertIn(f'Held for audio:   org.example.A ({A})', out)
        self.assertIn('Focus source:', out)

        # paused: the hold ends, the rule's weight and the freeze come
        self.play('Paused')
        self.wait_signal('AppChanged', A, lambda args: args[1].get('Audio') is False)
        self.wait_value(lambda: self.weight(A), 20, 'A\'s rule weight once paused')
        self.wait_until(lambda: self.frozen(A), 5, 'A frozen a second after it paused')
        self.assertIn('Held for audio:   none', self.run_client('status', check=True).stdout)

        # playing again (a call coming in): thawed at once
        self.play('Playing')
        self.wait_until(lambda: not self.frozen(A), 5, 'A thawed when it plays again')
        self.assertIn([A], self.systemd_calls('ThawUnit'))

    def test_a_player_that_leaves_the_bus_ends_the_hold(self):
        self.play('Playing')
        self.wait_value(lambda: self.get_one(A)['Audio'], True, 'A held')
        self._terminate(self.player)
        self.wait_value(lambda: self.get_one(A)['Audio'], False, 'A no longer held')

    def test_a_player_found_at_start_is_held(self):
        self.play('Playing')
        self.wait_value(lambda: self.get_one(A)['Audio'], True, 'A held')
        self.stop_daemon()
        self.start_daemon()
        self.wait_value(lambda: self.get_one(A)['Audio'], True, 'A held after a restart')


if __name__ == '__main__':
    sys.exit(h.main())
