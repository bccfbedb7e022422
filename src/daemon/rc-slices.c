/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "rc-slices.h"
#include "rc-cgroup.h"
#include "rc-api-keys.h"
#include "rc-error.h"
#include "rc-policy.h"

#define SLICES_CALLER "resource-controld slices"

static const char * const slice_names[] = { "session.slice", "app.slice", "background.slice" };
#define N_SLICES G_N_ELEMENTS (slice_names)

typedef struct {
  RcLimits api;            /* set through SetSliceLimits */
  RcLimits applied;        /* what systemd was last told by us */
  gboolean write_queued;
} Slice;

struct _RcSlices {
  GObject         parent_instance;
  RcSystemd      *systemd;
  RcRequestQueue *queue;
  RcRules        *rules;
  char           *root;               /* the manager's cgroup; NULL until known */
  Slice           slices[N_SLICES];
  GCancellable   *cancellable;
};

G_DEFINE_TYPE (RcSlices, rc_slices, G_TYPE_OBJECT);

static int
slice_index (const char *slice)
{
  for (guint i = 0; i < N_SLICES; i++)
    if (g_strcmp0 (slice, slice_names[i]) == 0)
      return (int) i;
  return -1;
}

gboolean
rc_slices_is_slice (const char *slice)
{
  return slice_index (slice) >= 0;
}

static char *
slice_cgroup (RcSlices *self,
              guint     i)
{
  if (self->root == NULL)
    return NULL;
  return g_strdup_printf ("%s/%s", g_str_equal (self->root, "/") ? "" : self->root,
                          slice_names[i]);
}

/* ---- reading ------------------------------------------------------------ */

GVariant *
rc_slices_to_variant (RcSlices *self)
{
  g_auto(GVariantBuilder) all = G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE ("aa{sv}"));

  for (guint i = 0; i < N_SLICES; i++)
    {
      g_auto(GVariantBuilder) b = G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE_VARDICT);
      g_autofree char *cgroup = slice_cgroup (self, i);
      g_autoptr(GArray) pids = g_array_new (FALSE, FALSE, sizeof (guint32));
      RcCgroupStats st;

      rc_cgroup_read_app (cgroup, &st, pids);
      g_variant_builder_add (&b, "{sv}", RC_KEY_UNIT, g_variant_new_string (slice_names[i]));
      g_variant_builder_add (&b, "{sv}", RC_KEY_CPU_WEIGHT, g_variant_new_uint64 (st.cpu_weight));
      g_variant_builder_add (&b, "{sv}", RC_KEY_IO_WEIGHT, g_variant_new_uint64 (st.io_weight));
      g_variant_builder_add (&b, "{sv}", RC_KEY_CPU_QUOTA, g_variant_new_uint32 (st.cpu_quota));
      g_variant_builder_add (&b, "{sv}", RC_KEY_MEMORY_LOW, g_variant_new_uint64 (st.memory_low));
      g_variant_builder_add (&b, "{sv}", RC_KEY_MEMORY_HIGH,
                             g_variant_new_uint64 (st.memory_high));
      g_variant_builder_add (&b, "{sv}", RC_KEY_MEMORY_MAX, g_variant_new_uint64 (st.memory_max));
      g_variant_builder_add (&b, "{sv}", RC_KEY_TASKS_MAX, g_variant_new_uint64 (st.tasks_max));
      g_variant_builder_add (&b, "{sv}", RC_KEY_MEMORY_MIN, g_variant_new_uint64 (st.memory_min));
      g_variant_builder_add (&b, "{sv}", RC_KEY_MEMORY_SWAP_MAX,
                             g_variant_new_uint64 (st.memory_swap_max));
      g_variant_builder_add (&b, "{sv}", RC_KEY_MEMORY_CURRENT,
                             g_variant_new_uint64 (st.memory_current));
      g_variant_builder_add (&b, "{sv}", RC_KEY_CPU_USAGE_NSEC,
                             g_variant_new_uint64 (st.cpu_usage_nsec));
      g_variant_builder_add (&b, "{sv}", RC_KEY_TASKS_CURRENT,
                             g_variant_new_uint64 (st.tasks_current));
      g_variant_builder_add (&b, "{sv}", RC_KEY_CPU_THROTTLED_USEC,
                             g_variant_new_uint64 (st.cpu_throttled_usec));
      rc_cgroup_stats_add_reports (&st, &b);
      g_variant_builder_add_value (&all, g_variant_builder_end (&b));
    }
  return g_variant_builder_end (&all);
}

/* ---- writing ------------------------------------------------------------ */

/* One write of a slice's properties, in its turn in the request queue:
 * an API request (task set) or the rules reaching the slice. */
typedef struct {
  RcSlices *slices;
  guint     index;
  RcLimits  limits;     /* the API's; for the rules, worked out in the turn */
  GTask    *task;       /* NULL for the rules */
  RcQueued *queued;
} Write;

static void
write_free (Write *write)
{
  rc_request_queue_done (write->slices->queue, write->queued);
  g_clear_object (&write->task);
  g_object_unref (write->slices);
  g_free (write);
}

static void
written_cb (GObject      *source,
            GAsyncResult *result,
            gpointer      user_data)
{
  Write *write = user_data;
  Slice *slice = &write->slices->slices[write->index];
  GError *error = NULL;

  if (rc_systemd_set_unit_properties_finish (RC_SYSTEMD (source), result, &error))
    {
      for (RcLimit limit = 0; limit < RC_N_LIMITS; limit++)
        {
          if (!rc_limits_has (&write->limits, limit))
            continue;
          rc_limits_set (&slice->applied, limit, write->limits.values[limit]);
          /* an API value counts once systemd took it, not when refused */
          if (write->task != NULL)
            rc_limits_set (&slice->api, limit, write->limits.values[limit]);
        }
      if (write->task != NULL)
        g_task_return_boolean (write->task, TRUE);
    }
  else if (write->task != NULL)
    g_task_return_error (write->task, error);
  else
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        g_message ("Could not apply the rule of %s: %s", slice_names[write->index],
                   error->message);
      g_error_free (error);
    }
  write_free (write);
}

/* What the slice should have: its API values over its rule over the
 * defaults (for what was applied once and is set by no one now). */
static void
wanted_limits (RcSlices *self,
               guint     i,
               RcLimits *out)
{
  const RcLimits *rule = rc_rules_lookup_slice (self->rules, slice_names[i]);
  RcLimits defaults;

  rc_limits_init_reset (&defaults, G_MAXUINT64);
  rc_limits_resolve (NULL, &self->slices[i].api, rule, &self->slices[i].applied,
                     &defaults, out);
}

static void
write_start (RcQueued *queued,
             gpointer  user_data)
{
  Write *write = user_data;
  RcSlices *self = write->slices;
  Slice *slice = &self->slices[write->index];
  g_autofree char *cgroup = slice_cgroup (self, write->index);
  GError *error = NULL;

  if (write->task != NULL)
    {
      /* checked in its turn, against the slice as it is now: without its
       * cgroup a memory cap could not be checked against its use */
      if (cgroup == NULL)
        error = g_error_new (RC_ERROR, RC_ERROR_FAILED, "The user manager has not told "
                             "where %s is yet; try again in a moment",
                             slice_names[write->index]);
      if (error != NULL ||
          !rc_limits_check_app (&write->limits, slice_names[write->index], cgroup, &error))
        {
          g_task_return_error (write->task, error);
          write_free (write);
          return;
        }
    }
  else
    {
      RcLimits wanted;

      slice->write_queued = FALSE;
      wanted_limits (self, write->index, &wanted);
      rc_limits_diff (&wanted, &slice->applied, &write->limits);
      /* a rule never takes memory away from what the slice uses now */
      if ((write->limits.set & RC_LIMITS_MEMORY_CAPS) != 0 &&
          !rc_limits_check_app (&write->limits, slice_names[write->index], cgroup, &error))
        {
          g_message ("Not applying the memory limits of the rule of %s: %s",
                     slice_names[write->index], error->message);
          g_clear_error (&error);
          write->limits.set &= ~RC_LIMITS_MEMORY_CAPS;
        }
      if (rc_limits_has (&write->limits, RC_LIMIT_IO_WEIGHT) &&
          !rc_cgroup_is_delegated (cgroup, "io"))
        write->limits.set &= ~(1u << RC_LIMIT_IO_WEIGHT);
      /* as for apps' rules (rc-policy.c): a slice runs already */
      write->limits.set &= ~((1u << RC_LIMIT_OOM_PREFERENCE) |
                             rc_limits_oom_without_oomd (&write->limits));
      if (write->limits.set == 0)
        {
          write_free (write);
          return;
        }
    }
  g_debug ("Slices: applying %x to %s", write->limits.set, slice_names[write->index]);
  rc_systemd_set_unit_properties_async (self->systemd, slice_names[write->index],
                                        rc_limits_to_unit_properties (&write->limits),
                                        self->cancellable, written_cb, write);
}

static Write *
write_new (RcSlices *self,
           guint     i)
{
  Write *write = g_new0 (Write, 1);

  write->slices = g_object_ref (self);
  write->index = i;
  return write;
}

static void
write_submit (Write      *write,
              const char *caller)
{
  RcRequestQueue *queue = write->slices->queue;
  const char *units[] = { slice_names[write->index] };

  write->queued = rc_request_queue_push (queue, caller, write_start, write);
  rc_request_queue_set_units (queue, write->queued, units, G_N_ELEMENTS (units));
  rc_request_queue_ready (queue, write->queued);
}

/* The rules (or the manager, come back) may want something new. */
static void
sync_all (RcSlices *self)
{
  if (self->root == NULL)
    return;
  for (guint i = 0; i < N_SLICES; i++)
    {
      if (self->slices[i].write_queued)
        continue;
      self->slices[i].write_queued = TRUE;
      write_submit (write_new (self, i), SLICES_CALLER);
    }
}

void
rc_slices_set_limits_async (RcSlices           *self,
                            const char         *caller,
                            const char         *slice,
                            const RcLimits     *limits,
                            GCancellable       *cancellable,
                            GAsyncReadyCallback callback,
                            gpointer            user_data)
{
  GTask *task = g_task_new (self, cancellable, callback, user_data);
  int i = slice_index (slice);
  Write *write;

  g_task_set_source_tag (task, rc_slices_set_limits_async);
  g_return_if_fail (i >= 0);
  write = write_new (self, (guint) i);
  write->task = task;
  write->limits = *limits;
  write_submit (write, caller);
}

gboolean
rc_slices_set_limits_finish (RcSlices     *self,
                             GAsyncResult *result,
                             GError      **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}

/* ---- events ------------------------------------------------------------- */

static void
control_group_cb (GObject      *source,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  g_autoptr(RcSlices) self = user_data;
  g_autoptr(GError) error = NULL;
  char *root = rc_systemd_get_control_group_finish (RC_SYSTEMD (source), result, &error);

  if (root == NULL)
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        g_message ("Slices: no ControlGroup from systemd: %s", error->message);
      return;
    }
  g_free (self->root);
  self->root = root;
  g_debug ("Slices: the manager's cgroup is %s", root);
  /* again after a daemon-reexec: only what differs from what was applied
   * is written */
  sync_all (self);
}

static void
systemd_appeared_cb (RcSystemd *systemd,
                     RcSlices  *self)
{
  rc_systemd_get_control_group_async (systemd, self->cancellable, control_group_cb,
                                      g_object_ref (self));
}

static void
rules_changed_cb (RcRules  *rules,
                  RcSlices *self)
{
  sync_all (self);
}

RcSlices *
rc_slices_new (RcSystemd      *systemd,
               RcRequestQueue *queue,
               RcRules        *rules)
{
  RcSlices *self = g_object_new (RC_TYPE_SLICES, NULL);

  self->systemd = g_object_ref (systemd);
  self->queue = g_object_ref (queue);
  self->rules = g_object_ref (rules);
  g_signal_connect_object (systemd, "appeared", G_CALLBACK (systemd_appeared_cb), self, 0);
  g_signal_connect_object (rules, "changed", G_CALLBACK (rules_changed_cb), self, 0);
  if (rc_systemd_is_present (systemd))
    systemd_appeared_cb (systemd, self);
  return self;
}

static void
rc_slices_dispose (GObject *object)
{
  RcSlices *self = RC_SLICES (object);

  g_cancellable_cancel (self->cancellable);
  G_OBJECT_CLASS (rc_slices_parent_class)->dispose (object);
}

static void
rc_slices_finalize (GObject *object)
{
  RcSlices *self = RC_SLICES (object);

  g_clear_object (&self->systemd);
  g_clear_object (&self->queue);
  g_clear_object (&self->rules);
  g_clear_object (&self->cancellable);
  g_free (self->root);
  G_OBJECT_CLASS (rc_slices_parent_class)->finalize (object);
}

static void
rc_slices_class_init (RcSlicesClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = rc_slices_dispose;
  G_OBJECT_CLASS (klass)->finalize = rc_slices_finalize;
}

static void
rc_slices_init (RcSlices *self)
{
  self->cancellable = g_cancellable_new ();
}
