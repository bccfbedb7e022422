/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "rc-desktop-lookup.h"
#include "rc-safe-file.h"

#include <string.h>
#include <sys/stat.h>

/* Subfolders below an applications folder that are looked into: links may
 * make a loop, and every level costs a directory read. */
#define MAX_DEPTH 8
#define MAX_DIRS  256

GStrv
rc_desktop_dirs (void)
{
  const char * const *system = g_get_system_data_dirs ();
  GPtrArray *dirs = g_ptr_array_new ();

  g_ptr_array_add (dirs, g_build_filename (g_get_user_data_dir (), "applications", NULL));
  for (guint i = 0; system[i] != NULL; i++)
    g_ptr_array_add (dirs, g_build_filename (system[i], "applications", NULL));
  g_ptr_array_add (dirs, NULL);
  return (GStrv) g_ptr_array_free (dirs, FALSE);
}

void
rc_desktop_entry_free (RcDesktopEntry *entry)
{
  if (entry == NULL)
    return;
  g_free (entry->path);
  g_free (entry->name);
  g_free (entry->icon);
  g_free (entry->exec);
  g_free (entry->executable);
  g_free (entry->try_exec);
  g_free (entry);
}

static gboolean
not_an_app (const char *path,
            const char *why,
            GError    **error)
{
  g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_NOENT, "%s is not an app here: %s", path, why);
  return FALSE;
}

/* GIO shows "name.png" of a theme as "name", a path as it is. */
static char *
icon_name (const char *icon)
{
  static const char * const extensions[] = { ".png", ".xpm", ".svg" };

  if (icon == NULL || *icon == '\0')
    return NULL;
  if (!g_path_is_absolute (icon))
    for (guint i = 0; i < G_N_ELEMENTS (extensions); i++)
      if (g_str_has_suffix (icon, extensions[i]))
        return g_strndup (icon, strlen (icon) - strlen (extensions[i]));
  return g_strdup (icon);
}

static char *
first_word (const char *exec)
{
  g_auto(GStrv) words = NULL;

  if (exec == NULL || !g_shell_parse_argv (exec, NULL, &words, NULL))
    return NULL;
  return g_strdup (words[0]);
}

static gboolean
read_entry (GKeyFile       *file,
            RcDesktopEntry *entry,
            GError        **error)
{
  const char *group = G_KEY_FILE_DESKTOP_GROUP;
  g_autofree char *start = g_key_file_get_start_group (file);
  g_autofree char *type = NULL;

  if (g_strcmp0 (start, group) != 0)
    return not_an_app (entry->path, "it does not begin with [Desktop Entry]", error);
  type = g_key_file_get_string (file, group, G_KEY_FILE_DESKTOP_KEY_TYPE, NULL);
  if (g_strcmp0 (type, G_KEY_FILE_DESKTOP_TYPE_APPLICATION) != 0)
    return not_an_app (entry->path, "its Type is not Application", error);
  /* Hidden=true means deleted, and hides the app in the folders after it. */
  if (g_key_file_get_boolean (file, group, G_KEY_FILE_DESKTOP_KEY_HIDDEN, NULL))
    return not_an_app (entry->path, "it is Hidden", error);
  entry->try_exec = g_key_file_get_string (file, group, G_KEY_FILE_DESKTOP_KEY_TRY_EXEC, NULL);
  if (entry->try_exec != NULL)
    {
      g_autofree char *found = g_find_program_in_path (entry->try_exec);

      if (found == NULL)
        return not_an_app (entry->path, "its TryExec is not installed", error);
    }
  entry->name = g_key_file_get_locale_string (file, group, G_KEY_FILE_DESKTOP_KEY_NAME, NULL,
                                              NULL);
  if (entry->name != NULL && *entry->name == '\0')
    g_clear_pointer (&entry->name, g_free);
  {
    g_autofree char *icon = g_key_file_get_locale_string (file, group,
                                                          G_KEY_FILE_DESKTOP_KEY_ICON, NULL,
                                                          NULL);
    entry->icon = icon_name (icon);
  }
  entry->exec = g_key_file_get_string (file, group, G_KEY_FILE_DESKTOP_KEY_EXEC, NULL);
  entry->executable = first_word (entry->exec);
  /* GIO's rule too: an Exec whose program is not in PATH is no app here */
  if (entry->executable != NULL)
    {
      g_autofree char *found = g_find_program_in_path (entry->executable);

      if (found == NULL)
        return not_an_app (entry->path, "the program of its Exec line is not installed", error);
    }
  entry->terminal = g_key_file_get_boolean (file, group, G_KEY_FILE_DESKTOP_KEY_TERMINAL, NULL);
  return TRUE;
}

RcDesktopEntry *
rc_desktop_load_file (const char *path,
                      GError    **error)
{
  g_autoptr(GKeyFile) file = g_key_file_new ();
  g_autoptr(RcDesktopEntry) entry = g_new0 (RcDesktopEntry, 1);
  g_autofree char *contents = NULL;
  gsize length;

  entry->path = g_strdup (path);
  if (!rc_safe_file_read (path, RC_DESKTOP_FILE_MAX_SIZE, &contents, &length, error) ||
      !g_key_file_load_from_data (file, contents, length, G_KEY_FILE_KEEP_TRANSLATIONS, error) ||
      !read_entry (file, entry, error))
    return NULL;
  return g_steal_pointer (&entry);
}

/* In @folder, the file whose desktop id relative to it is @rest, as the
 * spec allows: @rest itself, or "prefix/..." for each '-' that may have
 * been a '/'. Each file is tried with a non-blocking open; a FIFO or a
 * device is "there" and ends the search, as it would hide the others. */
static char *
find_in (const char *folder,
         const char *rest,
         guint       depth,
         guint      *probes)
{
  g_autofree char *path = g_build_filename (folder, rest, NULL);
  struct stat st;

  if (*probes >= RC_DESKTOP_LOOKUP_MAX_PROBES)
    return NULL;
  (*probes)++;
  /* lstat would miss a linked file; stat opens nothing, so a FIFO is no stall */
  if (stat (path, &st) == 0 && !S_ISDIR (st.st_mode))
    return g_steal_pointer (&path);
  if (depth >= MAX_DEPTH)
    return NULL;
  for (const char *dash = strchr (rest, '-'); dash != NULL; dash = strchr (dash + 1, '-'))
    {
      g_autofree char *prefix = g_strndup (rest, dash - rest);
      g_autofree char *sub = g_build_filename (folder, prefix, NULL);
      char *found;

      if (*probes >= RC_DESKTOP_LOOKUP_MAX_PROBES)
        return NULL;
      (*probes)++;
      if (*prefix == '\0' || stat (sub, &st) != 0 || !S_ISDIR (st.st_mode))
        continue;
      found = find_in (sub, dash + 1, depth + 1, probes);
      if (found != NULL)
        return found;
    }
  return NULL;
}

RcDesktopEntry *
rc_desktop_lookup (const char *app_id,
                   GError    **error)
{
  g_auto(GStrv) dirs = rc_desktop_dirs ();
  g_autofree char *id = g_strconcat (app_id, ".desktop", NULL);
  guint probes = 0;

  /* a desktop id is a file name: no way out of the folders */
  if (strchr (app_id, '/') != NULL || *app_id == '.' || *app_id == '\0')
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_NOENT, "%s is no desktop id", id);
      return NULL;
    }
  for (guint i = 0; dirs[i] != NULL; i++)
    {
      g_autofree char *path = find_in (dirs[i], id, 0, &probes);

      if (path != NULL)
        return rc_desktop_load_file (path, error);
    }
  g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_NOENT,
               "No %s in the applications folders of XDG_DATA_HOME and XDG_DATA_DIRS", id);
  return NULL;
}

/* ---- every app ----------------------------------------------------------- */

typedef struct {
  RcDesktopVisit visit;
  gpointer       user_data;
  GHashTable    *seen;    /* desktop ids met, in folder order */
  GString       *stamp;
  guint          dirs;
  guint          files;
  gsize          bytes;
  gboolean       full;    /* a cap was met: nothing more is read */
} Walk;

static void
visit_file (Walk       *walk,
            const char *path,
            const char *desktop_id)
{
  g_autoptr(RcDesktopEntry) entry = NULL;
  g_autoptr(GError) error = NULL;
  struct stat st;

  if (g_hash_table_contains (walk->seen, desktop_id))
    return;
  g_hash_table_add (walk->seen, g_strdup (desktop_id));
  if (walk->files >= RC_DESKTOP_LIST_MAX_FILES || stat (path, &st) != 0 ||
      walk->bytes + (gsize) MAX (st.st_size, 0) > RC_DESKTOP_LIST_MAX_BYTES)
    {
      g_message ("Desktop files: only the first %u files and %u bytes are read; %s and what "
                 "follows it are not", walk->files, (guint) walk->bytes, path);
      walk->full = TRUE;
      return;
    }
  walk->files++;
  walk->bytes += (gsize) MAX (st.st_size, 0);
  entry = rc_desktop_load_file (path, &error);
  if (entry == NULL)
    {
      if (!g_error_matches (error, G_FILE_ERROR, G_FILE_ERROR_NOENT))
        g_debug ("Desktop file %s is not read: %s", path, error->message);
      return;
    }
  walk->visit (desktop_id, entry, walk->user_data);
}

static int
compare_names (gconstpointer a,
               gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

/* @prefix: the desktop id's part made of the subfolders ("" or "a-b-"). */
static void
walk_folder (Walk       *walk,
             const char *folder,
             const char *prefix,
             guint       depth)
{
  g_autoptr(GDir) dir = NULL;
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  struct stat st;
  const char *name;

  if (walk->full || walk->dirs >= MAX_DIRS || stat (folder, &st) != 0 || !S_ISDIR (st.st_mode))
    return;
  walk->dirs++;
  g_string_append_printf (walk->stamp, "%s:%lld.%09ld;", folder, (long long) st.st_mtim.tv_sec,
                          st.st_mtim.tv_nsec);
  dir = g_dir_open (folder, 0, NULL);
  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    g_ptr_array_add (names, g_strdup (name));
  /* the same order each time: which of two files with one id wins does not change */
  g_ptr_array_sort (names, compare_names);
  for (guint i = 0; i < names->len && !walk->full; i++)
    {
      const char *entry = g_ptr_array_index (names, i);
      g_autofree char *path = g_build_filename (folder, entry, NULL);
      g_autofree char *id = g_strconcat (prefix, entry, NULL);

      if (stat (path, &st) != 0)
        continue;
      if (S_ISDIR (st.st_mode))
        {
          g_autofree char *sub_prefix = g_strconcat (id, "-", NULL);

          if (depth < MAX_DEPTH)
            walk_folder (walk, path, sub_prefix, depth + 1);
        }
      else if (g_str_has_suffix (entry, ".desktop") && walk->visit != NULL)
        visit_file (walk, path, id);
    }
}

static void
walk_all (Walk *walk)
{
  g_auto(GStrv) dirs = rc_desktop_dirs ();

  for (guint i = 0; dirs[i] != NULL && !walk->full; i++)
    walk_folder (walk, dirs[i], "", 0);
}

void
rc_desktop_list (RcDesktopVisit visit,
                 gpointer       user_data,
                 char         **out_stamp)
{
  Walk walk = { visit, user_data, NULL, NULL, 0, 0, 0, FALSE };

  walk.seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  walk.stamp = g_string_new ("");
  walk_all (&walk);
  g_hash_table_unref (walk.seen);
  if (out_stamp != NULL)
    *out_stamp = g_string_free (walk.stamp, FALSE);
  else
    g_string_free (walk.stamp, TRUE);
}

char *
rc_desktop_dirs_stamp (void)
{
  char *stamp = NULL;

  rc_desktop_list (NULL, NULL, &stamp);
  return stamp;
}
