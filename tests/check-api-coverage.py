#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
'''A D-Bus method cannot be added half-way: every method, signal and property of the
introspection XML is in README.md and in a man page, and every method that changes
something has its polkit action in the authority's method -> action table
(src/rc-authority.c), that action's name in src/rc-names.h and the action in the polkit
policy. Reads are listed here and must stay out of the table. Prints TAP.

usage: check-api-coverage.py SOURCE_ROOT'''

import os
import re
import sys
import xml.etree.ElementTree as ET

# methods that change nothing: no polkit action (the docs say so too)
READS = {'ListApps', 'GetApp', 'ListRules'}


def read(root, path):
    with open(os.path.join(root, path), encoding='utf-8') as f:
        return f.read()


def main(root):
    iface = ET.parse(os.path.join(root, 'introspection', 'org.example.ResourceControl.xml')) \
        .getroot().find('interface')
    members = [(el.tag, el.get('name')) for el in iface if el.tag in ('method', 'signal', 'property')]
    readme = read(root, 'README.md')
    man = read(root, 'man/resourcectl.1') + read(root, 'man/resource-controld.8')
    authority = read(root, 'src/rc-authority.c')
    names = read(root, 'src/rc-names.h')
    policy = read(root, 'data/polkit/org.example.ResourceControl.policy')
    table = dict(re.findall(r'\{\s*"(\w+)",\s*(RC_ACTION_\w+)\s*\}', authority))
    macros = dict(re.findall(r'#define\s+(RC_ACTION_\w+)\s+RC_POLKIT_ACTION_PREFIX\s+"([\w-]+)"', names))
    prefix = re.search(r'#define\s+RC_POLKIT_ACTION_PREFIX\s+"([^"]+)"', names).group(1)

    results = []
    for kind, name in members:
        problems = []
        word = re.compile(r'\b' + re.escape(name) + r'\b')
        if not word.search(readme):
            problems.append('no line in README.md')
        if not word.search(man):
            problems.append('not in the man pages (resourcectl.1, resource-controld.8)')
        if kind == 'method' and name in READS:
            if name in table:
                problems.append(f'a read, but it has the polkit action {table[name]}')
        elif kind == 'method':
            macro = table.get(name)
            if macro is None:
                problems.append('no entry in the method -> action table of src/rc-authority.c '
                                '(or list it in READS here if it changes nothing)')
            elif macro not in macros:
                problems.append(f'{macro} is not defined in src/rc-names.h')
            elif f'<action id="{prefix}{macros[macro]}">' not in policy:
                problems.append(f'action {prefix}{macros[macro]} is not in the polkit policy')
        results.append((f'{kind} {name}', problems))
    for name in sorted(READS - {n for k, n in members if k == 'method'}):
        results.append((f'read {name}', ['listed as a read but not a method of the XML']))
    for name in sorted(set(table) - {n for k, n in members if k == 'method'}):
        results.append((f'action table entry {name}', ['not a method of the XML']))

    print(f'1..{len(results)}')
    failed = 0
    for i, (what, problems) in enumerate(results, 1):
        if problems:
            failed += 1
            print(f'not ok {i} {what}: ' + '; '.join(problems))
        else:
            print(f'ok {i} {what}')
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), '..')))
