#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
'''The daemon's test hooks set by a process of the same user. A D-Bus-activated daemon gets
the user manager's environment, which any process of the user can change: the variables that
point it at a test's fake world must count only with --test-hooks, which the shipped units
never pass.

    RC_DAEMON=build/src/resource-controld RC_CLIENT=build/src/resourcectl \\
        /usr/bin/python3 tests/integration/hostile_hooks_test.py [Class.test_name ...]
'''

import os
import socket
import sys

from gi.repository import GLib

import rctest_harness as h
from rctest_harness import MIB, RcTestCase, s

HOOKED_RULE = 'org.example.FromTheHook'
REAL_OOMD_SOCKET = '/run/systemd/oom/io.system.ManagedOOM'


class TestHooksTest(RcTestCase):
    '''Each hook set in the daemon's environment, with and without --test-hooks.'''

    start_daemon_in_setup = False

    def setUp(self):
        super().setUp()
        # a rules folder, systemd-oomd's socket and a launch helper of the hook's choosing
        h._write(os.path.join(self.system_rules_dir, '10-hooked.conf'), f'[{HOOKED_RULE}]\nCPUWeight=40\n')
        self.oomd_socket = os.path.join(self.workdir, 'oomd-socket')
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.bind(self.oomd_socket)
        sock.listen(16)
        self.addCleanup(sock.close)
        self.helper = os.path.join(self.workdir, 'chosen-helper')
        h._write(self.helper, '#!/bin/sh\nexit 1\n')
        os.chmod(self.helper, 0o755)

    def daemon_env(self):
        return dict(super().daemon_env(), RC_OOMD_SOCKET=self.oomd_socket,
                    RESOURCE_CONTROL_SCOPE_HELPER=self.helper)

    def hooks_followed(self, app):
        '''Which hooks the running daemon follows, from what it does.'''
        followed = set()
        if HOOKED_RULE in self.rc_call('ListRules')[0]:
            followed.add('RESOURCE_CONTROL_SYSTEM_RULES_DIR')
        # the app's cgroup exists only in the fake tree
        self.add_app(app, controllers='cpu memory pids', memory_current=50 * MIB)
        if self.get_one(app).get('MemoryCurrent') == 50 * MIB:
            followed.add('RC_CGROUP_ROOT')
        try:
            self.rc_call('SetLimits', (app, {'ManagedOOMMemoryPressure': s('kill')}, {}),
                         '(sa{sv}a{sv})')
            followed.add('RC_OOMD_SOCKET')
        except GLib.Error as e:
            self.assertEqual(h.dbus_error_name(e), h.RC_ERROR + 'NotSupported')
        # the launch helper is what systemd is asked to run (the chosen one fails)
        try:
            self.rc_call('Launch', ('org.example.Real', [], {'Kind': s('scope')}), '(sasa{sv})')
        except GLib.Error:
            pass
        (helper_unit,) = [call for call in self.systemd_calls('StartTransientUnit')
                          if call[0].startswith('resource-control-launch-')]
        ((program, _, _),) = dict(helper_unit[2])['ExecStart']
        if program == self.helper:
            followed.add('RESOURCE_CONTROL_SCOPE_HELPER')
        return followed

    def test_hooks_count_only_with_the_option(self):
        if os.path.exists(REAL_OOMD_SOCKET):
            self.skipTest(f'{REAL_OOMD_SOCKET} exists: systemd-oomd runs here, both ways say yes')
        self.start_daemon(test_hooks=False)
        self.assertEqual(self.hooks_followed('app-gnome-org.example.Editor-7.scope'), set())
        self.stop_daemon()
        self.clear_systemd_calls()
        # the harness's way: every hook is followed
        self.start_daemon()
        self.assertEqual(self.hooks_followed('app-gnome-org.example.Editor-8.scope'),
                         {'RESOURCE_CONTROL_SYSTEM_RULES_DIR', 'RC_CGROUP_ROOT', 'RC_OOMD_SOCKET',
                          'RESOURCE_CONTROL_SCOPE_HELPER'})


if __name__ == '__main__':
    sys.exit(h.main())
