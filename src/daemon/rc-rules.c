/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "rc-rules.h"
#include "rc-safe-file.h"
#include "rc-keys.h"
#include "rc-error.h"
#include "rc-names.h"
#include "rc-unit-name.h"

#include <errno.h>
#include <string.h>

#define FREEZE_KEY RC_KEY_FREEZE_WHEN_INACTIVE_SEC

#define N_LAYERS RC_RULES_N_LAYERS
#define LAYER_BASE RC_RULES_LAYER_BASE

struct _RcRules {
  GObject       parent_instance;
  char         *system_dir;
  char         *user_dir;
  GHashTable   *file_rules[N_LAYERS];   /* AppID -> RcRule, as the files say */
  GHashTable   *file_slices[N_LAYERS];  /* slice unit name -> RcLimits */
  RcConditions  conditions;
  GHashTable   *rules;       /* AppID -> RcRule, under the conditions */
  GHashTable   *slices;      /* slice unit name -> RcLimits, the same */
  RcBoost       boost;
  RcNotifyRules notify;
  GHashTable   *reported;    /* problems logged at the last reading */
  GFileMonitor *monitors[2];
  guint         reload_id;
};

G_DEFINE_TYPE (RcRules, rc_rules, G_TYPE_OBJECT);

enum { SIGNAL_CHANGED, N_SIGNALS };
static guint signals[N_SIGNALS];

/* SetRule and RemoveRule edit files in a worker thread, one at a time, so
 * two callers never both rewrite the file the other just read. */
static GMutex edit_lock;

/* ---- reading ----------------------------------------------------------- */

static int
compare_paths (gconstpointer a,
               gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

static int
compare_paths_with_data (gconstpointer a,
                         gconstpointer b,
                         gpointer      user_data)
{
  return compare_paths (a, b);
}

/* The *.conf files of @dir, in file-name order; empty if @dir is missing.
 * At most MAX_RULE_FILES of them, each read whole: a folder another program
 * fills cannot make a reading take for ever. */
#define MAX_RULE_FILES 256

static GPtrArray *
list_rule_files (const char *dir)
{
  GPtrArray *files = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GDir) handle = g_dir_open (dir, 0, NULL);
  const char *name;

  while (handle != NULL && (name = g_dir_read_name (handle)) != NULL)
    {
      if (g_str_has_suffix (name, ".conf") && name[0] != '.')
        g_ptr_array_add (files, g_build_filename (dir, name, NULL));
    }
  g_ptr_array_sort (files, compare_paths);
  if (files->len > MAX_RULE_FILES)
    {
      g_warning ("Rules: %s has %u .conf files; only the first %d (by name) are read",
                 dir, files->len, MAX_RULE_FILES);
      g_ptr_array_set_size (files, MAX_RULE_FILES);
    }
  return files;
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

/* One file, read whole and parsed; its problems are reported. */
static void
read_file (RcRules       *self,
           GHashTable    *reported,
           const char    *path,
           GHashTable   **rules,
           GHashTable   **slices,
           RcBoost       *boost,
           RcNotifyRules *notify)
{
  g_autoptr(GPtrArray) problems = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  g_autofree char *contents = NULL;
  gsize length;

  if (!rc_safe_file_read (path, RC_SAFE_FILE_MAX_SIZE, &contents, &length, &error))
    report (self, reported, "%s: %s", path, error->message);
  else
    rc_rules_parse_data (contents, length, path, rules, slices, boost, notify, problems);
  for (guint i = 0; i < problems->len; i++)
    report (self, reported, "%s", (const char *) g_ptr_array_index (problems, i));
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

static void
rc_rules_reload (RcRules *self)
{
  const char *dirs[] = { self->system_dir, self->user_dir };
  g_autoptr(GHashTable) reported = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  GHashTable *rules[N_LAYERS], *slices[N_LAYERS];
  RcBoost boost = { .enabled = TRUE };
  RcNotifyRules notify = RC_NOTIFY_RULES_DEFAULT;

  for (guint i = 0; i < N_LAYERS; i++)
    {
      rules[i] = new_table ();
      slices[i] = new_table ();
    }
  rc_limits_set (&boost.limits, RC_LIMIT_CPU_WEIGHT, RC_BOOST_WEIGHT_DEFAULT);
  rc_limits_set (&boost.limits, RC_LIMIT_IO_WEIGHT, RC_BOOST_WEIGHT_DEFAULT);
  for (guint d = 0; d < G_N_ELEMENTS (dirs); d++)
    {
      g_autoptr(GPtrArray) files = list_rule_files (dirs[d]);

      for (guint i = 0; i < files->len; i++)
        read_file (self, reported, g_ptr_array_index (files, i), rules, slices, &boost,
                   &notify);
    }
  for (guint i = 0; i < N_LAYERS; i++)
    {
      g_hash_table_unref (self->file_rules[i]);
      self->file_rules[i] = rules[i];
      g_hash_table_unref (self->file_slices[i]);
      self->file_slices[i] = slices[i];
    }
  merge_layers (self);
  self->boost = boost;
  self->notify = notify;
  g_hash_table_unref (self->reported);
  self->reported = g_steal_pointer (&reported);
  g_debug ("Rules: %u AppIDs, boost %s", g_hash_table_size (rules[LAYER_BASE]),
           boost.enabled ? "on" : "off");
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

static gboolean
reload_cb (gpointer user_data)
{
  RcRules *self = user_data;

  self->reload_id = 0;
  rc_rules_reload (self);
  return G_SOURCE_REMOVE;
}

/* An editor's save is several events (created, changed, moved): read once
 * they are all in. */
static void
folder_changed_cb (GFileMonitor     *monitor,
                   GFile            *file,
                   GFile            *other_file,
                   GFileMonitorEvent event,
                   RcRules          *self)
{
  if (self->reload_id == 0)
    self->reload_id = g_timeout_add (100, reload_cb, self);
}

const RcRule *
rc_rules_lookup (RcRules    *self,
                 const char *app_id)
{
  return g_hash_table_lookup (self->rules, app_id);
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
  char    *system_dir;
  char    *user_dir;
} Edit;

static void
edit_free (Edit *edit)
{
  g_free (edit->app_id);
  g_free (edit->system_dir);
  g_free (edit->user_dir);
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
  g_autoptr(GPtrArray) files = list_rule_files (edit->user_dir);
  g_autofree char *path = NULL;
  g_autoptr(GKeyFile) file = NULL;

  /* Edit the group that is in force: the last user file that has it. */
  for (guint i = files->len; i > 0 && path == NULL; i--)
    if (file_has_group (g_ptr_array_index (files, i - 1), edit->app_id))
      path = g_strdup (g_ptr_array_index (files, i - 1));
  if (path == NULL)
    path = g_build_filename (edit->user_dir, RC_RULES_USER_FILE, NULL);

  file = load_for_edit (path, error);
  if (file == NULL)
    return FALSE;
  rc_rules_write_group (file, edit->app_id, &edit->rule);
  if (g_mkdir_with_parents (edit->user_dir, 0700) != 0)
    {
      g_set_error (error, RC_ERROR, RC_ERROR_FAILED, "Cannot create %s: %s", edit->user_dir,
                   g_strerror (errno));
      return FALSE;
    }
  return save_key_file (file, path, error);
}

static gboolean
remove_rule (Edit    *edit,
             GError **error)
{
  g_autoptr(GPtrArray) files = list_rule_files (edit->user_dir);
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

  system_files = list_rule_files (edit->system_dir);
  for (guint i = 0; i < system_files->len; i++)
    if (file_has_group (g_ptr_array_index (system_files, i), edit->app_id))
      {
        g_set_error (error, RC_ERROR, RC_ERROR_PROTECTED,
                     "The rule for %s is in the system folder %s (%s); only an administrator "
                     "can remove it there. SetRule can override it with a rule of your own",
                     edit->app_id, edit->system_dir,
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
    g_task_return_boolean (task, TRUE);
  else
    g_task_return_error (task, error);
}

/* The files are read again at once, so the caller's next ListRules (and
 * the running instances) see the change without waiting for the monitor. */
static void
edit_done_cb (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  GError *error = NULL;

  if (!g_task_propagate_boolean (G_TASK (result), &error))
    {
      g_task_return_error (task, error);
      return;
    }
  rc_rules_reload (RC_RULES (source));
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
  edit->system_dir = g_strdup (self->system_dir);
  edit->user_dir = g_strdup (self->user_dir);
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

static GFileMonitor *
watch_folder (RcRules    *self,
              const char *dir)
{
  g_autoptr(GFile) file = g_file_new_for_path (dir);
  g_autoptr(GError) error = NULL;
  GFileMonitor *monitor;

  /* A missing folder would be polled for by GLib: watch only one that is there. */
  if (!g_file_test (dir, G_FILE_TEST_IS_DIR))
    {
      g_debug ("Rules: %s does not exist; not watched", dir);
      return NULL;
    }
  monitor = g_file_monitor_directory (file, G_FILE_MONITOR_WATCH_MOVES, NULL, &error);
  if (monitor == NULL)
    {
      g_warning ("Rules: cannot watch %s: %s; edits there are seen after a restart", dir,
                 error->message);
      return NULL;
    }
  g_signal_connect_object (monitor, "changed", G_CALLBACK (folder_changed_cb), self, 0);
  return monitor;
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
  self->monitors[0] = watch_folder (self, system_dir);
  self->monitors[1] = watch_folder (self, user_dir);
  rc_rules_reload (self);
  return self;
}

static void
rc_rules_finalize (GObject *object)
{
  RcRules *self = RC_RULES (object);

  g_clear_handle_id (&self->reload_id, g_source_remove);
  for (guint i = 0; i < G_N_ELEMENTS (self->monitors); i++)
    g_clear_object (&self->monitors[i]);
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
