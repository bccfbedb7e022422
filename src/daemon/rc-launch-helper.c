/* SPDX-License-Identifier: LGPL-2.1-or-later */
#define _GNU_SOURCE 1  /* memfd_create, file seals */

#include "rc-launch-helper.h"
#include "rc-error.h"
#include "rc-scope-helper.h"
#include "rc-test-hooks.h"
#include "rc-unit-name.h"

#include <errno.h>
#include <fcntl.h>
#include <gio/gunixinputstream.h>
#include <glib-unix.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* systemd stops a helper that hangs (it never should): its held process
 * then exits without running the app. */
#define HELPER_RUNTIME_MAX_USEC (G_USEC_PER_SEC * 120)

typedef struct {
  char             *helper_unit;
  GDataInputStream *answer;
} Launch;

static void
launch_free (Launch *launch)
{
  g_free (launch->helper_unit);
  g_clear_object (&launch->answer);
  g_free (launch);
}

char *
rc_launch_helper_unit_name (const char *scope)
{
  g_autoptr(RcUnitName) parsed = rc_unit_name_parse (scope);

  return g_strdup_printf ("resource-control-launch-%s.service",
                          parsed != NULL ? parsed->instance : "app");
}

static const char *
helper_path (void)
{
  const char *path = rc_test_hook ("RESOURCE_CONTROL_SCOPE_HELPER");

  return path != NULL ? path : RC_LIBEXECDIR "/resource-control-scope-helper";
}

/* The request in a sealed memfd: the helper's stdin, written without
 * blocking whatever its size. */
static int
request_fd (GVariant *request,
            GError  **error)
{
  gsize size = g_variant_get_size (request);
  const guint8 *data = g_variant_get_data (request);
  int fd = memfd_create ("resource-control-launch", MFD_CLOEXEC | MFD_ALLOW_SEALING);

  if (fd < 0)
    goto fail;
  for (gsize done = 0; done < size;)
    {
      ssize_t n = write (fd, data + done, size - done);

      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        goto fail;
      done += n;
    }
  if (lseek (fd, 0, SEEK_SET) < 0 ||
      fcntl (fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) < 0)
    goto fail;
  return fd;

fail:
  g_set_error (error, RC_ERROR, RC_ERROR_FAILED, "Cannot pass the launch request on: %s",
               g_strerror (errno));
  if (fd >= 0)
    close (fd);
  return -1;
}

static void
answer_cb (GObject      *source,
           GAsyncResult *result,
           gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  Launch *launch = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  g_autofree char *line = NULL;

  line = g_data_input_stream_read_line_finish_utf8 (G_DATA_INPUT_STREAM (source), result, NULL,
                                                    &error);
  if (line != NULL && g_str_equal (line, RC_SCOPE_HELPER_OK))
    g_task_return_boolean (task, TRUE);
  else if (line != NULL && *line != '\0')
    g_task_return_new_error (task, RC_ERROR, RC_ERROR_FAILED, "%s", line);
  else
    g_task_return_new_error (task, RC_ERROR, RC_ERROR_FAILED,
                             "The launch helper %s ended without starting the app%s%s (see "
                             "journalctl --user -u %s)", launch->helper_unit,
                             error != NULL ? ": " : "", error != NULL ? error->message : "",
                             launch->helper_unit);
}

static void
helper_started_cb (GObject      *source,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  Launch *launch = g_task_get_task_data (task);
  GError *error = NULL;

  if (!rc_systemd_start_transient_unit_finish (RC_SYSTEMD (source), result, &error))
    {
      g_task_return_error (task, error);
      return;
    }
  /* The helper runs; its answer comes once the app runs in its scope, or
   * end-of-file if the helper died. */
  g_data_input_stream_read_line_async (launch->answer, G_PRIORITY_DEFAULT,
                                       g_task_get_cancellable (task), answer_cb,
                                       g_object_ref (task));
}

void
rc_launch_helper_start_async (RcSystemd          *systemd,
                              const char         *scope,
                              GVariant           *scope_properties,
                              const char * const *argv,
                              const char * const *environment,
                              const char         *working_directory,
                              const char         *app_id,
                              GCancellable       *cancellable,
                              GAsyncReadyCallback callback,
                              gpointer            user_data)
{
  g_autoptr(GTask) task = g_task_new (NULL, cancellable, callback, user_data);
  g_autoptr(GVariant) request = NULL;
  g_autoptr(GUnixFDList) fds = g_unix_fd_list_new ();
  g_autoptr(GVariantBuilder) exec = g_variant_builder_new (G_VARIANT_TYPE ("a(sasb)"));
  g_autoptr(GInputStream) pipe_in = NULL;
  g_auto(GVariantBuilder) props = G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE ("a(sv)"));
  const char *no_env[] = { NULL };
  const char *helper_argv[] = {
    helper_path (), rc_test_hooks_enabled () ? RC_SCOPE_HELPER_TEST_HOOKS_ARG : NULL, NULL
  };
  g_autofree char *description = NULL;
  Launch *launch = g_new0 (Launch, 1);
  GError *error = NULL;
  int answer_pipe[2];
  int in_fd, stdin_index, stdout_index;

  g_task_set_source_tag (task, rc_launch_helper_start_async);
  g_task_set_task_data (task, launch, (GDestroyNotify) launch_free);
  launch->helper_unit = rc_launch_helper_unit_name (scope);
  request = g_variant_ref_sink (g_variant_new ("(s@a(sv)^as^asss)", scope, scope_properties,
                                               argv, environment != NULL ? environment : no_env,
                                               working_directory != NULL ? working_directory : "",
                                               app_id));
  in_fd = request_fd (request, &error);
  if (in_fd < 0)
    {
      g_task_return_error (task, error);
      return;
    }
  if (!g_unix_open_pipe (answer_pipe, FD_CLOEXEC, &error))
    {
      close (in_fd);
      g_task_return_new_error (task, RC_ERROR, RC_ERROR_FAILED,
                               "Cannot make a pipe for the launch helper: %s", error->message);
      g_error_free (error);
      return;
    }
  pipe_in = g_unix_input_stream_new (answer_pipe[0], TRUE);
  launch->answer = g_data_input_stream_new (pipe_in);
  /* the list keeps copies: ours are closed, so the helper's end is the only
   * writer and its exit is end-of-file here */
  stdin_index = g_unix_fd_list_append (fds, in_fd, NULL);
  stdout_index = g_unix_fd_list_append (fds, answer_pipe[1], NULL);
  close (in_fd);
  close (answer_pipe[1]);
  if (stdin_index < 0 || stdout_index < 0)
    {
      g_task_return_new_error (task, RC_ERROR, RC_ERROR_FAILED,
                               "Cannot pass the launch helper its pipes: out of file descriptors");
      return;
    }

  description = g_strdup_printf ("Starting %s in %s", app_id, scope);
  g_variant_builder_add (exec, "(s^asb)", helper_argv[0], helper_argv, FALSE);
  /* No sandbox, no Slice, no limits of its own: the manager's defaults, as
   * `systemd-run --user` gets them, are what the app inherits. */
  g_variant_builder_add (&props, "(sv)", "Description", g_variant_new_string (description));
  g_variant_builder_add (&props, "(sv)", "Type", g_variant_new_string ("exec"));
  g_variant_builder_add (&props, "(sv)", "ExecStart", g_variant_builder_end (exec));
  g_variant_builder_add (&props, "(sv)", "CollectMode",
                         g_variant_new_string ("inactive-or-failed"));
  g_variant_builder_add (&props, "(sv)", "RuntimeMaxUSec",
                         g_variant_new_uint64 (HELPER_RUNTIME_MAX_USEC));
  g_variant_builder_add (&props, "(sv)", "StandardInputFileDescriptor",
                         g_variant_new_handle (stdin_index));
  g_variant_builder_add (&props, "(sv)", "StandardOutputFileDescriptor",
                         g_variant_new_handle (stdout_index));
  g_variant_builder_add (&props, "(sv)", "StandardError", g_variant_new_string ("journal"));
  g_debug ("Starting %s for %s", launch->helper_unit, scope);
  rc_systemd_start_transient_unit_async (systemd, launch->helper_unit,
                                         g_variant_builder_end (&props), fds, cancellable,
                                         helper_started_cb, g_steal_pointer (&task));
}

gboolean
rc_launch_helper_start_finish (GAsyncResult *result,
                               GError      **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}
