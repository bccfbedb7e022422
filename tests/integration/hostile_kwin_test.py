#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
'''The focus tracker against a process of the same user that plays KWin, changes the user
manager's environment as it likes, or sets the daemon's test hooks there.

    RC_DAEMON=build/src/resource-controld RC_CLIENT=build/src/resourcectl \\
        /usr/bin/python3 tests/integration/hostile_kwin_test.py [Class.test_name ...]
'''

import os
import sys

from gi.repository import Gio, GLib

import rctest_harness as h
from focus_test import FakeSway, FocusBase


class KWinNameTest(FocusBase):
    '''Whoever owns org.kde.KWin, and what the manager's environment says about the desktop.'''

    def own_kwin(self):
        '''A connection of the test's that owns org.kde.KWin, as KWin's own does.'''
        kwin = Gio.DBusConnection.new_for_address_sync(
            self.bus_address, Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT |
            Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION, None, None)
        self.addCleanup(h.close_quietly, kwin)
        self.own_kwin_again(kwin)
        return kwin

    def release_kwin(self, kwin):
        kwin.call_sync('org.freedesktop.DBus', '/org/freedesktop/DBus', 'org.freedesktop.DBus',
                       'ReleaseName', GLib.Variant('(s)', ('org.kde.KWin',)), None,
                       Gio.DBusCallFlags.NONE, 5000, None)

    def kwin_call_ok(self, conn, pid):
        '''SetForegroundWindowProcess from conn: True if taken, False if NotAuthorized.'''
        try:
            self.rc_call('SetForegroundWindowProcess', (pid,), '(i)', conn=conn)
        except GLib.Error as e:
            self.assertEqual(h.dbus_error_name(e), h.RC_ERROR + 'NotAuthorized')
            return False
        return True

    def set_manager_environment(self, assignments):
        '''`systemctl --user set-environment`: a call the daemon sees, then reads the property.'''
        self.mock('SetEnvironment', (assignments,), '(as)', iface='org.freedesktop.systemd1.Manager')

    def wait_environment_read(self, names):
        '''Until the daemon has read a manager environment that names this source.'''
        said = f"Focus: the session's environment names {names}"
        self.wait_until(lambda: any(line.rstrip().endswith(said) for line in self.daemon_log().splitlines()),
                        10, f'the daemon to read an environment naming {names}')

    def sway_connection(self, sway):
        self.wait_until(lambda: not sway.connections.empty(), 10, 'the daemon to subscribe to sway')
        conn = sway.connections.get()
        self.addCleanup(conn.close)
        return conn

    def test_environment_changes_while_kwin_runs_keep_its_name(self):
        # The daemon kept KWin's name across changes of the manager's environment as a
        # freed pointer: each change freed it again, each call of KWin's read it.
        self.session_env = {'XDG_CURRENT_DESKTOP': 'KDE'}
        self.start_daemon()
        self.set_rules('deny-all')
        kwin = self.own_kwin()
        self.wait_until(lambda: self.kwin_call_ok(kwin, self.pids[1]), 5, "the daemon to see KWin's name")
        self.wait_weights([100, 300, 100])
        sway = FakeSway(os.path.join(self.workdir, 'sway.sock'))
        self.addCleanup(sway.close)
        # two changes of the session's desktop while KWin keeps its name
        self.set_manager_environment(['XDG_CURRENT_DESKTOP=sway', f'SWAYSOCK={sway.path}'])
        self.wait_environment_read('sway ' + sway.path)
        self.set_manager_environment(['XDG_CURRENT_DESKTOP=KDE'])
        self.wait_environment_read('kwin')
        self.wait_source('kwin')
        # KWin is still KWin: its call needs no check, another connection's does
        self.assertTrue(self.kwin_call_ok(kwin, self.pids[0]))
        self.wait_weights([300, 100, 100])
        self.assertFalse(self.kwin_call_ok(self.conn, self.pids[2]))
        self.assert_weights_stay([300, 100, 100])
        self.assertIsNone(self.daemon.poll())

    def test_kwin_name_counts_only_on_plasma_while_owned(self):
        # Any process of the user can own org.kde.KWin. Off Plasma its calls are checked
        # like anyone's and leave the session's own source in use; on Plasma the name
        # counts only while it is owned.
        sway = FakeSway(os.path.join(self.workdir, 'sway.sock'))
        self.addCleanup(sway.close)
        self.session_env = {'XDG_CURRENT_DESKTOP': 'sway', 'SWAYSOCK': sway.path}
        self.start_daemon()
        conn = self.sway_connection(sway)
        self.wait_source('sway')
        self.set_rules('deny-all')
        kwin = self.own_kwin()
        self.assertFalse(self.kwin_call_ok(kwin, self.pids[1]))
        self.assertEqual(self.focus_source(), 'sway')
        conn.sendall(FakeSway.focus_event(self.pids[0]))
        self.wait_weights([300, 100, 100])
        # the session becomes Plasma: KWin speaks for it
        self.set_manager_environment(['XDG_CURRENT_DESKTOP=KDE', f'SWAYSOCK={sway.path}'])
        self.wait_source('kwin')
        self.assertTrue(self.kwin_call_ok(kwin, self.pids[1]))
        self.wait_weights([100, 300, 100])
        # KWin leaves: sway, which the environment still names, is followed again
        self.release_kwin(kwin)
        conn = self.sway_connection(sway)
        self.wait_source('sway')
        conn.sendall(FakeSway.focus_event(self.pids[2]))
        self.wait_weights([100, 100, 300])
        self.assertFalse(self.kwin_call_ok(kwin, self.pids[0]))
        # KWin back, the session no longer Plasma: sway again, KWin's name is checked
        self.own_kwin_again(kwin)
        self.wait_source('kwin')
        self.set_manager_environment(['XDG_CURRENT_DESKTOP=sway'])
        conn = self.sway_connection(sway)
        self.wait_source('sway')
        self.assertFalse(self.kwin_call_ok(kwin, self.pids[0]))
        conn.sendall(FakeSway.focus_event(self.pids[1]))
        self.wait_weights([100, 300, 100])

    def own_kwin_again(self, kwin):
        reply = kwin.call_sync('org.freedesktop.DBus', '/org/freedesktop/DBus', 'org.freedesktop.DBus',
                               'RequestName', GLib.Variant('(su)', ('org.kde.KWin', 4)), None,
                               Gio.DBusCallFlags.NONE, 5000, None)
        self.assertEqual(reply.unpack(), (1,))   # PRIMARY_OWNER

    def test_an_authorized_call_picks_no_source(self):
        # SetForegroundWindowProcess from an authorized caller moves the boost once, as
        # SetForegroundProcess does; the session's source goes on moving it
        sway = FakeSway(os.path.join(self.workdir, 'sway.sock'))
        self.addCleanup(sway.close)
        self.session_env = {'SWAYSOCK': sway.path}
        self.start_daemon()
        conn = self.sway_connection(sway)
        self.wait_source('sway')
        self.rc_call('SetForegroundWindowProcess', (self.pids[1],), '(i)')
        self.wait_weights([100, 300, 100])
        self.assertEqual(self.focus_source(), 'sway')
        conn.sendall(FakeSway.focus_event(self.pids[2]))
        self.wait_weights([100, 100, 300])


if __name__ == '__main__':
    sys.exit(h.main())
