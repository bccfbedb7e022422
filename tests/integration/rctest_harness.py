# SPDX-License-Identifier: LGPL-2.1-or-later
'''Harness for resource-controld's host integration tests (docs/design.md, "Tests", tier 2).

Started as root (CI), the test program splits in two:

* a root supervisor: creates the test user, starts a private system bus and a real
  polkitd in its own mount namespace that sees only the project's .policy (plus one
  test-only action used to tell when a rules rewrite has been loaded) and the test's
  .rules folder; it stops, pauses and restarts polkitd when a test asks, and runs
  commands as another user;
* the tests themselves, re-executed as the unprivileged test user: they start a
  private session bus, the mock systemd user manager (mock_systemd.py) with its fake
  cgroupfs, and the daemon from the build folder, all as that same user, and talk to
  the daemon as that user, the way a desktop session would.

Environment: RC_DAEMON, RC_CLIENT (built binaries), RC_POLICY_DIR (folder holding the
.policy files), RC_DAEMON_WRAPPER (e.g. "valgrind --error-exitcode=1"),
RC_TEST_TIMEOUT_MULTIPLIER (for slow setups).

This file holds RcTestCase, the test side's world; the rest lives beside it and is
re-exported here, so tests and bench/ use rctest_harness for all of it:
rcutil.py (constants, timeouts, file, cgroup and process helpers), rcroot.py (the root
supervisor and main()) and rcdbus.py (GVariant, D-Bus and polkit helpers).
'''

import json
import os
import shlex
import signal
import subprocess
import sys
import tempfile
import time
import unittest

import gi
gi.require_version('Gio', '2.0')
gi.require_version('GLib', '2.0')
from gi.repository import Gio, GLib  # noqa: E402 pylint: disable=wrong-import-position

# What moved out of this file stays reachable from here: the tests and bench/ use
# h.NAME (and bench/ replaces h._write, which RcTestCase looks up here).
from rcnames import (RC_NAME, RC_PATH, RC_IFACE, RC_ERROR, SYSTEMD_NAME, SYSTEMD_PATH,  # noqa: E402,F401
                     POLKIT_NAME, ACTION_PREFIX, UINT64_MAX)
from rcutil import (TEST_USER, FOREIGN_USER, HERE, SOURCE_ROOT, MOCK_IFACE,  # noqa: E402,F401
                    DBUSMOCK_IFACE, GENERATION_ACTION, MIB, HANG, TIMEOUT_MULTIPLIER, scaled,
                    _write_existing, _remove_cgroup, own_cgroup, _alive, _empty_cgroup, _write,
                    _write_in_place, terminate)
from rcroot import (_ensure_user, SYSTEM_BUS_CONF, RootSupervisor, RootControl,  # noqa: E402,F401
                    root_control, main)
from rcdbus import (DESKTOP_FILES, RULES_PRELUDE, RULES, PendingCall, t, u, b, s,  # noqa: E402,F401
                    strv, dbus_error_name, AGENT_XML, SilentAgent, close_quietly,
                    dbus_error_message, iterate)


class RcTestCase(unittest.TestCase):  # pylint: disable=too-many-public-methods
    '''Private session bus + mock systemd + the daemon, per test.'''

    rules = 'allow-all'
    cgroup_layout = 'unified'
    start_daemon_in_setup = True

    daemon_path = os.environ.get('RC_DAEMON')
    client_path = os.environ.get('RC_CLIENT')

    def setUp(self):
        self.topdir = os.environ.get('RC_TEST_TOPDIR', '')
        # a test run by hand with an empty or relative folder would leave its files in the
        # current folder (the source tree): only the supervisor's own folder is taken
        if not os.path.isabs(self.topdir) or not os.path.isdir(self.topdir):
            raise RuntimeError(f'RC_TEST_TOPDIR must be an existing absolute folder, not {self.topdir!r}: '
                               'run the tests through meson test or the script itself as root, '
                               'which makes one and removes it')
        name = self.id().rsplit('.', 1)[-1][:40]
        self.workdir = tempfile.mkdtemp(prefix=name + '-', dir=self.topdir)
        os.chmod(self.workdir, 0o755)
        self.cgroup_root = os.path.join(self.workdir, 'cgroup')
        self.signals = []
        self.daemon = None
        self.daemon_logs = []
        self._cgroup_processes = []
        self._stopped_polkitd = False
        self._paused_polkitd = False

        self._make_xdg_dirs()
        self.set_rules(self.rules)
        self._start_session_bus()
        self._start_mock()
        self.conn.signal_subscribe(None, RC_IFACE, None, RC_PATH, None,
                                   Gio.DBusSignalFlags.NONE, self._on_signal)
        if self.start_daemon_in_setup:
            self.start_daemon()

    def tearDown(self):
        try:
            self._restore_polkitd()
            if self.daemon is not None:
                self.stop_daemon()
        finally:
            if self._failed():
                self._dump_logs()

    #
    # environment
    #

    def _make_xdg_dirs(self):
        share = os.path.join(self.workdir, 'share')
        self.applications_dir = os.path.join(share, 'applications')
        os.makedirs(self.applications_dir)
        for filename, keys in DESKTOP_FILES.items():
            _write(os.path.join(self.applications_dir, filename),
                   '[Desktop Entry]\nType=Application\nExec=/bin/true\n' +
                   ''.join(f'{k}={v}\n' for k, v in keys.items()))
        self.home = os.path.join(self.workdir, 'home')
        os.makedirs(os.path.join(self.home, '.local', 'share'))
        os.makedirs(os.path.join(self.home, '.config'))
        self.runtime_dir = os.path.join(self.workdir, 'runtime')
        os.makedirs(self.runtime_dir, mode=0o700)
        # the daemon's "system" rules folder (/etc/resource-control/rules.d installed)
        self.system_rules_dir = os.path.join(self.workdir, 'system-rules')
        os.makedirs(self.system_rules_dir)
        self.user_rules_dir = os.path.join(self.home, '.config', 'resource-control', 'rules.d')
        self.xdg_env = {
            'HOME': self.home,
            'XDG_DATA_HOME': os.path.join(self.home, '.local', 'share'),
            'XDG_CONFIG_HOME': os.path.join(self.home, '.config'),
            'XDG_DATA_DIRS': share,
            'XDG_CONFIG_DIRS': os.path.join(self.workdir, 'etc-xdg'),
            'XDG_RUNTIME_DIR': self.runtime_dir,
            'GSETTINGS_BACKEND': 'memory',
            'GIO_USE_VFS': 'local',
            'NO_AT_BRIDGE': '1',
            'LANG': 'C.UTF-8',
            'PATH': '/usr/sbin:/usr/bin:/sbin:/bin',
        }

    def session_services_dir(self):
        return os.path.join(self.workdir, 'session-services')

    def _start_session_bus(self):
        socket_path = os.path.join(self.workdir, 'session_bus_socket')
        conf = os.path.join(self.workdir, 'session.conf')
        # D-Bus activation of what a test puts there (the panel's test)
        services = self.session_services_dir()
        os.makedirs(services, exist_ok=True)
        # allow any user so that a foreign caller can reach the daemon and be refused
        _write(conf, f'''<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-BUS Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:path={socket_path}</listen>
  <auth>EXTERNAL</auth>
  <servicedir>{services}</servicedir>
  <policy context="default">
    <allow user="*"/>
    <allow own="*"/>
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
  </policy>
</busconfig>
''')
        # pylint: disable=consider-using-with
        self.bus = subprocess.Popen(['dbus-daemon', '--config-file', conf, '--nofork',
                                     '--print-address=1'],
                                    stdout=subprocess.PIPE, env=self.xdg_env)
        self.addCleanup(self.bus.stdout.close)
        self.addCleanup(self._terminate, self.bus)
        self.bus_address = self.bus.stdout.readline().decode().strip()
        self.assertTrue(self.bus_address, 'the session bus did not start')
        os.chmod(socket_path, 0o777)
        self.conn = Gio.DBusConnection.new_for_address_sync(
            self.bus_address,
            Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT |
            Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION, None, None)
        self.addCleanup(close_quietly, self.conn)
        self.bus_env = dict(self.xdg_env,
                            DBUS_SESSION_BUS_ADDRESS=self.bus_address,
                            DBUS_SYSTEM_BUS_ADDRESS=os.environ['DBUS_SYSTEM_BUS_ADDRESS'])

    def _start_mock(self):
        self.mock_log = os.path.join(self.workdir, 'mock-systemd.log')
        params = json.dumps({'cgroup_root': self.cgroup_root,
                             'runtime_dir': self.runtime_dir,
                             'cgroup_layout': self.cgroup_layout,
                             'default_tasks_max': 4915})
        with open(self.mock_log + '.err', 'wb') as err:
            # pylint: disable=consider-using-with
            self.mock_proc = subprocess.Popen(
                [sys.executable, '-B', '-m', 'dbusmock', '--session', '--template',
                 os.path.join(HERE, 'mock_systemd.py'), '-l', self.mock_log, '-p', params],
                env=self.bus_env, stdout=subprocess.DEVNULL, stderr=err)
        self.addCleanup(self._terminate, self.mock_proc)
        self.wait_for_name(SYSTEMD_NAME, self.mock_proc, 'mock systemd')
        # dbusmock owns the name before it loads the template (and makes the fake
        # cgroupfs); a reply to a template method means loading is done
        self.mock('CountHung')

    _terminate = staticmethod(terminate)

    def daemon_env(self):
        return dict(self.bus_env,
                    G_DEBUG='fatal-criticals',
                    RC_CGROUP_ROOT=self.cgroup_root,
                    # Launch with Kind "scope" runs the app through it (the mock runs it)
                    RESOURCE_CONTROL_SCOPE_HELPER=os.path.join(
                        os.path.dirname(os.path.abspath(self.daemon_path or '.')),
                        'resource-control-scope-helper'),
                    RESOURCE_CONTROL_SYSTEM_RULES_DIR=self.system_rules_dir,
                    G_MESSAGES_DEBUG='all')

    def start_daemon(self, args=('--verbose',), wait=True, listed=True, nofile=None, test_hooks=True):
        '''Start resource-controld on the private buses; wait until it owns its name
        and (listed) has read the first listing. nofile: its open file limit. test_hooks:
        with --test-hooks, which makes it honour daemon_env()'s RC_CGROUP_ROOT and the like.'''
        self.assertTrue(self.daemon_path and os.access(self.daemon_path, os.X_OK),
                        f'RC_DAEMON ({self.daemon_path}) is not an executable; '
                        'run through meson test or set RC_DAEMON')
        log_path = os.path.join(self.workdir, f'daemon-{len(self.daemon_logs)}.log')
        self.daemon_logs.append(log_path)
        wrapper = shlex.split(os.environ.get('RC_DAEMON_WRAPPER', ''))
        if nofile is not None:
            wrapper = ['prlimit', f'--nofile={nofile}:{nofile}', '--'] + wrapper
        preexec = None
        delegated = os.environ.get('RC_TEST_CGROUP_DIR')
        if delegated:
            # the daemon gets a real cgroup of its own, apart from its callers
            cg = os.path.join(delegated, f'daemon-{os.getpid()}-{len(self.daemon_logs)}')
            os.makedirs(cg, exist_ok=True)

            def preexec():
                _write_existing(os.path.join(cg, 'cgroup.procs'), '0')
        with open(log_path, 'wb') as log:
            # pylint: disable=consider-using-with
            hooks = ['--test-hooks'] if test_hooks else []
            proc = subprocess.Popen(wrapper + [self.daemon_path] + hooks + list(args),
                                    env=self.daemon_env(), stdout=log, stderr=subprocess.STDOUT,
                                    preexec_fn=preexec)
        self.daemon = proc
        if wait:
            self.wait_for_name(RC_NAME, proc, 'resource-controld')
        if wait and listed:
            # a read waits for the first listing: apps started after it get AppAdded
            self.rc_call('ListApps')
        return proc

    def stop_daemon(self, proc=None):
        '''SIGTERM; the daemon must exit cleanly and not have crashed before.'''
        proc = proc or self.daemon
        rc = proc.poll()
        self.assertIsNone(rc, f'resource-controld died during the test (exit status {rc})')
        proc.send_signal(signal.SIGTERM)
        try:
            rc = proc.wait(timeout=scaled(10))
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            self.fail('resource-controld did not exit within 10 s of SIGTERM')
        if proc is self.daemon:
            self.daemon = None
        self.assertIn(rc, (0, -signal.SIGTERM),
                      f'resource-controld exited with status {rc} on SIGTERM')

    def wait_for_name(self, name, proc, what, timeout=10):
        deadline = time.monotonic() + scaled(timeout)
        while time.monotonic() < deadline:
            if self.name_has_owner(name):
                return
            if proc is not None and proc.poll() is not None:
                self.fail(f'{what} exited with status {proc.returncode} before owning {name}')
            time.sleep(0.02)
        self.fail(f'{what} did not own {name} within {timeout} s')

    def name_has_owner(self, name):
        return self.conn.call_sync('org.freedesktop.DBus', '/org/freedesktop/DBus',
                                   'org.freedesktop.DBus', 'NameHasOwner',
                                   GLib.Variant('(s)', (name,)), GLib.VariantType('(b)'),
                                   Gio.DBusCallFlags.NONE, -1, None).unpack()[0]

    def _failed(self):
        outcome = getattr(self, '_outcome', None)
        result = getattr(outcome, 'result', None)
        if result is None:
            return False
        for test, _ in result.errors + result.failures:
            if test is self or getattr(test, 'test_case', None) is self:
                return True
        return False

    def _dump_logs(self):
        def dump(title, path, tail=None):
            try:
                with open(path, encoding='utf-8', errors='replace') as f:
                    lines = f.readlines()
            except OSError:
                return
            if tail:
                lines = lines[-tail:]
            sys.stderr.write(f'\n----- {title} ({path}) -----\n' + ''.join(lines))
        for p in self.daemon_logs:
            dump('resource-controld log', p)
        dump('mock systemd log', self.mock_log, 200)
        dump('mock systemd stderr', self.mock_log + '.err', 50)
        dump('polkitd log', os.environ['RC_TEST_POLKITD_LOG'], 50)
        sys.stderr.flush()

    #
    # polkit
    #

    def set_rules(self, scenario=None, body=None, wait=True):
        '''Rewrite the test .rules file: a named scenario or a JS rule body.'''
        if body is None:
            body = RULES[scenario]
        RcTestCase._generation = getattr(RcTestCase, '_generation', 0) + 1
        generation = RcTestCase._generation
        text = RULES_PRELUDE.format(scenario=scenario or 'custom', generation=generation,
                                    gen_action=GENERATION_ACTION,
                                    gen_result='YES' if generation % 2 else 'NO')
        if body:
            text += ('polkit.addRule(function(action, subject) {\n'
                     f'    if (action.id.indexOf("{ACTION_PREFIX}") != 0)\n'
                     '        return polkit.Result.NOT_HANDLED;\n'
                     f'{body}\n'
                     '    return polkit.Result.NOT_HANDLED;\n'
                     '});\n')
        rules_dir = os.environ['RC_TEST_RULES_DIR']
        tmp = os.path.join(rules_dir, '.50-test.rules.tmp')
        _write(tmp, text)
        os.rename(tmp, os.path.join(rules_dir, '50-test.rules'))
        if wait:
            self.wait_rules_loaded(generation)

    def pkcheck(self, action, pid=None, env=None):
        '''pkcheck exit status: 0 yes, 1 no, 2 challenge, 3 dismissed, 4 error.'''
        pid = pid or os.getpid()
        return subprocess.run(['pkcheck', '--action-id', action, '--process', str(pid)],
                              env=env or dict(os.environ), capture_output=True,
                              check=False).returncode

    def wait_rules_loaded(self, generation):
        want = 0 if generation % 2 else 1
        deadline = time.monotonic() + scaled(10)
        rc = None
        while time.monotonic() < deadline:
            rc = self.pkcheck(GENERATION_ACTION)
            if rc == want:
                return
            time.sleep(0.05)
        self.fail(f'polkitd did not load rules generation {generation} (pkcheck {rc})')

    def stop_polkitd(self):
        root_control().request('polkit-stop')
        self._stopped_polkitd = True

    def start_polkitd(self):
        root_control().request('polkit-start')
        self._stopped_polkitd = False

    def pause_polkitd(self):
        root_control().request('polkit-pause')
        self._paused_polkitd = True

    def resume_polkitd(self):
        root_control().request('polkit-resume')
        self._paused_polkitd = False

    def _restore_polkitd(self):
        if self._paused_polkitd:
            self.resume_polkitd()
        if self._stopped_polkitd:
            self.start_polkitd()

    def copy_out(self, path, folder):
        '''Copy a file the test made into a folder of root's (e.g. the build folder).'''
        root_control().request('copy-out', path=path, folder=folder)

    def run_as_foreign_user(self, argv):
        return root_control().request('run-as', user=FOREIGN_USER, argv=argv,
                                      env={'DBUS_SESSION_BUS_ADDRESS': self.bus_address})

    #
    # D-Bus helpers
    #

    def _on_signal(self, _conn, _sender, _path, _iface, name, params):
        self.signals.append((name, params.unpack(), params))

    def iterate(self, seconds=0.0):
        iterate(seconds)

    def wait_until(self, predicate, timeout=5, message='condition'):
        deadline = time.monotonic() + scaled(timeout)
        while time.monotonic() < deadline:
            self.iterate()
            value = predicate()
            if value:
                return value
            time.sleep(0.01)
        self.iterate()
        value = predicate()
        if not value:
            self.fail(f'timed out after {timeout} s waiting for {message}')
        return value

    def wait_signal(self, name, unit=None, predicate=None, timeout=5):
        '''Wait for (and consume) a daemon signal; returns its unpacked arguments.'''
        def find():
            for i, (sname, args, _) in enumerate(self.signals):
                if sname != name or (unit is not None and args[0] != unit):
                    continue
                if predicate is not None and not predicate(args):
                    continue
                del self.signals[i]
                return (args,)
            return None
        return self.wait_until(find, timeout, f'signal {name} {unit or ""}')[0]

    def assert_no_signal(self, name, unit=None, wait=0.3):
        self.iterate(wait)
        found = [e for e in self.signals if e[0] == name and (unit is None or e[1][0] == unit)]
        self.assertEqual(found, [], f'unexpected {name} signal')

    def call_async(self, method, args=None, sig=None, flags=Gio.DBusCallFlags.NONE,
                   timeout_ms=30000, conn=None):
        pending = PendingCall()
        params = GLib.Variant(sig, args) if sig is not None else None
        (conn or self.conn).call(RC_NAME, RC_PATH, RC_IFACE, method, params, None, flags,
                                 timeout_ms, None, pending.callback)
        return pending

    def wait_pending(self, pending, timeout=30):
        self.wait_until(lambda: pending.done, timeout, 'a D-Bus reply')
        return pending

    def rc_call(self, method, args=None, sig=None, **kwargs):
        '''Call the daemon; returns the unpacked reply or raises GLib.Error.'''
        pending = self.wait_pending(self.call_async(method, args, sig, **kwargs),
                                    kwargs.get('timeout_ms', 30000) / 1000 + 5)
        if pending.error is not None:
            raise pending.error
        return pending.result.unpack()

    def assert_rc_error(self, error, method, args=None, sig=None, **kwargs):
        '''Call and expect a D-Bus error (short name for ours, full name otherwise).'''
        name = error if '.' in error else RC_ERROR + error
        try:
            reply = self.rc_call(method, args, sig, **kwargs)
        except GLib.Error as e:
            self.assertEqual(dbus_error_name(e), name,
                             f'{method}{args}: wrong error: {e.message}')
            message = dbus_error_message(e)
            self.assertTrue(message.strip(), f'{method}{args}: {name} without a message')
            return message
        self.fail(f'{method}{args} succeeded ({reply}), expected {name}')
        return None

    def list_apps(self):
        return self.rc_call('ListApps')[0]

    def get_app(self, app):
        return self.rc_call('GetApp', (app,), '(s)')[0]

    def get_one(self, unit):
        apps = self.get_app(unit)
        self.assertEqual(len(apps), 1, f'GetApp({unit}) gave {len(apps)} records')
        return apps[0]

    def set_weight(self, app, weight):
        return self.rc_call('SetWeight', (app, weight), '(st)')

    def set_memory_limit(self, app, value):
        return self.rc_call('SetMemoryLimit', (app, value), '(st)')

    def set_limits(self, app, limits, options=None):
        return self.rc_call('SetLimits', (app, limits, options or {}), '(sa{sv}a{sv})')

    def get_property(self, name):
        return self.conn.call_sync(RC_NAME, RC_PATH, 'org.freedesktop.DBus.Properties', 'Get',
                                   GLib.Variant('(ss)', (RC_IFACE, name)), None,
                                   Gio.DBusCallFlags.NONE, -1, None).unpack()[0]

    # the mock

    def mock(self, method, args=None, sig=None, iface=MOCK_IFACE):
        params = GLib.Variant(sig, args) if sig is not None else None
        return self.conn.call_sync(SYSTEMD_NAME, SYSTEMD_PATH, iface, method, params, None,
                                   Gio.DBusCallFlags.NONE, 10000, None).unpack()

    def add_app(self, unit, slice_name='app.slice', wait=True, **options):
        '''Start a unit in the mock; wait for AppAdded unless wait is False.'''
        typed = {
            'slice': GLib.Variant('s', slice_name),
        }
        types = {'source_path': 's', 'aliases': 'as', 'pids': 'au', 'controllers': 's',
                 'memory_current': 't', 'active_state': 's', 'sub_state': 's',
                 'description': 's', 'announce': 'b', 'make_cgroup': 'b',
                 'control_group': 's', 'files': 'a{ss}'}
        for key, value in options.items():
            typed[key] = GLib.Variant(types[key], value)
        self.mock('AddAppFull', (unit, typed), '(sa{sv})')
        if wait:
            return self.wait_signal('AppAdded', unit)
        return None

    def stop_app(self, unit):
        self.mock('StopApp', (unit,), '(s)')

    def systemd_calls(self, method):
        '''[args] of every call of a mock systemd method, in arrival order.'''
        calls = self.mock('GetMethodCalls', (method,), '(s)', iface=DBUSMOCK_IFACE)[0]
        return [list(args) for _, args in calls]

    def clear_systemd_calls(self):
        self.mock('ClearCalls', iface=DBUSMOCK_IFACE)

    def process_in_own_cgroup(self, name):
        '''A process (sleep) in a real cgroup of its own, below the delegated
        subtree, so that the daemon finds its app from /proc/PID/cgroup as it
        does on a real desktop; returns (pid, cgroup path).'''
        delegated = os.environ.get('RC_TEST_CGROUP_DIR')
        if not delegated:
            self.fail('no writable cgroup v2 hierarchy to give a process a cgroup of its own '
                      '(the root harness prints why)')
        cg = os.path.join(delegated, f'{name}-{os.getpid()}-{len(self._cgroup_processes)}')
        os.makedirs(cg, exist_ok=True)
        # pylint: disable=consider-using-with
        proc = subprocess.Popen(['sleep', '600'], stdin=subprocess.DEVNULL,
                                preexec_fn=lambda: _write_existing(os.path.join(cg, 'cgroup.procs'), '0'))
        self._cgroup_processes.append(proc)
        self.addCleanup(_remove_cgroup, cg)
        self.addCleanup(proc.wait)
        self.addCleanup(proc.kill)
        return proc.pid, own_cgroup(proc.pid)

    def cgroup_dir(self, unit):
        return self.mock('GetCgroupDir', (unit,), '(s)')[0]

    def cgroup_file(self, unit, name):
        with open(os.path.join(self.cgroup_dir(unit), name), encoding='ascii') as f:
            return f.read().strip()

    def write_cgroup_file(self, unit, name, text):
        _write_in_place(os.path.join(self.cgroup_dir(unit), name), text + '\n')

    def run_client(self, *args, check=False):
        '''resourcectl as the test user on the private buses.'''
        return subprocess.run([self.client_path] + list(args), env=self.bus_env,
                              capture_output=True, text=True, timeout=scaled(30), check=check)
