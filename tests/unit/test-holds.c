/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The table of holds the guard and the ladder share (rc-holds.c): a value
 * and a reason per unit, the reason taken once for the action record, a
 * hold let go kept until then, the focus dropping a hold and being told. */
#include "rc-holds.h"

typedef struct {
  guint    calls;
  RcApp   *app;
  gboolean focused;
} FocusSeen;

static void
focus_seen_cb (RcApp   *app,
               gboolean focused,
               gpointer user_data)
{
  FocusSeen *seen = user_data;

  seen->calls++;
  seen->app = app;
  seen->focused = focused;
}

static void
test_set_and_get (void)
{
  g_autoptr(RcHolds) holds = rc_holds_new ();

  g_assert_cmpuint (rc_holds_get (holds, "app-a.scope"), ==, 0);
  /* any guint64: a weight or bytes */
  rc_holds_set (holds, "app-a.scope", 25, NULL);
  rc_holds_set (holds, "app-b.scope", G_MAXUINT64 - 1, NULL);
  g_assert_cmpuint (rc_holds_get (holds, "app-a.scope"), ==, 25);
  g_assert_cmpuint (rc_holds_get (holds, "app-b.scope"), ==, G_MAXUINT64 - 1);
  rc_holds_set (holds, "app-a.scope", 12, NULL);
  g_assert_cmpuint (rc_holds_get (holds, "app-a.scope"), ==, 12);
  /* let go without a reason: nothing left */
  rc_holds_set (holds, "app-a.scope", 0, NULL);
  g_assert_cmpuint (rc_holds_get (holds, "app-a.scope"), ==, 0);
  g_assert_null (rc_holds_take_reason (holds, "app-a.scope"));
  g_assert_cmpuint (rc_holds_get (holds, "app-b.scope"), ==, G_MAXUINT64 - 1);
  /* letting go of what is not held leaves nothing either */
  rc_holds_set (holds, "app-c.scope", 0, "given back");
  g_assert_null (rc_holds_take_reason (holds, "app-c.scope"));
  rc_holds_free (NULL);
}

static void
test_reason_taken_once (void)
{
  g_autoptr(RcHolds) holds = rc_holds_new ();
  g_autofree char *reason = NULL;
  g_autofree char *again = NULL;

  rc_holds_set (holds, "app-a.scope", 25, "CPU pressure of the focused app 23 % over 10 %");
  reason = rc_holds_take_reason (holds, "app-a.scope");
  g_assert_cmpstr (reason, ==, "CPU pressure of the focused app 23 % over 10 %");
  g_assert_null (rc_holds_take_reason (holds, "app-a.scope"));
  g_assert_null (rc_holds_take_reason (holds, "app-other.scope"));
  /* the hold stays after its reason is taken */
  g_assert_cmpuint (rc_holds_get (holds, "app-a.scope"), ==, 25);
  /* a new step brings a new reason */
  rc_holds_set (holds, "app-a.scope", 12, "CPU pressure of session.slice 40 % over 10 %");
  again = rc_holds_take_reason (holds, "app-a.scope");
  g_assert_cmpstr (again, ==, "CPU pressure of session.slice 40 % over 10 %");
}

static void
test_let_go_kept_for_the_record (void)
{
  g_autoptr(RcHolds) holds = rc_holds_new ();
  g_autofree char *reason = NULL;

  rc_holds_set (holds, "app-a.scope", 1024, "memory pressure 23 % over 10 %");
  g_free (rc_holds_take_reason (holds, "app-a.scope"));
  /* let go with a reason: no value, the reason kept until the record takes it */
  rc_holds_set (holds, "app-a.scope", 0, "given back");
  g_assert_cmpuint (rc_holds_get (holds, "app-a.scope"), ==, 0);
  reason = rc_holds_take_reason (holds, "app-a.scope");
  g_assert_cmpstr (reason, ==, "given back");
  /* then forgotten */
  g_assert_null (rc_holds_take_reason (holds, "app-a.scope"));
}

static void
test_focus (void)
{
  g_autoptr(RcHolds) holds = rc_holds_new ();
  g_autoptr(RcApp) app = rc_app_new ("app-a.scope", "/a", "org.example.A", "");
  FocusSeen seen = { 0, };

  /* no function: only the hold goes */
  rc_holds_set (holds, "app-a.scope", 25, "lowered");
  rc_holds_note_focus (holds, app, TRUE);
  g_assert_cmpuint (rc_holds_get (holds, "app-a.scope"), ==, 0);
  g_assert_null (rc_holds_take_reason (holds, "app-a.scope"));

  rc_holds_set_focus_func (holds, focus_seen_cb, &seen);
  rc_holds_set (holds, "app-a.scope", 25, NULL);
  /* losing the focus keeps the hold: the policy may hold it again */
  rc_holds_note_focus (holds, app, FALSE);
  g_assert_cmpuint (rc_holds_get (holds, "app-a.scope"), ==, 25);
  g_assert_cmpuint (seen.calls, ==, 1);
  g_assert_true (seen.app == app);
  g_assert_false (seen.focused);
  /* gaining it drops the hold, and then the function is told */
  rc_holds_note_focus (holds, app, TRUE);
  g_assert_cmpuint (rc_holds_get (holds, "app-a.scope"), ==, 0);
  g_assert_cmpuint (seen.calls, ==, 2);
  g_assert_true (seen.focused);
  /* unset: no longer told */
  rc_holds_set_focus_func (holds, NULL, NULL);
  rc_holds_note_focus (holds, app, FALSE);
  g_assert_cmpuint (seen.calls, ==, 2);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/holds/set-and-get", test_set_and_get);
  g_test_add_func ("/holds/reason-taken-once", test_reason_taken_once);
  g_test_add_func ("/holds/let-go-kept-for-the-record", test_let_go_kept_for_the_record);
  g_test_add_func ("/holds/focus", test_focus);
  return g_test_run ();
}
