/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>

#include "rc-app.h"

G_BEGIN_DECLS

/* The values an automatic policy (the responsiveness guard's CPUWeight,
 * the memory ladder's MemoryHigh) holds units at, each with why it last
 * moved, until the action record takes that. A watch sets them, the
 * policy applies them; which value wins over which is each policy's own
 * (rc_guard_apply_hold, rc_ladder_apply_hold), not the table's. */
typedef struct _RcHolds RcHolds;

/* Told when an app gains or loses the focus (the policy calls
 * rc_holds_note_focus). */
typedef void (*RcHoldsFocusFunc) (RcApp   *app,
                                  gboolean focused,
                                  gpointer user_data);

RcHolds *rc_holds_new (void);
void     rc_holds_free (RcHolds *self);
/* The watch's side: @value 0 lets go; @reason (NULL: none) goes into the
 * action record with the change it makes. */
void     rc_holds_set (RcHolds    *self,
                       const char *unit,
                       guint64     value,
                       const char *reason);
/* The value @unit is held at, 0: none. */
guint64  rc_holds_get (RcHolds    *self,
                       const char *unit);
/* Why the policy last moved @unit's value, once (NULL: it did not); a
 * hold let go is forgotten with it. */
char    *rc_holds_take_reason (RcHolds    *self,
                               const char *unit);
/* The focus takes over at once: @app's hold is dropped, nothing is given
 * back later. Then the focus function is told. */
void     rc_holds_note_focus (RcHolds *self,
                              RcApp   *app,
                              gboolean focused);
void     rc_holds_set_focus_func (RcHolds         *self,
                                  RcHoldsFocusFunc func,
                                  gpointer         user_data);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (RcHolds, rc_holds_free)

G_END_DECLS
