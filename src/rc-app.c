/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "rc-app.h"
#include "rc-common.h"
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
  rc_cgroup_handle_free (app->cgroup);
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
set_string (char      **field,
            const char *value)
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

void
rc_app_forget_limits (RcApp *app)
{
  app->limits_known = FALSE;
}

void
rc_app_set_control_group (RcApp      *app,
                          const char *control_group)
{
  if (g_strcmp0 (app->control_group, control_group) == 0)
    return;
  set_string (&app->control_group, control_group);
  g_clear_pointer (&app->cgroup, rc_cgroup_handle_free);
  app->limits_known = FALSE;
}

/* Limits from the kept ones, or the folder; usage and pids from the files
 * kept open. Without a folder to keep (gone, or no fd left), all of it is
 * read from the cgroup's files, opened each time. */
static void
read_cgroup (RcApp         *app,
             RcCgroupStats *out_stats,
             GArray        *out_pids)
{
  if (app->cgroup == NULL)
    app->cgroup = rc_cgroup_handle_open (app->control_group);
  if (app->cgroup == NULL)
    {
      rc_cgroup_read_app (app->control_group, out_stats, out_pids);
      return;
    }
  if (!app->limits_known)
    {
      rc_cgroup_handle_read_limits (app->cgroup, &app->limits);
      app->limits_known = app->limits_settling == 0;
    }
  *out_stats = app->limits;
  rc_cgroup_handle_read_usage (app->cgroup, out_stats, out_pids);
}

/* The keys of a record, in the order docs/design.md lists them. */
enum {
  KEY_UNIT, KEY_APP_ID, KEY_LAUNCHER, KEY_NAME, KEY_ICON, KEY_DESKTOP_FILE, KEY_SLICE,
  KEY_ACTIVE_STATE, KEY_FREEZER_STATE, KEY_PIDS, KEY_CPU_WEIGHT, KEY_IO_WEIGHT, KEY_CPU_QUOTA,
  KEY_MEMORY_LOW, KEY_MEMORY_HIGH, KEY_MEMORY_MAX, KEY_TASKS_MAX, KEY_MEMORY_MIN,
  KEY_MEMORY_SWAP_MAX, KEY_MEMORY_CURRENT,
  KEY_CPU_USAGE_NSEC, KEY_TASKS_CURRENT,
  N_KEYS
};

/* The key strings, made once and shared by every record: a ListApps at
 * 1,000 apps has 20,000 entries. */
static GVariant * const *
record_keys (void)
{
  static const char * const names[N_KEYS] = {
    RC_KEY_UNIT, RC_KEY_APP_ID, RC_KEY_LAUNCHER, RC_KEY_NAME, RC_KEY_ICON, RC_KEY_DESKTOP_FILE, RC_KEY_SLICE, RC_KEY_ACTIVE_STATE,
    RC_KEY_FREEZER_STATE, RC_KEY_PIDS, RC_KEY_CPU_WEIGHT, RC_KEY_IO_WEIGHT, RC_KEY_CPU_QUOTA, RC_KEY_MEMORY_LOW, RC_KEY_MEMORY_HIGH,
    RC_KEY_MEMORY_MAX, RC_KEY_TASKS_MAX, RC_KEY_MEMORY_MIN, RC_KEY_MEMORY_SWAP_MAX, RC_KEY_MEMORY_CURRENT, RC_KEY_CPU_USAGE_NSEC, RC_KEY_TASKS_CURRENT,
  };
  static GVariant *keys[N_KEYS];
  static gsize made = 0;

  if (g_once_init_enter (&made))
    {
      for (guint i = 0; i < N_KEYS; i++)
        keys[i] = g_variant_ref_sink (g_variant_new_string (names[i]));
      g_once_init_leave (&made, 1);
    }
  return keys;
}

/* g_variant_new_string refuses a string that is not UTF-8, and a D-Bus
 * message must not carry one: the desktop file's path, from the file
 * system, may be any bytes. */
static GVariant *
new_utf8_string (const char *value)
{
  g_autofree char *valid = NULL;

  if (G_LIKELY (g_utf8_validate (value, -1, NULL)))
    return g_variant_new_string (value);
  valid = g_utf8_make_valid (value, -1);
  return g_variant_new_string (valid);
}

/* The record is built from its parts, not with g_variant_builder_add
 * ("{sv}", ...), which parses the format string of every entry: that
 * was most of the cost of a ListApps. */
GVariant *
rc_app_to_variant (RcApp *app)
{
  GVariant * const *keys = record_keys ();
  g_autoptr(GArray) pids = g_array_sized_new (FALSE, FALSE, sizeof (guint32), 8);
  GVariant *values[N_KEYS];
  GVariant *entries[N_KEYS];
  RcCgroupStats stats;

  read_cgroup (app, &stats, pids);

  values[KEY_UNIT] = new_utf8_string (app->unit);
  values[KEY_APP_ID] = new_utf8_string (app->app_id);
  values[KEY_LAUNCHER] = new_utf8_string (app->launcher);
  values[KEY_NAME] = new_utf8_string (app->name);
  values[KEY_ICON] = new_utf8_string (app->icon);
  values[KEY_DESKTOP_FILE] = new_utf8_string (app->desktop_file);
  values[KEY_SLICE] = new_utf8_string (app->slice);
  values[KEY_ACTIVE_STATE] = new_utf8_string (app->active_state);
  values[KEY_FREEZER_STATE] = new_utf8_string (app->freezer_state);
  values[KEY_PIDS] = g_variant_new_fixed_array (G_VARIANT_TYPE_UINT32, pids->data, pids->len,
                                                sizeof (guint32));
  values[KEY_CPU_WEIGHT] = g_variant_new_uint64 (stats.cpu_weight);
  values[KEY_IO_WEIGHT] = g_variant_new_uint64 (stats.io_weight);
  values[KEY_CPU_QUOTA] = g_variant_new_uint32 (stats.cpu_quota);
  values[KEY_MEMORY_LOW] = g_variant_new_uint64 (stats.memory_low);
  values[KEY_MEMORY_HIGH] = g_variant_new_uint64 (stats.memory_high);
  values[KEY_MEMORY_MAX] = g_variant_new_uint64 (stats.memory_max);
  values[KEY_TASKS_MAX] = g_variant_new_uint64 (stats.tasks_max);
  values[KEY_MEMORY_MIN] = g_variant_new_uint64 (stats.memory_min);
  values[KEY_MEMORY_SWAP_MAX] = g_variant_new_uint64 (stats.memory_swap_max);
  values[KEY_MEMORY_CURRENT] = g_variant_new_uint64 (stats.memory_current);
  values[KEY_CPU_USAGE_NSEC] = g_variant_new_uint64 (stats.cpu_usage_nsec);
  values[KEY_TASKS_CURRENT] = g_variant_new_uint64 (stats.tasks_current);

  for (guint i = 0; i < N_KEYS; i++)
    entries[i] = g_variant_new_dict_entry (keys[i], g_variant_new_variant (values[i]));
  return g_variant_new_array (G_VARIANT_TYPE ("{sv}"), entries, N_KEYS);
}
