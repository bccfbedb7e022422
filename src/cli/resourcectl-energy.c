/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* resourcectl energy: what each app used of the battery (or of the CPU
 * package's energy), laid out as a phone's "battery use by app": the
 * daemon's GetEnergyUsage, and with --reset its ResetEnergyUsage. */
#include "resourcectl.h"

#include <stdlib.h>

static char *opt_since;
static gboolean opt_reset;
static guint64 since_hours;

const GOptionEntry rcctl_energy_options[] = {
  { "since", 0, 0, G_OPTION_ARG_STRING, &opt_since,
    "The span: 1h, 24h (the default) or 7d; any N h or N d up to 7 days", "SPAN" },
  { "json", 0, 0, G_OPTION_ARG_NONE, &rcctl_opt_json,
    "Print a JSON object: \"apps\" (one object per app) and \"totals\"", NULL },
  { "reset", 0, 0, G_OPTION_ARG_NONE, &opt_reset, "Forget the history (polkit may ask)", NULL },
  G_OPTION_ENTRY_NULL
};

gboolean
rcctl_parse_energy (char        **args,
                    RcctlRequest *req,
                    GError      **error)
{
  const char *span = opt_since != NULL ? opt_since : "24h";
  gsize len = strlen (span);
  g_autofree char *number = NULL;
  guint64 value;

  if (len < 2 || (span[len - 1] != 'h' && span[len - 1] != 'd'))
    goto bad;
  number = g_strndup (span, len - 1);
  if (!g_ascii_string_to_unsigned (number, 10, 1, span[len - 1] == 'h' ? 168 : 7, &value, NULL))
    goto bad;
  since_hours = span[len - 1] == 'h' ? value : value * 24;
  return TRUE;
bad:
  g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
               "--since takes 1h, 24h or 7d (N h or N d, at most 7 days), not \"%s\"", span);
  return FALSE;
}

static double
lookup_double (GVariant   *dict,
               const char *key)
{
  double value = 0;

  g_variant_lookup (dict, key, "d", &value);
  return value;
}

static char *
format_wh (double joules)
{
  return g_strdup_printf ("%.2f Wh", joules / 3600);
}

static void
print_usage (GVariant *usage,
             GVariant *totals)
{
  g_autoptr(GPtrArray) rows = g_ptr_array_new_with_free_func ((GDestroyNotify) g_strfreev);
  const char *source = "";
  const char *reason = NULL;
  double total = lookup_double (totals, "Energy"), system = lookup_double (totals, "SystemEnergy");
  GVariantIter iter;
  GVariant *app;

  g_variant_lookup (totals, "Source", "&s", &source);
  g_variant_lookup (totals, "Reason", "&s", &reason);
  g_print ("Battery use by app, last %" G_GUINT64_FORMAT " h (source: %s)\n\n", since_hours,
           *source != '\0' ? source : "none");
  if (*source == '\0' && reason != NULL)
    g_print ("Nothing is measured now: %s.\n\n", reason);
  if (total <= 0)
    {
      g_print ("No energy use recorded in this span.\n");
      return;
    }
  g_ptr_array_add (rows, g_strdupv ((char *[]) { "APP", "SHARE", "ENERGY", "FOREGROUND",
                                                 "BACKGROUND", NULL }));
  g_variant_iter_init (&iter, usage);
  while ((app = g_variant_iter_next_value (&iter)) != NULL)
    {
      g_autoptr(GVariant) owned = app;
      const char *name = "", *app_id = "";
      gboolean running = FALSE;
      g_autofree char *label = NULL;
      char **row = g_new0 (char *, 6);

      g_variant_lookup (app, "Name", "&s", &name);
      g_variant_lookup (app, "AppId", "&s", &app_id);
      g_variant_lookup (app, "Running", "b", &running);
      label = g_strdup_printf ("%s%s", name, running ? " *" : "");
      row[0] = rcctl_printable (label);
      row[1] = g_strdup_printf ("%.1f %%", 100 * lookup_double (app, "Share"));
      row[2] = format_wh (lookup_double (app, "Energy"));
      row[3] = format_wh (lookup_double (app, "ForegroundEnergy"));
      row[4] = format_wh (lookup_double (app, "BackgroundEnergy"));
      g_ptr_array_add (rows, row);
    }
  {
    char **row = g_new0 (char *, 6);

    row[0] = g_strdup ("System (services, kernel, idle)");
    row[1] = g_strdup_printf ("%.1f %%", 100 * system / total);
    row[2] = format_wh (system);
    row[3] = g_strdup ("");
    row[4] = g_strdup ("");
    g_ptr_array_add (rows, row);
  }
  rcctl_print_table (rows, 5);
  g_print ("\nTotal: %.2f Wh. * runs now. Shares are by CPU time; see resourcectl(1).\n",
           total / 3600);
}

static void
print_json (GVariant *usage,
            GVariant *totals)
{
  g_autoptr(GVariant) both = g_variant_ref_sink (g_variant_new_parsed ("{'apps': <%@aa{sv}>, 'totals': <%@a{sv}>}",
                                                                       usage, totals));
  g_autoptr(JsonNode) node = json_gvariant_serialize (both);

  rcctl_print_json_node (node);
}

int
rcctl_run_energy (RcDBusResourceControl *proxy)
{
  g_autoptr(GVariant) usage = NULL;
  g_autoptr(GVariant) totals = NULL;
  g_autoptr(GError) error = NULL;
  guint64 now = g_get_real_time ();
  guint64 span = since_hours * 3600 * G_USEC_PER_SEC;

  if (opt_reset)
    {
      g_autoptr(GSubprocess) agent = rcctl_start_tty_agent ();
      g_autoptr(GVariant) reply = NULL;

      reply = g_dbus_proxy_call_sync (G_DBUS_PROXY (proxy), "ResetEnergyUsage", NULL,
                                      G_DBUS_CALL_FLAGS_ALLOW_INTERACTIVE_AUTHORIZATION, G_MAXINT,
                                      NULL, &error);
      if (agent != NULL)
        g_subprocess_force_exit (agent);
      if (reply == NULL)
        return rcctl_report_error (error);
      g_print ("The energy history is forgotten.\n");
      return EXIT_SUCCESS;
    }
  /* the current hour counts in full: "1h" is this hour and the last */
  if (!rc_dbus_resource_control_call_get_energy_usage_sync (proxy, now > span ? now - span : 0,
                                                            &usage, &totals, NULL, &error))
    return rcctl_report_error (error);
  if (rcctl_opt_json)
    print_json (usage, totals);
  else
    print_usage (usage, totals);
  return EXIT_SUCCESS;
}
