# SPDX-License-Identifier: LGPL-2.1-or-later
'''Shared pieces of the integration harness (rctest_harness.py): its constants and
timeouts, and the file, cgroup and process helpers both the root supervisor (rcroot.py)
and the tests use.'''

import glob
import os
import signal
import subprocess
import sys
import time

TEST_USER = 'rctest'
FOREIGN_USER = 'nobody'
HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE_ROOT = os.path.dirname(os.path.dirname(HERE))

MOCK_IFACE = 'org.example.MockSystemd'
DBUSMOCK_IFACE = 'org.freedesktop.DBus.Mock'
# Test-only action: its rule flips between YES and NO with every rules rewrite, so
# a pkcheck tells when polkitd has loaded the new file.
GENERATION_ACTION = 'org.example.ResourceControlTest.generation'

MIB = 1024 * 1024
HANG = 2 ** 32 - 1

TIMEOUT_MULTIPLIER = float(os.environ.get('RC_TEST_TIMEOUT_MULTIPLIER', '1'))


def scaled(seconds):
    return seconds * TIMEOUT_MULTIPLIER


def _write_existing(path, text):
    # cgroupfs files: no O_CREAT/O_TRUNC games
    fd = os.open(path, os.O_WRONLY)
    try:
        os.write(fd, text.encode())
    finally:
        os.close(fd)


def _remove_cgroup(path):
    try:
        os.rmdir(path)
    except OSError as e:
        print(f'note: cgroup {path} not removed: {e}', file=sys.stderr)


def own_cgroup(pid='self'):
    '''The unified-hierarchy cgroup of a process, from /proc/PID/cgroup.'''
    with open(f'/proc/{pid}/cgroup', encoding='utf-8') as f:
        for line in f:
            if line.startswith('0::'):
                return line[3:].strip()
    return None


def _alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def _empty_cgroup(path):
    '''Kill whatever a test run left in its cgroup tree, then remove the tree, deepest first.'''
    dirs = sorted((os.path.dirname(p) for p in glob.glob(
        os.path.join(glob.escape(path), '**', 'cgroup.procs'), recursive=True)), key=len, reverse=True)
    try:
        _write_existing(os.path.join(path, 'cgroup.kill'), '1')  # Linux 5.14 and later
    except OSError:
        for d in dirs:
            try:
                with open(os.path.join(d, 'cgroup.procs'), encoding='ascii') as f:
                    pids = [int(p) for p in f.read().split()]
            except OSError:
                continue
            for pid in pids:
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
    # the killed processes leave their cgroups a moment later
    deadline = time.monotonic() + 5
    for d in dirs:
        while True:
            try:
                os.rmdir(d)
            except FileNotFoundError:
                pass
            except OSError as e:
                if time.monotonic() < deadline:
                    time.sleep(0.05)
                    continue
                print(f'note: cannot remove test cgroup {d}: {e}', file=sys.stderr)
            break


def _write(path, text, mode=0o644):
    with open(path, 'w', encoding='utf-8') as f:
        f.write(text)
    os.chmod(path, mode)


def _write_in_place(path, text, mode=0o644):
    '''A fake cgroup file rewritten as the kernel's reads show one: never empty in between.
    The daemon keeps these files open and reads them again, so they are rewritten in place
    (no rename), and not truncated before the write (a read then would find nothing).'''
    data = text.encode()
    fd = os.open(path, os.O_WRONLY | os.O_CREAT, mode)
    try:
        os.write(fd, data)
        os.ftruncate(fd, len(data))
        os.fchmod(fd, mode)
    finally:
        os.close(fd)


def terminate(proc):
    '''Stop a process the test started: SIGTERM, and SIGKILL if it is still there after 5 s.'''
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
