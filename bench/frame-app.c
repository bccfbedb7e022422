/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * frame-app: what focus-bench runs in its app units.
 *
 *   frame-app calibrate
 *       prints how many spin iterations this CPU does in a millisecond, alone (the best of
 *       several runs, so that a busy moment does not shrink the work later asked for)
 *   frame-app frames --iterations N [--hz 60] [--warmup S] [--start-file F] [--seconds S] --out FILE
 *       a frame loop: at each of HZ ticks a second (absolute deadlines on CLOCK_MONOTONIC) it
 *       does N iterations of work, as an app draws a frame, and records when the frame was done.
 *       A frame done after the next tick missed that tick (and any others it overran): the loop
 *       then waits for the first tick after it, as an app driven by a compositor's frame
 *       callbacks does. Beside it a thread stands in for input: it asks to be woken at a time
 *       (every 50 ms, plus 0-9 ms so as not to beat with the frames) and records how late it ran.
 *       It measures from the warm-up's end, or, with --start-file, from when F exists (its load is
 *       running), for S seconds, and then writes FILE as JSON: the frames' times and intervals, missed ticks,
 *       and the input probe's delays, all in ms.
 *   frame-app busy --out FILE
 *       spins until SIGTERM or SIGINT, then writes "ITERATIONS SECONDS" to FILE: the work a
 *       background process got done.
 *
 * Plain C and libc only, so that it builds anywhere a C compiler is (the VM compiles it itself).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define NSEC_PER_SEC 1000000000LL
#define PROBE_PERIOD_NS (50 * 1000000LL)

static volatile sig_atomic_t stop_requested;

static int64_t
now_ns (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

static void
sleep_until (int64_t when_ns)
{
  struct timespec ts = { .tv_sec = when_ns / NSEC_PER_SEC, .tv_nsec = when_ns % NSEC_PER_SEC };

  while (clock_nanosleep (CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
    ;
}

/* The work: a dependency chain the compiler cannot drop or shorten. */
static uint64_t
spin (uint64_t iterations)
{
  volatile uint64_t x = 88172645463325252ULL;

  for (uint64_t i = 0; i < iterations; i++)
    {
      uint64_t v = x;

      v ^= v << 13;
      v ^= v >> 7;
      v ^= v << 17;
      x = v;
    }
  return x;
}

static int
calibrate (void)
{
  const uint64_t chunk = 2000000;
  int64_t best = INT64_MAX;

  spin (chunk);
  for (int i = 0; i < 9; i++)
    {
      int64_t t0 = now_ns ();

      spin (chunk);
      if (now_ns () - t0 < best)
        best = now_ns () - t0;
    }
  printf ("%.0f\n", chunk / (best / 1e6));
  return 0;
}

typedef struct {
  int64_t start_ns;    /* measuring starts (after the warm-up); written by the frame loop */
  int64_t end_ns;
  double *delays_ms;   /* the probe's */
  size_t  n_delays;
  size_t  cap_delays;
} Probe;

static void *
probe_thread (void *data)
{
  Probe *p = data;
  int64_t target = now_ns () + PROBE_PERIOD_NS;
  unsigned seed = 12345;

  while (target < __atomic_load_n (&p->end_ns, __ATOMIC_ACQUIRE))
    {
      int64_t ran;

      sleep_until (target);
      ran = now_ns ();
      if (target >= __atomic_load_n (&p->start_ns, __ATOMIC_ACQUIRE) && p->n_delays < p->cap_delays)
        p->delays_ms[p->n_delays++] = (ran - target) / 1e6;
      target = ran + PROBE_PERIOD_NS + (rand_r (&seed) % 10) * 1000000LL;
    }
  return NULL;
}

static void
write_numbers (FILE         *f,
               const char   *name,
               const double *values,
               size_t        n,
               const char   *after)
{
  fprintf (f, "  \"%s\": [", name);
  for (size_t i = 0; i < n; i++)
    fprintf (f, "%s%.3f", i ? ", " : "", values[i]);
  fprintf (f, "]%s\n", after);
}

/* Sets when measuring starts and ends, once: @from_ns plus the warm-up. */
static void
set_window (Probe  *probe,
            int64_t from_ns,
            double  warmup_s,
            double  seconds)
{
  int64_t start = from_ns + (int64_t) (warmup_s * NSEC_PER_SEC);

  __atomic_store_n (&probe->start_ns, start, __ATOMIC_RELEASE);
  __atomic_store_n (&probe->end_ns, start + (int64_t) (seconds * NSEC_PER_SEC), __ATOMIC_RELEASE);
}

static int
frames (uint64_t    iterations,
        int         hz,
        double      warmup_s,
        const char *start_file,
        double      seconds,
        const char *out)
{
  const int64_t period = NSEC_PER_SEC / hz;
  int64_t start = now_ns () + period;
  size_t cap = (size_t) ((warmup_s + seconds) * hz) + 16;
  double *times = calloc (cap, sizeof *times);
  double *intervals = calloc (cap, sizeof *intervals);
  size_t n = 0;
  long missed = 0, ticks = 0;
  int64_t tick = start, last_done = 0;
  Probe probe = { 0 };
  pthread_t thread;
  FILE *f;

  /* until the start file exists, a window that never comes */
  if (start_file)
    {
      probe.start_ns = INT64_MAX;
      probe.end_ns = INT64_MAX;
    }
  else
    {
      set_window (&probe, start, warmup_s, seconds);
    }
  probe.cap_delays = (size_t) (seconds * NSEC_PER_SEC / PROBE_PERIOD_NS) + 16;
  probe.delays_ms = calloc (probe.cap_delays, sizeof *probe.delays_ms);
  if (!times || !intervals || !probe.delays_ms)
    return 1;
  if (pthread_create (&thread, NULL, probe_thread, &probe) != 0)
    return 1;

  while (tick < probe.end_ns)
    {
      int64_t done, late;

      sleep_until (tick);
      spin (iterations);
      done = now_ns ();
      if (start_file && probe.start_ns == INT64_MAX && access (start_file, F_OK) == 0)
        set_window (&probe, done, warmup_s, seconds);
      if (tick >= probe.start_ns && last_done && n < cap)
        {
          times[n] = (done - probe.start_ns) / 1e6;
          intervals[n] = (done - last_done) / 1e6;
          n++;
          ticks++;
        }
      last_done = done;
      /* the frame was due by the next tick; each tick it overran is a frame missed */
      late = done - (tick + period);
      if (late > 0)
        {
          long overrun = (long) (late / period) + 1;

          if (tick >= probe.start_ns)
            {
              missed += overrun;
              ticks += overrun;
            }
          tick += (overrun + 1) * period;
        }
      else
        {
          tick += period;
        }
    }
  pthread_join (thread, NULL);

  f = fopen (out, "w");
  if (!f)
    {
      fprintf (stderr, "frame-app: cannot write %s: %s\n", out, strerror (errno));
      return 1;
    }
  fprintf (f, "{\n  \"hz\": %d,\n  \"iterations\": %llu,\n  \"seconds\": %.3f,\n", hz,
           (unsigned long long) iterations, seconds);
  fprintf (f, "  \"ticks\": %ld,\n  \"missed\": %ld,\n", ticks, missed);
  write_numbers (f, "frame_times_ms", times, n, ",");
  write_numbers (f, "frame_intervals_ms", intervals, n, ",");
  write_numbers (f, "input_delays_ms", probe.delays_ms, probe.n_delays, "");
  fprintf (f, "}\n");
  return fclose (f) == 0 ? 0 : 1;
}

static void
on_stop (int sig)
{
  (void) sig;
  stop_requested = 1;
}

static int
busy (const char *out)
{
  struct sigaction sa = { .sa_handler = on_stop };
  uint64_t done = 0;
  int64_t t0 = now_ns ();
  FILE *f;

  sigaction (SIGTERM, &sa, NULL);
  sigaction (SIGINT, &sa, NULL);
  while (!stop_requested)
    {
      spin (100000);
      done += 100000;
    }
  f = fopen (out, "w");
  if (!f)
    return 1;
  fprintf (f, "%llu %.3f\n", (unsigned long long) done, (now_ns () - t0) / 1e9);
  return fclose (f) == 0 ? 0 : 1;
}

static int
usage (void)
{
  fprintf (stderr, "usage: frame-app calibrate\n"
           "       frame-app frames --iterations N [--hz 60] [--warmup S] [--start-file F] [--seconds S]\n"
           "                        --out FILE\n"
           "       frame-app busy --out FILE\n");
  return 2;
}

int
main (int    argc,
      char **argv)
{
  uint64_t iterations = 0;
  int hz = 60;
  double warmup = 3, seconds = 20;
  const char *out = NULL, *start_file = NULL;

  if (argc < 2)
    return usage ();
  for (int i = 2; i + 1 < argc; i += 2)
    {
      if (strcmp (argv[i], "--iterations") == 0)
        iterations = strtoull (argv[i + 1], NULL, 10);
      else if (strcmp (argv[i], "--hz") == 0)
        hz = atoi (argv[i + 1]);
      else if (strcmp (argv[i], "--warmup") == 0)
        warmup = atof (argv[i + 1]);
      else if (strcmp (argv[i], "--seconds") == 0)
        seconds = atof (argv[i + 1]);
      else if (strcmp (argv[i], "--start-file") == 0)
        start_file = argv[i + 1];
      else if (strcmp (argv[i], "--out") == 0)
        out = argv[i + 1];
      else
        return usage ();
    }
  if (strcmp (argv[1], "calibrate") == 0)
    return calibrate ();
  if (strcmp (argv[1], "frames") == 0 && out && iterations > 0 && hz > 0 && hz <= 1000 && seconds > 0)
    return frames (iterations, hz, warmup, start_file, seconds, out);
  if (strcmp (argv[1], "busy") == 0 && out)
    return busy (out);
  return usage ();
}
