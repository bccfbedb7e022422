/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Table-driven tests of the Exec line expansion and of new units' names:
 * add a row to extend them. */
#include "rc-error.h"
#include "rc-exec-line.h"
#include "rc-unit-name.h"

typedef struct {
  const char *exec;
  const char *uris;     /* '|'-separated; NULL for none */
  const char *argv;     /* '|'-separated expected argv; NULL: an error */
  int         code;     /* the error's code when argv is NULL */
} ExecCase;

static const ExecCase exec_cases[] = {
  /* plain, quoting as the spec has it */
  { "gedit", NULL, "gedit", 0 },
  { "gedit --new-window", NULL, "gedit|--new-window", 0 },
  { "\"/opt/my app/run\" --flag", NULL, "/opt/my app/run|--flag", 0 },
  { "sh -c \"echo \\\"\\$HOME\\\"\"", NULL, "sh|-c|echo \"$HOME\"", 0 },
  /* %U and %F take every URI, %u and %f one; files become paths, paths URIs */
  { "app %U", "file:///tmp/a%20b|https://x.org/", "app|file:///tmp/a%20b|https://x.org/", 0 },
  { "app %U", "/tmp/a b", "app|file:///tmp/a%20b", 0 },
  { "app %F", "file:///tmp/a%20b|/tmp/c", "app|/tmp/a b|/tmp/c", 0 },
  { "app %f", "file:///tmp/x", "app|/tmp/x", 0 },
  { "app %u", "https://x.org/", "app|https://x.org/", 0 },
  { "app %U", NULL, "app", 0 },
  { "app %f --end", NULL, "app|--end", 0 },
  /* %i %c %k, %% and the deprecated codes */
  { "app %i", NULL, "app|--icon|my-icon", 0 },
  { "app --title=%c", NULL, "app|--title=My App", 0 },
  { "app %k", NULL, "app|/usr/share/applications/my.desktop", 0 },
  { "app 100%%", NULL, "app|100%", 0 },
  { "app %d%D%n%N%v%m x", NULL, "app|x", 0 },
  { "app \"\" x", NULL, "app||x", 0 },
  /* errors */
  { "app %f", "/tmp/a|/tmp/b", NULL, RC_ERROR_INVALID_ARGUMENT },
  { "app %u", "a:b|c:d", NULL, RC_ERROR_INVALID_ARGUMENT },
  { "app %f", "https://x.org/", NULL, RC_ERROR_INVALID_ARGUMENT },
  { "app", "/tmp/a", NULL, RC_ERROR_INVALID_ARGUMENT },
  { "app %U", "relative/path", NULL, RC_ERROR_INVALID_ARGUMENT },
  { "app --x=%U", NULL, NULL, RC_ERROR_FAILED },
  { "app %z", NULL, NULL, RC_ERROR_FAILED },
  { "app \"unterminated", NULL, NULL, RC_ERROR_FAILED },
  { "", NULL, NULL, RC_ERROR_FAILED },
  { "%U", NULL, NULL, RC_ERROR_FAILED },
  /* a caller's file or URI as the program (fuzz-exec found the %v one) */
  { "%f", "/tmp/x", NULL, RC_ERROR_FAILED },
  { "%U --x", "/tmp/a|/tmp/b", NULL, RC_ERROR_FAILED },
  { "%v %F", "/tmp/a", NULL, RC_ERROR_FAILED },
  /* a file name D-Bus cannot carry (fuzz-exec) */
  { "app %F", "file:///tmp/%FF", NULL, RC_ERROR_INVALID_ARGUMENT },
};

static void
test_exec_expand (void)
{
  for (gsize i = 0; i < G_N_ELEMENTS (exec_cases); i++)
    {
      const ExecCase *c = &exec_cases[i];
      g_auto(GStrv) uris = c->uris != NULL ? g_strsplit (c->uris, "|", -1) : NULL;
      g_auto(GStrv) argv = NULL;
      g_autoptr(GError) error = NULL;
      gboolean ok;

      g_test_message ("Exec=%s uris=%s", c->exec, c->uris ? c->uris : "(none)");
      ok = rc_exec_expand (c->exec, "My App", "my-icon", "/usr/share/applications/my.desktop",
                           (const char * const *) uris, &argv, &error);
      if (c->argv == NULL)
        {
          g_assert_false (ok);
          g_assert_error (error, RC_ERROR, c->code);
          g_assert_cmpstr (error->message, !=, "");
        }
      else
        {
          g_autofree char *joined = NULL;

          g_assert_no_error (error);
          g_assert_true (ok);
          joined = g_strjoinv ("|", argv);
          g_assert_cmpstr (joined, ==, c->argv);
        }
    }
}

static void
test_unit_name_build (void)
{
  struct {
    RcUnitKind  kind;
    const char *launcher, *app_id, *instance, *unit;
  } cases[] = {
    { RC_UNIT_KIND_SERVICE, "rc", "org.gnome.Calculator", "0123456789abcdef",
      "app-rc-org.gnome.Calculator@0123456789abcdef.service" },
    { RC_UNIT_KIND_SCOPE, "sway", "org.gnome.Calculator", "4711",
      "app-sway-org.gnome.Calculator-4711.scope" },
    { RC_UNIT_KIND_SCOPE, "rc", "google-chrome", "5", "app-rc-google\\x2dchrome-5.scope" },
    { RC_UNIT_KIND_SERVICE, "rc", "caf\xc3\xa9 x", "a1", "app-rc-caf\\xc3\\xa9\\x20x@a1.service" },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *unit = rc_unit_name_build (cases[i].kind, cases[i].launcher,
                                                  cases[i].app_id, cases[i].instance);
      g_autoptr(RcUnitName) parsed = NULL;

      g_assert_cmpstr (unit, ==, cases[i].unit);
      /* and it parses back to what it was built from */
      parsed = rc_unit_name_parse (unit);
      g_assert_nonnull (parsed);
      g_assert_cmpstr (parsed->app_id, ==, cases[i].app_id);
      g_assert_cmpstr (parsed->launcher, ==, cases[i].launcher);
      g_assert_cmpstr (parsed->instance, ==, cases[i].instance);
      g_assert_cmpint (parsed->kind, ==, cases[i].kind);
    }
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/exec/expand", test_exec_expand);
  g_test_add_func ("/unit-name/build", test_unit_name_build);
  return g_test_run ();
}
