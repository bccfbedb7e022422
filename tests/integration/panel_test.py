#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
'''Host tests of the settings panel, resource-control-panel (docs/design.md, "Settings panel").

The host integration harness (rctest_harness.py: private session bus, mock systemd,
real polkitd, the daemon from the build folder), plus an X server (Xvfb) and an
accessibility bus with at-spi2-registryd, both once per test program. The panel runs on
the private buses and the tests drive it the way a screen reader would, through AT-SPI
(pyatspi's Atspi typelib): they find its controls by their accessible names, press them,
and read what it shows; numbers are typed on the keyboard (xdotool). What the panel did
is checked at the far end: the mock systemd's calls and cgroup files, the rule file.

Environment as for integration_test.py, plus RC_PANEL (the built panel),
RC_PANEL_WRAPPER (e.g. valgrind; used by the tests in PanelTest.WRAPPED_TESTS),
RC_PANEL_SCREENSHOT_BUILD_DIR (where the screenshots
go; meson sets it) and RC_PANEL_SCREENSHOT_DIR (a second copy, e.g. docs/).
'''

import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import threading
import time

import gi
gi.require_version('Atspi', '2.0')

import rctest_harness as h  # noqa: E402
from rctest_harness import MIB, RcTestCase, scaled  # noqa: E402

APP = 'app-gnome-org.example.Editor-4711.scope'
APP_ID = 'org.example.Editor'
APP_NAME = 'Test Editor'
PANEL_ID = 'org.example.ResourceControl.Panel'
PANEL_PATH = '/org/example/ResourceControl/Panel'


class Desktop:
    '''Xvfb, an accessibility bus and its registry: one set per test program.'''

    def __init__(self):
        self.procs = []
        self.tmpdir = tempfile.mkdtemp(prefix='rc-panel-desktop-')
        r, w = os.pipe()
        # pylint: disable=consider-using-with
        xvfb = subprocess.Popen(['Xvfb', '-displayfd', str(w), '-screen', '0', '1280x1024x24',
                                 '-nolisten', 'tcp', '-noreset'],
                                pass_fds=[w], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(w)
        self.procs.append(xvfb)
        with os.fdopen(r) as f:
            number = f.readline().strip()
        if not number:
            raise RuntimeError('Xvfb did not start')
        self.display = ':' + number
        bus = subprocess.Popen(['dbus-daemon', '--config-file',
                                '/usr/share/defaults/at-spi2/accessibility.conf',
                                '--nofork', '--print-address=1'],
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.procs.append(bus)
        self.a11y_address = bus.stdout.readline().decode().strip()
        if not self.a11y_address:
            raise RuntimeError('the accessibility bus did not start')
        self.env = {'DISPLAY': self.display, 'AT_SPI_BUS_ADDRESS': self.a11y_address}
        # registryd is what lists the applications on the desktop
        registry = subprocess.Popen(['/usr/libexec/at-spi2-registryd'],
                                    env=dict(os.environ, **self.env),
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.procs.append(registry)
        # this process's libatspi reads the address once, at its first use
        os.environ.update(self.env)

    def close(self):
        for proc in reversed(self.procs):
            h.terminate(proc)
            if proc.stdout is not None:
                proc.stdout.close()
        shutil.rmtree(self.tmpdir, ignore_errors=True)


def atspi():
    from gi.repository import Atspi  # pylint: disable=import-outside-toplevel
    return Atspi


def window_png_pixels(path):
    '''(width, height, [(r, g, b)...]) of a PNG, through ImageMagick's PPM output.'''
    data = subprocess.run(['convert', path, '-depth', '8', 'ppm:-'], capture_output=True,
                          check=True).stdout
    # P6\n<w> <h>\n255\n<data>
    parts = data.split(b'\n', 3)
    width, height = (int(x) for x in parts[1].split())
    raw = parts[3]
    return width, height, [tuple(raw[i:i + 3]) for i in range(0, len(raw) - 2, 3)]


class PanelTestCase(RcTestCase):
    '''The harness's buses, mock systemd and daemon, and the panel on a private X display.'''

    panel_path = os.environ.get('RC_PANEL')
    desktop = None
    # the kernel's files of APP's cgroup beyond the mock's own (memory.events, *.pressure)
    app_files = None

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        if PanelTestCase.desktop is None:
            PanelTestCase.desktop = Desktop()

    def setUp(self):
        super().setUp()
        self.assertTrue(self.panel_path and os.access(self.panel_path, os.X_OK),
                        f'RC_PANEL ({self.panel_path}) is not an executable; run through meson test')
        self.panel = None
        self.panel_log = os.path.join(self.workdir, 'panel.log')
        extra = {'files': self.app_files} if self.app_files else {}
        self.add_app(APP, controllers='cpu io memory pids', pids=[4242], **extra)

    def tearDown(self):
        try:
            if self.panel is not None:
                self.quit_panel()
        finally:
            super().tearDown()

    def _dump_logs(self):
        super()._dump_logs()
        try:
            with open(self.panel_log, encoding='utf-8', errors='replace') as f:
                sys.stderr.write(f'\n----- panel log ({self.panel_log}) -----\n' + f.read())
        except OSError:
            pass

    #
    # the panel process
    #

    def panel_env(self):
        env = dict(self.bus_env, **self.desktop.env)
        env.update({
            'GDK_BACKEND': 'x11',
            'GTK_A11Y': 'atspi',
            'NO_AT_BRIDGE': '0',
            'ADW_DISABLE_PORTAL': '1',
            'GTK_USE_PORTAL': '0',
            'G_DEBUG': 'fatal-criticals',
            'LIBGL_ALWAYS_SOFTWARE': '1',
            'GSK_RENDERER': 'cairo',
            'GDK_DEBUG': 'gl-disable',
            # GTK's settings schemas and the icon theme, after the test's desktop files
            'XDG_DATA_DIRS': env['XDG_DATA_DIRS'] + ':/usr/local/share:/usr/share',
        })
        # An ASan build (meson test --setup=sanitizers): a memory error aborts the
        # panel, and a leak at exit makes its exit status non-zero; either fails
        # the test (quit_panel). Library caches kept to the end on purpose are
        # suppressed in tests/panel-lsan.supp.
        if 'ASAN_OPTIONS' in os.environ:
            env['ASAN_OPTIONS'] = 'detect_leaks=1:abort_on_error=1:halt_on_error=1'
            env['LSAN_OPTIONS'] = 'suppressions=' + os.path.join(h.SOURCE_ROOT, 'tests', 'panel-lsan.supp')
        return env

    # Under RC_PANEL_WRAPPER (valgrind in the memcheck setup) a panel test takes
    # minutes: these run the panel under it, covering every page, both dialogs and
    # the daemon going and coming back; the others run it plain (the daemon is
    # under valgrind in every test of that setup).
    WRAPPED_TESTS = {'test_high_priority_writes_cpu_weight_300',
                     'test_memory_limit_would_kill_then_limit_anyway',
                     'test_daemon_gone_and_back', 'test_slices_page'}

    def start_panel(self, wait_for=APP_NAME):
        wrapper = shlex.split(os.environ.get('RC_PANEL_WRAPPER', ''))
        if self._testMethodName not in self.WRAPPED_TESTS:
            wrapper = []
        with open(self.panel_log, 'ab') as log:
            # pylint: disable=consider-using-with
            self.panel = subprocess.Popen(wrapper + [self.panel_path], env=self.panel_env(),
                                          stdout=log, stderr=subprocess.STDOUT)
        self.app_root = self.wait_until(self._find_panel_app, timeout=30,
                                        message='the panel on the accessibility bus')
        if wait_for is not None:
            self.wait_shown(wait_for, timeout=20)

    def _find_panel_app(self):
        self.assertIsNone(self.panel.poll(), 'the panel exited')
        desktop = atspi().get_desktop(0)
        for i in range(desktop.get_child_count()):
            app = desktop.get_child_at_index(i)
            try:
                if app is not None and app.get_process_id() == self.panel.pid:
                    return app
            except Exception:  # pylint: disable=broad-except
                continue
        return None

    def panel_unique_name(self):
        return self.conn.call_sync('org.freedesktop.DBus', '/org/freedesktop/DBus',
                                   'org.freedesktop.DBus', 'GetNameOwner',
                                   h.GLib.Variant('(s)', (PANEL_ID,)), None,
                                   h.Gio.DBusCallFlags.NONE, -1, None).unpack()[0]

    def quit_panel(self):
        '''app.quit through GApplication's action interface: the panel must exit 0.'''
        proc, self.panel = self.panel, None
        rc = proc.poll()
        self.assertIsNone(rc, f'the panel died during the test (exit status {rc})')
        self.conn.call_sync(PANEL_ID, PANEL_PATH, 'org.gtk.Actions', 'Activate',
                            h.GLib.Variant('(sava{sv})', ('quit', [], {})), None,
                            h.Gio.DBusCallFlags.NONE, -1, None)
        try:
            rc = proc.wait(timeout=scaled(20))
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            self.fail('the panel did not quit within 20 s of app.quit')
        if rc != 0:
            with open(self.panel_log, encoding='utf-8', errors='replace') as f:
                sys.stderr.write(f'\n----- panel log ({self.panel_log}) -----\n' + f.read())
        self.assertEqual(rc, 0, f'the panel exited with status {rc}')

    def xid(self):
        '''The X window of the panel (its toplevel).'''
        out = subprocess.run(['xdotool', 'search', '--onlyvisible', '--pid', str(self.panel.pid)],
                             env=dict(os.environ, **self.desktop.env), capture_output=True,
                             text=True, check=False).stdout.split()
        if not out:
            out = subprocess.run(['xdotool', 'search', '--pid', str(self.panel.pid)],
                                 env=dict(os.environ, **self.desktop.env), capture_output=True,
                                 text=True, check=False).stdout.split()
        self.assertTrue(out, 'no X window of the panel')
        return out[-1]

    def xdotool(self, *args):
        subprocess.run(['xdotool'] + list(args), env=dict(os.environ, **self.desktop.env),
                       check=True, timeout=scaled(10))

    #
    # AT-SPI
    #

    def walk(self, root=None):
        '''Every accessible below root (the panel), depth first. GTK 4.8 marks only
        windows SHOWING; the panel leaves hidden pages out of the tree itself.'''
        stack = [root or self.app_root]
        while stack:
            node = stack.pop()
            if node is None:
                continue
            try:
                node.clear_cache()
                yield node
                n = node.get_child_count()
                stack.extend(node.get_child_at_index(i) for i in reversed(range(n)))
            except Exception:  # pylint: disable=broad-except
                # a widget that went away while we looked
                continue

    def names(self, role=None):
        Atspi = atspi()
        out = []
        for node in self.walk():
            try:
                if role is None or node.get_role() == getattr(Atspi.Role, role):
                    out.append(node.get_name())
            except Exception:  # pylint: disable=broad-except
                continue
        return out

    def find(self, name, role=None):
        Atspi = atspi()
        for node in self.walk():
            try:
                if (node.get_name() == name if not hasattr(name, 'match') else name.match(node.get_name())) \
                        and (role is None or node.get_role() == getattr(Atspi.Role, role)):
                    return node
            except Exception:  # pylint: disable=broad-except
                continue
        return None

    def wait_find(self, name, role=None, timeout=10):
        try:
            return self.wait_until(lambda: self.find(name, role), timeout, f'{role or "widget"} {name!r}')
        except AssertionError:
            sys.stderr.write('----- what the panel shows (AT-SPI) -----\n' + self.dump_tree() + '\n')
            raise

    def dump_tree(self, root=None, depth=0):
        '''The accessible tree as text: role, name, states that matter.'''
        Atspi = atspi()
        node = root or self.app_root
        lines = []
        try:
            node.clear_cache()
            states = node.get_state_set()
            flags = [s for s in ('SHOWING', 'VISIBLE', 'CHECKED', 'PRESSED', 'SENSITIVE', 'FOCUSED')
                     if states.contains(getattr(Atspi.StateType, s))]
            lines.append(f'{"  " * depth}{node.get_role_name()} {node.get_name()!r} {" ".join(flags)}')
            for i in range(node.get_child_count()):
                lines.append(self.dump_tree(node.get_child_at_index(i), depth + 1))
        except Exception as e:  # pylint: disable=broad-except
            lines.append(f'{"  " * depth}? {e}')
        return '\n'.join(line for line in lines if line)

    def wait_shown(self, name, role=None, timeout=10):
        return self.wait_find(name, role, timeout)

    def wait_gone(self, name, role=None, timeout=10):
        self.wait_until(lambda: self.find(name, role) is None, timeout, f'{name!r} to go away')

    def press(self, name, role=None):
        '''The first action (click, activate) of the widget with that accessible name.'''
        Atspi = atspi()
        node = self.wait_find(name, role)
        self.assertGreater(Atspi.Action.get_n_actions(node), 0, f'{name!r} has no AT-SPI action')
        self.assertTrue(Atspi.Action.do_action(node, 0), f'{name!r}: the action failed')
        return node

    def states(self, node):
        node.clear_cache()
        return node.get_state_set()

    def type_into(self, name, text):
        '''Focus the entry with that accessible name and type text, then Enter.'''
        Atspi = atspi()
        node = self.wait_find(name, 'SPIN_BUTTON')
        # The click goes to where the entry is: wait until its place is
        # settled (a page still being laid out moves it; GTK 4 does not set
        # SHOWING on a spin button, so its extents are what counts).
        last = []

        def settled():
            node.clear_cache()
            e = Atspi.Component.get_extents(node, Atspi.CoordType.WINDOW)
            now = (e.x, e.y, e.width, e.height)
            was, last[:] = list(last), [now]
            time.sleep(0.05)
            return e if e.width > 0 and was == [now] else None
        ext = self.wait_until(settled, message=f'{name!r} shown in its place')
        xid = self.xid()
        self.xdotool('mousemove', '--window', xid, str(ext.x + ext.width // 3), str(ext.y + ext.height // 2),
                     'click', '--repeat', '3', '1')
        self.xdotool('key', '--window', xid, 'ctrl+a')
        self.xdotool('type', '--window', xid, text)
        self.xdotool('key', '--window', xid, 'Return')

    def open_app_page(self, name=APP_NAME):
        self.press('Open ' + name)
        self.wait_shown('Priority High', 'PUSH_BUTTON')

    #
    # screenshots
    #

    def screenshot(self, basename):
        '''The panel's window as a PNG in the build folder (and RC_PANEL_SCREENSHOT_DIR);
        fails when the image is blank.'''
        path = os.path.join(self.workdir, basename)
        self.iterate(0.5)   # the last frame drawn
        subprocess.run(['import', '-window', self.xid(), path], env=dict(os.environ, **self.desktop.env),
                       check=True, timeout=scaled(30))
        width, height, pixels = window_png_pixels(path)
        self.assertGreater(width * height, 200 * 200, f'{path}: tiny image {width}x{height}')
        counts = {}
        for p in pixels:
            counts[p] = counts.get(p, 0) + 1
        background, most = max(counts.items(), key=lambda kv: kv[1])
        differ = len(pixels) - most
        # text, icons, rows and buttons: a real window has thousands of such pixels
        self.assertGreater(differ, len(pixels) // 50,
                           f'{path} looks blank: only {differ} of {len(pixels)} pixels differ from '
                           f'the background {background}')
        self.assertGreater(len(counts), 16, f'{path} looks blank: {len(counts)} colours')
        for var in ('RC_PANEL_SCREENSHOT_BUILD_DIR', 'RC_PANEL_SCREENSHOT_DIR'):
            if os.environ.get(var):
                self.copy_out(path, os.environ[var])
        return path

    def calls_to_daemon(self, seconds):
        '''Method calls the panel sent to the daemon during `seconds`, from a bus monitor.'''
        sender = self.panel_unique_name()
        # pylint: disable=consider-using-with
        monitor = subprocess.Popen(['dbus-monitor', '--address', self.bus_address,
                                    f"type='method_call',sender='{sender}'"],
                                   stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        try:
            time.sleep(seconds)
        finally:
            monitor.terminate()
            out, _ = monitor.communicate(timeout=10)
        calls = re.findall(r'^method call .*? destination=(\S+) .*? member=(\S+)$', out, re.M)
        daemon_owner = self.conn.call_sync('org.freedesktop.DBus', '/org/freedesktop/DBus',
                                           'org.freedesktop.DBus', 'GetNameOwner',
                                           h.GLib.Variant('(s)', (h.RC_NAME,)), None,
                                           h.Gio.DBusCallFlags.NONE, -1, None).unpack()[0]
        return [member for dest, member in calls if dest in (h.RC_NAME, daemon_owner)]

    def context_switches(self):
        '''{thread id: voluntary + involuntary context switches} of the panel.'''
        counts = {}
        for tid in os.listdir(f'/proc/{self.panel.pid}/task'):
            try:
                with open(f'/proc/{self.panel.pid}/task/{tid}/status', encoding='ascii') as f:
                    counts[tid] = sum(int(line.split()[1]) for line in f
                                      if line.startswith(('voluntary_ctxt_switches',
                                                          'nonvoluntary_ctxt_switches')))
            except OSError:
                pass
        return counts

    @staticmethod
    def woke(before, after):
        '''Wake-ups between two context_switches(): a thread that started counts all of
        its own, one that ended (it ran to end) at least one.'''
        return (sum(n - before.get(tid, 0) for tid, n in after.items()) +
                len(set(before) - set(after)))


class PanelTest(PanelTestCase):

    def test_list_matches_list_apps(self):
        self.add_app('app-org.example.Real@a1b2.service')
        self.add_app('app-gnome-org.example.Multi-1.scope')
        self.add_app('app-gnome-org.example.Multi-2.scope')
        self.start_panel()
        records = self.list_apps()
        want = {}
        for r in records:
            want.setdefault(r['Name'], []).append(r['Unit'])
        self.assertEqual(set(want), {APP_NAME, 'The Real App', 'Multi Window'})
        for name, units in want.items():
            self.wait_shown(name, 'LABEL')
        # the status line: focus source, power state, apps held for audio (none here)
        self.wait_shown(re.compile(r'^Focus: \w+ · Power profile: none, on mains power · '
                                   r'Held for audio: none$'), 'LABEL')
        # one row per app, with its instance count
        self.wait_shown(re.compile(r'^2 instances · '), 'LABEL')
        self.assertEqual(len([n for n in self.names('LABEL') if re.match(r'^\d+ instances? · ', n)]), 3)
        self.assertEqual(sorted(n for n in self.names('PUSH_BUTTON') if n.startswith('Open ')),
                         sorted('Open ' + n for n in want))
        # CPU use from CPUUsageNSec deltas: the mock's cgroups use 35 % and 10 % of a CPU,
        # their cpu.stat written every 0.1 s (apart from the slow AT-SPI polling below)
        start = time.monotonic()
        busy = {APP: 0.35, 'app-gnome-org.example.Multi-1.scope': 0.10}
        stop = threading.Event()
        dirs = {unit: self.cgroup_dir(unit) for unit in busy}

        def burn():
            while not stop.wait(0.1):
                for unit, share in busy.items():
                    usec = 1000000 + int((time.monotonic() - start) * share * 1000000)
                    # a whole file at every moment, in place as the kernel's (the daemon
                    # keeps it open and may read it at any time): one write of a fixed length
                    fd = os.open(os.path.join(dirs[unit], 'cpu.stat'), os.O_WRONLY)
                    try:
                        os.pwrite(fd, f'usage_usec {usec:015d}\nuser_usec 0\nsystem_usec 0\n'
                                  .encode(), 0)
                    finally:
                        os.close(fd)
        burner = threading.Thread(target=burn, daemon=True)
        burner.start()
        self.addCleanup(burner.join)
        self.addCleanup(stop.set)

        def tick():
            labels = [n for n in self.names('LABEL') if re.match(r'^\d+ instances? · CPU ', n)]
            return self.find(re.compile(r'^1 instance · CPU ([2-4][0-9]) % · '), 'LABEL') and \
                self.find(re.compile(r'^2 instances · CPU ([4-9]|1[0-9]) % · '), 'LABEL') and \
                time.monotonic() - start > 7 and labels
        labels = self.wait_until(tick, timeout=30, message='CPU percentages near 35 % and 10 % (20-49 %, 4-19 %)')
        # sorted by CPU: the busiest app first
        self.assertRegex(labels[0], r'^1 instance · CPU ([2-4][0-9]) % · ')
        self.assertRegex(labels[1], r'^2 instances · ')
        self.assertRegex(labels[2], r'^1 instance · CPU 0 % · ')
        self.screenshot('panel-apps.png')
        # sorted by name
        self.press('Sort by name', 'PUSH_BUTTON')
        self.wait_until(lambda: [n for n in self.names('LABEL') if n in want] ==
                        ['Multi Window', 'Test Editor', 'The Real App'], message='the list sorted by name')

    def test_high_priority_writes_cpu_weight_300(self):
        self.start_panel()
        self.open_app_page()
        self.wait_shown('Now: Normal (100)', 'LABEL')
        self.clear_systemd_calls()
        self.press('Priority High', 'PUSH_BUTTON')
        self.wait_until(lambda: self.systemd_calls('SetUnitProperties'), message='SetUnitProperties')
        calls = self.systemd_calls('SetUnitProperties')
        self.assertEqual([(c[0], dict(c[2])) for c in calls], [(APP, {'CPUWeight': 300})])
        self.assertEqual(self.cgroup_file(APP, 'cpu.weight'), '300')
        # what the daemon then reports (AppChanged), not what was pressed
        self.wait_shown('Now: High (300)', 'LABEL')
        self.screenshot('panel-app-page.png')

    def test_custom_weight_typed(self):
        self.start_panel()
        self.open_app_page()
        self.press('Priority Custom', 'PUSH_BUTTON')
        self.clear_systemd_calls()
        self.type_into('Custom weight', '250')
        self.wait_until(lambda: self.systemd_calls('SetUnitProperties'), message='SetUnitProperties')
        self.assertEqual(dict(self.systemd_calls('SetUnitProperties')[-1][2]), {'CPUWeight': 250})
        self.wait_shown('Now: Custom (250)', 'LABEL')

    def test_freeze_and_resume(self):
        self.start_panel()
        self.assertIsNone(self.find('Frozen', 'LABEL'))
        self.open_app_page()
        self.wait_shown('Running', 'LABEL')
        self.press('Freeze', 'PUSH_BUTTON')
        self.wait_until(lambda: self.systemd_calls('FreezeUnit'), message='FreezeUnit')
        self.assertEqual(self.systemd_calls('FreezeUnit'), [[APP]])
        self.assertIn('frozen 1', self.cgroup_file(APP, 'cgroup.events'))
        self.wait_shown('Frozen', 'LABEL')          # the page's state line
        self.wait_shown('Resume', 'PUSH_BUTTON')
        # the badge in the list (the app page has left the accessible tree)
        self.press('Back', 'PUSH_BUTTON')
        self.wait_gone('Resume', 'PUSH_BUTTON')
        self.wait_shown('Frozen', 'LABEL')
        self.open_app_page()
        self.press('Resume', 'PUSH_BUTTON')
        self.wait_until(lambda: self.systemd_calls('ThawUnit'), message='ThawUnit')
        self.assertEqual(self.systemd_calls('ThawUnit'), [[APP]])
        self.assertIn('frozen 0', self.cgroup_file(APP, 'cgroup.events'))
        self.wait_shown('Running', 'LABEL')
        self.wait_shown('Freeze', 'PUSH_BUTTON')
        self.press('Back', 'PUSH_BUTTON')
        self.wait_gone('Freeze', 'PUSH_BUTTON')
        self.wait_shown(APP_NAME, 'LABEL')
        self.assertIsNone(self.find('Frozen', 'LABEL'))

    def test_memory_limit_would_kill_then_limit_anyway(self):
        self.mock('SetMemoryCurrent', (APP, 200 * MIB), '(st)')
        expected = self.assert_rc_error('WouldKill', 'SetMemoryLimit', (APP_ID, 100 * MIB), '(st)')
        self.start_panel()
        self.open_app_page()
        self.clear_systemd_calls()
        self.type_into('Memory limit in MiB', '100')
        # the daemon's own words, and nothing changed
        self.wait_shown(expected, 'LABEL')
        self.assertEqual(self.systemd_calls('SetUnitProperties'), [])
        self.assertEqual(self.cgroup_file(APP, 'memory.max'), 'max')
        self.press('Limit anyway', 'PUSH_BUTTON')
        self.wait_until(lambda: self.systemd_calls('SetUnitProperties'), message='SetUnitProperties')
        self.assertEqual(dict(self.systemd_calls('SetUnitProperties')[-1][2]),
                         {'MemoryMax': 100 * MIB, 'MemoryHigh': 100 * MIB - 100 * MIB // 8})
        self.assertEqual(self.cgroup_file(APP, 'memory.max'), str(100 * MIB))
        self.wait_gone(expected, 'LABEL')
        self.wait_shown(re.compile(r'.*Memory 200\.0\xa0MiB of 100\.0\xa0MiB$'), 'LABEL')

    def test_keep_settings_creates_the_rule(self):
        self.start_panel()
        self.open_app_page()
        self.press('Priority High', 'PUSH_BUTTON')
        self.wait_shown('Now: High (300)', 'LABEL')
        self.press('Keep these settings for this app', 'PUSH_BUTTON')
        rule_file = os.path.join(self.user_rules_dir, '50-resource-control.conf')
        self.wait_until(lambda: os.path.exists(rule_file), message=rule_file)
        with open(rule_file, encoding='utf-8') as f:
            text = f.read()
        self.assertRegex(text, r'(?m)^\[org\.example\.Editor\]$')
        self.assertRegex(text, r'(?m)^CPUWeight=300$')
        # the file is written before the daemon reads it again and answers the panel's SetRule
        self.wait_until(lambda: APP_ID in self.list_rules_call(), message='the rule in ListRules')
        self.assertEqual(self.list_rules_call()[APP_ID], {'CPUWeight': 300})
        # the rules page lists it
        self.press('Back', 'PUSH_BUTTON')
        self.press('Rules')
        self.wait_shown('Remove rule for org.example.Editor', 'PUSH_BUTTON')
        self.wait_shown('CPUWeight 300', 'LABEL')
        # and removes it
        self.press('Remove rule for org.example.Editor', 'PUSH_BUTTON')
        self.wait_shown('No rules', 'LABEL')
        self.assertNotIn(APP_ID, self.list_rules_call())
        with open(rule_file, encoding='utf-8') as f:
            self.assertNotRegex(f.read(), r'(?m)^\[org\.example\.Editor\]$')

    def test_slices_page(self):
        self.start_panel()
        # tall enough for all three slices: the test clicks into their fields
        self.xdotool('windowsize', self.xid(), '720', '1000')
        self.press('Slices')
        for name in ('session.slice', 'app.slice', 'background.slice'):
            self.wait_shown(name, 'LABEL')
        self.wait_shown(re.compile(r'^Memory 200\.0\xa0MiB of no limit · \d+ tasks · CPU weight 100$'), 'LABEL')
        self.clear_systemd_calls()
        self.type_into('CPU weight of background.slice', '50')
        self.wait_until(lambda: self.systemd_calls('SetUnitProperties'), message='SetUnitProperties')
        self.assertEqual([(c[0], dict(c[2])) for c in self.systemd_calls('SetUnitProperties')],
                         [('background.slice', {'CPUWeight': 50})])
        uid = os.getuid()
        with open(os.path.join(self.cgroup_root, 'user.slice', f'user-{uid}.slice', f'user@{uid}.service',
                               'background.slice', 'cpu.weight'), encoding='ascii') as f:
            self.assertEqual(f.read().strip(), '50')
        # read back from ListSlices
        self.wait_shown(re.compile(r'^Memory .* CPU weight 50$'), 'LABEL')
        # a cap below the slice's use: the daemon's WouldKill message on the page
        expected = self.assert_rc_error('WouldKill', 'SetSliceLimits',
                                        ('app.slice', {'MemoryMax': h.t(64 * MIB)}, {}), '(sa{sv}a{sv})')
        self.type_into('Memory limit in MiB of app.slice', '64')
        self.wait_shown('Could not set the slice limits: ' + expected, 'LABEL')

    def list_rules_call(self):
        return self.rc_call('ListRules')[0]

    def test_apps_appear_and_disappear(self):
        self.start_panel()
        unit = 'app-org.example.Real@c3d4.service'
        self.add_app(unit)
        self.wait_shown('The Real App', 'LABEL')
        self.stop_app(unit)
        self.wait_gone('The Real App', 'LABEL')
        self.wait_shown(APP_NAME, 'LABEL')

    def test_names_are_text_not_markup(self):
        '''An app's name from its desktop file is shown as it is written, & and < too: in
        the list and as its page's heading (libadwaita reads those as Pango markup unless
        told otherwise, and shows nothing for a string that does not parse).'''
        name = 'Tom & Jerry <beta> <b>bold</b> &amp;'
        h._write(os.path.join(self.applications_dir, 'org.example.Tom.desktop'),
                 f'[Desktop Entry]\nType=Application\nName={name}\nExec=/bin/true\n')
        unit = 'app-gnome-org.example.Tom-7.scope'
        self.add_app(unit)
        self.assertEqual(self.get_one(unit)['Name'], name)
        self.start_panel(wait_for=None)
        self.wait_shown(name, 'LABEL')
        self.open_app_page(name)
        # the window's title and the page's heading, the AppID below it
        self.wait_shown('org.example.Tom', 'LABEL')
        self.wait_until(lambda: self.names('LABEL').count(name) == 2, message='the name twice')

    def test_polkit_deny_shows_the_daemons_message(self):
        self.set_rules('deny-set-weight')
        expected = self.assert_rc_error('NotAuthorized', 'SetWeight', (APP_ID, 300), '(st)')
        self.start_panel()
        self.open_app_page()
        self.clear_systemd_calls()
        self.press('Priority High', 'PUSH_BUTTON')
        self.wait_shown('Could not set the priority: ' + expected, 'LABEL')
        self.assertEqual(self.systemd_calls('SetUnitProperties'), [])
        self.assertEqual(self.cgroup_file(APP, 'cpu.weight'), '100')

    def test_daemon_gone_and_back(self):
        self.start_panel()
        self.daemon.kill()
        self.daemon.wait()
        self.daemon = None
        self.wait_shown('Resource control is not running', timeout=15)
        self.assertIsNone(self.find(APP_NAME, 'LABEL'))
        self.start_daemon()
        self.wait_shown(APP_NAME, 'LABEL', timeout=15)
        self.assertIsNone(self.find('Resource control is not running'))

    def test_hidden_window_makes_no_calls(self):
        self.start_panel()
        before = self.context_switches()
        visible = self.calls_to_daemon(scaled(6))
        woke_visible = self.woke(before, self.context_switches())
        self.assertGreaterEqual(visible.count('ListAppRecords'), 2,
                                f'shown, the panel refreshes every 2 s; it called {visible}')
        xid = self.xid()
        # unmapped by someone else: GDK takes that for "minimised"
        self.xdotool('windowunmap', xid)
        time.sleep(1)
        before = self.context_switches()
        hidden = self.calls_to_daemon(6)
        after = self.context_switches()
        woke_hidden = self.woke(before, after)
        print(f'context switches of the panel in 6 s: shown {woke_visible}, hidden {woke_hidden}',
              file=sys.stderr)
        self.assertEqual(hidden, [], 'hidden, the panel still called the daemon')
        # flat: shown, the timer, the ListAppRecords round trips and the redraws wake it
        # (about 15 times in 6 s); hidden, nothing should (0 seen; a few allowed)
        self.assertGreaterEqual(woke_visible, 6, 'shown, the panel hardly woke up: the count is broken')
        self.assertLessEqual(woke_hidden, 3, f'hidden, the panel woke up {woke_hidden} times in 6 s')
        self.xdotool('windowmap', xid)
        shown = self.calls_to_daemon(scaled(5))
        self.assertIn('ListAppRecords', shown, 'shown again, the panel did not refresh')


if __name__ == '__main__':
    sys.exit(h.main())
