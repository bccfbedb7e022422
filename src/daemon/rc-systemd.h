/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <gio/gio.h>
#include <gio/gunixfdlist.h>

G_BEGIN_DECLS

/* The systemd client: every call the daemon makes to the user's service
 * manager, asynchronous, with a timeout and without auto-starting anything.
 * It knows nothing of apps or of our D-Bus API.
 *
 * Signals:
 *   "appeared" ()                 systemd (re)gained its bus name
 *   "vanished" ()                 systemd lost it (daemon-reexec, exit), or
 *                                 was not there when the watch started
 *   "unit-new" (s id, s path)     UnitNew, after Subscribe
 *   "unit-removed" (s id, s path) UnitRemoved
 *   "unit-changed" (s path, a{sv} changed)
 *                                 PropertiesChanged of org.freedesktop.systemd1.Unit
 *                                 on any unit object
 *   "freezer-reached" (s unit, s state)
 *                                 FreezeUnit or ThawUnit succeeded: the unit is
 *                                 "frozen" or "running", emitted before the call's
 *                                 callback runs
 *   "settings-applied" (s unit)   SetUnitProperties answered (done or refused):
 *                                 the unit's cgroup may hold new values,
 *                                 emitted before the call's callback runs
 *   "reloaded" ()                 Reloading(false) or StartupFinished: systemd
 *                                 applied every unit's settings anew (a
 *                                 daemon-reload, or the end of its start-up,
 *                                 when StartupCPUWeight= and the like end)
 *   "start-ended" (s unit)        a start of ours (rc_systemd_start_transient_
 *                                 unit_async) is over, however it ended
 *
 * Errors: systemd's NoSuchUnit/LoadFailed become RC_ERROR_NO_SUCH_APP, any
 * other failure RC_ERROR_FAILED with systemd's own message. */
#define RC_TYPE_SYSTEMD (rc_systemd_get_type ())
G_DECLARE_FINAL_TYPE (RcSystemd, rc_systemd, RC, SYSTEMD, GObject);

RcSystemd       *rc_systemd_new (GDBusConnection *connection);
gboolean         rc_systemd_is_present (RcSystemd *self);
/* We asked systemd to start @unit, and the start is not over yet. */
gboolean         rc_systemd_is_starting (RcSystemd  *self,
                                         const char *unit);
/* systemd's object path of @unit (NULL if the name cannot be one). */
char            *rc_systemd_unit_path (const char *unit);

void      rc_systemd_subscribe_async (RcSystemd          *self,
                                      GCancellable       *cancellable,
                                      GAsyncReadyCallback callback,
                                      gpointer            user_data);
gboolean  rc_systemd_subscribe_finish (RcSystemd    *self,
                                       GAsyncResult *result,
                                       GError      **error);

/* Returns the ListUnitsByPatterns reply body, a(ssssssouso). */
void      rc_systemd_list_units_async (RcSystemd          *self,
                                       const char * const *states,
                                       const char * const *patterns,
                                       GCancellable       *cancellable,
                                       GAsyncReadyCallback callback,
                                       gpointer            user_data);
GVariant *rc_systemd_list_units_finish (RcSystemd    *self,
                                        GAsyncResult *result,
                                        GError      **error);

/* GetAll of org.freedesktop.systemd1.Unit, keeping the properties named in
 * @keys (a static array; NULL: no GetAll, which makes systemd compute about
 * 100 properties), merged with a Get of each of @type_keys on
 * @type_interface (…Unit, …Scope or …Service; NULL for none): one a{sv}. */
void      rc_systemd_get_unit_properties_async (RcSystemd          *self,
                                                const char         *object_path,
                                                const char         *type_interface,
                                                const char * const *type_keys,
                                                const char * const *keys,
                                                GCancellable       *cancellable,
                                                GAsyncReadyCallback callback,
                                                gpointer            user_data);
GVariant *rc_systemd_get_unit_properties_finish (RcSystemd    *self,
                                                 GAsyncResult *result,
                                                 GError      **error);

/* Returns the unit's object path; RC_ERROR_NO_SUCH_APP when not loaded. */
void      rc_systemd_get_unit_async (RcSystemd          *self,
                                     const char         *unit,
                                     GCancellable       *cancellable,
                                     GAsyncReadyCallback callback,
                                     gpointer            user_data);
char     *rc_systemd_get_unit_finish (RcSystemd    *self,
                                      GAsyncResult *result,
                                      GError      **error);

/* @properties is a floating or owned a(sv); applied with runtime=true. */
void      rc_systemd_set_unit_properties_async (RcSystemd          *self,
                                                const char         *unit,
                                                GVariant           *properties,
                                                GCancellable       *cancellable,
                                                GAsyncReadyCallback callback,
                                                gpointer            user_data);
gboolean  rc_systemd_set_unit_properties_finish (RcSystemd    *self,
                                                 GAsyncResult *result,
                                                 GError      **error);

/* FreezeUnit or ThawUnit; systemd replies once the cgroup reached the state. */
void      rc_systemd_freeze_unit_async (RcSystemd          *self,
                                        const char         *unit,
                                        gboolean            freeze,
                                        GCancellable       *cancellable,
                                        GAsyncReadyCallback callback,
                                        gpointer            user_data);
gboolean  rc_systemd_freeze_unit_finish (RcSystemd    *self,
                                         GAsyncResult *result,
                                         GError      **error);

/* StartTransientUnit(@unit, "fail", @properties, []) and then waits for
 * the job: returns once systemd's JobRemoved says it is "done" (the unit is
 * active); any other job result is RC_ERROR_FAILED naming it. @properties
 * is a floating or owned a(sv); its "h" values index @fds (NULL: none). */
void      rc_systemd_start_transient_unit_async (RcSystemd          *self,
                                                 const char         *unit,
                                                 GVariant           *properties,
                                                 GUnixFDList        *fds,
                                                 GCancellable       *cancellable,
                                                 GAsyncReadyCallback callback,
                                                 gpointer            user_data);
gboolean  rc_systemd_start_transient_unit_finish (RcSystemd    *self,
                                                  GAsyncResult *result,
                                                  GError      **error);

/* AttachProcessesToUnit(@unit, "", @pids): moves more processes into a
 * running unit. @pids is a floating or owned au. */
void      rc_systemd_attach_processes_async (RcSystemd          *self,
                                             const char         *unit,
                                             GVariant           *pids,
                                             GCancellable       *cancellable,
                                             GAsyncReadyCallback callback,
                                             gpointer            user_data);
gboolean  rc_systemd_attach_processes_finish (RcSystemd    *self,
                                              GAsyncResult *result,
                                              GError      **error);

/* The manager's own cgroup (its ControlGroup property), where its slices are. */
void      rc_systemd_get_control_group_async (RcSystemd          *self,
                                              GCancellable       *cancellable,
                                              GAsyncReadyCallback callback,
                                              gpointer            user_data);
char     *rc_systemd_get_control_group_finish (RcSystemd    *self,
                                               GAsyncResult *result,
                                               GError      **error);

void      rc_systemd_get_default_tasks_max_async (RcSystemd          *self,
                                                  GCancellable       *cancellable,
                                                  GAsyncReadyCallback callback,
                                                  gpointer            user_data);
gboolean  rc_systemd_get_default_tasks_max_finish (RcSystemd    *self,
                                                   GAsyncResult *result,
                                                   guint64      *out_value,
                                                   GError      **error);

G_END_DECLS
