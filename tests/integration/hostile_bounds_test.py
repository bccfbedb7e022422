#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
'''A hostile process of the same user against the daemon's bounds: what one call,
one folder or one peer can make the daemon do before polkit is asked, on its main
loop, or for every other caller.'''

import os
import subprocess
import sys

import launch_test
import rctest_harness as h

AD = '(aua{sv})'


class AdoptRepeatsTest(launch_test.LaunchBase):
    '''Adopt's pids: the work before polkit is one read per distinct process.'''

    def spawn_editor(self):
        desktop = os.path.join(self.applications_dir, 'org.example.Editor.desktop')
        # pylint: disable=consider-using-with
        proc = subprocess.Popen(['sleep', '60'], env=dict(os.environ, GIO_LAUNCHED_DESKTOP_FILE=desktop),
                                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
        self.addCleanup(proc.wait)
        self.addCleanup(proc.kill)
        return proc

    def reads_of(self, pid):
        '''How often the daemon worked out which app pid is (one debug line each).'''
        with open(self.daemon_logs[-1], encoding='utf-8', errors='replace') as f:
            return sum(1 for line in f if f'Process {pid} is org.example.Editor (found by' in line)

    def test_repeated_pid_is_read_once(self):
        self.set_rules(body=f'''
            if (action.id == "{h.ACTION_PREFIX}adopt")
                return polkit.Result.NO;
            return polkit.Result.YES;''')
        proc = self.spawn_editor()
        self.assert_rc_error('NotAuthorized', 'Adopt', ([proc.pid] * 1024, {}), AD)
        self.assertEqual(self.reads_of(proc.pid), 1)
        self.assertEqual(self.systemd_calls('StartTransientUnit'), [])


if __name__ == '__main__':
    sys.exit(h.main())
