/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "rc-mpris-watch.h"
#include "rc-audio-pids.h"
#include "rc-subscription.h"
#include "rc-names.h"

#define CALL_TIMEOUT_MS     10000

/* A peer on the bus that owns one or more player names. Its status is
 * asked of its unique name, so it is the peer that plays, whichever of its
 * names is used. A call to a peer stays pending at the bus until the peer
 * answers or leaves, whatever our timeout, and the bus refuses every call
 * of ours once too many are pending: so a peer gets one call at a time,
 * never a second one once it let one time out, and only MAX_PLAYER_CALLS
 * peers may owe us an answer at once; the others wait in a queue. */
typedef enum {
  PEER_WAITING,   /* in the queue, not asked yet */
  PEER_ASKING,    /* a call to it is in flight */
  PEER_KNOWN,     /* it answered (or could not be asked: gone) */
  PEER_SILENT,    /* it let our call time out: its answer is still owed at
                   * the bus, so it holds its slot until it leaves */
} PeerState;

typedef struct {
  char       *unique;   /* its unique name */
  GHashTable *names;    /* its player names (a set) */
  guint32     pid;
  gboolean    playing;
  PeerState   state;
  GList      *queued;   /* its link in the queue, while PEER_WAITING */
  guint       gone_id;  /* while PEER_SILENT: NameOwnerChanged of its unique name */
} Peer;

/* Peers that may owe an answer at the bus at once. */
#define MAX_PLAYER_CALLS 16

static void
peer_free (Peer *peer)
{
  g_free (peer->unique);
  g_hash_table_unref (peer->names);
  g_free (peer);
}

struct _RcMprisWatch {
  GObject          parent_instance;
  GDBusConnection *bus;
  GCancellable    *cancellable;
  guint            name_owner_id;
  guint            properties_id;
  GHashTable      *peers;        /* unique name -> Peer */
  GHashTable      *player_names; /* player name -> Peer (borrowed) */
  GQueue           waiting;      /* Peers to ask, oldest first */
  guint            calls_owed;   /* Peers PEER_ASKING or PEER_SILENT */
  guint            ask_id;
  GArray          *pids;         /* last reported, sorted */
};

G_DEFINE_TYPE (RcMprisWatch, rc_mpris_watch, G_TYPE_OBJECT);

enum { SIGNAL_CHANGED, N_SIGNALS };
static guint signals[N_SIGNALS];

/* Works out the pids again; "changed" if they differ from the last ones. */
static void
update (RcMprisWatch *self)
{
  g_autoptr(GArray) pids = g_array_new (FALSE, FALSE, sizeof (guint32));
  GHashTableIter iter;
  gpointer value;

  g_hash_table_iter_init (&iter, self->peers);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    {
      Peer *peer = value;

      if (peer->playing && peer->pid != 0 && g_hash_table_size (peer->names) > 0)
        rc_audio_pids_add (pids, peer->pid);
    }
  if (!rc_audio_pids_replace (&self->pids, g_steal_pointer (&pids)))
    return;
  g_debug ("Audio: %u processes have a player that plays", self->pids->len);
  g_signal_emit (self, signals[SIGNAL_CHANGED], 0);
}

GArray *
rc_mpris_watch_get_pids (RcMprisWatch *self)
{
  return g_array_ref (self->pids);
}

/* An async call about a peer or a player name. The peer stays listed while
 * a call to it is in flight, so it is found again by its unique name. */
typedef struct {
  RcMprisWatch *self;
  char         *name;
} PeerCall;

static PeerCall *
peer_call_new (RcMprisWatch *self,
               const char   *name)
{
  PeerCall *call = g_new0 (PeerCall, 1);

  call->self = g_object_ref (self);
  call->name = g_strdup (name);
  return call;
}

static void
peer_call_free (PeerCall *call)
{
  g_object_unref (call->self);
  g_free (call->name);
  g_free (call);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PeerCall, peer_call_free);

/* Forgets @peer once nothing is left of it: no player name, no answer owed. */
static void
peer_forget_if_done (RcMprisWatch *self,
                     Peer         *peer)
{
  if (g_hash_table_size (peer->names) > 0 ||
      peer->state == PEER_ASKING || peer->state == PEER_SILENT)
    return;
  if (peer->queued != NULL)
    g_queue_delete_link (&self->waiting, g_steal_pointer (&peer->queued));
  g_hash_table_remove (self->peers, peer->unique);
}

static void peer_ask (RcMprisWatch *self,
                      Peer         *peer);

static gboolean
ask_waiting_cb (gpointer user_data)
{
  RcMprisWatch *self = user_data;

  self->ask_id = 0;
  while (self->calls_owed < MAX_PLAYER_CALLS && !g_queue_is_empty (&self->waiting))
    {
      Peer *peer = g_queue_pop_head (&self->waiting);

      peer->queued = NULL;
      peer_ask (self, peer);
    }
  return G_SOURCE_REMOVE;
}

/* The waiting peers are asked once the signals at hand are taken in, so a
 * name that came and went again in one burst costs no call. */
static void
ask_waiting_later (RcMprisWatch *self)
{
  if (self->ask_id == 0 && self->calls_owed < MAX_PLAYER_CALLS &&
      !g_queue_is_empty (&self->waiting))
    self->ask_id = g_idle_add (ask_waiting_cb, self);
}

/* @peer owes us nothing any more: its slot goes to a waiting peer. */
static void
peer_settled (RcMprisWatch *self,
              Peer         *peer)
{
  self->calls_owed--;
  peer->state = PEER_KNOWN;
  rc_clear_subscription (self->bus, &peer->gone_id);
  peer_forget_if_done (self, peer);
  ask_waiting_later (self);
}

static void
silent_peer_gone_cb (GDBusConnection *bus,
                     const char      *sender,
                     const char      *path,
                     const char      *interface,
                     const char      *signal,
                     GVariant        *parameters,
                     gpointer         user_data)
{
  RcMprisWatch *self = user_data;
  const char *name, *old_owner, *new_owner;
  Peer *peer;

  if (!g_variant_is_of_type (parameters, G_VARIANT_TYPE ("(sss)")))
    return;
  g_variant_get (parameters, "(&s&s&s)", &name, &old_owner, &new_owner);
  peer = g_hash_table_lookup (self->peers, name);
  if (*new_owner == '\0' && peer != NULL && peer->state == PEER_SILENT)
    peer_settled (self, peer);
}

static void
silent_peer_present_cb (GObject      *source,
                        GAsyncResult *result,
                        gpointer      user_data)
{
  g_autoptr(PeerCall) call = user_data;
  g_autoptr(GVariant) reply = NULL;
  gboolean present = TRUE;
  Peer *peer;

  /* cancelled, or the bus could not say: its leaving will tell */
  reply = g_dbus_connection_call_finish (G_DBUS_CONNECTION (source), result, NULL);
  if (reply == NULL)
    return;
  g_variant_get (reply, "(b)", &present);
  peer = g_hash_table_lookup (call->self->peers, call->name);
  if (!present && peer != NULL && peer->state == PEER_SILENT)
    peer_settled (call->self, peer);
}

/* @peer let our call time out. The bus keeps the call pending until the
 * peer answers or leaves, and we cannot hear a late answer: the peer holds
 * its slot and is not asked again until it leaves the bus. Its playback
 * status still comes with its PropertiesChanged. */
static void
peer_went_silent (RcMprisWatch *self,
                  Peer         *peer)
{
  g_debug ("Audio: %s did not answer; not asked again while it is on the bus", peer->unique);
  peer->state = PEER_SILENT;
  peer->gone_id = g_dbus_connection_signal_subscribe (self->bus, DBUS_NAME, DBUS_INTERFACE,
                                                      "NameOwnerChanged", DBUS_PATH, peer->unique,
                                                      G_DBUS_SIGNAL_FLAGS_NONE,
                                                      silent_peer_gone_cb, self, NULL);
  /* It may have left before the subscription; the question goes after it
   * on the same connection, so the answer or the signal tells. */
  g_dbus_connection_call (self->bus, DBUS_NAME, DBUS_PATH, DBUS_INTERFACE, "NameHasOwner",
                          g_variant_new ("(s)", peer->unique), G_VARIANT_TYPE ("(b)"),
                          G_DBUS_CALL_FLAGS_NONE, CALL_TIMEOUT_MS, self->cancellable,
                          silent_peer_present_cb, peer_call_new (self, peer->unique));
}

static void
set_playing (RcMprisWatch *self,
             Peer         *peer,
             GVariant     *status)
{
  if (!g_variant_is_of_type (status, G_VARIANT_TYPE_STRING))
    return;
  peer->playing = g_str_equal (g_variant_get_string (status, NULL), "Playing");
  g_debug ("Audio: player %s (pid %u) %s", peer->unique, peer->pid,
           peer->playing ? "plays" : "does not play");
  update (self);
}

static void
status_cb (GObject      *source,
           GAsyncResult *result,
           gpointer      user_data)
{
  g_autoptr(PeerCall) call = user_data;
  g_autoptr(GVariant) reply = NULL;
  g_autoptr(GVariant) status = NULL;
  g_autoptr(GError) error = NULL;
  Peer *peer;

  reply = g_dbus_connection_call_finish (G_DBUS_CONNECTION (source), result, &error);
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  peer = g_hash_table_lookup (call->self->peers, call->name);
  if (peer == NULL || peer->state != PEER_ASKING)
    return;
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_TIMED_OUT))
    {
      peer_went_silent (call->self, peer);
      return;
    }
  if (reply == NULL)
    g_debug ("Audio: no PlaybackStatus from %s: %s", peer->unique, error->message);
  else
    {
      g_variant_get (reply, "(v)", &status);
      set_playing (call->self, peer, status);
    }
  peer_settled (call->self, peer);
}

static void
pid_cb (GObject      *source,
        GAsyncResult *result,
        gpointer      user_data)
{
  g_autoptr(PeerCall) call = user_data;
  g_autoptr(GVariant) reply = NULL;
  g_autoptr(GError) error = NULL;
  RcMprisWatch *self = call->self;
  Peer *peer;

  reply = g_dbus_connection_call_finish (G_DBUS_CONNECTION (source), result, &error);
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  peer = g_hash_table_lookup (self->peers, call->name);
  if (peer == NULL || peer->state != PEER_ASKING)
    return;
  if (reply == NULL)
    g_debug ("Audio: no pid for %s: %s", peer->unique, error->message);
  else
    g_variant_get (reply, "(u)", &peer->pid);
  /* one that left, or whose player names are gone again, is not asked */
  if (reply == NULL || g_hash_table_size (peer->names) == 0)
    {
      peer_settled (self, peer);
      return;
    }
  g_dbus_connection_call (self->bus, peer->unique, MPRIS_PATH, DBUS_PROPERTIES_INTERFACE, "Get",
                          g_variant_new ("(ss)", MPRIS_PLAYER_INTERFACE, "PlaybackStatus"),
                          G_VARIANT_TYPE ("(v)"), G_DBUS_CALL_FLAGS_NO_AUTO_START,
                          CALL_TIMEOUT_MS, self->cancellable, status_cb,
                          g_steal_pointer (&call));
}

/* Its pid (from the bus, which answers at once), then its status. */
static void
peer_ask (RcMprisWatch *self,
          Peer         *peer)
{
  peer->state = PEER_ASKING;
  self->calls_owed++;
  g_dbus_connection_call (self->bus, DBUS_NAME, DBUS_PATH, DBUS_INTERFACE,
                          "GetConnectionUnixProcessID", g_variant_new ("(s)", peer->unique),
                          G_VARIANT_TYPE ("(u)"), G_DBUS_CALL_FLAGS_NONE, CALL_TIMEOUT_MS,
                          self->cancellable, pid_cb, peer_call_new (self, peer->unique));
}

static void
player_name_lost (RcMprisWatch *self,
                  const char   *name)
{
  Peer *peer = g_hash_table_lookup (self->player_names, name);

  if (peer == NULL)
    return;
  g_hash_table_remove (peer->names, name);
  g_hash_table_remove (self->player_names, name);
  peer_forget_if_done (self, peer);
  update (self);
}

/* A peer that owns no other player name is asked (in turn) whether it
 * plays; one that does was asked already. */
static void
player_name_owned (RcMprisWatch *self,
                   const char   *name,
                   const char   *owner)
{
  Peer *peer;

  player_name_lost (self, name);
  peer = g_hash_table_lookup (self->peers, owner);
  if (peer == NULL)
    {
      peer = g_new0 (Peer, 1);
      peer->unique = g_strdup (owner);
      peer->names = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
      peer->state = PEER_WAITING;
      g_hash_table_insert (self->peers, peer->unique, peer);
      g_queue_push_tail (&self->waiting, peer);
      peer->queued = g_queue_peek_tail_link (&self->waiting);
      ask_waiting_later (self);
    }
  g_hash_table_add (peer->names, g_strdup (name));
  g_hash_table_insert (self->player_names, g_strdup (name), peer);
}

static void
name_owner_changed_cb (GDBusConnection *bus,
                       const char      *sender,
                       const char      *path,
                       const char      *interface,
                       const char      *signal,
                       GVariant        *parameters,
                       gpointer         user_data)
{
  RcMprisWatch *self = user_data;
  const char *name, *old_owner, *new_owner;

  if (!g_variant_is_of_type (parameters, G_VARIANT_TYPE ("(sss)")))
    return;
  g_variant_get (parameters, "(&s&s&s)", &name, &old_owner, &new_owner);
  if (!g_str_has_prefix (name, MPRIS_NAME_PREFIX))
    return;
  if (*new_owner == '\0')
    player_name_lost (self, name);
  else
    player_name_owned (self, name, new_owner);
}

static void
player_properties_changed_cb (GDBusConnection *bus,
                              const char      *sender,
                              const char      *path,
                              const char      *interface,
                              const char      *signal,
                              GVariant        *parameters,
                              gpointer         user_data)
{
  RcMprisWatch *self = user_data;
  g_autoptr(GVariant) changed = NULL;
  g_autoptr(GVariant) status = NULL;
  const char *changed_interface;
  Peer *peer;

  if (!g_variant_is_of_type (parameters, G_VARIANT_TYPE ("(sa{sv}as)")))
    return;
  g_variant_get (parameters, "(&s@a{sv}@as)", &changed_interface, &changed, NULL);
  status = g_variant_lookup_value (changed, "PlaybackStatus", G_VARIANT_TYPE_STRING);
  if (status == NULL || !g_str_equal (changed_interface, MPRIS_PLAYER_INTERFACE))
    return;
  peer = g_hash_table_lookup (self->peers, sender);
  if (peer != NULL && g_hash_table_size (peer->names) > 0)
    set_playing (self, peer, status);
}

static void
owner_cb (GObject      *source,
          GAsyncResult *result,
          gpointer      user_data)
{
  g_autoptr(PeerCall) call = user_data;
  g_autoptr(GVariant) reply = NULL;

  reply = g_dbus_connection_call_finish (G_DBUS_CONNECTION (source), result, NULL);
  /* A name listed before NameOwnerChanged said anything of it. */
  if (reply != NULL && !g_hash_table_contains (call->self->player_names, call->name))
    {
      const char *owner;

      g_variant_get (reply, "(&s)", &owner);
      player_name_owned (call->self, call->name, owner);
    }
}

static void
list_names_cb (GObject      *source,
               GAsyncResult *result,
               gpointer      user_data)
{
  g_autoptr(RcMprisWatch) self = user_data;
  g_autoptr(GVariant) reply = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree const char **names = NULL;

  reply = g_dbus_connection_call_finish (G_DBUS_CONNECTION (source), result, &error);
  if (reply == NULL)
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        g_message ("Cannot list the media players: %s", error->message);
      return;
    }
  g_variant_get (reply, "(^a&s)", &names);
  for (guint i = 0; names[i] != NULL; i++)
    if (g_str_has_prefix (names[i], MPRIS_NAME_PREFIX))
      g_dbus_connection_call (self->bus, DBUS_NAME, DBUS_PATH, DBUS_INTERFACE, "GetNameOwner",
                              g_variant_new ("(s)", names[i]), G_VARIANT_TYPE ("(s)"),
                              G_DBUS_CALL_FLAGS_NONE, CALL_TIMEOUT_MS, self->cancellable,
                              owner_cb, peer_call_new (self, names[i]));
}

static void
watch_players (RcMprisWatch *self)
{
  /* Subscribed before the listing, so no player falls between the two. */
  self->name_owner_id =
    g_dbus_connection_signal_subscribe (self->bus, DBUS_NAME, DBUS_INTERFACE,
                                        "NameOwnerChanged", DBUS_PATH, "org.mpris.MediaPlayer2",
                                        G_DBUS_SIGNAL_FLAGS_MATCH_ARG0_NAMESPACE,
                                        name_owner_changed_cb, self, NULL);
  self->properties_id =
    g_dbus_connection_signal_subscribe (self->bus, NULL, DBUS_PROPERTIES_INTERFACE,
                                        "PropertiesChanged", MPRIS_PATH, MPRIS_PLAYER_INTERFACE,
                                        G_DBUS_SIGNAL_FLAGS_NONE,
                                        player_properties_changed_cb, self, NULL);
  g_dbus_connection_call (self->bus, DBUS_NAME, DBUS_PATH, DBUS_INTERFACE, "ListNames", NULL,
                          G_VARIANT_TYPE ("(as)"), G_DBUS_CALL_FLAGS_NONE, CALL_TIMEOUT_MS,
                          self->cancellable, list_names_cb, g_object_ref (self));
}

RcMprisWatch *
rc_mpris_watch_new (GDBusConnection *session_bus)
{
  RcMprisWatch *self = g_object_new (RC_TYPE_MPRIS_WATCH, NULL);

  self->bus = g_object_ref (session_bus);
  watch_players (self);
  return self;
}

static void
rc_mpris_watch_dispose (GObject *object)
{
  RcMprisWatch *self = RC_MPRIS_WATCH (object);
  GHashTableIter iter;
  Peer *peer;

  g_cancellable_cancel (self->cancellable);
  g_clear_handle_id (&self->ask_id, g_source_remove);
  g_hash_table_iter_init (&iter, self->peers);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &peer))
    rc_clear_subscription (self->bus, &peer->gone_id);
  rc_clear_subscription (self->bus, &self->name_owner_id);
  rc_clear_subscription (self->bus, &self->properties_id);
  g_clear_object (&self->bus);
  G_OBJECT_CLASS (rc_mpris_watch_parent_class)->dispose (object);
}

static void
rc_mpris_watch_finalize (GObject *object)
{
  RcMprisWatch *self = RC_MPRIS_WATCH (object);

  g_clear_object (&self->cancellable);
  g_queue_clear (&self->waiting);
  g_hash_table_unref (self->player_names);
  g_hash_table_unref (self->peers);
  g_array_unref (self->pids);
  G_OBJECT_CLASS (rc_mpris_watch_parent_class)->finalize (object);
}

static void
rc_mpris_watch_class_init (RcMprisWatchClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = rc_mpris_watch_dispose;
  object_class->finalize = rc_mpris_watch_finalize;
  signals[SIGNAL_CHANGED] = g_signal_new ("changed", G_TYPE_FROM_CLASS (klass),
                                          G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                          G_TYPE_NONE, 0);
}

static void
rc_mpris_watch_init (RcMprisWatch *self)
{
  self->cancellable = g_cancellable_new ();
  self->peers = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, (GDestroyNotify) peer_free);
  self->player_names = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_queue_init (&self->waiting);
  self->pids = g_array_new (FALSE, FALSE, sizeof (guint32));
}
