#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
'''Focus sockets a hostile process serves (SECURITY.md, "compositor sockets").

The compositor's socket is named by the user manager's environment, which any
process of the user may set: a fake X server that never answers, a socket of
another user's, JSON nested too deep, messages without end and floods of focus
events must neither stall the daemon nor cost it without bound.

    RC_DAEMON=build/src/resource-controld RC_CLIENT=build/src/resourcectl \\
        /usr/bin/python3 tests/integration/hostile_focus_test.py [Class.test_name ...]
'''

import os
import shutil
import socket
import subprocess
import sys
import threading
import time

import rctest_harness as h
from focus_test import FakeHyprlandRequests, FakeServer, FakeSway, FocusBase

X11_FOLDER = '/tmp/.X11-unix'


def make_x11_folder():
    '''/tmp/.X11-unix as the X servers make it (sticky, writable by all), if it is not there.'''
    try:
        os.mkdir(X11_FOLDER)
        os.chmod(X11_FOLDER, 0o1777)
    except FileExistsError:
        pass


def abstract_names():
    '''The abstract unix socket names bound on this host.'''
    with open('/proc/net/unix', encoding='ascii', errors='replace') as f:
        return {line.split()[-1] for line in f.readlines()[1:] if line.split()[-1].startswith('@')}


class SilentXServer:
    '''Accepts connections to display :number and never says a word.'''

    def __init__(self, abstract=True, path=True):
        self.conns = []
        self.sockets = []
        make_x11_folder()
        for number in range(6000 + os.getpid() % 2000, 9000):
            name = f'{X11_FOLDER}/X{number}'
            if os.path.exists(name) or '@' + name in abstract_names():
                continue
            try:
                if abstract:
                    self._listen('\0' + name)
                if path:
                    self._listen(name)
                    self.path = name
            except OSError:
                self.close()
                continue
            self.display = f':{number}'
            break
        self.threads = [threading.Thread(target=self._serve, args=(s,), daemon=True)
                        for s in self.sockets]
        for thread in self.threads:
            thread.start()

    def _listen(self, address):
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sockets.append(sock)
        sock.bind(address)
        sock.listen(8)

    def _serve(self, sock):
        while True:
            try:
                conn, _ = sock.accept()
            except OSError:
                return
            self.conns.append(conn)

    def close(self):
        for sock in self.sockets:
            sock.close()
        for conn in self.conns:
            conn.close()
        if getattr(self, 'path', None):
            os.unlink(self.path)
            self.path = None
        self.sockets = []


class SilentXServerTest(FocusBase):
    '''A fake X server that accepts and never answers: the daemon must own its name and
    answer while it stays silent, and try again later.'''

    def serve(self, **kwargs):
        server = SilentXServer(**kwargs)
        self.addCleanup(server.close)
        return server

    def assert_answers_quickly(self):
        start = time.monotonic()
        self.rc_call('ListApps', timeout_ms=3000)
        self.assertLess(time.monotonic() - start, h.scaled(3))

    def test_silent_abstract_socket_at_start_up(self):
        server = self.serve(path=False)
        self.session_env = {'DISPLAY': server.display}
        self.start_daemon()        # owns its name and lists
        self.wait_until(lambda: len(server.conns) >= 1, 5, 'the daemon to connect')
        self.assert_answers_quickly()
        # the attempt is abandoned after a few seconds and made again
        self.wait_until(lambda: len(server.conns) >= 2, 15, 'the daemon to try again')
        self.assert_answers_quickly()
        self.assertGreaterEqual(self.count_in_log('gave no setup within'), 1)
        self.assertEqual(self.focus_source(), 'none')

    def test_silent_path_socket_named_by_the_user_manager(self):
        server = self.serve(abstract=False)
        self.start_daemon()
        self.set_user_manager_environment([f'DISPLAY={server.display}'])
        self.wait_until(lambda: len(server.conns) >= 1, 5, 'the daemon to connect')
        self.assert_answers_quickly()

    def test_abstract_socket_of_another_user(self):
        make_x11_folder()
        number = 9000 + os.getpid() % 900
        name = f'{X11_FOLDER}/X{number}'
        # another user binds the abstract name and waits (silently) for one connection
        script = ('import socket\n'
                  's = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)\n'
                  f's.bind({chr(0) + name!r})\n'
                  's.listen(1)\n'
                  's.settimeout(20)\n'
                  'c, _ = s.accept()\n'
                  'c.settimeout(20)\n'
                  'print("accepted", flush=True)\n'
                  'c.recv(1)\n')
        result = {}
        thread = threading.Thread(
            target=lambda: result.update(self.run_as_foreign_user(['/usr/bin/python3', '-c', script])),
            daemon=True)
        thread.start()
        self.wait_until(lambda: '@' + name in abstract_names(), 10, "the other user's socket")
        self.session_env = {'DISPLAY': f':{number}'}
        self.start_daemon()
        self.wait_until(lambda: self.count_in_log("is another user's (uid") >= 1, 5,
                        'the daemon to refuse the socket')
        thread.join(h.scaled(25))
        self.assertIn('accepted', result.get('stdout', ''))
        self.assert_answers_quickly()
        self.assertEqual(self.focus_source(), 'none')


class XauthorityTest(FocusBase):
    '''An X server that wants its cookie (as Xorg and Xwayland do): the daemon, which now
    makes the connection itself, finds the cookie in XAUTHORITY as libxcb's own connect did.
    Not a hostile case: the guard that the bounded connect still reaches a real session.'''

    def test_cookie_from_xauthority(self):
        # pylint: disable=import-outside-toplevel
        from Xlib import Xatom, display as xdisplay
        cookie = os.urandom(16).hex()
        # the server takes every cookie in its file, whatever display the entry names
        server_cookies = os.path.join(self.workdir, 'xvfb-cookies')
        subprocess.run(['xauth', '-f', server_cookies, 'add', ':0', '.', cookie],
                       check=True, stderr=subprocess.DEVNULL)
        read, write = os.pipe()
        # pylint: disable=consider-using-with
        xvfb = subprocess.Popen(['Xvfb', '-displayfd', str(write), '-auth', server_cookies,
                                 '-nolisten', 'tcp', '-screen', '0', '320x240x24'],
                                pass_fds=(write,), stderr=subprocess.DEVNULL)
        os.close(write)
        with os.fdopen(read) as f:
            display = ':' + f.readline().strip()
        self.addCleanup(self._terminate, xvfb)
        # the clients look the cookie up by their display's number
        cookies = os.path.join(self.workdir, 'xauthority')
        subprocess.run(['xauth', '-f', cookies, 'add', display, '.', cookie],
                       check=True, stderr=subprocess.DEVNULL)
        os.environ['XAUTHORITY'] = cookies
        self.addCleanup(os.environ.pop, 'XAUTHORITY')
        x = xdisplay.Display(display)
        self.addCleanup(x.close)
        win = x.screen().root.create_window(0, 0, 10, 10, 0, x.screen().root_depth)
        win.change_property(x.intern_atom('_NET_WM_PID'), Xatom.CARDINAL, 32, [self.pids[1]])
        x.screen().root.change_property(x.intern_atom('_NET_ACTIVE_WINDOW'), Xatom.WINDOW, 32,
                                        [win.id])
        x.sync()
        self.session_env = {'DISPLAY': display, 'XAUTHORITY': cookies}
        self.start_daemon()
        self.wait_weights([100, 300, 100])


class X11FloodTest(FocusBase):
    '''Any X client may change the root window's properties: a flood of _NET_ACTIVE_WINDOW
    changes costs one request in flight, and the boost follows the last.'''

    def test_flood_of_active_window_changes(self):
        # pylint: disable=import-outside-toplevel
        from Xlib import Xatom, display as xdisplay
        read, write = os.pipe()
        # pylint: disable=consider-using-with
        xvfb = subprocess.Popen(['Xvfb', '-displayfd', str(write), '-nolisten', 'tcp',
                                 '-screen', '0', '320x240x24'],
                                pass_fds=(write,), stderr=subprocess.DEVNULL)
        os.close(write)
        with os.fdopen(read) as f:
            display = ':' + f.readline().strip()
        self.addCleanup(self._terminate, xvfb)
        x = xdisplay.Display(display)
        self.addCleanup(x.close)
        root = x.screen().root
        windows = []
        for pid in self.pids:
            win = root.create_window(0, 0, 10, 10, 0, x.screen().root_depth)
            win.change_property(x.intern_atom('_NET_WM_PID'), Xatom.CARDINAL, 32, [pid])
            windows.append(win)
        active = x.intern_atom('_NET_ACTIVE_WINDOW')
        x.sync()
        self.session_env = {'DISPLAY': display}
        self.start_daemon()
        root.change_property(active, Xatom.WINDOW, 32, [windows[0].id])
        x.sync()
        self.wait_weights([300, 100, 100])
        for i in range(3000):
            root.change_property(active, Xatom.WINDOW, 32, [windows[i % 2].id])
        root.change_property(active, Xatom.WINDOW, 32, [windows[2].id])
        x.sync()
        self.wait_weights([100, 100, 300])
        self.assertEqual(self.count_in_log('Focus from x11 ended'), 0)


class ForeignSwayTest(FocusBase):
    '''A sway socket served by another user: it may not move the boost.'''

    def test_sway_socket_of_another_user(self):
        folder = os.path.join(self.workdir, 'foreign')
        os.makedirs(folder)
        os.chmod(folder, 0o777)
        path = os.path.join(folder, 'sway-ipc.sock')
        event = FakeSway.focus_event(self.pids[1])
        subscribed = FakeSway.frame(2, b'{"success":true}')
        script = ('import os, socket\n'
                  's = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)\n'
                  f's.bind({path!r})\n'
                  f'os.chmod({path!r}, 0o777)\n'
                  's.listen(1)\n'
                  's.settimeout(20)\n'
                  'c, _ = s.accept()\n'
                  'print("accepted", flush=True)\n'
                  'c.settimeout(20)\n'
                  'try:\n'
                  f'    c.sendall({subscribed + event!r})\n'
                  '    c.recv(100)\n'
                  'except OSError:\n'
                  '    pass  # the daemon hung up first\n')
        result = {}
        thread = threading.Thread(
            target=lambda: result.update(self.run_as_foreign_user(['/usr/bin/python3', '-c', script])),
            daemon=True)
        thread.start()
        self.wait_until(lambda: os.path.exists(path), 10, "the other user's socket")
        self.session_env = {'SWAYSOCK': path}
        self.start_daemon()
        self.wait_until(lambda: self.count_in_log("is another user's (uid") >= 1, 5,
                        'the daemon to refuse the socket')
        thread.join(h.scaled(25))
        self.assertIn('accepted', result.get('stdout', ''))
        self.assert_weights_stay([100, 100, 100])


class HostileSwayTest(FocusBase):
    '''Our own user's process on SWAYSOCK, sending what sway never does.'''

    def setUp(self):
        super().setUp()
        self.sway = FakeSway(os.path.join(self.workdir, 'sway-ipc.sock'))
        self.addCleanup(self.sway.close)
        self.session_env = {'SWAYSOCK': self.sway.path}
        self.start_daemon()

    def connection(self):
        self.wait_until(lambda: not self.sway.connections.empty(), 10, 'the daemon to subscribe')
        conn = self.sway.connections.get()
        self.addCleanup(conn.close)
        return conn

    def test_deeply_nested_json(self):
        conn = self.connection()
        nested = b'{"change":"focus","container":{"pid":1,"x":' + b'[' * 200000 + b'}}'
        conn.sendall(FakeSway.frame(0x80000003, nested))
        conn.sendall(FakeSway.focus_event(self.pids[2]))
        self.wait_weights([100, 100, 300])
        self.assertEqual(self.count_in_log('not JSON of a window'), 1)
        self.assertIsNone(self.daemon.poll())

    def test_endless_message_is_refused(self):
        conn = self.connection()
        # a header that promises 1 MiB: refused before any of it is read
        conn.sendall(FakeSway.frame(0x80000003, b'')[:6] + (1 << 20).to_bytes(4, sys.byteorder) +
                     (0x80000003).to_bytes(4, sys.byteorder))
        self.wait_until(lambda: self.sway.accepted >= 2, 10, 'the daemon to drop and reconnect')
        conn2 = self.connection()
        conn2.sendall(FakeSway.focus_event(self.pids[1]))
        self.wait_weights([100, 300, 100])

    def test_flood_of_focus_events(self):
        conn = self.connection()
        flood = b''.join(FakeSway.focus_event(self.pids[i % 2]) for i in range(3000))
        start = time.monotonic()
        conn.sendall(flood + FakeSway.focus_event(self.pids[2]))
        self.wait_weights([100, 100, 300])
        seconds = time.monotonic() - start
        # one boost per 100 ms at most, the last one wins
        boosts = sum(1 for line in self.daemon_log().splitlines() if 'Focus: app-' in line)
        self.assertLessEqual(boosts, seconds * 10 + 3, f'{boosts} boosts in {seconds:.1f} s')
        self.assert_weights_stay([100, 100, 300])


class HostileHyprlandTest(FocusBase):
    '''Hyprland's sockets: their folder, the request rate and the size of lines and replies.'''

    def make_folder(self, mode=0o755):
        self.SIGNATURE = f'v0.39_{os.getpid()}_{abs(hash(self.id())) % 10**6}'
        folder = os.path.join('/tmp', 'hypr', self.SIGNATURE)
        os.makedirs(folder)
        os.chmod(folder, mode)
        self.addCleanup(shutil.rmtree, folder, True)
        self.events = FakeServer(os.path.join(folder, '.socket2.sock'))
        self.requests = SlowHyprlandRequests(os.path.join(folder, '.socket.sock'))
        self.addCleanup(self.events.close)
        self.addCleanup(self.requests.close)
        self.requests.windows = {f'{i:x}': pid for i, pid in enumerate(self.pids, 0xa0)}
        self.session_env = {'HYPRLAND_INSTANCE_SIGNATURE': self.SIGNATURE}

    def event_connection(self):
        self.wait_until(lambda: not self.events.connections.empty(), 10, 'the event socket')
        conn = self.events.connections.get()
        self.addCleanup(conn.close)
        return conn

    def test_folder_others_may_write(self):
        self.make_folder(0o777)
        self.start_daemon()
        self.wait_until(lambda: self.count_in_log('that only we may write') >= 1, 5,
                        'the daemon to refuse the folder')
        self.assertEqual(self.events.accepted, 0)

    def test_one_request_in_flight(self):
        self.make_folder()
        self.start_daemon()
        conn = self.event_connection()
        self.requests.delay = 0.05
        lines = ''.join(f'activewindowv2>>{i % 2 + 0xa0:x}\n' for i in range(200))
        self.requests.active = 'a2'
        conn.sendall((lines + 'activewindowv2>>a2\n').encode())
        self.wait_weights([100, 100, 300])
        self.assertEqual(self.requests.most_at_once, 1)
        self.assertLess(self.requests.accepted, 20)

    def test_endless_line_and_reply(self):
        self.make_folder()
        self.start_daemon()
        conn = self.event_connection()
        conn.sendall(b'activewindow>>' + b'x' * (4 << 20))
        self.wait_until(lambda: self.count_in_log('event line longer than') == 1, 10,
                        'the overlong line to be dropped')
        self.requests.active = 'a1'
        conn.sendall(b'\nactivewindowv2>>a1\n')
        self.wait_weights([100, 300, 100])
        self.requests.raw_reply = b'{"address":"0xa2","pid":1,"x":"' + b'y' * (4 << 20) + b'"}'
        conn.sendall(b'activewindowv2>>a2\n')
        self.wait_until(lambda: self.count_in_log('longer than 65536 bytes; dropped') == 2, 10,
                        'the overlong reply to be dropped')
        self.requests.raw_reply = None
        self.requests.active = 'a2'
        conn.sendall(b'activewindowv2>>a2\n')
        self.wait_weights([100, 100, 300])


class SlowHyprlandRequests(FakeHyprlandRequests):
    '''Answers each request after a delay, each on a thread; counts those open at once.'''

    def __init__(self, path):
        self.delay = 0
        self.open_now = 0
        self.most_at_once = 0
        self.lock = threading.Lock()
        super().__init__(path)

    def handle(self, conn):
        with self.lock:
            self.open_now += 1
            self.most_at_once = max(self.most_at_once, self.open_now)
        threading.Thread(target=self._answer, args=(conn,), daemon=True).start()

    def _answer(self, conn):
        time.sleep(self.delay)     # Hyprland being slow, not a wait for a condition
        try:
            super().handle(_CountedConnection(conn, self))
        except OSError:
            pass

    def closing(self):
        with self.lock:
            self.open_now -= 1


class _CountedConnection:
    '''A request's connection, counted as ended just before it closes: the daemon may open
    its next request as soon as it reads this one's end of file, so counting it after the close
    would see two at once where the daemon had one.'''

    def __init__(self, conn, server):
        self.conn = conn
        self.server = server

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.server.closing()
        self.conn.close()

    def recv(self, size):
        return self.conn.recv(size)

    def sendall(self, data):
        return self.conn.sendall(data)


if __name__ == '__main__':
    sys.exit(h.main())
