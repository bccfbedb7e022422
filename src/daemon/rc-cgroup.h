/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The PSI files of a cgroup, in the order of RcCgroupStats' pressure. */
typedef enum {
  RC_PRESSURE_CPU, RC_PRESSURE_MEMORY, RC_PRESSURE_IO, RC_N_PRESSURES
} RcPressure;

/* What the kernel says about one app's cgroup, read when asked. Every
 * value the kernel reports as "max", or that cannot be read (a missing file,
 * a cgroup v1 or hybrid host), is G_MAXUINT64. */
typedef struct {
  guint64 cpu_weight;
  guint64 io_weight;
  guint32 cpu_quota;        /* percent of one CPU, 0 = no quota */
  guint64 memory_low;
  guint64 memory_high;
  guint64 memory_max;
  guint64 tasks_max;
  guint64 memory_min;
  guint64 memory_swap_max;
  guint64 memory_current;
  guint64 cpu_usage_nsec;
  guint64 cpu_throttled_usec; /* cpu.stat throttled_usec: time held back by CPUQuota */
  guint64 tasks_current;
  /* memory.events as an a{st}, a reference the reader of the usage hands
   * on (the limit readers leave it alone); NULL without the file. */
  GVariant *memory_events;
  /* it is one of a few kept for good (the text most apps share, all
   * counters 0): the same pointer stands for the same counters */
  gboolean memory_events_kept;
  /* PSI "some" avg10, percent; < 0 without the file (PSI off) */
  double pressure[RC_N_PRESSURES];
} RcCgroupStats;

const char *rc_cgroup_root (void);
char       *rc_cgroup_file_path (const char *control_group,
                                 const char *file);
gboolean    rc_cgroup_read_u64 (const char *control_group,
                                const char *file,
                                guint64    *out_value);
GArray     *rc_cgroup_read_pids (const char *control_group);
/* The stats and the pids (appended to @out_pids, guint32) of one cgroup,
 * from one open of its folder: what a record of ListApps needs. */
void        rc_cgroup_read_app (const char    *control_group,
                                RcCgroupStats *out_stats,
                                GArray        *out_pids);
/* Adds MemoryEvents and the three pressures of @stats that were read to
 * @vardict (an a{sv} builder), and drops @stats' memory_events. */
void        rc_cgroup_stats_add_reports (RcCgroupStats   *stats,
                                         GVariantBuilder *vardict);
/* memory.events of @control_group as an a{st} (a full reference), or NULL. */
GVariant   *rc_cgroup_read_memory_events (const char *control_group);
/* The limit fields of @out_stats, or the usage ones and the pids: each
 * file opened, read and closed. @reports: memory_events and pressure too
 * (else NULL and -1). */
void        rc_cgroup_read_limits (const char    *control_group,
                                   RcCgroupStats *out_stats);
void        rc_cgroup_read_usage (const char    *control_group,
                                  RcCgroupStats *out_stats,
                                  GArray        *out_pids,
                                  gboolean       reports);

/* An app's cgroup folder and the files of its usage, kept open: a read of
 * its usage is a pread per file, no open or close. Limits are read from
 * the folder when asked. NULL when the cgroup has no folder, or when
 * keeping it would use the open file limit but 256 (then read with the
 * functions above). */
typedef struct _RcCgroupHandle RcCgroupHandle;

RcCgroupHandle *rc_cgroup_handle_open (const char *control_group);
void        rc_cgroup_handle_free (RcCgroupHandle *handle);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RcCgroupHandle, rc_cgroup_handle_free);
/* The limit fields of @out_stats (cpu_weight … cpu_quota, io_weight). */
void        rc_cgroup_handle_read_limits (RcCgroupHandle *handle,
                                          RcCgroupStats  *out_stats);
/* memory_current, tasks_current, cpu_usage_nsec, cpu_throttled_usec,
 * the pids, and with @reports memory_events and pressure. */
void        rc_cgroup_handle_read_usage (RcCgroupHandle *handle,
                                         RcCgroupStats  *out_stats,
                                         GArray         *out_pids,
                                         gboolean        reports);
/* cpu.stat usage_usec, from @handle's file kept open, or (@handle NULL)
 * from @control_group's folder. */
gboolean    rc_cgroup_read_cpu_usage_usec (RcCgroupHandle *handle,
                                           const char     *control_group,
                                           guint64        *out_usec);
/* memory.current, likewise. */
gboolean    rc_cgroup_read_memory_current (RcCgroupHandle *handle,
                                           const char     *control_group,
                                           guint64        *out_bytes);
gboolean    rc_cgroup_has_controller (const char *control_group,
                                      const char *controller);
gboolean    rc_cgroup_is_delegated (const char *control_group,
                                    const char *controller);
gboolean    rc_cgroup_freeze_supported (void);
/* The kernel's "frozen 1" in cgroup.events. */
gboolean    rc_cgroup_is_frozen (const char *control_group);
gboolean    rc_cgroup_path_contains (const char *parent,
                                     const char *child);

/* cpu.max as percent of one CPU (0: no quota) and cpu.stat throttled_usec
 * (G_MAXUINT64 when unknown). FALSE when the folder cannot be read. */
gboolean    rc_cgroup_read_cpu_throttle (const char *control_group,
                                         guint32    *out_quota_percent,
                                         guint64    *out_throttled_usec);
/* How many times systemd-oomd started killing in the cgroup: the counter it
 * keeps in the folder's "user.oomd_ooms" extended attribute (0 without). */
guint64     rc_cgroup_read_oomd_kills (const char *control_group);
/* A PSI trigger on one of the cgroup's pressure files (@trigger as the
 * kernel takes it, "some 1000000 2000000"): an fd that polls G_IO_PRI each
 * time the stall passes the threshold within the window. It changes
 * nothing of the cgroup (a monitor, not a setting). -1 with @error when the
 * file is not a cgroup2 pressure file or the kernel refuses the trigger. */
/* The "some" total (usec) of @control_group's @pressure file;
 * G_MAXUINT64 when it cannot be read (no such cgroup, PSI off) or
 * @control_group is NULL. */
guint64     rc_cgroup_read_pressure_total (const char *control_group,
                                           RcPressure  pressure);
int         rc_cgroup_open_pressure_trigger (const char *control_group,
                                             RcPressure  pressure,
                                             const char *trigger,
                                             GError    **error);

/* Each app keeps its cgroup folder and usage files open: raises the soft
 * limit of open files to the hard one, at start. */
void        rc_cgroup_raise_fd_limit (void);

G_END_DECLS
