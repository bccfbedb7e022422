/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

/* What a page says after a call: a toast in the window's toast overlay
 * (found above @widget), and for errors also @label, a line that stays on
 * the page until the next success, so that it can be read at leisure (and
 * by a screen reader). The error text is the daemon's own message. */
GtkWidget *rcp_feedback_label_new (void);
void       rcp_feedback_success (GtkWidget  *widget,
                                 GtkWidget  *label,
                                 const char *text);
void       rcp_feedback_error (GtkWidget    *widget,
                               GtkWidget    *label,
                               const char   *what,
                               const GError *error);
/* The end of a call: @reply, or @error when it is NULL. Says @success (if
 * not NULL) or "@what: ..." as above, nothing for a call cancelled because
 * the page went away. Returns whether the call succeeded. */
gboolean   rcp_feedback_reply (GtkWidget    *widget,
                               GtkWidget    *label,
                               GVariant     *reply,
                               const GError *error,
                               const char   *success,
                               const char   *what);

G_END_DECLS
