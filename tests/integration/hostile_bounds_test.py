#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
'''A hostile process of the same user against the daemon's bounds: what one call,
one folder or one peer can make the daemon do before polkit is asked, on its main
loop, or for every other caller.'''

import os
import subprocess
import sys
import time

from gi.repository import GLib

import launch_test
import notify_test
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


class RulesFolderTest(Base):
    '''A program that keeps writing the rules folder: the daemon reads it in a worker thread,
    a bounded amount, at most once a second, and answers meanwhile.'''

    def readings(self):
        with open(self.daemon_logs[-1], encoding='utf-8', errors='replace') as f:
            return sum(1 for line in f if 'Rules: ' in line and ' AppIDs, boost ' in line)

    def test_a_folder_written_without_end_is_read_once_a_second(self):
        before = self.readings()
        start = time.monotonic()
        i = 0
        # 2 s of writes, one each 20 ms: about a hundred changes
        while time.monotonic() - start < 2:
            i += 1
            self.write_rules(self.user_rules_dir, 'burst.conf', f'[org.example.Burst{i}]\nCPUWeight=50\n')
            self.iterate(0.02)
        self.write_rules(self.user_rules_dir, 'burst.conf', '[org.example.Last]\nCPUWeight=50\n')
        self.wait_until(lambda: 'org.example.Last' in self.list_rules(), h.scaled(10), 'the last write read')
        # once when the writes begin, then at most once a second: 4 in 3 s, and some slack
        self.assertLessEqual(self.readings() - before, 5, f'{i} writes')

    def test_a_big_folder_is_read_only_in_part(self):
        # 8 files of 900 KiB: about 4 MiB of them are read, the rest is said and skipped
        padding = '#' + 'x' * (900 * 1024) + '\n'
        for i in range(8):
            self.write_rules(self.user_rules_dir, f'{i:02d}.conf',
                             f'[org.example.Big{i}]\nCPUWeight=50\n' + padding)
        self.wait_until(lambda: 'org.example.Big3' in self.list_rules(), h.scaled(10), 'the first files read')
        rules = self.list_rules()
        self.assertNotIn('org.example.Big7', rules)
        with open(self.daemon_logs[-1], encoding='utf-8', errors='replace') as f:
            self.assertIn('bytes one reading of the rules reads', f.read())


# Sends Launch with its own pid as CallerPid; a child it forks keeps the bus connection and
# copies what comes on it into a file (argv[5]); the caller itself ends when told (a line on
# stdin), while systemd holds the start: the reply then goes to a pid no longer the caller's.
CALLER_THAT_ENDS = '''
import os, select, sys, time
from gi.repository import Gio, GLib
conn = Gio.DBusConnection.new_for_address_sync(
    os.environ["DBUS_SESSION_BUS_ADDRESS"],
    Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION,
    None, None)
fd = conn.get_stream().get_socket().get_fd()
message = Gio.DBusMessage.new_method_call(sys.argv[1], sys.argv[2], sys.argv[3], "Launch")
message.set_body(GLib.Variant("(sasa{sv})", (sys.argv[4], [], {
    "Kind": GLib.Variant("s", "scope"), "CallerPid": GLib.Variant("u", os.getpid())})))
conn.send_message(message, Gio.DBusSendMessageFlags.NONE)
conn.flush_sync(None)
if os.fork() == 0:
    # no GDBus thread here: the socket is this child's to read
    with open(sys.argv[5], "ab", buffering=0) as out:
        deadline = time.monotonic() + 50
        while time.monotonic() < deadline:
            if select.select([fd], [], [], 1)[0]:
                data = os.read(fd, 65536)
                if not data:
                    break
                out.write(data)
    os._exit(0)
sys.stdin.readline()
os._exit(0)
'''


class CallerPidTest(launch_test.LaunchBase):
    '''Launch's CallerPid: pinned when the call comes, checked when systemd is asked.'''

    def test_error_names_no_other_process(self):
        # pylint: disable=consider-using-with
        other = subprocess.Popen(['sleep', '60'])
        self.addCleanup(other.wait)
        self.addCleanup(other.kill)
        message = self.assert_rc_error('InvalidArgument', 'Launch', (launch_test.LAUNCHED, [], {
            'Kind': h.s('scope'), 'CallerPid': GLib.Variant('u', other.pid)}), '(sasa{sv})')
        self.assertIn('CallerPid is not the calling process', message)
        self.assertNotIn(str(other.pid), message)
        self.assertNotIn(str(os.getpid()), message)
        self.assertEqual(self.transient_calls(), [])

    def test_caller_that_ends_while_systemd_works_is_refused(self):
        self.mock('SetDelays', ('StartTransientUnit', [h.HANG]), '(sau)')
        replies = os.path.join(self.workdir, 'replies')
        # pylint: disable=consider-using-with
        caller = subprocess.Popen([sys.executable, '-B', '-c', CALLER_THAT_ENDS, h.RC_NAME,
                                   h.RC_PATH, h.RC_IFACE, launch_test.LAUNCHED, replies],
                                  env=self.bus_env, stdin=subprocess.PIPE, text=True)
        self.addCleanup(caller.wait)
        self.addCleanup(caller.kill)
        self.wait_until(lambda: self.mock('CountHung')[0] == 1, h.scaled(10),
                        'systemd holding the start')
        ((unit, props),) = self.transient_calls()
        self.assertEqual(props['PIDs'], [caller.pid])
        # the caller ends (and is reaped: its pid is free) before systemd is done
        caller.stdin.write('end\n')
        caller.stdin.flush()
        caller.wait()
        self.mock('ReleaseHung', ('StartTransientUnit',), '(s)')

        def reply():
            try:
                with open(replies, 'rb') as f:
                    text = f.read()
            except FileNotFoundError:
                return None
            return text if unit.encode() in text else None
        text = self.wait_until(reply, h.scaled(10), 'the reply to the call')
        self.assertIn(b'The calling process ended while systemd made its scope', text)


EVIL_NAME = '<b>Evil</b> & <a href="https://example.com">click</a> <img src="x"/>' + 'y' * 300


class NotificationBoundsTest(Base):
    '''What an app's desktop file and many apps at once can put on the screen.'''

    def start_server(self, capabilities=None):
        args = ['--template', 'notification_daemon']
        if capabilities is not None:
            args += ['--parameters', '{"capabilities": "%s"}' % capabilities]
        # pylint: disable=consider-using-with
        proc = subprocess.Popen([sys.executable, '-B', '-m', 'dbusmock', '--session'] + args,
                                env=self.bus_env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.addCleanup(self._terminate, proc)
        self.wait_for_name(notify_test.NOTIFY_NAME, proc, 'the notification server')

    def notifications(self):
        calls = self.conn.call_sync(notify_test.NOTIFY_NAME, notify_test.NOTIFY_PATH,
                                    h.DBUSMOCK_IFACE, 'GetMethodCalls', GLib.Variant('(s)', ('Notify',)),
                                    None, 0, 10000, None).unpack()[0]
        return [list(args) for _, args in calls]

    def killed_app(self, unit, source_path=None):
        options = {'files': {'memory.events': notify_test.EVENTS}}
        if source_path is not None:
            options['source_path'] = source_path
        self.add_app(unit, **options)
        path = os.path.join(self.cgroup_dir(unit), 'memory.events')
        notify_test.append(path, notify_test.events_text(max=1, oom=1, oom_kill=1))
        self.wait_signal('AppChanged', unit,
                         lambda a: a[1].get('MemoryEvents', {}).get('oom_kill') == 1)

    def evil_app(self):
        desktop = os.path.join(self.workdir, 'org.example.Evil.desktop')
        h._write(desktop, f'[Desktop Entry]\nType=Application\nName={EVIL_NAME}\nExec=/bin/true\n')
        self.killed_app('app-gnome-org.example.Evil-5.scope', desktop)
        ((_, _, _, summary, body, _, _, _),) = self.wait_until(self.notifications, message='a Notify')
        return summary, body

    def test_name_is_escaped_and_cut_for_a_markup_server(self):
        self.start_server()
        summary, body = self.evil_app()
        self.assertNotIn('<', body)
        self.assertIn('&lt;b&gt;Evil&lt;/b&gt; &amp; &lt;a href=', body)
        self.assertNotIn('y' * 64, body)
        self.assertIn('…', body)
        # the summary is plain text: cut, not escaped
        self.assertIn('<b>Evil</b> &', summary)
        self.assertNotIn('y' * 64, summary)

    def test_name_is_plain_text_for_a_server_without_markup(self):
        self.start_server(capabilities='body')
        _, body = self.evil_app()
        self.assertIn('<b>Evil</b> & <a href=', body)
        self.assertNotIn('y' * 64, body)

    def test_many_apps_at_once_are_five_notifications_and_one_more(self):
        self.start_server()
        for i in range(12):
            self.killed_app(f'app-gnome-org.example.Many{i}-{i + 1}.scope')
        self.wait_until(lambda: len(self.notifications()) >= 5, message='five Notify calls')
        self.iterate(0.5)
        self.assertEqual(len(self.notifications()), 5)
        # the rest, told in one notification when the budget allows (one a 12 s)
        rest = self.wait_until(lambda: [n for n in self.notifications() if 'more apps' in n[3]],
                               h.scaled(20), 'the notice of the rest')
        self.assertEqual(len(rest), 1)
        self.assertIn('7 more apps ran out of memory', rest[0][3])
        self.assertEqual(len(self.notifications()), 6)


if __name__ == '__main__':
    sys.exit(h.main())
