#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
'''Host integration tests of the memory ladder (docs/design.md, "The memory ladder"): when the
memory pressure of app.slice or of the user manager passes the [Guard] rules'
MemoryPressureThrottle, the biggest apps in the background get a lower MemoryHigh step by step
(never below their floor, never the focused app or one whose MemoryHigh was set through the
API); over MemoryPressureFreeze they are frozen, the biggest first; once the pressure stays low
each step is taken back, the last first. MemoryPressureLevel, MemoryLadderLevel and
MemoryLadderHeld say so; each step is an action-record entry of kind "ladder".

The fake kernel is a thread that keeps the fake cgroupfs's memory.pressure "some" totals growing
at set rates. A PSI trigger cannot be armed on a fake file, so the ladder takes its way without
triggers: a focus change starts the checks, which go on while there is pressure. The trigger's
way, with real memory hogs and the kernel's files, is the VM's.

    RC_DAEMON=build/src/resource-controld RC_CLIENT=build/src/resourcectl \\
        /usr/bin/python3 tests/integration/ladder_test.py [Class.test_name ...]
'''

import glob
import os
import subprocess
import sys
import threading
import time

from gi.repository import GLib

import rctest_harness as h
from power_audio_test import Base as PowerAudioBase

F = 'app-gnome-org.example.Focused-1.scope'
BIG = 'app-gnome-org.example.Big-2.scope'
SMALL = 'app-gnome-org.example.Small-3.scope'
MID = 'app-gnome-org.example.Mid-4.scope'
MIB = 1024 * 1024
GIB = 1024 * MIB
PSI = ('some avg10=0.00 avg60=0.00 avg300=0.00 total={total}\n'
       'full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n')
TICK = 0.05
EVENTS = 'low 0\nhigh {high}\nmax 0\noom 0\noom_kill 0\n'
NOTIFY_NAME = 'org.freedesktop.Notifications'
NOTIFY_PATH = '/org/freedesktop/Notifications'


class FakeKernel(threading.Thread):
    '''Grows each folder's memory.pressure "some" total at its rate (usec per second).'''

    def __init__(self):
        super().__init__(daemon=True)
        self.rates = {}
        self.values = {}
        self.lock = threading.Lock()
        self.stopping = threading.Event()

    def set_rate(self, folder, per_second):
        with self.lock:
            self.rates[folder] = per_second
            self.values.setdefault(folder, 1000)
        self.write(folder)

    def write(self, folder):
        with self.lock:
            value = int(self.values[folder])
        os.makedirs(folder, exist_ok=True)
        h._write_in_place(os.path.join(folder, 'memory.pressure'), PSI.format(total=value))

    def run(self):
        last = time.monotonic()
        while not self.stopping.wait(TICK):
            now = time.monotonic()
            with self.lock:
                folders = list(self.rates)
                for folder in folders:
                    self.values[folder] += self.rates[folder] * (now - last)
            last = now
            for folder in folders:
                if self.rates[folder]:
                    self.write(folder)


class LadderTest(PowerAudioBase):
    '''F has the focus and is the biggest; BIG is the biggest in the background, SMALL is under
    the 128 MiB floor.'''

    RULES = '[Guard]\nMemoryPressureThrottle=10\nMemoryPressureFreeze=30\n'
    APPS = ((F, 4 * GIB), (BIG, 2 * GIB), (SMALL, 100 * MIB))

    def setUp(self):
        super().setUp()
        self.write_rules(self.RULES)
        self.start_daemon()
        for unit, size in self.APPS:
            self.add_app(unit, memory_current=size, files={'memory.events': EVENTS.format(high=0)})
        manager = glob.glob(os.path.join(self.cgroup_root, 'user.slice', 'user-*.slice',
                                         'user@*.service'))
        self.assertEqual(len(manager), 1, f'the fake manager cgroup: {manager}')
        self.manager_dir = manager[0]
        self.app_slice_dir = os.path.join(self.manager_dir, 'app.slice')
        self.kernel = FakeKernel()
        self.kernel.start()
        self.addCleanup(self.kernel.join)
        self.addCleanup(self.kernel.stopping.set)
        self.kernel.set_rate(self.manager_dir, 0)
        self.kernel.set_rate(self.app_slice_dir, 0)
        self.rc_call('SetForegroundApp', (F,), '(s)')

    def pressure(self, percent, folder=None):
        '''app.slice (or @folder) stalled for @percent of the time; a focus change starts the
        checks, as on a desktop without PSI triggers.'''
        self.kernel.set_rate(folder or self.app_slice_dir, percent * 10000)
        self.rc_call('SetForegroundApp', ('',), '(s)')
        self.rc_call('SetForegroundApp', (F,), '(s)')

    def high(self, unit):
        # the mock rewrites the file (truncated first): an empty read is a write under way
        text = self.cgroup_file(unit, 'memory.high')
        return None if not text else text if text == 'max' else int(text)

    def wait_high(self, unit, value, timeout=10):
        self.wait_until(lambda: self.high(unit) == value, timeout,
                        f'{unit}\'s memory.high to be {value} (is {self.high(unit)})')

    def frozen(self, unit):
        return 'frozen 1' in self.cgroup_file(unit, 'cgroup.events')

    def held(self):
        return sorted(self.get_property('MemoryLadderHeld'))

    def level(self):
        return self.get_property('MemoryLadderLevel')

    def ladder_actions(self, unit):
        return [entry for entry in self.rc_call('GetActions', (unit, 0), '(st)')[0]
                if entry[3] == 'ladder']

    def memory_high_calls(self, unit):
        return [dict(props)['MemoryHigh'] for name, _, props in
                self.systemd_calls('SetUnitProperties')
                if name == unit and 'MemoryHigh' in dict(props)]

    def test_throttles_then_freezes_then_takes_it_back_last_first(self):
        self.assertEqual(self.level(), 'normal')
        self.pressure(20)
        # the biggest in the background: 3/4 of its use, 3/4 of that, then its floor (half its
        # use)
        self.wait_high(BIG, 3 * GIB // 2)
        signal = self.wait_signal('MemoryPressureLevel', None,
                                  lambda args: args[0] == 'throttling' and BIG in args[1])
        self.assertEqual(list(signal[1]), [BIG])
        self.wait_high(BIG, 1 * GIB)
        self.assertEqual(self.held(), [(BIG, 'org.example.Big', 'throttled', GIB)])
        self.assertEqual(self.level(), 'throttling')
        self.assertEqual(self.high(F), 'max', 'the focused app throttled')
        self.assertEqual(self.high(SMALL), 'max', 'an app under the floor throttled')
        self.assertEqual(self.memory_high_calls(F), [])
        steps = self.ladder_actions(BIG)
        self.assertEqual([(e[4], e[5], e[6]) for e in steps],
                         [('MemoryHigh', 'max', '1.5G'), ('MemoryHigh', '1.5G', '1.1G'),
                          ('MemoryHigh', '1.1G', '1G')])
        for entry in steps:
            self.assertRegex(entry[7], r'^memory pressure \d+ % over 10 %$')
        sources = {key: (value, kind) for _, key, value, kind, _ in
                   self.rc_call('GetLimitSources', (BIG,), '(s)')[0]}
        self.assertEqual(sources['MemoryHigh'][1], 'ladder')
        self.assertRegex(self.run_client('why', BIG, check=True).stdout, r'MemoryHigh.*ladder')
        out = self.run_client('status', check=True).stdout
        self.assertIn(f'Memory:           throttling; org.example.Big ({BIG}) at MemoryHigh 1G',
                      out)

        # over the freeze percent: the biggest first, one a check; nothing left: critical
        self.pressure(40)
        self.wait_until(lambda: self.frozen(BIG) and self.frozen(SMALL), 10, 'BIG and SMALL frozen')
        self.assertEqual([c[0] for c in self.systemd_calls('FreezeUnit')], [BIG, SMALL])
        self.assertFalse(self.frozen(F), 'the focused app frozen')
        self.wait_until(lambda: self.level() == 'critical', 5, 'the level to be critical')
        self.wait_signal('MemoryPressureLevel', None, lambda args: args[0] == 'critical')
        self.assertEqual(self.held(), [(BIG, 'org.example.Big', 'frozen', 0),
                                       (SMALL, 'org.example.Small', 'frozen', 0)])
        freeze = self.ladder_actions(SMALL)[-1]
        self.assertEqual(freeze[4:7], ('FreezerState', 'running', 'frozen'))
        self.assertRegex(freeze[7], r'^memory pressure \d+ % over 30 %$')

        # calm: thawed the last frozen first, then MemoryHigh given back step by step
        self.pressure(0)
        self.wait_until(lambda: not self.frozen(SMALL), 10, 'SMALL thawed')
        self.assertTrue(self.frozen(BIG), 'both thawed in one calm spell')
        self.wait_until(lambda: not self.frozen(BIG), 10, 'BIG thawed')
        self.assertEqual([c[0] for c in self.systemd_calls('ThawUnit')], [SMALL, BIG])
        self.wait_high(BIG, 3 * GIB // 2)
        self.wait_high(BIG, 'max')
        self.wait_until(lambda: self.held() == [] and self.level() == 'normal', 5, 'all given back')
        back = self.ladder_actions(BIG)[-2:]
        self.assertEqual([(e[5], e[6]) for e in back], [('1G', '1.5G'), ('1.5G', 'max')])
        self.assertRegex(back[0][7], r'^memory pressure \d+ % under 5 % for 3 s$')
        self.assertIn('Memory:           normal', self.run_client('status', check=True).stdout)
        self.wait_until(lambda: 'Ladder: calm, nothing held: no more checks' in self.log_text(),
                        5, 'the checks to stop')

    def log_text(self):
        with open(self.daemon_logs[-1], encoding='utf-8', errors='replace') as f:
            return f.read()

    def test_the_managers_pressure_counts_too(self):
        self.pressure(20, folder=self.manager_dir)
        self.wait_high(BIG, 3 * GIB // 2)

    def test_a_pause_takes_it_all_back(self):
        self.pressure(20)
        self.wait_high(BIG, 3 * GIB // 2)
        self.pressure(40)
        self.wait_until(lambda: self.frozen(BIG), 10, 'BIG frozen')
        self.rc_call('Pause', (0,), '(t)')
        self.wait_until(lambda: not self.frozen(BIG), 5, 'BIG thawed by the pause')
        self.wait_high(BIG, 'max', timeout=5)
        self.wait_until(lambda: self.held() == [], 5, 'nothing held while paused')
        self.assertEqual(self.level(), 'normal')
        calls = len(self.systemd_calls('FreezeUnit'))
        self.rc_call('SetForegroundApp', (F,), '(s)')
        self.iterate(2.5)
        self.assertEqual(self.high(BIG), 'max', 'throttled while paused')
        self.assertEqual(len(self.systemd_calls('FreezeUnit')), calls, 'frozen while paused')

    def test_the_focus_takes_over(self):
        self.pressure(20)
        self.wait_high(BIG, 3 * GIB // 2)
        self.rc_call('SetForegroundApp', (BIG,), '(s)')
        self.wait_high(BIG, 'max', timeout=5)
        self.wait_until(lambda: self.held() == [], 5, 'BIG let go')

    def test_rules_turn_it_off(self):
        self.pressure(20)
        self.wait_high(BIG, 3 * GIB // 2)
        self.write_rules('[Guard]\nMemoryLadder=false\n')
        self.wait_high(BIG, 'max')
        self.assertEqual(self.held(), [])
        self.assertEqual(self.ladder_actions(BIG)[-1][6:], ('max', 'the memory ladder was turned off'))
        self.pressure(40)
        self.iterate(2.5)
        self.assertEqual(self.high(BIG), 'max', 'throttled while turned off')
        self.assertEqual(self.systemd_calls('FreezeUnit'), [], 'frozen while turned off')


class ApiLimitTest(LadderTest):
    '''BIG's MemoryHigh was set through the API: the caller's own limit is left alone.'''

    APPS = ((F, 4 * GIB), (BIG, 2 * GIB), (MID, 1 * GIB))
    RULES = '[Guard]\nMemoryPressureThrottle=10\nMemoryPressureFreeze=90\n'

    def test_an_api_memory_high_is_left_alone(self):
        self.set_limits(BIG, {'MemoryHigh': GLib.Variant('t', 3 * GIB)})
        self.wait_high(BIG, 3 * GIB)
        self.pressure(20)
        self.wait_high(MID, 768 * MIB)
        self.wait_high(MID, 512 * MIB)
        self.assertEqual(self.high(BIG), 3 * GIB)
        self.assertEqual(self.memory_high_calls(BIG), [3 * GIB])
        self.assertEqual(self.ladder_actions(BIG), [])
        self.assertEqual([u for u, *_ in self.held()], [MID])

    test_throttles_then_freezes_then_takes_it_back_last_first = None
    test_the_managers_pressure_counts_too = None
    test_a_pause_takes_it_all_back = None
    test_the_focus_takes_over = None
    test_rules_turn_it_off = None


class OwnStallTest(LadderTest):
    '''The only stall left in app.slice is BIG's own, under the MemoryHigh the ladder gave it:
    that is not pressure to answer, and the step is given back.'''

    RULES = '[Guard]\nMemoryPressureThrottle=10\nMemoryPressureFreeze=90\n'

    def test_a_throttled_apps_own_stall_is_not_pressure(self):
        self.pressure(20)
        self.wait_high(BIG, 3 * GIB // 2)
        # BIG now waits as long as app.slice does: all of the stall is its own
        self.kernel.set_rate(self.cgroup_dir(BIG), 200000)
        self.wait_high(BIG, 'max', timeout=20)
        # given back while app.slice still stalls 20 % of the time
        self.assertEqual(self.memory_high_calls(BIG)[-1], 2 ** 64 - 1)

    test_throttles_then_freezes_then_takes_it_back_last_first = None
    test_the_managers_pressure_counts_too = None
    test_a_pause_takes_it_all_back = None
    test_the_focus_takes_over = None
    test_rules_turn_it_off = None


class NotifyLadderTest(LadderTest):
    '''The user is told, once a spell for each step, by the test's notification server
    (python-dbusmock's notification_daemon template, which records every Notify).'''

    def setUp(self):
        super().setUp()
        # pylint: disable=consider-using-with
        self.notifyd = subprocess.Popen([sys.executable, '-B', '-m', 'dbusmock', '--session',
                                         '--template', 'notification_daemon'],
                                        env=self.bus_env, stdout=subprocess.DEVNULL,
                                        stderr=subprocess.DEVNULL)
        self.addCleanup(self._terminate, self.notifyd)
        self.wait_for_name(NOTIFY_NAME, self.notifyd, NOTIFY_NAME)

    def notifications(self, app_id='org.example.Big'):
        calls = self.conn.call_sync(NOTIFY_NAME, NOTIFY_PATH, h.DBUSMOCK_IFACE, 'GetMethodCalls',
                                    GLib.Variant('(s)', ('Notify',)), None, 0, 10000,
                                    None).unpack()[0]
        return [args for _, args in calls if args[6].get('desktop-entry') == app_id]

    def test_throttled_and_frozen_are_told_once_a_spell(self):
        self.pressure(20)
        self.wait_high(BIG, 3 * GIB // 2)
        sent = self.wait_until(self.notifications, 5, 'a notification')
        self.assertEqual(len(sent), 1)
        self.assertRegex(sent[0][3], r'^.+ was slowed down to keep the desktop responsive$')
        self.assertEqual(sent[0][0], 'Resource Control')
        self.pressure(40)
        self.wait_until(lambda: self.frozen(BIG), 10, 'BIG frozen')
        sent = self.wait_until(lambda: self.notifications()[1:], 5, 'a second notification')
        self.assertRegex(sent[0][3], r'^.+ was frozen to keep the desktop responsive$')
        # further steps in the same spell: nothing more
        self.wait_until(lambda: self.frozen(SMALL), 10, 'SMALL frozen')
        self.iterate(1.5)
        self.assertEqual(len(self.notifications()), 2)
        self.assertEqual(len(self.notifications('org.example.Small')), 1)

    def test_notify_rules_turn_it_off(self):
        readings = self.log_text().count('Rules: ')
        self.write_rules(self.RULES + '[Notify]\nMemoryLadder=false\n')
        self.wait_until(lambda: self.log_text().count('Rules: ') > readings, 5, 'the rules read again')
        self.pressure(40)
        self.wait_until(lambda: self.frozen(BIG), 10, 'BIG frozen')
        self.wait_until(lambda: self.frozen(SMALL), 10, 'SMALL frozen')
        self.iterate(1)
        self.assertEqual(self.notifications() + self.notifications('org.example.Small'), [])

    test_throttles_then_freezes_then_takes_it_back_last_first = None
    test_the_managers_pressure_counts_too = None
    test_a_pause_takes_it_all_back = None
    test_the_focus_takes_over = None
    test_rules_turn_it_off = None


class HeldBackTest(NotifyLadderTest):
    '''The ladder's own MemoryHigh holding BIG back is not told as "held back by its limit": the
    ladder has told of it already.'''

    def test_the_ladders_memory_high_is_not_the_apps_limit(self):
        self.pressure(20)
        self.wait_high(BIG, 3 * GIB // 2)
        # the kernel holds BIG at memory.high for 12 s, a rise every 2 s: sustained
        path = os.path.join(self.cgroup_dir(BIG), 'memory.events')
        for high in range(1, 8):
            h._write_in_place(path, EVENTS.format(high=high))
            self.iterate(2)
        sent = [args[3] for args in self.notifications()]
        self.assertEqual(len(sent), 1, sent)
        self.assertIn('slowed down', sent[0])

    test_throttled_and_frozen_are_told_once_a_spell = None
    test_notify_rules_turn_it_off = None


if __name__ == '__main__':
    sys.exit(h.main())
