#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
'''The listing's records (ListApps): every key of a full record (GetApp,
ListAppRecords) but what the limits do and the keys at their none value (an
empty string or Pids, Audio false, CPUQuota, MemoryLow and MemoryMin 0, the
other limits G_MAXUINT64). A limit set, or set back, shows in the very next
ListApps.'''

import sys

import rctest_harness as h
from rctest_harness import MIB, UINT64_MAX, t, u

from rcbase import APP, Base

NO_DESKTOP = 'app-gnome-org.example.NoDesktopFile-7.scope'
REPORT_KEYS = {'CPUThrottledUSec', 'MemoryEvents', 'CPUPressure', 'MemoryPressure', 'IOPressure'}
NONE_ZERO = {'CPUQuota', 'MemoryLow', 'MemoryMin'}
NONE_MAX = {'CPUWeight', 'IOWeight', 'MemoryHigh', 'MemoryMax', 'TasksMax', 'MemorySwapMax'}


def is_none(key, value):
    if key in NONE_ZERO:
        return value == 0
    if key in NONE_MAX:
        return value == UINT64_MAX
    return value in ('', [], False)


class ListingTest(Base):

    def listed(self, unit):
        return {r['Unit']: r for r in self.list_apps()}[unit]

    def full(self, unit):
        return {r['Unit']: r for r in self.rc_call('ListAppRecords')[0]}[unit]

    def assert_listing_is_full_record_without_none(self, unit):
        full = self.full(unit)
        want = {k: v for k, v in full.items() if k not in REPORT_KEYS and not is_none(k, v)}
        self.assertEqual(self.listed(unit), want)
        return want

    def test_none_values_left_out(self):
        # no desktop file (Icon and DesktopFile empty), no processes, no io controller
        self.add_app(NO_DESKTOP, pids=[])
        listed = self.assert_listing_is_full_record_without_none(NO_DESKTOP)
        self.assertEqual(sorted(listed), sorted([
            'Unit', 'AppId', 'Launcher', 'Name', 'Slice', 'ActiveState', 'FreezerState',
            'CPUWeight', 'TasksMax', 'MemoryCurrent', 'CPUUsageNSec', 'TasksCurrent']))
        self.assertEqual((listed['Name'], listed['CPUWeight'], listed['TasksMax']),
                         ('org.example.NoDesktopFile', 100, 4915))
        # the full records keep every key
        for full in (self.full(NO_DESKTOP), self.get_one(NO_DESKTOP)):
            self.assertEqual((full['Icon'], full['DesktopFile'], full['Audio'], full['Pids'],
                              full['CPUQuota'], full['MemoryHigh']), ('', '', False, [], 0, UINT64_MAX))

    def test_limits_show_and_go_in_the_very_next_listing(self):
        self.add_app(APP, pids=[4242], controllers='cpu io memory pids')
        listed = self.assert_listing_is_full_record_without_none(APP)
        self.assertNotIn('MemoryHigh', listed)
        self.assertEqual(listed['Pids'], [4242])
        self.set_limits(APP, {'CPUQuota': u(50), 'MemoryLow': t(32 * MIB), 'MemoryHigh': t(512 * MIB),
                              'MemoryMax': t(1024 * MIB), 'TasksMax': t(100)})
        listed = self.assert_listing_is_full_record_without_none(APP)
        self.assertEqual([listed[k] for k in ('CPUQuota', 'MemoryLow', 'MemoryHigh', 'MemoryMax', 'TasksMax')],
                         [50, 32 * MIB, 512 * MIB, 1024 * MIB, 100])
        # set back to none: gone from the very next listing, not left at the old value
        self.set_limits(APP, {'CPUQuota': u(0), 'MemoryLow': t(0), 'MemoryHigh': t(UINT64_MAX),
                              'MemoryMax': t(UINT64_MAX)})
        listed = self.assert_listing_is_full_record_without_none(APP)
        for key in ('CPUQuota', 'MemoryLow', 'MemoryHigh', 'MemoryMax'):
            self.assertNotIn(key, listed)
        self.assertEqual(listed['TasksMax'], 100)


if __name__ == '__main__':
    sys.exit(h.main())
