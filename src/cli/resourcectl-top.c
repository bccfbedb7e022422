/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* resourcectl top: the apps' CPU and memory use, refreshed like top(1).
 * One ListApps call per interval; CPU % is the growth of CPUUsageNSec
 * between two calls over the wall time between them. */
#include "resourcectl.h"
#include "rc-keys.h"

#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include <glib-unix.h>

#include "rc-size.h"

/* Keys newer daemons may send; "-" while they do not. */
#define KEY_CPU_PRESSURE    "CPUPressure"
#define KEY_MEMORY_PRESSURE "MemoryPressure"
#define KEY_IO_PRESSURE     "IOPressure"
#define N_PRESSURES         3
#define LIST_TIMEOUT_MS     25000

static const char * const pressure_keys[N_PRESSURES] = {
  KEY_CPU_PRESSURE, KEY_MEMORY_PRESSURE, KEY_IO_PRESSURE
};
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

gboolean
rcctl_parse_top (char        **args,
                 RcctlRequest *req,
                 GError      **error)
{
  if (opt_delay < 1 || opt_delay > 86400)
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   "--delay takes whole seconds from 1 to 86400, not %d", opt_delay);
      return FALSE;
    }
  if (opt_iterations == 0 || opt_iterations < -1)
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   "--iterations takes a number of at least 1, not %d", opt_iterations);
      return FALSE;
    }
  if (opt_sort != NULL)
    {
      gsize i;

      for (i = 0; i < G_N_ELEMENTS (sort_names); i++)
        if (strcmp (opt_sort, sort_names[i]) == 0)
          break;
      if (i == G_N_ELEMENTS (sort_names))
        {
          g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                       "--sort takes cpu, memory or name, not \"%s\"", opt_sort);
          return FALSE;
        }
      sort_key = i;
    }
  return TRUE;
}

/* One app: the sum of its instances (the max for pressure). */
typedef struct {
  char    *app_id;
  char    *name;
  char    *name_key;      /* for sorting by name, whatever the case */
  guint    instances;
  guint64  memory;
  guint64  cpu_nsec;      /* growth over the interval */
  guint64  throttled_usec;
  double   pressure[N_PRESSURES];
  gboolean have_memory, have_cpu, have_throttled, have_pressure[N_PRESSURES];
} Row;

static void
row_free (Row *row)
{
  g_free (row->app_id);
  g_free (row->name);
  g_free (row->name_key);
  g_free (row);
}

/* What an instance had at the previous call. */
typedef struct {
  guint64 cpu_nsec, throttled_usec;    /* G_MAXUINT64: not sent */
} Sample;

typedef struct {
  RcDBusResourceControl *proxy;
  GMainLoop             *loop;
  int                    status;
  gboolean               interactive;
  gboolean               keys;          /* stdin is a terminal we read keys from */
  struct termios         saved_termios;
  GHashTable            *samples;       /* unit -> Sample */
  gint64                 sample_time;   /* 0: no sample yet */
  gint64                 interval;      /* µs the last frame covers, 0 for none */
  GPtrArray             *rows;          /* Row, of the last frame */
  guint                  units;
  char                  *message;       /* shown in the frame: the daemon left, an error */
  GCancellable          *pending;       /* the ListApps call in flight */
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

  return g_variant_lookup (app, key, "t", &n) ? n : G_MAXUINT64;
}

/* The growth of a counter since @before; FALSE when either is unknown. */
static gboolean
growth (guint64  now,
        guint64  before,
        guint64 *out)
{
  if (now == G_MAXUINT64 || before == G_MAXUINT64)
    return FALSE;
  *out = now >= before ? now - before : 0;   /* a restarted unit of the same name */
  return TRUE;
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
      Sample *sample = g_new (Sample, 1);
      Sample *before = g_hash_table_lookup (top->samples, unit);
      guint64 memory = lookup_u64 (app, RC_KEY_MEMORY_CURRENT);
      guint64 delta;
      Row *row;

      if (*app_id == '\0')
        app_id = unit;
      row = g_hash_table_lookup (by_app, app_id);
      if (row == NULL)
        {
          row = g_new0 (Row, 1);
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
      if (memory != G_MAXUINT64)
        {
          row->memory += memory;
          row->have_memory = TRUE;
        }
      sample->cpu_nsec = lookup_u64 (app, RC_KEY_CPU_USAGE_NSEC);
      sample->throttled_usec = lookup_u64 (app, RC_KEY_CPU_THROTTLED_USEC);
      if (before != NULL && growth (sample->cpu_nsec, before->cpu_nsec, &delta))
        {
          row->cpu_nsec += delta;
          row->have_cpu = TRUE;
        }
      if (before != NULL && growth (sample->throttled_usec, before->throttled_usec, &delta))
        {
          row->throttled_usec += delta;
          row->have_throttled = TRUE;
        }
      for (guint p = 0; p < N_PRESSURES; p++)
        {
          double value;

          if (!g_variant_lookup (app, pressure_keys[p], "d", &value))
            continue;
          row->pressure[p] = row->have_pressure[p] ? MAX (row->pressure[p], value) : value;
          row->have_pressure[p] = TRUE;
        }
      g_hash_table_replace (samples, g_strdup (unit), sample);
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
  int by_cpu = (y->cpu_nsec > x->cpu_nsec) - (y->cpu_nsec < x->cpu_nsec);
  int by_memory = (y->memory > x->memory) - (y->memory < x->memory);
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

static char *
percent_of_interval (Top     *top,
                     gboolean have,
                     double   amount_usec)
{
  if (!have || top->interval <= 0)
    return g_strdup ("-");
  return g_strdup_printf ("%.1f", 100.0 * amount_usec / top->interval);
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
  g_autofree char *heading = NULL;
  guint width = top->interactive ? top->columns : 0;
  guint max_rows = G_MAXUINT;
  guint app_width = 3;
  guint64 cpu = 0, memory = 0;
  guint n_rows = top->rows ? top->rows->len : 0;

  if (top->rows != NULL)
    g_ptr_array_sort_with_data (top->rows, compare_rows, NULL);
  for (guint i = 0; i < n_rows; i++)
    {
      Row *row = top->rows->pdata[i];

      cpu += row->cpu_nsec;
      memory += row->memory;
      app_width = MAX (app_width, (guint) g_utf8_strlen (row->app_id, -1));
    }
  app_width = MIN (app_width, 40);
  total_memory = rc_size_format (memory);

  heading = top->interval > 0
    ? g_strdup_printf ("top - %s, %u apps in %u units, CPU %.1f%% (100%% = one of %u CPUs), "
                       "memory %s, every %d s, by %s",
                       now, n_rows, top->units, 100.0 * cpu / 1000.0 / top->interval,
                       g_get_num_processors (), total_memory, opt_delay, sort_names[sort_key])
    : g_strdup_printf ("top - %s, %u apps in %u units, memory %s, every %d s, by %s",
                       now, n_rows, top->units, total_memory, opt_delay, sort_names[sort_key]);
  append_line (out, heading, width);
  if (top->message != NULL)
    append_line (out, top->message, width);
  if (top->rows == NULL)
    return g_string_free (out, FALSE);

  {
    g_autofree char *columns = g_strdup_printf ("%6s %7s %6s %6s %6s %6s %4s  %-*s  %s", "CPU%",
                                                "MEMORY", "THR%", "CPU-P", "MEM-P", "IO-P", "INST",
                                                (int) app_width, "APP", "NAME");

    append_line (out, columns, width);
  }
  if (top->interactive && top->lines > 4)
    max_rows = top->lines - 4 - (top->message != NULL);
  for (guint i = 0; i < n_rows && i < max_rows; i++)
    {
      Row *row = top->rows->pdata[i];
      g_autofree char *cpu_text = percent_of_interval (top, row->have_cpu, row->cpu_nsec / 1000.0);
      g_autofree char *thr_text = percent_of_interval (top, row->have_throttled, row->throttled_usec);
      g_autofree char *mem_text = row->have_memory ? rc_size_format (row->memory) : g_strdup ("-");
      g_autofree char *line = NULL;
      char *pressure[N_PRESSURES];
      guint pad = app_width - MIN (app_width, (guint) g_utf8_strlen (row->app_id, -1));

      for (guint p = 0; p < N_PRESSURES; p++)
        pressure[p] = row->have_pressure[p] ? g_strdup_printf ("%.1f", row->pressure[p]) : g_strdup ("-");
      line = g_strdup_printf ("%6s %7s %6s %6s %6s %6s %4u  %s%*s  %s", cpu_text, mem_text, thr_text,
                              pressure[0], pressure[1], pressure[2], row->instances, row->app_id,
                              (int) pad, "", row->name);
      append_line (out, line, width);
      for (guint p = 0; p < N_PRESSURES; p++)
        g_free (pressure[p]);
    }
  if (top->interactive)
    append_line (out, "q quit, c/m/n sort by CPU/memory/name", width);
  return g_string_free (out, FALSE);
}

static void
show (Top *top)
{
  g_autofree char *frame = render (top);

  if (top->interactive)
    /* home, clear: the frame replaces the last one */
    fputs ("\033[H\033[2J", stdout);
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

/* A frame is a refresh: after -n of them, top is done. */
static void
frame_done (Top *top)
{
  show (top);
  top->frames++;
  if (opt_iterations > 0 && top->frames >= (guint) opt_iterations)
    g_main_loop_quit (top->loop);
}

static void
on_list_apps (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  Top *top = user_data;
  g_autoptr(GVariant) apps = NULL;
  g_autoptr(GError) error = NULL;
  gboolean first = top->pending_first;

  if (!rc_dbus_resource_control_call_list_apps_finish (RC_DBUS_RESOURCE_CONTROL (source), &apps,
                                                       result, &error))
    {
      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        return;
      g_dbus_error_strip_remote_error (error);
      g_clear_object (&top->pending);
      g_clear_pointer (&top->rows, g_ptr_array_unref);
      top->units = 0;
      top->interval = 0;
      if (g_error_matches (error, G_DBUS_ERROR, G_DBUS_ERROR_SERVICE_UNKNOWN) ||
          g_error_matches (error, G_DBUS_ERROR, G_DBUS_ERROR_NAME_HAS_NO_OWNER))
        set_message (top, "resource-controld is not on the session bus; waiting for it");
      else
        {
          g_autofree char *text = g_strdup_printf ("cannot list the apps: %s", error->message);

          set_message (top, text);
        }
      if (!first)
        frame_done (top);
      return;
    }
  g_clear_object (&top->pending);
  set_message (top, NULL);
  take_sample (top, apps);
  /* The first call only gives CPU time to count from. */
  if (!first)
    frame_done (top);
}

static void
refresh (Top *top)
{
  if (top->pending != NULL)
    return;   /* the daemon has not answered the last call yet: never two in flight */
  top->pending = g_cancellable_new ();
  top->pending_first = top->ticks == 0;
  rc_dbus_resource_control_call_list_apps (top->proxy, top->pending, on_list_apps, top);
}

static gboolean
on_tick (gpointer user_data)
{
  Top *top = user_data;

  refresh (top);
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

  if (top->interactive)
    {
      set_message (top, line);
      show (top);
    }
  else
    g_printerr ("resourcectl: %s\n", line);
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

static void
read_size (Top *top)
{
  struct winsize size;

  top->columns = 80;
  top->lines = 24;
  if (ioctl (STDOUT_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 0 && size.ws_row > 0)
    {
      top->columns = size.ws_col;
      top->lines = size.ws_row;
    }
}

static gboolean
on_winch (gpointer user_data)
{
  Top *top = user_data;

  read_size (top);
  show (top);
  return G_SOURCE_CONTINUE;
}

static gboolean
on_key (int          fd,
        GIOCondition condition,
        gpointer     user_data)
{
  Top *top = user_data;
  char key;

  if (read (fd, &key, 1) != 1)
    return G_SOURCE_REMOVE;
  switch (key)
    {
    case 'q':
    case 'Q':
      g_main_loop_quit (top->loop);
      break;
    case 'c':
    case 'm':
    case 'n':
      /* Sorts what is shown: no extra call to the daemon. */
      sort_key = key == 'c' ? SORT_CPU : key == 'm' ? SORT_MEMORY : SORT_NAME;
      show (top);
      break;
    default:
      break;
    }
  return G_SOURCE_CONTINUE;
}

static void
terminal_enter (Top *top)
{
  struct termios raw;

  top->keys = isatty (STDIN_FILENO) && tcgetattr (STDIN_FILENO, &top->saved_termios) == 0;
  if (top->keys)
    {
      raw = top->saved_termios;
      raw.c_lflag &= ~(ICANON | ECHO);
      raw.c_cc[VMIN] = 1;
      raw.c_cc[VTIME] = 0;
      tcsetattr (STDIN_FILENO, TCSANOW, &raw);
    }
  /* the alternate screen, cursor hidden, as top does */
  fputs ("\033[?1049h\033[?25l", stdout);
  fflush (stdout);
}

static void
terminal_leave (Top *top)
{
  fputs ("\033[?25h\033[?1049l", stdout);
  fflush (stdout);
  if (top->keys)
    tcsetattr (STDIN_FILENO, TCSANOW, &top->saved_termios);
}

int
rcctl_run_top (RcDBusResourceControl *proxy)
{
  g_autoptr(GMainLoop) loop = g_main_loop_new (NULL, FALSE);
  GDBusConnection *bus = g_dbus_proxy_get_connection (G_DBUS_PROXY (proxy));
  Top top = { .proxy = proxy, .loop = loop, .status = EXIT_SUCCESS };
  guint sources[4] = { 0 };
  guint key_source = 0;
  gulong owner_id, closed_id;

  /* Not a terminal: batch mode whatever -b says. */
  top.interactive = !opt_batch && isatty (STDOUT_FILENO);
  top.samples = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  g_dbus_proxy_set_default_timeout (G_DBUS_PROXY (proxy), LIST_TIMEOUT_MS);

  owner_id = g_signal_connect (proxy, "notify::g-name-owner", G_CALLBACK (on_name_owner_changed), &top);
  closed_id = g_signal_connect (bus, "closed", G_CALLBACK (on_bus_closed), &top);
  sources[0] = g_unix_signal_add (SIGINT, on_quit_signal, &top);
  sources[1] = g_unix_signal_add (SIGTERM, on_quit_signal, &top);
  /* One call per interval, the first now: frame 1 comes after one interval. */
  sources[2] = g_timeout_add_seconds (opt_delay, on_tick, &top);
  if (top.interactive)
    {
      read_size (&top);
      terminal_enter (&top);
      sources[3] = g_unix_signal_add (SIGWINCH, on_winch, &top);
      if (top.keys)
        key_source = g_unix_fd_add (STDIN_FILENO, G_IO_IN, on_key, &top);
    }
  on_tick (&top);

  g_main_loop_run (loop);

  if (top.interactive)
    terminal_leave (&top);
  if (g_dbus_connection_is_closed (bus))
    g_printerr ("resourcectl: lost the session bus\n");
  for (guint i = 0; i < G_N_ELEMENTS (sources); i++)
    if (sources[i] != 0)
      g_source_remove (sources[i]);
  if (key_source != 0)
    g_source_remove (key_source);
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
