#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
'''Host integration tests of Launch and Adopt (docs/design.md, "Launching and adopting").

The same world as integration_test.py: the real daemon, a private session bus, the mock
systemd (which runs a transient service's ExecStart itself) and a real polkitd. The proof
against real systemd and the kernel's files is in the VM tier (tests/vm/system-test.sh,
section "launch").

    RC_DAEMON=build/src/resource-controld RC_CLIENT=build/src/resourcectl \\
        /usr/bin/python3 tests/integration/launch_test.py [Class.test_name ...]
'''

import fnmatch
import os
import shutil
import signal
import stat
import subprocess
import sys
import time

from gi.repository import GLib

import mock_systemd
import rcnames
import rctest_harness as h
from rctest_harness import MIB, RcTestCase, s, strv, t

LAUNCHED = 'org.example.Launched'
PAINTER = 'org.example.Painter'
LA = '(sasa{sv})'
AD = '(aua{sv})'

# Writes its pid, arguments and display into @OUT@, then stays.
APP_SCRIPT = '''#!/bin/sh
{ echo "pid=$$"; echo "cwd=$(pwd)"; echo "WAYLAND_DISPLAY=$WAYLAND_DISPLAY";
  echo "G_SLICE=${G_SLICE-unset}"; echo "GLIBC_TUNABLES=${GLIBC_TUNABLES-unset}";
  for a in "$@"; do echo "arg=$a"; done; } > "@OUT@.tmp"
mv "@OUT@.tmp" "@OUT@"
exec sleep 30
'''


class LaunchBase(RcTestCase):
    '''Desktop files of test apps are in place before the daemon starts.'''

    start_daemon_in_setup = False

    daemon_env_extra = {}

    def daemon_env(self):
        # as installed: the service's memory settings are the daemon's, not the apps'
        return dict(super().daemon_env(), **rcnames.service_env(), **self.daemon_env_extra)

    def setUp(self):
        super().setUp()
        self.bin_dir = os.path.join(self.workdir, 'bin')
        os.makedirs(self.bin_dir)
        self.app_script = os.path.join(self.bin_dir, 'launched-app')
        self.out = os.path.join(self.workdir, 'app-out')
        h._write(self.app_script, APP_SCRIPT.replace('@OUT@', self.out))
        os.chmod(self.app_script, 0o755)
        # a copy of sleep that only org.example.Painter's desktop file names
        self.painter = os.path.join(self.bin_dir, 'painter')
        shutil.copy('/bin/sleep', self.painter)
        os.chmod(self.painter, stat.S_IRWXU | stat.S_IRGRP | stat.S_IXGRP | stat.S_IROTH | stat.S_IXOTH)
        self.desktop(LAUNCHED, 'Launched App', f'{self.app_script} --name %c %U', Icon='launched')
        self.desktop('org.example.OneFile', 'One File', f'{self.app_script} %f')
        self.desktop('org.example.NoFiles', 'No Files', f'{self.app_script} --plain')
        self.desktop('org.example.Term', 'Terminal App', self.app_script, Terminal='true')
        self.desktop('org.example.BusOnly', 'Bus Only', None, DBusActivatable='true')
        self.desktop('org.example.Missing', 'Missing Program', 'no-such-program-here %U')
        self.desktop(PAINTER, 'Painter', f'{self.painter} 300')
        self.start_daemon()

    def desktop(self, app_id, name, exec_line, **keys):
        text = f'[Desktop Entry]\nType=Application\nName={name}\n'
        if exec_line is not None:
            text += f'Exec={exec_line}\n'
        text += ''.join(f'{k}={v}\n' for k, v in keys.items())
        path = os.path.join(self.applications_dir, app_id + '.desktop')
        h._write(path, text)
        return path

    def launch(self, app_id, uris=(), **options):
        opts = {'Environment': strv(['WAYLAND_DISPLAY=wayland-test'])}
        opts.update(options)
        return self.rc_call('Launch', (app_id, list(uris), opts), LA)[0]

    def app_output(self):
        self.wait_until(lambda: os.path.exists(self.out), 10, 'the launched app to write its output')
        with open(self.out, encoding='utf-8') as f:
            return f.read().splitlines()

    def transient_calls(self):
        '''[(unit, {property: value})] of every StartTransientUnit.'''
        return [(c[0], dict(c[2])) for c in self.systemd_calls('StartTransientUnit')]

    @staticmethod
    def children(pid):
        out = subprocess.run(['pgrep', '-P', str(pid)], capture_output=True, text=True,
                             check=False).stdout
        return [int(p) for p in out.split()]

    def unit_property_calls_for(self, unit):
        return [c for c in self.systemd_calls('SetUnitProperties') if c[0] == unit]


class LaunchTest(LaunchBase):

    def test_service_with_uris_environment_and_launcher(self):
        unit = self.launch(LAUNCHED, ['/tmp/a b.txt', 'https://example.org/x?y=1'],
                           Launcher=s('sway'))
        self.assertRegex(unit, r'^app-sway-org\.example\.Launched@[0-9a-f]{16}\.service$')
        # listed by the time the reply came, with its desktop file's name and icon
        record = {a['Unit']: a for a in self.list_apps()}[unit]
        self.assertEqual((record['AppId'], record['Launcher'], record['Name'], record['Icon']),
                         (LAUNCHED, 'sway', 'Launched App', 'launched'))
        ((name, props),) = self.transient_calls()
        self.assertEqual(name, unit)
        desktop_file = os.path.join(self.applications_dir, LAUNCHED + '.desktop')
        self.assertEqual(props['Description'], 'Launched App')
        self.assertEqual(props['SourcePath'], desktop_file)
        self.assertEqual(props['CollectMode'], 'inactive-or-failed')
        self.assertEqual(props['Slice'], 'app.slice')
        self.assertEqual(props['Type'], 'exec')
        # fairness: every launched app has its own cpu weight from the start
        self.assertEqual(props['CPUWeight'], 100)
        # systemd's own $VAR expansion is off: arguments reach the app as they are
        ((path, argv, flags),) = props['ExecStartEx']
        self.assertEqual((path, flags), (self.app_script, ['no-env-expand']))
        self.assertEqual(argv, [self.app_script, '--name', 'Launched App',
                                'file:///tmp/a%20b.txt', 'https://example.org/x?y=1'])
        out = self.app_output()
        self.assertIn('arg=file:///tmp/a%20b.txt', out)
        self.assertIn('WAYLAND_DISPLAY=wayland-test', out)

    def test_rule_and_limits_are_in_the_start_call(self):
        self.rc_call('SetRule', (LAUNCHED, {'CPUWeight': t(40), 'MemoryMax': t(1024 * MIB)}),
                     '(sa{sv})')
        unit = self.launch(LAUNCHED, Limits=GLib.Variant('a{sv}', {'MemoryHigh': t(512 * MIB)}))
        ((_, props),) = self.transient_calls()
        self.assertEqual((props['CPUWeight'], props['MemoryMax'], props['MemoryHigh']),
                         (40, 1024 * MIB, 512 * MIB))
        # the mock's kernel files had them when the unit was made
        self.assertEqual(self.cgroup_file(unit, 'cpu.weight'), '40')
        self.assertEqual(self.cgroup_file(unit, 'memory.max'), str(1024 * MIB))
        # nothing left for the policy to apply afterwards: no window without the rule
        time.sleep(0.5)
        self.assertEqual(self.unit_property_calls_for(unit), [])

    def test_caller_limits_win_over_the_rule_and_stay(self):
        self.rc_call('SetRule', (LAUNCHED, {'CPUWeight': t(40)}), '(sa{sv})')
        unit = self.launch(LAUNCHED, Limits=GLib.Variant('a{sv}', {'CPUWeight': t(50)}))
        ((_, props),) = self.transient_calls()
        self.assertEqual(props['CPUWeight'], 50)
        time.sleep(0.5)
        self.assertEqual(self.unit_property_calls_for(unit), [])
        self.assertEqual(self.get_one(unit)['CPUWeight'], 50)

    def scope_calls(self):
        '''The launch helper's service, then the scope it started.'''
        ((helper, helper_props), (scope, props)) = self.transient_calls()
        self.assertRegex(helper, r'^resource-control-launch-[0-9a-f]{16}\.service$')
        self.assertEqual(helper[len('resource-control-launch-'):-len('.service')],
                         scope.rsplit('-', 1)[1][:-len('.scope')])
        return helper_props, props

    def test_scope_in_background_slice(self):
        unit = self.launch(LAUNCHED, Kind=s('scope'), Slice=s('background.slice'),
                           WorkingDirectory=s(self.bin_dir))
        self.assertRegex(unit, r'^app-rc-org\.example\.Launched-[0-9a-f]{16}\.scope$')
        helper_props, props = self.scope_calls()
        # the app is never forked by the daemon: a service of the manager's own defaults
        # runs the helper, which forks it held and asks for its scope
        ((path, _, _),) = helper_props['ExecStart']
        self.assertEqual(os.path.basename(path), 'resource-control-scope-helper')
        self.assertEqual(helper_props['Type'], 'exec')
        self.assertNotIn('Slice', helper_props)
        self.assertEqual(props['Slice'], 'background.slice')
        self.assertEqual((props['Description'], props['CollectMode'], props['CPUWeight']),
                         ('Launched App', 'inactive-or-failed', 100))
        self.assertNotIn('ExecStart', props)
        (pid,) = props['PIDs']
        self.assertNotEqual(pid, self.daemon.pid)
        self.assertNotIn(pid, self.children(self.daemon.pid))
        # the held process became the app only after systemd had it in its scope
        out = self.app_output()
        self.assertIn(f'pid={pid}', out)
        self.assertIn('arg=--name', out)
        # the options reach it through the helper as they reach a service
        self.assertIn('WAYLAND_DISPLAY=wayland-test', out)
        self.assertIn(f'cwd={self.bin_dir}', out)
        # nothing of the helper's own service context
        self.assertNotIn('INVOCATION_ID', open(f'/proc/{pid}/environ', 'rb').read().decode(errors='replace'))
        # the daemon's own memory settings stay with the daemon
        self.assertIn('G_SLICE=unset', out)
        self.assertIn('GLIBC_TUNABLES=unset', out)
        # it writes its output, then execs sleep
        self.wait_until(lambda: open(f'/proc/{pid}/cmdline', 'rb').read().split(b'\0')[0] == b'sleep',
                        5, 'the app to exec sleep')
        self.assertEqual(self.get_one(unit)['Slice'], 'background.slice')

    def test_scope_start_that_fails_kills_the_held_process(self):
        self.mock('SetUnitJobResult', ('*.scope', 'failed'), '(ss)')
        message = self.assert_rc_error('Failed', 'Launch', (LAUNCHED, [], {
            'Kind': s('scope')}), LA)
        # the helper's reason reaches the caller
        self.assertIn('its start job ended "failed"', message)
        _, props = self.scope_calls()
        (pid,) = props['PIDs']
        self.wait_until(lambda: not os.path.exists(f'/proc/{pid}') or
                        open(f'/proc/{pid}/stat', encoding='ascii').read().split()[2] == 'Z',
                        5, 'the held process to be killed')
        time.sleep(0.3)
        self.assertFalse(os.path.exists(self.out), 'the app ran although its scope failed')

    def test_scope_helper_that_dies_is_failed_and_runs_nothing(self):
        fake = os.path.join(self.bin_dir, 'dying-helper')
        h._write(fake, '#!/bin/sh\nkill -9 $$\n')
        os.chmod(fake, 0o755)
        self.stop_daemon()
        self.daemon_env_extra = {'RESOURCE_CONTROL_SCOPE_HELPER': fake}
        self.start_daemon()
        message = self.assert_rc_error('Failed', 'Launch', (LAUNCHED, [], {'Kind': s('scope')}),
                                       LA)
        self.assertIn('ended without starting the app', message)
        self.assertEqual(self.list_apps(), [])

    def test_service_start_that_fails_is_failed(self):
        self.mock('SetJobResult', ('failed',), '(s)')
        message = self.assert_rc_error('Failed', 'Launch', (LAUNCHED, [], {}), LA)
        self.assertIn('app-rc-org.example.Launched@', message)
        self.assertIn('"failed"', message)
        self.assertEqual(self.list_apps(), [])

    def test_start_job_that_never_ends_is_failed_in_time(self):
        self.mock('SetJobResult', ('never',), '(s)')
        start = time.monotonic()
        message = self.assert_rc_error('Failed', 'Launch', (LAUNCHED, [], {}), LA,
                                       timeout_ms=60000)
        self.assertGreaterEqual(time.monotonic() - start, 19)
        self.assertRegex(message, r'did not finish starting app-rc-org\.example\.Launched@.* within 20 seconds')
        self.mock('SetJobResult', ('done',), '(s)')
        self.rc_call('Launch', (LAUNCHED, [], {}), LA)

    def test_systemd_refusal_is_failed_with_its_message(self):
        self.mock('SetFail', ('StartTransientUnit', 'org.freedesktop.DBus.Error.AccessDenied',
                              'computer says no'), '(sss)')
        message = self.assert_rc_error('Failed', 'Launch', (LAUNCHED, [], {}), LA)
        self.assertIn('computer says no', message)

    def test_bad_input(self):
        one = ['/tmp/x']
        table = [
            (('org.example.Nope', [], {}), 'NoSuchApp'),
            (('not an app id', [], {}), 'InvalidArgument'),
            (('org.example.Term', [], {}), 'NotSupported'),
            (('org.example.BusOnly', [], {}), 'NotSupported'),
            (('org.example.Missing', [], {}), 'NoSuchApp'),
            ((LAUNCHED, [], {'Kind': s('container')}), 'InvalidArgument'),
            ((LAUNCHED, [], {'Kind': t(1)}), 'InvalidArgument'),
            ((LAUNCHED, [], {'Launcher': s('Sway')}), 'InvalidArgument'),
            ((LAUNCHED, [], {'Launcher': s('')}), 'InvalidArgument'),
            ((LAUNCHED, [], {'Launcher': s('a-b')}), 'InvalidArgument'),
            ((LAUNCHED, [], {'Slice': s('session.slice')}), 'InvalidArgument'),
            ((LAUNCHED, [], {'Environment': strv(['NOEQUALS'])}), 'InvalidArgument'),
            # code the app would run, chosen by the caller
            ((LAUNCHED, [], {'Environment': strv(['LD_PRELOAD=/tmp/x.so'])}), 'InvalidArgument'),
            ((LAUNCHED, [], {'Environment': strv(['GTK_MODULES=evil'])}), 'InvalidArgument'),
            ((LAUNCHED, [], {'Environment': strv(['GIO_EXTRA_MODULES=/tmp'])}), 'InvalidArgument'),
            ((LAUNCHED, [], {'Environment': strv(['LD_LIBRARY_PATH=/tmp'])}), 'InvalidArgument'),
            # caps, checked before polkit
            ((LAUNCHED, [], {'Environment': strv([f'LC_X{i}=C' for i in range(65)])}),
             'InvalidArgument'),
            ((LAUNCHED, [], {'Environment': strv(['LANG=' + 'x' * 5000])}), 'InvalidArgument'),
            ((LAUNCHED, ['/tmp/f'] * 257, {}), 'InvalidArgument'),
            ((LAUNCHED, ['/tmp/' + 'f' * 5000], {}), 'InvalidArgument'),
            ((LAUNCHED, [], {'Environment': strv(['=x'])}), 'InvalidArgument'),
            ((LAUNCHED, [], {'Environment': s('A=b')}), 'InvalidArgument'),
            ((LAUNCHED, [], {'WorkingDirectory': s('relative')}), 'InvalidArgument'),
            ((LAUNCHED, [], {'WorkingDirectory': s('/no/such/folder')}), 'InvalidArgument'),
            ((LAUNCHED, [], {'Limits': GLib.Variant('a{sv}', {'CPUWeight': t(0)})}),
             'InvalidArgument'),
            ((LAUNCHED, [], {'Limits': GLib.Variant('a{sv}', {'MemoryMax': t(MIB)})}),
             'InvalidArgument'),
            ((LAUNCHED, [], {'Limits': GLib.Variant('a{sv}', {'Bogus': t(1)})}),
             'InvalidArgument'),
            ((LAUNCHED, [], {'Bogus': s('x')}), 'InvalidArgument'),
            ((LAUNCHED, ['relative/path'], {}), 'InvalidArgument'),
            (('org.example.NoFiles', one, {}), 'InvalidArgument'),
            (('org.example.OneFile', ['/tmp/x', '/tmp/y'], {}), 'InvalidArgument'),
            (('org.example.OneFile', ['https://example.org/'], {}), 'InvalidArgument'),
        ]
        for args, error in table:
            with self.subTest(args=args):
                message = self.assert_rc_error(error, 'Launch', args, LA)
                for key in args[2]:
                    if key != 'Limits':
                        self.assertIn(key, message)
        self.assertEqual(self.systemd_calls('StartTransientUnit'), [])
        self.assertEqual(self.list_apps(), [])

    def test_environment_names_the_refused_key(self):
        message = self.assert_rc_error('InvalidArgument', 'Launch', (LAUNCHED, [], {
            'Environment': strv(['DISPLAY=:0', 'LD_PRELOAD=/tmp/x.so'])}), LA)
        self.assertIn('LD_PRELOAD', message)
        self.assertIn('WAYLAND_DISPLAY', message)   # what is allowed
        # the allowed keys reach the app
        unit = self.launch(LAUNCHED, Environment=strv(['WAYLAND_DISPLAY=wl-9', 'LC_TIME=C',
                                                       'XDG_ACTIVATION_TOKEN=tok']))
        self.assertIn('WAYLAND_DISPLAY=wl-9', self.app_output())
        self.assertTrue(unit.startswith('app-rc-org.example.Launched@'))

    def test_denied_by_polkit_starts_nothing(self):
        self.set_rules(body=f'''
            if (action.id == "{h.ACTION_PREFIX}launch")
                return polkit.Result.NO;
            return polkit.Result.YES;''')
        self.assert_rc_error('NotAuthorized', 'Launch', (LAUNCHED, [], {}), LA)
        self.assertEqual(self.systemd_calls('StartTransientUnit'), [])
        self.assertFalse(os.path.exists(self.out))

    def test_the_unit_it_starts_is_asked_nothing_until_it_runs(self):
        '''systemd answers calls before it runs its jobs: a question about the unit being started
        (its state, its properties) would hold the app's start back. The daemon asks none while
        its start is on, and reads the running unit from cgroupfs and its transient file.'''
        self.clear_systemd_calls()
        service = self.launch('org.example.NoFiles')
        self.app_output()
        units = {service: []}
        # a scope that takes in its caller (run --scope) is answered when its job ends; run
        # --scope reads its SourcePath from the transient file, or (where it finds none, as with
        # another XDG_RUNTIME_DIR) asks systemd for it, once it is in the scope: dbusmock answers
        # a Get through its GetAll
        for runtime_dir in (self.runtime_dir, self.workdir):
            os.unlink(self.out)
            proc = subprocess.run([self.client_path, 'run', '--scope', 'org.example.NoFiles'],
                                  env=dict(self.bus_env, XDG_RUNTIME_DIR=runtime_dir),
                                  capture_output=True, text=True, timeout=h.scaled(30),
                                  check=False)
            self.assertEqual(proc.returncode, 0, proc.stderr)
            app = int(next(line for line in self.app_output() if line.startswith('pid='))[4:])
            self.addCleanup(os.kill, app, 9)     # the app run --scope started stays
            path = mock_systemd.unit_path(proc.stdout.strip())
            units[proc.stdout.strip()] = [] if runtime_dir == self.runtime_dir else [
                ['Get', path, 'org.freedesktop.systemd1.Unit.SourcePath'],
                ['GetAll', path, 'org.freedesktop.systemd1.Unit']]
        for unit, client_reads in units.items():
            self.wait_until(lambda u=unit: u in {a['Unit'] for a in self.list_apps()}, 10,
                            f'{unit} to be listed')
            patterns = [p for call in self.systemd_calls('ListUnitsByPatterns') for p in call[1]]
            self.assertEqual([p for p in patterns if fnmatch.fnmatch(unit, p)], [], patterns)
            path = mock_systemd.unit_path(unit)
            with open(self.mock_log, encoding='utf-8') as f:
                reads = [line.split()[1:] for line in f
                         if f' GetAll {path} ' in line or f' Get {path} ' in line]
            self.assertEqual(reads, client_reads)

    def test_client_run(self):
        proc = self.run_client('run', '--set', 'CPUWeight=70', '--set', 'MemoryMax=1G',
                               '--launcher', 'sway', LAUNCHED, 'some file.txt')
        self.assertEqual(proc.returncode, 0, proc.stderr)
        unit = proc.stdout.strip()
        self.assertRegex(unit, r'^app-sway-org\.example\.Launched@[0-9a-f]{16}\.service$')
        ((_, props),) = self.transient_calls()
        self.assertEqual((props['CPUWeight'], props['MemoryMax']), (70, 1024 * MIB))
        ((_, argv, _),) = props['ExecStartEx']
        # a relative file is the client's folder's
        self.assertTrue(argv[-1].startswith('file:///') and argv[-1].endswith('/some%20file.txt'),
                        argv)
        self.assertTrue(os.path.isabs(props['WorkingDirectory']))
        # a value the client cannot parse is its usage error; one out of range the daemon's
        proc = self.run_client('run', '--set', 'CPUWeight=lots', LAUNCHED)
        self.assertEqual(proc.returncode, 2, proc.stderr)
        proc = self.run_client('run', '--set', 'CPUWeight=0', LAUNCHED)
        self.assertEqual(proc.returncode, 1, proc.stderr)
        self.assertIn('CPUWeight 0 is out of range', proc.stderr)
        self.assertEqual(len(self.transient_calls()), 1)


class CallerScopeTest(LaunchBase):
    '''Launch with CallerPid, as `resourcectl run --scope` uses it: the scope takes in the
    calling process (as `systemd-run --scope` joins its scope), which then starts the app there
    as its child.'''

    def test_client_run_scope_starts_the_app_in_its_scope(self):
        env = dict(self.bus_env, WAYLAND_DISPLAY='wayland-caller')

        def as_nohup_with_usr1_blocked():
            signal.signal(signal.SIGHUP, signal.SIG_IGN)
            signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGUSR1})
        # pylint: disable=consider-using-with,subprocess-popen-preexec-fn
        client = subprocess.Popen([self.client_path, 'run', '--scope', '--set', 'CPUWeight=70',
                                   '--background', LAUNCHED, 'some file.txt'], env=env,
                                  cwd=self.bin_dir, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  text=True, preexec_fn=as_nohup_with_usr1_blocked)
        stdout, stderr = client.communicate(timeout=h.scaled(30))
        self.assertEqual(client.returncode, 0, stderr)
        unit = stdout.strip()
        self.assertRegex(unit, r'^app-rc-org\.example\.Launched-[0-9a-f]{16}\.scope$')
        # one start: the scope, no launch helper's service
        ((name, props),) = self.transient_calls()
        self.assertEqual(name, unit)
        self.assertEqual((props['Slice'], props['CPUWeight'], props['Description']),
                         ('background.slice', 70, 'Launched App'))
        self.assertNotIn('ExecStart', props)
        self.assertNotIn('Environment', props)
        # the process the scope took in is resourcectl's own; the app is its child, born there
        self.assertEqual(props['PIDs'], [client.pid])
        out = self.app_output()
        app = int(next(line for line in out if line.startswith('pid='))[4:])
        self.addCleanup(os.kill, app, 9)
        self.assertNotEqual(app, client.pid)
        self.assertIn('arg=--name', out)
        self.assertIn(f'arg=file://{self.bin_dir}/some%20file.txt', out)
        # with the caller's own environment and folder
        self.assertIn('WAYLAND_DISPLAY=wayland-caller', out)
        self.assertIn(f'cwd={self.bin_dir}', out)
        # in a session of its own, away from the terminal's input and output (no journal here)
        self.assertEqual(os.getsid(app), app)
        self.assertEqual([os.readlink(f'/proc/{app}/fd/{fd}') for fd in (0, 1, 2)],
                         ['/dev/null'] * 3)
        # no signal blocked or ignored, whatever resourcectl's caller left it, as a shell starts it
        with open(f'/proc/{app}/status', encoding='utf-8') as f:
            status = dict(line.split(':\t', 1) for line in f.read().splitlines() if ':\t' in line)
        # (but glibc's two internal signals, 32 and 33, which its posix_spawn leaves ignored and
        # the app's own glibc takes over at its start)
        glibc_internal = (1 << 31) | (1 << 32)
        self.assertEqual((int(status['SigBlk'], 16), int(status['SigIgn'], 16) & ~glibc_internal),
                         (0, 0))
        # the reply came when the job was done; the listing follows
        self.wait_until(lambda: unit in {a['Unit'] for a in self.list_apps()}, 5,
                        'the scope to be listed')
        self.assertEqual(self.get_one(unit)['Slice'], 'background.slice')

    def test_client_run_scope_whose_program_cannot_run_says_why(self):
        # found and executable when the daemon checks it, but its interpreter is missing
        program = os.path.join(self.bin_dir, 'bad-interpreter')
        h._write(program, '#!/no/such/interpreter\n')
        os.chmod(program, 0o755)
        self.desktop('org.example.BadInterpreter', 'Bad Interpreter', program)
        proc = self.run_client('run', '--scope', 'org.example.BadInterpreter')
        self.assertEqual(proc.returncode, 1, proc.stderr)
        self.assertIn(f'Cannot start {program}: No such file or directory', proc.stderr)
        self.assertIn('is empty once resourcectl exits, and goes away', proc.stderr)
        self.assertEqual(proc.stdout, '')

    def test_client_run_scope_that_fails_runs_nothing(self):
        self.mock('SetUnitJobResult', ('*.scope', 'failed'), '(ss)')
        proc = self.run_client('run', '--scope', LAUNCHED)
        self.assertEqual(proc.returncode, 1, proc.stderr)
        self.assertIn('"failed"', proc.stderr)
        self.assertEqual(proc.stdout, '')
        time.sleep(0.3)
        self.assertFalse(os.path.exists(self.out), 'the app ran although its scope failed')

    def test_client_run_scope_refused_by_polkit_runs_nothing(self):
        self.set_rules(body=f'''
            if (action.id == "{h.ACTION_PREFIX}launch")
                return polkit.Result.NO;
            return polkit.Result.YES;''')
        proc = self.run_client('run', '--scope', LAUNCHED)
        self.assertEqual(proc.returncode, 1, proc.stderr)
        self.assertIn('Not authorized', proc.stderr)
        self.assertEqual(self.transient_calls(), [])
        time.sleep(0.3)
        self.assertFalse(os.path.exists(self.out), 'the app ran although polkit said no')

    def test_caller_pid_must_be_the_callers_own(self):
        # this test's own connection is made by this process
        unit = self.rc_call('Launch', (LAUNCHED, [], {
            'Kind': s('scope'), 'CallerPid': GLib.Variant('u', os.getpid())}), LA)[0]
        ((name, props),) = self.transient_calls()
        self.assertEqual((name, props['PIDs']), (unit, [os.getpid()]))
        bad = [
            ({'Kind': s('scope'), 'CallerPid': GLib.Variant('u', self.daemon.pid)},
             'CallerPid is not the calling process'),
            ({'Kind': s('scope'), 'CallerPid': GLib.Variant('u', 1)},
             'CallerPid is not the calling process'),
            ({'CallerPid': GLib.Variant('u', os.getpid())}, 'needs Kind "scope"'),
            ({'Kind': s('scope'), 'CallerPid': GLib.Variant('u', os.getpid()),
              'Environment': strv(['DISPLAY=:1'])}, 'Environment does not go with CallerPid'),
            ({'Kind': s('scope'), 'CallerPid': GLib.Variant('u', os.getpid()),
              'WorkingDirectory': s('/tmp')}, 'WorkingDirectory does not go with CallerPid'),
            ({'Kind': s('scope'), 'CallerPid': s('me')}, 'CallerPid'),
            ({'Kind': s('scope'), 'CallerPid': GLib.Variant('u', 0)}, 'CallerPid is 0'),
        ]
        for options, words in bad:
            with self.subTest(options=options):
                message = self.assert_rc_error('InvalidArgument', 'Launch',
                                               (LAUNCHED, [], options), LA)
                self.assertIn(words, message)
        # nothing more started, nothing moved
        self.assertEqual(len(self.transient_calls()), 1)


class AdoptTest(LaunchBase):

    def spawn(self, argv, env=None):
        # pylint: disable=consider-using-with
        proc = subprocess.Popen(argv, env=dict(os.environ, **(env or {})),
                                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
        self.addCleanup(self.kill_tree, proc)
        return proc

    @staticmethod
    def kill_tree(proc):
        for pid in AdoptTest.children(proc.pid):
            try:
                os.kill(pid, 9)
            except ProcessLookupError:
                pass
        proc.kill()
        proc.wait()

    def tree_of_app(self, app_id):
        '''A shell with two children, launched the way GIO launches an app.'''
        desktop = os.path.join(self.applications_dir, 'org.example.Editor.desktop')
        proc = self.spawn(['sh', '-c', 'sleep 60 & sleep 61 & wait'],
                          {'GIO_LAUNCHED_DESKTOP_FILE': desktop.replace('org.example.Editor',
                                                                        app_id)})
        self.wait_until(lambda: len(self.children(proc.pid)) == 2, 5, 'the children')
        return proc

    def adopt(self, pids, **options):
        return self.rc_call('Adopt', (pids, options), AD)[0]

    def test_adopt_moves_the_tree(self):
        proc = self.tree_of_app('org.example.Editor')
        unit = self.adopt([proc.pid])
        self.assertEqual(unit, f'app-rc-org.example.Editor-{proc.pid}.scope')
        ((name, props),) = self.transient_calls()
        self.assertEqual(name, unit)
        # the named process starts the scope; the mock moves no real process, so the
        # children following it level by level is the VM's to prove (section adopt)
        self.assertEqual(props['PIDs'], [proc.pid])
        self.assertEqual(props['Description'], 'Test Editor')
        self.assertEqual(props['SourcePath'],
                         os.path.join(self.applications_dir, 'org.example.Editor.desktop'))
        self.assertEqual(props['CPUWeight'], 100)
        # systemd moves processes into a running scope only when it is delegated
        self.assertIs(props['Delegate'], True)
        self.assertEqual(self.get_one(unit)['Name'], 'Test Editor')
        self.rc_call('SetWeight', (unit, 300), '(st)')
        self.assertEqual(self.cgroup_file(unit, 'cpu.weight'), '300')

    def test_app_found_by_its_program(self):
        proc = self.spawn([self.painter, '60'])
        unit = self.adopt([proc.pid], Launcher=s('sway'))
        self.assertEqual(unit, f'app-sway-org.example.Painter-{proc.pid}.scope')

    def index_builds(self):
        with open(self.daemon_logs[-1], encoding='utf-8', errors='replace') as f:
            return f.read().count("the index of desktop files' programs was built")

    def test_the_program_index_is_built_once(self):
        # every desktop file is read to map programs to apps: once, not per call
        for _ in range(3):
            proc = self.spawn([self.painter, '60'])
            self.adopt([proc.pid], Launcher=s('sway'))
        self.assertEqual(self.index_builds(), 1)
        # a desktop file comes: the index is built again, and knows its program
        drawer = os.path.join(self.bin_dir, 'drawer')
        shutil.copy('/bin/sleep', drawer)
        self.desktop('org.example.Drawer', 'Drawer', f'{drawer} 300')
        proc = self.spawn([drawer, '60'])
        self.wait_until(lambda: self.try_adopt(proc.pid), h.scaled(10), 'Adopt to find the new program')
        self.assertEqual(self.index_builds(), 2)

    def try_adopt(self, pid):
        try:
            return self.adopt([pid]) == f'app-rc-org.example.Drawer-{pid}.scope'
        except GLib.Error:
            return False

    def test_app_id_given(self):
        proc = self.spawn(['sleep', '60'])
        unit = self.adopt([proc.pid], AppId=s('org.example.Real'))
        self.assertEqual(unit, f'app-rc-org.example.Real-{proc.pid}.scope')
        self.assertEqual(self.get_one(unit)['Name'], 'The Real App')

    def test_rule_is_in_the_start_call(self):
        self.rc_call('SetRule', ('org.example.Editor', {'CPUWeight': t(40)}), '(sa{sv})')
        proc = self.tree_of_app('org.example.Editor')
        unit = self.adopt([proc.pid])
        ((_, props),) = self.transient_calls()
        self.assertEqual(props['CPUWeight'], 40)
        time.sleep(0.5)
        self.assertEqual(self.unit_property_calls_for(unit), [])

    def test_bad_input_moves_nothing(self):
        unknown = self.spawn(['sleep', '60'])
        editor = self.tree_of_app('org.example.Editor')
        real = self.tree_of_app('org.example.Real')
        root = next(int(p) for p in os.listdir('/proc') if p.isdigit() and int(p) > 2 and
                    os.stat(f'/proc/{p}').st_uid == 0 and
                    open(f'/proc/{p}/stat', encoding='ascii').read().split()[3] != '2')
        table = [
            (([], {}), 'InvalidArgument', ''),
            (([1], {}), 'Protected', 'Process 1'),
            (([2], {}), 'Protected', 'kernel thread'),
            (([root], {}), 'Protected', f'Process {root}'),
            (([self.daemon.pid], {}), 'Protected', str(self.daemon.pid)),
            (([4194304 + 7], {}), 'InvalidArgument', 'no process'),
            (([0], {}), 'InvalidArgument', 'no process'),
            (([unknown.pid], {}), 'InvalidArgument', 'AppId'),
            (([editor.pid, real.pid], {}), 'InvalidArgument', 'different apps'),
            (([editor.pid, 1], {}), 'Protected', 'Process 1'),
            (([editor.pid], {'AppId': s('not an id')}), 'InvalidArgument', ''),
            (([editor.pid], {'AppId': t(1)}), 'InvalidArgument', 'AppId'),
            (([editor.pid], {'Launcher': s('X')}), 'InvalidArgument', 'Launcher'),
            (([editor.pid], {'Kind': s('scope')}), 'InvalidArgument', 'Kind'),
            # a cap before any /proc read: a million pids is refused at once
            (([editor.pid] * 1000000, {}), 'InvalidArgument', 'at most 1024'),
        ]
        for args, error, words in table:
            with self.subTest(args=args if len(args[0]) < 10 else 'many pids'):
                message = self.assert_rc_error(error, 'Adopt', args, AD)
                self.assertIn(words, message)
        self.assertEqual(self.systemd_calls('StartTransientUnit'), [])

    def test_denied_by_polkit_moves_nothing(self):
        self.set_rules(body=f'''
            if (action.id == "{h.ACTION_PREFIX}adopt")
                return polkit.Result.NO;
            return polkit.Result.YES;''')
        proc = self.tree_of_app('org.example.Editor')
        self.assert_rc_error('NotAuthorized', 'Adopt', ([proc.pid], {}), AD)
        self.assertEqual(self.systemd_calls('StartTransientUnit'), [])

    def test_client_adopt(self):
        proc = self.tree_of_app('org.example.Editor')
        out = self.run_client('adopt', str(proc.pid))
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertEqual(out.stdout.strip(), f'app-rc-org.example.Editor-{proc.pid}.scope')
        out = self.run_client('adopt', 'nope')
        self.assertEqual(out.returncode, 2, out.stderr)

    def test_client_adopt_all_shows_the_plan_before_asking(self):
        editor = self.tree_of_app('org.example.Editor')
        painter = self.spawn([self.painter, '60'])
        unknown = self.spawn(['sleep', '62'])
        out = self.run_client('adopt', '--all')
        # no terminal to ask on, no --yes: the plan, and nothing moved
        self.assertEqual(out.returncode, 2, out.stderr)
        self.assertIn('--yes', out.stderr)
        plan = out.stdout
        moving, _, staying = plan.partition('Will stay where they are')
        # per app, what moves (other tests of this user may run trees of the same apps)
        groups, app = {}, None
        for line in moving.splitlines()[1:]:
            if line.startswith('  ') and not line.startswith('   '):
                app = line.strip()
            elif app is not None:
                groups[app] = groups.get(app, '') + line
        self.assertIn(f'{editor.pid} (sh)', groups.get('org.example.Editor', ''), moving)
        self.assertIn(f'{painter.pid} (painter)', groups.get('org.example.Painter', ''), moving)
        self.assertIn(f'{unknown.pid} (sleep)', staying)
        self.assertEqual(self.systemd_calls('StartTransientUnit'), [])


if __name__ == '__main__':
    sys.exit(h.main())
