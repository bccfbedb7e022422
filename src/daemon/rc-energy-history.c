/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <glib/gstdio.h>
#include <string.h>

#include "rc-energy-history.h"
#include "rc-safe-file.h"

#define HOURS        RC_ENERGY_HISTORY_HOURS
#define MAGIC        "RCENERGY"
#define HEADER_SIZE  16
#define FILE_TYPE    "(ta(sssa(uuu)))"
#define MAX_TEXT     255
#define SYSTEM_ID    ""

/* One hour in which an app used energy. */
typedef struct {
  guint32 hour;              /* since the epoch */
  guint32 foreground_mj;
  guint32 background_mj;
} Hour;

/* Only the hours with energy are kept, oldest first: most apps run a few
 * hours a week, so a week of history costs them a few entries, not 168. */
typedef struct {
  /* GRefStrings, interned (g_ref_string_new_intern): one copy of each
   * text however many apps name it, freed with the last that does */
  char   *app_id;
  char   *name;
  char   *icon;
  GArray *hours;             /* Hour, ascending, at most HOURS */
  /* what is below a millijoule, carried to the next add, never saved */
  guint32 foreground_rest_uj;
  guint32 background_rest_uj;
} AppHours;

struct _RcEnergyHistory {
  GHashTable *apps;          /* app_id -> AppHours */
  guint64     newest_hour;   /* 0: nothing yet */
};

static void
app_hours_free (AppHours *app)
{
  g_ref_string_release (app->app_id);
  g_ref_string_release (app->name);
  g_ref_string_release (app->icon);
  g_array_unref (app->hours);
  g_free (app);
}

RcEnergyHistory *
rc_energy_history_new (void)
{
  RcEnergyHistory *self = g_new0 (RcEnergyHistory, 1);

  self->apps = g_hash_table_new_full (g_str_hash, g_str_equal, NULL,
                                      (GDestroyNotify) app_hours_free);
  return self;
}

void
rc_energy_history_free (RcEnergyHistory *self)
{
  if (self == NULL)
    return;
  g_hash_table_unref (self->apps);
  g_free (self);
}

/* Text kept from a record: valid UTF-8 of at most MAX_TEXT bytes, as an
 * interned GRefString. */
static char *
bounded_text (const char *text)
{
  g_autofree char *cut = NULL;
  const char *end;

  if (text == NULL || !g_utf8_validate (text, -1, &end))
    return g_ref_string_new_intern ("");
  if (strlen (text) <= MAX_TEXT)
    return g_ref_string_new_intern (text);
  end = g_utf8_find_prev_char (text, text + MAX_TEXT + 1);
  cut = g_strndup (text, end - text);
  return g_ref_string_new_intern (cut);
}

/* Replaces the GRefString *@field by @text, bounded. */
static void
set_text (char      **field,
          const char *text)
{
  char *old = *field;

  *field = bounded_text (text);
  g_ref_string_release (old);
}

static AppHours *
app_hours_new (const char *app_id)
{
  AppHours *app = g_new0 (AppHours, 1);

  app->app_id = g_ref_string_new_intern (app_id);
  app->name = g_ref_string_new_intern ("");
  app->icon = g_ref_string_new_intern ("");
  app->hours = g_array_new (FALSE, FALSE, sizeof (Hour));
  return app;
}

/* Drops @app's hours older than the 7 days that end at @newest; TRUE
 * when none is left. */
static gboolean
drop_old_hours (gpointer key,
                gpointer value,
                gpointer user_data)
{
  AppHours *app = value;
  guint64 newest = *(const guint64 *) user_data;
  guint old = 0;

  while (old < app->hours->len &&
         g_array_index (app->hours, Hour, old).hour + (guint64) HOURS <= newest)
    old++;
  if (old > 0)
    g_array_remove_range (app->hours, 0, old);
  return app->hours->len == 0;
}

void
rc_energy_history_advance (RcEnergyHistory *self,
                           guint64          hour)
{
  if (hour <= self->newest_hour)
    return;
  self->newest_hour = hour;
  g_hash_table_foreach_remove (self->apps, drop_old_hours, &self->newest_hour);
}

/* @app's entry for @hour, made (in order) when missing. */
static Hour *
hour_entry (AppHours *app,
            guint32   hour)
{
  guint i = app->hours->len;
  Hour fresh = { hour, 0, 0 };

  /* nearly always the last one, or a new last one */
  while (i > 0 && g_array_index (app->hours, Hour, i - 1).hour > hour)
    i--;
  if (i > 0 && g_array_index (app->hours, Hour, i - 1).hour == hour)
    return &g_array_index (app->hours, Hour, i - 1);
  g_array_insert_val (app->hours, i, fresh);
  return &g_array_index (app->hours, Hour, i);
}

static void
add_to_slot (guint32 *slot_mj,
             guint32 *rest_uj,
             guint64  energy_uj)
{
  guint64 total_uj = energy_uj + *rest_uj;
  guint64 mj = total_uj / 1000;

  *rest_uj = total_uj % 1000;
  *slot_mj = mj > G_MAXUINT32 - *slot_mj ? G_MAXUINT32 : *slot_mj + (guint32) mj;
}

void
rc_energy_history_add (RcEnergyHistory *self,
                       const char      *app_id,
                       const char      *name,
                       const char      *icon,
                       guint64          hour,
                       guint64          energy_uj,
                       gboolean         foreground)
{
  AppHours *app;
  Hour *entry;

  if (app_id == NULL)
    app_id = SYSTEM_ID;
  if (energy_uj > G_MAXUINT64 / 2)
    energy_uj = G_MAXUINT64 / 2;
  rc_energy_history_advance (self, hour);
  if (hour + HOURS <= self->newest_hour || hour > G_MAXUINT32)
    return;
  app = g_hash_table_lookup (self->apps, app_id);
  if (app == NULL)
    {
      /* beyond the bound, a new AppID's part is the system's */
      if (g_hash_table_size (self->apps) >= RC_ENERGY_HISTORY_MAX_APPS || strlen (app_id) > MAX_TEXT)
        app_id = SYSTEM_ID, foreground = FALSE;
      app = g_hash_table_lookup (self->apps, app_id);
      if (app == NULL)
        {
          app = app_hours_new (app_id);
          g_hash_table_insert (self->apps, (gpointer) app->app_id, app);
        }
    }
  if (name != NULL && *app_id != '\0' && g_strcmp0 (name, app->name) != 0)
    set_text (&app->name, name);
  if (icon != NULL && *app_id != '\0' && g_strcmp0 (icon, app->icon) != 0)
    set_text (&app->icon, icon);
  entry = hour_entry (app, hour);
  if (foreground)
    add_to_slot (&entry->foreground_mj, &app->foreground_rest_uj, energy_uj);
  else
    add_to_slot (&entry->background_mj, &app->background_rest_uj, energy_uj);
}

void
rc_energy_history_reset (RcEnergyHistory *self)
{
  g_hash_table_remove_all (self->apps);
}

guint64
rc_energy_history_get_newest_hour (RcEnergyHistory *self)
{
  return self->newest_hour;
}

guint
rc_energy_history_n_apps (RcEnergyHistory *self)
{
  return g_hash_table_size (self->apps);
}

GArray *
rc_energy_history_usage (RcEnergyHistory *self,
                         guint64          since_hour,
                         guint64         *out_system_uj)
{
  GArray *usage = g_array_new (FALSE, TRUE, sizeof (RcEnergyUsage));
  GHashTableIter iter;
  AppHours *app;
  guint64 first;

  *out_system_uj = 0;
  if (self->newest_hour == 0)
    return usage;
  first = self->newest_hour >= HOURS - 1 ? self->newest_hour - (HOURS - 1) : 0;
  first = MAX (first, since_hour);
  g_hash_table_iter_init (&iter, self->apps);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &app))
    {
      RcEnergyUsage one = { app->app_id, app->name, app->icon, 0, 0 };

      for (guint i = 0; i < app->hours->len; i++)
        {
          const Hour *entry = &g_array_index (app->hours, Hour, i);

          if (entry->hour < first || entry->hour > self->newest_hour)
            continue;
          one.foreground_uj += (guint64) entry->foreground_mj * 1000;
          one.background_uj += (guint64) entry->background_mj * 1000;
        }
      if (*app->app_id == '\0')
        *out_system_uj += one.foreground_uj + one.background_uj;
      else if (one.foreground_uj + one.background_uj > 0)
        g_array_append_val (usage, one);
    }
  return usage;
}

GBytes *
rc_energy_history_serialize (RcEnergyHistory *self)
{
  g_auto(GVariantBuilder) apps = G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE ("a(sssa(uuu))"));
  g_autoptr(GVariant) body = NULL;
  GHashTableIter iter;
  AppHours *app;
  guint8 header[HEADER_SIZE] = MAGIC;
  guint32 version = GUINT32_TO_LE (RC_ENERGY_HISTORY_VERSION);
  GByteArray *bytes;

  g_hash_table_iter_init (&iter, self->apps);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &app))
    g_variant_builder_add_value (&apps, g_variant_new (
                                   "(sss@a(uuu))", app->app_id, app->name, app->icon,
                                   g_variant_new_fixed_array (G_VARIANT_TYPE ("(uuu)"),
                                                              app->hours->data, app->hours->len,
                                                              sizeof (Hour))));
  body = g_variant_ref_sink (g_variant_new ("(t@a(sssa(uuu)))", self->newest_hour,
                                            g_variant_builder_end (&apps)));
  /* the file is little-endian whatever the machine */
  if (G_BYTE_ORDER == G_BIG_ENDIAN)
    {
      GVariant *swapped = g_variant_byteswap (body);

      g_variant_unref (body);
      body = swapped;
    }
  memcpy (header + 8, &version, sizeof version);
  bytes = g_byte_array_sized_new (HEADER_SIZE + g_variant_get_size (body));
  g_byte_array_append (bytes, header, HEADER_SIZE);
  g_byte_array_append (bytes, g_variant_get_data (body), g_variant_get_size (body));
  return g_byte_array_free_to_bytes (bytes);
}

static gboolean
fail (GError    **error,
      const char *why)
{
  g_set_error_literal (error, G_FILE_ERROR, G_FILE_ERROR_INVAL, why);
  return FALSE;
}

/* The AppID entries of a parsed body into @self: sizes and names checked. */
static gboolean
parse_apps (RcEnergyHistory *self,
            GVariant        *apps,
            GError         **error)
{
  gsize n = g_variant_n_children (apps);

  if (n > RC_ENERGY_HISTORY_MAX_APPS + 1)
    return fail (error, "too many apps");
  for (gsize i = 0; i < n; i++)
    {
      g_autoptr(GVariant) entry = g_variant_get_child_value (apps, i);
      g_autoptr(GVariant) hours = NULL;
      const char *app_id, *name, *icon;
      const Hour *entries;
      gsize n_hours;
      AppHours *app;

      g_variant_get (entry, "(&s&s&s@a(uuu))", &app_id, &name, &icon, &hours);
      entries = g_variant_get_fixed_array (hours, &n_hours, sizeof (Hour));
      if (n_hours == 0 || n_hours > HOURS)
        return fail (error, "corrupt (an app with no hours or more than 168)");
      if (strlen (app_id) > MAX_TEXT || strlen (name) > MAX_TEXT || strlen (icon) > MAX_TEXT)
        return fail (error, "corrupt (a name too long)");
      if (g_hash_table_contains (self->apps, app_id))
        return fail (error, "corrupt (an app twice)");
      for (gsize h = 0; h < n_hours; h++)
        {
          guint32 hour = GUINT32_FROM_LE (entries[h].hour);

          /* in order, within the 7 days that end at the newest hour */
          if (hour > self->newest_hour || hour + (guint64) HOURS <= self->newest_hour ||
              (h > 0 && hour <= GUINT32_FROM_LE (entries[h - 1].hour)))
            return fail (error, "corrupt (hours out of order or out of the 7 days)");
        }
      app = app_hours_new (app_id);
      set_text (&app->name, name);
      set_text (&app->icon, icon);
      for (gsize h = 0; h < n_hours; h++)
        {
          Hour one = {
            GUINT32_FROM_LE (entries[h].hour), GUINT32_FROM_LE (entries[h].foreground_mj),
            GUINT32_FROM_LE (entries[h].background_mj)
          };

          g_array_append_val (app->hours, one);
        }
      g_hash_table_insert (self->apps, (gpointer) app->app_id, app);
    }
  return TRUE;
}

RcEnergyHistory *
rc_energy_history_parse (GBytes  *bytes,
                         GError **error)
{
  g_autoptr(RcEnergyHistory) self = rc_energy_history_new ();
  g_autoptr(GBytes) body_bytes = NULL;
  g_autoptr(GVariant) body = NULL;
  g_autoptr(GVariant) apps = NULL;
  gsize size;
  const guint8 *data = g_bytes_get_data (bytes, &size);
  guint32 version;

  if (size < 8 || memcmp (data, MAGIC, 8) != 0)
    return fail (error, "not an energy history"), NULL;
  if (size < HEADER_SIZE)
    return fail (error, "cut short"), NULL;
  memcpy (&version, data + 8, sizeof version);
  version = GUINT32_FROM_LE (version);
  if (version != RC_ENERGY_HISTORY_VERSION)
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL, "format version %u, not %u", version,
                   (guint) RC_ENERGY_HISTORY_VERSION);
      return NULL;
    }
  body_bytes = g_bytes_new_from_bytes (bytes, HEADER_SIZE, size - HEADER_SIZE);
  body = g_variant_ref_sink (g_variant_new_from_bytes (G_VARIANT_TYPE (FILE_TYPE), body_bytes,
                                                       FALSE));
  /* a file cut short or scribbled on is not in normal form */
  if (!g_variant_is_normal_form (body))
    return fail (error, "cut short or corrupt"), NULL;
  if (G_BYTE_ORDER == G_BIG_ENDIAN)
    {
      GVariant *swapped = g_variant_byteswap (body);

      g_variant_unref (body);
      body = swapped;
    }
  g_variant_get (body, "(t@a(sssa(uuu)))", &self->newest_hour, &apps);
  if (!parse_apps (self, apps, error))
    return NULL;
  return g_steal_pointer (&self);
}

RcEnergyHistory *
rc_energy_history_load (const char *path)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) bytes = NULL;
  g_autofree char *aside = NULL;
  RcEnergyHistory *history;
  char *contents;
  gsize length;

  if (rc_safe_file_read (path, RC_ENERGY_HISTORY_MAX_FILE, &contents, &length, &error))
    {
      bytes = g_bytes_new_take (contents, length);
      history = rc_energy_history_parse (bytes, &error);
      if (history != NULL)
        return history;
    }
  else if (g_error_matches (error, G_FILE_ERROR, G_FILE_ERROR_NOENT))
    {
      return rc_energy_history_new ();
    }
  aside = g_strconcat (path, ".bad", NULL);
  if (g_rename (path, aside) == 0)
    g_message ("Energy history %s set aside as %s, a new one starts: %s", path, aside,
               error->message);
  else
    g_message ("Energy history %s cannot be used (%s) nor set aside (%s); a new one starts",
               path, error->message, g_strerror (errno));
  return rc_energy_history_new ();
}

gboolean
rc_energy_history_write (const char *path,
                         GBytes     *bytes,
                         GError    **error)
{
  g_autofree char *dir = g_path_get_dirname (path);
  gsize size;
  const char *data = g_bytes_get_data (bytes, &size);

  if (g_mkdir_with_parents (dir, 0700) != 0)
    {
      int saved_errno = errno;

      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved_errno),
                   "Cannot create %s: %s", dir, g_strerror (saved_errno));
      return FALSE;
    }
  return g_file_set_contents_full (path, data, size, G_FILE_SET_CONTENTS_CONSISTENT, 0600, error);
}
