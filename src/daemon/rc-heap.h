/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Handing freed heap back to the system. A large reply or listing is many
 * small blocks, built and freed: malloc keeps the pages they leave. After a
 * batch of @count records (a reply, a listing of units) the heap is trimmed
 * a second after the last such batch, so not between the calls of a burst,
 * where it would delay the next one. Small batches leave little: nothing is
 * scheduled for them. */
void rc_heap_trim_after (guint count);
/* Drops a trim still to come (at exit). */
void rc_heap_trim_cancel (void);
/* At start: transparent huge pages off and one malloc arena, so that what
 * the daemon frees can go back to the system. */
void rc_heap_tune (void);
/* A unit name or object path that several objects keep at once (the unit
 * tracker, the app, each watch of it): one refcounted copy for all of them,
 * where each had its own (five copies of every unit name at 1,000 apps were
 * some 300 KiB). Released with g_ref_string_release, never g_free. */
char *rc_shared_string (const char *text);

G_END_DECLS
