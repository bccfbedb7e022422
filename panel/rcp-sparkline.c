/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "rcp-sparkline.h"

struct _RcpSparkline
{
  GtkWidget parent_instance;

  RcpApp *app;
};

G_DEFINE_TYPE (RcpSparkline, rcp_sparkline, GTK_TYPE_WIDGET)

static void
rcp_sparkline_snapshot (GtkWidget   *widget,
                        GtkSnapshot *snapshot)
{
  RcpSparkline *self = RCP_SPARKLINE (widget);
  int width = gtk_widget_get_width (widget);
  int height = gtk_widget_get_height (widget);
  guint len;
  const double *history = rcp_app_get_history (self->app, &len);
  double top = 100.0;
  GdkRGBA color;
  cairo_t *cr;

  if (width <= 0 || height <= 0)
    return;
  for (guint i = 0; i < len; i++)
    top = MAX (top, history[i]);
  G_GNUC_BEGIN_IGNORE_DEPRECATIONS
  gtk_style_context_get_color (gtk_widget_get_style_context (widget), &color);
  G_GNUC_END_IGNORE_DEPRECATIONS

    cr = gtk_snapshot_append_cairo (snapshot, &GRAPHENE_RECT_INIT (0, 0, width, height));
  /* the baseline, so that an idle app still shows a graph */
  cairo_set_source_rgba (cr, color.red, color.green, color.blue, color.alpha * 0.3);
  cairo_set_line_width (cr, 1.0);
  cairo_move_to (cr, 0, height - 0.5);
  cairo_line_to (cr, width, height - 0.5);
  cairo_stroke (cr);
  if (len >= 2)
    {
      double step = (double) width / (RCP_APP_HISTORY - 1);
      double x0 = width - step * (len - 1);

      cairo_set_source_rgba (cr, color.red, color.green, color.blue, color.alpha);
      cairo_set_line_width (cr, 1.5);
      for (guint i = 0; i < len; i++)
        {
          double x = x0 + step * i;
          double y = (height - 1) - (height - 2) * (history[i] / top);

          if (i == 0)
            cairo_move_to (cr, x, y);
          else
            cairo_line_to (cr, x, y);
        }
      cairo_stroke (cr);
    }
  cairo_destroy (cr);
}

static void
rcp_sparkline_measure (GtkWidget     *widget,
                       GtkOrientation orientation,
                       int            for_size,
                       int           *minimum,
                       int           *natural,
                       int           *minimum_baseline,
                       int           *natural_baseline)
{
  *minimum = *natural = orientation == GTK_ORIENTATION_HORIZONTAL ? 64 : 24;
}

static void
rcp_sparkline_dispose (GObject *object)
{
  RcpSparkline *self = RCP_SPARKLINE (object);

  g_clear_object (&self->app);
  G_OBJECT_CLASS (rcp_sparkline_parent_class)->dispose (object);
}

static void
rcp_sparkline_class_init (RcpSparklineClass *klass)
{
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  G_OBJECT_CLASS (klass)->dispose = rcp_sparkline_dispose;
  widget_class->snapshot = rcp_sparkline_snapshot;
  widget_class->measure = rcp_sparkline_measure;
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_IMG);
}

static void
rcp_sparkline_init (RcpSparkline *self)
{
}

GtkWidget *
rcp_sparkline_new (RcpApp *app)
{
  RcpSparkline *self = g_object_new (RCP_TYPE_SPARKLINE, "valign", GTK_ALIGN_CENTER, NULL);

  self->app = g_object_ref (app);
  g_signal_connect_object (app, "changed", G_CALLBACK (gtk_widget_queue_draw), self,
                           G_CONNECT_SWAPPED);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  "CPU history", -1);
  return GTK_WIDGET (self);
}
