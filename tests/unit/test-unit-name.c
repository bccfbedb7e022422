/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Table-driven tests of the unit-name parser: add a row to extend them. */
#include "rc-error.h"
#include "rc-unit-name.h"
#include "rc-test-util.h"

#include <string.h>

#define SCOPE   RC_UNIT_KIND_SCOPE
#define SERVICE RC_UNIT_KIND_SERVICE

typedef struct {
  const char *unit;
  const char *app_id;    /* NULL: not an app unit */
  const char *launcher;
  const char *instance;
  RcUnitKind  kind;
} ParseCase;

/* Names seen on GNOME, KDE and flatpak systems, and look-alikes that are not apps. */
static const ParseCase parse_cases[] = {
  /* systemd's desktop naming */
  { "app-gnome-org.gnome.Nautilus-3189.scope", "org.gnome.Nautilus", "gnome", "3189", SCOPE },
  { "app-gnome-org.gnome.Calculator-4711.scope", "org.gnome.Calculator", "gnome", "4711", SCOPE },
  { "app-org.kde.dolphin@0a1b2c3d.service", "org.kde.dolphin", "", "0a1b2c3d", SERVICE },
  { "app-org.kde.krita@3f2a.service", "org.kde.krita", "", "3f2a", SERVICE },
  { "app-org.kde.konsole-7b3f9c2e1d.scope", "org.kde.konsole", "", "7b3f9c2e1d", SCOPE },
  { "app-dolphin-4021.scope", "dolphin", "", "4021", SCOPE },
  { "app-flatpak-org.mozilla.firefox-51412.scope", "org.mozilla.firefox", "flatpak", "51412", SCOPE },
  { "app-gnome-google\\x2dchrome-565343.scope", "google-chrome", "gnome", "565343", SCOPE },
  { "app-gnome-xdg\\x2duser\\x2ddirs-1620.scope", "xdg-user-dirs", "gnome", "1620", SCOPE },
  { "app-gnome-org.gnome.Evolution\\x2dalarm\\x2dnotify-1788.scope",
    "org.gnome.Evolution-alarm-notify", "gnome", "1788", SCOPE },
  { "app-gnome-org.gnome.Nautilus.desktop-3189.scope", "org.gnome.Nautilus", "gnome", "3189", SCOPE },
  { "app-gnome-caf\\xc3\\xa9-12.scope", "caf\xc3\xa9", "gnome", "12", SCOPE },
  /* unescaped '-' inside the AppID: first part launcher, last part random */
  { "app-gnome-firefox-esr-2345.scope", "firefox-esr", "gnome", "2345", SCOPE },
  { "app-org.gnome.Terminal.service", "org.gnome.Terminal", "", "", SERVICE },
  { "app-gnome-org.gnome.Terminal.service", "org.gnome.Terminal", "gnome", "", SERVICE },
  { "app-KDE-org.kde.kate-x-y@a1.service", "org.kde.kate-x-y", "KDE", "a1", SERVICE },
  { "app-gnome-org.gnome.Evolution\\x2dalarm\\x2dnotify@autostart.service",
    "org.gnome.Evolution-alarm-notify", "gnome", "autostart", SERVICE },
  /* older forms */
  { "flatpak-com.discordapp.Discord-1234.scope", "com.discordapp.Discord", "flatpak", "1234", SCOPE },
  { "gnome-launched-firefox.desktop-1234.scope", "firefox", "gnome-launched", "1234", SCOPE },
  { "gnome-launched-org.gnome.Maps.desktop-99.scope", "org.gnome.Maps", "gnome-launched", "99", SCOPE },

  /* not apps */
  { "app.slice" },
  { "background.slice" },
  { "-.slice" },
  { "session-2.scope" },
  { "init.scope" },
  { "dbus.service" },
  { "user@1000.service" },
  { "app-gnome-org.gnome.Nautilus-3189.slice" },
  { "app-dolphin-4021.socket" },
  { "" },
  { "app-.scope" },
  { "app--1.scope" },
  { "app-gnome--1.scope" },
  { "app-gnome-foo-.scope" },
  { "app-foo.scope" },             /* no random part */
  { "app-.service" },
  { "app-foo@.service" },          /* a template */
  { "app-@x.service" },
  { "app-foo@bar.scope" },
  { "app-foo@1@2.service" },
  { "app-.desktop-1.scope" },
  { "app-foo-1.SCOPE" },
  { "app-foo-1.scope " },
  { "app-foo\\x2fbar-1.scope" },   /* '/' */
  { "app-foo\\x00-1.scope" },      /* NUL */
  { "app-foo\\x0a-1.scope" },      /* control character */
  { "app-foo\\xff-1.scope" },      /* not UTF-8 */
  { "app-foo\\x2-1.scope" },       /* short escape */
  { "app-foo\\q-1.scope" },        /* not systemd's escaping */
  { "app-gnome-foo-1\\x2f.scope" },
  { "flatpak-foo-abc.scope" },
  { "flatpak-foo.scope" },
  { "flatpak--1.scope" },
  { "flatpak-foo-1.service" },
  { "gnome-launched-.desktop-1.scope" },
  { "dbus-:1.2-org.gnome.Foo@0.service" },
};

typedef struct {
  const char *input;
  gboolean    valid;
} ValidityCase;

static const ValidityCase unit_name_cases[] = {
  { "foo.service", TRUE },
  { "app-gnome-org.gnome.Nautilus-3189.scope", TRUE },
  { "app-gnome-google\\x2dchrome-565343.scope", TRUE },
  { "-.slice", TRUE },
  { "user@1000.service", TRUE },
  { "getty@.service", TRUE },
  { "sys-devices-x.device", TRUE },
  { "proc-sys-fs-binfmt_misc.automount", TRUE },
  { "home.mount", TRUE },
  { "a:b.target", TRUE },
  { "foo.socket", TRUE }, { "foo.timer", TRUE }, { "foo.path", TRUE }, { "foo.swap", TRUE },
  { "", FALSE },
  { ".service", FALSE },
  { "foo", FALSE },
  { "foo.unknown", FALSE },
  { "foo.Service", FALSE },
  { "foo.service.", FALSE },
  { "foo bar.service", FALSE },
  { "foo/bar.service", FALSE },
  { "f\xc3\xb6o.service", FALSE },
  { "@foo.service", FALSE },
  { "a@b@c.service", FALSE },
};

static const ValidityCase app_id_cases[] = {
  { "org.gnome.Nautilus", TRUE },
  { "firefox", TRUE },
  { "google-chrome", TRUE },
  { "com.discordapp.Discord", TRUE },
  { "1password", TRUE },
  { "foo_bar", TRUE },
  { "a", TRUE },
  { "org.gnome.Maps.desktop", TRUE },
  { "", FALSE },
  { ".hidden", FALSE },
  { "-foo", FALSE },
  { "a..b", FALSE },
  { "org/foo", FALSE },
  { "foo bar", FALSE },
  { "foo@bar", FALSE },
  { "foo:bar", FALSE },
  { "google\\x2dchrome", FALSE },
  { "f\xc3\xb6o", FALSE },
  { "app-gnome-org.gnome.Nautilus-3189.scope", FALSE },
  { "org.kde.krita.service", FALSE },
  { "app.slice", FALSE },
};

typedef struct {
  const char *input;
  const char *output;   /* NULL: invalid */
} UnescapeCase;

static const UnescapeCase unescape_cases[] = {
  { "", "" },
  { "plain", "plain" },
  { "google\\x2dchrome", "google-chrome" },
  { "a\\x2Db", "a-b" },
  { "\\x2d\\x2d", "--" },
  { "caf\\xc3\\xa9", "caf\xc3\xa9" },
  { "\\x2f", NULL },
  { "a/b", NULL },
  { "\\x00", NULL },
  { "\\x1b", NULL },
  { "\\x7f", NULL },
  { "\\xff", NULL },
  { "\\xc3", NULL },
  { "\\x", NULL },
  { "\\x4", NULL },
  { "\\xzz", NULL },
  { "\\X2d", NULL },
  { "\\n", NULL },
  { "a\\", NULL },
};

static void
test_parse (gconstpointer data)
{
  const ParseCase *c = data;
  g_autoptr(RcUnitName) name = rc_unit_name_parse (c->unit);

  if (c->app_id == NULL)
    {
      g_assert_null (name);
      return;
    }
  g_assert_nonnull (name);
  g_assert_cmpstr (name->app_id, ==, c->app_id);
  g_assert_cmpstr (name->launcher, ==, c->launcher);
  g_assert_cmpstr (name->instance, ==, c->instance);
  g_assert_cmpint (name->kind, ==, c->kind);
}

static void
test_unit_name_valid (gconstpointer data)
{
  const ValidityCase *c = data;

  g_assert_cmpint (rc_unit_name_is_valid (c->input), ==, c->valid);
}

static void
test_app_id_valid (gconstpointer data)
{
  const ValidityCase *c = data;

  g_assert_cmpint (rc_app_id_is_valid (c->input), ==, c->valid);
}

static void
test_unescape (gconstpointer data)
{
  const UnescapeCase *c = data;
  g_autofree char *out = rc_unit_name_unescape (c->input);

  g_assert_cmpstr (out, ==, c->output);
}

/* "app-" + n 'a's + "-1.scope" is exactly @len bytes long. */
static char *
long_scope_name (gsize len)
{
  g_autofree char *middle = g_strnfill (len - strlen ("app--1.scope"), 'a');

  return g_strdup_printf ("app-%s-1.scope", middle);
}

static void
test_length_limits (void)
{
  g_autofree char *longest = long_scope_name (255);
  g_autofree char *too_long = long_scope_name (256);
  g_autofree char *huge = long_scope_name (300);
  g_autofree char *id_longest = g_strnfill (255, 'a');
  g_autofree char *id_too_long = g_strnfill (256, 'a');
  g_autoptr(RcUnitName) name = NULL;

  g_assert_true (rc_unit_name_is_valid (longest));
  name = rc_unit_name_parse (longest);
  g_assert_nonnull (name);
  g_assert_cmpuint (strlen (name->app_id), ==, 255 - strlen ("app--1.scope"));

  g_assert_false (rc_unit_name_is_valid (too_long));
  g_assert_null (rc_unit_name_parse (too_long));
  g_assert_false (rc_unit_name_is_valid (huge));
  g_assert_null (rc_unit_name_parse (huge));

  g_assert_true (rc_app_id_is_valid (id_longest));
  g_assert_false (rc_app_id_is_valid (id_too_long));
}

static void
test_null (void)
{
  g_assert_false (rc_unit_name_is_valid (NULL));
  g_assert_false (rc_app_id_is_valid (NULL));
  g_assert_null (rc_unit_name_parse (NULL));
  rc_unit_name_free (NULL);
}

/* What callers may pass as an app, and as an AppID for rules: the error
 * says what was wrong and what is allowed. */
typedef struct {
  const char *input;
  gboolean    app_ok;        /* rc_unit_name_check_app_argument */
  gboolean    app_id_ok;     /* rc_app_id_check */
  const char *message;       /* part of the app argument's error, or NULL */
} ArgumentCase;

static const ArgumentCase argument_cases[] = {
  { "org.gnome.Calculator", TRUE, TRUE, NULL },
  { "app-gnome-org.gnome.Calculator-4711.scope", TRUE, FALSE, NULL },
  { "app-org.kde.krita@3f2a.service", TRUE, FALSE, NULL },
  { "", FALSE, FALSE, "No app given" },
  { "../etc/passwd", FALSE, FALSE, "neither a systemd unit name nor a desktop AppID" },
  { "a b", FALSE, FALSE, "neither a systemd unit name nor a desktop AppID" },
};

static void
test_arguments (gconstpointer data)
{
  const ArgumentCase *c = data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GError) id_error = NULL;

  g_assert_cmpint (rc_unit_name_check_app_argument (c->input, &error), ==, c->app_ok);
  g_assert_cmpint (rc_app_id_check (c->input, &id_error), ==, c->app_id_ok);
  if (!c->app_ok)
    {
      g_assert_error (error, RC_ERROR, RC_ERROR_INVALID_ARGUMENT);
      g_assert_nonnull (strstr (error->message, c->message));
    }
  if (!c->app_id_ok)
    {
      g_assert_error (id_error, RC_ERROR, RC_ERROR_INVALID_ARGUMENT);
      g_assert_nonnull (strstr (id_error->message, "is not an AppID"));
    }
}

static void
test_argument_too_long (void)
{
  g_autofree char *name = g_strnfill (256, 'a');
  g_autoptr(GError) error = NULL;

  g_assert_false (rc_unit_name_check_app_argument (name, &error));
  g_assert_error (error, RC_ERROR, RC_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "at most 255"));
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  RC_TEST_ADD_CASES ("/unit-name/parse/", parse_cases, unit, test_parse);
  RC_TEST_ADD_CASES ("/unit-name/is-valid/", unit_name_cases, input, test_unit_name_valid);
  RC_TEST_ADD_CASES ("/unit-name/app-id-is-valid/", app_id_cases, input, test_app_id_valid);
  RC_TEST_ADD_CASES ("/unit-name/unescape/", unescape_cases, input, test_unescape);
  g_test_add_func ("/unit-name/length-limits", test_length_limits);
  g_test_add_func ("/unit-name/null", test_null);
  for (gsize i = 0; i < G_N_ELEMENTS (argument_cases); i++)
    {
      g_autofree char *path = g_strdup_printf ("/unit-name/argument/%" G_GSIZE_FORMAT, i);

      g_test_add_data_func (path, &argument_cases[i], test_arguments);
    }
  g_test_add_func ("/unit-name/argument-too-long", test_argument_too_long);

  return g_test_run ();
}
