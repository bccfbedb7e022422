# SPDX-License-Identifier: LGPL-2.1-or-later
'''The names of resource-controld's public D-Bus API, once for every Python test and
benchmark (the C code has them in src/common/rc-names.h, src/common/rc-api-keys.h and src/common/rc-error.c;
test 'api-coverage' checks that the two agree).'''

import os

RC_NAME = 'org.example.ResourceControl'
RC_PATH = '/org/example/ResourceControl'
RC_IFACE = 'org.example.ResourceControl'
RC_ERROR = RC_NAME + '.Error.'
ACTION_PREFIX = RC_NAME + '.'

SYSTEMD_NAME = 'org.freedesktop.systemd1'
SYSTEMD_PATH = '/org/freedesktop/systemd1'
POLKIT_NAME = 'org.freedesktop.PolicyKit1'

# the named errors, after RC_ERROR
ERRORS = ('InvalidArgument', 'Protected', 'NoSuchApp', 'NotAuthorized', 'NotSupported', 'WouldKill',
          'Failed')
# the polkit actions, after ACTION_PREFIX; thaw is the one allowed to everyone
ACTIONS = ('set-weight', 'set-memory-limit', 'set-limits', 'reset-limits', 'freeze', 'manage-rules',
           'set-foreground', 'launch', 'adopt', 'set-slice-limits', 'pause', 'reset-energy', 'thaw')
# Launch's and Adopt's options, with their D-Bus types
LAUNCH_OPTIONS = {
    'Kind': 's', 'Launcher': 's', 'Slice': 's', 'Environment': 'as', 'WorkingDirectory': 's',
    'Limits': 'a{sv}',
}
ADOPT_OPTIONS = {'AppId': 's', 'Launcher': 's'}

# the limits: record keys, SetLimits keys and rule keys, with their D-Bus types
LIMIT_KEYS = {
    'CPUWeight': 't', 'IOWeight': 't', 'CPUQuota': 'u', 'MemoryLow': 't', 'MemoryHigh': 't',
    'MemoryMax': 't', 'TasksMax': 't', 'MemoryMin': 't', 'MemorySwapMax': 't',
}
# the usage, in records only
USAGE_KEYS = {'MemoryCurrent': 't', 'CPUUsageNSec': 't', 'TasksCurrent': 't',
              'CPUThrottledUSec': 't'}
# what the limits do, in app and slice records after the usage; each one only where the kernel
# has its file (memory.events; PSI's cpu.pressure, memory.pressure, io.pressure)
REPORT_KEYS = {'MemoryEvents': 'a{st}', 'CPUPressure': 'd', 'MemoryPressure': 'd', 'IOPressure': 'd'}
# the energy ledger's, in app records only while it has a source (W, J)
ENERGY_KEYS = {'Power': 'd', 'Energy': 'd'}
# an app record (ListApps, GetApp, AppAdded), in the order the daemon gives them
APP_KEYS = {
    'Unit': 's', 'AppId': 's', 'Launcher': 's', 'Name': 's', 'Icon': 's',
    'DesktopFile': 's', 'Slice': 's', 'ActiveState': 's', 'FreezerState': 's', 'Audio': 'b',
    'Pids': 'au',
    **LIMIT_KEYS,
    **USAGE_KEYS,
}
# SetLimits, Launch and rules only (systemd-oomd's; the kernel's files do not show them)
OOM_KEYS = {
    'ManagedOOMPreference': 's', 'ManagedOOMMemoryPressure': 's', 'ManagedOOMMemoryPressureLimit': 'u',
}
# SetLimits only: MemoryMax and MemoryHigh as SetMemoryLimit sets them
SET_LIMITS_ONLY_KEYS = {'MemoryLimit': 't'}
# rules take the limits and this
RULE_ONLY_KEYS = {'FreezeWhenInactiveSec': 'u'}

# a limit or usage value of G_MAXUINT64: no limit, or not available on this host
UINT64_MAX = 2 ** 64 - 1


def systemd_unit_path(name):
    '''The object path of a systemd unit: SYSTEMD_PATH/unit/ and the name as systemd's
    bus_label_escape() makes it a path label.'''
    out = []
    for i, ch in enumerate(name):
        if ch.isascii() and (ch.isalpha() or (ch.isdigit() and i > 0)):
            out.append(ch)
        else:
            out.extend('_%02x' % b for b in ch.encode('utf-8'))
    return SYSTEMD_PATH + '/unit/' + (''.join(out) or '_')


SERVICE_IN = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                          'data', 'systemd', 'resource-control.service.in')


def service_env():
    '''The variables the installed service sets for the daemon (its Environment= lines): a
    daemon a test or the benchmark starts itself runs as a D-Bus activated one does.'''
    env = {}
    with open(SERVICE_IN, encoding='utf-8') as f:
        for line in f:
            if line.startswith('Environment='):
                for pair in line.split('=', 1)[1].split():
                    key, _, value = pair.partition('=')
                    env[key] = value
    return env
