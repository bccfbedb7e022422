/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* One running app instance: what the registry learnt from systemd and the
 * desktop file. Limits and usage are not stored: they are read from the
 * cgroup when a client asks (rc_app_to_variant), so they never go stale. */
typedef struct {
  char *unit;
  char *object_path;
  char *app_id;
  char *launcher;
  char *name;
  char *icon;
  char *desktop_file;
  char *slice;
  char *control_group;
  char *active_state;
  char *freezer_state;
} RcApp;

RcApp    *rc_app_new (const char *unit,
                      const char *object_path,
                      const char *app_id,
                      const char *launcher);
RcApp    *rc_app_ref (RcApp *app);
void      rc_app_unref (RcApp *app);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RcApp, rc_app_unref);

void      rc_app_load_desktop_info (RcApp      *app,
                                    const char *source_path);
gboolean  rc_app_is_controllable_slice (const char *slice);
GVariant *rc_app_to_variant (RcApp *app);

G_END_DECLS
