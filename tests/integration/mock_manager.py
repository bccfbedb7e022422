# SPDX-License-Identifier: LGPL-2.1-or-later
'''The mock systemd's (mock_systemd.py) org.freedesktop.systemd1.Manager methods.

mock_systemd.py imports each of them, so that dbusmock, which looks for D-Bus
methods among the template's names, serves them.'''

import fnmatch
import os
import subprocess

import dbus
from gi.repository import GLib

from mock_cgroupfs import (CONTROL_IFACE, ERR_INVALID_ARGS, ERR_NOT_SUPPORTED, ERR_NO_SUCH_UNIT,
                           ERR_READ_ONLY, ERR_UNIT_EXISTS, ERR_UNIT_INACTIVE, MAIN_IFACE, MAIN_OBJ,
                           SETTABLE, UINT64_MAX, UNIT_IFACE, _apply_to_cgroup, _dbus_error,
                           _set_events_frozen, _write)
from mock_units import (_add_unit, _dispatch, _list_entry, _lookup, _note_auto_start, _primary_units,
                        _reply_unit_path, _set_unit_state, _unit_props)


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
        service = 'ExecStart' in props or 'ExecStartEx' in props
        if result in ('done', 'never') and service:
            process = _spawn_exec_start(self, props, fds)
            pids = [process.pid]
        unit = None
        if result in ('done', 'never'):
            # a service is "activating" until its program runs (Type=exec), as
            # in systemd; a scope is active at once
            unit = _add_unit(self, unit_name, {
                'slice': props.get('Slice', 'app.slice'),
                'source_path': props.get('SourcePath', ''),
                'description': props.get('Description', unit_name), 'pids': pids,
                'transient': True, 'settings': props,
                'active_state': 'activating' if service else 'active',
                'sub_state': 'start' if service else 'running'})
            unit.process = process
            unit.delegate = bool(props.get('Delegate', False))

        def job_removed():
            if unit is not None and result == 'done' and service and unit_name in self.units:
                _set_unit_state(self, unit, {'ActiveState': 'active', 'SubState': 'running'})
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
