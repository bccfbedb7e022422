/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Table-driven tests of what the focus sources read: Mutter's focus marks,
 * sway's window events, Hyprland's active window, and which source a
 * session's environment picks; the bounds on what a compositor's socket
 * may cost (JSON nesting, the rate of focus reports). */
#include "rc-focus-hyprland.h"
#include "rc-focus-sway.h"
#include "rc-focus-tracker.h"
#include "rc-focus-watch.h"

#include <string.h>

typedef struct {
  const char *json;
  gint64      pid;
} SwayCase;

static const SwayCase sway_cases[] = {
  { "{\"change\":\"focus\",\"container\":{\"id\":4,\"pid\":1234,\"app_id\":\"foot\"}}", 1234 },
  /* i3: an X11 window, no pid */
  { "{\"change\":\"focus\",\"container\":{\"id\":4,\"window\":6291459}}", 0 },
  { "{\"change\":\"focus\",\"container\":{\"pid\":null}}", 0 },
  { "{\"change\":\"focus\",\"container\":{\"pid\":\"12\"}}", 0 },
  { "{\"change\":\"title\",\"container\":{\"pid\":1234}}", 0 },
  { "{\"change\":\"new\"}", 0 },
  { "{\"change\":\"focus\"}", -1 },
  { "{\"change\":\"focus\",\"container\":7}", -1 },
  { "[1,2,3]", -1 },
  { "not json at all", -1 },
  { "{\"change\":\"focus\",\"container\":{\"pid\":", -1 },
  { "", -1 },
};

static void
test_sway_event (void)
{
  for (gsize i = 0; i < G_N_ELEMENTS (sway_cases); i++)
    {
      const SwayCase *c = &sway_cases[i];

      g_test_message ("%s", c->json);
      g_assert_cmpint (rc_focus_sway_parse_event (c->json, strlen (c->json)), ==, c->pid);
    }
}

typedef struct {
  const char *json;
  const char *address;
  gint64      pid;
} HyprlandCase;

static const HyprlandCase hyprland_cases[] = {
  { "{\"address\":\"0x55d0c0d0e0f0\",\"pid\":4321,\"class\":\"kitty\"}", "55d0c0d0e0f0", 4321 },
  { "{\"address\":\"0x55d0c0d0e0f0\",\"pid\":4321}", "0x55D0C0D0E0F0", 4321 },
  /* the focus moved on before Hyprland answered */
  { "{\"address\":\"0x1\",\"pid\":4321}", "2", 0 },
  { "{\"address\":\"0x1\",\"pid\":-1}", "1", 0 },
  { "{\"address\":\"0x1\"}", "1", 0 },
  { "{}", "1", 0 },
  { "Invalid", "1", -1 },
  { "[]", "1", -1 },
  { "", "1", -1 },
};

static void
test_hyprland_window (void)
{
  for (gsize i = 0; i < G_N_ELEMENTS (hyprland_cases); i++)
    {
      const HyprlandCase *c = &hyprland_cases[i];

      g_test_message ("%s at %s", c->json, c->address);
      g_assert_cmpint (rc_focus_hyprland_parse_window (c->json, strlen (c->json), c->address),
                       ==, c->pid);
    }
}

typedef struct {
  const char *environment[4];
  const char *source;
  const char *address;
  gboolean    kwin_running;  /* org.kde.KWin has an owner */
} PickCase;

static const PickCase pick_cases[] = {
  { { NULL }, "none", NULL },
  { { "DISPLAY=:0" }, "x11", ":0" },
  { { "DISPLAY=" }, "none", NULL },
  { { "XDG_CURRENT_DESKTOP=XFCE", "DISPLAY=:1" }, "x11", ":1" },
  /* sway sets DISPLAY too, for Xwayland */
  { { "DISPLAY=:0", "SWAYSOCK=/run/user/1000/sway-ipc.1000.42.sock", "WAYLAND_DISPLAY=wayland-1" },
    "sway", "/run/user/1000/sway-ipc.1000.42.sock" },
  { { "HYPRLAND_INSTANCE_SIGNATURE=abc_1_2", "DISPLAY=:0", "WAYLAND_DISPLAY=wayland-1" },
    "hyprland", "abc_1_2" },
  /* GNOME and Plasma speak for themselves, on Wayland and on X11 */
  { { "XDG_CURRENT_DESKTOP=ubuntu:GNOME", "DISPLAY=:0" }, "gnome", NULL },
  { { "XDG_CURRENT_DESKTOP=KDE", "DISPLAY=:0" }, "kwin", NULL, TRUE },
  { { "XDG_CURRENT_DESKTOP=KDEish", "DISPLAY=:0" }, "x11", ":0", TRUE },
  /* KWin's name counts only on Plasma, and only while it is owned */
  { { "XDG_CURRENT_DESKTOP=KDE", "DISPLAY=:0" }, "x11", ":0" },
  { { "XDG_CURRENT_DESKTOP=KDE", "WAYLAND_DISPLAY=wayland-0" }, "none", NULL },
  { { "XDG_CURRENT_DESKTOP=i3", "DISPLAY=:0" }, "x11", ":0", TRUE },
  { { "SWAYSOCK=/run/user/1000/sway-ipc.1000.42.sock" }, "sway",
    "/run/user/1000/sway-ipc.1000.42.sock", TRUE },
};

static void
test_pick_source (void)
{
  for (gsize i = 0; i < G_N_ELEMENTS (pick_cases); i++)
    {
      const PickCase *c = &pick_cases[i];
      const char *address = "unset";

      g_assert_cmpstr (rc_focus_tracker_pick_source (c->environment, c->kwin_running, &address), ==, c->source);
      g_assert_cmpstr (address, ==, c->address);
    }
}

static void
test_mutter_mark (void)
{
  g_assert_cmpint (rc_focus_parse ("-1", 2), ==, RC_FOCUS_FOCUSED);
  g_assert_cmpint (rc_focus_parse ("-1\n", 3), ==, RC_FOCUS_FOCUSED);
  g_assert_cmpint (rc_focus_parse ("1733240000123456", 16), ==, RC_FOCUS_INACTIVE);
  g_assert_cmpint (rc_focus_parse ("-12", 3), ==, RC_FOCUS_UNKNOWN);
  g_assert_cmpint (rc_focus_parse ("", 0), ==, RC_FOCUS_UNKNOWN);
  g_assert_cmpint (rc_focus_parse ("focused", 7), ==, RC_FOCUS_UNKNOWN);
  /* Not NUL-terminated: only @length bytes count. */
  g_assert_cmpint (rc_focus_parse ("-1xyz", 2), ==, RC_FOCUS_FOCUSED);
}

/* @depth nested arrays inside a focus event whose container has pid 7. */
static char *
nested_event (guint       depth,
              const char *open,
              const char *close)
{
  GString *json = g_string_new ("{\"change\":\"focus\",\"container\":{\"pid\":7,\"x\":");

  for (guint i = 0; i < depth; i++)
    g_string_append (json, open);
  for (guint i = 0; i < depth; i++)
    g_string_append (json, close);
  g_string_append (json, "}}");
  return g_string_free (json, FALSE);
}

static void
test_nested_json (void)
{
  g_autofree char *deep = nested_event (100000, "[", "]");
  g_autofree char *deep_open = nested_event (100000, "{\"a\":", "");
  g_autofree char *deep_unclosed = nested_event (200000, "[", "");
  g_autofree char *allowed = nested_event (RC_FOCUS_JSON_MAX_DEPTH - 3, "[", "]");
  g_autofree char *too_deep = nested_event (RC_FOCUS_JSON_MAX_DEPTH - 1, "[", "]");
  /* brackets in a string are text, not nesting */
  g_autofree char *in_string = nested_event (1, "\"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["
                                             "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[\\\"[[\"", "");

  /* 200 KB: json-glib 1.6's recursive parser overflowed its stack */
  g_assert_cmpint (rc_focus_sway_parse_event (deep, strlen (deep)), ==, -1);
  g_assert_cmpint (rc_focus_sway_parse_event (deep_open, strlen (deep_open)), ==, -1);
  g_assert_cmpint (rc_focus_sway_parse_event (deep_unclosed, strlen (deep_unclosed)), ==, -1);
  g_assert_cmpint (rc_focus_hyprland_parse_window (deep, strlen (deep), "1"), ==, -1);
  /* the event's own two levels and the member's */
  g_assert_cmpint (rc_focus_sway_parse_event (allowed, strlen (allowed)), ==, 7);
  g_assert_cmpint (rc_focus_sway_parse_event (too_deep, strlen (too_deep)), ==, -1);
  g_assert_cmpint (rc_focus_sway_parse_event (in_string, strlen (in_string)), ==, 7);
  g_assert_true (rc_focus_source_json_depth_ok ("[[]]", 4, 2));
  g_assert_false (rc_focus_source_json_depth_ok ("[[[]]]", 6, 2));
  /* only @length bytes count */
  g_assert_true (rc_focus_source_json_depth_ok ("[[[]]]", 2, 2));
}

/* A source that connects to nothing: the test says what it reports. */
#define TEST_TYPE_SOURCE (test_source_get_type ())
G_DECLARE_FINAL_TYPE (TestSource, test_source, TEST, SOURCE, RcFocusSource);
struct _TestSource {
  RcFocusSource parent_instance;
};
G_DEFINE_TYPE (TestSource, test_source, RC_TYPE_FOCUS_SOURCE);

static void
test_source_start (RcFocusSource *source)
{
}

static void
test_source_class_init (TestSourceClass *klass)
{
  RC_FOCUS_SOURCE_CLASS (klass)->start = test_source_start;
}

static void
test_source_init (TestSource *self)
{
}

static void
focused_cb (RcFocusSource *source,
            guint32        pid,
            GArray        *heard)
{
  g_array_append_val (heard, pid);
}

static gboolean
heard_pid_cb (gpointer user_data)
{
  GArray *heard = user_data;

  return heard->len > 0 && g_array_index (heard, guint32, heard->len - 1) == 10000;
}

static void
test_focus_reports_coalesced (void)
{
  g_autoptr(RcFocusSource) source = g_object_new (TEST_TYPE_SOURCE, "name", "test", NULL);
  g_autoptr(GArray) heard = g_array_new (FALSE, FALSE, sizeof (guint32));

  g_signal_connect (source, "focused", G_CALLBACK (focused_cb), heard);
  /* the first report after a quiet time at once */
  rc_focus_source_emit_focused (source, 1);
  g_assert_cmpuint (heard->len, ==, 1);
  /* a flood: only the last of it, when the interval ends */
  for (guint32 pid = 2; pid <= 10000; pid++)
    rc_focus_source_emit_focused (source, pid);
  g_assert_cmpuint (heard->len, ==, 1);
  while (!heard_pid_cb (heard))
    g_main_context_iteration (NULL, TRUE);
  g_assert_cmpuint (heard->len, ==, 2);
  g_assert_cmpuint (g_array_index (heard, guint32, 0), ==, 1);
  /* a closed source says nothing more */
  rc_focus_source_emit_closed (source, "test");
  rc_focus_source_emit_focused (source, 3);
  g_assert_cmpuint (heard->len, ==, 2);
  g_object_run_dispose (G_OBJECT (source));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/focus/mutter-mark", test_mutter_mark);
  g_test_add_func ("/focus/sway-event", test_sway_event);
  g_test_add_func ("/focus/hyprland-window", test_hyprland_window);
  g_test_add_func ("/focus/pick-source", test_pick_source);
  g_test_add_func ("/focus/nested-json", test_nested_json);
  g_test_add_func ("/focus/reports-coalesced", test_focus_reports_coalesced);
  return g_test_run ();
}
