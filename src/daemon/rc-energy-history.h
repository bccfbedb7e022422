/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The energy history: per AppID, the last 7 days by hour, the energy it
 * used with the focus (foreground) and without (background), and the
 * system's part under the AppID "". Only the hours in which an app used
 * energy are kept, 12 bytes each: values in millijoules in 32 bits (an hour
 * holds up to 1.19 kWh, far above what one app can draw). At worst, 1,000
 * AppIDs busy every hour of 7 days, that is 2 MB in memory and in the file;
 * an app that ran a few hours costs a few entries. An AppID with nothing
 * left in the 7 days is dropped; at most RC_ENERGY_HISTORY_MAX_APPS are
 * kept, energy of further ones counts as the system's.
 *
 * The file: the 8 bytes "RCENERGY", the format version as a 32-bit
 * little-endian number, 4 bytes 0, then a GVariant (ta(sssa(uuu))) in
 * normal form: the newest hour (hours since the epoch) and for each AppID
 * its name, icon and hours (hour, foreground and background millijoules),
 * ascending, within the 7 days that end at the newest hour. */
#define RC_ENERGY_HISTORY_HOURS    168
#define RC_ENERGY_HISTORY_MAX_APPS 2048
#define RC_ENERGY_HISTORY_VERSION  2
#define RC_ENERGY_HISTORY_MAX_FILE (4 * 1024 * 1024)

typedef struct _RcEnergyHistory RcEnergyHistory;

/* One AppID's use over a span, from rc_energy_history_usage. */
typedef struct {
  const char *app_id;        /* valid until the history next changes */
  const char *name;
  const char *icon;
  guint64     foreground_uj;
  guint64     background_uj;
} RcEnergyUsage;

RcEnergyHistory *rc_energy_history_new (void);
void             rc_energy_history_free (RcEnergyHistory *self);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RcEnergyHistory, rc_energy_history_free);

/* Adds @energy_uj to @app_id's (NULL or "": the system's) hour @hour
 * (since the epoch); @name and @icon (may be NULL) are kept for when the
 * app is no longer running. An hour older than the 7 days is dropped. */
void             rc_energy_history_add (RcEnergyHistory *self,
                                        const char      *app_id,
                                        const char      *name,
                                        const char      *icon,
                                        guint64          hour,
                                        guint64          energy_uj,
                                        gboolean         foreground);
/* Moves the ring on to @hour: what is older than 7 days goes. */
void             rc_energy_history_advance (RcEnergyHistory *self,
                                            guint64          hour);
void             rc_energy_history_reset (RcEnergyHistory *self);
/* The newest hour it holds (0: none). */
guint64          rc_energy_history_get_newest_hour (RcEnergyHistory *self);
guint            rc_energy_history_n_apps (RcEnergyHistory *self);
/* Each AppID's use (RcEnergyUsage, the system left out) in the hours from
 * @since_hour on, those that used any; the system's in @out_system_uj. */
GArray          *rc_energy_history_usage (RcEnergyHistory *self,
                                          guint64          since_hour,
                                          guint64         *out_system_uj);

/* The file's bytes. */
GBytes          *rc_energy_history_serialize (RcEnergyHistory *self);
/* A history from a file's bytes; NULL with @error (G_FILE_ERROR_INVAL)
 * saying what is wrong: not ours, another version, cut short, corrupt. */
RcEnergyHistory *rc_energy_history_parse (GBytes  *bytes,
                                          GError **error);
/* Reads @path without blocking (a regular file of at most
 * RC_ENERGY_HISTORY_MAX_FILE bytes). A missing file is an empty history;
 * a file that cannot be used (not a regular file, too big, not ours,
 * another version, cut short, corrupt) is renamed to @path.bad, with one
 * log line, and an empty history starts. Never NULL. */
RcEnergyHistory *rc_energy_history_load (const char *path);
/* Writes @bytes to @path atomically (g_file_set_contents), creating its
 * folder (0700). Blocks: run it in a worker thread. */
gboolean         rc_energy_history_write (const char *path,
                                          GBytes     *bytes,
                                          GError    **error);

G_END_DECLS
