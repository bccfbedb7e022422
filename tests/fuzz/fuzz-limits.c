/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* libFuzzer target: the SetLimits validator. The input is a serialized
 * (a{sv}a{sv}) as the bus would deliver it, limits then options, and is
 * read as untrusted, as GDBus does. */
#include "fuzz-common.h"
#include "rc-limits.h"

#include <string.h>

/* One CPU, the test machines' two, and a large host: the CPUQuota range
 * depends on it. */
static const guint cpu_counts[] = { 1, 2, 1024 };

static void
check_parsed (const RcLimits *limits,
              guint           n_cpus)
{
  g_autoptr(GVariant) properties = g_variant_ref_sink (rc_limits_to_unit_properties (limits));
  g_autoptr(GVariant) changes = g_variant_ref_sink (rc_limits_to_app_changes (limits));
  g_autoptr(GVariant) options = NULL;
  g_autoptr(GError) error = NULL;
  RcLimits again = { 0, };
  guint n_set = 0;

  for (RcLimit limit = 0; limit < RC_N_LIMITS; limit++)
    n_set += rc_limits_has (limits, limit) ? 1 : 0;
  FUZZ_ASSERT (n_set > 0);
  FUZZ_ASSERT (g_variant_is_of_type (properties, G_VARIANT_TYPE ("a(sv)")));
  FUZZ_ASSERT (g_variant_n_children (properties) == n_set);
  FUZZ_ASSERT (g_variant_n_children (changes) == n_set);

  /* What the daemon announces as the app's new limits must itself be a
   * valid SetLimits request for the same limits. */
  options = g_variant_ref_sink (g_variant_new_parsed ("{'force': <%b>}", limits->force));
  FUZZ_ASSERT (rc_limits_parse (changes, options, n_cpus, &again, &error));
  FUZZ_ASSERT (again.set == limits->set && again.force == limits->force);
  for (RcLimit limit = 0; limit < RC_N_LIMITS; limit++)
    if (rc_limits_has (limits, limit))
      FUZZ_ASSERT (again.values[limit] == limits->values[limit]);
}

int
LLVMFuzzerTestOneInput (const guint8 *data,
                        size_t        size)
{
  g_autoptr(GVariant) args = NULL;
  g_autoptr(GVariant) limits = NULL;
  g_autoptr(GVariant) options = NULL;

  /* GVariant keeps a pointer to the bytes, and libFuzzer's buffer is only
   * valid for this call: the variant is gone before we return. */
  args = g_variant_ref_sink (g_variant_new_from_data (G_VARIANT_TYPE ("(a{sv}a{sv})"),
                                                      data, size, FALSE, NULL, NULL));
  limits = g_variant_get_child_value (args, 0);
  options = g_variant_get_child_value (args, 1);

  for (gsize i = 0; i < G_N_ELEMENTS (cpu_counts); i++)
    {
      g_autoptr(GError) error = NULL;
      RcLimits parsed;
      gboolean ok;

      /* Out-parameters are written only on success. */
      memset (&parsed, 0xa5, sizeof parsed);
      ok = rc_limits_parse (limits, options, cpu_counts[i], &parsed, &error);
      FUZZ_ASSERT (ok == (error == NULL));
      if (ok)
        check_parsed (&parsed, cpu_counts[i]);
      else
        {
          FUZZ_ASSERT (error->message != NULL && g_utf8_validate (error->message, -1, NULL));
          for (gsize b = 0; b < sizeof parsed; b++)
            FUZZ_ASSERT (((const guint8 *) &parsed)[b] == 0xa5);
        }
    }

  return 0;
}
