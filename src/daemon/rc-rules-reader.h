/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>

#include "rc-rules.h"

G_BEGIN_DECLS

/* One reading of the rules folders, whole: what the store (rc-rules.c)
 * puts in force. It blocks on the files, so the store runs it in a worker
 * thread; nothing here touches the store or logs.
 *
 * The folders are files anyone of the user may fill, so a reading is
 * bounded: at most RC_RULES_MAX_FOLDER_ENTRIES names of a folder are looked
 * at, at most RC_RULES_MAX_FILES *.conf files of it read (the first by
 * name), and at most RC_RULES_MAX_TOTAL_BYTES read in all (the system's
 * folder first, so the user's files cannot crowd its rules out); what is
 * left out is said in the problems. */
#define RC_RULES_MAX_FOLDER_ENTRIES 1024
#define RC_RULES_MAX_FILES          256
#define RC_RULES_MAX_TOTAL_BYTES    (4 * 1024 * 1024)

typedef struct {
  GHashTable   *rules[RC_RULES_N_LAYERS];   /* AppID -> RcRule */
  GHashTable   *slices[RC_RULES_N_LAYERS];  /* slice unit name -> RcLimits */
  RcBoost       boost;
  RcNotifyRules notify;
  RcGuardRules  guard;
  GPtrArray    *problems;                   /* messages, for the store to log once */
} RcRulesReading;

/* The *.conf files of @dir, in file-name order, within the bounds above;
 * empty if @dir is missing. What is left out is appended to @problems
 * (may be NULL). */
GPtrArray      *rc_rules_list_files (const char *dir,
                                     GPtrArray  *problems);
/* Reads @system_dir, then @user_dir (later wins per group). */
RcRulesReading *rc_rules_reading_new (const char *system_dir,
                                      const char *user_dir);
void            rc_rules_reading_free (RcRulesReading *reading);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RcRulesReading, rc_rules_reading_free)

G_END_DECLS
