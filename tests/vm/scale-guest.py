#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
'''Starts N app scopes in the test user's systemd manager, the way a busy
desktop has them: app-rc-org.example.Scale<k>-<i>.scope, 50 AppIDs, each
scope holding one waiting process. Run as the test user inside the VM (by
system-test.sh, section scale); the processes outlive this script.

    scale-guest.py COUNT
    scale-guest.py list     # one ListApps: prints its seconds and the Scale units listed

The call is timed here, from the call to the reply: a client that prints
the reply (busctl --json, jq) would add its own seconds under emulation.

start_scopes() is also the benchmark's way of starting its app scopes
(bench/rcbench.py loads this file from the source tree). It stays in this one
file because the sections feed it to the test user's python3 on stdin (the
test user cannot read /mnt/vmshare), so no module beside it would be found.
'''

import os
import signal
import sys
import time

from gi.repository import Gio, GLib

SD = ('org.freedesktop.systemd1', '/org/freedesktop/systemd1', 'org.freedesktop.systemd1.Manager')
WINDOW = 32


def holder():
    # a forked child that only waits: exec'ing a program costs much more under emulation
    pid = os.fork()
    if pid == 0:
        # not the caller's pipes: whoever reads this script's output would wait for them
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(null, fd)
        try:
            while True:
                signal.pause()
        finally:
            os._exit(0)  # pylint: disable=protected-access
    return pid


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


def main():
    conn = Gio.bus_get_sync(Gio.BusType.SESSION, None)
    if sys.argv[1] == 'list':
        return list_apps(conn)
    count = int(sys.argv[1])

    def scopes():
        for i in range(count):
            # the holder is forked only when its call is about to be sent
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
