# SPDX-License-Identifier: LGPL-2.1-or-later
'''The mock systemd's (mock_systemd.py) names and units, and the kernel's half: a fake
cgroupfs tree under the "cgroup_root" parameter, written the way systemd writes the real
one (cpu.weight, cpu.max, memory.*, pids.max, cgroup.events, cgroup.freeze).'''

import os

import dbus

from rcnames import systemd_unit_path as unit_path

BUS_NAME = 'org.freedesktop.systemd1'
MAIN_OBJ = '/org/freedesktop/systemd1'
MAIN_IFACE = 'org.freedesktop.systemd1.Manager'
SYSTEM_BUS = False

UNIT_IFACE = 'org.freedesktop.systemd1.Unit'
SCOPE_IFACE = 'org.freedesktop.systemd1.Scope'
SERVICE_IFACE = 'org.freedesktop.systemd1.Service'
SLICE_IFACE = 'org.freedesktop.systemd1.Slice'
PROPS_IFACE = 'org.freedesktop.DBus.Properties'
CONTROL_IFACE = 'org.example.MockSystemd'

UINT64_MAX = 2 ** 64 - 1
# SetDelays() value that makes a call wait for ReleaseHung().
HANG = 2 ** 32 - 1
PAGE_SIZE = 4096
CPU_PERIOD_USEC = 100000

ERR_NO_SUCH_UNIT = 'org.freedesktop.systemd1.NoSuchUnit'
ERR_UNIT_INACTIVE = 'org.freedesktop.systemd1.UnitInactive'
ERR_INVALID_ARGS = 'org.freedesktop.DBus.Error.InvalidArgs'
ERR_NOT_SUPPORTED = 'org.freedesktop.DBus.Error.NotSupported'
ERR_READ_ONLY = 'org.freedesktop.DBus.Error.PropertyReadOnly'
ERR_MOCK = 'org.example.MockSystemd.Error'
ERR_UNIT_EXISTS = 'org.freedesktop.systemd1.UnitExists'

# Properties SetUnitProperties accepts: name -> (D-Bus type, cgroup file, controller).
SETTABLE = {
    'CPUWeight': ('t', 'cpu.weight', 'cpu'),
    'StartupCPUWeight': ('t', None, 'cpu'),
    'IOWeight': ('t', 'io.weight', 'io'),
    'StartupIOWeight': ('t', None, 'io'),
    'CPUQuotaPerSecUSec': ('t', 'cpu.max', 'cpu'),
    'CPUQuotaPeriodUSec': ('t', None, 'cpu'),
    'MemoryMin': ('t', 'memory.min', 'memory'),
    'MemoryLow': ('t', 'memory.low', 'memory'),
    'MemoryHigh': ('t', 'memory.high', 'memory'),
    'MemoryMax': ('t', 'memory.max', 'memory'),
    'MemorySwapMax': ('t', 'memory.swap.max', 'memory'),
    'TasksMax': ('t', 'pids.max', 'pids'),
    'CPUAccounting': ('b', None, None),
    'IOAccounting': ('b', None, None),
    'MemoryAccounting': ('b', None, None),
    'TasksAccounting': ('b', None, None),
    'ManagedOOMPreference': ('s', None, None),
    'ManagedOOMMemoryPressure': ('s', None, None),
    'ManagedOOMMemoryPressureLimit': ('u', None, None),
}


def slice_cgroup_path(slice_name):
    '''app-gnome.slice -> app.slice/app-gnome.slice, as systemd nests slices.'''
    if slice_name in ('', '-.slice'):
        return ''
    stem = slice_name[:-len('.slice')]
    parts = stem.split('-')
    return '/'.join('-'.join(parts[:i + 1]) + '.slice' for i in range(len(parts)))


def _dbus_error(name, message):
    return dbus.exceptions.DBusException(message, name=name)


class Unit:  # pylint: disable=too-many-instance-attributes,too-few-public-methods
    '''What the mock knows about one unit besides its D-Bus properties.'''

    def __init__(self, name):
        self.name = name
        self.names = [name]
        self.path = unit_path(name)
        self.cgroup = ''
        self.cgroup_dir = ''
        self.pids = []
        self.process = None   # what a transient service's ExecStart started
        self.delegate = False
        self.controllers = []
        self.obj = None

    @property
    def type_iface(self):
        if self.name.endswith('.service'):
            return SERVICE_IFACE
        if self.name.endswith('.slice'):
            return SLICE_IFACE
        return SCOPE_IFACE


#
# The kernel's half: a fake cgroupfs
#

def _write(path, text):
    with open(path, 'w', encoding='ascii') as f:
        f.write(text)


def _read(path):
    with open(path, encoding='ascii') as f:
        return f.read()


def _make_root(mock):
    root = mock.cgroup_root
    os.makedirs(root, exist_ok=True)
    if mock.cgroup_layout == 'hybrid':
        # A v1/hybrid host: controller hierarchies plus a controller-less v2 tree.
        for sub in ('unified', 'cpu,cpuacct', 'memory', 'pids', 'freezer'):
            os.makedirs(os.path.join(root, sub), exist_ok=True)
        _write(os.path.join(root, 'unified', 'cgroup.controllers'), '\n')
        return
    _write(os.path.join(root, 'cgroup.controllers'), 'cpuset cpu io memory hugetlb pids rdma misc\n')
    _write(os.path.join(root, 'cgroup.subtree_control'), 'cpuset cpu io memory pids\n')
    for d in ('user.slice', f'user.slice/user-{mock.uid}.slice'):
        _make_group_dir(os.path.join(root, d), ['cpu', 'io', 'memory', 'pids'])
    # Debian 12's stock user@.service delegates cpu, memory and pids; a unit
    # added with io in its controllers stands for a host that delegates io too.
    _make_group_dir(os.path.join(root, mock.manager_cgroup.lstrip('/')), ['cpu', 'memory', 'pids'])


def _make_group_dir(path, controllers):
    os.makedirs(path, exist_ok=True)
    files = {
        'cgroup.controllers': ' '.join(controllers) + '\n',
        'cgroup.subtree_control': ' '.join(controllers) + '\n',
        'cgroup.procs': '',
        'cgroup.type': 'domain\n',
        'cgroup.events': 'populated 1\nfrozen 0\n',
        'cgroup.freeze': '0\n',
    }
    for name, text in files.items():
        if not os.path.exists(os.path.join(path, name)):
            _write(os.path.join(path, name), text)


def _make_unit_dir(mock, unit, memory_current):
    if mock.cgroup_layout == 'hybrid':
        unified = os.path.join(mock.cgroup_root, 'unified', unit.cgroup.lstrip('/'))
        os.makedirs(unified, exist_ok=True)
        _write(os.path.join(unified, 'cgroup.procs'), ''.join(f'{p}\n' for p in unit.pids))
        _write(os.path.join(unified, 'cgroup.events'), 'populated 1\n')
        memory = os.path.join(mock.cgroup_root, 'memory', unit.cgroup.lstrip('/'))
        os.makedirs(memory, exist_ok=True)
        _write(os.path.join(memory, 'memory.limit_in_bytes'), '9223372036854771712\n')
        _write(os.path.join(memory, 'memory.usage_in_bytes'), f'{memory_current}\n')
        unit.cgroup_dir = unified
        return

    if 'io' in unit.controllers:
        _write(os.path.join(mock.cgroup_root, mock.manager_cgroup.lstrip('/'), 'cgroup.controllers'),
               'cpu io memory pids\n')
    parent = os.path.dirname(unit.cgroup)
    if parent.startswith(mock.manager_cgroup):
        # the slices between the user manager and the unit
        rel = parent[len(mock.manager_cgroup):].strip('/')
        d = os.path.join(mock.cgroup_root, mock.manager_cgroup.lstrip('/'))
        for part in rel.split('/') if rel else []:
            d = os.path.join(d, part)
            _make_group_dir(d, ['cpu', 'io', 'memory', 'pids'])
    path = os.path.join(mock.cgroup_root, unit.cgroup.lstrip('/'))
    os.makedirs(path, exist_ok=True)
    files = {
        'cgroup.controllers': ' '.join(unit.controllers) + '\n',
        'cgroup.subtree_control': '',
        'cgroup.type': 'domain\n',
        'cgroup.procs': ''.join(f'{p}\n' for p in unit.pids),
        'cgroup.events': 'populated 1\nfrozen 0\n',
        'cgroup.freeze': '0\n',
        'cpu.weight': '100\n',
        'cpu.weight.nice': '0\n',
        'cpu.max': f'max {CPU_PERIOD_USEC}\n',
        'cpu.stat': ('usage_usec 1234567\nuser_usec 1000000\nsystem_usec 234567\n'
                     'nr_periods 0\nnr_throttled 0\nthrottled_usec 0\n'),
        'memory.current': f'{memory_current}\n',
        'memory.min': '0\n',
        'memory.low': '0\n',
        'memory.high': 'max\n',
        'memory.max': 'max\n',
        'memory.swap.max': 'max\n',
        'pids.current': f'{max(len(unit.pids), 1)}\n',
        'pids.max': f'{mock.default_tasks_max}\n',
    }
    if 'io' in unit.controllers:
        files['io.weight'] = 'default 100\n'
        files['io.max'] = ''
    files.update({str(k): str(v) for k, v in unit.extra_files.items()})
    for name, text in files.items():
        _write(os.path.join(path, name), text)
    unit.cgroup_dir = path


def _kernel_memory_value(value):
    # the kernel keeps memory limits in whole pages
    if value == UINT64_MAX:
        return 'max'
    return str(value // PAGE_SIZE * PAGE_SIZE)


def _apply_to_cgroup(mock, unit, prop, value):
    '''Write what systemd writes for one property into the fake cgroupfs.'''
    typ, filename, controller = SETTABLE[prop]
    if filename is None or mock.cgroup_layout == 'hybrid' or not unit.cgroup_dir:
        return
    # systemd keeps the property but cannot apply it without the controller
    if controller not in unit.controllers:
        return
    path = os.path.join(unit.cgroup_dir, filename)
    if prop in ('CPUWeight', 'IOWeight'):
        weight = 100 if value == UINT64_MAX else value
        text = f'default {weight}' if prop == 'IOWeight' else str(weight)
    elif prop == 'CPUQuotaPerSecUSec':
        if value == UINT64_MAX:
            text = f'max {CPU_PERIOD_USEC}'
        else:
            quota = max(value * CPU_PERIOD_USEC // 1000000, 1000)
            text = f'{quota} {CPU_PERIOD_USEC}'
    elif prop == 'TasksMax':
        text = 'max' if value == UINT64_MAX else str(value)
    else:
        text = _kernel_memory_value(value)
    assert typ == 't'
    _write(path, text + '\n')


def _set_events_frozen(unit, frozen):
    if not unit.cgroup_dir:
        return
    path = os.path.join(unit.cgroup_dir, 'cgroup.events')
    lines = [ln for ln in _read(path).splitlines() if ln and not ln.startswith('frozen ')]
    lines.append(f'frozen {1 if frozen else 0}')
    _write(os.path.join(unit.cgroup_dir, 'cgroup.freeze'), f'{1 if frozen else 0}\n')
    _write(path, '\n'.join(lines) + '\n')
