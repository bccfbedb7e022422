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
    loop = GLib.MainContext.default()
    state = {'inflight': 0, 'errors': []}

    def done(c, res):
        state['inflight'] -= 1
        try:
            c.call_finish(res)
        except GLib.Error as e:
            state['errors'].append(e.message)

    t0 = time.monotonic()
    for i in range(count):
        while state['inflight'] >= WINDOW:
            loop.iteration(True)
        unit = f'app-rc-org.example.Scale{i % 50}-{i}.scope'
        props = [('PIDs', GLib.Variant('au', [holder()])),
                 ('Slice', GLib.Variant('s', 'app.slice')),
                 ('CollectMode', GLib.Variant('s', 'inactive-or-failed'))]
        state['inflight'] += 1
        conn.call(*SD, 'StartTransientUnit',
                  GLib.Variant('(ssa(sv)a(sa(sv)))', (unit, 'fail', props, [])), None,
                  Gio.DBusCallFlags.NONE, 120000, None, done)
    while state['inflight'] > 0:
        loop.iteration(True)
    print(f'scale-guest: {count} scopes started in {time.monotonic() - t0:.1f} s, '
          f'{len(state["errors"])} failed {state["errors"][:2]}', flush=True)
    return 1 if state['errors'] else 0


if __name__ == '__main__':
    sys.exit(main())
