# SPDX-License-Identifier: LGPL-2.1-or-later
'''The energy ledger's figures on the host mock (bench/README.md, "The budgets of the
capabilities to come"): python-dbusmock's UPower on the harness's private system bus plays
the battery. Wake-ups at rest on AC (a battery that is there but does not discharge: the
ledger must run nothing), the daemon's CPU per sample (a UPower update) with every app
listed, the RssAnon the ledger adds, and the size of the history file once every AppID
used some energy.'''

import os
import subprocess
import sys
import time

import rcbench as rb
from rcbench import GLib, Gio

UPOWER_NAME = 'org.freedesktop.UPower'
DISPLAY_PATH = '/org/freedesktop/UPower/devices/DisplayDevice'
DEVICE_IFACE = 'org.freedesktop.UPower.Device'
TYPES = {'Type': 'u', 'State': 'u', 'IsPresent': 'b', 'EnergyRate': 'd', 'Energy': 'd'}
BUSY_SHARE = 10     # one app in this many uses CPU between two samples


def cpu_ns(pid):
    '''The daemon's CPU time in ns, every thread (schedstat: no tick rounding).'''
    total = 0
    for tid in os.listdir(f'/proc/{pid}/task'):
        try:
            with open(f'/proc/{pid}/task/{tid}/schedstat', encoding='ascii') as f:
                total += int(f.read().split()[0])
        except OSError:
            pass
    return total


class Battery:
    '''dbusmock's UPower template on the system bus of the harness.'''

    def __init__(self, tc):
        address = os.environ['DBUS_SYSTEM_BUS_ADDRESS']
        env = dict(tc.bus_env, DBUS_SESSION_BUS_ADDRESS=address)
        # pylint: disable=consider-using-with
        self.proc = subprocess.Popen([sys.executable, '-B', '-m', 'dbusmock', '--session',
                                      '--template', 'upower'], env=env,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.conn = Gio.DBusConnection.new_for_address_sync(
            address, Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT |
            Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION, None, None)
        rb.wait_for(lambda: self.conn.call_sync(
            'org.freedesktop.DBus', '/org/freedesktop/DBus', 'org.freedesktop.DBus',
            'NameHasOwner', GLib.Variant('(s)', (UPOWER_NAME,)), None, Gio.DBusCallFlags.NONE,
            -1, None).unpack()[0], 30, 'UPower mock on the system bus')

    def set(self, **props):
        self.conn.call_sync(UPOWER_NAME, DISPLAY_PATH, 'org.freedesktop.DBus.Mock',
                            'UpdateProperties', GLib.Variant('(sa{sv})', (DEVICE_IFACE, {
                                k: GLib.Variant(TYPES[k], v) for k, v in props.items()})),
                            None, Gio.DBusCallFlags.NONE, -1, None)

    def stop(self):
        self.conn.close_sync(None)
        self.proc.terminate()
        self.proc.wait()


def thread_switches(pid):
    '''{thread id: voluntary + involuntary context switches}.'''
    out = {}
    for tid in os.listdir(f'/proc/{pid}/task'):
        try:
            st = rb.proc_status(f'{pid}/task/{tid}')
        except OSError:
            continue
        out[tid] = int(st['voluntary_ctxt_switches']) + int(st['nonvoluntary_ctxt_switches'])
    return out


def wakeups(pid, seconds):
    '''Wake-ups over @seconds: a thread that started counts all of its own, one that
    ended at least one.'''
    before = thread_switches(pid)
    time.sleep(seconds)
    after = thread_switches(pid)
    return sum(n - before.get(tid, 0) for tid, n in after.items()) + len(set(before) - set(after))


def grow(tc, dirs, units, usec):
    import rctest_harness  # pylint: disable=import-outside-toplevel
    for unit in units:
        path = dirs.setdefault(unit, tc.cgroup_dir(unit))
        usage = grow.usage.get(unit, 1000000) + usec
        grow.usage[unit] = usage
        text = f'usage_usec {usage}\nuser_usec {usage}\nsystem_usec 0\n'
        rctest_harness._write_in_place(os.path.join(path, 'cpu.stat'), text)  # pylint: disable=protected-access


grow.usage = {}


def measure_energy(env, pid, idle_s, samples):
    '''The ledger's figures at len(env.units) apps; None outside the host mock.'''
    if env.label != 'mock':
        return None
    tc = env.tc
    dirs = {}
    rss0 = rb.memory(pid)['RssAnon_kib']
    battery = Battery(tc)
    try:
        # on AC: a battery that is full, not discharging
        battery.set(Type=2, IsPresent=True, State=4, EnergyRate=0.0, Energy=50.0)
        time.sleep(1)
        woke = wakeups(pid, idle_s)
        # discharging: samples, each after a tenth of the apps used some CPU
        battery.set(State=2, EnergyRate=10.0)
        # once every app used energy, so the history holds every AppID
        grow(tc, dirs, env.units, 1000)
        battery.set(Energy=49.9)
        time.sleep(0.5)
        spent = 0
        for i in range(samples):
            grow(tc, dirs, env.units[i % BUSY_SHARE::BUSY_SHARE], 1000)
            time.sleep(0.3)
            before = cpu_ns(pid)
            battery.set(Energy=49.0 - i * 0.01)
            time.sleep(0.3)
            spent += cpu_ns(pid) - before
        rss1 = rb.memory(pid)['RssAnon_kib']
        battery.set(State=4, EnergyRate=0.0)
    finally:
        battery.stop()
    return {'apps': len(env.units), 'samples': samples, 'idle_seconds': idle_s,
            'wakeups_at_rest': woke,
            'cpu_ms_per_event': round(spent / samples / 1e6, 3),
            'rss_anon_kib_at_1000': max(0, rss1 - rss0),
            'history_path': os.path.join(tc.home, '.local', 'state', 'resource-control', 'energy')}


def history_size(figure):
    '''After the daemon stopped (it writes the history then): the file's size in KiB.'''
    if figure is not None:
        try:
            figure['history_kib_at_1000'] = round(os.stat(figure['history_path']).st_size / 1024, 1)
        except OSError:
            figure['history_kib_at_1000'] = None
