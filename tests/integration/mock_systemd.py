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

import os
import sys

import dbus
from gi.repository import GLib


# dbusmock loads a template from its path: the modules beside it (mock_cgroupfs.py,
# mock_units.py, mock_manager.py, rcnames.py) are not importable by themselves
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# integration_test.py imports this module for unit_path
from rcnames import systemd_unit_path as unit_path  # noqa: E402,F401 pylint: disable=wrong-import-position
from mock_cgroupfs import (BUS_NAME, CONTROL_IFACE, MAIN_IFACE, MAIN_OBJ,  # noqa: E402,F401
                           SYSTEM_BUS, _make_root, _set_events_frozen, _write)
from mock_units import _add_unit, _emit_allowed, _lookup, _set_unit_state, _stop_unit  # noqa: E402
# dbusmock serves the D-Bus methods it finds among this module's names
from mock_manager import (  # noqa: E402,F401
    Subscribe, SetEnvironment, UnsetEnvironment, Unsubscribe, ListUnits, ListUnitsByPatterns,
    GetUnit, LoadUnit, GetUnitByControlGroup, SetUnitProperties, FreezeUnit, ThawUnit,
    StartTransientUnit, AttachProcessesToUnit, SetJobResult, SetUnitJobResult)


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
# org.example.MockSystemd: the tests' controls
#

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


@dbus.service.method(CONTROL_IFACE, in_signature='as', out_signature='')
def ImportEnvironment(self, assignments):
    '''`systemctl --user import-environment`: the manager's environment changes through its
    private socket, with no call on the bus and no signal.'''
    environment = dict(a.split('=', 1) for a in self.props[MAIN_IFACE].get('Environment', []))
    environment.update(a.split('=', 1) for a in assignments)
    self.props[MAIN_IFACE]['Environment'] = dbus.Array(
        [f'{k}={v}' for k, v in sorted(environment.items())], signature='s')


@dbus.service.method(CONTROL_IFACE, in_signature='as', out_signature='')
def EndJobs(self, units):
    '''JobRemoved ("done") of a start job of each unit, as systemd sends it to its subscribers.'''
    if not _emit_allowed(self):
        return
    for unit in units:
        self.next_job += 1
        self.EmitSignal(MAIN_IFACE, 'JobRemoved', 'uoss',
                        [dbus.UInt32(self.next_job),
                         dbus.ObjectPath(f'/org/freedesktop/systemd1/job/{self.next_job}'), unit, 'done'])


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
