/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "rcp-limit-effects.h"

#include "rc-api-keys.h"

#include "rcp-format.h"

typedef enum
{
  PRESSURE_CPU,
  PRESSURE_MEMORY,
  PRESSURE_IO,
  N_PRESSURES,
} Pressure;

static const struct
{
  const char *key;
  const char *title;
} pressures[N_PRESSURES] = {
  { RC_KEY_CPU_PRESSURE, "Waiting for CPU" },
  { RC_KEY_MEMORY_PRESSURE, "Waiting for memory" },
  { RC_KEY_IO_PRESSURE, "Waiting for disk" },
};

struct _RcpLimitEffects
{
  AdwPreferencesGroup parent_instance;

  GtkWidget *memory_row;
  GtkWidget *cpu_row;
  GtkWidget *pressure_rows[N_PRESSURES];
  GtkWidget *pressure_labels[N_PRESSURES];
  GtkWidget *oom_row;
};

G_DEFINE_TYPE (RcpLimitEffects, rcp_limit_effects, ADW_TYPE_PREFERENCES_GROUP)

static GtkWidget *
text_row (const char *title,
          const char *subtitle)
{
  GtkWidget *row = adw_action_row_new ();

  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), title);
  adw_action_row_set_subtitle (ADW_ACTION_ROW (row), subtitle);
  gtk_widget_set_visible (row, FALSE);
  return row;
}

static void
rcp_limit_effects_class_init (RcpLimitEffectsClass *klass)
{
}

static void
rcp_limit_effects_init (RcpLimitEffects *self)
{
  AdwPreferencesGroup *group = ADW_PREFERENCES_GROUP (self);

  adw_preferences_group_set_title (group, "What the limits do");
  self->memory_row = text_row ("Slowed down by its memory limit",
                               "The system takes memory back from it as it reaches its limit");
  adw_preferences_group_add (group, self->memory_row);
  self->cpu_row = text_row ("Held back by its CPU limit", "It would use more CPU than its limit allows");
  adw_preferences_group_add (group, self->cpu_row);
  for (guint i = 0; i < N_PRESSURES; i++)
    {
      self->pressure_rows[i] = text_row (pressures[i].title, "Share of the last 10 s");
      self->pressure_labels[i] = gtk_label_new (NULL);
      adw_action_row_add_suffix (ADW_ACTION_ROW (self->pressure_rows[i]), self->pressure_labels[i]);
      adw_preferences_group_add (group, self->pressure_rows[i]);
    }
  self->oom_row = text_row (NULL, "Since it started");
  adw_preferences_group_add (group, self->oom_row);
  gtk_widget_set_visible (GTK_WIDGET (self), FALSE);
}

GtkWidget *
rcp_limit_effects_new (void)
{
  return g_object_new (RCP_TYPE_LIMIT_EFFECTS, NULL);
}

void
rcp_limit_effects_update (RcpLimitEffects *self,
                          RcpApp          *app)
{
  gboolean any;
  guint64 oom_kills = 0;

  gtk_widget_set_visible (self->memory_row, rcp_app_get_memory_limited (app));
  gtk_widget_set_visible (self->cpu_row, (rcp_app_get_held (app) & RCP_HELD_CPU) != 0);
  any = rcp_app_get_memory_limited (app) || (rcp_app_get_held (app) & RCP_HELD_CPU) != 0;
  for (guint i = 0; i < N_PRESSURES; i++)
    {
      double percent;
      gboolean shown = rcp_app_get_pressure (app, pressures[i].key, &percent);

      if (shown)
        {
          g_autofree char *text = rcp_format_pressure (percent);
          g_autofree char *a11y = g_strdup_printf ("%s %s", pressures[i].title, text);

          gtk_label_set_text (GTK_LABEL (self->pressure_labels[i]), text);
          gtk_accessible_update_property (GTK_ACCESSIBLE (self->pressure_rows[i]),
                                          GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, a11y, -1);
        }
      gtk_widget_set_visible (self->pressure_rows[i], shown);
      any = any || shown;
    }
  if (rcp_app_get_memory_event (app, "oom_kill", &oom_kills) && oom_kills > 0)
    {
      g_autofree char *text = rcp_format_oom_kills (oom_kills);

      adw_preferences_row_set_title (ADW_PREFERENCES_ROW (self->oom_row), text);
    }
  gtk_widget_set_visible (self->oom_row, oom_kills > 0);
  any = any || oom_kills > 0;
  gtk_widget_set_visible (GTK_WIDGET (self), any);
}
