/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Which value each limit has, and where it comes from: the precedence of
 * docs/design.md ("Authorization and safety": focus boost > last API value
 * > the guard's lowered CPUWeight and the memory ladder's lowered MemoryHigh
 * > rule > default) as a pure function for
 * the writes, and as words for GetLimitSources (`resourcectl why`). */
#include "rc-policy-private.h"
#include "rc-api-keys.h"
#include "rc-limit-table.h"

/* The source kinds of GetLimitSources. */
#define SOURCE_API     "api"         /* set through the API */
#define SOURCE_RULE    "rule"        /* a rules group without a condition */
#define SOURCE_POWER   "power"       /* an @battery or @power-saver group in force */
#define SOURCE_BOOST   "boost"       /* the foreground boost */
#define SOURCE_AUDIO   "audio-hold"  /* kept up by the audio hold, over the rule */
#define SOURCE_GUARD   "guard"       /* lowered by the responsiveness guard */
#define SOURCE_LADDER  "ladder"      /* lowered or frozen by the memory ladder */
#define SOURCE_FREEZE  "freeze"      /* frozen by FreezeWhenInactiveSec */
#define SOURCE_DEFAULT "default"     /* the drop-in's or systemd's default */
#define SOURCE_OUTSIDE "outside"     /* not the default, and not set by the daemon */

static const char *
default_detail (RcLimit limit)
{
  /* CPUWeight 100 is the one default the daemon ships (docs/design.md,
   * "Fair by default"); the others are systemd's own. */
  return limit == RC_LIMIT_CPU_WEIGHT ? "fair-by-default drop-in 10-resource-control.conf" :
         "systemd's default";
}

/* The source of a limit the policy has a value for (@wanted). */
static void
policy_source (RcPolicy       *self,
               Unit           *unit,
               RcLimit         limit,
               const RcLimits *wanted,
               const char    **out_kind,
               char          **out_detail)
{
  const RcBoost *boost = rc_rules_get_boost (self->rules);
  const RcRule *rule = self->paused ? NULL : rc_rules_lookup (self->rules, unit->app->app_id);
  RcRulesLayer layer = RC_RULES_LAYER_BASE;
  const char *origin;

  if (!self->paused && unit->foreground && boost->enabled && rc_limits_has (&boost->limits, limit))
    {
      *out_kind = SOURCE_BOOST;
      *out_detail = g_strdup (self->focus_reason);
    }
  else if (rc_limits_has (unit_api (unit), limit))
    {
      *out_kind = SOURCE_API;
      *out_detail = g_strdup ("set through the API");
    }
  else if (!self->paused && limit == RC_LIMIT_CPU_WEIGHT && !unit->foreground &&
           rc_holds_get (self->guard, unit->app->unit) == wanted->values[limit])
    {
      *out_kind = SOURCE_GUARD;
      *out_detail = g_strdup ("the responsiveness guard: the focused app or session.slice is "
                              "short of CPU");
    }
  else if (limit == RC_LIMIT_MEMORY_HIGH && rc_policy_ladder_in_force (self, unit, wanted))
    {
      *out_kind = SOURCE_LADDER;
      *out_detail = g_strdup ("the memory ladder: app.slice or the user manager is short of "
                              "memory");
    }
  else if (rule != NULL && rc_limits_has (&rule->limits, limit) &&
           wanted->values[limit] != rule->limits.values[limit] && unit->audio)
    {
      g_autofree char *said = rc_action_format_limit (limit, rule->limits.values[limit]);

      *out_kind = SOURCE_AUDIO;
      *out_detail = g_strdup_printf ("playing audio (the rule says %s)", said);
    }
  else if (rule != NULL && rc_limits_has (&rule->limits, limit) &&
           (origin = rc_rules_lookup_origin (self->rules, unit->app->app_id, limit, &layer)) != NULL)
    {
      if (layer == RC_RULES_LAYER_BASE)
        {
          *out_kind = SOURCE_RULE;
          *out_detail = g_strdup (origin);
        }
      else
        {
          g_autofree char *power = rc_action_power_reason (rc_power_watch_get_profile (self->power_watch),
                                                           rc_power_watch_get_on_battery (self->power_watch));

          *out_kind = SOURCE_POWER;
          *out_detail = g_strdup_printf ("%s (%s)", origin, power);
        }
    }
  else
    {
      *out_kind = SOURCE_DEFAULT;
      *out_detail = g_strdup (default_detail (limit));
    }
}

static void
add_source (GVariantBuilder *builder,
            RcApp           *app,
            const char      *key,
            const char      *value,
            const char      *kind,
            const char      *detail)
{
  g_variant_builder_add (builder, "(sssss)", app->unit, key, value, kind, detail);
}

static void
add_freezer_source (RcPolicy        *self,
                    Unit            *unit,
                    RcApp           *app,
                    GVariantBuilder *builder)
{
  const char *state = app->freezer_state != NULL ? app->freezer_state : "";

  if (unit != NULL && unit->ladder_frozen)
    add_source (builder, app, RC_KEY_FREEZER_STATE, state, SOURCE_LADDER,
                "the memory ladder: app.slice or the user manager is short of memory");
  else if (unit != NULL && unit->frozen_by_us)
    {
      const RcRule *rule = rc_rules_lookup (self->rules, app->app_id);
      g_autofree char *detail =
        g_strdup_printf ("inactive for %u s, rule %s", rule != NULL ? rule->freeze_when_inactive_sec : 0,
                         rule != NULL && rule->origin != NULL ? rule->origin : "gone");

      add_source (builder, app, RC_KEY_FREEZER_STATE, state, SOURCE_FREEZE, detail);
    }
  else if (g_str_equal (state, "frozen"))
    add_source (builder, app, RC_KEY_FREEZER_STATE, state, SOURCE_OUTSIDE,
                "frozen through the API or by hand");
  else
    add_source (builder, app, RC_KEY_FREEZER_STATE, state, SOURCE_DEFAULT, "running");
}

/* One instance's rows: each limit the policy has a value for, then each
 * other limit its record shows, as systemd has it. */
static void
add_app_sources (RcPolicy        *self,
                 RcApp           *app,
                 GVariantBuilder *builder)
{
  Unit *unit = g_hash_table_lookup (self->units, app->unit);
  g_autoptr(GVariant) record = g_variant_ref_sink (rc_app_to_variant (app));
  RcLimits wanted = { 0, };
  RcLimits defaults;

  rc_limits_init_reset (&defaults, self->default_tasks_max);
  if (unit != NULL && unit->app == app && rc_app_is_controllable_slice (app->slice))
    rc_policy_effective_limits (self, unit, &wanted);
  else
    unit = NULL;
  for (RcLimit limit = 0; limit < RC_N_LIMITS; limit++)
    {
      g_autoptr(GVariant) shown = g_variant_lookup_value (record, rc_limit_key (limit), NULL);
      g_autofree char *value = NULL;
      g_autofree char *detail = NULL;
      const char *kind;

      /* wanted is empty unless unit is the app's */
      if (unit != NULL && rc_limits_has (&wanted, limit))
        {
          value = rc_action_format_limit (limit, wanted.values[limit]);
          policy_source (self, unit, limit, &wanted, &kind, &detail);
        }
      else if (shown != NULL)
        {
          RcLimits one = { 0, };
          g_autoptr(GVariant) changes = NULL;
          g_autoptr(GVariant) as_default = NULL;

          value = rc_limit_format_value (limit, shown);
          rc_limits_set (&one, limit, defaults.values[limit]);
          changes = g_variant_ref_sink (rc_limits_to_app_changes (&one));
          as_default = g_variant_lookup_value (changes, rc_limit_key (limit), NULL);
          if (g_strcmp0 (value, "-") == 0)
            {
              /* a weight the kernel does not show: its controller is off */
              kind = SOURCE_DEFAULT;
              detail = g_strdup ("not available: its controller is not enabled for the app");
            }
          else if (!rc_limits_has (&defaults, limit) ||
                   (as_default != NULL && g_variant_equal (as_default, shown)))
            {
              kind = SOURCE_DEFAULT;
              detail = g_strdup (default_detail (limit));
            }
          else
            {
              kind = SOURCE_OUTSIDE;
              detail = g_strdup ("not set by resource-control");
            }
        }
      else
        continue;
      add_source (builder, app, rc_limit_key (limit), value != NULL ? value : "-", kind, detail);
    }
  add_freezer_source (self, unit, app, builder);
}

GVariant *
rc_policy_get_limit_sources (RcPolicy  *self,
                             GPtrArray *apps)
{
  g_auto(GVariantBuilder) builder = G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE ("a(sssss)"));

  for (guint i = 0; i < apps->len; i++)
    add_app_sources (self, g_ptr_array_index (apps, i), &builder);
  return g_variant_builder_end (&builder);
}
