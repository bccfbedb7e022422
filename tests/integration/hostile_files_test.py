#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
'''Files any app of the user can put where the daemon looks for desktop files
and transient units: a FIFO must not stall the daemon, a link to /dev/zero
must not fill its memory. Desktop files are found without GIO's own index,
which opens every file of the applications folders and mimeapps.list
blocking and reads them whole.'''
import os
import shutil
import subprocess
import sys
import rctest_harness as h
from rctest_harness import RcTestCase

AD = '(aua{sv})'
LA = '(sasa{sv})'
# A stalled daemon is seen by a call that is not answered in this time.
CALL_MS = 8000


class HostileFilesTest(RcTestCase):

    start_daemon_in_setup = False

    def setUp(self):
        super().setUp()
        self.user_applications = os.path.join(self.xdg_env['XDG_DATA_HOME'], 'applications')
        os.makedirs(self.user_applications, exist_ok=True)

    def daemon_log(self):
        with open(self.daemon_logs[-1], encoding='utf-8', errors='replace') as f:
            return f.read()

    def records(self):
        # the short call deadline is the check: a stalled main loop fails it (the full
        # records: ListApps leaves out an empty DesktopFile)
        apps = self.rc_call('ListAppRecords', timeout_ms=CALL_MS)[0]
        self.assertIsNone(self.daemon.poll())
        return {r['Unit']: r for r in apps}

    def user_desktop(self, app_id, name, exec_line='/bin/true'):
        h._write(os.path.join(self.user_applications, app_id + '.desktop'),
                 f'[Desktop Entry]\nType=Application\nName={name}\nExec={exec_line}\n')

    def test_fifo_desktop_file_of_an_app(self):
        self.start_daemon()
        os.mkfifo(os.path.join(self.user_applications, 'org.example.Fifo.desktop'))
        os.symlink('/dev/zero', os.path.join(self.user_applications, 'org.example.Zero.desktop'))
        self.user_desktop('org.example.Good', 'Good App')
        self.add_app('app-gnome-org.example.Fifo-1.scope')
        self.add_app('app-gnome-org.example.Zero-3.scope')
        self.add_app('app-gnome-org.example.Good-2.scope')
        records = self.records()
        zero = records['app-gnome-org.example.Zero-3.scope']
        self.assertEqual((zero['Name'], zero['DesktopFile']), ('org.example.Zero', ''))
        fifo = records['app-gnome-org.example.Fifo-1.scope']
        self.assertEqual((fifo['Name'], fifo['DesktopFile']), ('org.example.Fifo', ''))
        good = records['app-gnome-org.example.Good-2.scope']
        self.assertEqual((good['Name'], good['DesktopFile']),
                         ('Good App', os.path.join(self.user_applications,
                                                   'org.example.Good.desktop')))
        self.assertIn('not a regular file', self.daemon_log())

    def test_fifo_mimeapps_list(self):
        # GIO reads mimeapps.list with its index; the daemon never reads it
        os.mkfifo(os.path.join(self.xdg_env['XDG_CONFIG_HOME'], 'mimeapps.list'))
        self.start_daemon()
        self.add_app('app-gnome-org.example.Editor-1.scope')
        record = self.records()['app-gnome-org.example.Editor-1.scope']
        self.assertEqual(record['Name'], 'Test Editor')

    def transient_file(self, unit):
        folder = os.path.join(self.runtime_dir, 'systemd', 'transient')
        os.makedirs(folder, exist_ok=True)
        return os.path.join(folder, unit)

    def test_fifo_transient_unit_file(self):
        self.start_daemon()
        # services are not transient in the mock: it leaves the file alone
        unit = 'app-gnome-org.example.Editor@1234.service'
        os.mkfifo(self.transient_file(unit))
        self.add_app(unit)
        self.assertEqual(self.records()[unit]['Name'], 'Test Editor')

    def test_transient_unit_file_linked_to_dev_zero(self):
        self.start_daemon()
        unit = 'app-gnome-org.example.Real@5678.service'
        os.symlink('/dev/zero', self.transient_file(unit))
        self.add_app(unit)
        self.assertEqual(self.records()[unit]['Name'], 'The Real App')

    def test_launch_and_adopt_with_a_fifo_among_the_desktop_files(self):
        os.mkfifo(os.path.join(self.user_applications, 'org.example.Fifo.desktop'))
        bin_dir = os.path.join(self.workdir, 'bin')
        os.makedirs(bin_dir)
        painter = os.path.join(bin_dir, 'painter')
        shutil.copy('/bin/sleep', painter)
        self.user_desktop('org.example.Painter', 'Painter', f'{painter} 300')
        self.start_daemon()
        # Adopt finds the app by its program: every desktop file is read
        proc = subprocess.Popen([painter, '60'], stdin=subprocess.DEVNULL)  # pylint: disable=consider-using-with
        self.addCleanup(proc.wait)
        self.addCleanup(proc.kill)
        unit = self.rc_call('Adopt', ([proc.pid], {}), AD, timeout_ms=CALL_MS)[0]
        self.assertEqual(unit, f'app-rc-org.example.Painter-{proc.pid}.scope')
        self.assertEqual(self.records()[unit]['Name'], 'Painter')
        # Launch of the FIFO's app: no such app, at once
        message = self.assert_rc_error('NoSuchApp', 'Launch', ('org.example.Fifo', [], {}), LA,
                                       timeout_ms=CALL_MS)
        self.assertIn('org.example.Fifo', message)


if __name__ == '__main__':
    sys.exit(h.main())
