/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <gio/gio.h>

#include "rc-cgroup.h"
#include "rc-desktop-lookup.h"

G_BEGIN_DECLS

/* The limit fields of RcCgroupStats, which an app keeps between records:
 * the whole RcCgroupStats, usage and reports included, was twice the
 * size, kept for every app. */
typedef struct {
  guint64 cpu_weight;
  guint64 io_weight;
  guint64 memory_low;
  guint64 memory_high;
  guint64 memory_max;
  guint64 tasks_max;
  guint64 memory_min;
  guint64 memory_swap_max;
  guint32 cpu_quota;
} RcAppLimits;

/* One running app instance: what the registry learnt from systemd and the
 * desktop file. Usage is read from the cgroup whenever a record is made
 * (rc_app_to_variant), from files kept open. Limits are read once and
 * kept until the registry hears that systemd may have changed them
 * (rc_app_forget_limits): systemd writes every change of a unit's settings
 * as a drop-in and re-reads them all at a reload. */
typedef struct {
  /* shared with the unit tracker and the watches: rc_shared_string */
  char *unit;
  char *object_path;
  char *control_group;
  /* Interned (g_intern_string): shared by every instance of an app, and by
   * every app in a slice or state. Set with rc_app_set(). */
  const char *app_id;
  const char *launcher;
  const char *name;
  const char *icon;
  const char *desktop_file;
  const char *slice;
  const char *active_state;
  const char *freezer_state;

  gboolean audio;               /* held for audio (set by the policy) */
  gboolean foreground;          /* it has the focus (set by the policy) */
  /* the energy ledger's figures, in records only while it has a source */
  gboolean        energy_known;
  guint64         energy_uj;    /* since it started */
  double          power_w;      /* over the last interval */
  RcCgroupHandle *cgroup;       /* NULL until the first record, or without a folder */
  RcAppLimits     limits;       /* when limits_known */
  gboolean        limits_known;
  guint           limits_settling;  /* changes systemd may not have applied yet: read, not kept */
} RcApp;

RcApp    *rc_app_new (const char *unit,
                      const char *object_path,
                      const char *app_id,
                      const char *launcher);
RcApp    *rc_app_ref (RcApp *app);
void      rc_app_unref (RcApp *app);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RcApp, rc_app_unref);

/* Name, Icon and DesktopFile from the desktop file: @source_path (the
 * unit's SourcePath, may be NULL) when it is one, else the AppID's, read by
 * the file reader (bounded in size and time). The AppID from @source_path
 * is set at once, Name, Icon and DesktopFile in _finish (the AppID as Name
 * when the read failed or was given up). FALSE only when cancelled. */
void      rc_app_describe_async (RcApp              *app,
                                 const char         *source_path,
                                 GCancellable       *cancellable,
                                 GAsyncReadyCallback callback,
                                 gpointer            user_data);
gboolean  rc_app_describe_finish (RcApp        *app,
                                  GAsyncResult *result,
                                  GError      **error);
/* Name, Icon and DesktopFile from @entry (NULL: none, Name is the AppID). */
void      rc_app_apply_desktop_entry (RcApp                *app,
                                      const RcDesktopEntry *entry);
gboolean  rc_app_is_controllable_slice (const char *slice);
GVariant *rc_app_to_variant (RcApp *app);
/* @reports: the records with what the limits do (GetApp, ListAppRecords),
 * or without (ListApps). */
GVariant *rc_app_list_to_variant (GPtrArray *apps,
                                  gboolean   reports);
void      rc_app_forget_limits (RcApp *app);
/* Sets one of the interned fields, e.g. rc_app_set (app, &app->slice, "app.slice"). */
void      rc_app_set (RcApp       *app,
                      const char **field,
                      const char  *value);
/* cpu.stat usage_usec of its cgroup, from the files kept open. */
gboolean  rc_app_read_cpu_usage (RcApp   *app,
                                 guint64 *out_usec);
/* memory.current of its cgroup, likewise. */
gboolean  rc_app_read_memory_current (RcApp   *app,
                                      guint64 *out_bytes);
/* A new ControlGroup: forgets the cgroup kept open and its limits. */
void      rc_app_set_control_group (RcApp      *app,
                                    const char *control_group);

G_END_DECLS
