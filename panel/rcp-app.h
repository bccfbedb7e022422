/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* Number of CPU samples an app keeps for its history graph (2 s apart). */
#define RCP_APP_HISTORY 30

/* One desktop app as the panel shows it: every running instance (unit) of
 * one AppID, with the daemon's record of each, and the CPU use computed
 * from CPUUsageNSec between two refreshes. Emits "changed" whenever
 * anything it shows changed. */
#define RCP_TYPE_APP (rcp_app_get_type ())
G_DECLARE_FINAL_TYPE (RcpApp, rcp_app, RCP, APP, GObject);

RcpApp      *rcp_app_new (const char *app_id);

const char  *rcp_app_get_app_id (RcpApp *self);
const char  *rcp_app_get_name (RcpApp *self);
const char  *rcp_app_get_icon (RcpApp *self);
guint        rcp_app_get_n_instances (RcpApp *self);
/* The first instance's unit name (sorted), or NULL. */
const char  *rcp_app_get_first_unit (RcpApp *self);

/* Limit and usage keys: from the first instance, except the usage keys
 * (MemoryCurrent, TasksCurrent), which are summed over all instances. */
guint64      rcp_app_get_uint64 (RcpApp     *self,
                                 const char *key,
                                 guint64     fallback);
guint64      rcp_app_get_memory_current (RcpApp *self);
guint32      rcp_app_get_cpu_quota (RcpApp *self);
/* TRUE when every instance is frozen (or freezing). */
gboolean     rcp_app_get_frozen (RcpApp *self);
/* Some instance plays or records sound (its record's Audio key). */
gboolean     rcp_app_get_audio (RcpApp *self);
/* The last CPU use in percent of one CPU, or -1 before two samples. */
double       rcp_app_get_cpu_percent (RcpApp *self);
/* @out_len samples, oldest first; -1 for "no sample". */
const double *rcp_app_get_history (RcpApp *self,
                                   guint  *out_len);

/* What the limits do (the records' MemoryEvents, CPUThrottledUSec and
 * pressure keys). An app is held back while, within the last
 * RCP_APP_HELD_USEC, a sample saw its memory.events "high" or "max"
 * counters or its CPUThrottledUSec rise, or while some pressure (PSI
 * "some" avg10) is at least RCP_APP_PRESSURE_NOTABLE percent. */
#define RCP_APP_HELD_USEC (10 * G_USEC_PER_SEC)
#define RCP_APP_PRESSURE_NOTABLE 10.0

typedef enum
{
  RCP_HELD_NONE     = 0,
  RCP_HELD_MEMORY   = 1 << 0,  /* memory.events high or max rose */
  RCP_HELD_CPU      = 1 << 1,  /* CPUThrottledUSec rose */
  RCP_HELD_PRESSURE = 1 << 2,  /* some pressure at or above the threshold */
} RcpHeld;

/* A memory.events counter summed over the instances; FALSE when no
 * instance reports MemoryEvents (the kernel has no such file). */
gboolean     rcp_app_get_memory_event (RcpApp     *self,
                                       const char *name,
                                       guint64    *out_value);
/* CPUPressure, MemoryPressure or IOPressure: the highest of the
 * instances; FALSE when no instance has the key. */
gboolean     rcp_app_get_pressure (RcpApp     *self,
                                   const char *key,
                                   double     *out_percent);
/* As of the last rcp_app_sample (). */
RcpHeld      rcp_app_get_held (RcpApp *self);
/* Slowed down by its memory limit: "high" or "max" rose lately, or they
 * are non-zero and the memory pressure is notable. */
gboolean     rcp_app_get_memory_limited (RcpApp *self);

/* A full record (ListAppRecords, GetApp, AppAdded) of one instance. */
void         rcp_app_update_instance (RcpApp   *self,
                                      GVariant *record);
/* AppChanged: the keys that changed. Returns FALSE if @unit is unknown. */
gboolean     rcp_app_apply_changes (RcpApp     *self,
                                    const char *unit,
                                    GVariant   *changed);
/* Returns TRUE if @unit was one of this app's instances. */
gboolean     rcp_app_remove_instance (RcpApp     *self,
                                      const char *unit);
gboolean     rcp_app_has_instance (RcpApp     *self,
                                   const char *unit);
/* Drops every instance not in @units (a set of unit names). */
void         rcp_app_retain_instances (RcpApp     *self,
                                       GHashTable *units);
/* Takes a CPU sample and one of what the limits do: call once per refresh, after the records of every
 * instance were updated. @now_usec is g_get_monotonic_time (). */
void         rcp_app_sample (RcpApp *self,
                             gint64  now_usec);

G_END_DECLS
