/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "rcp-energy-chart.h"

#include "rcp-format.h"

struct _RcpEnergyChart
{
  GtkDrawingArea parent_instance;

  double joules[RCP_ENERGY_CHART_HOURS];
  gint64 first_hour_usec;
};

G_DEFINE_TYPE (RcpEnergyChart, rcp_energy_chart, GTK_TYPE_DRAWING_AREA)

/* The hours that start a quarter of the day, under their bar: enough to
 * place the others. */
static double
draw_hour_labels (RcpEnergyChart *self,
                  cairo_t        *cr,
                  int             width,
                  int             height)
{
  GtkWidget *widget = GTK_WIDGET (self);
  double slot = (double) width / RCP_ENERGY_CHART_HOURS;
  int label_height = 0;

  for (guint i = 0; i < RCP_ENERGY_CHART_HOURS; i++)
    {
      g_autoptr(GDateTime) start =
        g_date_time_new_from_unix_local (self->first_hour_usec / G_USEC_PER_SEC + i * 3600);
      g_autofree char *text = NULL;
      g_autoptr(PangoLayout) layout = NULL;
      int text_width, text_height;

      if (start == NULL || g_date_time_get_hour (start) % 6 != 0)
        continue;
      text = g_date_time_format (start, "%H:%M");
      layout = gtk_widget_create_pango_layout (widget, text);
      pango_layout_get_pixel_size (layout, &text_width, &text_height);
      label_height = MAX (label_height, text_height);
      cairo_move_to (cr, CLAMP (i * slot - text_width / 2.0, 0, width - text_width), height - text_height);
      pango_cairo_show_layout (cr, layout);
    }
  return label_height > 0 ? label_height + 4 : 0;
}

static void
draw_bars (GtkDrawingArea *area,
           cairo_t        *cr,
           int             width,
           int             height,
           gpointer        user_data)
{
  RcpEnergyChart *self = RCP_ENERGY_CHART (area);
  double slot = (double) width / RCP_ENERGY_CHART_HOURS;
  double top = 0, base;
  GdkRGBA color, accent;

  for (guint i = 0; i < RCP_ENERGY_CHART_HOURS; i++)
    top = MAX (top, self->joules[i]);
  G_GNUC_BEGIN_IGNORE_DEPRECATIONS
  gtk_style_context_get_color (gtk_widget_get_style_context (GTK_WIDGET (area)), &color);
  /* libadwaita's accent colour, where the theme has one */
  if (!gtk_style_context_lookup_color (gtk_widget_get_style_context (GTK_WIDGET (area)),
                                       "accent_bg_color", &accent))
    accent = color;
  G_GNUC_END_IGNORE_DEPRECATIONS

  cairo_set_source_rgba (cr, color.red, color.green, color.blue, color.alpha * 0.6);
  base = height - draw_hour_labels (self, cr, width, height);
  /* the baseline, so that a day without energy still shows a chart */
  cairo_set_source_rgba (cr, color.red, color.green, color.blue, color.alpha * 0.3);
  cairo_set_line_width (cr, 1.0);
  cairo_move_to (cr, 0, base - 0.5);
  cairo_line_to (cr, width, base - 0.5);
  cairo_stroke (cr);
  if (top <= 0 || base <= 2)
    return;
  gdk_cairo_set_source_rgba (cr, &accent);
  for (guint i = 0; i < RCP_ENERGY_CHART_HOURS; i++)
    {
      double bar = (base - 1) * (self->joules[i] / top);

      /* a sliver for an hour with a little energy, so that it is not read as none */
      if (self->joules[i] > 0)
        bar = MAX (bar, 2.0);
      cairo_rectangle (cr, i * slot + slot * 0.15, base - 1 - bar, slot * 0.7, bar);
    }
  cairo_fill (cr);
}

/* What the bars show, in words: the day's total and its busiest hour. */
static void
update_description (RcpEnergyChart *self)
{
  double total = 0;
  guint busiest = 0;
  g_autofree char *text = NULL;

  for (guint i = 0; i < RCP_ENERGY_CHART_HOURS; i++)
    {
      total += self->joules[i];
      if (self->joules[i] > self->joules[busiest])
        busiest = i;
    }
  if (total <= 0)
    text = g_strdup ("No energy measured in the last 24 hours");
  else
    {
      g_autoptr(GDateTime) start =
        g_date_time_new_from_unix_local (self->first_hour_usec / G_USEC_PER_SEC + busiest * 3600);
      g_autofree char *hour = g_date_time_format (start, "%H:%M");
      g_autofree char *total_text = rcp_format_energy (total);
      g_autofree char *busiest_text = rcp_format_energy (self->joules[busiest]);

      text = g_strdup_printf ("%s in the last 24 hours, most in the hour from %s: %s",
                              total_text, hour, busiest_text);
    }
  gtk_accessible_update_property (GTK_ACCESSIBLE (self), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, text, -1);
}

void
rcp_energy_chart_set_hours (RcpEnergyChart *self,
                            const double   *joules,
                            gint64          first_hour_usec)
{
  memcpy (self->joules, joules, sizeof self->joules);
  self->first_hour_usec = first_hour_usec;
  update_description (self);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static void
rcp_energy_chart_class_init (RcpEnergyChartClass *klass)
{
  gtk_widget_class_set_accessible_role (GTK_WIDGET_CLASS (klass), GTK_ACCESSIBLE_ROLE_IMG);
}

static void
rcp_energy_chart_init (RcpEnergyChart *self)
{
  gtk_drawing_area_set_content_height (GTK_DRAWING_AREA (self), 112);
  gtk_drawing_area_set_draw_func (GTK_DRAWING_AREA (self), draw_bars, NULL, NULL);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  "Energy by hour", -1);
  update_description (self);
}

GtkWidget *
rcp_energy_chart_new (void)
{
  return g_object_new (RCP_TYPE_ENERGY_CHART, NULL);
}
