#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
'''Host tests of the settings panel's "Recent changes" (docs/design.md, "Saying why"): the app
page shows the daemon's action record for that app, newest first, with when and why; entries
the daemon takes later (ActionTaken) come in while the page is open; another app's do not.

The world of panel_test.py (PanelTestCase: the harness, Xvfb, an accessibility bus, AT-SPI);
the entries are the daemon's own, made by a rule and the boost, as actions_test.py makes them.
'''

import os
import re
import sys

import rctest_harness as h
from panel_test import APP, APP_ID, APP_NAME, PanelTestCase

WRITER = 'app-gnome-org.example.Writer-77.scope'
WRITER_ID = 'org.example.Writer'
WRITER_NAME = 'Test Writer'
RULE_FILE = '20-writer.conf'
RULE_REASON = f'rule ~/.config/resource-control/rules.d/{RULE_FILE} [{WRITER_ID}]'
BOOST_REASON = 'focus from a SetForeground call'


class PanelActionsTest(PanelTestCase):
    '''One panel start for the whole story (each start costs a second or two): an app without
    changes, an app with a rule applied at its start, then the boost moving and a rules file
    saved while its page is open, then the first app's page again.'''

    def actions(self, app):
        return self.rc_call('GetActions', (app, 0), '(st)')[0]

    def write_rule(self, name, text):
        os.makedirs(self.user_rules_dir, exist_ok=True)
        path = os.path.join(self.user_rules_dir, name)
        h._write(path + '.tmp', text)
        os.rename(path + '.tmp', path)

    def add_writer_with_rule(self):
        '''Writer starts after its rule is loaded: the daemon applies and records it.'''
        h._write(os.path.join(self.applications_dir, WRITER_ID + '.desktop'),
                 f'[Desktop Entry]\nType=Application\nExec=/bin/true\nName={WRITER_NAME}\n')
        self.write_rule(RULE_FILE, f'[{WRITER_ID}]\nCPUWeight=50\n')
        self.wait_until(lambda: WRITER_ID in self.rc_call('ListRules')[0], message='the rule loaded')
        self.add_app(WRITER, controllers='cpu io memory pids', pids=[4343])
        self.wait_until(lambda: self.actions(WRITER_ID), message="the rule's entry in GetActions")
        self.assertEqual([tuple(a[3:]) for a in self.actions(WRITER_ID)],
                         [('rule', 'CPUWeight', '100', '50', RULE_REASON)])

    def order_of(self, *titles):
        '''Where each title comes in the page, top to bottom.'''
        labels = self.names('LABEL')
        return [labels.index(title) for title in titles]

    def test_recent_changes_of_the_app_and_live(self):
        self.add_writer_with_rule()
        self.start_panel(wait_for=WRITER_NAME)
        # an app the daemon changed nothing for
        self.open_app_page(APP_NAME)
        self.wait_shown('Recent changes', 'LABEL')
        self.wait_shown('No automatic changes', 'LABEL')
        self.press('Back')
        self.wait_gone('No automatic changes', 'LABEL')

        # the rule applied when Writer started, with its reason
        self.open_app_page(WRITER_NAME)
        self.wait_shown('CPUWeight 100 → 50', 'LABEL')
        self.wait_shown(RULE_REASON, 'LABEL')
        self.wait_shown('just now', 'LABEL')
        self.assertIsNone(self.find('No automatic changes'))

        # the boost goes to the editor (CPUWeight, IOWeight and MemoryLow): its entries are not Writer's
        self.rc_call('SetForegroundApp', (APP,), '(s)')
        self.wait_until(lambda: len(self.actions(APP_ID)) == 3, message="the editor's boost entries")
        # then to Writer: the editor's boost is taken back, Writer's comes in live, on top
        self.rc_call('SetForegroundApp', (WRITER,), '(s)')
        self.wait_shown('CPUWeight 50 → 300', 'LABEL')
        self.wait_shown(BOOST_REASON, 'LABEL')
        self.wait_shown('IOWeight 100 → 300', 'LABEL')
        self.assertEqual(len(self.actions(APP_ID)), 6)
        for other in ('CPUWeight 100 → 300', 'CPUWeight 300 → 100'):
            self.assertIsNone(self.find(other), f"the editor's {other!r} on Writer's page:\n{self.dump_tree()}")
        top, below = self.order_of('CPUWeight 50 → 300', 'CPUWeight 100 → 50')
        self.assertLess(top, below, 'the newest entry is not first:\n' + self.dump_tree())
        # a screen reader hears what, when and why in one
        self.assertIn(f'CPUWeight 50 → 300, just now: {BOOST_REASON}', self.descriptions())

        # Writer's page for the user guide, tall enough to show the group
        self.xdotool('windowsize', self.xid(), '720', '1000')
        self.screenshot('panel-recent-changes.png')

        # a rules file saved while the page is open: its entry comes in too, and its name is
        # shown as it is, as text and not as markup ("&amp;" stays "&amp;")
        late = '30-tweaks &amp; more.conf'
        self.write_rule(late, f'[{WRITER_ID}]\nTasksMax=500\n')
        self.wait_shown(re.compile(r'^TasksMax \S+ → 500$'), 'LABEL')
        self.wait_shown(f'rule ~/.config/resource-control/rules.d/{late} [{WRITER_ID}]', 'LABEL')

        # the page follows one app: back on the editor's, its boost entries
        self.press('Back')
        self.open_app_page(APP_NAME)
        self.wait_shown('CPUWeight 300 → 100', 'LABEL')
        self.wait_shown('CPUWeight 100 → 300', 'LABEL')
        for other in ('CPUWeight 50 → 300', re.compile('^TasksMax .*')):
            self.assertIsNone(self.find(other), f"Writer's {other!r} on the editor's page")
        self.assertIsNone(self.find('No automatic changes'))

    def descriptions(self):
        out = []
        for node in self.walk():
            try:
                out.append(node.get_description())
            except Exception:  # pylint: disable=broad-except
                continue
        return out


if __name__ == '__main__':
    sys.exit(h.main())
