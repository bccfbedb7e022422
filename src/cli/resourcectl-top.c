/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* resourcectl top: the apps' CPU and memory use, refreshed like top(1).
 * One ListAppRecords call per interval (ListApps with the pressures and
 * CPUThrottledUSec); CPU % is the growth of CPUUsageNSec
 * between two calls over the wall time between them. */
#include "resourcectl.h"
#include "rc-api-keys.h"

#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include <glib-unix.h>

#include "rc-size.h"

#define N_PRESSURES     3
#define LIST_TIMEOUT_MS 25000
#define UNKNOWN         G_MAXUINT64   /* a counter the daemon did not send */

/* Keys newer daemons may send (d, percent); "-" while they do not. */
static const char * const pressure_keys[N_PRESSURES] = { "CPUPressure", "MemoryPressure", "IOPressure" };
/* The counters whose growth top shows. */
static const char * const counter_keys[] = { RC_KEY_CPU_USAGE_NSEC, RC_KEY_CPU_THROTTLED_USEC };
#define N_COUNTERS  G_N_ELEMENTS (counter_keys)
#define CPU_NSEC    0
#define THROTTLED_USEC 1
static const char * const sort_names[] = { "cpu", "memory", "name" };
typedef enum { SORT_CPU, SORT_MEMORY, SORT_NAME } SortKey;

static gint opt_delay = 2;
static gint opt_iterations = -1;
static gboolean opt_batch;
static char *opt_sort;
static SortKey sort_key = SORT_CPU;

const GOptionEntry rcctl_top_options[] = {
  { "delay", 'd', 0, G_OPTION_ARG_INT, &opt_delay, "Seconds between refreshes (default 2)", "SECONDS" },
  { "iterations", 'n', 0, G_OPTION_ARG_INT, &opt_iterations, "Exit after N refreshes", "N" },
  { "batch", 'b', 0, G_OPTION_ARG_NONE, &opt_batch,
    "Frames one after another, blank-line separated, no escape codes", NULL },
  { "sort", 'o', 0, G_OPTION_ARG_STRING, &opt_sort, "Sort by cpu (default), memory or name", "KEY" },
  G_OPTION_ENTRY_NULL
};

static char *
check_options (void)
{
  if (opt_delay < 1 || opt_delay > 86400)
    return g_strdup_printf ("--delay takes whole seconds from 1 to 86400, not %d", opt_delay);
  if (opt_iterations == 0 || opt_iterations < -1)
    return g_strdup_printf ("--iterations takes a number of at least 1, not %d", opt_iterations);
  for (gsize i = 0; opt_sort != NULL && i < G_N_ELEMENTS (sort_names); i++)
    if (strcmp (opt_sort, sort_names[i]) == 0)
      {
        sort_key = i;
        return NULL;
      }
  return opt_sort ? g_strdup_printf ("--sort takes cpu, memory or name, not \"%s\"", opt_sort) : NULL;
}

gboolean
rcctl_parse_top (char        **args,
                 RcctlRequest *req,
                 GError      **error)
{
  g_autofree char *message = check_options ();

  if (message != NULL)
    g_set_error_literal (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, message);
  return message == NULL;
}

/* One app: the sum of its instances (the max for pressure). */
typedef struct {
  char   *app_id;
  char   *name;
  char   *name_key;       /* for sorting by name, whatever the case */
  guint   instances;
  guint64 memory;                   /* UNKNOWN when no instance has it */
  guint64 growth[N_COUNTERS];       /* of counter_keys over the interval */
  double  pressure[N_PRESSURES];    /* < 0 when no instance has it */
  double  power;                    /* W; < 0 when no instance has it */
} Row;

static void
row_free (Row *row)
{
  g_free (row->app_id);
  g_free (row->name);
  g_free (row->name_key);
  g_free (row);
}

typedef struct {
  RcDBusResourceControl *proxy;
  GMainLoop             *loop;
  int                    status;
  gboolean               interactive;
  GHashTable            *samples;       /* unit -> its counters at the last call */
  gint64                 sample_time;   /* 0: no sample yet */
  gint64                 interval;      /* µs the last frame covers, 0 for none */
  GPtrArray             *rows;          /* Row, of the last frame */
  guint                  units;
  char                  *message;       /* shown in the frame: the daemon left, an error */
  GCancellable          *pending;       /* the ListAppRecords call in flight */
  gboolean               pending_first; /* it is the first: no frame for it */
  guint                  ticks;
  guint                  frames;
  guint                  columns, lines;
} Top;

static guint64
lookup_u64 (GVariant   *app,
            const char *key)
{
  guint64 n;

  return g_variant_lookup (app, key, "t", &n) ? n : UNKNOWN;
}

static guint64
known (guint64 n)
{
  return n == UNKNOWN ? 0 : n;
}

/* Adds @n to *@sum unless it is UNKNOWN. */
static void
add (guint64 *sum,
     guint64  n)
{
  if (n != UNKNOWN)
    *sum = known (*sum) + n;
}

/* The growth of a counter since @before (0 after a restart of a unit of the same name). */
static guint64
growth (guint64 now,
        guint64 before)
{
  if (now == UNKNOWN || before == UNKNOWN)
    return UNKNOWN;
  return now >= before ? now - before : 0;
}

static void
take_sample (Top      *top,
             GVariant *apps)
{
  g_autoptr(GHashTable) by_app = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  GHashTable *samples = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  gint64 now = g_get_monotonic_time ();
  GVariantIter iter;
  GVariant *app;

  g_clear_pointer (&top->rows, g_ptr_array_unref);
  top->rows = g_ptr_array_new_with_free_func ((GDestroyNotify) row_free);
  top->units = 0;
  top->interval = top->sample_time != 0 ? now - top->sample_time : 0;

  g_variant_iter_init (&iter, apps);
  while ((app = g_variant_iter_next_value (&iter)) != NULL)
    {
      const char *unit = rcctl_lookup_string (app, RC_KEY_UNIT);
      const char *app_id = rcctl_lookup_string (app, RC_KEY_APP_ID);
      const char *name = rcctl_lookup_string (app, RC_KEY_NAME);
      static const guint64 none[N_COUNTERS] = { UNKNOWN, UNKNOWN };
      const guint64 *before = g_hash_table_lookup (top->samples, unit);
      guint64 *counters = g_new (guint64, N_COUNTERS);
      Row *row;

      if (*app_id == '\0')
        app_id = unit;
      row = g_hash_table_lookup (by_app, app_id);
      if (row == NULL)
        {
          row = g_new0 (Row, 1);
          row->memory = row->growth[CPU_NSEC] = row->growth[THROTTLED_USEC] = UNKNOWN;
          for (guint p = 0; p < N_PRESSURES; p++)
            row->pressure[p] = -1;
          row->power = -1;
          row->app_id = rcctl_printable (app_id);
          row->name = rcctl_printable (*name ? name : app_id);
          {
            g_autofree char *folded = g_utf8_casefold (row->name, -1);

            row->name_key = g_utf8_collate_key (folded, -1);
          }
          g_hash_table_insert (by_app, g_strdup (app_id), row);
          g_ptr_array_add (top->rows, row);
        }
      row->instances++;
      top->units++;
      add (&row->memory, lookup_u64 (app, RC_KEY_MEMORY_CURRENT));
      for (gsize c = 0; c < N_COUNTERS; c++)
        {
          counters[c] = lookup_u64 (app, counter_keys[c]);
          add (&row->growth[c], growth (counters[c], (before ? before : none)[c]));
        }
      for (guint p = 0; p < N_PRESSURES; p++)
        {
          double value;

          if (g_variant_lookup (app, pressure_keys[p], "d", &value))
            row->pressure[p] = MAX (row->pressure[p], value);
        }
      {
        double power;

        /* the daemon sends Power only while it has a source */
        if (g_variant_lookup (app, RC_KEY_POWER, "d", &power))
          row->power = MAX (row->power, 0) + power;
      }
      g_hash_table_replace (samples, g_strdup (unit), counters);
      g_variant_unref (app);
    }

  g_hash_table_unref (top->samples);
  top->samples = samples;
  top->sample_time = now;
}

static int
compare_rows (gconstpointer a,
              gconstpointer b,
              gpointer      user_data)
{
  const Row *x = *(const Row **) a;
  const Row *y = *(const Row **) b;
  guint64 x_cpu = known (x->growth[CPU_NSEC]), y_cpu = known (y->growth[CPU_NSEC]);
  guint64 x_memory = known (x->memory), y_memory = known (y->memory);
  int by_cpu = (y_cpu > x_cpu) - (y_cpu < x_cpu);
  int by_memory = (y_memory > x_memory) - (y_memory < x_memory);
  int by_name = strcmp (x->name_key, y->name_key);

  switch (sort_key)
    {
    case SORT_MEMORY:
      return by_memory ? by_memory : by_cpu ? by_cpu : by_name;
    case SORT_NAME:
      return by_name ? by_name : strcmp (x->app_id, y->app_id);
    case SORT_CPU:
    default:
      return by_cpu ? by_cpu : by_memory ? by_memory : by_name;
    }
}

/* @usec in percent of the interval, < 0 when unknown. */
static double
percent (Top    *top,
         guint64 usec)
{
  return usec == UNKNOWN || top->interval <= 0 ? -1 : 100.0 * usec / top->interval;
}

/* @text cut to @width characters (0: as it is). */
static void
append_line (GString    *out,
             const char *text,
             guint       width)
{
  if (width > 0 && (guint) g_utf8_strlen (text, -1) > width)
    {
      g_autofree char *cut = g_utf8_substring (text, 0, width);

      g_string_append (out, cut);
    }
  else
    g_string_append (out, text);
  g_string_append_c (out, '\n');
}

static char *
render (Top *top)
{
  GString *out = g_string_new (NULL);
  g_autoptr(GDateTime) clock = g_date_time_new_now_local ();
  g_autofree char *now = g_date_time_format (clock, "%H:%M:%S");
  g_autofree char *total_memory = NULL;
  g_autoptr(GString) heading = g_string_new (NULL);
  guint width = top->interactive ? top->columns : 0;
  guint max_rows = G_MAXUINT;
  guint app_width = 3;
  gboolean has_power = FALSE;
  guint64 cpu = 0, memory = 0;
  guint n_rows = top->rows ? top->rows->len : 0;

  if (top->rows != NULL)
    g_ptr_array_sort_with_data (top->rows, compare_rows, NULL);
  for (guint i = 0; i < n_rows; i++)
    {
      Row *row = top->rows->pdata[i];

      cpu += known (row->growth[CPU_NSEC]);
      memory += known (row->memory);
      app_width = MAX (app_width, (guint) g_utf8_strlen (row->app_id, -1));
    }
  app_width = MIN (app_width, 40);
  total_memory = rc_size_format (memory);

  g_string_printf (heading, "top - %s, ", now);
  if (top->rows != NULL)
    g_string_append_printf (heading, "%u apps in %u units, ", n_rows, top->units);
  if (top->rows != NULL && top->interval > 0)
    g_string_append_printf (heading, "CPU %.1f%% (100%% = one of %u CPUs), ",
                            percent (top, cpu / 1000), g_get_num_processors ());
  if (top->rows != NULL)
    g_string_append_printf (heading, "memory %s, ", total_memory);
  g_string_append_printf (heading, "every %d s, by %s", opt_delay, sort_names[sort_key]);
  append_line (out, heading->str, width);
  if (top->message != NULL)
    append_line (out, top->message, width);
  if (top->rows == NULL)
    return g_string_free (out, FALSE);

  for (guint i = 0; i < n_rows; i++)
    has_power |= ((Row *) top->rows->pdata[i])->power >= 0;
  {
    g_autofree char *columns = g_strdup_printf ("%s%6s %7s %6s %6s %6s %6s %4s  %-*s  %s",
                                                has_power ? "     W " : "", "CPU%",
                                                "MEMORY", "THR%", "CPU-P", "MEM-P", "IO-P", "INST",
                                                (int) app_width, "APP", "NAME");

    append_line (out, columns, width);
  }
  if (top->interactive && top->lines > 4)
    max_rows = top->lines - 4 - (top->message != NULL);
  for (guint i = 0; i < n_rows && i < max_rows; i++)
    {
      Row *row = top->rows->pdata[i];
      double values[] = {
        percent (top, row->growth[CPU_NSEC] == UNKNOWN ? UNKNOWN : row->growth[CPU_NSEC] / 1000),
        percent (top, row->growth[THROTTLED_USEC]), row->pressure[0], row->pressure[1], row->pressure[2]
      };
      char cells[G_N_ELEMENTS (values)][G_ASCII_DTOSTR_BUF_SIZE];
      g_autofree char *memory_text = row->memory != UNKNOWN ? rc_size_format (row->memory) : g_strdup ("-");
      g_autofree char *line = NULL;
      guint pad = app_width - MIN (app_width, (guint) g_utf8_strlen (row->app_id, -1));

      for (gsize c = 0; c < G_N_ELEMENTS (values); c++)
        g_snprintf (cells[c], sizeof cells[c], values[c] < 0 ? "-" : "%.1f", values[c]);
      char watts[G_ASCII_DTOSTR_BUF_SIZE] = "";

      if (has_power && row->power < 0)
        g_snprintf (watts, sizeof watts, "%6s ", "-");
      else if (has_power)
        g_snprintf (watts, sizeof watts, "%6.2f ", row->power);
      line = g_strdup_printf ("%s%6s %7s %6s %6s %6s %6s %4u  %s%*s  %s", watts, cells[0], memory_text, cells[1],
                              cells[2], cells[3], cells[4], row->instances, row->app_id, (int) pad, "",
                              row->name);
      append_line (out, line, width);
    }
  if (top->interactive)
    append_line (out, "q quit, c/m/n sort by CPU/memory/name", width);
  return g_string_free (out, FALSE);
}

/* Prints a frame: in a terminal over the last one, else after a blank line. */
static void
show (Top *top)
{
  g_autofree char *frame = render (top);

  if (top->interactive)
    fputs ("\033[H\033[2J", stdout);   /* home, clear */
  else if (top->frames > 0)
    fputc ('\n', stdout);
  fputs (frame, stdout);
  fflush (stdout);
}

static void
set_message (Top        *top,
             const char *message)
{
  g_free (top->message);
  top->message = g_strdup (message);
}

static void
on_list_apps (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  Top *top = user_data;
  g_autoptr(GVariant) apps = NULL;
  g_autoptr(GError) error = NULL;

  if (!rc_dbus_resource_control_call_list_app_records_finish (RC_DBUS_RESOURCE_CONTROL (source), &apps,
                                                              result, &error))
    {
      g_autofree char *text = NULL;

      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        return;
      g_dbus_error_strip_remote_error (error);
      g_clear_pointer (&top->rows, g_ptr_array_unref);
      top->units = 0;
      top->interval = 0;
      if (g_error_matches (error, G_DBUS_ERROR, G_DBUS_ERROR_SERVICE_UNKNOWN) ||
          g_error_matches (error, G_DBUS_ERROR, G_DBUS_ERROR_NAME_HAS_NO_OWNER))
        text = g_strdup ("resource-controld is not on the session bus; waiting for it");
      else
        text = g_strdup_printf ("cannot list the apps: %s", error->message);
      set_message (top, text);
    }
  else
    {
      set_message (top, NULL);
      take_sample (top, apps);
    }
  g_clear_object (&top->pending);

  /* The first call only gives CPU time to count from; after -n frames, top is done. */
  if (top->pending_first)
    return;
  show (top);
  if (++top->frames == (guint) opt_iterations)
    g_main_loop_quit (top->loop);
}

/* One ListAppRecords call per interval, never two in flight (a daemon slow to answer). */
static gboolean
on_tick (gpointer user_data)
{
  Top *top = user_data;

  if (top->pending == NULL)
    {
      top->pending = g_cancellable_new ();
      top->pending_first = top->ticks == 0;
      rc_dbus_resource_control_call_list_app_records (top->proxy, top->pending, on_list_apps, top);
    }
  top->ticks++;
  return G_SOURCE_CONTINUE;
}

static void
on_name_owner_changed (GObject    *proxy,
                       GParamSpec *pspec,
                       gpointer    user_data)
{
  Top *top = user_data;
  g_autofree char *owner = g_dbus_proxy_get_name_owner (G_DBUS_PROXY (proxy));
  const char *line = owner == NULL
    ? "resource-controld left the session bus; waiting for it to return"
    : "resource-controld is back on the session bus";

  /* Like monitor: a line on stderr, or on the screen in a terminal. */
  if (!top->interactive)
    g_printerr ("resourcectl: %s\n", line);
  set_message (top, top->interactive ? line : NULL);
  if (top->interactive)
    show (top);
}

static void
on_bus_closed (GDBusConnection *connection,
               gboolean         remote_peer_vanished,
               GError          *error,
               gpointer         user_data)
{
  Top *top = user_data;

  top->status = EXIT_FAILURE;
  g_main_loop_quit (top->loop);
}

static gboolean
on_quit_signal (gpointer user_data)
{
  Top *top = user_data;

  g_main_loop_quit (top->loop);
  return G_SOURCE_CONTINUE;
}

/* SIGWINCH, and the start: the terminal's size, and the frame redrawn to fit. */
static gboolean
on_winch (gpointer user_data)
{
  Top *top = user_data;
  struct winsize size;
  gboolean known_size = ioctl (STDOUT_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 0;

  top->columns = known_size ? size.ws_col : 80;
  top->lines = known_size ? size.ws_row : 24;
  show (top);
  return G_SOURCE_CONTINUE;
}

/* q quits; c, m and n sort what is shown, without asking the daemon again. */
static gboolean
on_key (int          fd,
        GIOCondition condition,
        gpointer     user_data)
{
  Top *top = user_data;
  char key;

  if (read (fd, &key, 1) != 1)
    return G_SOURCE_REMOVE;
  if (key == 'q' || key == 'Q')
    g_main_loop_quit (top->loop);
  for (gsize i = 0; i < G_N_ELEMENTS (sort_names); i++)
    if (key == sort_names[i][0])
      {
        sort_key = i;
        show (top);
      }
  return G_SOURCE_CONTINUE;
}

int
rcctl_run_top (RcDBusResourceControl *proxy)
{
  g_autoptr(GMainLoop) loop = g_main_loop_new (NULL, FALSE);
  GDBusConnection *bus = g_dbus_proxy_get_connection (G_DBUS_PROXY (proxy));
  Top top = { .proxy = proxy, .loop = loop, .status = EXIT_SUCCESS };
  guint sources[5] = { 0 };
  struct termios saved, raw;
  gboolean keys = FALSE;
  gulong owner_id, closed_id;

  /* Not a terminal: batch mode whatever -b says. */
  top.interactive = !opt_batch && isatty (STDOUT_FILENO);
  top.samples = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  g_dbus_proxy_set_default_timeout (G_DBUS_PROXY (proxy), LIST_TIMEOUT_MS);

  owner_id = g_signal_connect (proxy, "notify::g-name-owner", G_CALLBACK (on_name_owner_changed), &top);
  closed_id = g_signal_connect (bus, "closed", G_CALLBACK (on_bus_closed), &top);
  sources[0] = g_unix_signal_add (SIGINT, on_quit_signal, &top);
  sources[1] = g_unix_signal_add (SIGTERM, on_quit_signal, &top);
  /* The first call now, the first frame after one interval. */
  sources[2] = g_timeout_add_seconds (opt_delay, on_tick, &top);
  if (top.interactive)
    {
      /* Keys one at a time, not echoed; the alternate screen, no cursor, as top does. */
      keys = isatty (STDIN_FILENO) && tcgetattr (STDIN_FILENO, &saved) == 0;
      raw = saved;
      raw.c_lflag &= ~(ICANON | ECHO);
      raw.c_cc[VMIN] = 1;
      raw.c_cc[VTIME] = 0;
      if (keys && tcsetattr (STDIN_FILENO, TCSANOW, &raw) == 0)
        sources[3] = g_unix_fd_add (STDIN_FILENO, G_IO_IN, on_key, &top);
      fputs ("\033[?1049h\033[?25l", stdout);
      sources[4] = g_unix_signal_add (SIGWINCH, on_winch, &top);
      top.message = g_strdup ("measuring, the first frame comes after one interval");
      on_winch (&top);
    }
  on_tick (&top);

  g_main_loop_run (loop);

  if (top.interactive)
    {
      fputs ("\033[?25h\033[?1049l", stdout);
      fflush (stdout);
    }
  if (keys)
    tcsetattr (STDIN_FILENO, TCSANOW, &saved);
  if (g_dbus_connection_is_closed (bus))
    g_printerr ("resourcectl: lost the session bus\n");
  for (guint i = 0; i < G_N_ELEMENTS (sources); i++)
    if (sources[i] != 0)
      g_source_remove (sources[i]);
  if (top.pending != NULL)
    g_cancellable_cancel (top.pending);
  g_clear_object (&top.pending);
  g_signal_handler_disconnect (proxy, owner_id);
  g_signal_handler_disconnect (bus, closed_id);
  g_clear_pointer (&top.rows, g_ptr_array_unref);
  g_hash_table_unref (top.samples);
  g_free (top.message);
  return top.status;
}
