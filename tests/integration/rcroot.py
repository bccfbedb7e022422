# SPDX-License-Identifier: LGPL-2.1-or-later
'''Root side of the integration harness (rctest_harness.py).

Started as root, the test program's main() creates the test user and runs the
RootSupervisor: a private system bus and a real polkitd in its own mount namespace,
the delegated test cgroup, and a line (RootControl) over which the tests, re-executed
as the test user, ask it to stop, pause or restart polkitd or to run a command as
another user.
'''

import fcntl
import glob
import json
import os
import pwd
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import unittest

from rcnames import POLKIT_NAME
from rcutil import (HERE, SOURCE_ROOT, TEST_USER, _alive, _empty_cgroup, _write,  # noqa: F401
                    _write_existing, scaled)


def _ensure_user(name):
    try:
        return pwd.getpwnam(name)
    except KeyError:
        pass
    # tests run in parallel: only one useradd at a time
    with open('/tmp/.rc-integration-useradd.lock', 'w', encoding='ascii') as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            return pwd.getpwnam(name)
        except KeyError:
            subprocess.run(['useradd', '--system', '--user-group', '--no-create-home',
                            '--home-dir', '/nonexistent', '--shell', '/usr/sbin/nologin', name],
                           check=True)
            return pwd.getpwnam(name)


SYSTEM_BUS_CONF = '''<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-BUS Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>system</type>
  <listen>unix:path={socket}</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/>
    <allow own="*"/>
    <allow send_destination="*"/>
    <allow receive_sender="*"/>
  </policy>
</busconfig>
'''


class RootSupervisor:
    '''Runs as root: the private system bus, polkitd and the unprivileged test run.'''

    def __init__(self, argv):
        self.argv = argv
        self.user = _ensure_user(TEST_USER)
        self.topdir = tempfile.mkdtemp(prefix='rc-integration-')
        os.chmod(self.topdir, 0o755)
        os.chown(self.topdir, self.user.pw_uid, self.user.pw_gid)
        self.pkdir = os.path.join(self.topdir, 'polkit')
        self.actions_dir = os.path.join(self.pkdir, 'actions')
        self.rules_dir = os.path.join(self.pkdir, 'rules')
        self.empty_dir = os.path.join(self.pkdir, 'empty')
        self.polkitd_log = os.path.join(self.pkdir, 'polkitd.log')
        self.bus = None
        self.bus_address = None
        self.polkitd = None
        self.cgroup_home = None
        self.cgroup_dir = None

    def _delegate_cgroup(self):
        '''A real cgroup v2 subtree owned by the test user, or None.

        The daemon finds "the unit that contains the caller" (and itself) through
        /proc/PID/cgroup, which no mock can fake. With a delegated subtree the
        tests put themselves and the daemon into distinct real cgroups and give
        mock units those ControlGroup paths.
        '''
        mount = None
        with open('/proc/self/mountinfo', encoding='utf-8') as f:
            for line in f:
                left, _, right = line.partition(' - ')
                if right.split()[0] == 'cgroup2':
                    mount = left.split()[4]
                    break
        own = None
        with open('/proc/self/cgroup', encoding='utf-8') as f:
            for line in f:
                if line.startswith('0::'):
                    own = line[3:].strip()
        if mount is None or own is None:
            return
        home = os.path.join(mount, own.lstrip('/'))
        # A run that was killed left its cgroup, and maybe processes in it: they would
        # take CPU from this run, and a folder named for this pid would leave it none.
        for stale in glob.glob(os.path.join(glob.escape(home), 'rc-integration-*')):
            pid = stale.rsplit('-', 1)[1]
            if pid.isdigit() and (int(pid) == os.getpid() or not _alive(int(pid))):
                _empty_cgroup(stale)
        path = os.path.join(home, f'rc-integration-{os.getpid()}')
        try:
            os.mkdir(path)
            os.mkdir(os.path.join(path, 'tests'))
            for entry in ['', 'cgroup.procs', 'cgroup.threads', 'cgroup.subtree_control']:
                os.chown(os.path.join(path, entry), self.user.pw_uid, self.user.pw_gid)
            # the child inherits the cgroup; it cannot move itself out of ours
            _write_existing(os.path.join(path, 'tests', 'cgroup.procs'), str(os.getpid()))
        except OSError as e:
            print(f'note: no delegated cgroup ({e}); tests that need one will fail', file=sys.stderr)
            if os.path.isdir(path):
                for d in (os.path.join(path, 'tests'), path):
                    try:
                        os.rmdir(d)
                    except OSError:
                        pass
            return
        self.cgroup_home = home
        self.cgroup_dir = path

    def _undelegate_cgroup(self):
        if self.cgroup_dir is None:
            return
        try:
            _write_existing(os.path.join(self.cgroup_home, 'cgroup.procs'), str(os.getpid()))
        except OSError:
            pass
        # processes a test left behind go too, not on into the next run
        _empty_cgroup(self.cgroup_dir)

    def _prepare_polkit_dirs(self):
        for d in (self.pkdir, self.actions_dir, self.rules_dir, self.empty_dir):
            os.makedirs(d, exist_ok=True)
            os.chmod(d, 0o755)
        policy_dir = os.environ.get('RC_POLICY_DIR', os.path.join(SOURCE_ROOT, 'data', 'polkit'))
        policies = sorted(glob.glob(os.path.join(policy_dir, '*.policy')))
        if not policies:
            raise RuntimeError(f'no .policy file in {policy_dir} (set RC_POLICY_DIR)')
        for p in policies + [os.path.join(HERE, 'org.example.ResourceControlTest.policy')]:
            shutil.copy(p, self.actions_dir)
            os.chmod(os.path.join(self.actions_dir, os.path.basename(p)), 0o644)
        # the tests rewrite the rules, as the test user
        os.chown(self.rules_dir, self.user.pw_uid, self.user.pw_gid)
        _write(self.polkitd_log, '')

    def start_system_bus(self):
        conf = os.path.join(self.pkdir, 'system.conf')
        _write(conf, SYSTEM_BUS_CONF.format(socket=os.path.join(self.pkdir, 'system_bus_socket')))
        with open(os.path.join(self.pkdir, 'system-bus.log'), 'wb') as log:
            # pylint: disable=consider-using-with
            self.bus = subprocess.Popen(['dbus-daemon', '--config-file', conf, '--nofork',
                                         '--print-address=1'], stdout=subprocess.PIPE, stderr=log)
        self.bus_address = self.bus.stdout.readline().decode().strip()
        if not self.bus_address:
            raise RuntimeError('private system bus did not start')

    def start_polkitd(self):
        if self.polkitd is not None and self.polkitd.poll() is None:
            return
        script = (f'mount --bind {shlex.quote(self.actions_dir)} /usr/share/polkit-1/actions && '
                  f'mount --bind {shlex.quote(self.rules_dir)} /etc/polkit-1/rules.d && ')
        if os.path.isdir('/usr/share/polkit-1/rules.d'):
            script += f'mount --bind {shlex.quote(self.empty_dir)} /usr/share/polkit-1/rules.d && '
        script += 'exec /usr/lib/polkit-1/polkitd --no-debug'
        env = dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=self.bus_address)
        # pylint: disable=consider-using-with
        log = open(self.polkitd_log, 'ab')
        log.write(f'--- polkitd started at {time.time():.3f}\n'.encode())
        log.flush()
        self.polkitd = subprocess.Popen(['unshare', '--mount', '--propagation', 'private',
                                         'sh', '-c', script],
                                        env=env, stdout=log, stderr=subprocess.STDOUT,
                                        start_new_session=True)
        log.close()
        rc = subprocess.run(['gdbus', 'wait', '--system', '--timeout', str(int(scaled(20))),
                             POLKIT_NAME], env=env, check=False).returncode
        if rc != 0 or self.polkitd.poll() is not None:
            raise RuntimeError('polkitd did not start; see ' + self.polkitd_log)

    def stop_polkitd(self):
        if self.polkitd is None:
            return
        if self.polkitd.poll() is None:
            os.kill(self.polkitd.pid, signal.SIGCONT)
            self.polkitd.terminate()
            try:
                self.polkitd.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.polkitd.kill()
                self.polkitd.wait()
        self.polkitd = None
        # the name must be gone before the test goes on, or it tests nothing
        env = dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=self.bus_address)
        deadline = time.monotonic() + scaled(10)
        while time.monotonic() < deadline:
            out = subprocess.run(['gdbus', 'call', '--system', '--dest', 'org.freedesktop.DBus',
                                  '--object-path', '/org/freedesktop/DBus', '--method',
                                  'org.freedesktop.DBus.NameHasOwner', POLKIT_NAME],
                                 env=env, capture_output=True, text=True, check=False).stdout
            if 'false' in out:
                return
            time.sleep(0.02)
        raise RuntimeError('polkitd still owns its name after being stopped')

    def _signal_polkitd(self, signum):
        if self.polkitd is None or self.polkitd.poll() is not None:
            raise RuntimeError('polkitd is not running')
        os.kill(self.polkitd.pid, signum)

    def _run_as(self, request):
        user = pwd.getpwnam(request['user'])
        env = dict(request.get('env', {}))
        env.setdefault('PATH', '/usr/sbin:/usr/bin:/sbin:/bin')
        proc = subprocess.run(request['argv'], env=env, capture_output=True, text=True,
                              user=user.pw_uid, group=user.pw_gid, extra_groups=[],
                              timeout=request.get('timeout', 30), check=False, cwd='/')
        return {'rc': proc.returncode, 'stdout': proc.stdout, 'stderr': proc.stderr}

    def _handle(self, request):
        op = request.get('op')
        if op == 'polkit-stop':
            self.stop_polkitd()
        elif op == 'polkit-start':
            self.start_polkitd()
        elif op == 'polkit-pause':
            self._signal_polkitd(signal.SIGSTOP)
        elif op == 'polkit-resume':
            self._signal_polkitd(signal.SIGCONT)
        elif op == 'run-as':
            return self._run_as(request)
        elif op == 'copy-out':
            # a file a test made (a screenshot) into a folder the test user may not write
            os.makedirs(request['folder'], exist_ok=True)
            shutil.copy(request['path'], request['folder'])
        else:
            raise RuntimeError(f'unknown request {op!r}')
        return {}

    def _serve(self, sock):
        with sock.makefile('rw', encoding='utf-8') as f:
            for line in f:
                try:
                    reply = self._handle(json.loads(line))
                    reply['ok'] = True
                except Exception as e:  # pylint: disable=broad-except
                    reply = {'ok': False, 'error': f'{type(e).__name__}: {e}'}
                f.write(json.dumps(reply) + '\n')
                f.flush()

    def run(self):
        parent_sock, child_sock = socket.socketpair()
        try:
            self._prepare_polkit_dirs()
            self.start_system_bus()
            self.start_polkitd()
            self._delegate_cgroup()
            env = dict(os.environ)
            env.update({
                'RC_TEST_CHILD': '1',
                'RC_TEST_CONTROL_FD': str(child_sock.fileno()),
                'RC_TEST_TOPDIR': self.topdir,
                'RC_TEST_RULES_DIR': self.rules_dir,
                'RC_TEST_POLKITD_LOG': self.polkitd_log,
                'DBUS_SYSTEM_BUS_ADDRESS': self.bus_address,
                'HOME': self.topdir,
                'USER': TEST_USER,
                'LOGNAME': TEST_USER,
                'PYTHONDONTWRITEBYTECODE': '1',
            })
            if self.cgroup_dir:
                env['RC_TEST_CGROUP_DIR'] = self.cgroup_dir
            for var in ('DBUS_SESSION_BUS_ADDRESS', 'XDG_RUNTIME_DIR', 'DISPLAY', 'WAYLAND_DISPLAY'):
                env.pop(var, None)
            with subprocess.Popen([sys.executable, '-B', os.path.abspath(self.argv[0])] + self.argv[1:],
                                  env=env, pass_fds=[child_sock.fileno()], cwd=self.topdir,
                                  user=self.user.pw_uid, group=self.user.pw_gid,
                                  extra_groups=[]) as child:
                child_sock.close()
                self._serve(parent_sock)
                rc = child.wait()
        finally:
            parent_sock.close()
            self.stop_polkitd()
            if self.bus is not None:
                self.bus.terminate()
                self.bus.wait()
                self.bus.stdout.close()
            self._undelegate_cgroup()
            shutil.rmtree(self.topdir, ignore_errors=True)
        return rc


class RootControl:
    '''The test side's line to the root supervisor.'''

    def __init__(self, fd):
        self.sock = socket.socket(fileno=fd)
        self.file = self.sock.makefile('rw', encoding='utf-8')

    def request(self, op, **kwargs):
        kwargs['op'] = op
        self.file.write(json.dumps(kwargs) + '\n')
        self.file.flush()
        reply = json.loads(self.file.readline())
        if not reply.pop('ok'):
            raise RuntimeError(f'root supervisor: {op}: {reply["error"]}')
        return reply


_root_control = None


def root_control():
    global _root_control  # pylint: disable=global-statement
    if _root_control is None:
        _root_control = RootControl(int(os.environ['RC_TEST_CONTROL_FD']))
    return _root_control


def main():
    '''Entry point of the test program.'''
    if '--list' in sys.argv[1:]:
        # one meson test per test case
        loader = unittest.TestLoader()
        suite = loader.loadTestsFromModule(sys.modules['__main__'])

        def walk(s):
            for t in s:
                if isinstance(t, unittest.TestSuite):
                    yield from walk(t)
                else:
                    yield t
        for t in walk(suite):
            print(t.id().split('.', 1)[1])
        return 0
    if os.environ.get('RC_TEST_CHILD') == '1':
        prog = unittest.main(module='__main__', exit=False, verbosity=2)
        result = prog.result
        if _root_control is not None:
            _root_control.file.close()
            _root_control.sock.close()
        if not result.wasSuccessful():
            return 1
        if result.skipped:
            for test, reason in result.skipped:
                print(f'SKIPPED {test.id()}: {reason}', file=sys.stderr)
            # meson's "skipped" when nothing ran; CI fails on skips
            if len(result.skipped) == result.testsRun:
                return 77
        return 0
    if os.getuid() != 0:
        print('SKIP: the host integration tests need root: they create the test user '
              f'{TEST_USER!r} and run polkitd in its own mount namespace', file=sys.stderr)
        return 77
    return RootSupervisor(sys.argv).run()
