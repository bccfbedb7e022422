#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
'''The load test's leak check must catch a leak: runs `bench/load-test.py --quick` (exactly
what CI runs) against a daemon that leaks 1 KiB per method call (bench/leak-shim.c, preloaded
through the harness's RC_DAEMON_WRAPPER) and passes only when the load test fails for that
reason and no other. Environment: RC_DAEMON, RC_LEAK_SHIM (the built shim). As root.'''

import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    shim = os.environ['RC_LEAK_SHIM']
    if not os.path.exists(shim):
        print(f'no leak shim at {shim}')
        return 1
    env = dict(os.environ, RC_DAEMON_WRAPPER=f'env LD_PRELOAD={shim}')
    # the leak is per call, whatever the concurrency: 10 clients spare polkitd the 50-client
    # load (which load-test itself runs), under which it answered late in 1 of ~50 runs
    proc = subprocess.run([sys.executable, '-B', os.path.join(HERE, 'load-test.py'), '--quick',
                           '--clients', '10'],
                          env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                          check=False)
    out = proc.stdout
    print(out)
    found = [line[len('PROBLEM: '):] for line in out.splitlines() if line.startswith('PROBLEM: ')]
    problems = []
    if proc.returncode == 0:
        problems.append('the load test passed against a daemon leaking 1 KiB per call')
    if not any(p.startswith('memory leak: RssAnon grew in every round') for p in found):
        problems.append('the load test did not name the memory leak')
    problems += [f'the load test also failed for another reason: {p}'
                 for p in found if not p.startswith('memory leak:')]
    if problems:
        print('FAIL: ' + '; '.join(problems))
        return 1
    print('PASS: the load test caught the leaking daemon, and for that reason only')
    return 0


if __name__ == '__main__':
    sys.exit(main())
