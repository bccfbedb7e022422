/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The PipeWire side of the audio watch: pw-dump's JSON batches, as PipeWire
 * 0.3.65 prints them, to the pids that play or record. */
#include "rc-line-splitter.h"
#include "rc-pipewire-watch.h"

#include <string.h>
#include <unistd.h>

/* One batch and the pids that play or record after it (in order). */
typedef struct {
  const char *what;
  const char *json;
  const char *pids;     /* "" for none */
} Batch;

static const Batch batches[] = {
  { "a client with its pid, and the driver nodes",
    "[{ \"id\": 30, \"type\": \"PipeWire:Interface:Client\", \"info\": { \"props\": "
    "{ \"pipewire.sec.pid\": 4242, \"application.process.id\": 4242, "
    "\"application.name\": \"pw-play\" } } },"
    " { \"id\": 27, \"type\": \"PipeWire:Interface:Node\", \"info\": { \"state\": \"running\", "
    "\"props\": { \"node.name\": \"Dummy-Driver\" } } }]", "" },
  { "its stream node, suspended",
    "[{ \"id\": 41, \"type\": \"PipeWire:Interface:Node\", \"info\": { \"state\": \"suspended\", "
    "\"props\": { \"media.class\": \"Stream/Output/Audio\", \"client.id\": 30 } } }]", "" },
  { "the sink runs: not a stream",
    "[{ \"id\": 32, \"type\": \"PipeWire:Interface:Node\", \"info\": { \"state\": \"running\", "
    "\"props\": { \"media.class\": \"Audio/Sink\" } } }]", "" },
  { "the stream runs: its client's pid",
    "[{ \"id\": 41, \"type\": \"PipeWire:Interface:Node\", \"info\": { \"state\": \"running\", "
    "\"props\": { \"media.class\": \"Stream/Output/Audio\", \"client.id\": 30 } } }]", "4242" },
  { "a change without the state keeps it",
    "[{ \"id\": 41, \"type\": \"PipeWire:Interface:Node\", \"info\": { \"change-mask\": "
    "[ \"params\" ], \"props\": { \"media.class\": \"Stream/Output/Audio\", \"client.id\": 30 } } }]",
    "4242" },
  { "a capture stream of another client, whose pid is a string",
    "[{ \"id\": 31, \"type\": \"PipeWire:Interface:Client\", \"info\": { \"props\": "
    "{ \"pipewire.sec.pid\": \"17\", \"application.process.id\": \"17\" } } },"
    " { \"id\": 50, \"type\": \"PipeWire:Interface:Node\", \"info\": { \"state\": \"running\", "
    "\"props\": { \"media.class\": \"Stream/Input/Audio\", \"client.id\": 31 } } }]",
    "17,4242" },
  { "a video stream does not count",
    "[{ \"id\": 51, \"type\": \"PipeWire:Interface:Node\", \"info\": { \"state\": \"running\", "
    "\"props\": { \"media.class\": \"Stream/Input/Video\", \"application.process.id\": 99 } } }]",
    "17,4242" },
  { "the playback stream goes idle",
    "[{ \"id\": 41, \"type\": \"PipeWire:Interface:Node\", \"info\": { \"state\": \"idle\" } }]",
    "17" },
  { "it runs again, then is removed with its client",
    "[{ \"id\": 41, \"type\": \"PipeWire:Interface:Node\", \"info\": { \"state\": \"running\" } },"
    " { \"id\": 41, \"info\": null }, { \"id\": 30, \"info\": null }]", "17" },
  { "the capture stream is removed",
    "[{ \"id\": 50, \"info\": null }]", "" },
};

/* application.process.id is the client's to write: a process that names
 * another one must not have that one held. Only pipewire.sec.pid, which
 * PipeWire's server took from the client's socket, counts. */
static const Batch claimed_pid_batches[] = {
  { "a client and its stream claim another process's pid",
    "[{ \"id\": 70, \"type\": \"PipeWire:Interface:Client\", \"info\": { \"props\": "
    "{ \"pipewire.sec.pid\": 5150, \"application.process.id\": 4242 } } },"
    " { \"id\": 71, \"type\": \"PipeWire:Interface:Node\", \"info\": { \"state\": \"running\", "
    "\"props\": { \"media.class\": \"Stream/Output/Audio\", \"client.id\": 70, "
    "\"application.process.id\": 4242 } } }]", "5150" },
  { "a client without the server's pid counts for none",
    "[{ \"id\": 72, \"type\": \"PipeWire:Interface:Client\", \"info\": { \"props\": "
    "{ \"application.process.id\": 4243 } } },"
    " { \"id\": 73, \"type\": \"PipeWire:Interface:Node\", \"info\": { \"state\": \"running\", "
    "\"props\": { \"media.class\": \"Stream/Output/Audio\", \"client.id\": 72 } } }]", "5150" },
  { "a stream without a client counts for none",
    "[{ \"id\": 74, \"type\": \"PipeWire:Interface:Node\", \"info\": { \"state\": \"running\", "
    "\"props\": { \"media.class\": \"Stream/Input/Audio\", \"application.process.id\": 4244 } } }]",
    "5150" },
  { "a stream that names another client later keeps the first",
    "[{ \"id\": 75, \"type\": \"PipeWire:Interface:Client\", \"info\": { \"props\": "
    "{ \"pipewire.sec.pid\": 6160 } } },"
    " { \"id\": 73, \"type\": \"PipeWire:Interface:Node\", \"info\": { \"props\": "
    "{ \"media.class\": \"Stream/Output/Audio\", \"client.id\": 75 } } }]", "5150" },
};

/* The fake session's pipewire-pulse, and a process of another user. */
#define FAKE_PULSE_PID   900
#define FOREIGN_PID      6666

/* A PulseAudio app plays through pipewire-pulse, whose socket pid is
 * PipeWire's only sure one: the pid the app sent is taken, bounded. A
 * direct client that dresses as one counts for its own pid, as above. */
static const Batch pulse_batches[] = {
  { "a PulseAudio app through pipewire-pulse: the pid it sent",
    "[{ \"id\": 80, \"type\": \"PipeWire:Interface:Client\", \"info\": { \"props\": "
    "{ \"pipewire.sec.pid\": 900, \"client.api\": \"pipewire-pulse\", "
    "\"pulse.server.type\": \"unix\", \"application.process.id\": \"4242\", "
    "\"application.name\": \"Firefox\" } } },"
    " { \"id\": 81, \"type\": \"PipeWire:Interface:Node\", \"info\": { \"state\": \"running\", "
    "\"props\": { \"media.class\": \"Stream/Output/Audio\", \"client.id\": 80 } } }]", "4242" },
  { "a direct client that says it is pipewire-pulse: its own pid",
    "[{ \"id\": 82, \"type\": \"PipeWire:Interface:Client\", \"info\": { \"props\": "
    "{ \"pipewire.sec.pid\": 5150, \"client.api\": \"pipewire-pulse\", "
    "\"pulse.server.type\": \"unix\", \"application.process.id\": 4343 } } },"
    " { \"id\": 83, \"type\": \"PipeWire:Interface:Node\", \"info\": { \"state\": \"running\", "
    "\"props\": { \"media.class\": \"Stream/Output/Audio\", \"client.id\": 82, "
    "\"application.process.id\": 4343 } } }]", "4242,5150" },
  { "a PulseAudio app naming another user's process: none",
    "[{ \"id\": 84, \"type\": \"PipeWire:Interface:Client\", \"info\": { \"props\": "
    "{ \"pipewire.sec.pid\": 900, \"client.api\": \"pipewire-pulse\", "
    "\"application.process.id\": 6666 } } },"
    " { \"id\": 85, \"type\": \"PipeWire:Interface:Node\", \"info\": { \"state\": \"running\", "
    "\"props\": { \"media.class\": \"Stream/Input/Audio\", \"client.id\": 84 } } }]",
    "4242,5150" },
  { "a sandboxed PulseAudio app (its pid is its namespace's): none",
    "[{ \"id\": 86, \"type\": \"PipeWire:Interface:Client\", \"info\": { \"props\": "
    "{ \"pipewire.sec.pid\": 900, \"client.api\": \"pipewire-pulse\", "
    "\"pipewire.access.portal.app_id\": \"\", \"application.process.id\": 4444 } } },"
    " { \"id\": 87, \"type\": \"PipeWire:Interface:Node\", \"info\": { \"state\": \"running\", "
    "\"props\": { \"media.class\": \"Stream/Output/Audio\", \"client.id\": 86 } } },"
    " { \"id\": 88, \"type\": \"PipeWire:Interface:Client\", \"info\": { \"props\": "
    "{ \"pipewire.sec.pid\": 900, \"client.api\": \"pipewire-pulse\", "
    "\"pipewire.client.access\": \"flatpak\", \"application.process.id\": 4445 } } },"
    " { \"id\": 89, \"type\": \"PipeWire:Interface:Node\", \"info\": { \"state\": \"running\", "
    "\"props\": { \"media.class\": \"Stream/Output/Audio\", \"client.id\": 88 } } }]",
    "4242,5150" },
  { "a PulseAudio app over TCP, or naming pipewire-pulse or no one: none",
    "[{ \"id\": 90, \"type\": \"PipeWire:Interface:Client\", \"info\": { \"props\": "
    "{ \"pipewire.sec.pid\": 900, \"client.api\": \"pipewire-pulse\", "
    "\"pulse.server.type\": \"tcp\", \"application.process.id\": 4446 } } },"
    " { \"id\": 91, \"type\": \"PipeWire:Interface:Node\", \"info\": { \"state\": \"running\", "
    "\"props\": { \"media.class\": \"Stream/Output/Audio\", \"client.id\": 90 } } },"
    " { \"id\": 92, \"type\": \"PipeWire:Interface:Client\", \"info\": { \"props\": "
    "{ \"pipewire.sec.pid\": 900, \"client.api\": \"pipewire-pulse\", "
    "\"application.process.id\": 900 } } },"
    " { \"id\": 93, \"type\": \"PipeWire:Interface:Node\", \"info\": { \"state\": \"running\", "
    "\"props\": { \"media.class\": \"Stream/Output/Audio\", \"client.id\": 92 } } },"
    " { \"id\": 94, \"type\": \"PipeWire:Interface:Client\", \"info\": { \"props\": "
    "{ \"pipewire.sec.pid\": 900, \"client.api\": \"pipewire-pulse\" } } },"
    " { \"id\": 95, \"type\": \"PipeWire:Interface:Node\", \"info\": { \"state\": \"running\", "
    "\"props\": { \"media.class\": \"Stream/Output/Audio\", \"client.id\": 94 } } }]",
    "4242,5150" },
  { "the app changes the pid it sent: the new one, checked again",
    "[{ \"id\": 80, \"type\": \"PipeWire:Interface:Client\", \"info\": { \"props\": "
    "{ \"pipewire.sec.pid\": 900, \"client.api\": \"pipewire-pulse\", "
    "\"application.process.id\": 4545 } } }]", "4545,5150" },
  { "and then another user's: none",
    "[{ \"id\": 80, \"type\": \"PipeWire:Interface:Client\", \"info\": { \"props\": "
    "{ \"pipewire.sec.pid\": 900, \"client.api\": \"pipewire-pulse\", "
    "\"application.process.id\": 6666 } } }]", "5150" },
};

static gboolean
fake_is_pulse_server (guint32 pid)
{
  return pid == FAKE_PULSE_PID;
}

static gboolean
fake_is_own_process (guint32 pid)
{
  return pid != 0 && pid != FOREIGN_PID;
}

static char *
pids_text (RcPipewireWatch *watch)
{
  g_autoptr(GArray) pids = rc_pipewire_watch_get_pids (watch);
  GString *text = g_string_new (NULL);

  for (guint i = 0; i < pids->len; i++)
    g_string_append_printf (text, "%s%u", i > 0 ? "," : "", g_array_index (pids, guint32, i));
  return g_string_free (text, FALSE);
}

static void
count_cb (RcPipewireWatch *watch,
          guint           *count)
{
  (*count)++;
}

static void
check_batches (const Batch *table,
               guint        n_batches)
{
  g_autoptr(RcPipewireWatch) watch = rc_pipewire_watch_new ();
  guint changes = 0;
  guint expected_changes = 0;
  g_autofree char *last = g_strdup ("");

  /* no process here is looked at in /proc */
  rc_pipewire_watch_set_pid_checks (watch, fake_is_pulse_server, fake_is_own_process);
  g_signal_connect (watch, "changed", G_CALLBACK (count_cb), &changes);
  for (guint i = 0; i < n_batches; i++)
    {
      g_autoptr(GError) error = NULL;
      g_autofree char *pids = NULL;

      g_test_message ("%s", table[i].what);
      g_assert_true (rc_pipewire_watch_parse (watch, table[i].json, -1, &error));
      g_assert_no_error (error);
      pids = pids_text (watch);
      g_assert_cmpstr (pids, ==, table[i].pids);
      /* "changed" only when the pids change */
      if (g_strcmp0 (pids, last) != 0)
        expected_changes++;
      g_assert_cmpuint (changes, ==, expected_changes);
      g_free (last);
      last = g_steal_pointer (&pids);
    }
}

static void
test_pipewire_batches (void)
{
  check_batches (batches, G_N_ELEMENTS (batches));
}

static void
test_pipewire_claimed_pid (void)
{
  check_batches (claimed_pid_batches, G_N_ELEMENTS (claimed_pid_batches));
}

static void
test_pipewire_pulse_client (void)
{
  check_batches (pulse_batches, G_N_ELEMENTS (pulse_batches));
}

/* What /proc/PID/exe may point to for pipewire-pulse to be believed. */
static void
test_pulse_server_exe (void)
{
  static const struct {
    const char *exe;
    gboolean    is_pulse_server;
  } exes[] = {
    { "/usr/bin/pipewire-pulse", TRUE },
    { "/usr/bin/pipewire", TRUE },
    { "/bin/pipewire", TRUE },
    { "/usr/bin/pipewire (deleted)", TRUE },
    { "/home/user/bin/pipewire-pulse", FALSE },
    { "/tmp/usr/bin/pipewire", FALSE },
    { "/usr/local/bin/pipewire-pulse", FALSE },
    { "/usr/bin/pipewire-pulse-helper", FALSE },
    { "/usr/bin/pipewire-avb", FALSE },
    { "/usr/bin/pipewire (deleted) (deleted)", FALSE },
    { "pipewire-pulse", FALSE },
    { "", FALSE },
  };

  for (guint i = 0; i < G_N_ELEMENTS (exes); i++)
    {
      g_test_message ("%s", exes[i].exe);
      g_assert_cmpint (rc_pipewire_exe_is_pulse_server (exes[i].exe), ==, exes[i].is_pulse_server);
    }
  /* this test program is ours and alive, and no PipeWire */
  g_assert_true (rc_pipewire_pid_is_own_process (getpid ()));
  g_assert_false (rc_pipewire_pid_is_pulse_server (getpid ()));
  g_assert_false (rc_pipewire_pid_is_own_process (0));
}

static void
test_pipewire_nonsense (void)
{
  g_autoptr(RcPipewireWatch) watch = rc_pipewire_watch_new ();
  static const char * const bad[] = { "[{ \"id\": ", "{ \"id\": 1 }", "",
                                      /* bytes a client's property can hold */
                                      "[{ \"id\": 1, \"x\": \"\xff\xfe\" }]" };
  static const char nul[] = "[{ \"id\": 1, \"x\": \"a\0b\" }]";
  g_autoptr(GError) nul_error = NULL;

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr(GError) error = NULL;

      g_assert_false (rc_pipewire_watch_parse (watch, bad[i], -1, &error));
      g_assert_nonnull (error);
    }
  g_assert_false (rc_pipewire_watch_parse (watch, nul, sizeof nul - 1, &nul_error));
  g_assert_nonnull (nul_error);
  /* objects without an id or of other kinds are passed over */
  g_assert_true (rc_pipewire_watch_parse (watch, "[1, \"x\", { \"type\": \"Node\" }]", -1,
                                          NULL));
}

/* The longest line kept of pw-dump's output (PW_LINE_MAX), and how long a
 * line a client can make with a property of its own. */
#define LINE_MAX_KEPT   (64 * 1024)
#define HUGE_LINE       (10 * 1024 * 1024)

typedef struct {
  GPtrArray *lines;     /* "" for a line too long */
  guint      overlong;
  guint      stop_after; /* lines taken before stopping; 0 for never */
} Lines;

static gboolean
collect_line_cb (const char *line,
                 gsize       length,
                 gpointer    user_data)
{
  Lines *lines = user_data;

  if (line == NULL)
    lines->overlong++;
  else
    g_assert_cmpuint (strlen (line), ==, length);
  g_ptr_array_add (lines->lines, g_strdup (line != NULL ? line : ""));
  return lines->stop_after == 0 || lines->lines->len < lines->stop_after;
}

/* A line of 10 MiB among short ones, fed in pieces of several sizes: the
 * short ones come whole, the long one is reported once and never held,
 * and a line exactly as long as the limit is still taken. */
static void
test_line_splitter_bounds_a_line (void)
{
  static const gsize pieces[] = { 1, 7, 4096, 65536, 65537, 1024 * 1024 };
  g_autoptr(GString) stream = g_string_new ("first\n\nsecond");
  g_autofree char *longest = g_strnfill (LINE_MAX_KEPT, 'k');

  g_string_append_c (stream, '\n');
  g_string_append (stream, "[");
  for (gsize i = 0; i < HUGE_LINE; i++)
    g_string_append_c (stream, 'x');
  g_string_append (stream, "]\n");
  g_string_append_printf (stream, "%s\n%sk\nlast\nunfinished", longest, longest);

  for (guint p = 0; p < G_N_ELEMENTS (pieces); p++)
    {
      g_autoptr(RcLineSplitter) splitter = rc_line_splitter_new (LINE_MAX_KEPT);
      Lines lines = { g_ptr_array_new_with_free_func (g_free), 0, 0 };

      g_test_message ("pieces of %" G_GSIZE_FORMAT " bytes", pieces[p]);
      for (gsize done = 0; done < stream->len; done += pieces[p])
        {
          g_assert_true (rc_line_splitter_feed (splitter, stream->str + done,
                                                MIN (pieces[p], stream->len - done),
                                                collect_line_cb, &lines));
          g_assert_cmpuint (rc_line_splitter_get_held (splitter), <=, LINE_MAX_KEPT);
        }
      g_assert_cmpuint (lines.overlong, ==, 2);
      g_assert_cmpuint (lines.lines->len, ==, 7);
      g_assert_cmpstr (g_ptr_array_index (lines.lines, 0), ==, "first");
      g_assert_cmpstr (g_ptr_array_index (lines.lines, 1), ==, "");
      g_assert_cmpstr (g_ptr_array_index (lines.lines, 2), ==, "second");
      g_assert_cmpstr (g_ptr_array_index (lines.lines, 3), ==, "");      /* the 10 MiB one */
      g_assert_cmpstr (g_ptr_array_index (lines.lines, 4), ==, longest);
      g_assert_cmpstr (g_ptr_array_index (lines.lines, 5), ==, "");      /* one byte more */
      g_assert_cmpstr (g_ptr_array_index (lines.lines, 6), ==, "last");
      /* the line begun waits for its end */
      g_assert_cmpuint (rc_line_splitter_get_held (splitter), ==, strlen ("unfinished"));
      rc_line_splitter_reset (splitter);
      g_assert_cmpuint (rc_line_splitter_get_held (splitter), ==, 0);
      g_ptr_array_unref (lines.lines);
    }
}

/* The callback can stop the splitter; the bytes after are not taken. */
static void
test_line_splitter_stops (void)
{
  g_autoptr(RcLineSplitter) splitter = rc_line_splitter_new (16);
  Lines lines = { g_ptr_array_new_with_free_func (g_free), 0, 2 };

  g_assert_false (rc_line_splitter_feed (splitter, "a\nb\nc\n", 6, collect_line_cb, &lines));
  g_assert_cmpuint (lines.lines->len, ==, 2);
  g_assert_cmpuint (rc_line_splitter_get_held (splitter), ==, 0);
  g_ptr_array_unref (lines.lines);
}

/* pw-dump's output as it prints it: a batch of changes is a JSON array, one
 * property to a line, "]" alone at the start of the batch's last line. */
static const char pw_dump_client_and_stream[] =
  "[\n"
  "  {\n"
  "    \"id\": 30,\n"
  "    \"type\": \"PipeWire:Interface:Client\",\n"
  "    \"version\": 3,\n"
  "    \"permissions\": [ \"r\", \"w\", \"x\", \"m\" ],\n"
  "    \"info\": {\n"
  "      \"change-mask\": [ \"props\" ],\n"
  "      \"props\": {\n"
  "        \"pipewire.sec.pid\": 4242,\n"
  "        \"application.name\": \"pw-play\"\n"
  "      }\n"
  "    }\n"
  "  },\n"
  "  {\n"
  "    \"id\": 41,\n"
  "    \"type\": \"PipeWire:Interface:Node\",\n"
  "    \"info\": {\n"
  "      \"state\": \"running\",\n"
  "      \"props\": {\n"
  "        \"media.class\": \"Stream/Output/Audio\",\n"
  "        \"client.id\": 30\n"
  "      }\n"
  "    }\n"
  "  }\n"
  "]\n";

/* Another client's, with a property that makes a 10 MiB line. */
static const char pw_dump_huge_client_head[] =
  "[\n"
  "  {\n"
  "    \"id\": 31,\n"
  "    \"type\": \"PipeWire:Interface:Client\",\n"
  "    \"info\": {\n"
  "      \"props\": {\n"
  "        \"pipewire.sec.pid\": 17,\n"
  "        \"application.name\": \"";
static const char pw_dump_huge_client_tail[] =
  "\"\n"
  "      }\n"
  "    }\n"
  "  },\n"
  "  {\n"
  "    \"id\": 50,\n"
  "    \"type\": \"PipeWire:Interface:Node\",\n"
  "    \"info\": {\n"
  "      \"state\": \"running\",\n"
  "      \"props\": {\n"
  "        \"media.class\": \"Stream/Input/Audio\",\n"
  "        \"client.id\": 31\n"
  "      }\n"
  "    }\n"
  "  }\n"
  "]\n";

static const char pw_dump_stream_idle[] =
  "[\n"
  "  {\n"
  "    \"id\": 41,\n"
  "    \"type\": \"PipeWire:Interface:Node\",\n"
  "    \"info\": {\n"
  "      \"state\": \"idle\"\n"
  "    }\n"
  "  }\n"
  "]\n";

/* Feeds @text as the watch reads it from the child, in pieces of 64 KiB,
 * and checks that it never holds much more than one line's worth. */
static void
feed_pw_dump (RcPipewireWatch *watch,
              const char      *text,
              gsize            length)
{
  for (gsize done = 0; done < length; done += 65536)
    {
      g_assert_true (rc_pipewire_watch_feed (watch, text + done, MIN (65536, length - done)));
      g_assert_cmpuint (rc_pipewire_watch_get_held (watch), <=, LINE_MAX_KEPT + 4096);
    }
}

/* A client's property of 10 MiB: its batch is passed over without being
 * held, the batches before and after it count. */
static void
test_pipewire_huge_line (void)
{
  g_autoptr(RcPipewireWatch) watch = rc_pipewire_watch_new ();
  g_autoptr(GString) huge = g_string_new (pw_dump_huge_client_head);
  g_autofree char *pids = NULL;

  rc_pipewire_watch_set_pid_checks (watch, fake_is_pulse_server, fake_is_own_process);
  for (gsize i = 0; i < HUGE_LINE; i++)
    g_string_append_c (huge, 'x');
  g_string_append (huge, pw_dump_huge_client_tail);

  feed_pw_dump (watch, pw_dump_client_and_stream, strlen (pw_dump_client_and_stream));
  pids = pids_text (watch);
  g_assert_cmpstr (pids, ==, "4242");
  g_clear_pointer (&pids, g_free);

  feed_pw_dump (watch, huge->str, huge->len);
  pids = pids_text (watch);
  g_assert_cmpstr (pids, ==, "4242");
  g_clear_pointer (&pids, g_free);
  g_assert_cmpuint (rc_pipewire_watch_get_held (watch), ==, 0);

  feed_pw_dump (watch, pw_dump_stream_idle, strlen (pw_dump_stream_idle));
  pids = pids_text (watch);
  g_assert_cmpstr (pids, ==, "");
}

/* A property that is not UTF-8, which pw-dump passes on as it is: its
 * batch is passed over, the following ones count. */
static void
test_pipewire_bytes_not_text (void)
{
  g_autoptr(RcPipewireWatch) watch = rc_pipewire_watch_new ();
  static const char not_text[] =
    "[\n"
    "  {\n"
    "    \"id\": 31,\n"
    "    \"type\": \"PipeWire:Interface:Client\",\n"
    "    \"info\": {\n"
    "      \"props\": {\n"
    "        \"pipewire.sec.pid\": 17,\n"
    "        \"application.name\": \"\xff\xfe\"\n"
    "      }\n"
    "    }\n"
    "  }\n"
    "]\n";
  g_autofree char *pids = NULL;

  rc_pipewire_watch_set_pid_checks (watch, fake_is_pulse_server, fake_is_own_process);
  feed_pw_dump (watch, pw_dump_client_and_stream, strlen (pw_dump_client_and_stream));
  feed_pw_dump (watch, not_text, strlen (not_text));
  pids = pids_text (watch);
  g_assert_cmpstr (pids, ==, "4242");
  g_clear_pointer (&pids, g_free);
  feed_pw_dump (watch, pw_dump_stream_idle, strlen (pw_dump_stream_idle));
  pids = pids_text (watch);
  g_assert_cmpstr (pids, ==, "");
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/audio-watch/pipewire-batches", test_pipewire_batches);
  g_test_add_func ("/audio-watch/pipewire-claimed-pid", test_pipewire_claimed_pid);
  g_test_add_func ("/audio-watch/pipewire-pulse-client", test_pipewire_pulse_client);
  g_test_add_func ("/audio-watch/pulse-server-exe", test_pulse_server_exe);
  g_test_add_func ("/audio-watch/pipewire-nonsense", test_pipewire_nonsense);
  g_test_add_func ("/audio-watch/pipewire-huge-line", test_pipewire_huge_line);
  g_test_add_func ("/audio-watch/pipewire-bytes-not-text", test_pipewire_bytes_not_text);
  g_test_add_func ("/audio-watch/line-splitter-bounds-a-line", test_line_splitter_bounds_a_line);
  g_test_add_func ("/audio-watch/line-splitter-stops", test_line_splitter_stops);
  return g_test_run ();
}
