/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <gio/gio.h>

#include "rc-app.h"
#include "rc-systemd.h"

G_BEGIN_DECLS

/* The app registry: the set of running app instances, kept current from
 * the unit tracker (rc-unit-tracker.h), which follows systemd's signals and
 * never polls. It knows nothing of the D-Bus API it feeds.
 *
 * Signals:
 *   "ready" ()                          the first full listing is done
 *   "app-added" (RcApp*)                an app instance became active
 *   "app-removed" (RcApp*)              it stopped
 *   "app-changed" (RcApp*, GVariant*)   a{sv}: its FreezerState changed,
 *                                       or what rc_registry_app_changed () says
 *   "limits-changed" (RcApp*)           systemd applied new settings to its
 *                                       cgroup (ours or anybody's)
 *
 * It is the only writer of an app's freezer state, which it learns from
 * systemd: the units' PropertiesChanged, and the answers to FreezeUnit and
 * ThawUnit (RcSystemd's "freezer-reached"), whoever asked. */
#define RC_TYPE_REGISTRY (rc_registry_get_type ())
G_DECLARE_FINAL_TYPE (RcRegistry, rc_registry, RC, REGISTRY, GObject);

RcRegistry *rc_registry_new (RcSystemd *systemd);
/* Has the first full listing been read ("ready" was emitted)? */
gboolean    rc_registry_is_ready (RcRegistry *self);

/* Emits "app-changed" for @app with @changed (an a{sv}, may be floating):
 * for the watchers of what systemd does not signal (memory.events). */
void        rc_registry_app_changed (RcRegistry *self,
                                     RcApp      *app,
                                     GVariant   *changed);

/* Every app instance, sorted by unit name. */
GPtrArray  *rc_registry_get_apps (RcRegistry *self);
RcApp      *rc_registry_lookup_unit (RcRegistry *self,
                                     const char *unit);

/* The running app whose cgroup is @cgroup or holds it, or NULL. */
RcApp      *rc_registry_lookup_cgroup (RcRegistry *self,
                                       const char *cgroup);
/* The running app process @pid is in, from its cgroup (no systemd round
 * trip): the unit libsystemd names, else the app whose cgroup holds the
 * process's (a unit known by an alias, a cgroup below the unit's). NULL for
 * a process in no listed app, or gone. */
RcApp      *rc_registry_lookup_pid (RcRegistry *self,
                                    guint32     pid);
/* The same, with NoSuchApp saying why there is none: no such process, one
 * of another user, or one in no app. */
RcApp      *rc_registry_find_pid (RcRegistry *self,
                                  guint32     pid,
                                  GError    **error);

/* Resolves @app (a unit name or an AppID) to its running instances.
 * Errors: InvalidArgument (neither a unit name nor an AppID), NoSuchApp (no
 * running instance), and with @for_control, Protected (an existing unit that
 * is not an app, or an app outside app.slice and background.slice). */
void        rc_registry_resolve_async (RcRegistry         *self,
                                       const char         *app,
                                       gboolean            for_control,
                                       GCancellable       *cancellable,
                                       GAsyncReadyCallback callback,
                                       gpointer            user_data);
GPtrArray  *rc_registry_resolve_finish (RcRegistry   *self,
                                        GAsyncResult *result,
                                        GError      **error);

G_END_DECLS
