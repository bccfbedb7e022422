/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "rc-pipewire-watch.h"
#include "rc-audio-pids.h"
#include "rc-line-splitter.h"

#include <json-glib/json-glib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* pw-dump prints one JSON array per batch of changes; a batch larger than
 * this is not PipeWire talking sense. */
#define PW_CHUNK_MAX        (16 * 1024 * 1024)
/* pw-dump prints each property, and each array of plain values (a
 * channel map, volumes), on one line of at most a few hundred bytes. A
 * client can make one of its properties as long as it likes, and the
 * line is not kept whole before it is judged: a longer one is passed over
 * as it arrives. */
#define PW_LINE_MAX         (64 * 1024)
#define PW_READ_SIZE        (64 * 1024)
#define PW_START_TRIES      3

/* Where pw-dump is looked for, once: system folders only. The manager's
 * PATH is whatever the user's session put there, and the program it names
 * would be trusted to say which processes play. */
static const char * const pw_dump_paths[] = {
  "/usr/bin/pw-dump",
  "/bin/pw-dump",
  "/usr/local/bin/pw-dump",
};

/* Where pipewire-pulse's binary may be: system folders, which an app
 * cannot write to. Upstream installs pipewire-pulse as a symbolic link to
 * pipewire, so /proc/PID/exe names "pipewire"; some distributions ship a
 * copy or a hard link named "pipewire-pulse". */
static const char * const pulse_server_paths[] = {
  "/usr/bin/pipewire-pulse",
  "/usr/bin/pipewire",
  "/bin/pipewire-pulse",
  "/bin/pipewire",
};

/* A PipeWire stream node and what it needs to be mapped to a process: its
 * client, whose pid PipeWire took from the socket. The pid a client or a
 * node claims (application.process.id) is the client's to write, so any
 * process could name another one to have it held; it is read only for
 * pipewire-pulse's clients (client_pid ()). */
typedef struct {
  gint64   client_id;   /* -1 until known */
  gboolean running;
} Stream;

struct _RcPipewireWatch {
  GObject            parent_instance;
  GCancellable      *cancellable;
  char              *socket;     /* its file name in the runtime folder */
  GFileMonitor      *runtime_monitor;
  char              *dump_path;  /* pw-dump's absolute path; NULL if not installed */
  GSubprocess       *dump;
  GInputStream      *dump_out;
  RcLineSplitter    *lines;
  GString           *chunk;
  gboolean           skip_batch; /* the batch begun had a line too long */
  gboolean           dump_spoke; /* the child gave at least one batch */
  guint              start_tries;
  guint              restart_id;
  GHashTable        *clients;    /* id -> the pid its streams count for */
  GHashTable        *streams;    /* id -> Stream */
  GArray            *pids;       /* last reported, sorted */
  RcPipewirePidCheck is_pulse_server;
  RcPipewirePidCheck is_own_process;
};

G_DEFINE_TYPE (RcPipewireWatch, rc_pipewire_watch, G_TYPE_OBJECT);

enum { SIGNAL_CHANGED, N_SIGNALS };
static guint signals[N_SIGNALS];

/* Works out the pids again; "changed" if they differ from the last ones. */
static void
update (RcPipewireWatch *self)
{
  g_autoptr(GArray) pids = g_array_new (FALSE, FALSE, sizeof (guint32));
  GHashTableIter iter;
  gpointer value;

  g_hash_table_iter_init (&iter, self->streams);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    {
      Stream *stream = value;
      guint32 pid = GPOINTER_TO_UINT (g_hash_table_lookup (self->clients, &stream->client_id));

      if (stream->running && pid != 0)
        rc_audio_pids_add (pids, pid);
    }
  if (!rc_audio_pids_replace (&self->pids, g_steal_pointer (&pids)))
    return;
  g_debug ("Audio: %u processes have a running PipeWire stream", self->pids->len);
  g_signal_emit (self, signals[SIGNAL_CHANGED], 0);
}

GArray *
rc_pipewire_watch_get_pids (RcPipewireWatch *self)
{
  return g_array_ref (self->pids);
}

/* A pid is a number in pw-dump's output; a string in some versions. */
static guint32
member_pid (JsonObject *props,
            const char *member)
{
  JsonNode *node = json_object_get_member (props, member);
  guint64 value = 0;

  if (node == NULL || JSON_NODE_TYPE (node) != JSON_NODE_VALUE)
    return 0;
  if (json_node_get_value_type (node) == G_TYPE_INT64)
    value = (guint64) MAX (json_node_get_int (node), 0);
  else if (json_node_get_value_type (node) == G_TYPE_STRING)
    g_ascii_string_to_unsigned (json_node_get_string (node), 10, 0, G_MAXUINT32, &value, NULL);
  return value <= G_MAXUINT32 ? (guint32) value : 0;
}

static gboolean
is_stream_class (const char *media_class)
{
  return g_strcmp0 (media_class, "Stream/Output/Audio") == 0 ||
         g_strcmp0 (media_class, "Stream/Input/Audio") == 0;
}

gboolean
rc_pipewire_exe_is_pulse_server (const char *exe)
{
  /* what the kernel shows for a binary replaced since it was started, as
   * by an upgrade: only root could have replaced it in these folders */
  static const char deleted[] = " (deleted)";
  gsize length = strlen (exe);

  if (g_str_has_suffix (exe, deleted))
    length -= strlen (deleted);
  for (guint i = 0; i < G_N_ELEMENTS (pulse_server_paths); i++)
    if (strlen (pulse_server_paths[i]) == length &&
        strncmp (exe, pulse_server_paths[i], length) == 0)
      return TRUE;
  return FALSE;
}

gboolean
rc_pipewire_pid_is_pulse_server (guint32 pid)
{
  g_autofree char *link = g_strdup_printf ("/proc/%u/exe", pid);
  g_autofree char *exe = NULL;

  /* the binary the kernel runs, not comm or the command line, which the
   * process writes itself */
  exe = g_file_read_link (link, NULL);
  return exe != NULL && rc_pipewire_exe_is_pulse_server (exe);
}

gboolean
rc_pipewire_pid_is_own_process (guint32 pid)
{
  g_autofree char *path = g_strdup_printf ("/proc/%u/status", pid);
  g_autofree char *status = NULL;
  g_auto(GStrv) lines = NULL;
  gboolean live = FALSE, own = FALSE;

  if (pid == 0 || !g_file_get_contents (path, &status, NULL, NULL))
    return FALSE;
  lines = g_strsplit (status, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      unsigned int real_uid, effective_uid;
      char state;

      if (sscanf (lines[i], "State: %c", &state) == 1)
        live = state != 'Z' && state != 'X';
      else if (sscanf (lines[i], "Uid: %u %u", &real_uid, &effective_uid) == 2)
        own = real_uid == getuid () && effective_uid == getuid ();
    }
  return live && own;
}

void
rc_pipewire_watch_set_pid_checks (RcPipewireWatch   *self,
                                  RcPipewirePidCheck is_pulse_server,
                                  RcPipewirePidCheck is_own_process)
{
  self->is_pulse_server = is_pulse_server;
  self->is_own_process = is_own_process;
}

/* The pid a client's streams count for; 0 for none.
 *
 * It is pipewire.sec.pid, which PipeWire's server took from the socket:
 * a client cannot name another process. pipewire-pulse is the exception:
 * it connects to PipeWire once for each PulseAudio app, so the socket pid
 * of those clients is its own, and the app's pid is only in
 * application.process.id. pipewire-pulse does not set that from its own
 * socket: it reads the peer's credentials only to look for a sandbox, and
 * copies the property list the app sent (libpulse puts getpid () there; an
 * app can put anything, and change it later). So that claim is taken only
 * where nothing better exists, and bounded:
 *   - the client's socket pid is a PipeWire binary from a system folder
 *     (a direct client that says client.api "pipewire-pulse" still counts
 *     for its own pid);
 *   - the app is not sandboxed: for a Flatpak app pipewire-pulse sets a
 *     portal app id and access "flatpak", and the pid the app sent is one
 *     of its own pid namespace, not ours. The app's property list can
 *     overwrite either but cannot remove a key, so an app id there at all
 *     refuses the claim;
 *   - it did not come over TCP, where the pid is another machine's;
 *   - the claimed pid is a live process of our user and not pipewire-pulse.
 * A PulseAudio app can still name another process of the same user. */
static guint32
client_pid (RcPipewireWatch *self,
            JsonObject      *props)
{
  guint32 socket_pid = member_pid (props, "pipewire.sec.pid");
  guint32 claimed_pid;
  const char *api = json_object_get_string_member_with_default (props, "client.api", NULL);
  const char *access = json_object_get_string_member_with_default (props,
                                                                   "pipewire.client.access",
                                                                   NULL);
  const char *server_type = json_object_get_string_member_with_default (props,
                                                                        "pulse.server.type",
                                                                        NULL);

  if (socket_pid == 0 || g_strcmp0 (api, "pipewire-pulse") != 0 ||
      !self->is_pulse_server (socket_pid))
    return socket_pid;
  claimed_pid = member_pid (props, "application.process.id");
  if (json_object_has_member (props, "pipewire.access.portal.app_id") ||
      g_strcmp0 (access, "flatpak") == 0 || g_strcmp0 (server_type, "tcp") == 0 ||
      claimed_pid == 0 || claimed_pid == socket_pid || !self->is_own_process (claimed_pid))
    return 0;
  return claimed_pid;
}

static void
take_object (RcPipewireWatch *self,
             JsonObject      *object)
{
  gint64 id = json_object_get_int_member_with_default (object, "id", -1);
  const char *type = json_object_get_string_member_with_default (object, "type", "");
  JsonNode *info_node = json_object_get_member (object, "info");
  JsonObject *info, *props;

  if (id < 0)
    return;
  if (info_node != NULL && JSON_NODE_HOLDS_NULL (info_node))
    {
      /* removed */
      g_hash_table_remove (self->clients, &id);
      g_hash_table_remove (self->streams, &id);
      return;
    }
  if (info_node == NULL || !JSON_NODE_HOLDS_OBJECT (info_node))
    return;
  info = json_node_get_object (info_node);
  props = NULL;
  if (json_object_has_member (info, "props") &&
      JSON_NODE_HOLDS_OBJECT (json_object_get_member (info, "props")))
    props = json_object_get_object_member (info, "props");
  if (g_str_has_suffix (type, ":Client") && props != NULL)
    {
      gint64 *key = g_memdup2 (&id, sizeof id);

      /* a client's properties come again whenever it changes them */
      g_hash_table_replace (self->clients, key, GUINT_TO_POINTER (client_pid (self, props)));
    }
  else if (g_str_has_suffix (type, ":Node"))
    {
      Stream *stream = g_hash_table_lookup (self->streams, &id);
      const char *state = json_object_get_string_member_with_default (info, "state", NULL);

      if (stream == NULL)
        {
          const char *media_class = props == NULL ? NULL
                                    : json_object_get_string_member_with_default (props,
                                                                                  "media.class",
                                                                                  NULL);

          if (!is_stream_class (media_class))
            return;
          stream = g_new0 (Stream, 1);
          stream->client_id = -1;
          g_hash_table_insert (self->streams, g_memdup2 (&id, sizeof id), stream);
        }
      /* PipeWire's server names the node's client when it makes the node;
       * a later change would be the client's own doing */
      if (props != NULL && stream->client_id < 0)
        stream->client_id = json_object_get_int_member_with_default (props, "client.id", -1);
      /* a change that does not name the state leaves it as it was */
      if (state != NULL)
        stream->running = g_str_equal (state, "running");
    }
}

gboolean
rc_pipewire_watch_parse (RcPipewireWatch *self,
                         const char      *json,
                         gssize           length,
                         GError         **error)
{
  g_autoptr(JsonParser) parser = json_parser_new_immutable ();
  JsonNode *root;
  JsonArray *objects;

  if (!json_parser_load_from_data (parser, json, length, error))
    return FALSE;
  root = json_parser_get_root (parser);
  if (root == NULL || !JSON_NODE_HOLDS_ARRAY (root))
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "not a JSON array");
      return FALSE;
    }
  objects = json_node_get_array (root);
  for (guint i = 0; i < json_array_get_length (objects); i++)
    {
      JsonNode *node = json_array_get_element (objects, i);

      if (JSON_NODE_HOLDS_OBJECT (node))
        take_object (self, json_node_get_object (node));
    }
  update (self);
  return TRUE;
}

static void pw_start (RcPipewireWatch *self);

static gboolean
pw_restart_cb (gpointer user_data)
{
  RcPipewireWatch *self = user_data;

  self->restart_id = 0;
  pw_start (self);
  return G_SOURCE_REMOVE;
}

static void
pw_stopped (RcPipewireWatch *self)
{
  g_clear_object (&self->dump_out);
  if (self->dump != NULL)
    {
      g_subprocess_force_exit (self->dump);
      /* reaped by GLib's child watch once it exits */
      g_subprocess_wait_async (self->dump, NULL, NULL, NULL);
      g_clear_object (&self->dump);
    }
  rc_line_splitter_reset (self->lines);
  g_string_truncate (self->chunk, 0);
  self->skip_batch = FALSE;
  g_hash_table_remove_all (self->clients);
  g_hash_table_remove_all (self->streams);
  update (self);
  /* PipeWire that was not listening yet when its socket appeared: tried
   * again a few times. Once it spoke, a new PipeWire makes a new socket,
   * and the folder's monitor starts the child again. */
  if (!self->dump_spoke && self->start_tries < PW_START_TRIES &&
      !g_cancellable_is_cancelled (self->cancellable))
    self->restart_id = g_timeout_add_seconds (1, pw_restart_cb, self);
}

/* One line of pw-dump's output, or NULL for one too long. FALSE once the
 * output is given up. */
static gboolean
take_line (const char *line,
           gsize       length,
           gpointer    user_data)
{
  RcPipewireWatch *self = user_data;
  g_autoptr(GError) error = NULL;

  if (line == NULL)
    {
      /* The whole batch goes, not the line alone: a line taken out of an
       * object takes a key out of it, and a key's presence (a portal app
       * id) is what refuses a sandboxed app's claimed pid. */
      g_message ("Audio: a line of pw-dump's output is longer than %u KiB; the changes it "
                 "is part of are passed over", (guint) (PW_LINE_MAX / 1024));
      self->skip_batch = TRUE;
      g_string_truncate (self->chunk, 0);
      return TRUE;
    }
  /* pw-dump ends each batch with "]" alone at the start of a line */
  if (line[0] == ']')
    {
      g_string_append_len (self->chunk, line, length);
      g_string_append_c (self->chunk, '\n');
      if (self->skip_batch)
        self->skip_batch = FALSE;
      else if (!rc_pipewire_watch_parse (self, self->chunk->str, self->chunk->len, &error))
        g_message ("Audio: pw-dump said something that is not JSON: %s", error->message);
      else
        self->dump_spoke = TRUE;
      g_string_truncate (self->chunk, 0);
      return TRUE;
    }
  if (self->skip_batch)
    return TRUE;
  g_string_append_len (self->chunk, line, length);
  g_string_append_c (self->chunk, '\n');
  if (self->chunk->len > PW_CHUNK_MAX)
    {
      g_message ("Audio: pw-dump's output makes no sense; PipeWire streams are not followed");
      self->dump_spoke = TRUE;
      pw_stopped (self);
      return FALSE;
    }
  return TRUE;
}

gboolean
rc_pipewire_watch_feed (RcPipewireWatch *self,
                        const char      *data,
                        gsize            length)
{
  return rc_line_splitter_feed (self->lines, data, length, take_line, self);
}

gsize
rc_pipewire_watch_get_held (RcPipewireWatch *self)
{
  return rc_line_splitter_get_held (self->lines) + self->chunk->len;
}

static void pw_read_cb (GObject      *source,
                        GAsyncResult *result,
                        gpointer      user_data);

static void
pw_read (RcPipewireWatch *self)
{
  g_input_stream_read_bytes_async (self->dump_out, PW_READ_SIZE, G_PRIORITY_DEFAULT,
                                   self->cancellable, pw_read_cb, g_object_ref (self));
}

static void
pw_read_cb (GObject      *source,
            GAsyncResult *result,
            gpointer      user_data)
{
  g_autoptr(RcPipewireWatch) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) bytes = NULL;
  const char *data;
  gsize length;

  bytes = g_input_stream_read_bytes_finish (G_INPUT_STREAM (source), result, &error);
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED) ||
      G_INPUT_STREAM (source) != self->dump_out)
    return;
  if (bytes == NULL || g_bytes_get_size (bytes) == 0)
    {
      g_debug ("Audio: pw-dump ended%s%s", error != NULL ? ": " : "",
               error != NULL ? error->message : "");
      pw_stopped (self);
      return;
    }
  data = g_bytes_get_data (bytes, &length);
  if (rc_pipewire_watch_feed (self, data, length))
    pw_read (self);
}

static char *
pw_socket_path (RcPipewireWatch *self)
{
  return g_build_filename (g_get_user_runtime_dir (), self->socket, NULL);
}

static void
pw_start (RcPipewireWatch *self)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *socket = pw_socket_path (self);

  if (self->dump != NULL || self->dump_path == NULL ||
      g_cancellable_is_cancelled (self->cancellable) || !g_file_test (socket, G_FILE_TEST_EXISTS))
    return;
  g_clear_handle_id (&self->restart_id, g_source_remove);
  self->start_tries++;
  self->dump_spoke = FALSE;
  self->dump = g_subprocess_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_SILENCE,
                                 &error, self->dump_path, "--monitor", "--no-colors", NULL);
  if (self->dump == NULL)
    {
      g_message ("Cannot follow PipeWire's streams: %s", error->message);
      self->start_tries = PW_START_TRIES;
      return;
    }
  g_debug ("Audio: following PipeWire with %s (pid %s)", self->dump_path,
           g_subprocess_get_identifier (self->dump));
  self->dump_out = g_object_ref (g_subprocess_get_stdout_pipe (self->dump));
  pw_read (self);
}

static void
runtime_dir_changed_cb (GFileMonitor     *monitor,
                        GFile            *file,
                        GFile            *other_file,
                        GFileMonitorEvent event,
                        RcPipewireWatch  *self)
{
  g_autofree char *name = g_file_get_basename (file);

  if (event != G_FILE_MONITOR_EVENT_CREATED || !g_str_equal (name, self->socket))
    return;
  self->start_tries = 0;
  pw_start (self);
}

void
rc_pipewire_watch_start (RcPipewireWatch *self)
{
  const char *remote = g_getenv ("PIPEWIRE_REMOTE");
  g_autoptr(GFile) dir = g_file_new_for_path (g_get_user_runtime_dir ());
  g_autoptr(GError) error = NULL;

  for (guint i = 0; i < G_N_ELEMENTS (pw_dump_paths) && self->dump_path == NULL; i++)
    if (g_file_test (pw_dump_paths[i], G_FILE_TEST_IS_EXECUTABLE))
      self->dump_path = g_strdup (pw_dump_paths[i]);
  if (self->dump_path == NULL)
    {
      g_message ("PipeWire's streams are not followed: no pw-dump in /usr/bin, /bin or "
                 "/usr/local/bin (it is in pipewire-bin)");
      return;
    }
  self->socket = g_strdup (remote != NULL && *remote != '\0' && strchr (remote, '/') == NULL
                              ? remote : "pipewire-0");
  self->runtime_monitor = g_file_monitor_directory (dir, G_FILE_MONITOR_NONE, NULL, &error);
  if (self->runtime_monitor == NULL)
    g_message ("Cannot watch %s for PipeWire: %s", g_get_user_runtime_dir (), error->message);
  else
    g_signal_connect (self->runtime_monitor, "changed", G_CALLBACK (runtime_dir_changed_cb), self);
  pw_start (self);
}

RcPipewireWatch *
rc_pipewire_watch_new (void)
{
  return g_object_new (RC_TYPE_PIPEWIRE_WATCH, NULL);
}

static void
rc_pipewire_watch_dispose (GObject *object)
{
  RcPipewireWatch *self = RC_PIPEWIRE_WATCH (object);

  g_cancellable_cancel (self->cancellable);
  g_clear_handle_id (&self->restart_id, g_source_remove);
  if (self->runtime_monitor != NULL)
    g_signal_handlers_disconnect_by_data (self->runtime_monitor, self);
  g_clear_object (&self->runtime_monitor);
  if (self->dump != NULL)
    {
      g_subprocess_force_exit (self->dump);
      g_clear_object (&self->dump);
    }
  g_clear_object (&self->dump_out);
  G_OBJECT_CLASS (rc_pipewire_watch_parent_class)->dispose (object);
}

static void
rc_pipewire_watch_finalize (GObject *object)
{
  RcPipewireWatch *self = RC_PIPEWIRE_WATCH (object);

  g_clear_object (&self->cancellable);
  g_hash_table_unref (self->clients);
  g_hash_table_unref (self->streams);
  rc_line_splitter_free (self->lines);
  g_string_free (self->chunk, TRUE);
  g_array_unref (self->pids);
  g_free (self->socket);
  g_free (self->dump_path);
  G_OBJECT_CLASS (rc_pipewire_watch_parent_class)->finalize (object);
}

static void
rc_pipewire_watch_class_init (RcPipewireWatchClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = rc_pipewire_watch_dispose;
  object_class->finalize = rc_pipewire_watch_finalize;
  signals[SIGNAL_CHANGED] = g_signal_new ("changed", G_TYPE_FROM_CLASS (klass),
                                          G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                          G_TYPE_NONE, 0);
}

static void
rc_pipewire_watch_init (RcPipewireWatch *self)
{
  self->cancellable = g_cancellable_new ();
  self->clients = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  self->streams = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free);
  self->lines = rc_line_splitter_new (PW_LINE_MAX);
  self->chunk = g_string_new (NULL);
  self->pids = g_array_new (FALSE, FALSE, sizeof (guint32));
  self->is_pulse_server = rc_pipewire_pid_is_pulse_server;
  self->is_own_process = rc_pipewire_pid_is_own_process;
}
