/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "rc-proc-reader.h"
#include "rc-desktop-lookup.h"
#include "rc-safe-file.h"
#include "rc-unit-name.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PF_KTHREAD 0x00200000

/* A process's file, at most @max bytes of it (NUL-terminated; *@out_cut
 * says whether there was more): a process chooses how long its command
 * line and environment are. */
static char *
proc_file_capped (guint32     pid,
                  const char *name,
                  gsize       max,
                  gsize      *out_len,
                  gboolean   *out_cut)
{
  g_autofree char *path = g_strdup_printf ("/proc/%u/%s", pid, name);
  g_autofree char *buf = NULL;
  gsize len = 0;
  int fd = open (path, O_RDONLY | O_CLOEXEC | O_NOCTTY);

  if (fd < 0)
    return NULL;
  buf = g_malloc (max + 2);
  while (len < max + 1)
    {
      ssize_t n = read (fd, buf + len, max + 1 - len);

      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        break;
      len += (gsize) n;
    }
  close (fd);
  if (out_cut != NULL)
    *out_cut = len > max;
  len = MIN (len, max);
  buf[len] = '\0';
  if (out_len != NULL)
    *out_len = len;
  return g_steal_pointer (&buf);
}

/* /proc files read whole are small; this bounds what a process can make
 * its environment cost the reader. */
#define PROC_FILE_MAX (1024 * 1024)

static char *
proc_file (guint32     pid,
           const char *name,
           gsize      *out_len)
{
  return proc_file_capped (pid, name, PROC_FILE_MAX, out_len, NULL);
}

char *
rc_proc_cgroup (guint32 pid)
{
  g_autofree char *contents = proc_file (pid, "cgroup", NULL);
  g_auto(GStrv) lines = NULL;

  if (contents == NULL)
    return NULL;
  lines = g_strsplit (contents, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      /* The unified hierarchy's line, present on v2 and hybrid hosts. */
      if (g_str_has_prefix (lines[i], "0::"))
        return g_strdup (lines[i] + 3);
    }
  return NULL;
}

/* Splits /proc/PID/stat at its comm, which may hold spaces and
 * parentheses, so it ends at the last ')': the comm (any bytes a process
 * chose, made valid UTF-8: it goes into D-Bus strings) and the fields
 * after it, from the state on. FALSE when there is no comm. */
static gboolean
split_stat (const char  *stat,
            char       **out_comm,
            const char **out_fields)
{
  const char *open = strchr (stat, '(');
  const char *close = strrchr (stat, ')');
  g_autofree char *comm = NULL;

  if (open == NULL || close == NULL || close < open)
    return FALSE;
  comm = g_strndup (open + 1, close - open - 1);
  *out_comm = g_utf8_make_valid (comm, -1);
  *out_fields = close + 2;
  return TRUE;
}

RcProc *
rc_proc_read (guint32 pid)
{
  g_autofree char *stat = proc_file (pid, "stat", NULL);
  g_autofree char *status = proc_file (pid, "status", NULL);
  g_autoptr(RcProc) proc = NULL;
  g_autofree char *comm = NULL;
  const char *fields, *uid;
  unsigned int ppid = 0;
  unsigned long flags = 0;
  unsigned long long start_time = 0;

  if (stat == NULL || status == NULL)
    return NULL;
  /* pid (comm) state ppid pgrp session tty_nr tpgid flags ... */
  if (!split_stat (stat, &comm, &fields) ||
      sscanf (fields, "%*c %u %*d %*d %*d %*d %lu %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d %*d "
              "%*d %llu", &ppid, &flags, &start_time) != 3)
    return NULL;
  uid = strstr (status, "\nUid:");
  proc = g_new0 (RcProc, 1);
  proc->pid = pid;
  proc->ppid = ppid;
  proc->start_time = start_time;
  proc->uid = uid != NULL ? (guint32) strtoul (uid + 5, NULL, 10) : G_MAXUINT32;
  proc->kernel_thread = (flags & PF_KTHREAD) != 0 || ppid == 2 || pid == 2;
  proc->comm = g_steal_pointer (&comm);   /* cut at 15 by the kernel */
  proc->cgroup = rc_proc_cgroup (pid);
  if (proc->cgroup == NULL)
    proc->cgroup = g_strdup ("");
  return g_steal_pointer (&proc);
}

void
rc_proc_free (RcProc *proc)
{
  g_free (proc->comm);
  g_free (proc->cgroup);
  g_free (proc);
}

int
rc_proc_compare_pids (gconstpointer a,
                      gconstpointer b)
{
  guint32 x = *(const guint32 *) a, y = *(const guint32 *) b;

  return x < y ? -1 : x > y;
}

static int
compare_pid (gconstpointer a,
             gconstpointer b)
{
  const RcProc *pa = *(RcProc * const *) a, *pb = *(RcProc * const *) b;

  return pa->pid < pb->pid ? -1 : pa->pid > pb->pid;
}

GPtrArray *
rc_proc_list (void)
{
  GPtrArray *all = g_ptr_array_new_with_free_func ((GDestroyNotify) rc_proc_free);
  g_autoptr(GDir) dir = g_dir_open ("/proc", 0, NULL);
  const char *name;

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      guint64 pid;
      RcProc *proc;

      if (!g_ascii_string_to_unsigned (name, 10, 1, G_MAXUINT32, &pid, NULL))
        continue;
      proc = rc_proc_read ((guint32) pid);
      if (proc != NULL)
        g_ptr_array_add (all, proc);
    }
  g_ptr_array_sort (all, compare_pid);
  return all;
}

GArray *
rc_proc_tree (GPtrArray *all,
              guint32    pid)
{
  GArray *tree = g_array_new (FALSE, FALSE, sizeof (guint32));
  const char *cgroup = NULL;

  for (guint i = 0; i < all->len; i++)
    {
      RcProc *proc = g_ptr_array_index (all, i);

      if (proc->pid == pid)
        cgroup = proc->cgroup;
    }
  g_array_append_val (tree, pid);
  if (cgroup == NULL)
    return tree;
  /* Breadth first: each round adds the children of what is in already. */
  for (guint done = 0; done < tree->len; done++)
    {
      guint32 parent = g_array_index (tree, guint32, done);

      for (guint i = 0; i < all->len; i++)
        {
          RcProc *proc = g_ptr_array_index (all, i);

          if (proc->ppid == parent && proc->pid != pid && g_str_equal (proc->cgroup, cgroup))
            g_array_append_val (tree, proc->pid);
        }
    }
  return tree;
}

GVariant *
rc_proc_usage_variant (guint32 pid)
{
  g_autofree char *stat = proc_file (pid, "stat", NULL);
  g_autofree char *statm = proc_file (pid, "statm", NULL);
  g_autofree char *cmdline = NULL;
  g_autofree char *comm = NULL;
  g_autofree char *valid_cmdline = NULL;
  g_autofree char *shown_cmdline = NULL;
  gboolean cut = FALSE;
  const char *fields;
  unsigned long long utime = 0, stime = 0, start = 0, rss_pages = 0;
  gsize len = 0;
  guint64 ns_per_tick = G_GUINT64_CONSTANT (1000000000) / (guint64) sysconf (_SC_CLK_TCK);

  if (stat == NULL || statm == NULL)
    return NULL;
  /* after comm: state(3) ... utime(14) stime(15) ... starttime(22) */
  if (!split_stat (stat, &comm, &fields) ||
      sscanf (fields, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu %*d %*d %*d %*d "
              "%*d %*d %llu", &utime, &stime, &start) != 3 ||
      sscanf (statm, "%*u %llu", &rss_pages) != 1)
    return NULL;
  cmdline = proc_file_capped (pid, "cmdline", RC_PROC_CMDLINE_MAX, &len, &cut);
  /* NUL-separated arguments, joined by spaces (a kernel thread has none) */
  for (gsize i = 0; cmdline != NULL && len > 0 && i < len - 1; i++)
    if (cmdline[i] == '\0')
      cmdline[i] = ' ';
  if (cmdline != NULL && len > 0 && cmdline[len - 1] == '\0')
    len--;
  valid_cmdline = g_utf8_make_valid (cmdline != NULL ? cmdline : "", cmdline != NULL ? (gssize) len : -1);
  if (cut || strlen (valid_cmdline) > RC_PROC_CMDLINE_MAX)
    {
      /* at most RC_PROC_CMDLINE_MAX bytes, cut where a character ends, and marked */
      char *end = valid_cmdline + MIN (strlen (valid_cmdline), RC_PROC_CMDLINE_MAX - strlen ("…"));

      while (end > valid_cmdline && (*end & 0xc0) == 0x80)
        end--;
      *end = '\0';
      shown_cmdline = g_strconcat (valid_cmdline, "…", NULL);
    }
  return g_variant_new ("(ussttt)", pid, comm,
                        shown_cmdline != NULL ? shown_cmdline : valid_cmdline,
                        (guint64) rss_pages * (guint64) sysconf (_SC_PAGESIZE),
                        (guint64) (utime + stime) * ns_per_tick, (guint64) start * ns_per_tick);
}

/* ---- which app ---------------------------------------------------------- */

static char *
from_environment (guint32 pid)
{
  gsize len = 0;
  g_autofree char *env = proc_file (pid, "environ", &len);
  const char *key = "GIO_LAUNCHED_DESKTOP_FILE=";

  for (gsize at = 0; env != NULL && at < len; at += strlen (env + at) + 1)
    if (g_str_has_prefix (env + at, key))
      return rc_desktop_file_id (env + at + strlen (key));
  return NULL;
}

static char *
from_flatpak_info (guint32 pid)
{
  g_autofree char *path = g_strdup_printf ("/proc/%u/root/.flatpak-info", pid);
  g_autoptr(GKeyFile) info = g_key_file_new ();

  g_autofree char *name = NULL;

  /* The process chose that file: read without waiting, a regular file only. */
  if (!rc_safe_key_file_load (info, path, G_KEY_FILE_NONE, NULL))
    return NULL;
  name = g_key_file_get_string (info, "Application", "name", NULL);
  return name != NULL && rc_app_id_is_valid (name) ? g_steal_pointer (&name) : NULL;
}

/* A value that marks an executable several desktop files name. */
static const char ambiguous[] = "";

static void
index_program (GHashTable *index,
               const char *program,
               const char *app_id)
{
  g_autofree char *found = NULL;
  char *real;
  const char *known;

  if (program == NULL || *program == '\0')
    return;
  found = g_find_program_in_path (program);
  real = found != NULL ? realpath (found, NULL) : NULL;
  if (real == NULL)
    return;
  known = g_hash_table_lookup (index, real);
  if (known == NULL)
    g_hash_table_insert (index, real, g_strdup (app_id));
  else
    {
      if (known != ambiguous && !g_str_equal (known, app_id))
        g_hash_table_insert (index, g_strdup (real), (char *) ambiguous);
      free (real);
    }
}

static void
free_app_id (gpointer data)
{
  if (data != ambiguous)
    g_free (data);
}

static void
index_app (const char     *desktop_id,
           RcDesktopEntry *entry,
           gpointer        user_data)
{
  GHashTable *index = user_data;
  g_autofree char *app_id = rc_desktop_file_id (desktop_id);

  if (app_id == NULL)
    return;
  index_program (index, entry->executable, app_id);
  if (entry->try_exec != NULL && g_strcmp0 (entry->try_exec, entry->executable) != 0)
    index_program (index, entry->try_exec, app_id);
}

/* Every desktop file, read by rc_desktop_list (bounded, no blocking open),
 * never by g_app_info_get_all, which opens them and mimeapps.list blocking. */
RcExeIndex *
rc_exe_index_new (char **out_stamp)
{
  GHashTable *index = g_hash_table_new_full (g_str_hash, g_str_equal, free, free_app_id);

  rc_desktop_list (index_app, index, out_stamp);
  return index;
}

char *
rc_proc_detect_app_id (guint32      pid,
                       RcExeIndex  *index,
                       const char **out_how)
{
  g_autofree char *exe_link = g_strdup_printf ("/proc/%u/exe", pid);
  g_autofree char *exe = NULL;
  const char *app_id;
  char *found;

  if ((found = from_environment (pid)) != NULL)
    {
      *out_how = "GIO_LAUNCHED_DESKTOP_FILE";
      return found;
    }
  if ((found = from_flatpak_info (pid)) != NULL)
    {
      *out_how = ".flatpak-info";
      return found;
    }
  exe = g_file_read_link (exe_link, NULL);
  app_id = exe != NULL && index != NULL ? g_hash_table_lookup (index, exe) : NULL;
  if (app_id == NULL || app_id == ambiguous)
    return NULL;
  *out_how = "executable";
  return g_strdup (app_id);
}
