/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "rc-list-processes.h"
#include "rc-cgroup.h"
#include "rc-proc-reader.h"

typedef struct {
  char **groups;   /* cgroup paths */
  guint  max;      /* entries at most */
} ListData;

static void
list_data_free (ListData *data)
{
  g_strfreev (data->groups);
  g_free (data);
}

static void
list_thread (GTask        *task,
             gpointer      source,
             gpointer      task_data,
             GCancellable *cancellable)
{
  ListData *data = task_data;
  const char * const *groups = (const char * const *) data->groups;
  guint max = data->max;
  g_autoptr(GArray) all = g_array_new (FALSE, FALSE, sizeof (guint32));
  g_autoptr(GPtrArray) procs = g_ptr_array_new_with_free_func ((GDestroyNotify) g_variant_unref);

  for (guint i = 0; groups[i] != NULL; i++)
    {
      g_autoptr(GArray) pids = rc_cgroup_read_pids (groups[i]);

      if (pids != NULL)
        g_array_append_vals (all, pids->data, pids->len);
    }
  g_array_sort (all, rc_proc_compare_pids);
  if (all->len > max)
    g_debug ("ListProcesses: %u processes, the first %u answered", all->len, max);
  for (guint i = 0; i < all->len && procs->len < max; i++)
    {
      guint32 pid = g_array_index (all, guint32, i);
      GVariant *proc;

      if (i > 0 && pid == g_array_index (all, guint32, i - 1))
        continue;
      if (g_task_return_error_if_cancelled (task))
        return;
      proc = rc_proc_usage_variant (pid);
      if (proc != NULL)
        g_ptr_array_add (procs, g_variant_ref_sink (proc));
    }
  g_task_return_pointer (task,
                         g_variant_ref_sink (g_variant_new_array (G_VARIANT_TYPE ("(ussttt)"),
                                                                  (GVariant **) procs->pdata,
                                                                  procs->len)),
                         (GDestroyNotify) g_variant_unref);
}

void
rc_list_processes_async (const char * const *control_groups,
                         guint               max_entries,
                         GCancellable       *cancellable,
                         GAsyncReadyCallback callback,
                         gpointer            user_data)
{
  g_autoptr(GTask) task = g_task_new (NULL, cancellable, callback, user_data);
  ListData *data = g_new0 (ListData, 1);

  g_task_set_source_tag (task, rc_list_processes_async);
  data->groups = g_strdupv ((char **) control_groups);
  data->max = max_entries;
  g_task_set_task_data (task, data, (GDestroyNotify) list_data_free);
  g_task_run_in_thread (task, list_thread);
}

GVariant *
rc_list_processes_finish (GAsyncResult *result,
                          GError      **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}
