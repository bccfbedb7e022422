/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "rc-rules.h"
#include "rc-rules-reader.h"
#include "rc-folder-watch.h"
#include "rc-safe-file.h"
#include "rc-test-hooks.h"
#include "rc-api-keys.h"
#include "rc-error.h"
#include "rc-names.h"
#include "rc-unit-name.h"

#include <errno.h>
#include <string.h>

#define FREEZE_KEY RC_KEY_FREEZE_WHEN_INACTIVE_SEC

#define N_LAYERS RC_RULES_N_LAYERS
#define LAYER_BASE RC_RULES_LAYER_BASE

struct _RcRules {
  GObject        parent_instance;
  char          *system_dir;
  char          *user_dir;
  GHashTable    *file_rules[N_LAYERS];  /* AppID -> RcRule, as the files say */
  GHashTable    *file_slices[N_LAYERS]; /* slice unit name -> RcLimits */
  RcConditions   conditions;
  GHashTable    *rules;      /* AppID -> RcRule, under the conditions */
  GHashTable    *slices;     /* slice unit name -> RcLimits, the same */
  RcBoost        boost;
  RcNotifyRules  notify;
  RcGuardRules   guard;
  GHashTable    *reported;   /* problems logged at the last reading */
  RcFolderWatch *folders[2];   /* system, user */
  guint          reload_id;
  gboolean       folder_changed;  /* since the last reading began */
  gboolean       reading;         /* a reading for the monitor is running */
  gint64         last_reading_end; /* monotonic, usec */
  gint           readings_begun;  /* numbers readings; atomic */
  guint64        applied_number;  /* the number of the reading in force */
};

G_DEFINE_TYPE (RcRules, rc_rules, G_TYPE_OBJECT);

enum { SIGNAL_CHANGED, N_SIGNALS };
static guint signals[N_SIGNALS];

/* SetRule and RemoveRule edit files in a worker thread, one at a time, so
 * two callers never both rewrite the file the other just read. */
static GMutex edit_lock;

/* ---- reading ----------------------------------------------------------- */

static int
compare_paths_with_data (gconstpointer a,
                         gconstpointer b,
                         gpointer      user_data)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

/* A problem in a file is logged once, not at every reading while it lasts. */
static void report (RcRules    *self,
                    GHashTable *reported,
                    const char *format,
                    ...) G_GNUC_PRINTF (3, 4);

static void
report (RcRules    *self,
        GHashTable *reported,
        const char *format,
        ...)
{
  va_list args;
  char *message;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  if (!g_hash_table_contains (self->reported, message))
    g_warning ("Rules: %s; skipped", message);
  /* @reported (its key free function is g_free) owns @message now;
   * cppcheck does not know GHashTable takes ownership. */
  g_hash_table_add (reported, message);
  // cppcheck-suppress memleak
}

/* Every limit @over sets, set in @limits. */
static void
overlay_limits (RcLimits       *limits,
                const RcLimits *over)
{
  for (RcLimit limit = 0; limit < RC_N_LIMITS; limit++)
    if (rc_limits_has (over, limit))
      rc_limits_set (limits, limit, over->values[limit]);
}

/* The entry of @name in @table, added zeroed (@size bytes) if there is none. */
static gpointer
lookup_or_add (GHashTable *table,
               const char *name,
               gsize       size)
{
  gpointer entry = g_hash_table_lookup (table, name);

  if (entry == NULL)
    {
      entry = g_malloc0 (size);
      g_hash_table_insert (table, g_strdup (name), entry);
    }
  return entry;
}

/* The rules and slices as they are under the conditions that hold: each
 * layer that holds over the ones before it, key by key. */
static void
merge_layers (RcRules *self)
{
  GHashTable *rules = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  GHashTable *slices = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);

  for (guint i = 0; i < N_LAYERS; i++)
    {
      GHashTableIter iter;
      const char *name;
      RcRule *rule;
      RcLimits *limits;

      if ((self->conditions & rc_rules_layer_condition (i)) != rc_rules_layer_condition (i))
        continue;
      g_hash_table_iter_init (&iter, self->file_rules[i]);
      while (g_hash_table_iter_next (&iter, (gpointer *) &name, (gpointer *) &rule))
        {
          RcRule *merged = lookup_or_add (rules, name, sizeof (RcRule));

          overlay_limits (&merged->limits, &rule->limits);
          if (rule->limits.set != 0 || rule->has_freeze)
            merged->origin = rule->origin;   /* file_rules outlive the merge */
          if (rule->has_freeze)
            {
              merged->has_freeze = TRUE;
              merged->freeze_when_inactive_sec = rule->freeze_when_inactive_sec;
            }
        }
      g_hash_table_iter_init (&iter, self->file_slices[i]);
      while (g_hash_table_iter_next (&iter, (gpointer *) &name, (gpointer *) &limits))
        {
          RcLimits *merged = lookup_or_add (slices, name, sizeof (RcLimits));

          overlay_limits (merged, limits);
        }
    }
  g_clear_pointer (&self->rules, g_hash_table_unref);
  self->rules = rules;
  g_clear_pointer (&self->slices, g_hash_table_unref);
  self->slices = slices;
}

static GHashTable *
new_table (void)
{
  return g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
}

/* Puts @reading (taken) in force, unless a reading begun later is in
 * force already (an edit's and the monitor's readings may end in either
 * order). */
static void
apply_reading (RcRules        *self,
               RcRulesReading *reading,
               guint64         number)
{
  g_autoptr(RcRulesReading) owned = reading;
  g_autoptr(GHashTable) reported = NULL;

  if (number < self->applied_number)
    return;
  self->applied_number = number;
  reported = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  for (guint i = 0; i < reading->problems->len; i++)
    report (self, reported, "%s", (const char *) g_ptr_array_index (reading->problems, i));
  for (guint i = 0; i < N_LAYERS; i++)
    {
      g_hash_table_unref (self->file_rules[i]);
      self->file_rules[i] = g_steal_pointer (&reading->rules[i]);
      g_hash_table_unref (self->file_slices[i]);
      self->file_slices[i] = g_steal_pointer (&reading->slices[i]);
    }
  merge_layers (self);
  self->boost = reading->boost;
  self->notify = reading->notify;
  self->guard = reading->guard;
  g_hash_table_unref (self->reported);
  self->reported = g_steal_pointer (&reported);
  g_debug ("Rules: %u AppIDs, boost %s", g_hash_table_size (self->file_rules[LAYER_BASE]),
           self->boost.enabled ? "on" : "off");
  g_signal_emit (self, signals[SIGNAL_CHANGED], 0);
}

void
rc_rules_set_conditions (RcRules     *self,
                         RcConditions conditions)
{
  gboolean matters = FALSE;

  if (conditions == self->conditions)
    return;
  for (guint i = 0; i < N_LAYERS; i++)
    if ((conditions & rc_rules_layer_condition (i)) != (self->conditions & rc_rules_layer_condition (i)) &&
        (g_hash_table_size (self->file_rules[i]) > 0 ||
         g_hash_table_size (self->file_slices[i]) > 0))
      matters = TRUE;
  self->conditions = conditions;
  merge_layers (self);
  g_debug ("Rules: conditions now %x", conditions);
  if (matters)
    g_signal_emit (self, signals[SIGNAL_CHANGED], 0);
}

/* A folder that keeps changing is read once the events of a moment are
 * in (an editor's save is several: created, changed, moved), then at most
 * once per READING_SPACING_USEC: one reading at a time, in a worker thread,
 * and the changes seen during one make one more. A program that writes the
 * folder without end costs a reading a second off the main loop, and on it
 * only the swap of the tables. */
#define SETTLE_MSEC          100
#define READING_SPACING_USEC (1 * G_USEC_PER_SEC)

typedef struct {
  char           *system_dir;
  char           *user_dir;
  guint64         number;
  RcRulesReading *reading;
} ReadJob;

static void
read_job_free (ReadJob *job)
{
  g_free (job->system_dir);
  g_free (job->user_dir);
  rc_rules_reading_free (job->reading);
  g_free (job);
}

/* In a worker thread: the number says which of two readings began later. */
static void
read_folders (RcRules *self,
              ReadJob *job)
{
  job->number = (guint64) g_atomic_int_add (&self->readings_begun, 1) + 1;
  job->reading = rc_rules_reading_new (job->system_dir, job->user_dir);
}

static void
read_thread (GTask        *task,
             gpointer      source,
             gpointer      task_data,
             GCancellable *cancellable)
{
  read_folders (source, task_data);
  g_task_return_boolean (task, TRUE);
}

static void schedule_reading (RcRules *self);

static void
read_done_cb (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  RcRules *self = RC_RULES (source);
  ReadJob *job = g_task_get_task_data (G_TASK (result));

  self->reading = FALSE;
  self->last_reading_end = g_get_monotonic_time ();
  apply_reading (self, g_steal_pointer (&job->reading), job->number);
  if (self->folder_changed)
    schedule_reading (self);
}

static gboolean
reload_cb (gpointer user_data)
{
  RcRules *self = user_data;
  g_autoptr(GTask) task = g_task_new (self, NULL, read_done_cb, NULL);
  ReadJob *job = g_new0 (ReadJob, 1);

  self->reload_id = 0;
  self->folder_changed = FALSE;
  self->reading = TRUE;
  job->system_dir = g_strdup (self->system_dir);
  job->user_dir = g_strdup (self->user_dir);
  g_task_set_task_data (task, job, (GDestroyNotify) read_job_free);
  g_task_run_in_thread (task, read_thread);
  return G_SOURCE_REMOVE;
}

static void
schedule_reading (RcRules *self)
{
  gint64 wait_usec = self->last_reading_end + READING_SPACING_USEC - g_get_monotonic_time ();
  guint delay_msec = SETTLE_MSEC;

  if (self->reading || self->reload_id != 0)
    return;
  if (wait_usec > 0)
    delay_msec = MAX (delay_msec, (guint) (wait_usec / 1000));
  self->reload_id = g_timeout_add (delay_msec, reload_cb, self);
}

static void
folder_changed_cb (RcRules *self)
{
  self->folder_changed = TRUE;
  schedule_reading (self);
}

const RcRule *
rc_rules_lookup (RcRules    *self,
                 const char *app_id)
{
  return g_hash_table_lookup (self->rules, app_id);
}

const char *
rc_rules_lookup_origin (RcRules      *self,
                        const char   *app_id,
                        RcLimit       limit,
                        RcRulesLayer *out_layer)
{
  /* the layers apply in order: the last that holds and gives the key wins */
  for (int i = N_LAYERS - 1; i >= 0; i--)
    {
      const RcRule *rule;

      if ((self->conditions & rc_rules_layer_condition (i)) != rc_rules_layer_condition (i))
        continue;
      rule = g_hash_table_lookup (self->file_rules[i], app_id);
      if (rule != NULL && rc_limits_has (&rule->limits, limit))
        {
          *out_layer = i;
          return rule->origin;
        }
    }
  return NULL;
}

const RcLimits *
rc_rules_lookup_slice (RcRules    *self,
                       const char *slice)
{
  return g_hash_table_lookup (self->slices, slice);
}

const RcBoost *
rc_rules_get_boost (RcRules *self)
{
  return &self->boost;
}

const RcNotifyRules *
rc_rules_get_notify (RcRules *self)
{
  return &self->notify;
}

const RcGuardRules *
rc_rules_get_guard (RcRules *self)
{
  return &self->guard;
}

static GVariant *
rule_to_variant (const RcRule *rule)
{
  g_autoptr(GVariant) limits = g_variant_ref_sink (rc_limits_to_app_changes (&rule->limits));
  g_auto(GVariantBuilder) builder = G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE_VARDICT);
  GVariantIter iter;
  GVariant *entry;

  g_variant_iter_init (&iter, limits);
  while ((entry = g_variant_iter_next_value (&iter)) != NULL)
    {
      g_variant_builder_add_value (&builder, entry);
      g_variant_unref (entry);
    }
  if (rule->freeze_when_inactive_sec > 0)
    g_variant_builder_add (&builder, "{sv}", FREEZE_KEY,
                           g_variant_new_uint32 (rule->freeze_when_inactive_sec));
  return g_variant_builder_end (&builder);
}

GVariant *
rc_rules_to_variant (RcRules *self)
{
  g_auto(GVariantBuilder) builder = G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE ("a{sa{sv}}"));
  g_autofree const char **app_ids = NULL;
  guint n;

  GHashTable *rules = self->file_rules[LAYER_BASE];

  app_ids = (const char **) g_hash_table_get_keys_as_array (rules, &n);
  g_qsort_with_data (app_ids, n, sizeof (char *), compare_paths_with_data, NULL);
  for (guint i = 0; i < n; i++)
    g_variant_builder_add (&builder, "{s@a{sv}}", app_ids[i],
                           rule_to_variant (g_hash_table_lookup (rules, app_ids[i])));
  return g_variant_builder_end (&builder);
}

gboolean
rc_rule_parse_variant (GVariant *limits,
                       guint     n_cpus,
                       RcRule   *out_rule,
                       GError  **error)
{
  g_auto(GVariantBuilder) rest = G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE_VARDICT);
  g_autoptr(GVariant) options = g_variant_ref_sink (g_variant_new ("a{sv}", NULL));
  g_autoptr(GVariant) limits_only = NULL;
  RcRule rule = { { 0, }, };
  gboolean has_freeze = FALSE;
  GVariantIter iter;
  const char *key;
  GVariant *value;

  if (!rc_limits_check_size (limits, 1, error))
    return FALSE;
  g_variant_iter_init (&iter, limits);
  while (g_variant_iter_next (&iter, "{&sv}", &key, &value))
    {
      g_autoptr(GVariant) owned G_GNUC_UNUSED = value;

      if (!g_str_equal (key, FREEZE_KEY))
        {
          g_variant_builder_add (&rest, "{sv}", key, value);
          continue;
        }
      if (!g_variant_is_of_type (value, G_VARIANT_TYPE_UINT32) ||
          g_variant_get_uint32 (value) == 0 ||
          g_variant_get_uint32 (value) > RC_FREEZE_INACTIVE_MAX_SEC || has_freeze)
        {
          g_set_error (error, RC_ERROR, RC_ERROR_INVALID_ARGUMENT,
                       FREEZE_KEY " must be given once, as u, from 1 to %d seconds; leave "
                       "it out for a rule that never freezes", RC_FREEZE_INACTIVE_MAX_SEC);
          return FALSE;
        }
      has_freeze = TRUE;
      rule.freeze_when_inactive_sec = g_variant_get_uint32 (value);
    }
  limits_only = g_variant_ref_sink (g_variant_builder_end (&rest));
  /* A rule may be only a freeze delay; SetLimits' "no limits given" does
   * not apply then. */
  if (!(has_freeze && g_variant_n_children (limits_only) == 0) &&
      !rc_limits_parse (limits_only, options, n_cpus, &rule.limits, error))
    return FALSE;
  *out_rule = rule;
  return TRUE;
}

/* ---- writing ----------------------------------------------------------- */

typedef struct {
  char    *app_id;
  RcRule   rule;
  gboolean remove;
  ReadJob  after;   /* the folders as the edit left them */
} Edit;

static void
edit_free (Edit *edit)
{
  g_free (edit->app_id);
  g_free (edit->after.system_dir);
  g_free (edit->after.user_dir);
  rc_rules_reading_free (edit->after.reading);
  g_free (edit);
}

static gboolean
save_key_file (GKeyFile   *file,
               const char *path,
               GError    **error)
{
  g_autofree char *data = NULL;
  g_autofree char *target = g_file_read_link (path, NULL);
  gsize length;

  /* Renaming over a link would replace it with a file, and a link kept in
   * a dotfiles repository would silently stop being one. */
  if (target != NULL)
    {
      g_set_error (error, RC_ERROR, RC_ERROR_FAILED,
                   "%s is a symbolic link (to %s); rules are not written through links. "
                   "Edit the file it points to, or replace the link with a copy", path, target);
      return FALSE;
    }
  data = g_key_file_to_data (file, &length, NULL);
  /* Written to a temporary file and renamed over: a reader (the folder
   * monitor, an editor) sees the old file or the new one, never half. */
  return g_file_set_contents_full (path, data, length,
                                   G_FILE_SET_CONTENTS_CONSISTENT, 0644, error);
}

static GKeyFile *
load_for_edit (const char *path,
               GError    **error)
{
  g_autoptr(GKeyFile) file = g_key_file_new ();
  g_autoptr(GError) local = NULL;

  if (!rc_safe_key_file_load (file, path, G_KEY_FILE_KEEP_COMMENTS, &local) &&
      !g_error_matches (local, G_FILE_ERROR, G_FILE_ERROR_NOENT))
    {
      g_set_error (error, RC_ERROR, RC_ERROR_FAILED, "Cannot edit %s: %s", path,
                   local->message);
      return NULL;
    }
  return g_steal_pointer (&file);
}

static gboolean
file_has_group (const char *path,
                const char *group)
{
  g_autoptr(GKeyFile) file = g_key_file_new ();

  return rc_safe_key_file_load (file, path, G_KEY_FILE_NONE, NULL) &&
         g_key_file_has_group (file, group);
}

static gboolean
write_rule (Edit    *edit,
            GError **error)
{
  g_autoptr(GPtrArray) files = rc_rules_list_files (edit->after.user_dir, NULL);
  g_autofree char *path = NULL;
  g_autoptr(GKeyFile) file = NULL;

  /* Edit the group that is in force: the last user file that has it. */
  for (guint i = files->len; i > 0 && path == NULL; i--)
    if (file_has_group (g_ptr_array_index (files, i - 1), edit->app_id))
      path = g_strdup (g_ptr_array_index (files, i - 1));
  if (path == NULL)
    path = g_build_filename (edit->after.user_dir, RC_RULES_USER_FILE, NULL);

  file = load_for_edit (path, error);
  if (file == NULL)
    return FALSE;
  rc_rules_write_group (file, edit->app_id, &edit->rule);
  if (g_mkdir_with_parents (edit->after.user_dir, 0700) != 0)
    {
      g_set_error (error, RC_ERROR, RC_ERROR_FAILED, "Cannot create %s: %s", edit->after.user_dir,
                   g_strerror (errno));
      return FALSE;
    }
  return save_key_file (file, path, error);
}

static gboolean
remove_rule (Edit    *edit,
             GError **error)
{
  g_autoptr(GPtrArray) files = rc_rules_list_files (edit->after.user_dir, NULL);
  g_autoptr(GPtrArray) system_files = NULL;
  gboolean found = FALSE;

  for (guint i = 0; i < files->len; i++)
    {
      const char *path = g_ptr_array_index (files, i);
      g_autoptr(GKeyFile) file = NULL;

      if (!file_has_group (path, edit->app_id))
        continue;
      file = load_for_edit (path, error);
      if (file == NULL)
        return FALSE;
      g_key_file_remove_group (file, edit->app_id, NULL);
      if (!save_key_file (file, path, error))
        return FALSE;
      found = TRUE;
    }
  if (found)
    return TRUE;

  system_files = rc_rules_list_files (edit->after.system_dir, NULL);
  for (guint i = 0; i < system_files->len; i++)
    if (file_has_group (g_ptr_array_index (system_files, i), edit->app_id))
      {
        g_set_error (error, RC_ERROR, RC_ERROR_PROTECTED,
                     "The rule for %s is in the system folder %s (%s); only an administrator "
                     "can remove it there. SetRule can override it with a rule of your own",
                     edit->app_id, edit->after.system_dir,
                     (char *) g_ptr_array_index (system_files, i));
        return FALSE;
      }
  g_set_error (error, RC_ERROR, RC_ERROR_NO_SUCH_APP, "There is no rule for %s", edit->app_id);
  return FALSE;
}

static void
edit_thread (GTask        *task,
             gpointer      source,
             gpointer      task_data,
             GCancellable *cancellable)
{
  Edit *edit = task_data;
  GError *error = NULL;
  gboolean ok;

  g_mutex_lock (&edit_lock);
  ok = edit->remove ? remove_rule (edit, &error) : write_rule (edit, &error);
  g_mutex_unlock (&edit_lock);
  if (ok)
    read_folders (source, &edit->after);
  if (ok)
    g_task_return_boolean (task, TRUE);
  else
    g_task_return_error (task, error);
}

/* The files were read again after the edit, in its thread, so the
 * caller's next ListRules (and the running instances) see the change
 * without waiting for the monitor. */
static void
edit_done_cb (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  GError *error = NULL;
  Edit *edit;

  if (!g_task_propagate_boolean (G_TASK (result), &error))
    {
      g_task_return_error (task, error);
      return;
    }
  edit = g_task_get_task_data (G_TASK (result));
  apply_reading (RC_RULES (source), g_steal_pointer (&edit->after.reading), edit->after.number);
  g_task_return_boolean (task, TRUE);
}

/* Runs @edit (taken) of @app_id's rule in a worker thread. */
static void
start_edit (RcRules            *self,
            const char         *app_id,
            Edit               *edit,
            GCancellable       *cancellable,
            GAsyncReadyCallback callback,
            gpointer            user_data)
{
  GTask *task = g_task_new (self, cancellable, callback, user_data);
  g_autoptr(GTask) worker = g_task_new (self, cancellable, edit_done_cb, task);

  edit->app_id = g_strdup (app_id);
  edit->after.system_dir = g_strdup (self->system_dir);
  edit->after.user_dir = g_strdup (self->user_dir);
  g_task_set_task_data (worker, edit, (GDestroyNotify) edit_free);
  g_task_run_in_thread (worker, edit_thread);
}

void
rc_rules_set_async (RcRules            *self,
                    const char         *app_id,
                    const RcRule       *rule,
                    GCancellable       *cancellable,
                    GAsyncReadyCallback callback,
                    gpointer            user_data)
{
  Edit *edit = g_new0 (Edit, 1);

  edit->rule = *rule;
  start_edit (self, app_id, edit, cancellable, callback, user_data);
}

void
rc_rules_remove_async (RcRules            *self,
                       const char         *app_id,
                       GCancellable       *cancellable,
                       GAsyncReadyCallback callback,
                       gpointer            user_data)
{
  Edit *edit = g_new0 (Edit, 1);

  edit->remove = TRUE;
  start_edit (self, app_id, edit, cancellable, callback, user_data);
}

gboolean
rc_rules_edit_finish (RcRules      *self,
                      GAsyncResult *result,
                      GError      **error)
{
  return g_task_propagate_boolean (G_TASK (result), error);
}

/* ---- object ------------------------------------------------------------ */

char *
rc_rules_system_dir (void)
{
  const char *dir = rc_test_hook ("RESOURCE_CONTROL_SYSTEM_RULES_DIR");

  if (dir != NULL)
    return g_strdup (dir);
  return g_build_filename (RC_SYSCONFDIR, RC_RULES_SUBDIR, NULL);
}

RcRules *
rc_rules_new (const char *system_dir,
              const char *user_dir)
{
  RcRules *self = g_object_new (RC_TYPE_RULES, NULL);

  self->system_dir = g_strdup (system_dir);
  self->user_dir = g_strdup (user_dir);
  if (g_mkdir_with_parents (user_dir, 0700) != 0)
    g_debug ("Rules: cannot create %s: %s", user_dir, g_strerror (errno));
  self->folders[0] = rc_folder_watch_new (system_dir);
  self->folders[1] = rc_folder_watch_new (user_dir);
  for (guint i = 0; i < G_N_ELEMENTS (self->folders); i++)
    g_signal_connect_swapped (self->folders[i], "changed", G_CALLBACK (folder_changed_cb), self);
  /* The first reading, before the daemon serves anything, is on the spot. */
  {
    ReadJob job = { .system_dir = self->system_dir, .user_dir = self->user_dir };

    read_folders (self, &job);
    apply_reading (self, job.reading, job.number);
  }
  return self;
}

static void
rc_rules_finalize (GObject *object)
{
  RcRules *self = RC_RULES (object);

  g_clear_handle_id (&self->reload_id, g_source_remove);
  for (guint i = 0; i < G_N_ELEMENTS (self->folders); i++)
    {
      g_signal_handlers_disconnect_by_data (self->folders[i], self);
      g_clear_object (&self->folders[i]);
    }
  for (guint i = 0; i < N_LAYERS; i++)
    {
      g_clear_pointer (&self->file_rules[i], g_hash_table_unref);
      g_clear_pointer (&self->file_slices[i], g_hash_table_unref);
    }
  g_clear_pointer (&self->rules, g_hash_table_unref);
  g_clear_pointer (&self->slices, g_hash_table_unref);
  g_clear_pointer (&self->reported, g_hash_table_unref);
  g_free (self->system_dir);
  g_free (self->user_dir);
  G_OBJECT_CLASS (rc_rules_parent_class)->finalize (object);
}

static void
rc_rules_class_init (RcRulesClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = rc_rules_finalize;
  signals[SIGNAL_CHANGED] = g_signal_new ("changed", G_TYPE_FROM_CLASS (klass),
                                          G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                          G_TYPE_NONE, 0);
}

static void
rc_rules_init (RcRules *self)
{
  for (guint i = 0; i < N_LAYERS; i++)
    {
      self->file_rules[i] = new_table ();
      self->file_slices[i] = new_table ();
    }
  self->rules = new_table ();
  self->slices = new_table ();
  self->reported = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
}
