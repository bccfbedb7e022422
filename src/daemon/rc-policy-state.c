/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "rc-policy-state.h"
#include "rc-safe-file.h"

#include <errno.h>
#include <gio/gio.h>

#define STATE_GROUP "State"

void
rc_policy_state_save (const char *path,
                      char      **written,
                      GPtrArray  *boosted,
                      GPtrArray  *frozen,
                      gboolean    paused,
                      guint64     paused_until)
{
  g_autoptr(GKeyFile) file = g_key_file_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = NULL;
  g_autofree char *data = NULL;

  g_key_file_set_string_list (file, STATE_GROUP, "Boosted",
                              (const char * const *) boosted->pdata, boosted->len);
  g_key_file_set_string_list (file, STATE_GROUP, "Frozen",
                              (const char * const *) frozen->pdata, frozen->len);
  if (paused)
    g_key_file_set_uint64 (file, STATE_GROUP, "PausedUntil", paused_until);
  data = g_key_file_to_data (file, NULL, NULL);
  if (g_strcmp0 (data, *written) == 0)
    return;
  dir = g_path_get_dirname (path);
  if (g_mkdir_with_parents (dir, 0700) != 0 ||
      !g_file_set_contents (path, data, -1, &error))
    {
      g_warning ("Cannot write %s: %s; a restart may leave a boost or a freeze behind",
                 path, error != NULL ? error->message : g_strerror (errno));
      return;
    }
  g_free (*written);
  *written = g_steal_pointer (&data);
}

static GHashTable *
load_state_list (GKeyFile   *file,
                 const char *key)
{
  GHashTable *set = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_auto(GStrv) units = g_key_file_get_string_list (file, STATE_GROUP, key, NULL, NULL);

  for (guint i = 0; units != NULL && units[i] != NULL; i++)
    g_hash_table_add (set, g_strdup (units[i]));
  return set;
}

void
rc_policy_state_load (const char  *path,
                      GHashTable **out_boosted,
                      GHashTable **out_frozen,
                      gboolean    *out_paused,
                      guint64     *out_paused_until)
{
  g_autoptr(GKeyFile) file = g_key_file_new ();
  g_autoptr(GError) error = NULL;

  if (!rc_safe_key_file_load (file, path, G_KEY_FILE_NONE, &error) &&
      !g_error_matches (error, G_FILE_ERROR, G_FILE_ERROR_NOENT))
    g_message ("State file not read: %s", error->message);
  *out_boosted = load_state_list (file, "Boosted");
  *out_frozen = load_state_list (file, "Frozen");
  *out_paused = g_key_file_has_key (file, STATE_GROUP, "PausedUntil", NULL);
  *out_paused_until = *out_paused ?
                      g_key_file_get_uint64 (file, STATE_GROUP, "PausedUntil", NULL) : 0;
}
