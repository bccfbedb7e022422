#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
'''The session's environment reaching the user manager the way sway's, i3's and Hyprland's
configs send it: `systemctl --user import-environment` talks to systemd over its private
socket, so the daemon sees no call and systemd 252 sends no PropertiesChanged. What such a
config does next is start its session target; a daemon-reload runs the environment generators
again. The daemon reads the environment after either, a burst costing a read or two.

    RC_DAEMON=build/src/resource-controld RC_CLIENT=build/src/resourcectl \\
        /usr/bin/python3 tests/integration/focus_environment_test.py [Class.test_name ...]
'''

import os
import sys

import rctest_harness as h
from focus_test import FakeSway, SwayBase


class ImportedEnvironmentTest(SwayBase):
    '''The mock's ImportEnvironment changes the Environment property without a word on the bus.'''

    def import_environment(self, assignments):
        self.mock('ImportEnvironment', (assignments,), '(as)')

    def end_jobs(self, units):
        self.mock('EndJobs', (units,), '(as)')

    def environment_reads(self):
        '''How often the manager's Environment was read: dbusmock logs a property's Get only in its
        log file, which it writes before it answers.'''
        with open(self.mock_log, encoding='utf-8') as f:
            return sum(1 for line in f if line.rstrip().endswith(' Get /org/freedesktop/systemd1 '
                                                                 'org.freedesktop.systemd1.Manager.Environment'))

    def test_a_session_target_after_import_environment(self):
        self.start_daemon()
        self.assertEqual(self.focus_source(), 'none')
        reads = self.environment_reads()
        # sway's config: import-environment, then its session target; an app's job ends too
        self.import_environment([f'SWAYSOCK={self.sway.path}', 'WAYLAND_DISPLAY=wayland-1'])
        self.end_jobs(['app-sway-foot-4.scope', 'sway-session.target'])
        conn = self.connection()
        self.wait_source('sway')
        # the target's job was read for, the scope's was not
        self.assertEqual(self.environment_reads(), reads + 1)
        conn.sendall(FakeSway.focus_event(self.pids[1]))
        self.wait_weights([100, 300, 100])

    def test_a_burst_of_target_jobs_costs_a_read_or_two(self):
        self.start_daemon()
        reads = self.environment_reads()
        self.import_environment([f'SWAYSOCK={self.sway.path}'])
        # a session's start: graphical-session.target and its kin, many at once
        self.end_jobs([f'rc-test-{i}.target' for i in range(200)])
        self.connection()
        self.wait_source('sway')
        # sway restarts with a new socket; one more target: reads are in order, so once the
        # daemon follows the new socket every read of the burst is done
        sway2 = FakeSway(os.path.join(self.workdir, 'sway-ipc-2.sock'))
        self.addCleanup(sway2.close)
        self.import_environment([f'SWAYSOCK={sway2.path}'])
        self.end_jobs(['sway-session.target'])
        self.wait_until(lambda: not sway2.connections.empty(), 10, 'the daemon to follow sway')
        self.assertLessEqual(self.environment_reads() - reads, 4)

    def test_a_daemon_reload(self):
        self.start_daemon()
        self.import_environment([f'SWAYSOCK={self.sway.path}'])
        self.mock('Reload')
        self.connection()
        self.wait_source('sway')


if __name__ == '__main__':
    sys.exit(h.main())
