#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
'''Starts N app scopes in the test user's systemd manager, the way a busy
desktop has them: app-rc-org.example.Scale<k>-<i>.scope, 50 AppIDs, each
scope holding one waiting process. Run as the test user inside the VM (by
system-test.sh, section scale); the processes outlive this script.

    scale-guest.py COUNT
    scale-guest.py list     # one ListApps: prints its seconds and the Scale units listed
    scale-guest.py ratio PID  # ListApps beside a client alone, PID the daemon's: one line of figures

The call is timed here, from the call to the reply: a client that prints
the reply (busctl --json, jq) would add its own seconds under emulation.

start_scopes() is also the benchmark's way of starting its app scopes
(bench/rcbench.py loads this file from the source tree). It stays in this one
file because the sections feed it to the test user's python3 on stdin (the
test user cannot read /mnt/vmshare), so no module beside it would be found.
'''

import os
import sys
import time

from gi.repository import Gio, GLib

SD = ('org.freedesktop.systemd1', '/org/freedesktop/systemd1', 'org.freedesktop.systemd1.Manager')
WINDOW = 32


def holder():
    '''A process that only waits, for a scope to hold: `sleep infinity` spawned
    (vfork and exec), its output not the caller's pipes (whoever reads this
    script's output would wait for them). A forked Python child is no cheaper to
    start under emulation and costs some 900 KiB of page tables and copied pages
    each: 1,000 of them left the VM's 2 GiB without room.'''
    return os.posix_spawn('/bin/sleep', ['sleep', 'infinity'], os.environ,
                          file_actions=[(os.POSIX_SPAWN_OPEN, fd, os.devnull, os.O_RDWR, 0)
                                        for fd in (0, 1, 2)])


def start_scopes(conn, scopes, window=WINDOW, progress=None):
    '''Start each (unit, properties) of scopes as a transient unit of the systemd
    manager on conn, with up to window StartTransientUnit calls in flight (one at a
    time is slow under emulation, all at once backs up the manager's queue).
    progress(n), if given, is called after the n-th call is sent. Returns the error
    messages of the calls that failed.'''
    ctx = GLib.MainContext.default()
    state = {'inflight': 0, 'errors': []}

    def done(c, res):
        state['inflight'] -= 1
        try:
            c.call_finish(res)
        except GLib.Error as e:
            state['errors'].append(e.message)

    # every call has a timeout, so each blocking iteration ends with a reply or an error
    for n, (unit, props) in enumerate(scopes, 1):
        while state['inflight'] >= window:
            ctx.iteration(True)
        state['inflight'] += 1
        conn.call(*SD, 'StartTransientUnit',
                  GLib.Variant('(ssa(sv)a(sa(sv)))', (unit, 'fail', props, [])), None,
                  Gio.DBusCallFlags.NONE, 120000, None, done)
        if progress is not None:
            progress(n)
    while state['inflight'] > 0:
        ctx.iteration(True)
    return state['errors']


def list_apps(conn):
    t0 = time.monotonic()
    try:
        reply = conn.call_sync('org.example.ResourceControl', '/org/example/ResourceControl',
                               'org.example.ResourceControl', 'ListApps', None, None,
                               Gio.DBusCallFlags.NONE, 60000, None)
    except GLib.Error as e:
        print(f'ListApps failed after {time.monotonic() - t0:.2f} s: {e.message}', file=sys.stderr)
        return 1
    seconds = time.monotonic() - t0
    units = {r['Unit'] for r in reply.unpack()[0]}
    print(f'{seconds:.2f} {sum(1 for u in units if u.startswith("app-rc-org.example.Scale"))}')
    return 0


RC = ('org.example.ResourceControl', '/org/example/ResourceControl', 'org.example.ResourceControl')
APP_PATTERNS = ['app-*.scope', 'app-*.service', 'flatpak-*.scope', 'gnome-launched-*.scope']


def client_alone(conn):
    '''What a client does without us: ListUnitsByPatterns, then one GetAll of each
    unit's type interface (where the cgroup properties live), all in flight at once
    (bench/bench.py baseline_list()).'''
    units = conn.call_sync(SD[0], SD[1], SD[2], 'ListUnitsByPatterns',
                           GLib.Variant('(asas)', (['active', 'reloading'], APP_PATTERNS)), None,
                           Gio.DBusCallFlags.NONE, 120000, None).unpack()[0]
    ctx = GLib.MainContext.default()
    state = {'left': len(units)}

    def done(c, res):
        state['left'] -= 1
        c.call_finish(res)

    for u in units:
        iface = 'org.freedesktop.systemd1.' + ('Service' if u[0].endswith('.service') else 'Scope')
        conn.call(SD[0], u[6], 'org.freedesktop.DBus.Properties', 'GetAll', GLib.Variant('(s)', (iface,)),
                  None, Gio.DBusCallFlags.NONE, 120000, None, done)
    while state['left'] > 0:
        ctx.iteration(True)


def cpu_ms(pid):
    '''(user, system) CPU time of process pid so far, in ms.'''
    with open(f'/proc/{pid}/stat', encoding='ascii') as f:
        fields = f.read().rsplit(')', 1)[1].split()
    tick = os.sysconf('SC_CLK_TCK')
    return int(fields[11]) * 1000 / tick, int(fields[12]) * 1000 / tick


def p50(values):
    return sorted(values)[len(values) // 2]


def ratio(conn, pid, calls=7, alone=3):
    '''ListApps p50 of calls beside the client alone p50 of alone rounds (the goal: 20x),
    the daemon's CPU per ListApps (user, system), the reply's size and this client's
    GDBus decoding it, and ListAppRecords p50 for comparison.'''
    def timed(fn, n):
        times = []
        for _ in range(n):
            t0 = time.monotonic()
            fn()
            times.append((time.monotonic() - t0) * 1000)
        return p50(times)

    def call(method):
        return conn.call_sync(*RC, method, None, None, Gio.DBusCallFlags.NONE, 120000, None)
    call('ListApps')
    u0, s0 = cpu_ms(pid)
    listing = timed(lambda: call('ListApps'), calls)
    u1, s1 = cpu_ms(pid)
    records = timed(lambda: call('ListAppRecords'), 3)
    msg = Gio.DBusMessage.new_method_call(*RC, 'ListApps')
    reply, _serial = conn.send_message_with_reply_sync(msg, Gio.DBusSendMessageFlags.NONE, 120000, None)
    blob = reply.to_blob(Gio.DBusCapabilityFlags.NONE)
    decode = timed(lambda: Gio.DBusMessage.new_from_blob(blob, Gio.DBusCapabilityFlags.NONE), 5)
    base = timed(lambda: client_alone(conn), alone)
    print(f'ratio {base / listing:.1f}x: ListApps p50 {listing:.0f} ms, client alone p50 {base:.0f} ms; '
          f'daemon CPU per ListApps {(u1 - u0) / calls:.0f} ms user + {(s1 - s0) / calls:.0f} ms system; '
          f'reply {len(blob) // 1024} KiB, its decoding here {decode:.0f} ms; '
          f'ListAppRecords p50 {records:.0f} ms')
    return 0


def main():
    conn = Gio.bus_get_sync(Gio.BusType.SESSION, None)
    if sys.argv[1] == 'list':
        return list_apps(conn)
    if sys.argv[1] == 'ratio':
        return ratio(conn, int(sys.argv[2]))
    count = int(sys.argv[1])

    def scopes():
        for i in range(count):
            # the holder is started only when its call is about to be sent
            yield (f'app-rc-org.example.Scale{i % 50}-{i}.scope',
                   [('PIDs', GLib.Variant('au', [holder()])),
                    ('Slice', GLib.Variant('s', 'app.slice')),
                    ('CollectMode', GLib.Variant('s', 'inactive-or-failed'))])

    t0 = time.monotonic()
    errors = start_scopes(conn, scopes())
    print(f'scale-guest: {count} scopes started in {time.monotonic() - t0:.1f} s, '
          f'{len(errors)} failed {errors[:2]}', flush=True)
    return 1 if errors else 0


if __name__ == '__main__':
    sys.exit(main())
