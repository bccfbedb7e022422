/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Byte sizes as users type and read them: "512M", "1.5G", "infinity". */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

gboolean rc_size_parse (const char *text,
                        guint64    *out_bytes,
                        GError    **error);
char    *rc_size_format (guint64 bytes);

G_END_DECLS
