/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The cgroupfs reader. Reading cgroupfs is allowed; writing it is systemd's
 * alone, so nothing here writes a setting. The one file opened for writing
 * is a pressure file, to register a PSI trigger: a monitor of the daemon's
 * own that ends with its fd and changes nothing for the cgroup. */
#include "rc-cgroup.h"
#include "rc-api-keys.h"
#include "rc-pressure.h"
#include "rc-test-hooks.h"

#include <gio/gio.h>

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <linux/magic.h>
#include <sys/resource.h>
#include <sys/vfs.h>
#include <sys/xattr.h>
#include <unistd.h>

const char *
rc_cgroup_root (void)
{
  /* Tests point this at a fake tree that their mock systemd keeps. */
  const char *root = rc_test_hook ("RC_CGROUP_ROOT");

  return root != NULL ? root : "/sys/fs/cgroup";
}

char *
rc_cgroup_file_path (const char *control_group,
                     const char *file)
{
  return g_build_filename (rc_cgroup_root (), control_group, file, NULL);
}

static char *
read_cgroup_file (const char *control_group,
                  const char *file)
{
  g_autofree char *path = NULL;
  char *contents = NULL;

  if (control_group == NULL || *control_group == '\0')
    return NULL;
  path = rc_cgroup_file_path (control_group, file);
  if (!g_file_get_contents (path, &contents, NULL, NULL))
    return NULL;
  return contents;
}

static gboolean
parse_u64 (const char *text,
           guint64    *out_value)
{
  guint64 value;
  char *end = NULL;

  if (g_str_has_prefix (text, "max"))
    {
      *out_value = G_MAXUINT64;
      return TRUE;
    }
  if (!g_ascii_isdigit (*text))
    return FALSE;
  errno = 0;
  value = g_ascii_strtoull (text, &end, 10);
  if (errno != 0 || end == text)
    return FALSE;
  *out_value = value;
  return TRUE;
}

/* The files ListApps reads for every app are a line or a few: one openat
 * and one read each into a stack buffer, from one directory fd per app,
 * instead of building a path and g_file_get_contents (which also fstats
 * and allocates) for each. A ListApps at N apps reads 11 N files. */
#define SMALL_FILE_MAX 1024

/* From the start, whether the file was just opened or kept open: a
 * cgroup file read at offset 0 is made anew by the kernel. */
static gboolean
read_small_fd (int  fd,
               char buf[SMALL_FILE_MAX])
{
  ssize_t n;

  do
    n = pread (fd, buf, SMALL_FILE_MAX - 1, 0);
  while (n < 0 && errno == EINTR);
  if (n < 0)
    return FALSE;
  buf[n] = '\0';
  return TRUE;
}

static gboolean
read_small_file (int         dir_fd,
                 const char *file,
                 char        buf[SMALL_FILE_MAX])
{
  gboolean ok;
  int fd;

  if (dir_fd < 0)
    return FALSE;
  fd = openat (dir_fd, file, O_RDONLY | O_CLOEXEC | O_NOCTTY);
  if (fd < 0)
    return FALSE;
  ok = read_small_fd (fd, buf);
  close (fd);
  return ok;
}

/* The files read at every ListApps, kept open by an RcCgroupHandle. The
 * pressure files are in RcPressure's order. */
enum {
  USAGE_MEMORY_CURRENT, USAGE_PIDS_CURRENT, USAGE_CPU_STAT, USAGE_PROCS, USAGE_MEMORY_EVENTS,
  USAGE_CPU_PRESSURE, USAGE_MEMORY_PRESSURE, USAGE_IO_PRESSURE, N_USAGE_FILES
};
static const char * const usage_files[N_USAGE_FILES] = {
  "memory.current", "pids.current", "cpu.stat", "cgroup.procs", "memory.events",
  "cpu.pressure", "memory.pressure", "io.pressure",
};

/* A kept handle's report file (memory.events, *.pressure) the kernel does
 * not have: it never makes one later for the same folder (PSI off, a v1 or
 * hybrid host), so it is not looked for at every read. */
#define FD_ABSENT -2

struct _RcCgroupHandle {
  int dir_fd;
  int fds[N_USAGE_FILES];   /* -1: opened when read */
};

static gboolean
read_usage_file (const RcCgroupHandle *handle,
                 guint                 file,
                 char                  buf[SMALL_FILE_MAX])
{
  if (handle->fds[file] >= 0)
    return read_small_fd (handle->fds[file], buf);
  if (handle->fds[file] == FD_ABSENT)
    return FALSE;
  return read_small_file (handle->dir_fd, usage_files[file], buf);
}

/* The app's cgroup folder, or -1 when it has none or it is gone. */
static int
open_cgroup_dir (const char *control_group)
{
  g_autofree char *dir = NULL;

  if (control_group == NULL || *control_group == '\0')
    return -1;
  dir = g_build_filename (rc_cgroup_root (), control_group, NULL);
  return open (dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

static gboolean
dir_read_u64 (int         dir_fd,
              const char *file,
              guint64    *out_value)
{
  char buf[SMALL_FILE_MAX];

  return read_small_file (dir_fd, file, buf) && parse_u64 (g_strstrip (buf), out_value);
}

gboolean
rc_cgroup_read_u64 (const char *control_group,
                    const char *file,
                    guint64    *out_value)
{
  int dir_fd = open_cgroup_dir (control_group);
  gboolean ok = dir_read_u64 (dir_fd, file, out_value);

  if (dir_fd >= 0)
    close (dir_fd);
  return ok;
}

guint64
rc_cgroup_read_pressure_total (const char *control_group,
                               RcPressure  pressure)
{
  char buf[SMALL_FILE_MAX];
  int dir_fd;
  gboolean ok;
  guint64 total;

  g_return_val_if_fail (pressure < RC_N_PRESSURES, G_MAXUINT64);
  if (control_group == NULL)
    return G_MAXUINT64;
  dir_fd = open_cgroup_dir (control_group);
  ok = read_small_file (dir_fd, usage_files[USAGE_CPU_PRESSURE + pressure], buf);
  if (dir_fd >= 0)
    close (dir_fd);
  return ok && rc_pressure_parse_some_total (buf, &total) ? total : G_MAXUINT64;
}

static guint64
dir_read_u64_or_max (int         dir_fd,
                     const char *file)
{
  guint64 value;

  return dir_read_u64 (dir_fd, file, &value) ? value : G_MAXUINT64;
}

/* Looks up "key value" in a flat-keyed file such as cpu.stat. */
static gboolean
parse_keyed_u64 (const char *buf,
                 const char *key,
                 guint64    *out_value)
{
  gsize key_len = strlen (key);

  for (const char *line = buf; *line != '\0';)
    {
      const char *next = strchr (line, '\n');

      if (strncmp (line, key, key_len) == 0 && line[key_len] == ' ')
        return parse_u64 (line + key_len + 1, out_value);
      if (next == NULL)
        break;
      line = next + 1;
    }
  return FALSE;
}

static gboolean
dir_read_keyed_u64 (int         dir_fd,
                    const char *file,
                    const char *key,
                    guint64    *out_value)
{
  char buf[SMALL_FILE_MAX];

  return read_small_file (dir_fd, file, buf) && parse_keyed_u64 (buf, key, out_value);
}

/* cpu.max holds "<quota> <period>" in microseconds, or "max <period>". */
static guint32
dir_read_cpu_quota_percent (int dir_fd)
{
  char buf[SMALL_FILE_MAX];
  guint64 quota, period;
  char *end = NULL;

  if (!read_small_file (dir_fd, "cpu.max", buf) || g_str_has_prefix (buf, "max"))
    return 0;
  quota = g_ascii_strtoull (buf, &end, 10);
  if (end == buf || *end != ' ')
    return 0;
  period = g_ascii_strtoull (end + 1, NULL, 10);
  if (period == 0)
    return 0;
  /* Round up so that a quota systemd stored as 9999 us per 100 ms still reads as 10%. */
  return (guint32) MIN ((quota * 100 + period - 1) / period, G_MAXUINT32);
}

/* A missing file (or cgroup) reads as "max": not limited, not known. */
static void
dir_read_limits (int            dir_fd,
                 RcCgroupStats *out_stats)
{
  out_stats->cpu_weight = dir_read_u64_or_max (dir_fd, "cpu.weight");
  out_stats->memory_low = dir_read_u64_or_max (dir_fd, "memory.low");
  out_stats->memory_min = dir_read_u64_or_max (dir_fd, "memory.min");
  out_stats->memory_swap_max = dir_read_u64_or_max (dir_fd, "memory.swap.max");
  out_stats->memory_high = dir_read_u64_or_max (dir_fd, "memory.high");
  out_stats->memory_max = dir_read_u64_or_max (dir_fd, "memory.max");
  out_stats->tasks_max = dir_read_u64_or_max (dir_fd, "pids.max");
  out_stats->cpu_quota = dir_read_cpu_quota_percent (dir_fd);

  /* io.weight is "default N" plus optional per-device lines. */
  if (!dir_read_keyed_u64 (dir_fd, "io.weight", "default", &out_stats->io_weight))
    out_stats->io_weight = G_MAXUINT64;
}

static guint64
usage_u64_or_max (const RcCgroupHandle *handle,
                  guint                 file)
{
  char buf[SMALL_FILE_MAX];
  guint64 value;

  return read_usage_file (handle, file, buf) && parse_u64 (g_strstrip (buf), &value)
         ? value : G_MAXUINT64;
}

/* memory.events texts are parsed once each, up to this many: nearly every
 * app's reads "low 0\nhigh 0\n..." and a ListApps at 1,000 apps would
 * otherwise build the same dictionary a thousand times. */
#define MAX_KEPT_MEMORY_EVENTS 64

/* NULL for a file with no counter: not one the kernel wrote. */
static GVariant *
memory_events_from_text (const char *text,
                         gboolean   *out_kept)
{
  static GHashTable *kept;
  g_autoptr(GVariant) events = NULL;
  GVariant *known;

  if (kept == NULL)
    kept = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                  (GDestroyNotify) g_variant_unref);
  known = g_hash_table_lookup (kept, text);
  *out_kept = known != NULL;
  if (known != NULL)
    return g_variant_ref (known);
  events = g_variant_ref_sink (rc_pressure_parse_memory_events (text));
  if (g_variant_n_children (events) == 0)
    return NULL;
  if (g_hash_table_size (kept) < MAX_KEPT_MEMORY_EVENTS)
    {
      g_hash_table_insert (kept, g_strdup (text), g_variant_ref (events));
      *out_kept = TRUE;
    }
  return g_steal_pointer (&events);
}

/* @reports: also memory.events and the pressure files (what the limits
 * do), four files more per app. */
static void
read_usage (const RcCgroupHandle *handle,
            RcCgroupStats        *out_stats,
            gboolean              reports)
{
  char buf[SMALL_FILE_MAX] = "";
  guint64 usage_usec;

  out_stats->memory_current = usage_u64_or_max (handle, USAGE_MEMORY_CURRENT);
  out_stats->tasks_current = usage_u64_or_max (handle, USAGE_PIDS_CURRENT);
  if (read_usage_file (handle, USAGE_CPU_STAT, buf) &&
      parse_keyed_u64 (buf, "usage_usec", &usage_usec) && usage_usec < G_MAXUINT64 / 1000)
    out_stats->cpu_usage_nsec = usage_usec * 1000;
  else
    out_stats->cpu_usage_nsec = G_MAXUINT64;
  /* From the same read of cpu.stat: no file more per record. */
  if (!(buf[0] != '\0' && parse_keyed_u64 (buf, "throttled_usec", &out_stats->cpu_throttled_usec)))
    out_stats->cpu_throttled_usec = G_MAXUINT64;
  if (!reports)
    {
      out_stats->memory_events = NULL;
      for (guint i = 0; i < RC_N_PRESSURES; i++)
        out_stats->pressure[i] = -1;
      return;
    }
  out_stats->memory_events = read_usage_file (handle, USAGE_MEMORY_EVENTS, buf)
                             ? memory_events_from_text (buf, &out_stats->memory_events_kept)
                             : NULL;
  for (guint i = 0; i < RC_N_PRESSURES; i++)
    if (!(read_usage_file (handle, USAGE_CPU_PRESSURE + i, buf) &&
          rc_pressure_parse_some_avg10 (buf, &out_stats->pressure[i])))
      out_stats->pressure[i] = -1;
}

/* Appends the pids of one chunk of cgroup.procs ("<pid>\n" lines) to @pids.
 * A line cut at the end of the chunk is left for the next one: returns
 * how many bytes of @text were used. */
static gsize
parse_pid_lines (const char *text,
                 gsize       len,
                 GArray     *pids)
{
  const char *line = text;
  const char *end = text + len;

  for (const char *nl; line < end && (nl = memchr (line, '\n', end - line)) != NULL; line = nl + 1)
    {
      guint64 pid = 0;
      const char *p = line;

      for (; p < nl && g_ascii_isdigit (*p) && pid <= G_MAXUINT32; p++)
        pid = pid * 10 + (guint64) (*p - '0');
      if (p == nl && pid > 0 && pid <= G_MAXUINT32)
        {
          guint32 value = (guint32) pid;
          g_array_append_val (pids, value);
        }
    }
  return line - text;
}

/* cgroup.procs has one line per process: one read into a stack buffer
 * holds hundreds of them, and the kernel's seq_file fills a read as far as
 * the file goes, so a short read is the end. */
static void
read_pids (const RcCgroupHandle *handle,
           GArray               *pids)
{
  char buf[4096];
  gsize kept = 0;
  off_t offset = 0;
  int fd = handle->fds[USAGE_PROCS];
  gboolean own = fd < 0;

  if (own && handle->dir_fd >= 0)
    fd = openat (handle->dir_fd, "cgroup.procs", O_RDONLY | O_CLOEXEC | O_NOCTTY);
  if (fd < 0)
    return;
  for (;;)
    {
      ssize_t n = pread (fd, buf + kept, sizeof buf - kept, offset);
      gsize filled, used;

      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        break;
      offset += n;
      filled = kept + n;
      used = parse_pid_lines (buf, filled, pids);
      kept = filled - used;
      /* A line as long as the buffer is no pid. */
      if (kept == sizeof buf)
        kept = 0;
      memmove (buf, buf + used, kept);
      if (filled < sizeof buf)
        break;
    }
  if (own)
    close (fd);
  /* A last line without its newline (there is room: kept < sizeof buf). */
  if (kept > 0)
    {
      buf[kept] = '\n';
      parse_pid_lines (buf, kept + 1, pids);
    }
}

/* A handle of nothing kept open: every file is opened when read. */
#define UNKEPT_HANDLE(dir) { .dir_fd = (dir), .fds = {[0 ... N_USAGE_FILES - 1] = -1 } }

GArray *
rc_cgroup_read_pids (const char *control_group)
{
  GArray *pids = g_array_new (FALSE, FALSE, sizeof (guint32));
  RcCgroupHandle handle = UNKEPT_HANDLE (open_cgroup_dir (control_group));

  read_pids (&handle, pids);
  if (handle.dir_fd >= 0)
    close (handle.dir_fd);
  return pids;
}

void
rc_cgroup_read_app (const char    *control_group,
                    RcCgroupStats *out_stats,
                    GArray        *out_pids)
{
  RcCgroupHandle handle = UNKEPT_HANDLE (open_cgroup_dir (control_group));

  dir_read_limits (handle.dir_fd, out_stats);
  read_usage (&handle, out_stats, TRUE);
  read_pids (&handle, out_pids);
  if (handle.dir_fd >= 0)
    close (handle.dir_fd);
}

/* Kept-open files may use the open file limit but this many: GLib, GDBus,
 * polkit and the calls in flight need theirs. */
#define FDS_LEFT_FREE 256
#define FDS_PER_HANDLE (1 + N_USAGE_FILES)

static guint kept_fds;

static gboolean
may_keep_handle (void)
{
  static rlim_t budget;
  static gsize known = 0;

  if (g_once_init_enter (&known))
    {
      struct rlimit limit;

      if (getrlimit (RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY)
        budget = limit.rlim_cur > FDS_LEFT_FREE ? limit.rlim_cur - FDS_LEFT_FREE : 0;
      else
        budget = G_MAXUINT;
      g_once_init_leave (&known, 1);
    }
  return kept_fds + FDS_PER_HANDLE <= budget;
}

RcCgroupHandle *
rc_cgroup_handle_open (const char *control_group)
{
  RcCgroupHandle *handle;
  int dir_fd;

  /* Past the budget, the files are opened at each read instead. */
  if (!may_keep_handle ())
    return NULL;
  dir_fd = open_cgroup_dir (control_group);
  if (dir_fd < 0)
    return NULL;
  kept_fds += FDS_PER_HANDLE;
  handle = g_new (RcCgroupHandle, 1);
  handle->dir_fd = dir_fd;
  /* A file that cannot be kept open (none on a v1 host, or no fd left)
   * is opened at each read instead. */
  for (guint i = 0; i < N_USAGE_FILES; i++)
    {
      handle->fds[i] = openat (dir_fd, usage_files[i], O_RDONLY | O_CLOEXEC | O_NOCTTY);
      if (handle->fds[i] < 0 && errno == ENOENT && i >= USAGE_MEMORY_EVENTS)
        handle->fds[i] = FD_ABSENT;
    }
  return handle;
}

void
rc_cgroup_handle_free (RcCgroupHandle *handle)
{
  if (handle == NULL)
    return;
  for (guint i = 0; i < N_USAGE_FILES; i++)
    if (handle->fds[i] >= 0)
      close (handle->fds[i]);
  close (handle->dir_fd);
  kept_fds -= FDS_PER_HANDLE;
  g_free (handle);
}

void
rc_cgroup_stats_add_reports (RcCgroupStats   *stats,
                             GVariantBuilder *vardict)
{
  static const char * const pressure_keys[RC_N_PRESSURES] = {
    RC_KEY_CPU_PRESSURE, RC_KEY_MEMORY_PRESSURE, RC_KEY_IO_PRESSURE,
  };

  if (stats->memory_events != NULL)
    g_variant_builder_add (vardict, "{sv}", RC_KEY_MEMORY_EVENTS, stats->memory_events);
  g_clear_pointer (&stats->memory_events, g_variant_unref);
  for (guint i = 0; i < RC_N_PRESSURES; i++)
    if (stats->pressure[i] >= 0)
      g_variant_builder_add (vardict, "{sv}", pressure_keys[i],
                             g_variant_new_double (stats->pressure[i]));
}

GVariant *
rc_cgroup_read_memory_events (const char *control_group)
{
  char buf[SMALL_FILE_MAX];
  int dir_fd = open_cgroup_dir (control_group);
  gboolean ok = read_small_file (dir_fd, "memory.events", buf);
  gboolean kept;

  if (dir_fd >= 0)
    close (dir_fd);
  return ok ? memory_events_from_text (buf, &kept) : NULL;
}

void
rc_cgroup_read_limits (const char    *control_group,
                       RcCgroupStats *out_stats)
{
  int dir_fd = open_cgroup_dir (control_group);

  dir_read_limits (dir_fd, out_stats);
  if (dir_fd >= 0)
    close (dir_fd);
}

void
rc_cgroup_read_usage (const char    *control_group,
                      RcCgroupStats *out_stats,
                      GArray        *out_pids,
                      gboolean       reports)
{
  RcCgroupHandle handle = UNKEPT_HANDLE (open_cgroup_dir (control_group));

  read_usage (&handle, out_stats, reports);
  read_pids (&handle, out_pids);
  if (handle.dir_fd >= 0)
    close (handle.dir_fd);
}

void
rc_cgroup_handle_read_limits (RcCgroupHandle *handle,
                              RcCgroupStats  *out_stats)
{
  dir_read_limits (handle->dir_fd, out_stats);
}

void
rc_cgroup_handle_read_usage (RcCgroupHandle *handle,
                             RcCgroupStats  *out_stats,
                             GArray         *out_pids,
                             gboolean        reports)
{
  read_usage (handle, out_stats, reports);
  read_pids (handle, out_pids);
}

gboolean
rc_cgroup_has_controller (const char *control_group,
                          const char *controller)
{
  g_autofree char *contents = read_cgroup_file (control_group, "cgroup.controllers");
  g_auto(GStrv) names = NULL;

  if (contents == NULL)
    return FALSE;
  names = g_strsplit_set (g_strstrip (contents), " \n", -1);
  return g_strv_contains ((const char * const *) names, controller);
}

/* A controller the user's manager may enable for its units: listed at the
 * root of its delegated subtree (…/user@UID.service). An app's own
 * cgroup.controllers lists only what its parent slice enabled so far, and
 * systemd enables io there only once some unit asks for an IOWeight. */
gboolean
rc_cgroup_is_delegated (const char *control_group,
                        const char *controller)
{
  g_auto(GStrv) parts = NULL;
  g_autoptr(GString) path = g_string_new ("");

  if (control_group == NULL)
    return FALSE;
  parts = g_strsplit (control_group, "/", -1);
  for (guint i = 0; parts[i] != NULL; i++)
    {
      if (*parts[i] == '\0')
        continue;
      g_string_append_printf (path, "/%s", parts[i]);
      if (g_str_has_prefix (parts[i], "user@") && g_str_has_suffix (parts[i], ".service"))
        return rc_cgroup_has_controller (path->str, controller);
    }
  return rc_cgroup_has_controller (control_group, controller);
}

gboolean
rc_cgroup_freeze_supported (void)
{
  /* Only the unified hierarchy has cgroup.controllers at its root; on v1 and
   * hybrid hosts /sys/fs/cgroup is a tmpfs and systemd cannot freeze. */
  g_autofree char *path = g_build_filename (rc_cgroup_root (), "cgroup.controllers", NULL);

  return g_file_test (path, G_FILE_TEST_EXISTS);
}

gboolean
rc_cgroup_is_frozen (const char *control_group)
{
  int dir_fd = open_cgroup_dir (control_group);
  guint64 frozen = 0;

  if (dir_fd >= 0)
    {
      dir_read_keyed_u64 (dir_fd, "cgroup.events", "frozen", &frozen);
      close (dir_fd);
    }
  return frozen == 1;
}

gboolean
rc_cgroup_path_contains (const char *parent,
                         const char *child)
{
  gsize len;

  if (parent == NULL || child == NULL || *parent == '\0')
    return FALSE;
  len = strlen (parent);
  if (strncmp (parent, child, len) != 0)
    return FALSE;
  return child[len] == '\0' || child[len] == '/';
}

gboolean
rc_cgroup_read_cpu_usage_usec (RcCgroupHandle *handle,
                               const char     *control_group,
                               guint64        *out_usec)
{
  char buf[SMALL_FILE_MAX];
  gboolean ok;
  int dir_fd;

  if (handle != NULL)
    return read_usage_file (handle, USAGE_CPU_STAT, buf) &&
           parse_keyed_u64 (buf, "usage_usec", out_usec);
  dir_fd = open_cgroup_dir (control_group);
  ok = dir_read_keyed_u64 (dir_fd, "cpu.stat", "usage_usec", out_usec);
  if (dir_fd >= 0)
    close (dir_fd);
  return ok;
}

gboolean
rc_cgroup_read_memory_current (RcCgroupHandle *handle,
                               const char     *control_group,
                               guint64        *out_bytes)
{
  char buf[SMALL_FILE_MAX];

  if (handle != NULL)
    return read_usage_file (handle, USAGE_MEMORY_CURRENT, buf) &&
           parse_u64 (g_strstrip (buf), out_bytes);
  return rc_cgroup_read_u64 (control_group, "memory.current", out_bytes);
}

gboolean
rc_cgroup_read_cpu_throttle (const char *control_group,
                             guint32    *out_quota_percent,
                             guint64    *out_throttled_usec)
{
  int dir_fd = open_cgroup_dir (control_group);

  if (dir_fd < 0)
    return FALSE;
  *out_quota_percent = dir_read_cpu_quota_percent (dir_fd);
  if (!dir_read_keyed_u64 (dir_fd, "cpu.stat", "throttled_usec", out_throttled_usec))
    *out_throttled_usec = G_MAXUINT64;
  close (dir_fd);
  return TRUE;
}

guint64
rc_cgroup_read_oomd_kills (const char *control_group)
{
  g_autofree char *dir = NULL;
  char buf[32];
  ssize_t len;
  guint64 value;

  if (control_group == NULL || *control_group == '\0')
    return 0;
  dir = rc_cgroup_file_path (control_group, NULL);
  len = getxattr (dir, "user.oomd_ooms", buf, sizeof buf - 1);
  if (len <= 0)
    return 0;
  buf[len] = '\0';
  return parse_u64 (g_strstrip (buf), &value) ? value : 0;
}

int
rc_cgroup_open_pressure_trigger (const char *control_group,
                                 RcPressure  pressure,
                                 const char *trigger,
                                 GError    **error)
{
  g_autofree char *path = rc_cgroup_file_path (control_group,
                                               usage_files[USAGE_CPU_PRESSURE + pressure]);
  struct statfs fs;
  int fd;
  int saved;

  fd = open (path, O_RDWR | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0)
    {
      saved = errno;
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved), "%s: %s", path,
                   g_strerror (saved));
      return -1;
    }
  /* Only the kernel's file takes a trigger: a file of a test's fake tree
   * would just be overwritten. */
  if (fstatfs (fd, &fs) < 0 || fs.f_type != CGROUP2_SUPER_MAGIC)
    {
      close (fd);
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED, "%s: not on cgroup2", path);
      return -1;
    }
  /* the kernel takes the trigger with its NUL */
  if (write (fd, trigger, strlen (trigger) + 1) < 0)
    {
      saved = errno;
      close (fd);
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved), "%s: trigger %s: %s", path,
                   trigger, g_strerror (saved));
      return -1;
    }
  return fd;
}

/* Each app keeps its cgroup folder and eight usage files open: a desktop with a
 * thousand apps needs more than the usual soft limit of 1024. */
void
rc_cgroup_raise_fd_limit (void)
{
  struct rlimit limit;

  if (getrlimit (RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur < limit.rlim_max)
    {
      limit.rlim_cur = limit.rlim_max;
      if (setrlimit (RLIMIT_NOFILE, &limit) != 0)
        g_debug ("Cannot raise the open file limit: %s", g_strerror (errno));
    }
}
