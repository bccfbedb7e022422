/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "rc-cgroup-locator.h"
#include "rc-cgroup.h"

#include <string.h>

/* Slices nest as a-b-c.slice in a-b.slice in a.slice; no user manager
 * goes deeper than this. */
#define MAX_SLICE_DEPTH 8

struct _RcCgroupLocator {
  char       *manager_cgroup;
  GHashTable *slices;          /* slice name -> its ControlGroup */
  char       *last_slice;      /* where the last unit was found: looked in first */
  gboolean    present;         /* the manager's folder is in cgroupfs */
};

/* Only slices are walked: below a unit's folder a delegated process may
 * make folders of any name. Cgroup files never end in ".slice". */
static void
scan (RcCgroupLocator *self,
      const char      *control_group,
      guint            depth)
{
  g_autofree char *path = g_build_filename (rc_cgroup_root (), control_group, NULL);
  g_autoptr(GDir) dir = g_dir_open (path, 0, NULL);
  const char *name;

  if (dir == NULL)
    return;
  while ((name = g_dir_read_name (dir)) != NULL)
    {
      char *child;

      if (!g_str_has_suffix (name, ".slice"))
        continue;
      child = g_strconcat (control_group, "/", name, NULL);
      g_hash_table_replace (self->slices, g_strdup (name), child);
      if (depth < MAX_SLICE_DEPTH)
        scan (self, child, depth + 1);
    }
}

static void
rescan (RcCgroupLocator *self)
{
  g_hash_table_remove_all (self->slices);
  scan (self, self->manager_cgroup, 0);
}

RcCgroupLocator *
rc_cgroup_locator_new (const char *manager_cgroup)
{
  RcCgroupLocator *self = g_new0 (RcCgroupLocator, 1);
  g_autofree char *path = NULL;

  g_return_val_if_fail (manager_cgroup != NULL, NULL);

  /* On a cgroup v1 or hybrid host the manager's folder is not at the root
   * (the unified tree is elsewhere, if anywhere): every lookup misses, and
   * the caller asks systemd. */
  path = g_build_filename (rc_cgroup_root (), manager_cgroup, NULL);
  self->present = *manager_cgroup == '/' && g_file_test (path, G_FILE_TEST_IS_DIR);
  self->manager_cgroup = g_strdup (manager_cgroup);
  self->slices = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  if (self->present)
    rescan (self);
  return self;
}

void
rc_cgroup_locator_free (RcCgroupLocator *self)
{
  if (self == NULL)
    return;
  g_hash_table_unref (self->slices);
  g_free (self->last_slice);
  g_free (self->manager_cgroup);
  g_free (self);
}

static gboolean
in_slice (const char *slice_cgroup,
          const char *unit,
          char      **out_control_group)
{
  g_autofree char *control_group = g_strconcat (slice_cgroup, "/", unit, NULL);
  g_autofree char *path = g_build_filename (rc_cgroup_root (), control_group, NULL);

  if (!g_file_test (path, G_FILE_TEST_IS_DIR))
    return FALSE;
  *out_control_group = g_steal_pointer (&control_group);
  return TRUE;
}

/* Each look is a stat of a path some ten folders deep, and at start-up
 * every app is looked for: the slice of the last one found comes first,
 * as most apps share it (app.slice), so that most looks are one stat
 * rather than one per slice. */
static gboolean
find_known (RcCgroupLocator *self,
            const char      *unit,
            char           **out_control_group,
            const char     **out_slice)
{
  GHashTableIter iter;
  const char *slice, *slice_cgroup;

  if (self->last_slice != NULL &&
      g_hash_table_lookup_extended (self->slices, self->last_slice, (gpointer *) &slice,
                                    (gpointer *) &slice_cgroup) &&
      in_slice (slice_cgroup, unit, out_control_group))
    {
      *out_slice = slice;
      return TRUE;
    }
  g_hash_table_iter_init (&iter, self->slices);
  while (g_hash_table_iter_next (&iter, (gpointer *) &slice, (gpointer *) &slice_cgroup))
    if (g_strcmp0 (slice, self->last_slice) != 0 &&
        in_slice (slice_cgroup, unit, out_control_group))
      {
        g_free (self->last_slice);
        self->last_slice = g_strdup (slice);
        *out_slice = slice;
        return TRUE;
      }
  return FALSE;
}

gboolean
rc_cgroup_locator_find (RcCgroupLocator *self,
                        const char      *unit,
                        char           **out_control_group,
                        const char     **out_slice)
{
  g_return_val_if_fail (self != NULL, FALSE);
  g_return_val_if_fail (unit != NULL && *unit != '\0' && strchr (unit, '/') == NULL, FALSE);

  if (!self->present)
    return FALSE;
  if (find_known (self, unit, out_control_group, out_slice))
    return TRUE;
  /* In a slice made since the last look. */
  rescan (self);
  return find_known (self, unit, out_control_group, out_slice);
}
