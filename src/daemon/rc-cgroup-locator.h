/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Where a running unit of the user manager has its cgroup, found in
 * cgroupfs instead of asked of systemd: systemd puts unit U of slice S at
 * <manager's cgroup>/<S's path>/U, and the slices' folders say where each
 * slice is. A lookup costs a stat per known slice; no D-Bus call. */
typedef struct _RcCgroupLocator RcCgroupLocator;

RcCgroupLocator *rc_cgroup_locator_new (const char *manager_cgroup);
void             rc_cgroup_locator_free (RcCgroupLocator *self);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RcCgroupLocator, rc_cgroup_locator_free);

/* TRUE with the unit's ControlGroup (as systemd writes it, from the
 * cgroupfs root) and its slice's name (valid until the next lookup) when
 * @unit has a cgroup folder. */
gboolean         rc_cgroup_locator_find (RcCgroupLocator *self,
                                         const char      *unit,
                                         char           **out_control_group,
                                         const char     **out_slice);

G_END_DECLS
