#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
'''Host integration tests of the focus sources (docs/design.md, "Focus on every desktop").

The real daemon, the mock systemd and polkitd of integration_test.py, and fake compositors
served by this test: sway's IPC socket, Hyprland's two sockets, an X server (Xvfb) on which the
test plays the window manager, and the KWin script's method call. The VM tier (section "focus")
is the proof with the real compositors.

    RC_DAEMON=build/src/resource-controld RC_CLIENT=build/src/resourcectl \\
        /usr/bin/python3 tests/integration/focus_test.py [Class.test_name ...]
'''

import os
import queue
import shutil
import socket
import struct
import subprocess
import sys
import threading

from gi.repository import Gio, GLib

import rctest_harness as h
from rctest_harness import DBUSMOCK_IFACE, RcTestCase

APPS = ['app-sway-org.example.A-1.scope', 'app-sway-org.example.B-2.scope',
        'app-sway-org.example.C-3.scope']
SESSION_VARIABLES = ('DISPLAY', 'WAYLAND_DISPLAY', 'SWAYSOCK', 'I3SOCK',
                     'HYPRLAND_INSTANCE_SIGNATURE', 'XDG_CURRENT_DESKTOP')


class FakeServer:
    '''A unix socket server in a thread; each accepted connection goes to handle().'''

    def __init__(self, path):
        self.path = path
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.bind(path)
        self.sock.listen(8)
        self.connections = queue.Queue()
        self.accepted = 0
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self):
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.accepted += 1
            self.handle(conn)

    def handle(self, conn):
        self.connections.put(conn)

    def close(self):
        self.sock.close()
        try:
            os.unlink(self.path)
        except FileNotFoundError:
            pass


class FakeSway(FakeServer):
    '''sway's IPC: answers the subscription, then sends what the test asks for.'''

    def handle(self, conn):
        magic, length, kind = struct.unpack('=6sII', self._read(conn, 14))
        payload = self._read(conn, length)
        assert (magic, kind, payload) == (b'i3-ipc', 2, b'["window"]'), (magic, kind, payload)
        conn.sendall(self.frame(2, b'{"success":true}'))
        self.connections.put(conn)

    @staticmethod
    def _read(conn, n):
        data = b''
        while len(data) < n:
            chunk = conn.recv(n - len(data))
            if not chunk:
                raise EOFError
            data += chunk
        return data

    @staticmethod
    def frame(kind, payload):
        return struct.pack('=6sII', b'i3-ipc', len(payload), kind) + payload

    @classmethod
    def focus_event(cls, pid):
        container = '"window":6291459' if pid is None else f'"pid":{pid}'
        return cls.frame(0x80000003,
                         f'{{"change":"focus","container":{{"id":7,{container}}}}}'.encode())


class FakeHyprlandRequests(FakeServer):
    '''Hyprland's command socket: j/activewindow for the window the test says is focused.'''

    def __init__(self, path):
        self.windows = {}       # address -> pid (None: no pid)
        self.active = None
        self.raw_reply = None
        super().__init__(path)

    def handle(self, conn):
        with conn:
            request = conn.recv(256)
            if request != b'j/activewindow':
                return
            if self.raw_reply is not None:
                conn.sendall(self.raw_reply)
                return
            pid = self.windows.get(self.active)
            pid_json = f',"pid":{pid}' if pid is not None else ''
            conn.sendall(f'{{"address":"0x{self.active}","class":"x"{pid_json}}}'.encode())


class FocusBase(RcTestCase):
    '''Three apps in the mock, the daemon started by the test with a session environment.'''

    start_daemon_in_setup = False

    def setUp(self):
        super().setUp()
        self.session_env = {}
        # each app's process in a real cgroup of its own: the daemon finds the app of a
        # focused pid from /proc/PID/cgroup
        self.pids = []
        for unit in APPS:
            pid, cgroup = self.process_in_own_cgroup('focus')
            self.pids.append(pid)
            self.add_app(unit, controllers='cpu io memory pids', pids=[pid], control_group=cgroup,
                         wait=False)

    def daemon_env(self):
        env = {k: v for k, v in super().daemon_env().items() if k not in SESSION_VARIABLES}
        env.update(self.session_env)
        return env

    def weights(self):
        texts = [self.cgroup_file(unit, 'cpu.weight') for unit in APPS]
        return [int(text) if text else None for text in texts]

    def wait_weights(self, expected, timeout=5):
        return self.wait_until(lambda: self.weights() == expected, timeout,
                               f'cpu.weight {expected} (now {self.weights()})')

    def assert_weights_stay(self, expected, seconds=0.5):
        self.iterate(seconds)
        self.assertEqual(self.weights(), expected)

    def focus_source(self):
        return self.get_property('FocusSource')

    def wait_source(self, name):
        self.wait_until(lambda: self.focus_source() == name, 10,
                        f'FocusSource {name} (now {self.focus_source()})')

    def daemon_log(self):
        with open(self.daemon_logs[-1], encoding='utf-8', errors='replace') as f:
            return f.read()

    def count_in_log(self, text):
        '''How often the daemon's log said text at more than debug level.'''
        return sum(1 for line in self.daemon_log().splitlines()
                   if text in line and '-DEBUG' not in line)

    def set_user_manager_environment(self, assignments):
        '''What systemd sends when `systemctl --user import-environment` changes it.'''
        self.mock('EmitSignal', ('org.freedesktop.DBus.Properties', 'PropertiesChanged',
                                 'sa{sv}as',
                                 [GLib.Variant('s', 'org.freedesktop.systemd1.Manager'),
                                  GLib.Variant('a{sv}', {'Environment':
                                                         GLib.Variant('as', assignments)}),
                                  GLib.Variant('as', [])]),
                  '(sssav)', iface=DBUSMOCK_IFACE)


class SwayBase(FocusBase):
    '''A fake sway.'''

    def setUp(self):
        super().setUp()
        self.sway = FakeSway(os.path.join(self.workdir, 'sway-ipc.sock'))
        self.addCleanup(self.sway.close)

    def connection(self):
        self.wait_until(lambda: not self.sway.connections.empty(), 10, 'the daemon to subscribe')
        conn = self.sway.connections.get()
        self.addCleanup(conn.close)
        return conn


class SwayFocusTest(SwayBase):
    '''sway's IPC socket.'''

    def test_the_boost_follows_sway(self):
        self.session_env = {'SWAYSOCK': self.sway.path, 'DISPLAY': ':99'}
        self.start_daemon()
        conn = self.connection()
        self.assertEqual(self.focus_source(), 'sway')
        conn.sendall(FakeSway.focus_event(self.pids[1]))
        self.wait_weights([100, 300, 100])
        conn.sendall(FakeSway.focus_event(self.pids[2]))
        self.wait_weights([100, 100, 300])
        # the same focus twice moves nothing
        self.clear_systemd_calls()
        conn.sendall(FakeSway.focus_event(self.pids[2]))
        self.assert_weights_stay([100, 100, 300])
        self.assertEqual(self.systemd_calls('SetUnitProperties'), [])

    def test_garbage_and_strangers_move_no_boost(self):
        self.session_env = {'SWAYSOCK': self.sway.path}
        self.start_daemon()
        conn = self.connection()
        conn.sendall(FakeSway.focus_event(self.pids[0]))
        self.wait_weights([300, 100, 100])
        for _ in range(3):
            conn.sendall(FakeSway.frame(0x80000003, b'{"change":"focus","container":'))
            conn.sendall(FakeSway.focus_event(None))        # a window without a pid
            conn.sendall(FakeSway.focus_event(os.getpid()))  # a process in no app
        self.assert_weights_stay([300, 100, 100])
        self.assertEqual(self.count_in_log('a window event that is not JSON'), 1)
        self.assertEqual(self.count_in_log('a focused window without a pid'), 1)
        # the connection still works
        conn.sendall(FakeSway.focus_event(self.pids[1]))
        self.wait_weights([100, 300, 100])
        # a message that is not i3 IPC: the daemon hangs up and connects again
        conn.sendall(b'HTTP/1.1 200 OK\r\n\r\n')
        conn2 = self.connection()
        self.assertEqual(self.count_in_log('a message that is not i3 IPC'), 1)
        conn2.sendall(FakeSway.focus_event(self.pids[2]))
        self.wait_weights([100, 100, 300])
        self.assertIsNone(self.daemon.poll())

    def test_socket_vanishes_mid_message(self):
        self.session_env = {'SWAYSOCK': self.sway.path}
        self.start_daemon()
        conn = self.connection()
        event = FakeSway.focus_event(self.pids[1])
        conn.sendall(event[:20])
        conn.close()
        self.wait_until(lambda: 'the socket closed within a message' in self.daemon_log(), 5,
                        'the daemon to see the socket close')
        self.assert_weights_stay([100, 100, 100])
        # sway went away for good: the daemon tries a few times, then waits for the session
        self.sway.close()
        self.wait_source('none')
        self.assertIsNone(self.daemon.poll())

    def test_compositor_starts_after_the_daemon(self):
        self.start_daemon()
        self.assertEqual(self.focus_source(), 'none')
        # the session's start imports SWAYSOCK into the user manager
        self.set_user_manager_environment(['HOME=/nowhere', f'SWAYSOCK={self.sway.path}'])
        conn = self.connection()
        self.wait_source('sway')
        conn.sendall(FakeSway.focus_event(self.pids[0]))
        self.wait_weights([300, 100, 100])
        # sway restarts with a new socket
        conn.close()
        sway2 = FakeSway(os.path.join(self.workdir, 'sway-ipc-2.sock'))
        self.addCleanup(sway2.close)
        self.set_user_manager_environment([f'SWAYSOCK={sway2.path}'])
        self.wait_until(lambda: not sway2.connections.empty(), 10, 'the daemon to follow sway')
        conn2 = sway2.connections.get()
        self.addCleanup(conn2.close)
        conn2.sendall(FakeSway.focus_event(self.pids[2]))
        self.wait_weights([100, 100, 300])
        # the session ends: no source
        self.set_user_manager_environment(['HOME=/nowhere'])
        self.wait_source('none')


class SessionEnvironmentTest(SwayBase):
    '''systemd 252 sends no PropertiesChanged for its Environment: the daemon sees the calls
    that change it (systemctl --user import-environment, dbus-update-activation-environment).'''

    def systemd_call(self, method, args):
        self.mock(method, (args,), '(as)', iface='org.freedesktop.systemd1.Manager')

    def test_environment_calls_are_followed(self):
        self.start_daemon()
        self.assertEqual(self.focus_source(), 'none')
        self.systemd_call('SetEnvironment', [f'SWAYSOCK={self.sway.path}', 'WAYLAND_DISPLAY=w-1'])
        conn = self.connection()
        self.wait_source('sway')
        conn.sendall(FakeSway.focus_event(self.pids[1]))
        self.wait_weights([100, 300, 100])
        self.systemd_call('UnsetEnvironment', ['SWAYSOCK'])
        self.wait_source('none')


class HyprlandFocusTest(FocusBase):
    '''Hyprland's event socket and command socket, served from a recorded event stream.'''

    def setUp(self):
        super().setUp()
        # Hyprland before 0.40 kept its sockets in /tmp/hypr/SIGNATURE/: the test's runtime
        # folder is too long a path for a socket
        self.SIGNATURE = f'v0.39_{os.getpid()}_{abs(hash(self.id())) % 10**6}'
        folder = os.path.join('/tmp', 'hypr', self.SIGNATURE)
        os.makedirs(folder)
        self.addCleanup(shutil.rmtree, folder, True)
        self.events = FakeServer(os.path.join(folder, '.socket2.sock'))
        self.requests = FakeHyprlandRequests(os.path.join(folder, '.socket.sock'))
        self.addCleanup(self.events.close)
        self.addCleanup(self.requests.close)
        self.requests.windows = {'55d0c0d0e0f0': self.pids[1], '55d0c0d0e100': self.pids[2],
                                 '55d0c0d0e200': None}
        self.session_env = {'HYPRLAND_INSTANCE_SIGNATURE': self.SIGNATURE,
                            'WAYLAND_DISPLAY': 'wayland-1', 'DISPLAY': ':1'}
        self.start_daemon()
        self.wait_until(lambda: not self.events.connections.empty(), 10, 'the event socket')
        self.event_conn = self.events.connections.get()
        self.addCleanup(self.event_conn.close)

    def focus(self, address, line=None):
        self.requests.active = address
        self.event_conn.sendall((line or f'activewindow>>kitty,~\nactivewindowv2>>{address}\n').encode())

    # what Hyprland 0.41 sends on its event socket when a window opens and gets the focus
    RECORDED = ('openwindow>>55d0c0d0e0f0,1,kitty,kitty\n'
                'activewindow>>kitty,kitty\n'
                'activewindowv2>>55d0c0d0e0f0\n'
                'focusedmon>>DP-1,1\n'
                'workspace>>1\n'
                'workspacev2>>1,1\n'
                'windowtitle>>55d0c0d0e0f0\n'
                'windowtitlev2>>55d0c0d0e0f0,~\n')

    def test_the_boost_follows_hyprland(self):
        self.assertEqual(self.focus_source(), 'hyprland')
        self.focus('55d0c0d0e0f0', self.RECORDED)
        self.wait_weights([100, 300, 100])
        self.focus('55d0c0d0e100')
        self.wait_weights([100, 100, 300])

    def test_garbage_and_strangers_move_no_boost(self):
        self.focus('55d0c0d0e0f0')
        self.wait_weights([100, 300, 100])
        said = self.count_in_log
        self.focus('55d0c0d0e200')                                # a window without a pid
        self.wait_until(lambda: said('has no pid') == 1, message='the window without a pid')
        self.focus('ffff', 'activewindowv2>>zz!$\n')              # an address that is none
        self.focus('ffff', 'workspace>>2\nactivewindowv2>>\n')    # no window has the focus
        self.event_conn.sendall(b'\xff\xfe\x00garbage\n')
        self.wait_until(lambda: said('not UTF-8') == 1, message='the line that is no text')
        self.requests.raw_reply = b'ok'                           # an answer that is no window
        self.focus('55d0c0d0e100')
        self.wait_until(lambda: said('gave no window') == 1, message='the answer that is none')
        self.focus('55d0c0d0e200')
        self.focus('ffff', 'activewindowv2>>zz!$\n')
        self.assert_weights_stay([100, 300, 100])
        self.assertEqual((said('has no pid'), said('address that is none')), (1, 1))
        self.requests.raw_reply = None
        self.focus('55d0c0d0e100')
        self.wait_weights([100, 100, 300])

    def test_event_socket_closes(self):
        self.event_conn.close()
        self.wait_until(lambda: self.events.accepted == 2, 10, 'the daemon to connect again')
        conn = self.events.connections.get()
        self.addCleanup(conn.close)
        self.requests.active = '55d0c0d0e0f0'
        conn.sendall(b'activewindowv2>>55d0c0d0e0f0\n')
        self.wait_weights([100, 300, 100])


class X11FocusTest(FocusBase):
    '''EWMH on an X server (Xvfb): the test sets the root window's _NET_ACTIVE_WINDOW and each
    window's _NET_WM_PID, as a window manager does.'''

    def setUp(self):
        super().setUp()
        if shutil.which('Xvfb') is None:
            self.fail('Xvfb is not installed (tools/install-deps.sh installs it)')
        # pylint: disable=import-outside-toplevel
        from Xlib import Xatom, display as xdisplay
        self.xatom = Xatom
        read, write = os.pipe()
        # pylint: disable=consider-using-with
        self.xvfb = subprocess.Popen(['Xvfb', '-displayfd', str(write), '-nolisten', 'tcp',
                                      '-screen', '0', '320x240x24'], pass_fds=(write,),
                                     stderr=subprocess.DEVNULL)
        os.close(write)
        with os.fdopen(read) as f:
            number = f.readline().strip()
        self.addCleanup(self._terminate, self.xvfb)
        self.display_name = f':{number}'
        self.x = xdisplay.Display(self.display_name)
        self.addCleanup(self._close_display)
        self.root = self.x.screen().root
        self.atom = self.x.intern_atom
        self.windows = [self.window(pid) for pid in self.pids + [None]]

    def _close_display(self):
        try:
            self.x.close()
        except Exception:  # pylint: disable=broad-except
            pass           # the server is gone already

    def window(self, pid):
        win = self.root.create_window(0, 0, 10, 10, 0, self.x.screen().root_depth)
        if pid is not None:
            win.change_property(self.atom('_NET_WM_PID'), self.xatom.CARDINAL, 32, [pid])
        self.x.sync()
        return win

    def activate(self, win):
        self.root.change_property(self.atom('_NET_ACTIVE_WINDOW'), self.xatom.WINDOW, 32,
                                  [win.id if win is not None else 0])
        self.x.sync()

    def test_the_boost_follows_the_active_window(self):
        self.activate(self.windows[2])    # focused before the daemon starts
        self.session_env = {'DISPLAY': self.display_name, 'XDG_CURRENT_DESKTOP': 'XFCE'}
        self.start_daemon()
        self.wait_weights([100, 100, 300])
        self.assertEqual(self.focus_source(), 'x11')
        self.activate(self.windows[0])
        self.wait_weights([300, 100, 100])
        self.activate(self.windows[3])    # no _NET_WM_PID
        self.wait_until(lambda: self.count_in_log('has no _NET_WM_PID') == 1, 5,
                        'the window without a pid')
        self.activate(None)               # the desktop
        self.activate(self.windows[3])
        self.assert_weights_stay([300, 100, 100])
        self.assertEqual(self.count_in_log('has no _NET_WM_PID'), 1)
        self.activate(self.windows[1])
        self.wait_weights([100, 300, 100])

    def test_i3_is_named(self):
        self.session_env = {'DISPLAY': self.display_name}
        self.start_daemon()
        self.wait_source('x11')
        # i3 starts after the daemon connected
        self.root.change_property(self.atom('I3_SOCKET_PATH'), self.atom('UTF8_STRING'), 8,
                                  b'/run/user/1000/i3/ipc-socket.1')
        self.x.sync()
        self.wait_source('i3')
        self.activate(self.windows[1])
        self.wait_weights([100, 300, 100])

    def test_x_server_goes_away(self):
        self.session_env = {'DISPLAY': self.display_name}
        self.start_daemon()
        self.wait_source('x11')
        self.xvfb.terminate()
        self.xvfb.wait()
        self.wait_until(lambda: 'the X server closed the connection' in self.daemon_log(), 5,
                        'the daemon to see the X server go')
        self.assertIsNone(self.daemon.poll())


class KWinFocusTest(FocusBase):
    '''The KWin script's SetForegroundWindowProcess (i): KWin sends a JavaScript number so.'''

    def test_kwin_script_moves_the_boost(self):
        sway = FakeSway(os.path.join(self.workdir, 'sway.sock'))
        self.addCleanup(sway.close)
        self.session_env = {'SWAYSOCK': sway.path}
        self.start_daemon()
        self.wait_source('sway')
        self.rc_call('SetForegroundWindowProcess', (self.pids[1],), '(i)')
        self.wait_weights([100, 300, 100])
        # an authorized call moves the boost once; off Plasma it picks no source
        self.assertEqual(self.focus_source(), 'sway')
        self.rc_call('SetForegroundWindowProcess', (self.pids[0],), '(i)')
        self.wait_weights([300, 100, 100])
        # a process in no app (plasmashell, a terminal outside the apps) moves nothing
        self.rc_call('SetForegroundWindowProcess', (os.getpid(),), '(i)')
        self.assert_weights_stay([300, 100, 100])

    def test_kwin_itself_needs_no_polkit_check(self):
        # KWin's scripts call from KWin's own connection, which owns org.kde.KWin: the
        # compositor telling its focus, as sway's socket does; anyone else is checked
        self.session_env = {'XDG_CURRENT_DESKTOP': 'KDE'}
        self.start_daemon()
        self.set_rules('deny-all')
        kwin = Gio.DBusConnection.new_for_address_sync(
            self.bus_address, Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT |
            Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION, None, None)
        self.addCleanup(h.close_quietly, kwin)
        reply = kwin.call_sync('org.freedesktop.DBus', '/org/freedesktop/DBus', 'org.freedesktop.DBus',
                               'RequestName', GLib.Variant('(su)', ('org.kde.KWin', 4)), None,
                               Gio.DBusCallFlags.NONE, 5000, None)
        self.assertEqual(reply.unpack(), (1,))   # PRIMARY_OWNER
        self.wait_until(lambda: self.call_ok(kwin, self.pids[1]), 5, "the daemon to see KWin's name")
        self.wait_weights([100, 300, 100])
        self.assert_rc_error('NotAuthorized', 'SetForegroundWindowProcess', (self.pids[0],), '(i)')
        self.assert_weights_stay([100, 300, 100])
        # KWin gone, its old connection's name is nobody's: checked again
        kwin.call_sync('org.freedesktop.DBus', '/org/freedesktop/DBus', 'org.freedesktop.DBus',
                       'ReleaseName', GLib.Variant('(s)', ('org.kde.KWin',)), None,
                       Gio.DBusCallFlags.NONE, 5000, None)
        self.wait_until(lambda: not self.call_ok(kwin, self.pids[0]), 5, "the daemon to see KWin leave")
        self.assert_weights_stay([100, 300, 100])

    def call_ok(self, conn, pid):
        try:
            self.rc_call('SetForegroundWindowProcess', (pid,), '(i)', conn=conn)
        except GLib.Error as e:
            self.assertEqual(h.dbus_error_name(e), h.RC_ERROR + 'NotAuthorized')
            return False
        return True

    def test_kde_desktop_names_kwin(self):
        self.session_env = {'XDG_CURRENT_DESKTOP': 'KDE', 'DISPLAY': ':5'}
        self.start_daemon()
        # KWin runs: it owns its name
        kwin = Gio.DBusConnection.new_for_address_sync(
            self.bus_address, Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT |
            Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION, None, None)
        self.addCleanup(h.close_quietly, kwin)
        kwin.call_sync('org.freedesktop.DBus', '/org/freedesktop/DBus', 'org.freedesktop.DBus',
                       'RequestName', GLib.Variant('(su)', ('org.kde.KWin', 4)), None,
                       Gio.DBusCallFlags.NONE, 5000, None)
        # the source is chosen once the user manager's environment is read, after the start
        self.wait_source('kwin')

    def test_bad_pids_and_authorization(self):
        self.start_daemon()
        for pid in (0, -1, -2147483648):
            self.assert_rc_error('InvalidArgument', 'SetForegroundWindowProcess', (pid,), '(i)')
        self.assert_rc_error('org.freedesktop.DBus.Error.InvalidArgs',
                             'SetForegroundWindowProcess', (self.pids[0],), '(u)')
        self.set_rules('deny-all')
        self.assert_rc_error('NotAuthorized', 'SetForegroundWindowProcess', (self.pids[0],), '(i)')
        self.assert_weights_stay([100, 100, 100])


if __name__ == '__main__':
    sys.exit(h.main())
