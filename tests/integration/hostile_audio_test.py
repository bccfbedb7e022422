#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
'''Host integration tests of the audio watch against peers that mean harm (docs/design.md,
"Power and audio").

A call the daemon makes stays pending at the bus until the callee answers or leaves, whatever
the daemon's own timeout, and the bus refuses every call of a connection that has too many
pending (max_replies_per_connection: 128 on the test bus, 50,000 on a stock session bus). A
peer that takes media player names and never answers must not make the daemon's calls to
systemd fail.

    RC_DAEMON=build/src/resource-controld RC_CLIENT=build/src/resourcectl \\
        /usr/bin/python3 tests/integration/hostile_audio_test.py [Class.test_name ...]
'''

import os
import subprocess
import sys

from gi.repository import Gio, GLib

import rctest_harness as h
from rctest_harness import RcTestCase, own_cgroup

PLAYER_NAME = 'org.mpris.MediaPlayer2.testplayer'
PLAYER_PATH = '/org/mpris/MediaPlayer2'
PLAYER_IFACE = 'org.mpris.MediaPlayer2.Player'
MOCK_IFACE = 'org.freedesktop.DBus.Mock'

A = 'app-gnome-org.example.A-1.scope'

# More cycles than the test bus lets a connection have calls pending.
CHURN_CYCLES = 400

# A peer that owns and releases media player names and never answers a call: a filter drops
# every method call that reaches it (counted), so GDBus sends no error back either. It churns
# the names, prints "churned", then for each line read churns the number of cycles it names,
# if any, and prints the count of calls it got.
HOSTILE_PEER = r'''
import sys, threading
from gi.repository import Gio, GLib
cycles, prefix = int(sys.argv[1]), sys.argv[2]
conn = Gio.DBusConnection.new_for_address_sync(
    Gio.dbus_address_get_for_bus_sync(Gio.BusType.SESSION, None),
    Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT |
    Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION, None, None)
lock = threading.Lock()
calls = [0]
def drop_calls(_conn, message, incoming):
    if incoming and message.get_message_type() == Gio.DBusMessageType.METHOD_CALL:
        with lock:
            calls[0] += 1
        return None
    return message
conn.add_filter(drop_calls)
def bus(method, name):
    conn.call_sync('org.freedesktop.DBus', '/org/freedesktop/DBus', 'org.freedesktop.DBus',
                   method, GLib.Variant('(su)', (name, 0)) if method == 'RequestName'
                   else GLib.Variant('(s)', (name,)), None, Gio.DBusCallFlags.NONE, -1, None)
def churn(cycles):
    for i in range(cycles):
        bus('RequestName', f'{prefix}{i % 7}')
        bus('ReleaseName', f'{prefix}{i % 7}')
churn(cycles)
bus('RequestName', f'{prefix}kept')
print('churned', flush=True)
for line in sys.stdin:
    churn(int(line.split()[1]) if line.startswith('churn') else 0)
    with lock:
        print(calls[0], flush=True)
'''


class HostilePlayerTest(RcTestCase):

    start_daemon_in_setup = False

    def start_hostile(self, cycles, prefix='org.mpris.MediaPlayer2.churn'):
        '''A hostile peer that has churned @cycles names and keeps one; returns its process.'''
        # pylint: disable=consider-using-with
        proc = subprocess.Popen([sys.executable, '-B', '-c', HOSTILE_PEER, str(cycles), prefix],
                                env=self.bus_env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                text=True)
        self.addCleanup(proc.stdout.close)
        self.addCleanup(proc.stdin.close)
        self.addCleanup(self._terminate, proc)
        self.assertEqual(proc.stdout.readline().strip(), 'churned')
        return proc

    @staticmethod
    def calls_received(proc, churn=0):
        '''The calls @proc got, after it churned @churn more cycles.'''
        proc.stdin.write(f'churn {churn}\n')
        proc.stdin.flush()
        return int(proc.stdout.readline())

    def daemon_says(self, text):
        with open(self.daemon_logs[-1], encoding='utf-8', errors='replace') as f:
            return f.read().count(text)

    def test_name_churn_leaves_the_daemon_able_to_call_systemd(self):
        self.start_daemon()
        self.add_app(A)
        hostile = self.start_hostile(CHURN_CYCLES)
        # The bus sent the daemon every NameOwnerChanged before this call; the daemon takes
        # its messages in order, so by the reply it has seen the whole churn.
        self.list_apps()
        self.clear_systemd_calls()
        self.set_weight('org.example.A', 300)
        self.assertIn([A], [c[:1] for c in self.systemd_calls('SetUnitProperties')])
        self.assertEqual(self.get_one(A)['CPUWeight'], 300)
        # one call at a time for a peer, however many names it took
        self.assertLessEqual(self.calls_received(hostile), 1)
        self.assertIsNone(self.daemon.poll())

    def test_players_beyond_the_cap_are_asked_once_the_silent_ones_leave(self):
        if not os.environ.get('RC_TEST_CGROUP_DIR'):
            self.fail('no writable cgroup v2 hierarchy to put the player in a real cgroup '
                      '(the root harness prints why)')
        self.start_daemon()
        # more silent peers than the daemon lets owe it an answer at once
        hostiles = [self.start_hostile(1, f'org.mpris.MediaPlayer2.silent{i}.n') for i in range(18)]
        self.wait_until(lambda: sum(self.calls_received(p) for p in hostiles) == 16, 10,
                        'the daemon to ask as many silent peers as it may')
        self.assertEqual(sum(self.calls_received(p) for p in hostiles), 16)
        # its call timed out (after 10 s): a silent peer is not asked again, however it churns
        self.wait_until(lambda: self.daemon_says('did not answer') == 16, 20,
                        'the daemon\'s calls to the silent peers to time out')
        self.assertEqual(sum(self.calls_received(p, churn=20) for p in hostiles), 16)

        env = dict(self.bus_env)
        # pylint: disable=consider-using-with
        player = subprocess.Popen([sys.executable, '-B', '-m', 'dbusmock', '--session',
                                   PLAYER_NAME, PLAYER_PATH, PLAYER_IFACE],
                                  env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.addCleanup(self._terminate, player)
        self.wait_for_name(PLAYER_NAME, player, 'the player')
        self.conn.call_sync(PLAYER_NAME, PLAYER_PATH, MOCK_IFACE, 'AddProperty',
                            GLib.Variant('(ssv)', (PLAYER_IFACE, 'PlaybackStatus',
                                                   GLib.Variant('s', 'Playing'))),
                            None, Gio.DBusCallFlags.NONE, -1, None)
        self.add_app(A, control_group=own_cgroup(player.pid), pids=[player.pid])
        self.list_apps()
        self.assertFalse(self.get_one(A)['Audio'], 'a player was asked beyond the cap')

        # the silent peers leave: the bus forgets what they owed, and the player is asked
        for proc in hostiles:
            self._terminate(proc)
        self.wait_until(lambda: self.get_one(A)['Audio'], 10, 'the waiting player to be held')


class PwDumpFromPathTest(RcTestCase):
    '''The daemon runs pw-dump from a system folder, never the one its PATH names first.'''

    start_daemon_in_setup = False

    def setUp(self):
        super().setUp()
        self.fake_bin = os.path.join(self.workdir, 'fake-bin')
        os.makedirs(self.fake_bin)
        self.marker = os.path.join(self.workdir, 'fake-pw-dump-ran')
        fake = os.path.join(self.fake_bin, 'pw-dump')
        h._write(fake, f'#!/bin/sh\ntouch {self.marker}\n')
        os.chmod(fake, 0o755)

    def daemon_env(self):
        env = super().daemon_env()
        env['PATH'] = self.fake_bin + ':' + env['PATH']
        return env

    def daemon_says(self, text):
        with open(self.daemon_logs[-1], encoding='utf-8', errors='replace') as f:
            return text in f.read()

    def test_pw_dump_is_not_taken_from_path(self):
        # PipeWire's socket (a plain file will do: the real pw-dump fails to connect and ends)
        h._write(os.path.join(self.runtime_dir, 'pipewire-0'), '')
        self.start_daemon()
        # without pw-dump in a system folder, PipeWire is not followed at all
        self.wait_until(lambda: self.daemon_says('Audio: pw-dump ended') or
                        self.daemon_says('PipeWire\'s streams are not followed'), 10,
                        'the daemon\'s pw-dump to end')
        self.assertFalse(os.path.exists(self.marker), 'the pw-dump in PATH was run')


if __name__ == '__main__':
    sys.exit(h.main())
