/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Cuts a byte stream into lines ("\n" ends each) while holding at most
 * a given length: a line longer than that is not kept but passed over as
 * its bytes arrive, and reported once. So a peer that writes a long line,
 * or no newline at all, costs that much memory and no more. */
typedef struct _RcLineSplitter RcLineSplitter;

/* Called with each whole line, without its "\n" and NUL-terminated (it
 * may hold other NULs), or once with @line NULL when a line grows past the
 * limit; none of the rest of that line follows. Returns FALSE to stop
 * rc_line_splitter_feed () at once. */
typedef gboolean (*RcLineFunc) (const char *line,
                                gsize       length,
                                gpointer    user_data);

/* Lines of up to @max_length bytes, the "\n" not counted. */
RcLineSplitter *rc_line_splitter_new (gsize max_length);
void            rc_line_splitter_free (RcLineSplitter *self);
/* Takes @length more bytes of the stream and calls @func for each line
 * they end; a line's start is kept for the next call. FALSE if @func
 * stopped it (the bytes after that line are not taken). */
gboolean        rc_line_splitter_feed (RcLineSplitter *self,
                                       const char     *data,
                                       gsize           length,
                                       RcLineFunc      func,
                                       gpointer        user_data);
/* Forgets the line begun, as for a new stream. */
void            rc_line_splitter_reset (RcLineSplitter *self);
/* How many bytes of a line it holds now: never more than the limit. */
gsize           rc_line_splitter_get_held (RcLineSplitter *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (RcLineSplitter, rc_line_splitter_free);

G_END_DECLS
