/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "rc-app.h"
#include "rc-cgroup.h"

#include <gio/gdesktopappinfo.h>
#include <string.h>

static void
rc_app_free (RcApp *app)
{
  g_free (app->unit);
  g_free (app->object_path);
  g_free (app->app_id);
  g_free (app->launcher);
  g_free (app->name);
  g_free (app->icon);
  g_free (app->desktop_file);
  g_free (app->slice);
  g_free (app->control_group);
  g_free (app->active_state);
  g_free (app->freezer_state);
}

RcApp *
rc_app_new (const char *unit,
            const char *object_path,
            const char *app_id,
            const char *launcher)
{
  RcApp *app = g_rc_box_new0 (RcApp);

  app->unit = g_strdup (unit);
  app->object_path = g_strdup (object_path);
  app->app_id = g_strdup (app_id);
  app->launcher = g_strdup (launcher);
  app->name = g_strdup (app_id);
  app->icon = g_strdup ("");
  app->desktop_file = g_strdup ("");
  app->slice = g_strdup ("");
  app->control_group = g_strdup ("");
  app->active_state = g_strdup ("");
  app->freezer_state = g_strdup ("running");
  return app;
}

RcApp *
rc_app_ref (RcApp *app)
{
  return g_rc_box_acquire (app);
}

void
rc_app_unref (RcApp *app)
{
  if (app != NULL)
    g_rc_box_release_full (app, (GDestroyNotify) rc_app_free);
}

static void
set_string (char       **field,
            const char  *value)
{
  g_free (*field);
  *field = g_strdup (value != NULL ? value : "");
}

/* Name and Icon come from the desktop file, found by GDesktopAppInfo (which
 * keeps its own index of the XDG data folders). A unit whose SourcePath is a
 * .desktop file names it directly, and that wins over the parsed AppID. */
void
rc_app_load_desktop_info (RcApp      *app,
                          const char *source_path)
{
  g_autoptr(GDesktopAppInfo) info = NULL;
  g_autofree char *desktop_id = NULL;
  GIcon *icon;

  if (source_path != NULL && g_str_has_suffix (source_path, ".desktop"))
    {
      g_autofree char *base = g_path_get_basename (source_path);

      base[strlen (base) - strlen (".desktop")] = '\0';
      if (*base != '\0')
        set_string (&app->app_id, base);
      info = g_desktop_app_info_new_from_filename (source_path);
    }
  if (info == NULL)
    {
      desktop_id = g_strconcat (app->app_id, ".desktop", NULL);
      info = g_desktop_app_info_new (desktop_id);
    }
  if (info == NULL)
    {
      set_string (&app->name, app->app_id);
      return;
    }

  set_string (&app->name, g_app_info_get_name (G_APP_INFO (info)));
  set_string (&app->desktop_file, g_desktop_app_info_get_filename (info));
  icon = g_app_info_get_icon (G_APP_INFO (info));
  if (icon != NULL)
    {
      g_autofree char *icon_name = g_icon_to_string (icon);
      set_string (&app->icon, icon_name);
    }
}

/* app.slice, background.slice and their children (systemd names a child of
 * a.slice "a-<something>.slice"). */
gboolean
rc_app_is_controllable_slice (const char *slice)
{
  static const char * const roots[] = { "app", "background" };

  if (slice == NULL)
    return FALSE;
  for (guint i = 0; i < G_N_ELEMENTS (roots); i++)
    {
      gsize len = strlen (roots[i]);

      if (strncmp (slice, roots[i], len) != 0 || !g_str_has_suffix (slice, ".slice"))
        continue;
      if (strcmp (slice + len, ".slice") == 0 ||
          (slice[len] == '-' && strlen (slice + len) > strlen ("-.slice")))
        return TRUE;
    }
  return FALSE;
}

GVariant *
rc_app_to_variant (RcApp *app)
{
  g_auto(GVariantBuilder) builder = G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE_VARDICT);
  g_autoptr(GArray) pids = rc_cgroup_read_pids (app->control_group);
  RcCgroupStats stats;

  rc_cgroup_read_stats (app->control_group, &stats);

  g_variant_builder_add (&builder, "{sv}", "Unit", g_variant_new_string (app->unit));
  g_variant_builder_add (&builder, "{sv}", "AppId", g_variant_new_string (app->app_id));
  g_variant_builder_add (&builder, "{sv}", "Launcher", g_variant_new_string (app->launcher));
  g_variant_builder_add (&builder, "{sv}", "Name", g_variant_new_string (app->name));
  g_variant_builder_add (&builder, "{sv}", "Icon", g_variant_new_string (app->icon));
  g_variant_builder_add (&builder, "{sv}", "DesktopFile", g_variant_new_string (app->desktop_file));
  g_variant_builder_add (&builder, "{sv}", "Slice", g_variant_new_string (app->slice));
  g_variant_builder_add (&builder, "{sv}", "ActiveState", g_variant_new_string (app->active_state));
  g_variant_builder_add (&builder, "{sv}", "FreezerState", g_variant_new_string (app->freezer_state));
  g_variant_builder_add (&builder, "{sv}", "Pids",
                         g_variant_new_fixed_array (G_VARIANT_TYPE_UINT32, pids->data,
                                                    pids->len, sizeof (guint32)));
  g_variant_builder_add (&builder, "{sv}", "CPUWeight", g_variant_new_uint64 (stats.cpu_weight));
  g_variant_builder_add (&builder, "{sv}", "IOWeight", g_variant_new_uint64 (stats.io_weight));
  g_variant_builder_add (&builder, "{sv}", "CPUQuota", g_variant_new_uint32 (stats.cpu_quota));
  g_variant_builder_add (&builder, "{sv}", "MemoryLow", g_variant_new_uint64 (stats.memory_low));
  g_variant_builder_add (&builder, "{sv}", "MemoryHigh", g_variant_new_uint64 (stats.memory_high));
  g_variant_builder_add (&builder, "{sv}", "MemoryMax", g_variant_new_uint64 (stats.memory_max));
  g_variant_builder_add (&builder, "{sv}", "TasksMax", g_variant_new_uint64 (stats.tasks_max));
  g_variant_builder_add (&builder, "{sv}", "MemoryCurrent", g_variant_new_uint64 (stats.memory_current));
  g_variant_builder_add (&builder, "{sv}", "CPUUsageNSec", g_variant_new_uint64 (stats.cpu_usage_nsec));
  g_variant_builder_add (&builder, "{sv}", "TasksCurrent", g_variant_new_uint64 (stats.tasks_current));
  return g_variant_builder_end (&builder);
}
