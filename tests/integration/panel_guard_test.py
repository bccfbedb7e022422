#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
'''Host test of the settings panel showing what the responsiveness guard holds back (the daemon's
GuardHeld property, in the status line). The world of panel_test.py (PanelTestCase: the harness,
Xvfb, an accessibility bus, AT-SPI) with the fake kernel of guard_test.py.
'''

import re
import sys

import rctest_harness as h
from guard_test import B, F, FakeKernel
from panel_test import PanelTestCase


class PanelGuardTest(PanelTestCase):

    def test_the_status_line_names_what_the_guard_holds_back(self):
        self.add_app(F)
        self.add_app(B)
        kernel = FakeKernel()
        kernel.start()
        self.addCleanup(kernel.join)
        self.addCleanup(kernel.stopping.set)
        kernel.set_rate(self.cgroup_dir(F), 'pressure', 300000)
        kernel.set_rate(self.cgroup_dir(B), 'usage', 1500000)
        self.rc_call('SetForegroundApp', (F,), '(s)')
        self.wait_until(lambda: self.get_property('GuardHeld'), 10, 'the guard to hold B back')
        self.start_panel()
        self.wait_shown(re.compile(r'^Focus: .* · Held back for the focused app: org\.example\.Build '
                                   r'\(CPU weight \d+\)$'), 'LABEL')


if __name__ == '__main__':
    sys.exit(h.main())
