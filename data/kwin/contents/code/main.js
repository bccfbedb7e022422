// SPDX-License-Identifier: LGPL-2.1-or-later
// Tells resource-controld which window has the focus (docs/design.md, "Focus").
// callDBus sends a JavaScript number as a signed integer ("i"), so the
// daemon's SetForegroundWindowProcess takes one.
function report(window) {
    if (!window || !(window.pid > 0))
        return;
    callDBus("org.example.ResourceControl", "/org/example/ResourceControl",
             "org.example.ResourceControl", "SetForegroundWindowProcess", window.pid);
}

if (workspace.windowActivated)          // KWin 6
    workspace.windowActivated.connect(report);
else                                    // KWin 5
    workspace.clientActivated.connect(report);
report(workspace.activeWindow || workspace.activeClient);
