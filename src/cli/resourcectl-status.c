/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* resourcectl status: what the daemon follows (focus, power), whether its
 * automation is paused, which apps it holds for audio, which the
 * responsiveness guard holds back and what the memory ladder does, as it
 * says. */
#include "resourcectl.h"
#include "rc-api-keys.h"
#include "rc-size.h"

#define STATUS_CALL_TIMEOUT_MS 25000

/* A property the daemon may not have (an older daemon): NULL then. */
static GVariant *
cached (RcDBusResourceControl *proxy,
        const char            *name,
        const GVariantType    *type)
{
  g_autoptr(GVariant) value = g_dbus_proxy_get_cached_property (G_DBUS_PROXY (proxy), name);

  if (value == NULL || !g_variant_is_of_type (value, type))
    return NULL;
  return g_steal_pointer (&value);
}

static const char *
cached_string (RcDBusResourceControl *proxy,
               const char            *name,
               char                 **out_owned)
{
  g_autoptr(GVariant) value = cached (proxy, name, G_VARIANT_TYPE_STRING);

  *out_owned = value != NULL ? g_variant_dup_string (value, NULL) : NULL;
  return *out_owned;
}

static const char *
cached_boolean (RcDBusResourceControl *proxy,
                const char            *name,
                const char            *yes,
                const char            *no)
{
  g_autoptr(GVariant) value = cached (proxy, name, G_VARIANT_TYPE_BOOLEAN);

  if (value == NULL)
    return "unknown";
  return g_variant_get_boolean (value) ? yes : no;
}

/* "yes, until 2026-12-06 10:00:00", "yes, until resumed", "no". */
static void
print_paused (RcDBusResourceControl *proxy)
{
  g_autoptr(GVariant) paused = cached (proxy, "Paused", G_VARIANT_TYPE_BOOLEAN);
  g_autoptr(GVariant) until = cached (proxy, "PausedUntil", G_VARIANT_TYPE_UINT64);
  g_autoptr(GDateTime) when = NULL;
  g_autofree char *text = NULL;
  guint64 until_usec = until != NULL ? g_variant_get_uint64 (until) : 0;

  if (paused == NULL)
    text = g_strdup ("unknown");
  else if (!g_variant_get_boolean (paused))
    text = g_strdup ("no");
  else if (until_usec == 0)
    text = g_strdup ("yes, until resumed (resourcectl resume)");
  else
    {
      when = g_date_time_new_from_unix_local ((gint64) MIN (until_usec / G_USEC_PER_SEC,
                                                            (guint64) G_MAXINT32));
      text = when != NULL ? g_date_time_format (when, "yes, until %Y-%m-%d %H:%M:%S") :
             g_strdup ("yes");
    }
  g_print ("Paused:           %s\n", text);
}

/* Where the energy ledger measures, or why it does not. */
static void
print_energy_source (RcDBusResourceControl *proxy)
{
  g_autoptr(GVariant) usage = NULL;
  g_autoptr(GVariant) totals = NULL;
  const char *source = "", *reason = "";

  /* since now: the reply is the totals, no app list to speak of */
  if (!rc_dbus_resource_control_call_get_energy_usage_sync (proxy, g_get_real_time (), &usage,
                                                            &totals, NULL, NULL))
    return;
  g_variant_lookup (totals, "Source", "&s", &source);
  g_variant_lookup (totals, "Reason", "&s", &reason);
  if (*source != '\0')
    g_print ("Energy source:    %s\n", source);
  else
    g_print ("Energy source:    none (%s)\n", reason);
}

/* GuardHeld: "Guard holds back: NAME (UNIT) at CPUWeight 25", one a line. */
static void
print_guard_held (RcDBusResourceControl *proxy)
{
  g_autoptr(GVariant) held = cached (proxy, "GuardHeld", G_VARIANT_TYPE ("a(ssu)"));
  GVariantIter iter;
  const char *unit, *app_id;
  guint32 weight;
  guint n = 0;

  if (held == NULL)
    return;
  g_variant_iter_init (&iter, held);
  while (g_variant_iter_next (&iter, "(&s&su)", &unit, &app_id, &weight))
    {
      g_autofree char *shown_unit = rcctl_printable (unit);
      g_autofree char *shown_app = rcctl_printable (app_id);

      g_print ("%s %s (%s) at CPUWeight %u\n", n++ == 0 ? "Guard holds back:" : "                ",
               shown_app, shown_unit, weight);
    }
  if (n == 0)
    g_print ("Guard holds back: none\n");
}

/* MemoryLadderLevel and MemoryLadderHeld: "Memory:           throttling;
 * NAME (UNIT) at MemoryHigh 1G", one held app a line ("frozen" for a
 * frozen one). */
static void
print_ladder (RcDBusResourceControl *proxy)
{
  g_autofree char *level = NULL;
  g_autoptr(GVariant) held = cached (proxy, "MemoryLadderHeld", G_VARIANT_TYPE ("a(ssst)"));
  GVariantIter iter;
  const char *unit, *app_id, *step;
  guint64 bytes;
  guint n = 0;

  if (cached_string (proxy, "MemoryLadderLevel", &level) == NULL || held == NULL)
    return;
  g_variant_iter_init (&iter, held);
  while (g_variant_iter_next (&iter, "(&s&s&st)", &unit, &app_id, &step, &bytes))
    {
      g_autofree char *shown_level = rcctl_printable (level);
      g_autofree char *shown_unit = rcctl_printable (unit);
      g_autofree char *shown_app = rcctl_printable (app_id);
      g_autofree char *size = rc_size_format (bytes);

      if (n++ == 0)
        g_print ("Memory:           %s; ", shown_level);
      else
        g_print ("                  ");
      if (g_str_equal (step, "frozen"))
        g_print ("%s (%s) frozen\n", shown_app, shown_unit);
      else
        g_print ("%s (%s) at MemoryHigh %s\n", shown_app, shown_unit, size);
    }
  if (n == 0)
    {
      g_autofree char *shown_level = rcctl_printable (level);

      g_print ("Memory:           %s, nothing held\n", shown_level);
    }
}

int
rcctl_run_status (RcDBusResourceControl *proxy)
{
  g_autoptr(GVariant) reply = NULL;
  g_autoptr(GVariant) apps = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) sorted = NULL;
  g_autofree char *version = NULL;
  g_autofree char *focus = NULL;
  g_autofree char *profile = NULL;
  guint held = 0;

  reply = g_dbus_proxy_call_sync (G_DBUS_PROXY (proxy), "ListApps", NULL,
                                  G_DBUS_CALL_FLAGS_NONE, STATUS_CALL_TIMEOUT_MS, NULL, &error);
  if (reply == NULL)
    {
      g_dbus_error_strip_remote_error (error);
      g_printerr ("resourcectl: %s\n", error->message);
      return EXIT_FAILURE;
    }
  g_variant_get (reply, "(@aa{sv})", &apps);

  g_print ("Daemon version:   %s\n",
           cached_string (proxy, "Version", &version) != NULL ? version : "unknown");
  g_print ("Freezing:         %s\n",
           cached_boolean (proxy, "FreezeSupported", "supported",
                           "not supported (cgroup v1 or hybrid)"));
  cached_string (proxy, "FocusSource", &focus);
  g_print ("Focus source:     %s\n", focus != NULL && *focus != '\0' ? focus : "unknown");
  cached_string (proxy, "PowerProfile", &profile);
  g_print ("Power profile:    %s\n",
           profile == NULL ? "unknown"
           : *profile != '\0' ? profile : "none (power-profiles-daemon does not run)");
  g_print ("On battery:       %s\n", cached_boolean (proxy, "OnBattery", "yes", "no"));
  print_paused (proxy);
  print_energy_source (proxy);

  sorted = rcctl_sorted_apps (apps);
  for (guint i = 0; i < sorted->len; i++)
    {
      GVariant *app = g_ptr_array_index (sorted, i);
      gboolean audio = FALSE;
      g_autofree char *name = NULL;
      g_autofree char *unit = NULL;

      if (!g_variant_lookup (app, RC_KEY_AUDIO, "b", &audio) || !audio)
        continue;
      name = rcctl_printable (rcctl_lookup_string (app, RC_KEY_NAME));
      unit = rcctl_printable (rcctl_lookup_string (app, RC_KEY_UNIT));
      g_print ("%s %s (%s)\n", held++ == 0 ? "Held for audio:  " : "                ", name, unit);
    }
  if (held == 0)
    g_print ("Held for audio:   none\n");
  print_guard_held (proxy);
  print_ladder (proxy);
  return EXIT_SUCCESS;
}
