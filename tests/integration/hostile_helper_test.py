#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
'''The launch helper's test hooks set by a process of the same user. The daemon runs
resource-control-scope-helper as a transient service of the user's manager, whose
environment any process of the user can change (`systemctl --user set-environment`).
RC_SCOPE_HELPER_TEST_PAUSE there would stop every scope launch; RC_CGROUP_ROOT would tell
the held process it is in its scope when it is not. The helper reads them only with the
argument that a daemon run with --test-hooks, and no other, passes it.

The mock systemd runs only the program a transient service names. Without --test-hooks the
daemon names the installed helper, so the helper of this build is run here as the daemon
asked for it: its arguments from the daemon's StartTransientUnit, its manager the mock.

    RC_DAEMON=build/src/resource-controld RC_CLIENT=build/src/resourcectl \\
        /usr/bin/python3 tests/integration/hostile_helper_test.py [Class.test_name ...]
'''

import os
import subprocess
import sys

from gi.repository import GLib

import rctest_harness as h
from rctest_harness import RcTestCase, s

APP = 'org.example.Held'
REQUEST_TYPE = '(sa(sv)asasss)'   # RC_SCOPE_HELPER_REQUEST_TYPE
HOOKS_ARG = '--test-hooks'        # RC_SCOPE_HELPER_TEST_HOOKS_ARG


class HelperHooksTest(RcTestCase):
    '''The helper's hooks in its environment, as the daemon starts it with and without
    --test-hooks.'''

    start_daemon_in_setup = False

    def setUp(self):
        super().setUp()
        h._write(os.path.join(self.applications_dir, APP + '.desktop'),
                 '[Desktop Entry]\nType=Application\nName=Held\nExec=/bin/true\n')
        self.helper = os.path.join(os.path.dirname(os.path.abspath(self.daemon_path)),
                                   'resource-control-scope-helper')

    def helper_args(self, test_hooks):
        '''The arguments after the program that the daemon, started with or without
        --test-hooks, asks systemd to run its launch helper with.'''
        self.start_daemon(test_hooks=test_hooks)
        try:
            self.rc_call('Launch', (APP, [], {'Kind': s('scope')}), '(sasa{sv})')
        except GLib.Error:
            pass   # without --test-hooks the helper named is the installed one
        self.stop_daemon()
        (helper_unit,) = [call for call in self.systemd_calls('StartTransientUnit')
                          if call[0].startswith('resource-control-launch-')]
        self.clear_systemd_calls()
        ((_, argv, _),) = dict(helper_unit[2])['ExecStart']
        return [str(a) for a in argv[1:]]

    def run_helper(self, args, **hooks):
        '''This build's helper with @args and @hooks in its environment, as the manager
        would run it: 'stopped' (SIGSTOP) or its answer, and where the app's output would be.'''
        unit = f'app-rc-{APP}-{os.urandom(8).hex()}.scope'
        ran = os.path.join(self.workdir, unit + '.ran')
        request = GLib.Variant(REQUEST_TYPE, (
            unit, [('Description', s('Held')), ('Slice', s('app.slice'))],
            ['/bin/sh', '-c', f'echo ran > {ran}'], [], '', APP))
        with open(os.path.join(self.workdir, unit + '.log'), 'wb') as log:
            # pylint: disable=consider-using-with
            proc = subprocess.Popen([self.helper] + args, env=dict(self.bus_env, **hooks),
                                    stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log)
        self.addCleanup(h.terminate, proc)
        proc.stdin.write(request.get_data_as_bytes().get_data())
        proc.stdin.close()

        def ended_or_stopped():
            if proc.poll() is not None:
                return 'ended'
            # not reaped yet: its /proc entry stays
            with open(f'/proc/{proc.pid}/stat', encoding='ascii') as f:
                state = f.read().rsplit(')', 1)[1].split()[0]
            return 'stopped' if state == 'T' else None

        if self.wait_until(ended_or_stopped, 20, 'the helper to end or stop') == 'stopped':
            proc.kill()   # its held process reads end-of-file and exits
            proc.wait()
            return 'stopped', ran
        return proc.stdout.read().decode(errors='replace').strip(), ran

    def test_the_daemon_passes_the_hooks_only_with_its_own(self):
        self.assertEqual(self.helper_args(test_hooks=False), [])
        self.assertEqual(self.helper_args(test_hooks=True), [HOOKS_ARG])

    def test_the_managers_environment_does_not_stop_the_helper(self):
        hooks = {'RC_SCOPE_HELPER_TEST_PAUSE': 'before-start'}
        answer, _ = self.run_helper(self.helper_args(test_hooks=False), **hooks)
        self.assertNotEqual(answer, 'stopped', 'the manager\'s environment stopped the helper')
        # past the scope's start, to the held process's own check (here, where no real scope
        # holds it, a refusal)
        self.assertRegex(answer, r"^The app's process is not in app-rc-\S+\.scope: not started$")
        # the same variables, and the argument of a daemon run with --test-hooks: it stops
        answer, _ = self.run_helper(self.helper_args(test_hooks=True), **hooks)
        self.assertEqual(answer, 'stopped')

    def test_the_managers_environment_does_not_say_where_the_app_is(self):
        # the mock lists the held process in its scope's folder of the fake cgroupfs; the
        # kernel (/proc/self/cgroup) has it where this test runs
        hooks = {'RC_CGROUP_ROOT': self.cgroup_root}
        answer, ran = self.run_helper(self.helper_args(test_hooks=False), **hooks)
        self.assertRegex(answer, r"^The app's process is not in app-rc-\S+\.scope: not started$")
        self.assertFalse(os.path.exists(ran), 'the app ran outside its scope')
        # the same variable, and the argument of a daemon run with --test-hooks: it runs
        answer, ran = self.run_helper(self.helper_args(test_hooks=True), **hooks)
        self.assertEqual(answer, 'ok')
        self.wait_until(lambda: os.path.exists(ran), 10, 'the app to run')


if __name__ == '__main__':
    sys.exit(h.main())
