/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "rc-launch-read.h"
#include "rc-launch-options.h"
#include "rc-desktop-lookup.h"
#include "rc-error.h"
#include "rc-exec-line.h"
#include "rc-file-reader.h"
#include "rc-proc-reader.h"
#include "rc-unit-name.h"

/* The executables of the desktop files, built on the first Adopt that needs
 * it and kept while the applications folders' stamp (their mtimes) stays:
 * one scan of every desktop file, not one per call. GAppInfoMonitor would
 * say nothing: it hears only folders GIO's own index reads. */
static GHashTable *exe_index;
static char *exe_index_stamp;
static GMutex exe_index_lock;   /* built and checked in the file reader's workers */

static RcExeIndex *
shared_exe_index (void)
{
  g_autoptr(GMutexLocker) locker = g_mutex_locker_new (&exe_index_lock);
  g_autofree char *stamp = NULL;

  if (exe_index != NULL)
    {
      stamp = rc_desktop_dirs_stamp ();
      if (g_strcmp0 (stamp, exe_index_stamp) != 0)
        g_clear_pointer (&exe_index, g_hash_table_unref);
    }
  if (exe_index == NULL)
    {
      g_clear_pointer (&exe_index_stamp, g_free);
      exe_index = rc_exe_index_new (&exe_index_stamp);
      g_debug ("Adopt: the index of desktop files' programs was built (%u programs)",
               g_hash_table_size (exe_index));
    }
  return g_hash_table_ref (exe_index);
}

/* The desktop file (and for Adopt, what each process says it is) is read
 * in the file reader's worker: a path on a mount that never answers costs
 * the call its deadline, not the daemon its main loop. */
typedef struct {
  char      *app_id;    /* Launch's; Adopt's option AppId, or NULL: detect it */
  char     **uris;
  char      *working_directory; /* Launch's option, or NULL */
  GArray    *pids;      /* Adopt: the processes named */
  GPtrArray *comms;     /* their comm, for messages */
} FileRead;

static void
file_read_free (FileRead *read)
{
  g_free (read->app_id);
  g_strfreev (read->uris);
  g_free (read->working_directory);
  g_clear_pointer (&read->pids, g_array_unref);
  g_clear_pointer (&read->comms, g_ptr_array_unref);
  g_free (read);
}

void
rc_launch_read_free (RcLaunchRead *result)
{
  g_free (result->app_id);
  g_free (result->name);
  g_free (result->desktop_file);
  g_strfreev (result->argv);
  g_free (result);
}

static char *
detect_app_id (guint32      pid,
               const char  *comm,
               const char  *known,
               RcExeIndex **index,
               GError     **error)
{
  g_autofree char *found = NULL;
  const char *how = NULL;

  if (*index == NULL)
    *index = shared_exe_index ();
  found = rc_proc_detect_app_id (pid, *index, &how);
  if (found == NULL || !rc_app_id_is_valid (found))
    {
      g_set_error (error, RC_ERROR, RC_ERROR_INVALID_ARGUMENT,
                   "Which app process %u (%s) is was not found (no GIO_LAUNCHED_DESKTOP_FILE, "
                   "no .flatpak-info, no single desktop file for its program): pass the "
                   "option AppId", pid, comm);
      return NULL;
    }
  if (known != NULL && !g_str_equal (known, found))
    {
      g_set_error (error, RC_ERROR, RC_ERROR_INVALID_ARGUMENT,
                   "The processes are different apps (%s and %s): adopt each app on its own, "
                   "or pass the option AppId", known, found);
      return NULL;
    }
  g_debug ("Process %u is %s (found by %s)", pid, found, how);
  return g_steal_pointer (&found);
}

/* Launch's read, in a worker: what the desktop file says to run, checked
 * before anything starts. */
static gpointer
read_for_launch (gpointer data,
                 GError **error)
{
  FileRead *read = data;
  g_autoptr(RcLaunchRead) result = NULL;

  if (read->working_directory != NULL &&
      !g_file_test (read->working_directory, G_FILE_TEST_IS_DIR))
    {
      rc_launch_refuse_working_directory (read->working_directory, error);
      return NULL;
    }
  result = g_new0 (RcLaunchRead, 1);
  if (!rc_exec_for_app (read->app_id, (const char * const *) read->uris, &result->name,
                        &result->desktop_file, &result->argv, error))
    return NULL;
  return g_steal_pointer (&result);
}

/* Adopt's read, in a worker: which app the processes are, unless given,
 * and its desktop file. */
static gpointer
read_for_adopt (gpointer data,
                GError **error)
{
  FileRead *read = data;
  g_autoptr(RcLaunchRead) result = g_new0 (RcLaunchRead, 1);
  g_autoptr(GHashTable) index = NULL;   /* an RcExeIndex */
  g_autoptr(RcDesktopEntry) entry = NULL;

  result->app_id = g_strdup (read->app_id);
  for (guint i = 0; read->app_id == NULL && i < read->pids->len; i++)
    {
      char *found = detect_app_id (g_array_index (read->pids, guint32, i),
                                   g_ptr_array_index (read->comms, i), result->app_id, &index,
                                   error);

      if (found == NULL)
        return NULL;
      g_free (result->app_id);
      result->app_id = found;
    }
  entry = rc_desktop_lookup (result->app_id, NULL);
  result->name = g_strdup (entry != NULL && entry->name != NULL ? entry->name
                                                                : result->app_id);
  result->desktop_file = entry != NULL ? g_strdup (entry->path) : NULL;
  return g_steal_pointer (&result);
}

static void
run_read (RcFileReadFunc      worker,
          FileRead           *read,
          const char         *what,
          GCancellable       *cancellable,
          GAsyncReadyCallback callback,
          gpointer            user_data)
{
  rc_file_reader_run_async (rc_file_reader_get_default (), what, worker, read,
                            (GDestroyNotify) file_read_free,
                            (GDestroyNotify) rc_launch_read_free, cancellable, callback,
                            user_data);
}

void
rc_launch_read_async (const char         *app_id,
                      const char * const *uris,
                      const char         *working_directory,
                      GCancellable       *cancellable,
                      GAsyncReadyCallback callback,
                      gpointer            user_data)
{
  FileRead *read = g_new0 (FileRead, 1);
  g_autofree char *what = g_strdup_printf ("the desktop file of %s", app_id);

  read->app_id = g_strdup (app_id);
  read->uris = g_strdupv ((char **) uris);
  read->working_directory = g_strdup (working_directory);
  run_read (read_for_launch, read, what, cancellable, callback, user_data);
}

void
rc_adopt_read_async (const char         *app_id,
                     GArray             *pids,
                     GPtrArray          *comms,
                     GCancellable       *cancellable,
                     GAsyncReadyCallback callback,
                     gpointer            user_data)
{
  FileRead *read = g_new0 (FileRead, 1);
  g_autofree char *what = app_id != NULL ? g_strdup_printf ("the desktop file of %s", app_id)
                                         : g_strdup ("which app the processes are");

  read->app_id = g_strdup (app_id);
  read->pids = g_array_ref (pids);
  read->comms = g_ptr_array_ref (comms);
  run_read (read_for_adopt, read, what, cancellable, callback, user_data);
}

RcLaunchRead *
rc_launch_read_finish (GAsyncResult *result,
                       GError      **error)
{
  GError *local_error = NULL;
  RcLaunchRead *read = rc_file_reader_run_finish (rc_file_reader_get_default (), result,
                                                  &local_error);

  if (read != NULL)
    return read;
  /* a timeout or busy readers reach the caller as Failed, with what happened */
  if (local_error->domain != RC_ERROR)
    {
      g_set_error (error, RC_ERROR, RC_ERROR_FAILED, "%s", local_error->message);
      g_error_free (local_error);
    }
  else
    g_propagate_error (error, local_error);
  return NULL;
}
