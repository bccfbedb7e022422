# SPDX-License-Identifier: LGPL-2.1-or-later
'''A systemd user manager for the host integration tests (python-dbusmock template).

dbusmock's bundled systemd template knows neither scopes, cgroup properties,
the freezer nor unit signals, so this one plays the parts of resource-controld's
world that a CI host lacks:

* org.freedesktop.systemd1.Manager at /org/freedesktop/systemd1 on the session bus,
  with unit objects at /org/freedesktop/systemd1/unit/<escaped name> carrying the
  org.freedesktop.systemd1.Unit and .Scope/.Service interfaces;
* the kernel: a fake cgroupfs tree under the "cgroup_root" parameter, written the way
  systemd writes the real one (cpu.weight, cpu.max, memory.*, pids.max, cgroup.events);
* test controls on org.example.MockSystemd at the same path: add and stop apps, fault
  injection (SetFail, SetFailFor), delays and hangs (SetDelays, ReleaseHung) and
  kernel-side state (SetMemoryCurrent, SetFreezerState).

Every method call is in dbusmock's call log (GetMethodCalls on org.freedesktop.DBus.Mock).

Parameters (JSON via dbusmock -p): cgroup_root (required), default_tasks_max (4915),
cgroup_layout ("unified", or "hybrid" for a cgroup v1/hybrid host).
'''

import contextlib
import fnmatch
import os
import shutil
import signal
import subprocess
import sys

import dbus
from gi.repository import GLib

from dbusmock import mockobject

# dbusmock loads a template from its path: rcnames.py beside it is not importable by itself
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rcnames import systemd_unit_path as unit_path  # noqa: E402 pylint: disable=wrong-import-position

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


def load(mock, parameters):
    mock.cgroup_root = parameters['cgroup_root']
    mock.cgroup_layout = parameters.get('cgroup_layout', 'unified')
    # where systemd keeps transient unit files: <runtime_dir>/systemd/transient
    mock.runtime_dir = parameters.get('runtime_dir', '')
    mock.default_tasks_max = int(parameters.get('default_tasks_max', 4915))
    mock.uid = os.getuid()
    mock.manager_cgroup = f'/user.slice/user-{mock.uid}.slice/user@{mock.uid}.service'
    mock.units = {}          # every name and alias -> Unit
    mock.subscribers = set()
    mock.failures = []       # [method, unit or '', error name, message, remaining (0 = forever)]
    mock.delays = {}         # method -> list of delays in ms, one used per call
    mock.hung = []           # (method, run) waiting for ReleaseHung
    mock.auto_start = []     # (method, auto-start flag of the call)
    mock.job_result = 'done'  # how start jobs of transient units end (SetJobResult)
    mock.unit_job_results = {}  # glob pattern -> job result (SetUnitJobResult)
    mock.next_job = 1

    mock.AddProperties(MAIN_IFACE, {
        'Version': dbus.String('252.mock'),
        'Features': dbus.String('+PAM +SELINUX'),
        'DefaultTasksMax': dbus.UInt64(mock.default_tasks_max),
        'ControlGroup': dbus.String(mock.manager_cgroup),
        'SystemState': dbus.String('running'),
    })
    _make_root(mock)
    # the user manager's slices: units with cgroups of their own, never apps
    for name in ('session.slice', 'app.slice', 'background.slice'):
        _add_unit(mock, name, {'control_group': f'{mock.manager_cgroup}/{name}', 'announce': False,
                               'memory_current': 200 * 1024 * 1024})


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


#
# helpers for the manager's half
#

def _note_auto_start(mock, method, msg):
    # the daemon must not start systemd by calling it (NO_AUTO_START)
    if msg is not None:
        mock.auto_start.append((method, bool(msg.get_auto_start())))


def _emit_allowed(mock):
    # systemd sends unit signals only while someone is subscribed
    return bool(mock.subscribers)


def _lookup(mock, name):
    unit = mock.units.get(str(name))
    if unit is None:
        raise _dbus_error(ERR_NO_SUCH_UNIT, f'Unit {name} not loaded.')
    return unit


def _unit_props(unit):
    return unit.obj.props[UNIT_IFACE]


def _set_unit_state(mock, unit, changes):
    '''Change Unit properties and send PropertiesChanged like systemd does.'''
    props = _unit_props(unit)
    changed = {}
    for key, value in changes.items():
        props[key] = dbus.String(value)
        changed[key] = dbus.String(value, variant_level=1)
    if _emit_allowed(mock):
        unit.obj.EmitSignal(PROPS_IFACE, 'PropertiesChanged', 'sa{sv}as',
                            [UNIT_IFACE, dbus.Dictionary(changed, signature='sv'),
                             dbus.Array([], signature='s')])


def _check_failure(mock, method, unit_name=''):
    for entry in mock.failures:
        f_method, f_unit, err_name, message, remaining = entry
        if f_method != method or (f_unit and f_unit != unit_name):
            continue
        if remaining > 0:
            entry[4] = remaining - 1
            if entry[4] == 0:
                mock.failures.remove(entry)
        raise _dbus_error(err_name, message)


def _next_delay(mock, method):
    queue = mock.delays.get(method)
    if not queue:
        return 0
    return queue.pop(0)


def _dispatch(mock, method, unit_name, action, ok_cb, err_cb):
    '''Reply now, later (SetDelays) or when released (ReleaseHung).

    The action runs when the reply is sent, so a delayed call takes effect late,
    as a slow systemd would.
    '''
    try:
        _check_failure(mock, method, unit_name)
    except dbus.exceptions.DBusException as e:
        err_cb(e)
        return

    def run():
        try:
            result = action()
        except dbus.exceptions.DBusException as e:
            err_cb(e)
            return False
        if result is None:
            ok_cb()
        else:
            ok_cb(result)
        return False

    delay = _next_delay(mock, method)
    if delay == HANG:
        mock.hung.append((method, run))
    elif delay > 0:
        GLib.timeout_add(delay, run)
    else:
        run()


def _reply_unit_path(mock, method, name, ok_cb, err_cb, msg):
    '''GetUnit and LoadUnit: the object path of a unit the mock has.'''
    _note_auto_start(mock, method, msg)
    _dispatch(mock, method, str(name),
              lambda: dbus.ObjectPath(_lookup(mock, name).path), ok_cb, err_cb)


def _list_entry(unit):
    props = _unit_props(unit)
    return (dbus.String(unit.name), props['Description'], props['LoadState'],
            props['ActiveState'], props['SubState'], dbus.String(''),
            dbus.ObjectPath(unit.path), dbus.UInt32(0), dbus.String(''),
            dbus.ObjectPath('/'))


def _primary_units(mock):
    seen = []
    for unit in mock.units.values():
        if unit not in seen:
            seen.append(unit)
    return seen


#
# org.freedesktop.systemd1.Manager
#

@dbus.service.method(MAIN_IFACE, in_signature='', out_signature='', sender_keyword='sender',
                     message_keyword='msg')
def Subscribe(self, sender=None, msg=None):
    _note_auto_start(self, 'Subscribe', msg)
    self.subscribers.add(sender)


# The manager's environment, as systemd 252 keeps it: changed by SetEnvironment and
# UnsetEnvironment with no PropertiesChanged. The property exists once something set it.
def _set_environment(self, environment):
    self.props[MAIN_IFACE]['Environment'] = dbus.Array(
        [f'{k}={v}' for k, v in sorted(environment.items())], signature='s')


def _environment(self):
    return dict(a.split('=', 1) for a in self.props[MAIN_IFACE].get('Environment', []))


@dbus.service.method(MAIN_IFACE, in_signature='as', out_signature='')
def SetEnvironment(self, assignments):
    environment = _environment(self)
    environment.update(a.split('=', 1) for a in assignments)
    _set_environment(self, environment)


@dbus.service.method(MAIN_IFACE, in_signature='as', out_signature='')
def UnsetEnvironment(self, names):
    environment = _environment(self)
    for name in names:
        environment.pop(name, None)
    _set_environment(self, environment)


@dbus.service.method(MAIN_IFACE, in_signature='', out_signature='', sender_keyword='sender',
                     message_keyword='msg')
def Unsubscribe(self, sender=None, msg=None):
    _note_auto_start(self, 'Unsubscribe', msg)
    if sender not in self.subscribers:
        raise _dbus_error('org.freedesktop.systemd1.NotSubscribed', 'Client is not subscribed.')
    self.subscribers.discard(sender)


@dbus.service.method(MAIN_IFACE, in_signature='', out_signature='a(ssssssouso)',
                     async_callbacks=('ok_cb', 'err_cb'), message_keyword='msg')
def ListUnits(self, ok_cb, err_cb, msg=None):
    _note_auto_start(self, 'ListUnits', msg)
    _dispatch(self, 'ListUnits', '',
              lambda: dbus.Array([_list_entry(u) for u in _primary_units(self)],
                                 signature='(ssssssouso)'),
              ok_cb, err_cb)


@dbus.service.method(MAIN_IFACE, in_signature='asas', out_signature='a(ssssssouso)',
                     async_callbacks=('ok_cb', 'err_cb'), message_keyword='msg')
def ListUnitsByPatterns(self, states, patterns, ok_cb, err_cb, msg=None):
    _note_auto_start(self, 'ListUnitsByPatterns', msg)

    def action():
        out = []
        for unit in _primary_units(self):
            props = _unit_props(unit)
            if states and not {str(props['ActiveState']), str(props['SubState']),
                               str(props['LoadState'])} & {str(s) for s in states}:
                continue
            # systemd matches the unit's id only, with FNM_NOESCAPE
            if patterns and not any(fnmatch.fnmatchcase(unit.name, str(p)) for p in patterns):
                continue
            out.append(_list_entry(unit))
        return dbus.Array(out, signature='(ssssssouso)')
    _dispatch(self, 'ListUnitsByPatterns', '', action, ok_cb, err_cb)


@dbus.service.method(MAIN_IFACE, in_signature='s', out_signature='o',
                     async_callbacks=('ok_cb', 'err_cb'), message_keyword='msg')
def GetUnit(self, name, ok_cb, err_cb, msg=None):
    _reply_unit_path(self, 'GetUnit', name, ok_cb, err_cb, msg)


@dbus.service.method(MAIN_IFACE, in_signature='s', out_signature='o',
                     async_callbacks=('ok_cb', 'err_cb'), message_keyword='msg')
def LoadUnit(self, name, ok_cb, err_cb, msg=None):
    _reply_unit_path(self, 'LoadUnit', name, ok_cb, err_cb, msg)


@dbus.service.method(MAIN_IFACE, in_signature='s', out_signature='o',
                     async_callbacks=('ok_cb', 'err_cb'), message_keyword='msg')
def GetUnitByControlGroup(self, cgroup, ok_cb, err_cb, msg=None):
    _note_auto_start(self, 'GetUnitByControlGroup', msg)

    def action():
        for unit in _primary_units(self):
            if unit.cgroup == str(cgroup):
                return dbus.ObjectPath(unit.path)
        raise _dbus_error(ERR_NO_SUCH_UNIT, f'Control group \'{cgroup}\' is not valid or not '
                          'managed by this instance')
    _dispatch(self, 'GetUnitByControlGroup', '', action, ok_cb, err_cb)


@dbus.service.method(MAIN_IFACE, in_signature='sba(sv)', out_signature='',
                     async_callbacks=('ok_cb', 'err_cb'), message_keyword='msg')
def SetUnitProperties(self, name, runtime, properties, ok_cb, err_cb, msg=None):
    _note_auto_start(self, 'SetUnitProperties', msg)
    unit_name = str(name)

    def action():
        unit = _lookup(self, unit_name)
        # validate everything first: systemd applies all or nothing
        for key, value in properties:
            key = str(key)
            if key not in SETTABLE:
                raise _dbus_error(ERR_READ_ONLY, f'Cannot set property {key}, or unknown property.')
            typ = SETTABLE[key][0]
            if typ == 't' and not isinstance(value, dbus.UInt64):
                raise _dbus_error(ERR_INVALID_ARGS, f'Invalid type for property {key}: expected t')
            if typ == 'u' and not isinstance(value, dbus.UInt32):
                raise _dbus_error(ERR_INVALID_ARGS, f'Invalid type for property {key}: expected u')
            if typ == 's' and not isinstance(value, dbus.String):
                raise _dbus_error(ERR_INVALID_ARGS, f'Invalid type for property {key}: expected s')
            if typ == 'b' and not isinstance(value, dbus.Boolean):
                raise _dbus_error(ERR_INVALID_ARGS, f'Invalid type for property {key}: expected b')
            if key.endswith('Weight') and value != UINT64_MAX and not 1 <= value <= 10000:
                raise _dbus_error(ERR_INVALID_ARGS, f'Value specified in {key} is out of range')
            if key == 'CPUQuotaPerSecUSec' and value == 0:
                raise _dbus_error(ERR_INVALID_ARGS, 'CPUQuotaPerSecUSec= value out of range')
            if key == 'TasksMax' and value == 0:
                raise _dbus_error(ERR_INVALID_ARGS, 'TasksMax= value out of range')
        type_props = unit.obj.props[unit.type_iface]
        for key, value in properties:
            key = str(key)
            typ = SETTABLE[key][0]
            if typ == 't':
                type_props[key] = dbus.UInt64(value)
                _apply_to_cgroup(self, unit, key, int(value))
            elif typ == 'b':
                type_props[key] = dbus.Boolean(value)
            elif typ == 'u':
                type_props[key] = dbus.UInt32(value)
            else:
                type_props[key] = dbus.String(value)
            _write_drop_in(self, unit, key, value)
        return None

    _dispatch(self, 'SetUnitProperties', unit_name, action, ok_cb, err_cb)


def _write_drop_in(mock, unit, key, value):
    '''systemd records a property change as a drop-in: a transient unit's in its
    transient folder, another's in user.control (runtime; the mock has no home).'''
    if not mock.runtime_dir:
        return
    transient = bool(unit.obj.props[UNIT_IFACE]['Transient'])
    folder = os.path.join(mock.runtime_dir, 'systemd', 'transient' if transient else 'user.control',
                          unit.name + '.d')
    os.makedirs(folder, exist_ok=True)
    section = unit.type_iface.rsplit('.', 1)[1]
    _write(os.path.join(folder, f'50-{key}.conf'), f'[{section}]\n{key}={value}\n')


def _freezer_action(mock, unit_name, freeze):
    def action():
        unit = _lookup(mock, unit_name)
        props = _unit_props(unit)
        if mock.cgroup_layout == 'hybrid':
            raise _dbus_error(ERR_NOT_SUPPORTED, f'Unit \'{unit.name}\' does not support freezing.')
        if str(props['ActiveState']) not in ('active', 'reloading'):
            raise _dbus_error(ERR_UNIT_INACTIVE, f'Unit {unit.name} is not active.')
        target = 'frozen' if freeze else 'running'
        if str(props['FreezerState']) == target:
            return None
        _set_unit_state(mock, unit, {'FreezerState': 'freezing' if freeze else 'thawing'})
        _set_events_frozen(unit, freeze)
        # the state change is sent before the method reply, as systemd does
        _set_unit_state(mock, unit, {'FreezerState': target})
        return None
    return action


@dbus.service.method(MAIN_IFACE, in_signature='s', out_signature='',
                     async_callbacks=('ok_cb', 'err_cb'), message_keyword='msg')
def FreezeUnit(self, name, ok_cb, err_cb, msg=None):
    _note_auto_start(self, 'FreezeUnit', msg)
    _dispatch(self, 'FreezeUnit', str(name), _freezer_action(self, str(name), True), ok_cb, err_cb)


@dbus.service.method(MAIN_IFACE, in_signature='s', out_signature='',
                     async_callbacks=('ok_cb', 'err_cb'), message_keyword='msg')
def ThawUnit(self, name, ok_cb, err_cb, msg=None):
    _note_auto_start(self, 'ThawUnit', msg)
    _dispatch(self, 'ThawUnit', str(name), _freezer_action(self, str(name), False), ok_cb, err_cb)


# Properties of transient units, besides the SETTABLE ones: name -> D-Bus type.
TRANSIENT = {
    'Description': 's', 'SourcePath': 's', 'CollectMode': 's', 'Slice': 's', 'Type': 's',
    'ExitType': 's', 'ExecStart': 'a(sasb)', 'ExecStartEx': 'a(sasas)', 'Environment': 'as',
    'WorkingDirectory': 's', 'PIDs': 'au', 'Delegate': 'b', 'RuntimeMaxUSec': 't',
    'StandardInputFileDescriptor': 'h', 'StandardOutputFileDescriptor': 'h', 'StandardError': 's',
}
SERVICE_ONLY = ('ExecStart', 'ExecStartEx', 'Type', 'ExitType', 'Environment', 'WorkingDirectory',
                'RuntimeMaxUSec', 'StandardInputFileDescriptor', 'StandardOutputFileDescriptor',
                'StandardError')
EXEC_FLAGS = ('ignore-failure', 'privileged', 'no-setuid', 'ambient', 'no-env-expand')


def _check_transient(name, props):
    kind = 'service' if name.endswith('.service') else 'scope'
    for key, value in props.items():
        if key not in TRANSIENT and key not in SETTABLE:
            raise _dbus_error(ERR_READ_ONLY, f'Cannot set property {key}, or unknown property.')
        if kind == 'scope' and key in SERVICE_ONLY:
            raise _dbus_error(ERR_READ_ONLY, f'Cannot set property {key}, or unknown property.')
        if kind == 'service' and key in ('PIDs', 'Delegate'):
            raise _dbus_error(ERR_READ_ONLY, 'Cannot set property PIDs, or unknown property.')
        if SETTABLE.get(key, ('',))[0] == 't' and not isinstance(value, dbus.UInt64):
            raise _dbus_error(ERR_INVALID_ARGS, f'Invalid type for property {key}: expected t')
    if kind == 'service' and 'ExecStart' not in props and 'ExecStartEx' not in props:
        raise _dbus_error(ERR_INVALID_ARGS, f'Service {name} has no ExecStart=.')
    for _, _, flags in props.get('ExecStartEx', []):
        for flag in flags:
            if str(flag) not in EXEC_FLAGS:
                raise _dbus_error(ERR_INVALID_ARGS, f'Invalid flag {flag}.')
    if kind == 'scope' and not props.get('PIDs'):
        raise _dbus_error(ERR_INVALID_ARGS, f'Scope {name} has no PIDs. Refusing.')


def _take_fds(properties):
    '''The file descriptors among the properties, taken out; the call log (whose
    entry is this same list) keeps a placeholder: a taken UnixFd cannot be sent.'''
    fds = {}
    for i, (key, value) in enumerate(properties):
        if isinstance(value, dbus.types.UnixFd):
            fds[str(key)] = value.take()
            properties[i] = dbus.Struct((key, dbus.String('fd', variant_level=1)))
    return fds


def _spawn_exec_start(mock, props, fds):
    '''As systemd runs ExecStart (or ExecStartEx, whose flags change nothing here:
    systemd's own $VAR expansion is not imitated), with its standard input and output
    file descriptors.'''
    path, argv, _ = (props.get('ExecStartEx') or props['ExecStart'])[0]
    env = dict(os.environ)
    for entry in props.get('Environment', []):
        key, _, value = str(entry).partition('=')
        env[key] = value
    # what the process sees as cgroupfs, as the daemon does (the launch helper checks
    # there that its held process was moved into its scope)
    env['RC_CGROUP_ROOT'] = mock.cgroup_root
    # as systemd tells a service which run it is
    env['INVOCATION_ID'] = os.urandom(16).hex()
    stdin = fds.pop('StandardInputFileDescriptor', None)
    stdout = fds.pop('StandardOutputFileDescriptor', None)
    try:
        # pylint: disable=consider-using-with
        return subprocess.Popen([str(a) for a in argv], executable=str(path), env=env,
                                cwd=str(props.get('WorkingDirectory', '/')),
                                stdin=subprocess.DEVNULL if stdin is None else stdin,
                                stdout=stdout, start_new_session=True)
    finally:
        for fd in (stdin, stdout):
            if fd is not None:
                os.close(fd)


@dbus.service.method(MAIN_IFACE, in_signature='ssa(sv)a(sa(sv))', out_signature='o',
                     async_callbacks=('ok_cb', 'err_cb'), message_keyword='msg')
def StartTransientUnit(self, name, mode, properties, aux, ok_cb, err_cb, msg=None):
    '''The unit is made with its properties (limits reach the fake cgroup at once),
    a service's ExecStart is run, then JobRemoved(job_result) follows the reply.'''
    _note_auto_start(self, 'StartTransientUnit', msg)
    unit_name = str(name)

    fds = _take_fds(properties)

    def action():
        if unit_name in self.units:
            raise _dbus_error(ERR_UNIT_EXISTS,
                              f'Unit {unit_name} was already loaded or has a fragment file.')
        props = {str(k): v for k, v in properties}
        _check_transient(unit_name, props)
        job = dbus.ObjectPath(f'{MAIN_OBJ}/job/{self.next_job}')
        job_id = self.next_job
        self.next_job += 1
        result = self.job_result
        process = None
        pids = [int(p) for p in props.get('PIDs', [])]
        result = next((r for pattern, r in self.unit_job_results.items()
                       if fnmatch.fnmatch(unit_name, pattern)), result)
        if result in ('done', 'never') and ('ExecStart' in props or 'ExecStartEx' in props):
            process = _spawn_exec_start(self, props, fds)
            pids = [process.pid]
        if result in ('done', 'never'):
            unit = _add_unit(self, unit_name, {
                'slice': props.get('Slice', 'app.slice'),
                'source_path': props.get('SourcePath', ''),
                'description': props.get('Description', unit_name), 'pids': pids,
                'transient': True, 'settings': props})
            unit.process = process
            unit.delegate = bool(props.get('Delegate', False))

        def job_removed():
            self.EmitSignal(MAIN_IFACE, 'JobRemoved', 'uoss',
                            [dbus.UInt32(job_id), job, unit_name, result])
            return False
        if result != 'never':     # a job systemd never ends: no JobRemoved
            GLib.idle_add(job_removed)
        return job

    def action_closing_fds():
        try:
            return action()
        finally:
            for fd in fds.values():
                os.close(fd)
            fds.clear()

    _dispatch(self, 'StartTransientUnit', unit_name, action_closing_fds, ok_cb, err_cb)


@dbus.service.method(MAIN_IFACE, in_signature='ssau', out_signature='',
                     async_callbacks=('ok_cb', 'err_cb'), message_keyword='msg')
def AttachProcessesToUnit(self, name, subcgroup, pids, ok_cb, err_cb, msg=None):
    _note_auto_start(self, 'AttachProcessesToUnit', msg)

    def action():
        unit = _lookup(self, name)
        if not unit.delegate:
            raise _dbus_error(ERR_INVALID_ARGS, 'Process migration not available on non-delegated units.')
        unit.pids += [int(p) for p in pids]
        if unit.cgroup_dir:
            _write(os.path.join(unit.cgroup_dir, 'cgroup.procs'),
                   ''.join(f'{p}\n' for p in unit.pids))
        return None
    _dispatch(self, 'AttachProcessesToUnit', str(name), action, ok_cb, err_cb)


@dbus.service.method(CONTROL_IFACE, in_signature='s', out_signature='')
def SetJobResult(self, result):
    '''How later start jobs end: "done", or e.g. "failed" (no unit is made).'''
    self.job_result = str(result)


@dbus.service.method(CONTROL_IFACE, in_signature='ss', out_signature='')
def SetUnitJobResult(self, pattern, result):
    '''How later start jobs of units matching the glob pattern end (over SetJobResult).'''
    self.unit_job_results[str(pattern)] = str(result)


#
# org.example.MockSystemd: the tests' controls
#

def _add_unit(mock, name, options):
    name = str(name)
    if name in mock.units:
        raise _dbus_error(ERR_MOCK, f'unit {name} exists already')
    unit = Unit(name)
    slice_name = str(options.get('slice', 'app.slice'))
    aliases = [str(a) for a in options.get('aliases', [])]
    unit.names = [name] + aliases
    unit.pids = [int(p) for p in options.get('pids', [])]
    unit.controllers = str(options.get('controllers', 'cpu memory pids')).split()
    # files a host's kernel may or may not have: memory.events, *.pressure
    unit.extra_files = dict(options.get('files', {}))
    slice_path = slice_cgroup_path(slice_name)
    unit.cgroup = f'{mock.manager_cgroup}/{slice_path}/{name}' if slice_path else \
        f'{mock.manager_cgroup}/{name}'
    # a real cgroup of the test's own processes (see the harness's delegated cgroup)
    unit.cgroup = str(options.get('control_group', unit.cgroup))
    memory_current = int(options.get('memory_current', 50 * 1024 * 1024))
    active_state = str(options.get('active_state', 'active'))
    sub_state = str(options.get('sub_state', 'running' if active_state == 'active' else 'dead'))
    announce = bool(options.get('announce', True))
    can_freeze = mock.cgroup_layout != 'hybrid'
    # scopes always are; services only when started with StartTransientUnit
    transient = bool(options.get('transient', name.endswith('.scope')))

    unit_props = {
        'Id': dbus.String(name),
        'Names': dbus.Array(unit.names, signature='s'),
        'Description': dbus.String(str(options.get('description', name))),
        'LoadState': dbus.String('loaded'),
        # a new unit starts inactive; AddApp activates it after UnitNew
        'ActiveState': dbus.String('inactive' if announce else active_state),
        'SubState': dbus.String('dead' if announce else sub_state),
        'FreezerState': dbus.String('running'),
        'CanFreeze': dbus.Boolean(can_freeze),
        'SourcePath': dbus.String(str(options.get('source_path', ''))),
        'FragmentPath': dbus.String(''),
        'Following': dbus.String(''),
        'Transient': dbus.Boolean(transient),
    }
    type_props = {
        'Slice': dbus.String(slice_name),
        'ControlGroup': dbus.String(unit.cgroup),
        'CPUWeight': dbus.UInt64(UINT64_MAX),
        'StartupCPUWeight': dbus.UInt64(UINT64_MAX),
        'IOWeight': dbus.UInt64(UINT64_MAX),
        'StartupIOWeight': dbus.UInt64(UINT64_MAX),
        'CPUQuotaPerSecUSec': dbus.UInt64(UINT64_MAX),
        'CPUQuotaPeriodUSec': dbus.UInt64(UINT64_MAX),
        'MemoryMin': dbus.UInt64(0),
        'MemoryLow': dbus.UInt64(0),
        'MemoryHigh': dbus.UInt64(UINT64_MAX),
        'MemoryMax': dbus.UInt64(UINT64_MAX),
        'MemorySwapMax': dbus.UInt64(UINT64_MAX),
        'TasksMax': dbus.UInt64(mock.default_tasks_max),
        # systemd computes these live; the mock's are deliberately stale, so a
        # daemon that reads them instead of the cgroup files is caught
        'MemoryCurrent': dbus.UInt64(UINT64_MAX),
        'CPUUsageNSec': dbus.UInt64(UINT64_MAX),
        'TasksCurrent': dbus.UInt64(UINT64_MAX),
        'CPUAccounting': dbus.Boolean(True),
        'IOAccounting': dbus.Boolean(False),
        'MemoryAccounting': dbus.Boolean(True),
        'TasksAccounting': dbus.Boolean(True),
    }
    mock.AddObject(unit.path, UNIT_IFACE, unit_props, [])
    unit.obj = mockobject.objects[unit.path]
    unit.obj.props[unit.type_iface] = type_props
    if bool(options.get('make_cgroup', True)):
        _make_unit_dir(mock, unit, memory_current)
    # a transient unit's cgroup settings: in place before it starts, as systemd does
    for key, value in options.get('settings', {}).items():
        if SETTABLE.get(key, ('',))[0] == 't':
            type_props[key] = dbus.UInt64(value)
            _apply_to_cgroup(mock, unit, key, int(value))
    for n in unit.names:
        mock.units[n] = unit
    if transient:
        _write_transient_file(mock, unit, unit_props)

    if announce:
        if _emit_allowed(mock):
            mock.EmitSignal(MAIN_IFACE, 'UnitNew', 'so', [name, dbus.ObjectPath(unit.path)])
        _set_unit_state(mock, unit, {'ActiveState': active_state, 'SubState': sub_state})
    return unit


@dbus.service.method(CONTROL_IFACE, in_signature='sssasau', out_signature='o')
def AddApp(self, unit, slice_name, source_path, aliases, pids):
    '''Start a unit: UnitNew, then ActiveState active (PropertiesChanged).'''
    return dbus.ObjectPath(_add_unit(self, unit, {
        'slice': slice_name, 'source_path': source_path, 'aliases': aliases, 'pids': pids}).path)


@dbus.service.method(CONTROL_IFACE, in_signature='sa{sv}', out_signature='o')
def AddAppFull(self, unit, options):
    '''AddApp with options: slice s, source_path s, aliases as, pids au,
    controllers s ("cpu memory pids"), memory_current t, active_state s,
    sub_state s, description s, announce b (false: no signals, e.g. before the
    daemon starts), make_cgroup b, control_group s (instead of
    <manager>/<slice>/<unit>), files a{ss} (more files of its cgroup folder,
    by name: memory.events, cpu.pressure...).'''
    return dbus.ObjectPath(_add_unit(self, unit, options).path)


@dbus.service.method(CONTROL_IFACE, in_signature='s', out_signature='')
def StopApp(self, name):
    '''deactivating -> inactive (PropertiesChanged each), then UnitRemoved.'''
    _stop_unit(self, _lookup(self, name))


def _transient_file(mock, unit):
    return os.path.join(mock.runtime_dir, 'systemd', 'transient', unit.name) if mock.runtime_dir else ''


def _write_transient_file(mock, unit, unit_props):
    '''The file systemd keeps of a transient unit's settings while it is loaded.'''
    path = _transient_file(mock, unit)
    if not path:
        return
    os.makedirs(os.path.dirname(path), exist_ok=True)
    lines = ['# This is a transient unit file, created programmatically via the systemd API. '
             'Do not edit.', '[Unit]', f'Description={unit_props["Description"]}']
    if unit_props['SourcePath']:
        lines.append('SourcePath=' + str(unit_props['SourcePath']).replace('%', '%%'))
    _write(path, '\n'.join(lines) + '\n')


def _stop_unit(mock, unit):
    if unit.process is not None and unit.process.poll() is None:
        unit.process.send_signal(signal.SIGKILL)
        unit.process.wait()
    _set_unit_state(mock, unit, {'ActiveState': 'deactivating', 'SubState': 'stop-sigterm'})
    _set_unit_state(mock, unit, {'ActiveState': 'inactive', 'SubState': 'dead',
                                 'FreezerState': 'running'})
    if _emit_allowed(mock):
        mock.EmitSignal(MAIN_IFACE, 'UnitRemoved', 'so', [unit.name, dbus.ObjectPath(unit.path)])
    for n in unit.names:
        mock.units.pop(n, None)
    mock.RemoveObject(unit.path)
    if unit.cgroup_dir:
        shutil.rmtree(unit.cgroup_dir, ignore_errors=True)
    if _transient_file(mock, unit):
        with contextlib.suppress(FileNotFoundError):
            os.unlink(_transient_file(mock, unit))
        shutil.rmtree(_transient_file(mock, unit) + '.d', ignore_errors=True)


@dbus.service.method(CONTROL_IFACE, in_signature='', out_signature='')
def FinishStartup(self):
    '''The manager reached its default target: StartupFinished.'''
    if _emit_allowed(self):
        self.EmitSignal(MAIN_IFACE, 'StartupFinished', 'tttttt', [0, 0, 0, 0, 900000, 900000])


@dbus.service.method(CONTROL_IFACE, in_signature='', out_signature='')
def Reload(self):
    '''systemctl --user daemon-reload as the VM's systemd 252 shows it: UnitRemoved,
    then UnitNew, for every unit, with no state change in between.'''
    if not _emit_allowed(self):
        return
    units = {id(u): u for u in self.units.values()}.values()
    self.EmitSignal(MAIN_IFACE, 'Reloading', 'b', [True])
    for unit in units:
        self.EmitSignal(MAIN_IFACE, 'UnitRemoved', 'so', [unit.name, dbus.ObjectPath(unit.path)])
    for unit in units:
        self.EmitSignal(MAIN_IFACE, 'UnitNew', 'so', [unit.name, dbus.ObjectPath(unit.path)])
    self.EmitSignal(MAIN_IFACE, 'Reloading', 'b', [False])


@dbus.service.method(CONTROL_IFACE, in_signature='uasas', out_signature='')
def Reexec(self, gap_ms, stop, start):
    '''systemctl --user daemon-reexec: the manager leaves the bus for gap_ms and
    forgets its subscribers; meanwhile the units in stop stop and app units in
    start start, with no signal (nobody is subscribed), as while a real manager
    re-executes. Then it takes its name again.'''
    self.connection.release_name(BUS_NAME)
    self.subscribers.clear()

    def back():
        for name in stop:
            _stop_unit(self, _lookup(self, name))
        for name in start:
            _add_unit(self, name, {})
        self.connection.request_name(BUS_NAME)
        return False
    GLib.timeout_add(int(gap_ms), back)


@dbus.service.method(CONTROL_IFACE, in_signature='sss', out_signature='')
def SetActiveState(self, name, active_state, sub_state):
    _set_unit_state(self, _lookup(self, name), {'ActiveState': active_state, 'SubState': sub_state})


@dbus.service.method(CONTROL_IFACE, in_signature='ss', out_signature='')
def SetFreezerState(self, name, state):
    '''A freeze or thaw that did not come through us (systemctl --user freeze).'''
    unit = _lookup(self, name)
    if state in ('frozen', 'running'):
        _set_events_frozen(unit, state == 'frozen')
    _set_unit_state(self, unit, {'FreezerState': state})


@dbus.service.method(CONTROL_IFACE, in_signature='st', out_signature='')
def SetMemoryCurrent(self, name, value):
    unit = _lookup(self, name)
    _write(os.path.join(unit.cgroup_dir, 'memory.current'), f'{int(value)}\n')


@dbus.service.method(CONTROL_IFACE, in_signature='sss', out_signature='')
def SetFail(self, method, error_name, message):
    '''Every later call of method fails with error_name until ClearFail.'''
    self.failures.append([str(method), '', str(error_name), str(message), 0])


@dbus.service.method(CONTROL_IFACE, in_signature='ssssu', out_signature='')
def SetFailFor(self, method, unit, error_name, message, count):
    '''The next count calls (0: all) of method for unit fail with error_name.'''
    self.failures.append([str(method), str(unit), str(error_name), str(message), int(count)])


@dbus.service.method(CONTROL_IFACE, in_signature='s', out_signature='')
def ClearFail(self, method):
    self.failures = [f for f in self.failures if method and f[0] != method]


@dbus.service.method(CONTROL_IFACE, in_signature='sau', out_signature='')
def SetDelays(self, method, delays_ms):
    '''The next calls of method reply after these delays, one per call;
    4294967295 makes a call hang until ReleaseHung.'''
    self.delays[str(method)] = [int(d) for d in delays_ms]


@dbus.service.method(CONTROL_IFACE, in_signature='s', out_signature='u')
def ReleaseHung(self, method):
    '''Let hung calls of method (all methods for "") go on; returns how many.'''
    todo = [h for h in self.hung if not method or h[0] == method]
    self.hung = [h for h in self.hung if h not in todo]
    for _, run in todo:
        GLib.idle_add(run)
    return dbus.UInt32(len(todo))


@dbus.service.method(CONTROL_IFACE, in_signature='', out_signature='u')
def CountHung(self):
    return dbus.UInt32(len(self.hung))


@dbus.service.method(CONTROL_IFACE, in_signature='', out_signature='u')
def CountSubscribers(self):
    return dbus.UInt32(len(self.subscribers))


@dbus.service.method(CONTROL_IFACE, in_signature='', out_signature='a(sb)')
def GetAutoStartFlags(self):
    '''(method, auto-start allowed) of every Manager call so far.'''
    return dbus.Array(self.auto_start, signature='(sb)')


@dbus.service.method(CONTROL_IFACE, in_signature='s', out_signature='s')
def GetCgroupDir(self, name):
    '''Where the fake cgroupfs keeps the unit's files.'''
    return _lookup(self, name).cgroup_dir
