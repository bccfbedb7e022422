/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "rc-pressure-trigger.h"
#include "rc-pressure.h"

#include <glib-unix.h>
#include <unistd.h>

struct _RcPressureTrigger {
  char               *control_group;
  RcPressure          pressure;
  const char         *owner;
  RcPressureStallFunc func;
  gpointer            user_data;
  int                 fd;          /* the trigger; -1: none */
  guint               source_id;
  guint64             total;       /* "some" total at the last look; G_MAXUINT64 unknown */
};

/* the resource a pressure file is about, for the log */
static const char * const resources[RC_N_PRESSURES] = {
  [RC_PRESSURE_CPU] = "CPU",
  [RC_PRESSURE_MEMORY] = "memory",
  [RC_PRESSURE_IO] = "IO",
};

RcPressureTrigger *
rc_pressure_trigger_new (const char         *control_group,
                         RcPressure          pressure,
                         const char         *owner,
                         RcPressureStallFunc func,
                         gpointer            user_data)
{
  RcPressureTrigger *self;

  g_return_val_if_fail (pressure < RC_N_PRESSURES, NULL);
  self = g_new0 (RcPressureTrigger, 1);
  self->control_group = g_strdup (control_group);
  self->pressure = pressure;
  self->owner = owner;
  self->func = func;
  self->user_data = user_data;
  self->fd = -1;
  self->total = rc_cgroup_read_pressure_total (control_group, pressure);
  return self;
}

void
rc_pressure_trigger_free (RcPressureTrigger *self)
{
  if (self == NULL)
    return;
  rc_pressure_trigger_disarm (self);
  g_free (self->control_group);
  g_free (self);
}

const char *
rc_pressure_trigger_get_control_group (RcPressureTrigger *self)
{
  return self->control_group;
}

static gboolean
stall_cb (int          fd,
          GIOCondition condition,
          gpointer     user_data)
{
  RcPressureTrigger *self = user_data;

  if (condition & (G_IO_ERR | G_IO_HUP | G_IO_NVAL))
    {
      /* the cgroup is gone: its removal follows */
      self->source_id = 0;
      return G_SOURCE_REMOVE;
    }
  g_debug ("%s: %s is short of %s", self->owner, self->control_group, resources[self->pressure]);
  self->func (self->user_data);
  return G_SOURCE_CONTINUE;
}

gboolean
rc_pressure_trigger_arm (RcPressureTrigger *self,
                         const char        *trigger,
                         GError           **error)
{
  rc_pressure_trigger_disarm (self);
  self->fd = rc_cgroup_open_pressure_trigger (self->control_group, self->pressure, trigger,
                                              error);
  if (self->fd < 0)
    return FALSE;
  self->source_id = g_unix_fd_add (self->fd, G_IO_PRI | G_IO_ERR, stall_cb, self);
  return TRUE;
}

void
rc_pressure_trigger_disarm (RcPressureTrigger *self)
{
  g_clear_handle_id (&self->source_id, g_source_remove);
  if (self->fd >= 0)
    close (self->fd);
  self->fd = -1;
}

gboolean
rc_pressure_trigger_is_armed (RcPressureTrigger *self)
{
  return self->fd >= 0;
}

double
rc_pressure_trigger_look (RcPressureTrigger *self,
                          gint64             elapsed_usec,
                          gboolean          *out_first)
{
  guint64 total = rc_cgroup_read_pressure_total (self->control_group, self->pressure);
  double share = 0;

  if (total != G_MAXUINT64 && self->total != G_MAXUINT64)
    share = rc_pressure_percent (self->total, total, elapsed_usec);
  if (out_first != NULL)
    *out_first = total != G_MAXUINT64 && self->total == G_MAXUINT64;
  self->total = total;
  return share;
}

gboolean
rc_pressure_trigger_has_total (RcPressureTrigger *self)
{
  return self->total != G_MAXUINT64;
}
