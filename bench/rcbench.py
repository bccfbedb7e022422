# SPDX-License-Identifier: LGPL-2.1-or-later
'''Shared pieces of the benchmark (bench.py) and the load test (load-test.py).

An "environment" gives the measurements a session bus with a systemd user
manager on it (the real one in the VM, the python-dbusmock one of the host
integration tests otherwise), a way to start app units and a way to start the
daemon.  Everything here runs as the desktop user, never as root.
'''

import importlib.util
import json
import os
import signal
import subprocess
import sys
import time

import gi
gi.require_version('Gio', '2.0')
gi.require_version('GLib', '2.0')
from gi.repository import Gio, GLib  # noqa: E402 pylint: disable=wrong-import-position

SOURCE_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(SOURCE_ROOT, 'tests', 'integration'))
from rcnames import RC_NAME, RC_PATH, RC_IFACE, RC_ERROR, ACTION_PREFIX  # noqa: E402,F401
from rcnames import service_env  # noqa: E402
from rcdbus import iterate  # noqa: E402,F401
from rcnames import systemd_unit_path as unit_path  # noqa: E402,F401
from rcnames import SYSTEMD_NAME as SD_NAME, SYSTEMD_PATH as SD_PATH  # noqa: E402
SD_MANAGER = 'org.freedesktop.systemd1.Manager'
SD_UNIT = 'org.freedesktop.systemd1.Unit'
SD_SCOPE = 'org.freedesktop.systemd1.Scope'
SD_SERVICE = 'org.freedesktop.systemd1.Service'
PROPS = 'org.freedesktop.DBus.Properties'
PK_NAME = 'org.freedesktop.PolicyKit1'
PK_PATH = '/org/freedesktop/PolicyKit1/Authority'
PK_IFACE = 'org.freedesktop.PolicyKit1.Authority'
# What a client without the daemon asks systemd for (the unit forms of docs/design.md, "What an app is").
APP_PATTERNS = ['app-*.scope', 'app-*.service', 'flatpak-*.scope', 'gnome-launched-*.scope']
MIB = 1024 * 1024
# Calls to the daemon never D-Bus activate it: the benchmark starts it itself.
NO_AUTO_START = Gio.DBusCallFlags.NO_AUTO_START


def wait_for(predicate, timeout, what):
    ctx = GLib.MainContext.default()
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise TimeoutError(f'timed out after {timeout} s waiting for {what}')
        # block in poll() briefly instead of spinning
        if not ctx.iteration(False):
            time.sleep(0.0005)


def error_name(error):
    return Gio.DBusError.get_remote_error(error) or f'(local) {error.message}'


#
# The daemon process, seen from /proc
#

def proc_status(pid):
    out = {}
    with open(f'/proc/{pid}/status', encoding='ascii') as f:
        for line in f:
            key, _, value = line.partition(':')
            out[key] = value.strip()
    return out


def kib(value):
    return int(value.split()[0])


def heap_rss_kib(pid):
    '''Rss of the [heap] mapping (the brk heap; glibc puts big blocks in mmaps).'''
    total = 0
    in_heap = False
    try:
        with open(f'/proc/{pid}/smaps', encoding='ascii', errors='replace') as f:
            for line in f:
                if not line[0].isupper():
                    in_heap = line.rstrip().endswith('[heap]')
                elif in_heap and line.startswith('Rss:'):
                    total += kib(line.split(':', 1)[1])
    except OSError:
        return None
    return total


# The daemon hands freed heap back 1 s after its last large reply: memory is
# taken at rest, after that.
AT_REST_S = 1.5


def anon_exact_kib(pid):
    '''Resident anonymous memory counted page by page (smaps_rollup). RssAnon in
    /proc/PID/status is the same figure from counters that each thread caches and
    adds up only every 64 page faults on kernels before 6.2 (proc(5): "inaccurate"),
    enough to move a 2.5 MiB reading by 5 %.'''
    with open(f'/proc/{pid}/smaps_rollup', encoding='ascii') as f:
        for line in f:
            if line.startswith('Anonymous:'):
                return kib(line.split(':', 1)[1])
    raise RuntimeError(f'no Anonymous line in /proc/{pid}/smaps_rollup')


def memory(pid):
    time.sleep(AT_REST_S)
    st = proc_status(pid)
    return {'RssAnon_kib': anon_exact_kib(pid), 'RssAnon_status_kib': kib(st['RssAnon']),
            'VmRSS_kib': kib(st['VmRSS']),
            'RssFile_kib': kib(st['RssFile']), 'heap_rss_kib': heap_rss_kib(pid),
            'threads': int(st['Threads'])}


def ctxt_switches(pid):
    '''(voluntary, involuntary) summed over every thread; /proc/PID/status alone is
    the main thread only and misses GDBus's worker thread.'''
    vol = invol = 0
    for tid in os.listdir(f'/proc/{pid}/task'):
        try:
            st = proc_status(f'{pid}/task/{tid}')
        except OSError:
            continue
        vol += int(st['voluntary_ctxt_switches'])
        invol += int(st['nonvoluntary_ctxt_switches'])
    return vol, invol


def cpu_seconds(pid):
    with open(f'/proc/{pid}/stat', encoding='ascii') as f:
        fields = f.read().rsplit(')', 1)[1].split()
    # fields[11], [12]: utime, stime (fields 14 and 15 of proc(5))
    return (int(fields[11]) + int(fields[12])) / os.sysconf('SC_CLK_TCK')


def open_fds(pid):
    return len(os.listdir(f'/proc/{pid}/fd'))


#
# Statistics
#

def percentile(values, p):
    '''Nearest-rank percentile.'''
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, int(-(-p * len(ordered) // 100)))
    return ordered[min(rank, len(ordered)) - 1]


def summary_ms(samples):
    ms = [s * 1000 for s in samples]
    return {'n': len(ms), 'p50_ms': round(percentile(ms, 50), 3),
            'p99_ms': round(percentile(ms, 99), 3), 'min_ms': round(min(ms), 3),
            'mean_ms': round(sum(ms) / len(ms), 3)}


def sample(fn, iterations, budget_s, warmup=2, min_iterations=5):
    '''Time fn() up to iterations times or until budget_s is spent (at least min_iterations).'''
    for _ in range(warmup):
        fn()
    samples = []
    start = time.monotonic()
    while len(samples) < iterations:
        t0 = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - t0)
        if len(samples) >= min_iterations and time.monotonic() - start > budget_s:
            break
    return samples


#
# Environments
#

class Env:
    '''What the measurements need from their world; see VmEnv and MockEnv.'''

    label = 'abstract'
    conn = None
    bus_address = None

    def __init__(self):
        self.units = []          # app units started so far, in order
        self.counter = 0

    def next_unit(self):
        self.counter += 1
        n = self.counter
        # launcher "bench", AppID org.example.Bench<n>, instance 1 (a scope, as GNOME Shell starts apps)
        return f'app-bench-org.example.Bench{n}-{n}.scope'

    def add_apps(self, count):
        raise NotImplementedError

    def start_one_app(self, unit):
        '''Start one app unit without waiting for it.'''
        raise NotImplementedError

    def start_daemon(self):
        raise NotImplementedError

    def stop_daemon(self, proc):
        raise NotImplementedError

    def systemd_version(self):
        return sd_call(self.conn, SD_PATH, PROPS, 'Get', ('(ss)', (SD_MANAGER, 'Version')))[0]

    def cleanup(self):
        pass


def scale_guest():
    '''tests/vm/scale-guest.py as a module: its start_scopes() starts the VM's app scopes.'''
    if 'scale_guest' not in sys.modules:
        spec = importlib.util.spec_from_file_location(
            'scale_guest', os.path.join(SOURCE_ROOT, 'tests', 'vm', 'scale-guest.py'))
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        sys.modules['scale_guest'] = module
    return sys.modules['scale_guest']


def sd_call(conn, path, iface, method, args=None, timeout_ms=120000):
    params = GLib.Variant(*args) if args else None
    return conn.call_sync(SD_NAME, path, iface, method, params, None,
                          Gio.DBusCallFlags.NONE, timeout_ms, None).unpack()


class VmEnv(Env):
    '''Real systemd user manager: apps are transient scopes, each holding a
    `sleep infinity`, all started with StartTransientUnit from this process.'''

    label = 'vm'

    def __init__(self, daemon_path):
        super().__init__()
        self.daemon_path = daemon_path
        self.bus_address = os.environ['DBUS_SESSION_BUS_ADDRESS']
        self.conn = Gio.bus_get_sync(Gio.BusType.SESSION, None)
        self.children = []
        self.daemon_log = os.path.join(os.environ.get('VM_OUT', '/tmp'), 'bench-daemon.log')

    def _spawn_holder(self):
        pid = scale_guest().holder()
        self.children.append(pid)
        return pid

    def _app_properties(self, unit):
        '''The scope's properties, with a new holder process; counts the unit as started.'''
        self.units.append(unit)
        return [('PIDs', GLib.Variant('au', [self._spawn_holder()])),
                ('Slice', GLib.Variant('s', 'app.slice')),
                ('Description', GLib.Variant('s', 'resource-control benchmark app')),
                ('CollectMode', GLib.Variant('s', 'inactive-or-failed'))]

    def start_one_app(self, unit):
        params = GLib.Variant('(ssa(sv)a(sa(sv)))', (unit, 'fail', self._app_properties(unit), []))
        self.conn.call_sync(SD_NAME, SD_PATH, SD_MANAGER, 'StartTransientUnit', params,
                            None, Gio.DBusCallFlags.NONE, 120000, None)

    def add_apps(self, count):
        '''count more app scopes, started as the system tests' section scale starts its own.'''
        todo = [self.next_unit() for _ in range(count)]
        t0 = time.monotonic()

        def progress(n):
            if n % 100 == 0:
                log(f'  {n}/{count} scopes started ({time.monotonic() - t0:.1f} s)')
        errors = scale_guest().start_scopes(
            self.conn, ((unit, self._app_properties(unit)) for unit in todo), progress=progress)
        if errors:
            raise RuntimeError(f'{len(errors)} scopes failed: {errors[:3]}')
        # a scope is active once its start job is done; check it anyway
        want = set(todo)
        deadline = time.monotonic() + 900
        while True:
            active = {u[0] for u in sd_call(self.conn, SD_PATH, SD_MANAGER, 'ListUnitsByPatterns',
                                            ('(asas)', (['active'], ['app-bench-*'])),
                                            timeout_ms=600000)[0]}
            if want <= active:
                return todo
            if time.monotonic() > deadline:
                raise RuntimeError(f'{len(want - active)} bench scopes not active after 900 s')
            time.sleep(1)

    def start_daemon(self):
        env = dict(os.environ, **service_env())
        env.pop('G_MESSAGES_DEBUG', None)
        # pylint: disable=consider-using-with
        log = open(self.daemon_log, 'ab')
        proc = subprocess.Popen([self.daemon_path], env=env, stdout=log, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL)
        log.close()
        return proc

    def stop_daemon(self, proc):
        rc = proc.poll()
        if rc is not None:
            raise RuntimeError(f'resource-controld died during the benchmark (exit status {rc})')
        proc.send_signal(signal.SIGTERM)
        rc = proc.wait(timeout=60)
        if rc not in (0, -signal.SIGTERM):
            raise RuntimeError(f'resource-controld exited with status {rc} on SIGTERM')

    def cleanup(self):
        for pid in self.children:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        for pid in self.children:
            try:
                os.waitpid(pid, 0)
            except OSError:
                pass


class MockEnv(Env):
    '''The host integration harness (a RcTestCase): python-dbusmock systemd with a
    fake cgroupfs, the daemon from the build folder, a real polkitd.'''

    label = 'mock'

    def __init__(self, testcase):
        super().__init__()
        self.tc = testcase
        self.conn = testcase.conn
        self.bus_address = testcase.bus_address

    def start_one_app(self, unit):
        options = {'slice': GLib.Variant('s', 'app.slice')}
        params = GLib.Variant('(sa{sv})', (unit, options))
        self.conn.call_sync(SD_NAME, SD_PATH, 'org.example.MockSystemd', 'AddAppFull', params,
                            None, Gio.DBusCallFlags.NONE, 60000, None)
        self.units.append(unit)

    def add_apps(self, count):
        todo = [self.next_unit() for _ in range(count)]
        for unit in todo:
            self.start_one_app(unit)
        return todo

    def start_daemon(self):
        return self.tc.start_daemon(args=(), wait=False)

    def stop_daemon(self, proc):
        self.tc.stop_daemon(proc)


def mock_daemon_env(base_env):
    '''The harness's daemon environment without debug logging (it would be measured).'''
    env = dict(base_env, **service_env())
    env.pop('G_MESSAGES_DEBUG', None)
    return env


#
# The benches of a policy that checks once a second under pressure (guard_bench.py,
# ladder_bench.py), in the host integration tests' world
#

# RC_BENCH_QUICK=1: a quick look, with fewer apps and shorter waits (every bench)
QUICK = os.environ.get('RC_BENCH_QUICK') == '1'
# N apps: 1,000; 100 for a quick look
POLICY_BENCH_APPS = 100 if QUICK else 1000
# each CPU window, without and with the checks
POLICY_BENCH_WINDOW_S = 8


def add_apps_listed(test, apps, timeout):
    '''Adds @apps, (unit, add_app's keyword arguments) pairs, without waiting for each, and
    waits until the daemon lists them all.'''
    for unit, kwargs in apps:
        test.add_app(unit, wait=False, **kwargs)
    test.wait_until(lambda: len(test.list_apps()) == len(apps), timeout, f'{len(apps)} apps listed')


def start_fake_kernel(test, kernel):
    '''Starts @kernel (a test's FakeKernel thread) and has @test stop it at cleanup.'''
    kernel.start()
    test.addCleanup(kernel.join)
    test.addCleanup(kernel.stopping.set)
    return kernel


def cpu_window(pid, seconds):
    '''The daemon's CPU seconds over @seconds, and the seconds it really took.'''
    cpu0, t0 = cpu_seconds(pid), time.monotonic()
    time.sleep(seconds)
    cpu1, t1 = cpu_seconds(pid), time.monotonic()
    return cpu1 - cpu0, t1 - t0


def checks_cpu_figures(control, checking):
    '''The CPU figures of a policy that checks once a second, from two cpu_windows: @control
    with the fake kernel writing and no check running (its writes wake the daemon through its
    inotify watches on the folders, which the kernel's own counters never do), @checking the
    same with the checks running.'''
    (control_cpu, control_s), (cpu, seconds) = control, checking
    return {
        'cpu_ms_per_s_control': round(control_cpu * 1000 / control_s, 2),
        'cpu_ms_per_s_under_pressure': round(cpu * 1000 / seconds, 2),
        # a check a second
        'cpu_ms_per_check': round((cpu / seconds - control_cpu / control_s) * 1000, 2),
    }


#
# Calls to the daemon
#

def rc_call(conn, method, args=None, sig=None, timeout_ms=120000):
    params = GLib.Variant(sig, args) if sig is not None else None
    return conn.call_sync(RC_NAME, RC_PATH, RC_IFACE, method, params, None, NO_AUTO_START,
                          timeout_ms, None)


class NameWatch:
    '''Times when a bus name gets an owner (NameOwnerChanged), as seen by this client.'''

    def __init__(self, conn, name):
        self.conn = conn
        self.owned_at = None
        self.sub = conn.signal_subscribe('org.freedesktop.DBus', 'org.freedesktop.DBus',
                                         'NameOwnerChanged', '/org/freedesktop/DBus', name,
                                         Gio.DBusSignalFlags.NONE, self._cb)
        # The match rule goes to the bus without a reply; the bus handles one connection's
        # messages in order, so once this call is answered a daemon started next cannot
        # take its name unseen.
        has_owner(conn, name)

    def _cb(self, *args):
        new_owner = args[5].unpack()[2]
        if new_owner and self.owned_at is None:
            self.owned_at = time.perf_counter()

    def close(self):
        self.conn.signal_unsubscribe(self.sub)


def has_owner(conn, name):
    return conn.call_sync('org.freedesktop.DBus', '/org/freedesktop/DBus', 'org.freedesktop.DBus',
                          'NameHasOwner', GLib.Variant('(s)', (name,)), None,
                          Gio.DBusCallFlags.NONE, -1, None).unpack()[0]


def start_daemon_timed(env, expect_apps):
    '''Start the daemon; (proc, {start_to_name_ms, start_to_first_list_ms, ...}).'''
    # A daemon just stopped can own its name a moment longer: the bus drops it when it
    # reads the closed connection, which may come after the process has been reaped.
    deadline = time.monotonic() + 10
    while has_owner(env.conn, RC_NAME):
        if time.monotonic() > deadline:
            raise RuntimeError(f'{RC_NAME} is already owned; stop the running daemon first')
        time.sleep(0.02)
    watch = NameWatch(env.conn, RC_NAME)
    t0 = time.perf_counter()
    proc = env.start_daemon()
    try:
        wait_for(lambda: watch.owned_at is not None or proc.poll() is not None, 300,
                 'the daemon to own its name')
    finally:
        watch.close()
    if proc.poll() is not None:
        raise RuntimeError(f'resource-controld exited with status {proc.returncode} at start')
    reply = rc_call(env.conn, 'ListApps')
    t2 = time.perf_counter()
    # counted after the clock stops: turning 1,000 records into Python objects is this
    # client's own work, seconds of it under the VM's emulation
    apps = reply.unpack()[0]
    return proc, {'start_to_name_ms': round((watch.owned_at - t0) * 1000, 2),
                  'start_to_first_list_apps_ms': round((t2 - t0) * 1000, 2),
                  'first_list_apps_count': len(apps), 'expected_apps': expect_apps}


def write_json(path, data):
    tmp = path + '.tmp'
    with open(tmp, 'w', encoding='utf-8') as f:
        json.dump(data, f, indent=2, sort_keys=False)
        f.write('\n')
    os.replace(tmp, path)


def log(msg):
    print(f'[{time.strftime("%H:%M:%S")}] {msg}', file=sys.stderr, flush=True)


#
# Client processes (worker.py)
#

WORKER = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'worker.py')


def run_workers(address, clients, spec, daemon_pid=None, max_procs=None):
    '''Run `clients` connections spread over a few worker processes; the merged result.'''
    procs_n = max(1, min(clients, max_procs or max(2, os.cpu_count() or 2)))
    per = [clients // procs_n + (1 if i < clients % procs_n else 0) for i in range(procs_n)]
    procs = []
    for i, m in enumerate(per):
        s = dict(spec, address=address, connections=m, seed=spec.get('seed', 1) * 100 + i)
        # pylint: disable=consider-using-with
        procs.append(subprocess.Popen([sys.executable, '-B', WORKER, json.dumps(s)],
                                      stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True))
    for p in procs:
        line = p.stdout.readline().strip()
        if line != 'ready':
            raise RuntimeError(f'worker did not start (said {line!r})')
    cpu0 = cpu_seconds(daemon_pid) if daemon_pid else None
    cs0 = ctxt_switches(daemon_pid) if daemon_pid else None
    t0 = time.monotonic()
    for p in procs:
        p.stdin.write('go\n')
        p.stdin.flush()
    results = []
    for p in procs:
        line = p.stdout.readline()
        p.stdin.close()
        p.stdout.close()
        p.wait()
        if not line:
            raise RuntimeError(f'worker exited with status {p.returncode} without a result')
        results.append(json.loads(line))
    wall = time.monotonic() - t0
    merged = {'clients': clients, 'processes': procs_n, 'wall_s': round(wall, 3),
              'sent': 0, 'answered': 0, 'unexpected': 0, 'unexpected_samples': [], 'outcomes': {},
              'polkit_timeouts': []}
    for r in results:
        for k in ('sent', 'answered', 'unexpected'):
            merged[k] += r[k]
        merged['unexpected_samples'] += r['unexpected_samples']
        merged['polkit_timeouts'] += r.get('polkit_timeouts', [])
        for k, v in r['outcomes'].items():
            merged['outcomes'][k] = merged['outcomes'].get(k, 0) + v
    merged['p50_ms_worst_worker'] = max((r['p50_ms'] or 0) for r in results)
    merged['p99_ms_worst_worker'] = max((r['p99_ms'] or 0) for r in results)
    merged['max_ms'] = max((r['max_ms'] or 0) for r in results)
    if daemon_pid:
        merged['daemon_cpu_s'] = round(cpu_seconds(daemon_pid) - cpu0, 3)
        merged['daemon_cpu_share'] = round(merged['daemon_cpu_s'] / wall, 3)
        cs1 = ctxt_switches(daemon_pid)
        merged['daemon_ctxt_switches'] = (cs1[0] - cs0[0]) + (cs1[1] - cs0[1])
    return merged


def json_load(path):
    with open(path, encoding='utf-8') as f:
        return json.load(f)
