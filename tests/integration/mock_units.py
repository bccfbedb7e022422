# SPDX-License-Identifier: LGPL-2.1-or-later
'''The mock systemd's (mock_systemd.py) table of units: adding and stopping units
(with their unit objects, cgroup folders and transient unit files), their state and
its PropertiesChanged and Unit* signals, and the fault injection, delays and hangs
every manager call goes through.'''

import contextlib
import os
import shutil
import signal

import dbus
from gi.repository import GLib

from dbusmock import mockobject

from mock_cgroupfs import (ERR_MOCK, ERR_NO_SUCH_UNIT, HANG, MAIN_IFACE, PROPS_IFACE, SETTABLE,
                           UINT64_MAX, UNIT_IFACE, Unit, _apply_to_cgroup, _dbus_error, _make_unit_dir,
                           _write, slice_cgroup_path)


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
