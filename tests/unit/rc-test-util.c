/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "rc-test-util.h"

#include <glib/gstdio.h>

/* Removes @path, a file or a folder with all it holds: the temporary trees
 * the tests make. */
void
rc_test_remove_tree (const char *path)
{
  g_autoptr(GDir) dir = g_dir_open (path, 0, NULL);
  const char *name;

  if (dir == NULL)
    {
      g_remove (path);
      return;
    }
  while ((name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *child = g_build_filename (path, name, NULL);
      rc_test_remove_tree (child);
    }
  g_rmdir (path);
}

/* @prefix and @text as a test path, which may not contain '/' nor end
 * empty: "(empty)" for "", '|' for '/'. */
char *
rc_test_case_path (const char *prefix,
                   const char *text)
{
  g_autoptr(GString) path = g_string_new (prefix);

  if (*text == '\0')
    g_string_append (path, "(empty)");
  else
    for (const char *p = text; *p; p++)
      g_string_append_c (path, *p == '/' ? '|' : *p);
  return g_string_free (g_steal_pointer (&path), FALSE);
}
