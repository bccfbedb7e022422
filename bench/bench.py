#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
'''resource-controld benchmark: the measurements, and the table.

Normally started by bench/run.sh. Runs as the desktop user, on a session bus
with a systemd user manager:

  bench.py --vm --daemon /usr/libexec/resource-controld --out FILE.json [--quick]
      real systemd (inside the VM of bench/run.sh): apps are transient scopes
      started with StartTransientUnit from this one process
  bench.py --print FILE.json
      print the table of a result file
The host (mock systemd) variant is host_bench.py, which sets up the host
integration harness and calls run_all() from here.

Every figure is side by side with what a client without the daemon would do.
No figure is asserted: a goal that is not met is printed as "missed".
'''

import argparse
import os
import platform
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

# pylint: disable=wrong-import-position
import budgets  # noqa: E402
import energy_bench  # noqa: E402
import rcbench as rb  # noqa: E402
from rcbench import GLib, Gio  # noqa: E402

SIZES = (10, 100, 1000)
IDLE_APPS = 100


class Profile:
    '''Iteration counts and time budgets; --quick shrinks them (CI smoke).'''

    def __init__(self, quick):
        self.quick = quick
        self.list_iters, self.list_budget = (30, 3) if quick else (300, 20)
        self.base_iters, self.base_budget = (10, 4) if quick else (100, 45)
        self.write_iters, self.write_budget = (30, 3) if quick else (300, 15)
        # the smoke shows the figures are read, not that they meet a goal
        self.idle_s = 3 if quick else 60
        self.energy_samples = 10 if quick else 40
        self.tp_duration = 1.5 if quick else 5
        self.app_added = 5 if quick else 30


#
# The client without us
#

def baseline_list(conn):
    '''ListUnitsByPatterns, then a GetAll of each unit's type interface (where the
    cgroup properties live), all GetAll calls in flight at once: the fastest way a
    client can get the data ListApps gives. Returns the number of units.'''
    units = rb.sd_call(conn, rb.SD_PATH, rb.SD_MANAGER, 'ListUnitsByPatterns',
                       ('(asas)', (['active', 'reloading'], rb.APP_PATTERNS)))[0]
    state = {'left': len(units), 'errors': 0}

    def done(c, res):
        try:
            c.call_finish(res)
        except GLib.Error:
            state['errors'] += 1
        state['left'] -= 1

    for u in units:
        iface = rb.SD_SERVICE if u[0].endswith('.service') else rb.SD_SCOPE
        conn.call(rb.SD_NAME, u[6], rb.PROPS, 'GetAll', GLib.Variant('(s)', (iface,)), None,
                  Gio.DBusCallFlags.NONE, 120000, None, done)
    rb.wait_for(lambda: state['left'] == 0, 300, 'GetAll replies')
    if state['errors']:
        raise RuntimeError(f'{state["errors"]} GetAll calls failed')
    return len(units)


def list_apps_count(conn):
    return len(rb.rc_call(conn, 'ListApps').unpack()[0])


#
# polkit, as the floor of a write
#

class Polkit:
    def __init__(self):
        self.conn = Gio.bus_get_sync(Gio.BusType.SYSTEM, None)
        with open('/proc/self/stat', encoding='ascii') as f:
            start_time = int(f.read().rsplit(')', 1)[1].split()[19])
        self.subject = ('unix-process', {'pid': GLib.Variant('u', os.getpid()),
                                         'start-time': GLib.Variant('t', start_time),
                                         'uid': GLib.Variant('i', os.getuid())})

    def check(self, action=rb.ACTION_PREFIX + 'set-weight'):
        reply = self.conn.call_sync(
            rb.PK_NAME, rb.PK_PATH, rb.PK_IFACE, 'CheckAuthorization',
            GLib.Variant('((sa{sv})sa{ss}us)', (self.subject, action, {}, 0, '')),
            None, Gio.DBusCallFlags.NONE, 30000, None).unpack()[0]
        if not reply[0]:
            raise RuntimeError(f'polkit does not authorize {action} for the benchmark user')


#
# Sections
#

def reply_decode_ms(conn, iterations=5):
    '''p50 of the time this client's GDBus takes to turn one ListApps reply, as it came
    off the bus, into a GVariant: what any client pays for a reply of this size.'''
    call = Gio.DBusMessage.new_method_call(rb.RC_NAME, rb.RC_PATH, rb.RC_IFACE, 'ListApps')
    call.set_flags(Gio.DBusMessageFlags.NO_AUTO_START)
    reply, _serial = conn.send_message_with_reply_sync(call, Gio.DBusSendMessageFlags.NONE,
                                                       120000, None)
    reply.to_gerror()
    blob = reply.to_blob(Gio.DBusCapabilityFlags.NONE)
    times = []
    for _ in range(iterations):
        t0 = time.perf_counter()
        Gio.DBusMessage.new_from_blob(blob, Gio.DBusCapabilityFlags.NONE)
        times.append(time.perf_counter() - t0)
    return len(blob), rb.summary_ms(times)['p50_ms']


def measure_list(env, prof, n, pid):
    conn = env.conn
    calls = [0]

    def list_apps():
        calls[0] += 1
        rb.rc_call(conn, 'ListApps')
    cpu0 = rb.cpu_seconds(pid)
    daemon = rb.sample(list_apps, prof.list_iters, prof.list_budget)
    daemon_cpu_ms = (rb.cpu_seconds(pid) - cpu0) * 1000 / calls[0]
    reply_bytes, decode_ms = reply_decode_ms(conn)
    iters = prof.base_iters if n >= 1000 else prof.list_iters
    budget = prof.base_budget if n >= 1000 else prof.list_budget
    # at N = 1000 under emulation one baseline round takes tens of seconds: --quick does three
    base = rb.sample(lambda: baseline_list(conn), iters, budget, warmup=0 if prof.quick else 1,
                     min_iterations=3 if prof.quick else 5)
    d, b = rb.summary_ms(daemon), rb.summary_ms(base)
    # The part of a ListApps that is not the daemon's own work: the bus carrying the
    # reply and the client decoding it. No daemon can answer faster than that.
    rest_ms = max(d['p50_ms'] - daemon_cpu_ms, 0.001)
    return {'apps': n, 'daemon_apps_listed': list_apps_count(conn),
            'baseline_units_listed': baseline_list(conn),
            'list_apps': d, 'baseline': b,
            'ratio_p50': round(b['p50_ms'] / d['p50_ms'], 2),
            'ratio_p99': round(b['p99_ms'] / d['p99_ms'], 2),
            'reply_bytes': reply_bytes,
            'daemon_cpu_ms_per_call': round(daemon_cpu_ms, 2),
            'client_decode_p50_ms': decode_ms,
            'ratio_p50_if_daemon_took_no_cpu': round(b['p50_ms'] / rest_ms, 2)}


def measure_set_weight(env, prof):
    conn = env.conn
    unit = env.units[0]
    pk = Polkit()
    pk.check()
    state = {'i': 0}

    def weight():
        state['i'] += 1
        return 200 + state['i'] % 2 * 100

    def via_daemon():
        rb.rc_call(conn, 'SetWeight', (unit, weight()), '(st)')

    def direct():
        rb.sd_call(conn, rb.SD_PATH, rb.SD_MANAGER, 'SetUnitProperties',
                   ('(sba(sv))', (unit, True, [('CPUWeight', GLib.Variant('t', weight()))])))

    def floor():
        pk.check()
        direct()

    out = {'unit': unit}
    for name, fn in (('daemon', via_daemon), ('direct', direct),
                     ('polkit_check', pk.check), ('floor', floor)):
        out[name] = rb.summary_ms(rb.sample(fn, prof.write_iters, prof.write_budget))
    out['ratio_vs_direct_p50'] = round(out['daemon']['p50_ms'] / out['direct']['p50_ms'], 2)
    out['ratio_vs_direct_p99'] = round(out['daemon']['p99_ms'] / out['direct']['p99_ms'], 2)
    out['ratio_vs_floor_p50'] = round(out['daemon']['p50_ms'] / out['floor']['p50_ms'], 2)
    # put the weight back to systemd's default
    rb.rc_call(conn, 'SetWeight', (unit, 100), '(st)')
    return out


def measure_idle(pid, seconds):
    time.sleep(1)
    threads0 = thread_switches(pid)
    cpu0 = rb.cpu_seconds(pid)
    time.sleep(seconds)
    cpu1 = rb.cpu_seconds(pid)
    threads1 = thread_switches(pid)
    # a thread that starts or ends in the window is itself a wakeup; sums over the
    # threads alive at both ends would go wrong (even negative) with it
    per_thread = {k: threads1[k][0] + threads1[k][1] - v[0] - v[1]
                  for k, v in threads0.items() if k in threads1}
    vol = sum(threads1[k][0] - v[0] for k, v in threads0.items() if k in threads1)
    invol = sum(threads1[k][1] - v[1] for k, v in threads0.items() if k in threads1)
    came_went = sorted(set(threads0) ^ set(threads1))
    return {'seconds': seconds, 'apps': IDLE_APPS,
            'voluntary_ctxt_switches': vol + len(came_went),
            'nonvoluntary_ctxt_switches': invol,
            'ctxt_switches_per_thread': per_thread,
            'threads_started_or_ended': came_went,
            'cpu_ms': round((cpu1 - cpu0) * 1000, 1),
            'wakeups_per_minute': round((vol + invol + len(came_went)) * 60 / seconds, 2)}


def thread_switches(pid):
    out = {}
    for tid in sorted(os.listdir(f'/proc/{pid}/task'), key=int):
        try:
            st = rb.proc_status(f'{pid}/task/{tid}')
        except OSError:
            continue
        key = f'{st["Name"]}:{tid}'
        out[key] = (int(st['voluntary_ctxt_switches']), int(st['nonvoluntary_ctxt_switches']))
    return out


def measure_throughput(env, prof, pid):
    out = []
    unit = env.units[0]
    for method, sig, args in (('GetApp', '(s)', [unit]), ('ListApps', None, None)):
        for clients in (1, 8, 50):
            r = rb.run_workers(env.bus_address, clients,
                               {'mode': 'fixed', 'method': method, 'sig': sig, 'args': args,
                                'duration': prof.tp_duration}, daemon_pid=pid)
            out.append({'method': method, 'apps': len(env.units), 'clients': clients,
                        'calls': r['answered'], 'errors': r['answered'] - r['outcomes'].get(
                            f'{method} OK', 0),
                        'calls_per_s': round(r['answered'] / r['wall_s'], 1),
                        'p50_ms': r['p50_ms_worst_worker'], 'p99_ms': r['p99_ms_worst_worker'],
                        'daemon_cpu_share': r['daemon_cpu_share'],
                        'worker_processes': r['processes']})
            rb.log(f'  throughput {method} x{clients}: {out[-1]["calls_per_s"]} calls/s, '
                   f'daemon CPU {r["daemon_cpu_share"]:.0%}')
    return out


def action_count(conn):
    return len(rb.rc_call(conn, 'GetActions', ('', 0), '(st)')[0])


def move_boost(conn, units, state, moves):
    '''Moves the boost between two apps `moves` times, one call at a time: each move is an
    entry or two of the action record (the boost taken back, the boost given).'''
    for _ in range(moves):
        state['i'] += 1
        rb.rc_call(conn, 'SetForegroundApp', (units[state['i'] % 2],), '(s)')


# RC_ACTION_LOG_SIZE: the entries the record keeps
RING_SIZE = 1024


def new_actions(conn, since):
    '''How many entries were made at or after `since` (CLOCK_REALTIME, us), and the time to
    ask from next: a reply of the latest entries, not of the whole record.'''
    actions = rb.rc_call(conn, 'GetActions', ('', since), '(st)')[0]
    return len(actions), (max(a[0] for a in actions) + 1 if actions else since)


def fill_action_ring(conn, units, state, pid):
    '''Moves the boost until it has made a full record of entries, counted from the
    entries made since the last look (a reply of the whole record would leave its own
    garbage in malloc's arenas: that is measured apart). Returns the entries made, the
    daemon's CPU seconds over the moves and their number.'''
    since = int(time.time() * 1e6)
    made = moves = 0
    cpu_s = 0.0
    while made < RING_SIZE:
        cpu0 = rb.cpu_seconds(pid)
        move_boost(conn, units, state, 128)
        cpu_s += rb.cpu_seconds(pid) - cpu0
        moves += 128
        n, since = new_actions(conn, since)
        made += n
    return made, cpu_s, moves


def repeat_foreground(conn, unit, calls):
    '''The same call as a move, naming the app that has the boost already: no entry.'''
    for _ in range(calls):
        rb.rc_call(conn, 'SetForegroundApp', (unit,), '(s)')


def measure_recording_cpu(conn, units, state, pid, cpu_s, entries, moves):
    '''The daemon's CPU per entry made. The moves' CPU, over the entries they made, less:
    that of as many calls that move nothing (the polkit check, the lookup, the reply; the
    figure left is an upper bound, the change and its record), and less two unrecorded
    writes a move (a SetWeight through the API less a call moving nothing: a move takes the
    boost back from one app and gives it to the other) for the record alone.'''
    if not entries:
        return None
    held = units[state['i'] % 2]
    cpu0 = rb.cpu_seconds(pid)
    repeat_foreground(conn, held, moves)
    idle_calls_s = rb.cpu_seconds(pid) - cpu0
    other = units[(state['i'] + 1) % 2]
    cpu0 = rb.cpu_seconds(pid)
    for i in range(moves):
        rb.rc_call(conn, 'SetWeight', (other, 200 + i % 2 * 100), '(st)')
    writes_s = rb.cpu_seconds(pid) - cpu0
    rb.rc_call(conn, 'SetWeight', (other, 100), '(st)')
    change_s = max(0.0, cpu_s - idle_calls_s)
    record_s = max(0.0, change_s - 2 * max(0.0, writes_s - idle_calls_s))
    return {'moves': moves, 'entries': entries, 'cpu_ms_moves': round(cpu_s * 1000, 1),
            'cpu_ms_calls_moving_nothing': round(idle_calls_s * 1000, 1),
            'cpu_ms_set_weight_calls': round(writes_s * 1000, 1),
            'cpu_ms_per_entry_with_call': round(cpu_s * 1000 / entries, 3),
            'cpu_ms_per_entry_with_writes': round(change_s * 1000 / entries, 3),
            'cpu_ms_per_entry': round(record_s * 1000 / entries, 3)}


def measure_action_ring(env, prof, pid):
    '''RssAnon the action record adds when full, at this many apps. Its entries are the
    daemon's own (the boost moving, as a focus source moves it), not made up by a hook. A
    second round through the whole ring (not with --quick: a move costs a polkit check,
    some 18 ms on the host) shows the figure once old entries are freed and new ones take
    their place. Then the daemon's CPU per entry, and its wake-ups at rest with the record
    full.'''
    conn = env.conn
    before = rb.memory(pid)
    state = {'i': 0}
    t0 = time.monotonic()
    made, cpu_s, moves = fill_action_ring(conn, env.units, state, pid)
    full = rb.memory(pid)
    again = None
    if not prof.quick:
        move_boost(conn, env.units, state, RING_SIZE)
        again = rb.memory(pid)
    cpu = measure_recording_cpu(conn, env.units, state, pid, cpu_s, made, moves)
    # one reply of the whole record: what GDBus leaves in malloc's arenas after sending it
    entries = action_count(conn)
    after_reply = rb.memory(pid)
    rb.rc_call(conn, 'SetForegroundApp', ('',), '(s)')
    rb.log(f'  idle for {prof.idle_s} s with the record full')
    idle = measure_idle(pid, prof.idle_s)
    added = max(full['RssAnon_kib'], again['RssAnon_kib'] if again else 0) - before['RssAnon_kib']
    out = {'apps': len(env.units), 'entries': entries, 'moves': state['i'],
           'fill_s': round(time.monotonic() - t0, 1),
           'rss_anon_kib_before': before['RssAnon_kib'], 'rss_anon_kib_full': full['RssAnon_kib'],
           'rss_anon_kib_full_again': again['RssAnon_kib'] if again else None, 'rss_anon_kib_added': added,
           'bytes_per_entry': round(added * 1024 / entries) if entries else None,
           'rss_anon_kib_after_full_reply': after_reply['RssAnon_kib'],
           'rss_anon_kib_added_with_full_reply': after_reply['RssAnon_kib'] - before['RssAnon_kib'],
           'cpu': cpu, 'idle': idle,
           'wakeups_at_rest': idle['voluntary_ctxt_switches'] + idle['nonvoluntary_ctxt_switches']}
    if cpu is not None:
        out['cpu_ms_per_event'] = cpu['cpu_ms_per_entry']
    if len(env.units) == 1000:
        out['rss_anon_kib_at_1000'] = added
    return out


def measure_app_added(env, count):
    conn = env.conn
    added, active = {}, {}

    def on_added(_c, _s, _p, _i, _n, params):
        added.setdefault(params.unpack()[0], time.perf_counter())

    def on_changed(_c, _s, path, _i, _n, params):
        iface, changed, _ = params.unpack()
        if iface == rb.SD_UNIT and changed.get('ActiveState') == 'active':
            active.setdefault(path, time.perf_counter())

    s1 = conn.signal_subscribe(None, rb.RC_IFACE, 'AppAdded', rb.RC_PATH, None,
                               Gio.DBusSignalFlags.NONE, on_added)
    s2 = conn.signal_subscribe(rb.SD_NAME, rb.PROPS, 'PropertiesChanged', None, rb.SD_UNIT,
                               Gio.DBusSignalFlags.NONE, on_changed)
    from_active, from_start = [], []
    try:
        for _ in range(count):
            unit = env.next_unit()
            t0 = time.perf_counter()
            env.start_one_app(unit)
            rb.wait_for(lambda: unit in added, 120, f'AppAdded {unit}')
            rb.iterate(0.01)
            from_start.append(added[unit] - t0)
            path = rb.unit_path(unit)
            if path in active:
                from_active.append(added[unit] - active[path])
    finally:
        conn.signal_unsubscribe(s1)
        conn.signal_unsubscribe(s2)
    out = {'apps_before': len(env.units) - count, 'samples': count,
           'start_call_to_app_added': rb.summary_ms(from_start)}
    if from_active:
        out['active_to_app_added'] = rb.summary_ms(from_active)
    return out


def wait_listed(env, want, timeout=600):
    deadline = time.monotonic() + timeout
    last = time.monotonic()
    while True:
        n = list_apps_count(env.conn)
        if n >= want:
            return n
        if time.monotonic() - last > 15:
            rb.log(f'  the daemon lists {n} of {want} apps')
            last = time.monotonic()
        if time.monotonic() > deadline:
            raise RuntimeError(f'the daemon lists {n} apps, {want} expected, after {timeout} s')
        time.sleep(0.2)


def run_all(env, quick=False, sizes=SIZES, meta=None, checkpoint=None):
    '''Every measurement, in one daemon run plus one restart at the largest N.'''
    prof = Profile(quick)
    res = {'meta': dict(meta or {}), 'figures': {}, 'goals': []}
    if env.label == 'vm':
        figures_are = ('real systemd user manager in the test VM (TCG emulation: absolute times '
                       'inflated; compare ratios)')
    else:
        figures_are = ('MOCK: python-dbusmock systemd and a fake cgroupfs on the host; only the '
                       'daemon side is real code, so ratios against the mock are not '
                       'the real ratios')
    res['meta'].update({
        'environment': env.label,
        'figures_are': figures_are,
        'quick': quick, 'sizes': list(sizes), 'date': time.strftime('%Y-%m-%dT%H:%M:%S%z'),
        'kernel': platform.release(), 'cpus': os.cpu_count(),
        'python': platform.python_version(), 'systemd_version': env.systemd_version(),
    })
    fig = res['figures']

    def save():
        if checkpoint is not None:
            checkpoint(res)
    rb.log(f'{env.label}: starting the daemon with no app')
    d1, start0 = rb.start_daemon_timed(env, 0)
    base_apps = start0['first_list_apps_count']
    fig['start_n0'] = start0
    fig['memory'] = {'0': rb.memory(d1.pid)}
    fig['list_apps'] = []
    try:
        for n in sizes:
            t0 = time.monotonic()
            env.add_apps(n - len(env.units))
            wait_listed(env, base_apps + n)
            rb.log(f'{n} apps running and listed ({time.monotonic() - t0:.1f} s)')
            entry = measure_list(env, prof, n, d1.pid)
            fig['list_apps'].append(entry)
            rb.log(f'  ListApps p50 {entry["list_apps"]["p50_ms"]} ms, client without us '
                   f'{entry["baseline"]["p50_ms"]} ms: {entry["ratio_p50"]}x')
            fig['memory'][str(n)] = rb.memory(d1.pid)
            save()
            if n == IDLE_APPS:
                fig['set_weight'] = measure_set_weight(env, prof)
                rb.log(f'  SetWeight p50 {fig["set_weight"]["daemon"]["p50_ms"]} ms, direct '
                       f'{fig["set_weight"]["direct"]["p50_ms"]} ms')
                rb.log(f'  idle for {prof.idle_s} s')
                fig['idle'] = measure_idle(d1.pid, prof.idle_s)
                fig['throughput'] = measure_throughput(env, prof, d1.pid)
                fig['memory'][f'{n}_after_throughput'] = rb.memory(d1.pid)
                save()
        if len(env.units) >= 2:
            rb.log('the action record filled')
            fig['action_record'] = measure_action_ring(env, prof, d1.pid)
            ring = fig['action_record']
            rb.log(f'  {ring["entries"]} entries at {ring["apps"]} apps: RssAnon +{ring["rss_anon_kib_added"]} KiB')
            save()
        rb.log(f'energy ledger at {len(env.units)} apps')
        fig['energy_ledger'] = energy_bench.measure_energy(env, d1.pid, prof.idle_s, prof.energy_samples)
        if fig['energy_ledger'] is None:
            del fig['energy_ledger']
        save()
        rb.log('AppAdded latency')
        fig['app_added'] = measure_app_added(env, prof.app_added)
        save()
    finally:
        env.stop_daemon(d1)
    # the daemon writes its energy history as it stops
    energy_bench.history_size(fig.get('energy_ledger'))
    n = len(env.units)
    rb.log(f'restarting the daemon with {n} apps')
    d2, start = rb.start_daemon_timed(env, base_apps + n)
    fig['start_full'] = dict(start, apps=n)
    fig['memory_fresh_start_full'] = dict(rb.memory(d2.pid), apps=n)
    env.stop_daemon(d2)

    res['goals'] = budgets.goals(fig)
    return res


#
# The table
#

def print_table(res, out=sys.stdout):
    def p(line=''):
        print(line, file=out)
    m, f = res['meta'], res['figures']
    p(f'== resource-controld benchmark: {m["environment"]} ({"quick" if m["quick"] else "full"}) '
      f'{m.get("git_rev", "")} {m["date"]}')
    p(f'   {m["figures_are"]}')
    p(f'   systemd {m["systemd_version"]}, kernel {m["kernel"]}, {m["cpus"]} CPUs')
    p()
    p('ListApps latency vs a client without us (ListUnitsByPatterns + GetAll per unit)')
    p(f'  {"N":>5} {"listed":>6} {"daemon p50":>11} {"p99":>9} {"without p50":>12} {"p99":>9} '
      f'{"ratio p50":>9} {"ratio p99":>9}')
    for e in f['list_apps']:
        p(f'  {e["apps"]:>5} {e["daemon_apps_listed"]:>6} {e["list_apps"]["p50_ms"]:>9.2f}ms '
          f'{e["list_apps"]["p99_ms"]:>7.2f}ms {e["baseline"]["p50_ms"]:>10.2f}ms '
          f'{e["baseline"]["p99_ms"]:>7.2f}ms {e["ratio_p50"]:>8.1f}x {e["ratio_p99"]:>8.1f}x')
    p('  where a ListApps p50 goes: the daemon\'s CPU per call, this client decoding the reply, '
      'and the best ratio any daemon could reach (its own CPU at zero)')
    for e in f['list_apps']:
        if 'daemon_cpu_ms_per_call' in e:
            p(f'  {e["apps"]:>5} apps: reply {e["reply_bytes"] / 1024:.0f} KiB, daemon CPU '
              f'{e["daemon_cpu_ms_per_call"]:.1f} ms, client decoding {e["client_decode_p50_ms"]:.1f} ms, '
              f'best reachable {e["ratio_p50_if_daemon_took_no_cpu"]:.1f}x')
    if 'set_weight' in f:
        sw = f['set_weight']
        p()
        p('SetWeight round trip (polkit included) vs direct SetUnitProperties')
        for k in ('daemon', 'direct', 'polkit_check', 'floor'):
            label = {'daemon': 'through the daemon', 'direct': 'direct SetUnitProperties',
                     'polkit_check': 'one polkit CheckAuthorization',
                     'floor': 'floor: polkit check + direct'}[k]
            p(f'  {label:<32} p50 {sw[k]["p50_ms"]:>8.2f}ms  p99 {sw[k]["p99_ms"]:>8.2f}ms')
        p(f'  ratio daemon/direct p50 {sw["ratio_vs_direct_p50"]}x, p99 {sw["ratio_vs_direct_p99"]}x; '
          f'daemon/floor p50 {sw["ratio_vs_floor_p50"]}x')
    p()
    p('Start')
    s0, s = f['start_n0'], f['start_full']
    p(f'  N=0:    start -> name owned {s0["start_to_name_ms"]:.1f} ms, first ListApps answered '
      f'{s0["start_to_first_list_apps_ms"]:.1f} ms')
    p(f'  N={s["apps"]}: start -> name owned {s["start_to_name_ms"]:.1f} ms, first ListApps answered '
      f'{s["start_to_first_list_apps_ms"]:.1f} ms ({s["first_list_apps_count"]} apps)')
    a = f.get('app_added')
    if a:
        p(f'  unit active -> AppAdded at a client (N~{a["apps_before"]}, {a["samples"]} samples): '
          + (f'p50 {a["active_to_app_added"]["p50_ms"]:.2f} ms, p99 {a["active_to_app_added"]["p99_ms"]:.2f} ms'
             if 'active_to_app_added' in a else 'n/a')
          + f'; StartTransientUnit call -> AppAdded p50 {a["start_call_to_app_added"]["p50_ms"]:.2f} ms')
    if 'idle' in f:
        i = f['idle']
        p()
        p(f'Idle, {i["apps"]} apps, no client, {i["seconds"]} s: {i["voluntary_ctxt_switches"]} voluntary + '
          f'{i["nonvoluntary_ctxt_switches"]} involuntary context switches, {i["cpu_ms"]} ms CPU')
    p()
    p('Memory (KiB)')
    p(f'  {"N":>22} {"RssAnon":>8} {"heap Rss":>8} {"VmRSS":>8} {"threads":>7}')
    rows = list(f['memory'].items()) + [(f'{f["memory_fresh_start_full"]["apps"]} (fresh start)',
                                         f['memory_fresh_start_full'])]
    for k, v in rows:
        p(f'  {k:>22} {v["RssAnon_kib"]:>8} {v["heap_rss_kib"] if v["heap_rss_kib"] is not None else "-":>8} '
          f'{v["VmRSS_kib"]:>8} {v["threads"]:>7}')
    ring = f.get('action_record')
    if ring:
        budget = budgets.capability('action_record')['rss_anon_kib_at_1000']
        judged = ''
        if 'rss_anon_kib_at_1000' in ring:
            judged = f', budget {budget} KiB at 1,000 apps: ' + ('met' if ring['rss_anon_kib_added'] <= budget
                                                                 else 'MISSED')
        again = ring['rss_anon_kib_full_again']
        p(f'  the action record full ({ring["entries"]} entries, {ring["apps"]} apps): RssAnon '
          f'{ring["rss_anon_kib_before"]} -> {ring["rss_anon_kib_full"]}, a second round through it '
          f'{again if again is not None else "not run (quick)"}: +{ring["rss_anon_kib_added"]} KiB, '
          f'{ring["bytes_per_entry"]} bytes an entry{judged}')
        if 'rss_anon_kib_after_full_reply' in ring:
            p(f'  after one GetActions of the whole record: RssAnon {ring["rss_anon_kib_after_full_reply"]}, '
              f'+{ring["rss_anon_kib_added_with_full_reply"]} KiB (the reply\'s garbage in malloc\'s arenas)')
        cpu, idle = ring.get('cpu'), ring.get('idle')
        if cpu:
            budget = budgets.capability('action_record')['cpu_ms_per_event']
            p(f'  the action record\'s CPU: {cpu["moves"]} moves made {cpu["entries"]} entries in '
              f'{cpu["cpu_ms_moves"]} ms; as many calls moving nothing {cpu["cpu_ms_calls_moving_nothing"]} ms, '
              f'SetWeight calls {cpu.get("cpu_ms_set_weight_calls", "-")} ms: an entry '
              f'{cpu["cpu_ms_per_entry_with_call"]} ms with its call, '
              f'{cpu.get("cpu_ms_per_entry_with_writes", "-")} with the writes to systemd, '
              f'{cpu["cpu_ms_per_entry"]} ms recorded; budget {budget} ms: '
              + ('met' if cpu['cpu_ms_per_entry'] <= budget else 'MISSED'))
        if idle:
            rest = 'met' if ring['wakeups_at_rest'] == 0 else 'MISSED'
            p(f'  at rest with the record full, {idle["seconds"]} s: {ring["wakeups_at_rest"]} context '
              f'switches, {idle["cpu_ms"]} ms CPU, budget 0: {rest}')
    if 'throughput' in f:
        p()
        p('Throughput (closed loop, one call in flight per client)')
        p(f'  {"method":<9} {"apps":>5} {"clients":>7} {"calls/s":>9} {"p50":>9} {"p99":>9} '
          f'{"daemon CPU":>10} {"errors":>6}')
        for t in f['throughput']:
            p(f'  {t["method"]:<9} {t["apps"]:>5} {t["clients"]:>7} {t["calls_per_s"]:>9.1f} '
              f'{t["p50_ms"]:>7.2f}ms {t["p99_ms"]:>7.2f}ms {t["daemon_cpu_share"]:>9.0%} {t["errors"]:>6}')
    p()
    # judged again from the figures, so that an older result file is held to today's goals
    budgets.print_goals_and_budgets(f, p)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n', maxsplit=1)[0])
    ap.add_argument('--vm', action='store_true', help='real systemd user manager on the session bus')
    ap.add_argument('--daemon', default='/usr/libexec/resource-controld')
    ap.add_argument('--quick', action='store_true')
    ap.add_argument('--sizes', default=','.join(map(str, SIZES)))
    ap.add_argument('--out')
    ap.add_argument('--print', dest='print_file', metavar='FILE')
    args = ap.parse_args()
    if args.print_file:
        print_table(rb.json_load(args.print_file))
        return 0
    if not args.vm:
        ap.error('use --vm here, host_bench.py (through run.sh --host-only) for the mock')
    env = rb.VmEnv(args.daemon)
    try:
        res = run_all(env, args.quick, tuple(int(s) for s in args.sizes.split(',')),
                      meta={'git_rev': os.environ.get('BENCH_GIT_REV', '')},
                      checkpoint=(lambda r: rb.write_json(args.out + '.partial', r)) if args.out else None)
    finally:
        env.cleanup()
    if args.out:
        rb.write_json(args.out, res)
    print_table(res)
    return 0


if __name__ == '__main__':
    sys.exit(main())
