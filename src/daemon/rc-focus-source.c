/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "rc-focus-source.h"

#include <gio/gunixsocketaddress.h>
#include <unistd.h>

/* A compositor says a few focus changes a second; one that says thousands
 * (or a process that floods its socket) must not cost a registry lookup and
 * a boost change each: at most one "focused" per this many ms, the latest. */
#define FOCUS_INTERVAL_MS 100

typedef struct {
  char         *name;
  GCancellable *cancellable;
  GHashTable   *warned;    /* kinds already reported */
  gboolean      closed;
  guint         interval_id;  /* while a report was delivered less than an interval ago */
  guint32       waiting_pid;  /* the latest report within the interval; 0 none */
} RcFocusSourcePrivate;

G_DEFINE_TYPE_WITH_PRIVATE (RcFocusSource, rc_focus_source, G_TYPE_OBJECT);

enum { PROP_0, PROP_NAME };
enum { FOCUSED, CLOSED, N_SIGNALS };
static guint signals[N_SIGNALS];

void
rc_focus_source_start (RcFocusSource *self)
{
  RC_FOCUS_SOURCE_GET_CLASS (self)->start (self);
}

const char *
rc_focus_source_get_name (RcFocusSource *self)
{
  RcFocusSourcePrivate *priv = rc_focus_source_get_instance_private (self);

  return priv->name;
}

GCancellable *
rc_focus_source_get_cancellable (RcFocusSource *self)
{
  RcFocusSourcePrivate *priv = rc_focus_source_get_instance_private (self);

  return priv->cancellable;
}

gboolean
rc_focus_source_json_depth_ok (const char *json,
                               gsize       length,
                               guint       max_depth)
{
  guint depth = 0;
  gboolean in_string = FALSE;

  for (gsize i = 0; i < length && json[i] != '\0'; i++)
    {
      char c = json[i];

      if (in_string)
        {
          if (c == '\\')
            i++;
          else if (c == '"')
            in_string = FALSE;
        }
      else if (c == '"')
        in_string = TRUE;
      else if (c == '[' || c == '{')
        {
          if (++depth > max_depth)
            return FALSE;
        }
      else if ((c == ']' || c == '}') && depth > 0)
        depth--;
    }
  return TRUE;
}

JsonObject *
rc_focus_source_parse_object (JsonParser *parser,
                              const char *json,
                              gsize       length)
{
  JsonNode *root;

  /* json-glib's parser recurses once per level: deep enough nesting
   * overflows the stack. */
  if (!rc_focus_source_json_depth_ok (json, length, RC_FOCUS_JSON_MAX_DEPTH))
    return NULL;
  if (!json_parser_load_from_data (parser, json, length, NULL))
    return NULL;
  root = json_parser_get_root (parser);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    return NULL;
  return json_node_get_object (root);
}

guint32
rc_focus_source_member_pid (JsonObject *object)
{
  JsonNode *pid = json_object_get_member (object, "pid");

  if (pid == NULL || json_node_get_value_type (pid) != G_TYPE_INT64)
    return 0;
  return CLAMP (json_node_get_int (pid), 0, G_MAXUINT32);
}

typedef struct {
  RcFocusSource   *self;
  RcFocusConnected connected;
} Connect;

gboolean
rc_focus_source_peer_is_us (GSocket *socket,
                            GError **error)
{
  g_autoptr(GCredentials) credentials = g_socket_get_credentials (socket, error);
  uid_t uid;

  if (credentials == NULL)
    return FALSE;
  uid = g_credentials_get_unix_user (credentials, error);
  if (uid == (uid_t) -1)
    return FALSE;
  if (uid != getuid ())
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED,
                   "the socket's server is another user's (uid %u), not our compositor's",
                   (guint) uid);
      return FALSE;
    }
  return TRUE;
}

static void
connected_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  Connect *connect = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GSocketConnection) connection = NULL;

  connection = g_socket_client_connect_finish (G_SOCKET_CLIENT (object), result, &error);
  if (connection == NULL ||
      !rc_focus_source_peer_is_us (g_socket_connection_get_socket (connection), &error))
    rc_focus_source_emit_closed (connect->self, error->message);
  else
    connect->connected (connect->self, g_steal_pointer (&connection));
  g_object_unref (connect->self);
  g_free (connect);
}

void
rc_focus_source_connect (RcFocusSource   *self,
                         const char      *path,
                         RcFocusConnected connected)
{
  RcFocusSourcePrivate *priv = rc_focus_source_get_instance_private (self);
  g_autoptr(GSocketClient) client = g_socket_client_new ();
  g_autoptr(GSocketAddress) address = g_unix_socket_address_new (path);
  Connect *connect = g_new0 (Connect, 1);

  connect->self = g_object_ref (self);
  connect->connected = connected;
  g_socket_client_connect_async (client, G_SOCKET_CONNECTABLE (address), priv->cancellable,
                                 connected_cb, connect);
}

static gboolean
interval_over_cb (gpointer user_data)
{
  RcFocusSource *self = user_data;
  RcFocusSourcePrivate *priv = rc_focus_source_get_instance_private (self);
  guint32 pid = priv->waiting_pid;

  if (pid == 0)
    {
      priv->interval_id = 0;
      return G_SOURCE_REMOVE;
    }
  /* delivered now; the next interval starts */
  priv->waiting_pid = 0;
  g_signal_emit (self, signals[FOCUSED], 0, pid);
  return G_SOURCE_CONTINUE;
}

void
rc_focus_source_emit_focused (RcFocusSource *self,
                              guint32        pid)
{
  RcFocusSourcePrivate *priv = rc_focus_source_get_instance_private (self);

  if (priv->closed || pid == 0)
    return;
  /* the first report after a quiet time goes out at once; later ones within
   * the interval replace each other and the last goes out when it ends */
  if (priv->interval_id != 0)
    {
      priv->waiting_pid = pid;
      return;
    }
  priv->interval_id = g_timeout_add (FOCUS_INTERVAL_MS, interval_over_cb, self);
  g_signal_emit (self, signals[FOCUSED], 0, pid);
}

void
rc_focus_source_emit_closed (RcFocusSource *self,
                             const char    *why)
{
  RcFocusSourcePrivate *priv = rc_focus_source_get_instance_private (self);

  if (priv->closed)
    return;
  priv->closed = TRUE;
  g_cancellable_cancel (priv->cancellable);
  g_signal_emit (self, signals[CLOSED], 0, why);
}

void
rc_focus_source_warn_once (RcFocusSource *self,
                           const char    *kind,
                           const char    *format,
                           ...)
{
  RcFocusSourcePrivate *priv = rc_focus_source_get_instance_private (self);
  g_autofree char *message = NULL;
  va_list args;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  if (g_hash_table_add (priv->warned, g_strdup (kind)))
    g_message ("Focus from %s: %s (said once)", priv->name, message);
  else
    g_debug ("Focus from %s: %s", priv->name, message);
}

static void
rc_focus_source_set_property (GObject      *object,
                              guint         prop_id,
                              const GValue *value,
                              GParamSpec   *pspec)
{
  RcFocusSourcePrivate *priv = rc_focus_source_get_instance_private (RC_FOCUS_SOURCE (object));

  g_assert (prop_id == PROP_NAME);
  if (g_strcmp0 (priv->name, g_value_get_string (value)) == 0)
    return;
  g_free (priv->name);
  priv->name = g_value_dup_string (value);
  g_object_notify_by_pspec (object, pspec);
}

static void
rc_focus_source_get_property (GObject    *object,
                              guint       prop_id,
                              GValue     *value,
                              GParamSpec *pspec)
{
  RcFocusSourcePrivate *priv = rc_focus_source_get_instance_private (RC_FOCUS_SOURCE (object));

  g_assert (prop_id == PROP_NAME);
  g_value_set_string (value, priv->name);
}

static void
rc_focus_source_dispose (GObject *object)
{
  RcFocusSourcePrivate *priv = rc_focus_source_get_instance_private (RC_FOCUS_SOURCE (object));

  priv->closed = TRUE;
  g_cancellable_cancel (priv->cancellable);
  g_clear_handle_id (&priv->interval_id, g_source_remove);
  G_OBJECT_CLASS (rc_focus_source_parent_class)->dispose (object);
}

static void
rc_focus_source_finalize (GObject *object)
{
  RcFocusSourcePrivate *priv = rc_focus_source_get_instance_private (RC_FOCUS_SOURCE (object));

  g_free (priv->name);
  g_clear_object (&priv->cancellable);
  g_hash_table_unref (priv->warned);
  G_OBJECT_CLASS (rc_focus_source_parent_class)->finalize (object);
}

static void
rc_focus_source_class_init (RcFocusSourceClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->set_property = rc_focus_source_set_property;
  object_class->get_property = rc_focus_source_get_property;
  object_class->dispose = rc_focus_source_dispose;
  object_class->finalize = rc_focus_source_finalize;
  g_object_class_install_property (object_class, PROP_NAME,
                                   g_param_spec_string ("name", NULL, NULL, NULL,
                                                        G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY |
                                                        G_PARAM_STATIC_STRINGS));
  signals[FOCUSED] = g_signal_new ("focused", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                                   NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_UINT);
  signals[CLOSED] = g_signal_new ("closed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                                  NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);
}

static void
rc_focus_source_init (RcFocusSource *self)
{
  RcFocusSourcePrivate *priv = rc_focus_source_get_instance_private (self);

  priv->cancellable = g_cancellable_new ();
  priv->warned = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
}
