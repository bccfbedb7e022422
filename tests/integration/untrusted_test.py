#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
'''Files another process chose: a unit's SourcePath, rules.d entries, the
state file. A FIFO must not stall the daemon, a device must not fill its
memory, and a file name must not become an invalid AppID.'''
import os
import sys
import rctest_harness as h
from rctest_harness import RcTestCase


class UntrustedFilesTest(RcTestCase):

    start_daemon_in_setup = False

    def daemon_log_lines(self):
        with open(self.daemon_logs[-1], encoding='utf-8', errors='replace') as f:
            return f.read().splitlines()

    def assert_answers(self):
        # the harness's call deadline is the check: a stalled main loop fails it (the full
        # records: ListApps leaves out an empty DesktopFile)
        apps = self.rc_call('ListAppRecords')[0]
        self.assertIsNone(self.daemon.poll())
        return apps

    def test_source_path_fifo_and_device(self):
        self.start_daemon()
        folder = os.path.join(self.workdir, 'chosen')
        os.makedirs(folder)
        fifo = os.path.join(folder, 'org.example.Fifo.desktop')
        os.mkfifo(fifo)
        zero = os.path.join(folder, 'org.example.Zero.desktop')
        os.symlink('/dev/zero', zero)
        self.add_app('app-gnome-org.example.A-1.scope', source_path=fifo)
        self.add_app('app-gnome-org.example.B-2.scope', source_path=zero)
        records = {r['Unit']: r for r in self.assert_answers()}
        self.assertEqual(records['app-gnome-org.example.A-1.scope']['AppId'], 'org.example.Fifo')
        self.assertEqual(records['app-gnome-org.example.A-1.scope']['Name'], 'org.example.Fifo')
        self.assertEqual(records['app-gnome-org.example.B-2.scope']['AppId'], 'org.example.Zero')
        self.assertEqual(records['app-gnome-org.example.B-2.scope']['DesktopFile'], '')
        self.assertTrue(any('not a regular file' in line for line in self.daemon_log_lines()))

    def test_file_name_that_is_no_app_id(self):
        self.start_daemon()
        bad = os.path.join(self.workdir, 'not an id!.desktop')
        h._write(bad, '[Desktop Entry]\nType=Application\nName=Odd\nExec=/bin/true\n')
        self.add_app('app-gnome-org.example.A-1.scope', source_path=bad)
        (record,) = self.assert_answers()
        self.assertEqual(record['AppId'], 'org.example.A')
        self.assertEqual(record['Name'], 'Odd')

    def test_rules_fifo_and_state_fifo(self):
        os.makedirs(self.user_rules_dir, exist_ok=True)
        os.mkfifo(os.path.join(self.user_rules_dir, '00-fifo.conf'))
        os.symlink('/dev/zero', os.path.join(self.user_rules_dir, '01-zero.conf'))
        h._write(os.path.join(self.user_rules_dir, '10-good.conf'),
                 '[org.example.A]\nCPUWeight=44\n')
        state_dir = os.path.join(self.runtime_dir, 'resource-control')
        os.makedirs(state_dir, exist_ok=True)
        os.mkfifo(os.path.join(state_dir, 'state'))
        self.start_daemon()
        self.add_app('app-gnome-org.example.A-1.scope')
        self.assert_answers()
        # the good rule still applies
        self.wait_until(lambda: self.cgroup_file('app-gnome-org.example.A-1.scope',
                                                 'cpu.weight') == '44',
                        message='cpu.weight 44 from the good rule')
        self.assertTrue(any('00-fifo.conf' in line for line in self.daemon_log_lines()))


if __name__ == '__main__':
    sys.exit(h.main())
