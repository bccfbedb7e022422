/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* Reads of files an app can choose, bounded in time. A non-blocking open
 * and a size cap (rc_safe_file_read) do not help against a path that never
 * answers: any lookup on a FUSE mount whose server hangs blocks in the
 * kernel. So the open, read and parse run in a worker thread, and the
 * caller hears on the main loop when they are done or when the deadline
 * passed, whichever comes first. A worker stuck past its deadline is
 * abandoned (a thread cannot be stopped; its result is dropped when it
 * ends). At most @max_workers threads ever run; when all of them are stuck
 * a read fails at once instead of waiting for one. */
#define RC_TYPE_FILE_READER (rc_file_reader_get_type ())
G_DECLARE_FINAL_TYPE (RcFileReader, rc_file_reader, RC, FILE_READER, GObject)

#define RC_FILE_READER_WORKERS     4
#define RC_FILE_READER_DEADLINE_MS 5000

/* Runs in a worker: reads and parses, touches nothing of the main loop.
 * Returns the result (freed with the job's @result_free) or NULL with
 * @error. */
typedef gpointer (*RcFileReadFunc) (gpointer input,
                                    GError **error);

RcFileReader *rc_file_reader_new (guint max_workers,
                                  guint deadline_ms);
/* The daemon's one reader (made on first use with the defaults above). */
RcFileReader *rc_file_reader_get_default (void);

/* Calls @func (@input) in a worker; @callback on the main loop. @what names
 * the read in errors ("the desktop file of org.example.App"). Errors:
 * G_IO_ERROR_TIMED_OUT past the deadline, G_IO_ERROR_BUSY when every worker
 * is stuck, G_IO_ERROR_CANCELLED, or @func's. */
void          rc_file_reader_run_async (RcFileReader       *self,
                                        const char         *what,
                                        RcFileReadFunc      func,
                                        gpointer            input,
                                        GDestroyNotify      input_free,
                                        GDestroyNotify      result_free,
                                        GCancellable       *cancellable,
                                        GAsyncReadyCallback callback,
                                        gpointer            user_data);
/* The result, owned by the caller now (free it with its result_free). */
gpointer      rc_file_reader_run_finish (RcFileReader *self,
                                         GAsyncResult *result,
                                         GError      **error);
/* Workers past their deadline and not yet back. */
guint         rc_file_reader_get_stuck (RcFileReader *self);

G_END_DECLS
