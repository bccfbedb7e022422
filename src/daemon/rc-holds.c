/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "rc-holds.h"

typedef struct {
  guint64 value;     /* 0: let go, the reason still to be recorded */
  char   *reason;
} Hold;

struct _RcHolds {
  GHashTable      *by_unit;   /* unit name -> Hold */
  RcHoldsFocusFunc focus_func;
  gpointer         focus_data;
};

static void
hold_free (Hold *hold)
{
  g_free (hold->reason);
  g_free (hold);
}

RcHolds *
rc_holds_new (void)
{
  RcHolds *self = g_new0 (RcHolds, 1);

  self->by_unit = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                         (GDestroyNotify) hold_free);
  return self;
}

void
rc_holds_free (RcHolds *self)
{
  if (self == NULL)
    return;
  g_hash_table_unref (self->by_unit);
  g_free (self);
}

void
rc_holds_set (RcHolds    *self,
              const char *unit,
              guint64     value,
              const char *reason)
{
  Hold *hold = g_hash_table_lookup (self->by_unit, unit);

  if (hold == NULL && value == 0)
    return;
  if (hold == NULL)
    {
      hold = g_new0 (Hold, 1);
      g_hash_table_insert (self->by_unit, g_strdup (unit), hold);
    }
  hold->value = value;
  g_free (hold->reason);
  hold->reason = g_strdup (reason);
  if (value == 0 && reason == NULL)
    g_hash_table_remove (self->by_unit, unit);
}

guint64
rc_holds_get (RcHolds    *self,
              const char *unit)
{
  Hold *hold = g_hash_table_lookup (self->by_unit, unit);

  return hold != NULL ? hold->value : 0;
}

char *
rc_holds_take_reason (RcHolds    *self,
                      const char *unit)
{
  Hold *hold = g_hash_table_lookup (self->by_unit, unit);
  char *reason;

  if (hold == NULL)
    return NULL;
  reason = g_steal_pointer (&hold->reason);
  if (hold->value == 0)
    g_hash_table_remove (self->by_unit, unit);
  return reason;
}

void
rc_holds_note_focus (RcHolds *self,
                     RcApp   *app,
                     gboolean focused)
{
  if (focused)
    g_hash_table_remove (self->by_unit, app->unit);
  if (self->focus_func != NULL)
    self->focus_func (app, focused, self->focus_data);
}

void
rc_holds_set_focus_func (RcHolds         *self,
                         RcHoldsFocusFunc func,
                         gpointer         user_data)
{
  self->focus_func = func;
  self->focus_data = user_data;
}
