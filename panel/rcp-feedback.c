/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "rcp-feedback.h"

#include "rcp-client.h"

GtkWidget *
rcp_feedback_label_new (void)
{
  GtkWidget *label = gtk_label_new (NULL);

  gtk_label_set_wrap (GTK_LABEL (label), TRUE);
  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_label_set_selectable (GTK_LABEL (label), TRUE);
  gtk_widget_add_css_class (label, "error");
  gtk_widget_set_visible (label, FALSE);
  return label;
}

static void
toast (GtkWidget  *widget,
       const char *text)
{
  GtkWidget *overlay = gtk_widget_get_ancestor (widget, ADW_TYPE_TOAST_OVERLAY);
  /* a toast's title is Pango markup (no switch before libadwaita 1.4), and the
   * text can hold the daemon's error message or an app's name */
  g_autofree char *escaped = g_markup_escape_text (text, -1);
  AdwToast *t;

  if (overlay == NULL)
    return;
  t = adw_toast_new (escaped);
  adw_toast_set_timeout (t, 4);
  adw_toast_overlay_add_toast (ADW_TOAST_OVERLAY (overlay), t);
}

void
rcp_feedback_success (GtkWidget  *widget,
                      GtkWidget  *label,
                      const char *text)
{
  if (label != NULL)
    {
      gtk_label_set_text (GTK_LABEL (label), "");
      gtk_widget_set_visible (label, FALSE);
    }
  toast (widget, text);
}

void
rcp_feedback_error (GtkWidget    *widget,
                    GtkWidget    *label,
                    const char   *what,
                    const GError *error)
{
  g_autofree char *message = rcp_client_error_message (error);
  g_autofree char *text = g_strdup_printf ("%s: %s", what, message);

  if (label != NULL)
    {
      gtk_label_set_text (GTK_LABEL (label), text);
      gtk_widget_set_visible (label, TRUE);
    }
  toast (widget, text);
}

gboolean
rcp_feedback_reply (GtkWidget    *widget,
                    GtkWidget    *label,
                    GVariant     *reply,
                    const GError *error,
                    const char   *success,
                    const char   *what)
{
  if (reply != NULL)
    {
      if (success != NULL)
        rcp_feedback_success (widget, label, success);
      return TRUE;
    }
  if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    rcp_feedback_error (widget, label, what, error);
  return FALSE;
}
