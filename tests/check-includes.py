#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The clients see only src/common: a lint over their #include lines.

resourcectl (src/cli), the scope helper (src/scope-helper) and the panel
(panel/) are clients of the public D-Bus API; src/common is what they share
with the daemon. None of them may include a daemon header. The build alone
does not stop that: a quoted include is looked up beside the including file
first, so "../daemon/rc-registry.h" compiles. This check fails on

  - an include whose file name is a daemon header's (quoted or in <>),
  - an include whose path names the daemon folder,
  - a quoted include that does not resolve, beside the file or in the
    folders its product may see, to a file inside those folders (a
    generated header named with --generated counts as one of src/common).

Usage: check-includes.py SOURCE_ROOT [--generated NAME]...
       check-includes.py --self-test
Prints TAP; exits 1 when an include breaks the rule.
"""

import os
import re
import sys
import tempfile

# Each client folder and the folders its includes may reach.
ALLOWED = {
    'src/cli': ('src/cli', 'src/common'),
    'src/scope-helper': ('src/scope-helper', 'src/common'),
    'panel': ('panel', 'src/common'),
    'src/common': ('src/common',),
}
DAEMON_DIR = 'src/daemon'
INCLUDE_RE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')
SOURCE_ENDINGS = ('.c', '.h')


def inside(path, folder):
    return os.path.commonpath([path, folder]) == folder


def daemon_header_names(root):
    folder = os.path.join(root, DAEMON_DIR)
    if not os.path.isdir(folder):
        return set()
    return {n for n in os.listdir(folder) if n.endswith('.h')}


def resolve(root, including_file, name, allowed, generated):
    """Where the compiler would find a quoted include, or None."""
    candidates = [os.path.dirname(including_file)]
    candidates += [os.path.join(root, folder) for folder in allowed]
    for folder in candidates:
        path = os.path.realpath(os.path.join(folder, name))
        if os.path.isfile(path):
            return path
    if name in generated:
        return os.path.join(root, 'src/common', name)
    return None


def problems_in_file(root, path, allowed, daemon_names, generated):
    allowed_paths = [os.path.realpath(os.path.join(root, f)) for f in allowed]
    daemon_path = os.path.realpath(os.path.join(root, DAEMON_DIR))
    with open(path, encoding='utf-8', errors='replace') as f:
        lines = f.readlines()
    for number, line in enumerate(lines, 1):
        m = INCLUDE_RE.match(line)
        if not m:
            continue
        quoted, name = m.group(1) == '"', m.group(2)
        where = '%s:%d: #include %s' % (os.path.relpath(path, root), number,
                                        line.split('include', 1)[1].strip())
        parts = os.path.normpath(name).split(os.sep)
        if os.path.basename(name) in daemon_names:
            yield '%s names a daemon header' % where
        elif 'daemon' in parts:
            yield '%s names the daemon folder' % where
        elif quoted:
            found = resolve(root, path, name, allowed, generated)
            if found is None:
                yield '%s resolves in none of %s' % (where, ', '.join(allowed))
            elif inside(found, daemon_path):
                yield '%s reaches %s' % (where, os.path.relpath(found, root))
            elif not any(inside(found, a) for a in allowed_paths):
                yield '%s reaches %s, outside %s' % (
                    where, os.path.relpath(found, root), ', '.join(allowed))


def check_tree(root, generated):
    """(folder, [problems]) for each client folder of the tree."""
    root = os.path.realpath(root)
    daemon_names = daemon_header_names(root)
    results = []
    for folder, allowed in ALLOWED.items():
        top = os.path.join(root, folder)
        problems = []
        for dirpath, dirnames, filenames in os.walk(top):
            dirnames.sort()
            for filename in sorted(filenames):
                if filename.endswith(SOURCE_ENDINGS):
                    problems += problems_in_file(
                        root, os.path.join(dirpath, filename), allowed,
                        daemon_names, generated)
        results.append((folder, problems))
    return results


def report(results):
    """TAP lines for the results; True when all pass."""
    print('1..%d' % len(results))
    ok = True
    for i, (folder, problems) in enumerate(results, 1):
        for problem in problems:
            print('# %s' % problem)
        status = 'not ok' if problems else 'ok'
        print('%s %d - %s includes only what it may see' % (status, i, folder))
        ok = ok and not problems
    return ok


# The fixture of --self-test: one file per way to break the rule; each must
# be found, and the good file must pass.
SELF_TEST_BAD = {
    'src/cli/by-name.c': '#include "rc-registry.h"\n',
    'src/cli/by-angle-name.c': '#include <rc-registry.h>\n',
    'src/cli/by-folder.c': '#include "daemon/rc-not-written-yet.h"\n',
    'src/cli/through-a-link.c': '#include "linked/rc-state.inc"\n',
    'src/cli/by-relative-path.c': '#  include "../daemon/rc-registry.h"\n',
    'panel/unresolved.c': '#include "rc-nowhere.h"\n',
    'src/scope-helper/outside.c': '#include "../../tests/rc-outside.h"\n',
    'src/common/up-to-cli.c': '#include "../cli/resourcectl.h"\n',
}
SELF_TEST_GOOD = {
    'src/cli/good.c': ('#include <glib.h>\n#include "resourcectl.h"\n'
                       '#include "rc-api-keys.h"\n#include "../common/rc-api-keys.h"\n'
                       '#include "rc-generated.h"\n'),
    'src/cli/resourcectl.h': '',
    'src/common/rc-api-keys.h': '#include "rc-generated.h"\n',
    'src/daemon/rc-registry.h': '',
    'src/daemon/rc-state.inc': '',
    'tests/rc-outside.h': '',
}


def self_test():
    """Runs the check on a fixture tree that breaks the rule in each way."""
    with tempfile.TemporaryDirectory() as root:
        for name, text in list(SELF_TEST_GOOD.items()) + list(SELF_TEST_BAD.items()):
            os.makedirs(os.path.dirname(os.path.join(root, name)), exist_ok=True)
            with open(os.path.join(root, name), 'w') as f:
                f.write(text)
        # A folder of common that is a link into the daemon's.
        os.symlink('../daemon', os.path.join(root, 'src/common/linked'))
        results = check_tree(root, {'rc-generated.h'})
    found = [p for _, problems in results for p in problems]
    cases = [(bad, [p for p in found if p.startswith(bad + ':')])
             for bad in sorted(SELF_TEST_BAD)]
    cases.append(('src/cli/good.c',
                  [p for p in found if p.startswith('src/cli/good.c')]))
    print('1..%d' % len(cases))
    ok = True
    for i, (name, problems) in enumerate(cases, 1):
        for problem in problems:
            print('# %s' % problem)
        expect_bad = name in SELF_TEST_BAD
        passed = bool(problems) == expect_bad
        ok = ok and passed
        print('%s %d - %s is %s' % ('ok' if passed else 'not ok', i, name,
                                    'refused' if expect_bad else 'accepted'))
    if len(found) != len(SELF_TEST_BAD):
        print('# expected %d problems, found %d' % (len(SELF_TEST_BAD), len(found)))
        ok = False
    return ok


def main(argv):
    if argv[1:] == ['--self-test']:
        return 0 if self_test() else 1
    if len(argv) < 2:
        sys.stderr.write(__doc__)
        return 2
    generated = set()
    args = argv[2:]
    while args:
        if args[0] != '--generated' or len(args) < 2:
            sys.stderr.write(__doc__)
            return 2
        generated.add(os.path.basename(args[1]))
        args = args[2:]
    return 0 if report(check_tree(argv[1], generated)) else 1


if __name__ == '__main__':
    sys.exit(main(sys.argv))
