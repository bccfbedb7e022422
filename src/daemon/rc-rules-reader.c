/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "rc-rules-reader.h"
#include "rc-safe-file.h"

#include <string.h>

static int
compare_paths (gconstpointer a,
               gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

static void problem (GPtrArray  *problems,
                     const char *format,
                     ...) G_GNUC_PRINTF (2, 3);

static void
problem (GPtrArray  *problems,
         const char *format,
         ...)
{
  va_list args;

  if (problems == NULL)
    return;
  va_start (args, format);
  g_ptr_array_add (problems, g_strdup_vprintf (format, args));
  va_end (args);
}

GPtrArray *
rc_rules_list_files (const char *dir,
                     GPtrArray  *problems)
{
  GPtrArray *files = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GDir) handle = g_dir_open (dir, 0, NULL);
  const char *name;
  guint looked_at = 0;

  /* The names come in no useful order: past the cap, which files are
   * read depends on the file system, and the problem says so. */
  while (handle != NULL && (name = g_dir_read_name (handle)) != NULL)
    {
      if (++looked_at > RC_RULES_MAX_FOLDER_ENTRIES)
        {
          problem (problems, "%s has more than %d entries: only %d of them were looked at, "
                   "in no particular order", dir, RC_RULES_MAX_FOLDER_ENTRIES,
                   RC_RULES_MAX_FOLDER_ENTRIES);
          break;
        }
      if (g_str_has_suffix (name, ".conf") && name[0] != '.')
        g_ptr_array_add (files, g_build_filename (dir, name, NULL));
    }
  g_ptr_array_sort (files, compare_paths);
  if (files->len > RC_RULES_MAX_FILES)
    {
      problem (problems, "%s has %u .conf files: only the first %d (by name) were read", dir,
               files->len, RC_RULES_MAX_FILES);
      g_ptr_array_set_size (files, RC_RULES_MAX_FILES);
    }
  return files;
}

static GHashTable *
new_table (void)
{
  return g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
}

/* One file, read whole if it fits in what is left of the reading's
 * bytes, and parsed. */
static void
read_one (RcRulesReading *reading,
          const char     *path,
          gsize          *left)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *contents = NULL;
  gsize length;

  if (!rc_safe_file_read (path, MIN (RC_SAFE_FILE_MAX_SIZE, *left), &contents, &length, &error))
    {
      if (*left < RC_SAFE_FILE_MAX_SIZE)
        problem (reading->problems, "%s: %s (the files read before it took the rest of the "
                 "%d bytes one reading of the rules reads)", path, error->message,
                 RC_RULES_MAX_TOTAL_BYTES);
      else
        problem (reading->problems, "%s: %s", path, error->message);
      return;
    }
  *left -= length;
  rc_rules_parse_data (contents, length, path, reading->rules, reading->slices, &reading->boost,
                       &reading->notify, &reading->guard, reading->problems);
}

RcRulesReading *
rc_rules_reading_new (const char *system_dir,
                      const char *user_dir)
{
  const char *dirs[] = { system_dir, user_dir };
  RcRulesReading *reading = g_new0 (RcRulesReading, 1);
  gsize left = RC_RULES_MAX_TOTAL_BYTES;

  for (guint i = 0; i < RC_RULES_N_LAYERS; i++)
    {
      reading->rules[i] = new_table ();
      reading->slices[i] = new_table ();
    }
  reading->boost.enabled = TRUE;
  rc_limits_set (&reading->boost.limits, RC_LIMIT_CPU_WEIGHT, RC_BOOST_WEIGHT_DEFAULT);
  rc_limits_set (&reading->boost.limits, RC_LIMIT_IO_WEIGHT, RC_BOOST_WEIGHT_DEFAULT);
  rc_limits_set (&reading->boost.limits, RC_LIMIT_MEMORY_LOW, RC_BOOST_MEMORY_LOW_DEFAULT);
  reading->notify = RC_NOTIFY_RULES_DEFAULT;
  reading->guard = RC_GUARD_RULES_DEFAULT;
  reading->problems = g_ptr_array_new_with_free_func (g_free);
  for (guint d = 0; d < G_N_ELEMENTS (dirs); d++)
    {
      g_autoptr(GPtrArray) files = rc_rules_list_files (dirs[d], reading->problems);

      for (guint i = 0; i < files->len; i++)
        read_one (reading, g_ptr_array_index (files, i), &left);
    }
  return reading;
}

void
rc_rules_reading_free (RcRulesReading *reading)
{
  if (reading == NULL)
    return;
  for (guint i = 0; i < RC_RULES_N_LAYERS; i++)
    {
      g_clear_pointer (&reading->rules[i], g_hash_table_unref);
      g_clear_pointer (&reading->slices[i], g_hash_table_unref);
    }
  g_clear_pointer (&reading->problems, g_ptr_array_unref);
  g_free (reading);
}
