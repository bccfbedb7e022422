/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* libFuzzer target: the rules files (rc-rules-file.c) and the SetRule
 * validator. The input is read twice: as a rules file's bytes, and as a
 * serialized a{sv} as a SetRule caller would send it (untrusted, as GDBus
 * reads it). What either accepts must survive being written as a group
 * and read back. */
#include "fuzz-common.h"
#include "rc-api-keys.h"
#include "rc-error.h"
#include "rc-rules.h"
#include "rc-unit-name.h"

#include <string.h>

#define FUZZ_APP_ID "org.example.Fuzz"

/* This machine's CPU count, read at the first input. */
static guint n_cpus;

typedef struct {
  GHashTable   *rules[RC_RULES_N_LAYERS];
  GHashTable   *slices[RC_RULES_N_LAYERS];
  RcBoost       boost;
  RcNotifyRules notify;
  RcGuardRules  guard;
  GPtrArray    *problems;
} Parsed;

static void
parse (Parsed     *parsed,
       const char *data,
       gsize       size)
{
  for (guint i = 0; i < RC_RULES_N_LAYERS; i++)
    {
      parsed->rules[i] = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
      parsed->slices[i] = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
    }
  /* the defaults the store starts each reading from */
  parsed->boost = (RcBoost) { .enabled = TRUE };
  rc_limits_set (&parsed->boost.limits, RC_LIMIT_CPU_WEIGHT, RC_BOOST_WEIGHT_DEFAULT);
  rc_limits_set (&parsed->boost.limits, RC_LIMIT_IO_WEIGHT, RC_BOOST_WEIGHT_DEFAULT);
  rc_limits_set (&parsed->boost.limits, RC_LIMIT_MEMORY_LOW, RC_BOOST_MEMORY_LOW_DEFAULT);
  parsed->notify = RC_NOTIFY_RULES_DEFAULT;
  parsed->guard = RC_GUARD_RULES_DEFAULT;
  parsed->problems = g_ptr_array_new_with_free_func (g_free);
  rc_rules_parse_data (data, size, "fuzz.conf", parsed->rules, parsed->slices, &parsed->boost,
                       &parsed->notify, &parsed->guard, parsed->problems);
}

static void
parsed_clear (Parsed *parsed)
{
  for (guint i = 0; i < RC_RULES_N_LAYERS; i++)
    {
      g_hash_table_unref (parsed->rules[i]);
      g_hash_table_unref (parsed->slices[i]);
    }
  g_ptr_array_unref (parsed->problems);
}

static gboolean
limits_equal (const RcLimits *a,
              const RcLimits *b)
{
  if (a->set != b->set)
    return FALSE;
  for (RcLimit limit = 0; limit < RC_N_LIMITS; limit++)
    if (rc_limits_has (a, limit) && a->values[limit] != b->values[limit])
      return FALSE;
  return TRUE;
}

/* SetRule writes @rule as a group of a user file; the next reading must
 * give it back, without a problem. */
static void
check_written (const RcRule *rule)
{
  g_autoptr(GKeyFile) file = g_key_file_new ();
  g_autofree char *text = NULL;
  const RcRule *back;
  Parsed parsed;
  gsize length;

  rc_rules_write_group (file, FUZZ_APP_ID, rule);
  text = g_key_file_to_data (file, &length, NULL);
  parse (&parsed, text, length);
  for (guint i = 0; i < parsed.problems->len; i++)
    g_printerr ("%s\n%s\n", text, (const char *) g_ptr_array_index (parsed.problems, i));
  FUZZ_ASSERT (parsed.problems->len == 0);
  back = g_hash_table_lookup (parsed.rules[RC_RULES_LAYER_BASE], FUZZ_APP_ID);
  FUZZ_ASSERT (back != NULL);
  FUZZ_ASSERT (limits_equal (&back->limits, &rule->limits));
  FUZZ_ASSERT (back->freeze_when_inactive_sec == rule->freeze_when_inactive_sec);
  parsed_clear (&parsed);
}

/* What a file says is a rule SetRule would take (ListRules hands it out
 * in that form), unless it is empty. */
static void
check_rule (const char   *app_id,
            const RcRule *rule)
{
  g_autoptr(GVariant) limits = g_variant_ref_sink (rc_limits_to_app_changes (&rule->limits));
  g_auto(GVariantBuilder) builder = G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE_VARDICT);
  g_autoptr(GVariant) dict = NULL;
  g_autoptr(GError) error = NULL;
  GVariantIter iter;
  GVariant *entry;
  RcRule again;

  FUZZ_ASSERT (rc_app_id_is_valid (app_id));
  FUZZ_ASSERT (rc_limits_validate (&rule->limits, n_cpus, NULL));
  FUZZ_ASSERT (rule->freeze_when_inactive_sec <= RC_FREEZE_INACTIVE_MAX_SEC);
  FUZZ_ASSERT (rule->has_freeze || rule->freeze_when_inactive_sec == 0);
  FUZZ_ASSERT (!rule->limits.force);
  if (rule->limits.set == 0 && rule->freeze_when_inactive_sec == 0)
    return;

  g_variant_iter_init (&iter, limits);
  while ((entry = g_variant_iter_next_value (&iter)) != NULL)
    {
      g_variant_builder_add_value (&builder, entry);
      g_variant_unref (entry);
    }
  if (rule->freeze_when_inactive_sec > 0)
    g_variant_builder_add (&builder, "{sv}", RC_KEY_FREEZE_WHEN_INACTIVE_SEC,
                           g_variant_new_uint32 (rule->freeze_when_inactive_sec));
  dict = g_variant_ref_sink (g_variant_builder_end (&builder));
  if (!rc_rule_parse_variant (dict, n_cpus, &again, &error))
    {
      g_printerr ("%s: %s\n", app_id, error->message);
      FUZZ_ASSERT (!"a rule read from a file is refused by SetRule");
    }
  FUZZ_ASSERT (limits_equal (&again.limits, &rule->limits));
  FUZZ_ASSERT (again.freeze_when_inactive_sec == rule->freeze_when_inactive_sec);
  check_written (rule);
}

static void
fuzz_file (const guint8 *data,
           size_t        size)
{
  Parsed parsed;

  parse (&parsed, (const char *) data, size);
  for (guint i = 0; i < RC_RULES_N_LAYERS; i++)
    {
      GHashTableIter iter;
      gpointer key, value;

      g_hash_table_iter_init (&iter, parsed.rules[i]);
      while (g_hash_table_iter_next (&iter, &key, &value))
        check_rule (key, value);
      g_hash_table_iter_init (&iter, parsed.slices[i]);
      while (g_hash_table_iter_next (&iter, &key, &value))
        {
          FUZZ_ASSERT (g_str_equal (key, "session.slice") || g_str_equal (key, "app.slice") ||
                       g_str_equal (key, "background.slice"));
          FUZZ_ASSERT (rc_limits_validate (value, n_cpus, NULL));
        }
    }
  /* the boost has its two weights and its MemoryLow, nothing else */
  FUZZ_ASSERT ((parsed.boost.limits.set & ~((1u << RC_LIMIT_CPU_WEIGHT) |
                                            (1u << RC_LIMIT_IO_WEIGHT) |
                                            (1u << RC_LIMIT_MEMORY_LOW))) == 0);
  FUZZ_ASSERT (rc_limits_validate (&parsed.boost.limits, n_cpus, NULL));
  for (guint i = 0; i < parsed.problems->len; i++)
    FUZZ_ASSERT (strlen (g_ptr_array_index (parsed.problems, i)) > 0);
  parsed_clear (&parsed);
}

static void
fuzz_set_rule (const guint8 *data,
               size_t        size)
{
  /* GVariant keeps a pointer to the bytes, and libFuzzer's buffer is only
   * valid for this call: the variant is gone before we return. */
  g_autoptr(GVariant) limits = g_variant_ref_sink (
    g_variant_new_from_data (G_VARIANT_TYPE_VARDICT, data, size, FALSE, NULL, NULL));
  g_autoptr(GError) error = NULL;
  RcRule rule;
  gboolean ok;

  /* Out-parameters are written only on success. */
  memset (&rule, 0xa5, sizeof rule);
  ok = rc_rule_parse_variant (limits, n_cpus, &rule, &error);
  FUZZ_ASSERT (ok == (error == NULL));
  if (!ok)
    {
      FUZZ_ASSERT (g_error_matches (error, RC_ERROR, RC_ERROR_INVALID_ARGUMENT));
      FUZZ_ASSERT (g_utf8_validate (error->message, -1, NULL));
      for (gsize b = 0; b < sizeof rule; b++)
        FUZZ_ASSERT (((const guint8 *) &rule)[b] == 0xa5);
      return;
    }
  FUZZ_ASSERT (rule.limits.set != 0 || rule.freeze_when_inactive_sec > 0);
  FUZZ_ASSERT (rule.freeze_when_inactive_sec <= RC_FREEZE_INACTIVE_MAX_SEC);
  FUZZ_ASSERT (rc_limits_validate (&rule.limits, n_cpus, NULL));
  check_written (&rule);
}

int
LLVMFuzzerTestOneInput (const guint8 *data,
                        size_t        size)
{
  if (n_cpus == 0)
    n_cpus = g_get_num_processors ();
  fuzz_file (data, size);
  fuzz_set_rule (data, size);
  return 0;
}
