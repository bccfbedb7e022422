#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# Writes the seed corpora: corpus/<target>/<name>. Run it again after
# editing a list; the files are checked in so fuzzing needs no Python.
import hashlib
import os
import shutil

from gi.repository import GLib

here = os.path.dirname(os.path.abspath(__file__))

unit_names = [
    # systemd's desktop naming, as seen on GNOME, KDE and flatpak systems
    'app-gnome-org.gnome.Nautilus-3189.scope',
    'app-org.kde.dolphin@0a1b2c3d.service',
    'app-org.kde.konsole-7b3f9c2e1d.scope',
    'app-flatpak-org.mozilla.firefox-51412.scope',
    'app-gnome-google\\x2dchrome-565343.scope',
    'app-gnome-caf\\xc3\\xa9-12.scope',
    'app-gnome-org.gnome.Nautilus.desktop-3189.scope',
    'app-org.gnome.Terminal.service',
    'app-KDE-org.kde.kate-x-y@a1.service',
    # the older forms
    'flatpak-org.gnome.Builder-4242.scope',
    'gnome-launched-firefox.desktop-1234.scope',
    # units that are not apps, and AppIDs
    'session-2.scope',
    'dbus.service',
    'user@1000.service',
    'app.slice',
    'org.gnome.Calculator',
    'org.mozilla.firefox',
    # invalid ones
    'app-foo@.service',
    'app-foo\\x2fbar-1.scope',
    'app-foo\\xff-1.scope',
    'app-foo\\x2-1.scope',
    '..foo',
    '-foo',
    'foo bar.scope',
]

sizes = [
    '0', '512', '4096B', '512M', '512MiB', '1.5G', '1.5GiB', '2T', '0.1K',
    '16E', '15.99999999999E', '18446744073709551615', '18446744073709551616',
    'infinity', 'MAX', '1.', '.5G', '1.5', '10 M', '1Q', '-1',
]

# Exec lines, then the URIs of the call, one a line
execs = [
    'gedit %U', 'gimp-2.10 %U\n/tmp/a b.png\nfile:///tmp/c.png', 'evince %f\n/tmp/x.pdf',
    'evince %f\nhttps://example.org/x.pdf', 'vlc --started-from-file %U\nhttps://example.org/v?x=1',
    'sh -c "echo \\"%%\\" $HOME" %c', 'app --name=%c --file=%k %i', 'app %d %D %n %N %v %m',
    'app "%u"', 'app x%uy', 'app %z', 'app %', '"unterminated', '', '%f', 'app\nrelative/path',
    "'/opt/My App/bin/app' %F\n/tmp/1\n/tmp/2\n/tmp/3", 'env A=1 app %u\nmailto:a@example.org',
]


def vardict(d):
    return GLib.Variant('a{sv}', d)


t = lambda v: GLib.Variant('t', v)  # noqa: E731
u = lambda v: GLib.Variant('u', v)  # noqa: E731
b = lambda v: GLib.Variant('b', v)  # noqa: E731
MiB = 1024 * 1024

limits = [
    ({'CPUWeight': t(300)}, {}),
    ({'CPUWeight': t(1), 'IOWeight': t(10000)}, {}),
    ({'CPUQuota': u(50)}, {}),
    ({'CPUQuota': u(0)}, {'force': b(True)}),
    ({'MemoryMax': t(512 * MiB), 'MemoryHigh': t(448 * MiB)}, {}),
    ({'MemoryMax': t(2**64 - 1)}, {'force': b(False)}),
    ({'MemoryLow': t(0)}, {}),
    ({'TasksMax': t(1)}, {'force': b(True)}),
    ({'CPUWeight': t(100), 'IOWeight': t(100), 'CPUQuota': u(0), 'MemoryLow': t(0),
      'MemoryHigh': t(2**64 - 1), 'MemoryMax': t(2**64 - 1), 'TasksMax': t(4915)}, {}),
    # invalid
    ({}, {}),
    ({'CPUWeight': t(0)}, {}),
    ({'CPUWeight': u(300)}, {}),
    ({'CPUQuota': t(10)}, {}),
    ({'CPUQuota': u(201)}, {}),
    ({'MemoryMax': t(1)}, {}),
    ({'TasksMax': t(0)}, {}),
    ({'Nice': GLib.Variant('i', 5)}, {}),
    ({'CPUWeight': GLib.Variant('s', '300')}, {}),
    ({'CPUWeight': t(300)}, {'force': GLib.Variant('s', 'yes')}),
    ({'CPUWeight': t(300)}, {'dry-run': b(True)}),
]

# Rules files: the shipped ones are added below; these are the tests' and
# the forms the user guide describes, then broken ones.
rule_files = [
    '[org.example.Both]\nCPUWeight=20\nCPUQuota=10%\n'
    '[org.example.Order]\nCPUWeight=10\n[Boost]\nCPUWeight=400\n',
    '# mine\n[org.example.Both]\nMemoryMax=2G\n\n[Boost]\nEnabled=false\n',
    '[org.example.Both]\nCPUWeight=50\nCPUQuota=20%\n'
    '[org.example.Both @power-saver]\nCPUWeight=10\n'
    '[Slice background @power-saver]\nCPUWeight=7\n'
    '[org.example.Bad @sometimes]\nCPUWeight=1\n[Boost @battery]\nCPUWeight=1\n',
    '[org.example.Both @battery]\nCPUWeight=30\nFreezeWhenInactiveSec=60\n'
    '[org.example.OnlyBattery @battery]\nFreezeWhenInactiveSec=30\n',
    '[com.discordapp.Discord]\nMemoryMax=2G\nMemoryHigh=1792M\nMemoryLow=0\nMemoryMin=64M\n'
    'MemorySwapMax=0\nTasksMax=infinity\nIOWeight=50\n',
    '[org.mozilla.firefox]\nManagedOOMPreference=avoid\nManagedOOMMemoryPressure=kill\n'
    'ManagedOOMMemoryPressureLimit=60%\n',
    '[Slice session]\nCPUWeight=300\n[Slice app]\nMemoryHigh=90%\n[Slice foreground]\n',
    '[org.example.App]\nCPUWeight = 300 \nCPUWeight=301\nFreezeWhenInactiveSec=86401\n'
    'Colour=blue\n[Boost]\nEnabled=maybe\nTasksMax=5\n',
    '[not an app id]\nCPUWeight=1\n[org.example.App]\nMemoryMax=1K\nCPUQuota=999999%\n',
    '[org.example.App\nCPUWeight=1\n',
    'CPUWeight=1\n',
    '[org.example.App]\nMemoryMax=2G\\\nMemoryLow=\\s1G\n',
    '',
]

# SetRule's dictionaries
set_rules = [
    {'CPUWeight': t(50), 'FreezeWhenInactiveSec': u(30)},
    {'FreezeWhenInactiveSec': u(5)},
    {'MemoryMax': t(2**31), 'CPUQuota': u(10), 'TasksMax': t(2**64 - 1)},
    {'MemoryLimit': t(3 * 2**30)},
    {'ManagedOOMPreference': GLib.Variant('s', 'omit'), 'MemorySwapMax': t(12345)},
    {},
    {'FreezeWhenInactiveSec': t(30)},
    {'FreezeWhenInactiveSec': u(86401)},
    {'Colour': GLib.Variant('s', 'blue')},
]

as_ = lambda v: GLib.Variant('as', v)  # noqa: E731
s = lambda v: GLib.Variant('s', v)  # noqa: E731
launch_options = [
    {},
    {'Kind': s('scope'), 'Launcher': s('sway'), 'Slice': s('background.slice')},
    {'Kind': s('service'),
     'Environment': as_(['WAYLAND_DISPLAY=wayland-1', 'LC_ALL=C', 'XDG_ACTIVATION_TOKEN=abc'])},
    {'WorkingDirectory': s('/tmp'), 'Limits': vardict({'CPUWeight': t(50), 'MemoryMax': t(2**30)})},
    {'Limits': vardict({'CPUQuota': u(25)})},
    # refused
    {'Kind': s('timer')},
    {'Kind': u(1)},
    {'Launcher': s('Sway!')},
    {'Slice': s('session.slice')},
    {'Environment': as_(['LD_PRELOAD=/tmp/x.so'])},
    {'Environment': as_(['1A=b', '=x', 'NOEQUALS'])},
    {'Environment': as_(['x' + '\u00e9' * 40])},  # shown cut after 64 bytes, inside a character
    {'Environment': as_(['LANG=' + 'x' * 4100])},
    {'WorkingDirectory': s('relative/dir')},
    {'Limits': vardict({})},
    {'Limits': GLib.Variant('s', 'CPUWeight=1')},
    {'AppId': s('org.example.App')},
]
adopt_options = [
    {},
    {'AppId': s('org.example.App'), 'Launcher': s('kde')},
    {'AppId': s('not an app')},
    {'AppId': GLib.Variant('as', ['org.example.App'])},
    {'Kind': s('scope')},
]
launch_calls = [
    ('org.gnome.TextEditor', [], {}),
    ('org.gnome.Loupe', ['file:///tmp/a.png', '/tmp/b c.png'], {'Kind': s('scope')}),
    ('org.mozilla.firefox', ['https://example.org/'], {'Environment': as_(['DISPLAY=:0'])}),
    ('not-an-app/..', [], {}),
    ('org.example.App', ['x' * 4097], {}),
    ('org.example.App', ['u'] * 257, {}),
]
adopt_calls = [
    ([4242], {}),
    ([4242, 4243, 4242], {'AppId': s('org.example.App')}),
    ([], {}),
    (list(range(1, 1026)), {}),
]


def write(target, blobs):
    folder = os.path.join(here, 'corpus', target)
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    # Named by content, as libFuzzer names what it finds.
    for blob in blobs:
        with open(os.path.join(folder, hashlib.sha1(blob).hexdigest()), 'wb') as f:
            f.write(blob)


write('unit-name', [n.encode() for n in unit_names])
write('size', [s.encode() for s in sizes])
write('exec', [e.encode() for e in execs])
write('limits', [GLib.Variant('(a{sv}a{sv})', (lim, opt)).get_data_as_bytes().get_data()
                 for lim, opt in limits])
shipped = sorted(os.listdir(os.path.join(here, '..', '..', 'data', 'rules')))
write('rules', [open(os.path.join(here, '..', '..', 'data', 'rules', name), 'rb').read()
                for name in shipped if name.endswith('.conf')] +
      [r.encode() for r in rule_files] +
      [vardict(d).get_data_as_bytes().get_data() for d in set_rules])
write('options', [vardict(d).get_data_as_bytes().get_data() for d in launch_options + adopt_options] +
      [GLib.Variant('(sasa{sv})', c).get_data_as_bytes().get_data() for c in launch_calls] +
      [GLib.Variant('(aua{sv})', c).get_data_as_bytes().get_data() for c in adopt_calls])
# A duplicate key cannot be written as a Python dict: build the array by hand.
dup = GLib.Variant.new_tuple(
    GLib.Variant.new_array(GLib.VariantType('{sv}'), [
        GLib.Variant.new_dict_entry(GLib.Variant('s', 'CPUWeight'), GLib.Variant('v', t(1))),
        GLib.Variant.new_dict_entry(GLib.Variant('s', 'CPUWeight'), GLib.Variant('v', t(2)))]),
    vardict({}))
with open(os.path.join(here, 'corpus', 'limits', 'duplicate-key'), 'wb') as f:
    f.write(dup.get_data_as_bytes().get_data())
