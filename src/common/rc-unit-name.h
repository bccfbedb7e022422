/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Recognizing app units by their systemd name (docs/design.md, "What an app is"). */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum {
  RC_UNIT_KIND_SCOPE,
  RC_UNIT_KIND_SERVICE,
} RcUnitKind;

typedef struct {
  char      *app_id;    /* unescaped (\x2d -> '-'), trailing ".desktop" stripped */
  char      *launcher;  /* "" when the name has none (e.g. "gnome", "flatpak", "") */
  char      *instance;  /* the RANDOM part, "" for app-foo.service */
  RcUnitKind kind;
} RcUnitName;

RcUnitName *rc_unit_name_parse (const char *unit);
void        rc_unit_name_free (RcUnitName *name);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (RcUnitName, rc_unit_name_free);

char       *rc_unit_name_unescape (const char *s);
/* systemd's escaping of one part of a unit name: [A-Za-z0-9:_.] stay (a
 * leading '.' does not), every other byte becomes \xNN ('-' is \x2d). */
char       *rc_unit_name_escape (const char *s);
/* The name of a new instance of @app_id, as systemd's desktop naming has it:
 * app-LAUNCHER-APPID@INSTANCE.service or app-LAUNCHER-APPID-INSTANCE.scope. */
char       *rc_unit_name_build (RcUnitKind  kind,
                                const char *launcher,
                                const char *app_id,
                                const char *instance);
gboolean    rc_unit_name_is_valid (const char *name);
gboolean    rc_app_id_is_valid (const char *app_id);
/* The desktop file id of @path ("org.gnome.Calculator" for
 * ".../org.gnome.Calculator.desktop"), or NULL when it does not end in
 * ".desktop". */
char       *rc_desktop_file_id (const char *path);

/* The SourcePath of the transient unit @unit (what launchers start apps
 * as), from the file systemd keeps of its properties while it is loaded
 * ("SourcePath=<path>", with '%' doubled), "" when it sets none: FALSE when
 * there is no such file, and systemd must be asked. */
gboolean    rc_unit_transient_source_path (const char *unit,
                                           char      **out_source_path);

/* Syntax only, with an InvalidArgument that says what is allowed: is @app a
 * unit name or an AppID a caller may pass (at most 255 bytes)? */
gboolean    rc_unit_name_check_app_argument (const char *app,
                                             GError    **error);
/* Is @app_id an AppID (rules are per AppID, not per unit)? */
gboolean    rc_app_id_check (const char *app_id,
                             GError    **error);

G_END_DECLS
