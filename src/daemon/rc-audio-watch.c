/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "rc-audio-watch.h"
#include "rc-audio-pids.h"
#include "rc-mpris-watch.h"
#include "rc-pipewire-watch.h"

struct _RcAudioWatch {
  GObject          parent_instance;
  RcMprisWatch    *players;      /* NULL without a bus */
  RcPipewireWatch *pipewire;     /* NULL without a bus */
  GArray          *pids;         /* last reported, sorted */
};

G_DEFINE_TYPE (RcAudioWatch, rc_audio_watch, G_TYPE_OBJECT);

enum { SIGNAL_CHANGED, N_SIGNALS };
static guint signals[N_SIGNALS];

static void
add_all (GArray *pids,
         GArray *more)
{
  for (guint i = 0; i < more->len; i++)
    rc_audio_pids_add (pids, g_array_index (more, guint32, i));
}

/* A process that plays in both counts once; "changed" only when the
 * joined set differs from the last one. */
static void
source_changed_cb (RcAudioWatch *self)
{
  g_autoptr(GArray) pids = g_array_new (FALSE, FALSE, sizeof (guint32));

  if (self->players != NULL)
    {
      g_autoptr(GArray) playing = rc_mpris_watch_get_pids (self->players);

      add_all (pids, playing);
    }
  if (self->pipewire != NULL)
    {
      g_autoptr(GArray) streaming = rc_pipewire_watch_get_pids (self->pipewire);

      add_all (pids, streaming);
    }
  if (!rc_audio_pids_replace (&self->pids, g_steal_pointer (&pids)))
    return;
  g_debug ("Audio: %u processes play or record", self->pids->len);
  g_signal_emit (self, signals[SIGNAL_CHANGED], 0);
}

GArray *
rc_audio_watch_get_pids (RcAudioWatch *self)
{
  return g_array_ref (self->pids);
}

RcAudioWatch *
rc_audio_watch_new (GDBusConnection *session_bus)
{
  RcAudioWatch *self = g_object_new (RC_TYPE_AUDIO_WATCH, NULL);

  if (session_bus == NULL)
    return self;
  self->players = rc_mpris_watch_new (session_bus);
  g_signal_connect_swapped (self->players, "changed", G_CALLBACK (source_changed_cb), self);
  self->pipewire = rc_pipewire_watch_new ();
  g_signal_connect_swapped (self->pipewire, "changed", G_CALLBACK (source_changed_cb), self);
  rc_pipewire_watch_start (self->pipewire);
  return self;
}

static void
rc_audio_watch_dispose (GObject *object)
{
  RcAudioWatch *self = RC_AUDIO_WATCH (object);

  if (self->players != NULL)
    g_signal_handlers_disconnect_by_data (self->players, self);
  g_clear_object (&self->players);
  if (self->pipewire != NULL)
    g_signal_handlers_disconnect_by_data (self->pipewire, self);
  g_clear_object (&self->pipewire);
  G_OBJECT_CLASS (rc_audio_watch_parent_class)->dispose (object);
}

static void
rc_audio_watch_finalize (GObject *object)
{
  RcAudioWatch *self = RC_AUDIO_WATCH (object);

  g_array_unref (self->pids);
  G_OBJECT_CLASS (rc_audio_watch_parent_class)->finalize (object);
}

static void
rc_audio_watch_class_init (RcAudioWatchClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = rc_audio_watch_dispose;
  object_class->finalize = rc_audio_watch_finalize;
  signals[SIGNAL_CHANGED] = g_signal_new ("changed", G_TYPE_FROM_CLASS (klass),
                                          G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                          G_TYPE_NONE, 0);
}

static void
rc_audio_watch_init (RcAudioWatch *self)
{
  self->pids = g_array_new (FALSE, FALSE, sizeof (guint32));
}
