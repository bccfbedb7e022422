/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The slices' part of the D-Bus API: ListSlices and SetSliceLimits. It only
 * translates and asks polkit; the model is RcSlices. */
#include "rc-slices-bus.h"
#include "rc-error.h"
#include "rc-unit-name.h"

/* What a served object needs; it lives as long as the object. */
typedef struct {
  RcSlices     *slices;
  RcAuthority  *authority;
  GCancellable *cancellable;
} Served;

static void
served_free (gpointer data)
{
  Served *served = data;

  g_object_unref (served->slices);
  g_object_unref (served->authority);
  g_object_unref (served->cancellable);
  g_free (served);
}

static gboolean
handle_list_slices (RcDBusResourceControl *object,
                    GDBusMethodInvocation *invocation,
                    Served                *served)
{
  rc_dbus_resource_control_complete_list_slices (object, invocation,
                                                 rc_slices_to_variant (served->slices));
  return G_DBUS_METHOD_INVOCATION_HANDLED;
}

/* A SetSliceLimits call waiting for polkit's answer, then for systemd's. */
typedef struct {
  RcSlices              *slices;
  GCancellable          *cancellable;
  GDBusMethodInvocation *invocation;
  char                  *slice;
  RcLimits               limits;
} SliceEdit;

static void
slice_edit_free (SliceEdit *edit)
{
  g_object_unref (edit->slices);
  g_object_unref (edit->cancellable);
  g_object_unref (edit->invocation);
  g_free (edit->slice);
  g_free (edit);
}

static void
slice_limits_set_cb (GObject      *source,
                     GAsyncResult *result,
                     gpointer      user_data)
{
  g_autoptr(GDBusMethodInvocation) invocation = user_data;
  g_autoptr(GError) error = NULL;

  if (rc_slices_set_limits_finish (RC_SLICES (source), result, &error))
    g_dbus_method_invocation_return_value (invocation, NULL);
  else
    g_dbus_method_invocation_return_gerror (invocation, error);
}

static void
slice_edit_authorized_cb (GObject      *source,
                          GAsyncResult *result,
                          gpointer      user_data)
{
  SliceEdit *edit = user_data;
  g_autoptr(GError) error = NULL;

  if (rc_authority_check_finish (RC_AUTHORITY (source), result, NULL, &error))
    rc_slices_set_limits_async (edit->slices, g_dbus_method_invocation_get_sender (edit->invocation),
                                edit->slice, &edit->limits, edit->cancellable,
                                slice_limits_set_cb, g_object_ref (edit->invocation));
  else
    g_dbus_method_invocation_return_gerror (edit->invocation, error);
  slice_edit_free (edit);
}

static gboolean
handle_set_slice_limits (RcDBusResourceControl *object,
                         GDBusMethodInvocation *invocation,
                         const char            *slice,
                         GVariant              *limits,
                         GVariant              *options,
                         Served                *served)
{
  GError *error = NULL;
  RcLimits parsed;
  SliceEdit *edit;

  if (!rc_unit_name_is_valid (slice))
    error = g_error_new (RC_ERROR, RC_ERROR_INVALID_ARGUMENT,
                         "\"%s\" is not a unit name: the slices are session.slice, "
                         "app.slice and background.slice", slice);
  else if (!rc_slices_is_slice (slice))
    error = g_error_new (RC_ERROR, RC_ERROR_PROTECTED,
                         "%s is not one of the slices that can be changed: "
                         "session.slice, app.slice and background.slice", slice);
  else
    rc_limits_parse (limits, options, g_get_num_processors (), &parsed, &error);
  if (error != NULL)
    {
      g_dbus_method_invocation_return_gerror (invocation, error);
      g_error_free (error);
      return G_DBUS_METHOD_INVOCATION_HANDLED;
    }
  edit = g_new0 (SliceEdit, 1);
  edit->slices = g_object_ref (served->slices);
  edit->cancellable = g_object_ref (served->cancellable);
  edit->invocation = g_object_ref (invocation);
  edit->slice = g_strdup (slice);
  edit->limits = parsed;
  rc_authority_check_async (served->authority, invocation, served->cancellable,
                            slice_edit_authorized_cb, edit);
  return G_DBUS_METHOD_INVOCATION_HANDLED;
}

void
rc_slices_serve (RcSlices              *slices,
                 RcDBusResourceControl *object,
                 RcAuthority           *authority,
                 GCancellable          *cancellable)
{
  Served *served = g_new0 (Served, 1);

  served->slices = g_object_ref (slices);
  served->authority = g_object_ref (authority);
  served->cancellable = g_object_ref (cancellable);
  g_object_set_data_full (G_OBJECT (object), "rc-slices-served", served, served_free);
  g_signal_connect (object, "handle-list-slices", G_CALLBACK (handle_list_slices), served);
  g_signal_connect (object, "handle-set-slice-limits", G_CALLBACK (handle_set_slice_limits),
                    served);
}
