#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
'''A D-Bus method cannot be added half-way: every method, signal and property of the
introspection XML has a doc comment there (gdbus-codegen's, with an @arg line for each
argument) and is in the user guide (docs/user-guide.md) and in a man page, and every method that changes
something has its polkit action in the authority's method -> action table
(src/daemon/rc-authority.c), that action's name in src/common/rc-names.h and the action in the polkit
policy. Reads are listed here and must stay out of the table. Also: the Python tests'
names (tests/integration/rcnames.py) are the daemon's. Prints TAP.

usage: check-api-coverage.py SOURCE_ROOT [XML]
  XML: check this interface XML instead of SOURCE_ROOT's (to try a change)'''

import os
import re
import sys
import xml.etree.ElementTree as ET

# methods that change nothing: no polkit action (the docs say so too)
READS = {'ListApps', 'ListAppRecords', 'GetApp', 'ListRules', 'GetAppByPid', 'ListProcesses',
         'ListSlices', 'GetActions', 'GetLimitSources', 'GetEnergyUsage'}


def read(root, path):
    with open(os.path.join(root, path), encoding='utf-8') as f:
        return f.read()


def doc_problems(comment, element):
    '''What gdbus-codegen would miss in the doc comment right before @element: a first
    line "Name:", one "@arg: text" line per argument, then a description.'''
    name = element.get('name')
    lines = [line.strip() for line in (comment or '').strip().split('\n')]
    if lines[0] != name + ':' and not lines[0].startswith(name + ': '):
        return [f'no doc comment in the XML (<!-- {name}: ... --> right before it)']
    params, body = set(), []
    for line in lines[1:]:
        match = re.match(r'@(\w+): \S', line)
        if match and not body:
            params.add(match.group(1))
        elif line:
            body.append(line)
    problems = [f'no "@{a}: ..." line in its doc comment'
                for a in (arg.get('name') for arg in element.iter('arg')) if a not in params]
    if not body:
        problems.append('its doc comment has no description after the @arg lines')
    return problems


def members_with_docs(xml_path):
    '''(kind, name, doc problems) of each method, signal and property, in order.'''
    parser = ET.XMLParser(target=ET.TreeBuilder(insert_comments=True))
    iface = ET.parse(xml_path, parser).getroot().find('interface')
    out, comment = [], None
    for el in iface:
        if el.tag is ET.Comment:
            comment = el.text
        elif el.tag in ('method', 'signal', 'property'):
            out.append((el.tag, el.get('name'), doc_problems(comment, el)))
            comment = None
    return out


def python_names(root, names, policy, iface_name):
    '''tests/integration/rcnames.py against the C side: (what, problems) pairs.'''
    sys.dont_write_bytecode = True      # nothing written into the source tree
    sys.path.insert(0, os.path.join(root, 'tests', 'integration'))
    import rcnames  # pylint: disable=import-outside-toplevel
    defines = dict(re.findall(r'#define\s+(RC_\w+)\s+"([^"]*)"', names))
    keys = re.findall(r'#define\s+RC_KEY_\w+\s+"(\w+)"', read(root, 'src/common/rc-api-keys.h'))
    errors = re.findall(r'RC_DBUS_ERROR_PREFIX\s+"(\w+)"', read(root, 'src/common/rc-error.c'))
    actions = sorted(re.findall(r'<action id="([^"]+)"', policy))
    record = [k for k in keys if k in rcnames.APP_KEYS]
    python_keys = {**rcnames.APP_KEYS, **rcnames.SET_LIMITS_ONLY_KEYS, **rcnames.RULE_ONLY_KEYS,
                   **rcnames.OOM_KEYS, **rcnames.REPORT_KEYS, **rcnames.ENERGY_KEYS}
    pairs = [('RC_NAME', rcnames.RC_NAME, 'RC_DBUS_NAME of src/common/rc-names.h', defines.get('RC_DBUS_NAME')),
             ('RC_PATH', rcnames.RC_PATH, 'RC_DBUS_PATH of src/common/rc-names.h', defines.get('RC_DBUS_PATH')),
             ('RC_ERROR', rcnames.RC_ERROR, 'RC_DBUS_ERROR_PREFIX of src/common/rc-names.h',
              defines.get('RC_DBUS_ERROR_PREFIX')),
             ('ACTION_PREFIX', rcnames.ACTION_PREFIX, 'RC_POLKIT_ACTION_PREFIX of src/common/rc-names.h',
              defines.get('RC_POLKIT_ACTION_PREFIX')),
             ('RC_IFACE', rcnames.RC_IFACE, 'the XML\'s interface', iface_name),
             ('ERRORS', sorted(rcnames.ERRORS), 'the errors of src/common/rc-error.c', sorted(errors)),
             ('ACTIONS', sorted(rcnames.ACTION_PREFIX + a for a in rcnames.ACTIONS),
              'the actions of the polkit policy', actions),
             ('the keys', sorted(python_keys), 'the RC_KEY_ names of src/common/rc-api-keys.h', sorted(keys)),
             ('APP_KEYS\' order', list(rcnames.APP_KEYS), 'the order of src/common/rc-api-keys.h', record)]
    return [(f'rcnames.py {py} = {c}', [] if a == b else [difference(a, b)]) for py, a, c, b in pairs]


def difference(ours, theirs):
    if isinstance(ours, list) and sorted(ours) != sorted(theirs):
        only_ours = ', '.join(sorted(set(ours) - set(theirs))) or 'nothing'
        only_theirs = ', '.join(sorted(set(theirs) - set(ours))) or 'nothing'
        return f'only in rcnames.py: {only_ours}; only in the C side: {only_theirs}'
    return f'rcnames.py has {ours!r}, the C side {theirs!r}'


def main(root, xml_path=None):
    xml_path = xml_path or os.path.join(root, 'introspection', 'org.example.ResourceControl.xml')
    documented = members_with_docs(xml_path)
    members = [(kind, name) for kind, name, _ in documented]
    guide = read(root, 'docs/user-guide.md')
    man = read(root, 'man/resourcectl.1') + read(root, 'man/resource-controld.8')
    authority = read(root, 'src/daemon/rc-authority.c')
    names = read(root, 'src/common/rc-names.h')
    policy = read(root, 'data/polkit/org.example.ResourceControl.policy')
    table = dict(re.findall(r'\{\s*"(\w+)",\s*(RC_ACTION_\w+)\s*\}', authority))
    macros = dict(re.findall(r'#define\s+(RC_ACTION_\w+)\s+RC_POLKIT_ACTION_PREFIX\s+"([\w-]+)"', names))
    prefix = re.search(r'#define\s+RC_POLKIT_ACTION_PREFIX\s+"([^"]+)"', names).group(1)

    results = []
    for kind, name, problems in documented:
        word = re.compile(r'\b' + re.escape(name) + r'\b')
        if not word.search(guide):
            problems.append('no line in docs/user-guide.md')
        if not word.search(man):
            problems.append('not in the man pages (resourcectl.1, resource-controld.8)')
        if kind == 'method' and name in READS:
            if name in table:
                problems.append(f'a read, but it has the polkit action {table[name]}')
        elif kind == 'method':
            macro = table.get(name)
            if macro is None:
                problems.append('no entry in the method -> action table of src/daemon/rc-authority.c '
                                '(or list it in READS here if it changes nothing)')
            elif macro not in macros:
                problems.append(f'{macro} is not defined in src/common/rc-names.h')
            elif f'<action id="{prefix}{macros[macro]}">' not in policy:
                problems.append(f'action {prefix}{macros[macro]} is not in the polkit policy')
        results.append((f'{kind} {name}', problems))
    for name in sorted(READS - {n for k, n in members if k == 'method'}):
        results.append((f'read {name}', ['listed as a read but not a method of the XML']))
    for name in sorted(set(table) - {n for k, n in members if k == 'method'}):
        results.append((f'action table entry {name}', ['not a method of the XML']))
    results += python_names(root, names, policy, ET.parse(xml_path).getroot().find('interface').get('name'))

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
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), '..'),
                  sys.argv[2] if len(sys.argv) > 2 else None))
