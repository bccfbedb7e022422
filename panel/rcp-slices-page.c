/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "rcp-slices-page.h"
#include "rc-api-keys.h"

#include "rcp-feedback.h"
#include "rcp-format.h"

#define N_SLICES 3

static const struct
{
  const char *unit;
  const char *description;
} slice_info[N_SLICES] = {
  { "session.slice", "The compositor and the shell" },
  { "app.slice", "Apps" },
  { "background.slice", "What may wait, such as indexers" },
};

typedef struct
{
  AdwActionRow *usage_row;
  GtkWidget    *weight_spin;
  GtkWidget    *memory_spin;
  guint64       shown_weight;
  guint64       shown_memory_max;
} SliceRows;

struct _RcpSlicesPage
{
  AdwBin parent_instance;

  RcpClient    *client;
  GCancellable *cancellable;
  gboolean      loading;
  GtkWidget    *error_label;
  SliceRows     rows[N_SLICES];
};

G_DEFINE_TYPE (RcpSlicesPage, rcp_slices_page, ADW_TYPE_BIN)

static int
slice_index (const char *unit)
{
  for (int i = 0; i < N_SLICES; i++)
    if (g_strcmp0 (slice_info[i].unit, unit) == 0)
      return i;
  return -1;
}

static void
apply_record (RcpSlicesPage *self,
              GVariant      *record)
{
  const char *unit = NULL;
  guint64 weight = 100, memory_max = G_MAXUINT64, memory_current = G_MAXUINT64, tasks = 0;
  g_autofree char *used = NULL;
  g_autofree char *limit = NULL;
  g_autofree char *text = NULL;
  SliceRows *rows;
  int i;

  g_variant_lookup (record, RC_KEY_UNIT, "&s", &unit);
  i = slice_index (unit);
  if (i < 0)
    return;
  rows = &self->rows[i];
  g_variant_lookup (record, RC_KEY_CPU_WEIGHT, "t", &weight);
  g_variant_lookup (record, RC_KEY_MEMORY_MAX, "t", &memory_max);
  g_variant_lookup (record, RC_KEY_MEMORY_CURRENT, "t", &memory_current);
  g_variant_lookup (record, RC_KEY_TASKS_CURRENT, "t", &tasks);
  used = rcp_format_bytes (memory_current, "?");
  limit = rcp_format_bytes (memory_max, "no limit");
  text = g_strdup_printf ("Memory %s of %s · %" G_GUINT64_FORMAT " tasks · CPU weight %" G_GUINT64_FORMAT,
                          used, limit, tasks, weight);
  adw_action_row_set_subtitle (rows->usage_row, text);
  if (weight != rows->shown_weight)
    {
      rows->shown_weight = weight;
      gtk_spin_button_set_value (GTK_SPIN_BUTTON (rows->weight_spin), (double) weight);
    }
  if (memory_max != rows->shown_memory_max)
    {
      rows->shown_memory_max = memory_max;
      gtk_spin_button_set_value (GTK_SPIN_BUTTON (rows->memory_spin),
                                 memory_max == G_MAXUINT64 ? 0 : (double) (memory_max / RCP_MIB));
    }
}

static void
list_slices_cb (GObject      *source,
                GAsyncResult *result,
                gpointer      user_data)
{
  g_autoptr(RcpSlicesPage) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) reply = rcp_client_call_finish (RCP_CLIENT (source), result, &error);
  g_autoptr(GVariant) records = NULL;
  GVariantIter iter;
  GVariant *record;

  self->loading = FALSE;
  if (!rcp_feedback_reply (GTK_WIDGET (self), self->error_label, reply, error, NULL,
                           "Could not list the slices"))
    return;
  records = g_variant_get_child_value (reply, 0);
  g_variant_iter_init (&iter, records);
  while ((record = g_variant_iter_next_value (&iter)) != NULL)
    {
      apply_record (self, record);
      g_variant_unref (record);
    }
}

void
rcp_slices_page_reload (RcpSlicesPage *self)
{
  if (self->loading)
    return;
  self->loading = TRUE;
  rcp_client_call (self->client, "ListSlices", NULL, FALSE, self->cancellable, list_slices_cb,
                   g_object_ref (self));
}

static void
write_cb (GObject      *source,
          GAsyncResult *result,
          gpointer      user_data)
{
  g_autoptr(RcpSlicesPage) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) reply = rcp_client_call_finish (RCP_CLIENT (source), result, &error);

  if (rcp_feedback_reply (GTK_WIDGET (self), self->error_label, reply, error, "Slice limits set",
                          "Could not set the slice limits"))
    rcp_slices_page_reload (self);
}

static void
set_limit (RcpSlicesPage *self,
           int            i,
           const char    *key,
           guint64        value)
{
  GVariantBuilder limits;

  g_variant_builder_init (&limits, G_VARIANT_TYPE_VARDICT);
  g_variant_builder_add (&limits, "{sv}", key, g_variant_new_uint64 (value));
  rcp_client_call (self->client, "SetSliceLimits",
                   g_variant_new ("(sa{sv}a{sv})", slice_info[i].unit, &limits, NULL),
                   TRUE, self->cancellable, write_cb, g_object_ref (self));
}

static void
weight_apply_cb (GtkWidget     *widget,
                 RcpSlicesPage *self)
{
  int i = GPOINTER_TO_INT (g_object_get_data (G_OBJECT (widget), "slice"));

  set_limit (self, i, RC_KEY_CPU_WEIGHT,
             (guint64) gtk_spin_button_get_value_as_int (GTK_SPIN_BUTTON (self->rows[i].weight_spin)));
}

static void
memory_apply_cb (GtkWidget     *widget,
                 RcpSlicesPage *self)
{
  int i = GPOINTER_TO_INT (g_object_get_data (G_OBJECT (widget), "slice"));
  guint64 mib = (guint64) gtk_spin_button_get_value_as_int (GTK_SPIN_BUTTON (self->rows[i].memory_spin));

  set_limit (self, i, RC_KEY_MEMORY_MAX, mib == 0 ? G_MAXUINT64 : mib *RCP_MIB);
}

static AdwActionRow *
spin_row (RcpSlicesPage *self,
          int            i,
          const char    *title,
          double         lower,
          double         upper,
          GCallback      apply_cb,
          GtkWidget    **out_spin)
{
  AdwActionRow *row = ADW_ACTION_ROW (adw_action_row_new ());
  GtkWidget *spin = gtk_spin_button_new_with_range (lower, upper, 1);
  GtkWidget *apply = gtk_button_new_with_label ("Apply");
  g_autofree char *spin_label = g_strdup_printf ("%s of %s", title, slice_info[i].unit);
  g_autofree char *apply_label = g_strdup_printf ("Apply %s of %s", title, slice_info[i].unit);

  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), title);
  gtk_widget_set_valign (spin, GTK_ALIGN_CENTER);
  gtk_widget_set_valign (apply, GTK_ALIGN_CENTER);
  gtk_accessible_update_property (GTK_ACCESSIBLE (spin), GTK_ACCESSIBLE_PROPERTY_LABEL, spin_label, -1);
  gtk_accessible_update_property (GTK_ACCESSIBLE (apply), GTK_ACCESSIBLE_PROPERTY_LABEL, apply_label, -1);
  g_object_set_data (G_OBJECT (spin), "slice", GINT_TO_POINTER (i));
  g_object_set_data (G_OBJECT (apply), "slice", GINT_TO_POINTER (i));
  /* Enter in the number applies it (GtkSpinButton has no "activate" before GTK 4.14) */
  g_object_set_data (G_OBJECT (gtk_editable_get_delegate (GTK_EDITABLE (spin))), "slice", GINT_TO_POINTER (i));
  g_signal_connect (gtk_editable_get_delegate (GTK_EDITABLE (spin)), "activate", apply_cb, self);
  g_signal_connect (apply, "clicked", apply_cb, self);
  adw_action_row_add_suffix (row, spin);
  adw_action_row_add_suffix (row, apply);
  *out_spin = spin;
  return row;
}

static void
rcp_slices_page_dispose (GObject *object)
{
  RcpSlicesPage *self = RCP_SLICES_PAGE (object);

  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  g_clear_object (&self->client);
  G_OBJECT_CLASS (rcp_slices_page_parent_class)->dispose (object);
}

static void
rcp_slices_page_class_init (RcpSlicesPageClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = rcp_slices_page_dispose;
}

static void
rcp_slices_page_init (RcpSlicesPage *self)
{
  AdwPreferencesPage *page = ADW_PREFERENCES_PAGE (adw_preferences_page_new ());
  AdwPreferencesGroup *group = ADW_PREFERENCES_GROUP (adw_preferences_group_new ());

  self->cancellable = g_cancellable_new ();
  self->error_label = rcp_feedback_label_new ();
  adw_preferences_group_add (group, self->error_label);
  adw_preferences_page_add (page, group);
  for (int i = 0; i < N_SLICES; i++)
    {
      SliceRows *rows = &self->rows[i];

      group = ADW_PREFERENCES_GROUP (adw_preferences_group_new ());
      adw_preferences_group_set_title (group, slice_info[i].unit);
      adw_preferences_group_set_description (group, slice_info[i].description);
      rows->usage_row = ADW_ACTION_ROW (adw_action_row_new ());
      adw_preferences_row_set_title (ADW_PREFERENCES_ROW (rows->usage_row), "Use");
      adw_preferences_group_add (group, GTK_WIDGET (rows->usage_row));
      adw_preferences_group_add (group, GTK_WIDGET (spin_row (self, i, "CPU weight", 1, 10000,
                                                              G_CALLBACK (weight_apply_cb),
                                                              &rows->weight_spin)));
      adw_preferences_group_add (group, GTK_WIDGET (spin_row (self, i, "Memory limit in MiB", 0,
                                                              1024 * 1024, G_CALLBACK (memory_apply_cb),
                                                              &rows->memory_spin)));
      adw_preferences_page_add (page, group);
    }
  adw_bin_set_child (ADW_BIN (self), GTK_WIDGET (page));
}

GtkWidget *
rcp_slices_page_new (RcpClient *client)
{
  RcpSlicesPage *self = g_object_new (RCP_TYPE_SLICES_PAGE, NULL);

  self->client = g_object_ref (client);
  return GTK_WIDGET (self);
}
