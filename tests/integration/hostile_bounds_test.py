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
from rcbase import APP, Base

AD = '(aua{sv})'
OTHER_APP = 'app-gnome-org.example.Other-99.scope'


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


class AuthorityFairnessTest(Base):
    '''Checks in flight: a flood from many connections of the user leaves another
    caller's call answered, and early.'''

    def setUp(self):
        super().setUp()
        self.add_app(APP)
        self.add_app(OTHER_APP)
        self.clear_systemd_calls()

    def test_flood_from_many_connections_leaves_a_caller_answered(self):
        self.pause_polkitd()
        # 20 connections of 16 checks each: 320, over the 256 in flight for all
        flooders = [self.other_connection() for _ in range(20)]
        flood = [self.call_async('SetWeight', (APP, 200), '(st)', conn=conn)
                 for conn in flooders for _ in range(16)]
        self.wait_until(lambda: sum(c.done for c in flood) == len(flood) - 256, h.scaled(10),
                        'the checks over the 256 refused')
        # another app: its write does not queue behind the flood's writes to APP
        mine = self.call_async('SetWeight', (OTHER_APP, 300), '(st)', conn=self.other_connection())
        self.iterate(0.3)
        self.assertFalse(mine.done, mine.error and h.dbus_error_message(mine.error))
        self.resume_polkitd()
        self.wait_pending(mine, timeout=h.scaled(20))
        self.assertIsNone(mine.error, mine.error and h.dbus_error_message(mine.error))
        # its turn came round the callers, not behind every check sent before it
        for c in flood:
            self.wait_pending(c, timeout=h.scaled(30))
        before = sum(c.error is None and c.finished_at < mine.finished_at for c in flood)
        self.assertLess(before, 64, f'{before} flood checks were answered before it')


if __name__ == '__main__':
    sys.exit(h.main())
