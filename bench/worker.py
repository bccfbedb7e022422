# SPDX-License-Identifier: LGPL-2.1-or-later
'''A client process for the throughput figures and the load test.

usage: worker.py SPEC_JSON
SPEC: {"address": bus address, "connections": M, "mode": "fixed" | "mixed",
       fixed: "method", "sig", "args", "duration" (seconds);
       mixed: "calls" (per connection), "units", "app_ids", "protected", "seed"}

Opens M connections of its own (M clients as the bus and the daemon see them),
prints "ready", waits for "go" on stdin, keeps one call in flight on every
connection, and prints one JSON line with what happened. Several of these run
at once so the clients are not one Python interpreter's GIL.
'''

import json
import os
import random
import sys
import time

import gi
gi.require_version('Gio', '2.0')
gi.require_version('GLib', '2.0')
from gi.repository import Gio, GLib  # noqa: E402 pylint: disable=wrong-import-position

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                'tests', 'integration'))
from rcnames import RC_NAME, RC_PATH, RC_IFACE, RC_ERROR as E, UINT64_MAX  # noqa: E402

MIB = 1024 * 1024


def t(v):
    return GLib.Variant('t', v)


def mixed_op(rng, spec):
    '''(method, signature, args, accepted outcomes) of one mixed call.'''
    unit = rng.choice(spec['units'])
    app_id = rng.choice(spec['app_ids'])
    r = rng.randrange(100)
    ok = {'OK'}
    # reads: 35 %
    if r < 15:
        return 'ListApps', None, None, ok
    if r < 28:
        return 'GetApp', '(s)', (unit,), ok
    if r < 35:
        return 'GetApp', '(s)', (app_id,), ok
    # writes: 40 %
    if r < 47:
        return 'SetWeight', '(st)', (unit, rng.randint(1, 10000)), ok
    if r < 55:
        return 'SetLimits', '(sa{sv}a{sv})', (unit, {
            'CPUWeight': t(rng.randint(1, 10000)),
            'MemoryMax': t(256 * MIB + rng.randrange(1024) * 4096),
            'TasksMax': t(rng.randint(100, 4000))}, {}), ok
    if r < 59:
        return 'SetMemoryLimit', '(st)', (unit, 512 * MIB), ok
    if r < 66:
        return 'Freeze', '(s)', (unit,), ok
    if r < 73:
        return 'Thaw', '(s)', (unit,), ok
    if r < 75:
        return 'ResetLimits', '(s)', (unit,), ok
    # bad input: 25 %
    bad = [
        ('GetApp', '(s)', ('',), E + 'InvalidArgument'),
        ('GetApp', '(s)', ('x' * 65536,), E + 'InvalidArgument'),
        ('GetApp', '(s)', ('app-gnome-org.example.Missing-1.scope',), E + 'NoSuchApp'),
        ('GetApp', '(s)', ('org.example.NotRunning',), E + 'NoSuchApp'),
        ('SetWeight', '(st)', ('../../etc/passwd', 100), E + 'InvalidArgument'),
        ('SetWeight', '(st)', (unit, 0), E + 'InvalidArgument'),
        ('SetWeight', '(st)', (unit, 10001), E + 'InvalidArgument'),
        ('SetWeight', '(st)', (unit, UINT64_MAX), E + 'InvalidArgument'),
        ('SetMemoryLimit', '(st)', (unit, 1), E + 'InvalidArgument'),
        ('SetLimits', '(sa{sv}a{sv})', (unit, {'Bogus': t(1)}, {}), E + 'InvalidArgument'),
        ('SetLimits', '(sa{sv}a{sv})', (unit, {'CPUWeight': GLib.Variant('s', '100')}, {}),
         E + 'InvalidArgument'),
        ('SetLimits', '(sa{sv}a{sv})', (unit, {'MemoryMax': t(20 * MIB)}, {}), E + 'WouldKill'),
        ('SetWeight', '(su)', (unit, 100), 'org.freedesktop.DBus.Error.InvalidArgs'),
        ('GetApp', '(i)', (5,), 'org.freedesktop.DBus.Error.InvalidArgs'),
        ('Freeze', '(s)', (spec['protected'],), E + 'Protected'),
        ('SetWeight', '(st)', (spec['protected'], 200), E + 'Protected'),
    ]
    method, sig, args, err = rng.choice(bad)
    return method, sig, args, {err}


class Client:
    '''One connection, one call in flight.'''

    def __init__(self, worker, conn, index):
        self.w = worker
        self.conn = conn
        self.rng = random.Random(worker.spec.get('seed', 1) * 1000 + index)
        self.sent = 0
        self.done = False

    def next(self):
        spec = self.w.spec
        if spec['mode'] == 'fixed':
            if time.monotonic() >= self.w.deadline:
                self.finish()
                return
            method, sig, args = spec['method'], spec.get('sig'), spec.get('args')
            accepted = {'OK'}
        else:
            if self.sent >= spec['calls']:
                self.finish()
                return
            method, sig, args, accepted = mixed_op(self.rng, spec)
        self.sent += 1
        self.w.sent += 1
        params = GLib.Variant(sig, tuple(args)) if sig is not None else None
        t0 = time.perf_counter()
        self.conn.call(RC_NAME, RC_PATH, RC_IFACE, method, params, None,
                       Gio.DBusCallFlags.NO_AUTO_START, spec.get('timeout_ms', 120000), None,
                       self.reply, (method, accepted, t0))

    def reply(self, conn, res, data):
        method, accepted, t0 = data
        outcome = 'OK'
        try:
            conn.call_finish(res)
        except GLib.Error as e:
            outcome = Gio.DBusError.get_remote_error(e) or f'(local) {e.message}'
            message = e.message
        self.w.latencies.append(time.perf_counter() - t0)
        self.w.answered += 1
        key = f'{method} {outcome}'
        self.w.outcomes[key] = self.w.outcomes.get(key, 0) + 1
        if (outcome not in accepted and outcome == E + 'NotAuthorized'
                and 'did not answer within' in message):
            # the daemon's deadline on polkitd: the load test weighs it against polkitd's
            # own answer times (a stalled polkitd is not the daemon's fault)
            self.w.polkit_timeouts.append(time.time())
        elif outcome not in accepted:
            self.w.unexpected += 1
            if len(self.w.unexpected_samples) < 20:
                self.w.unexpected_samples.append(
                    f'{method}: got {outcome}{": " + message[:200] if outcome != "OK" else ""}, '
                    f'expected {sorted(accepted)}')
        self.next()

    def finish(self):
        if not self.done:
            self.done = True
            self.w.finished += 1
            if self.w.finished == len(self.w.clients):
                self.w.loop.quit()


class Worker:
    def __init__(self, spec):
        self.spec = spec
        self.sent = self.answered = self.unexpected = self.finished = 0
        self.outcomes = {}
        self.unexpected_samples = []
        self.polkit_timeouts = []
        self.latencies = []
        self.deadline = None
        self.loop = GLib.MainLoop()
        flags = (Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT |
                 Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION)
        self.clients = [Client(self, Gio.DBusConnection.new_for_address_sync(
            spec['address'], flags, None, None), i) for i in range(spec['connections'])]

    def run(self):
        print('ready', flush=True)
        if sys.stdin.readline().strip() != 'go':
            return
        t0 = time.monotonic()
        self.deadline = t0 + self.spec.get('duration', 0)
        for c in self.clients:
            c.next()
        self.loop.run()
        elapsed = time.monotonic() - t0
        lat = sorted(self.latencies)

        def pct(p):
            return round(lat[min(len(lat) - 1, max(0, -(-p * len(lat) // 100) - 1))] * 1000, 3) \
                if lat else None
        print(json.dumps({'sent': self.sent, 'answered': self.answered,
                          'unexpected': self.unexpected,
                          'unexpected_samples': self.unexpected_samples,
                          'polkit_timeouts': self.polkit_timeouts,
                          'outcomes': self.outcomes, 'elapsed_s': elapsed,
                          'p50_ms': pct(50), 'p99_ms': pct(99),
                          'max_ms': round(lat[-1] * 1000, 3) if lat else None}), flush=True)
        for c in self.clients:
            c.conn.close_sync(None)


def main():
    Worker(json.loads(sys.argv[1])).run()


if __name__ == '__main__':
    main()
