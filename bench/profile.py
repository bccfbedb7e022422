#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
'''Per-call costs of the daemon on the host, for profilers.

The host integration harness's world (mock systemd, fake cgroupfs), like
host_bench.py, but one scenario only: RC_PROFILE_APPS app units (default 1000)
exist before the daemon starts; the daemon starts (through RC_DAEMON_WRAPPER if
set, e.g. valgrind --tool=callgrind), becomes ready, answers RC_PROFILE_CALLS
ListApps calls (default 10; RC_PROFILE_METHOD=ListAppRecords for that one), and
stops. Prints one JSON line:

- start_to_name_ms, the mock's GetAll / ListUnitsByPatterns call counts at startup;
- RssAnon etc. after the start and after the calls (meaningless under valgrind);
- with RC_PROFILE_STRACE=1: strace -c -f attached to the daemon during the calls
  only, and its syscalls per ListApps per app;
- with RC_PROFILE_FIRST=1: name_to_first_list_ms, from the name owned to the first
  ListApps answered (it waits for every app to be read);
- with RC_PROFILE_STEPS=1 (no wrapper): the daemon starts at N = 0 and the
  memory is taken at 0, 100 and RC_PROFILE_APPS apps, each after one ListApps.

Run as root: bench/profile.sh [--callgrind|--strace|--steps] (see there).
'''

import json
import os
import re
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), 'tests', 'integration'))

# pylint: disable=wrong-import-position
import rctest_harness as harness  # noqa: E402
import rcbench as rb  # noqa: E402
import host_bench  # noqa: E402


def mock_call_counts(log_path):
    '''Calls the daemon made to the mock systemd, by method, from its log.'''
    counts = {}
    with open(log_path, encoding='utf-8', errors='replace') as f:
        for line in f:
            m = re.match(r'^\S+ (\w+)( |$)', line)
            if m:
                key = m.group(1)
                if key in ('GetAll', 'Get'):
                    key += ' ' + line.split()[-1].rsplit('.', 1)[-1]
                counts[key] = counts.get(key, 0) + 1
    return counts


def strace_summary(path):
    '''(total calls, {syscall: calls}) from strace -c output.'''
    per = {}
    total = 0
    with open(path, encoding='utf-8') as f:
        for line in f:
            parts = line.split()
            if len(parts) >= 5 and parts[0][0].isdigit() and not line.startswith('-'):
                name = parts[-1]
                calls = int(parts[3])
                if name == 'total':
                    total = calls
                else:
                    per[name] = calls
    return total, per


def anon_mappings(pid):
    '''The mappings holding the most anonymous memory: [(Anonymous KiB, name)].'''
    maps = []
    name = None
    with open(f'/proc/{pid}/smaps', encoding='ascii', errors='replace') as f:
        for line in f:
            if not line[0].isupper():
                parts = line.split()
                name = f'{parts[0]} {parts[5] if len(parts) > 5 else ""}'
            elif line.startswith('Anonymous:'):
                maps.append((int(line.split()[1]), name))
    return sorted(maps, reverse=True)[:6]


class Profile(harness.RcTestCase):
    rules = 'allow-all'
    start_daemon_in_setup = False

    def _start_session_bus(self):
        # the desktop session bus's limits, as host_bench.py does
        harness._write = host_bench._write_with_session_limits  # pylint: disable=protected-access
        try:
            super()._start_session_bus()
        finally:
            harness._write = host_bench._harness_write  # pylint: disable=protected-access

    def daemon_env(self):
        return rb.mock_daemon_env(super().daemon_env())

    def _add(self, env, count):
        env.add_apps(count)

    def _list(self):
        method = os.environ.get('RC_PROFILE_METHOD', 'ListApps')
        return rb.rc_call(self.conn, method, timeout_ms=600000).unpack()[0]

    def _wait_listed(self, want):
        deadline = time.monotonic() + 600
        while len(self._list()) != want:
            if time.monotonic() > deadline:
                self.fail(f'ListApps never showed {want} apps')
            time.sleep(0.2)

    def test_profile(self):
        apps = int(os.environ.get('RC_PROFILE_APPS', '1000'))
        calls = int(os.environ.get('RC_PROFILE_CALLS', '10'))
        env = rb.MockEnv(self)
        out = {'apps': apps, 'calls': calls}
        if os.environ.get('RC_PROFILE_STEPS') == '1':
            d, _ = rb.start_daemon_timed(env, 0)
            out['memory'] = {'0': rb.memory(d.pid)}
            for n in (100, apps):
                self._add(env, n - len(env.units))
                self._wait_listed(n)
                self._list()
                out['memory'][str(n)] = rb.memory(d.pid)
            env.stop_daemon(d)
            print(json.dumps(out), flush=True)
            return

        self._add(env, apps)
        mark = os.path.getsize(self.mock_log)
        t0 = time.perf_counter()
        d = self.start_daemon(args=(), wait=False)
        self.wait_for_name(rb.RC_NAME, d, 'resource-controld', timeout=3000)
        out['start_to_name_ms'] = round((time.perf_counter() - t0) * 1000, 1)
        with open(self.mock_log, encoding='utf-8', errors='replace') as f:
            f.seek(mark)
            tail = f.read()
        tmp = os.path.join(self.workdir, 'mock-tail.log')
        with open(tmp, 'w', encoding='utf-8') as f:
            f.write(tail)
        out['startup_systemd_calls'] = mock_call_counts(tmp)
        if os.environ.get('RC_PROFILE_FIRST') == '1':
            # the first ListApps is answered once every app is read: start-up's cost
            t0 = time.perf_counter()
            self.assertEqual(len(self._list()), apps)
            out['name_to_first_list_ms'] = round((time.perf_counter() - t0) * 1000, 1)
        time.sleep(0.5)
        out['memory_before_first_list'] = rb.memory(d.pid)
        if os.environ.get('RC_PROFILE_SMAPS'):
            out['anon_mappings_before_first_list'] = anon_mappings(d.pid)
        self.assertEqual(len(self._list()), apps)
        out['memory_after_first_list'] = rb.memory(d.pid)

        strace = None
        if os.environ.get('RC_PROFILE_STRACE') == '1':
            strace_out = os.path.join(self.workdir, 'strace.txt')
            # pylint: disable=consider-using-with
            strace = subprocess.Popen(['strace', '-c', '-f', '-o', strace_out, '-p', str(d.pid)],
                                      stderr=subprocess.DEVNULL)
            time.sleep(1.0)
        t0 = time.perf_counter()
        for _ in range(calls):
            self._list()
        out['list_apps_mean_ms'] = round((time.perf_counter() - t0) * 1000 / calls, 2)
        if strace is not None:
            strace.send_signal(signal.SIGINT)
            strace.wait()
            total, per = strace_summary(strace_out)
            out['syscalls_per_list_apps_per_app'] = round(total / calls / apps, 2)
            out['syscalls'] = per
        out['memory_after_calls'] = rb.memory(d.pid)
        self.stop_daemon(d)
        print(json.dumps(out), flush=True)


if __name__ == '__main__':
    sys.exit(harness.main())
