/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "rc-safe-file.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

gboolean
rc_safe_file_read (const char *path,
                   gsize       max_size,
                   char      **out_contents,
                   gsize      *out_length,
                   GError    **error)
{
  g_autofree char *contents = NULL;
  struct stat st;
  gsize size;
  gsize done = 0;
  int fd;

  fd = open (path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0)
    {
      int saved = errno;

      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved), "Cannot open %s: %s",
                   path, g_strerror (saved));
      return FALSE;
    }
  if (fstat (fd, &st) < 0 || !S_ISREG (st.st_mode))
    {
      close (fd);
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                   "%s is not a regular file: it is not read", path);
      return FALSE;
    }
  if ((guint64) st.st_size > max_size)
    {
      close (fd);
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_FAILED,
                   "%s is %" G_GUINT64_FORMAT " bytes: files over %" G_GSIZE_FORMAT
                   " bytes are not read", path, (guint64) st.st_size, max_size);
      return FALSE;
    }
  /* One byte more than fstat said tells a file that grew meanwhile. */
  size = (gsize) st.st_size;
  contents = g_malloc (size + 2);
  while (done <= size)
    {
      ssize_t n = read (fd, contents + done, size + 1 - done);

      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        {
          int saved = errno;

          close (fd);
          g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved),
                       "Cannot read %s: %s", path, g_strerror (saved));
          return FALSE;
        }
      if (n == 0)
        break;
      done += n;
    }
  close (fd);
  if (done > size)
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_FAILED,
                   "%s grew while it was read: it is not read", path);
      return FALSE;
    }
  contents[done] = '\0';
  if (out_length != NULL)
    *out_length = done;
  *out_contents = g_steal_pointer (&contents);
  return TRUE;
}

gboolean
rc_safe_key_file_load (GKeyFile     *file,
                       const char   *path,
                       GKeyFileFlags flags,
                       GError      **error)
{
  g_autofree char *contents = NULL;
  gsize length;

  if (!rc_safe_file_read (path, RC_SAFE_FILE_MAX_SIZE, &contents, &length, error))
    return FALSE;
  return g_key_file_load_from_data (file, contents, length, flags, error);
}
