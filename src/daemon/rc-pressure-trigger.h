/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>

#include "rc-cgroup.h"

G_BEGIN_DECLS

/* One cgroup's pressure as the responsiveness guard and the memory ladder
 * watch it: a PSI trigger that wakes its owner when the cgroup stalls
 * (armed only where the kernel takes it: the owner decides what a refusal
 * means), and the "some" total between one look and the next. */
typedef struct _RcPressureTrigger RcPressureTrigger;

/* Told each time the trigger fires; it must not free the trigger. */
typedef void (*RcPressureStallFunc) (gpointer user_data);

/* Reads the total for the first look; armed by rc_pressure_trigger_arm.
 * @owner ("Guard") names the owner in the log. */
RcPressureTrigger *rc_pressure_trigger_new (const char         *control_group,
                                            RcPressure          pressure,
                                            const char         *owner,
                                            RcPressureStallFunc func,
                                            gpointer            user_data);
void               rc_pressure_trigger_free (RcPressureTrigger *self);
const char        *rc_pressure_trigger_get_control_group (RcPressureTrigger *self);
/* Disarms, then sets @trigger (as the kernel takes it, "some 200000
 * 2000000"). FALSE with @error, and disarmed, where the kernel refuses:
 * G_IO_ERROR_NOT_FOUND for a cgroup that is not (or no longer) there,
 * G_IO_ERROR_PERMISSION_DENIED for a file that is not the user's,
 * G_IO_ERROR_NOT_SUPPORTED off cgroup2, and the others as the kernel
 * says them. */
gboolean           rc_pressure_trigger_arm (RcPressureTrigger *self,
                                            const char        *trigger,
                                            GError           **error);
void               rc_pressure_trigger_disarm (RcPressureTrigger *self);
gboolean           rc_pressure_trigger_is_armed (RcPressureTrigger *self);
/* Reads the total now, the base of the next look, and returns the stall
 * share (percent) since the last look @elapsed_usec ago; 0 when either
 * total is unknown. @out_first (may be NULL): this total is the first
 * known one, the next look has a share. */
double             rc_pressure_trigger_look (RcPressureTrigger *self,
                                             gint64             elapsed_usec,
                                             gboolean          *out_first);
/* The last look read a total. */
gboolean           rc_pressure_trigger_has_total (RcPressureTrigger *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (RcPressureTrigger, rc_pressure_trigger_free)

G_END_DECLS
