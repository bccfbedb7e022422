/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "rc-line-splitter.h"

#include <string.h>

struct _RcLineSplitter {
  GString *line;          /* the line begun; at most max_length bytes */
  gsize    max_length;
  gboolean overlong;      /* passing over the rest of a line too long */
};

RcLineSplitter *
rc_line_splitter_new (gsize max_length)
{
  RcLineSplitter *self = g_new0 (RcLineSplitter, 1);

  self->line = g_string_new (NULL);
  self->max_length = max_length;
  return self;
}

void
rc_line_splitter_free (RcLineSplitter *self)
{
  if (self == NULL)
    return;
  g_string_free (self->line, TRUE);
  g_free (self);
}

void
rc_line_splitter_reset (RcLineSplitter *self)
{
  g_string_truncate (self->line, 0);
  self->overlong = FALSE;
}

gsize
rc_line_splitter_get_held (RcLineSplitter *self)
{
  return self->line->len;
}

gboolean
rc_line_splitter_feed (RcLineSplitter *self,
                       const char     *data,
                       gsize           length,
                       RcLineFunc      func,
                       gpointer        user_data)
{
  while (length > 0)
    {
      const char *newline = memchr (data, '\n', length);
      gsize part = newline != NULL ? (gsize) (newline - data) : length;
      gboolean go_on = TRUE;

      if (!self->overlong && part > self->max_length - self->line->len)
        {
          /* what was kept of it goes now, and nothing more of it is */
          self->overlong = TRUE;
          g_string_truncate (self->line, 0);
          if (!func (NULL, 0, user_data))
            return FALSE;
        }
      if (!self->overlong)
        g_string_append_len (self->line, data, part);
      if (newline == NULL)
        return TRUE;
      if (!self->overlong)
        go_on = func (self->line->str, self->line->len, user_data);
      self->overlong = FALSE;
      g_string_truncate (self->line, 0);
      if (!go_on)
        return FALSE;
      data += part + 1;
      length -= part + 1;
    }
  return TRUE;
}
