#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
'''The benchmark on the host, with the host integration harness's world: a private
session bus, the python-dbusmock systemd with its fake cgroupfs, a real polkitd on
a private system bus, the daemon from a build folder, all as the test user.
Figures against the mock systemd are labelled "mock".

Run as root (the harness creates the test user and starts polkitd), normally via
bench/run.sh --host-only. Environment: RC_DAEMON (daemon binary), RC_BENCH_OUT (JSON
result, in a folder the test user can write), RC_BENCH_QUICK=1, RC_BENCH_SIZES
("10,100,1000"), BENCH_GIT_REV.
'''

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), 'tests', 'integration'))

# pylint: disable=wrong-import-position
import rctest_harness as harness  # noqa: E402
import rcbench as rb  # noqa: E402
import bench  # noqa: E402


# A desktop session bus (dbus-daemon's session.conf) has practically no limits; the
# harness's private bus has dbus-daemon's built-in ones (128 pending replies per
# connection), which a daemon starting with 1,000 apps exceeds (see the README).
SESSION_LIMITS = ''.join(f'  <limit name="{k}">{v}</limit>\n' for k, v in (
    ('max_replies_per_connection', 50000), ('max_match_rules_per_connection', 50000),
    ('max_incoming_bytes', 1000000000), ('max_outgoing_bytes', 1000000000),
    ('max_message_size', 1000000000)))


def _write_with_session_limits(path, text, *args, **kwargs):
    if os.path.basename(path) == 'session.conf':
        text = text.replace('</busconfig>', SESSION_LIMITS + '</busconfig>')
    return _harness_write(path, text, *args, **kwargs)


_harness_write = harness._write  # pylint: disable=protected-access


class HostBench(harness.RcTestCase):
    rules = 'allow-all'
    start_daemon_in_setup = False

    def _start_session_bus(self):
        harness._write = _write_with_session_limits  # pylint: disable=protected-access
        try:
            super()._start_session_bus()
        finally:
            harness._write = _harness_write  # pylint: disable=protected-access

    def daemon_env(self):
        return rb.mock_daemon_env(super().daemon_env())

    def test_bench(self):
        sizes = tuple(int(s) for s in os.environ.get('RC_BENCH_SIZES', '10,100,1000').split(','))
        res = bench.run_all(rb.MockEnv(self), rb.QUICK, sizes,
                            meta={'git_rev': os.environ.get('BENCH_GIT_REV', '')})
        rb.write_json(os.environ['RC_BENCH_OUT'], res)


if __name__ == '__main__':
    sys.exit(harness.main())
