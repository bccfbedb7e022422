/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "rc-manager.h"
#include "rc-cgroup.h"
#include "rc-error.h"
#include "rc-limits.h"
#include "rc-request-queue.h"
#include "rc-unit-name.h"

#include <string.h>
#include <unistd.h>

typedef enum {
  OP_LIMITS,
  OP_RESET,
  OP_FREEZE,
  OP_THAW,
} OpKind;

/* One write request, from arrival to reply: resolved, authorized, then it
 * waits for its turn in the request queue (rc-request-queue.h), the one
 * every writer of unit properties goes through. */
typedef struct {
  RcManager             *manager;
  GDBusMethodInvocation *invocation;
  OpKind                 kind;
  char                  *app;
  RcLimits               limits;
  RcLimits               sent;       /* what systemd was asked for the current app */
  GPtrArray             *apps;       /* RcApp, resolved targets; NULL until resolved */
  GPtrArray             *changed;    /* unit names already changed */
  guint                  next;       /* index of the app being changed */
  guint64                default_tasks_max;
  RcQueued              *queued;
} Request;

struct _RcManager {
  RcDBusResourceControlSkeleton  parent_instance;
  RcRegistry                    *registry;
  RcSystemd                     *systemd;
  RcAuthority                   *authority;
  RcRules                       *rules;
  RcPolicy                      *policy;
  RcRequestQueue                *queue;
  GCancellable                  *cancellable;
  GPtrArray                     *early_calls; /* EarlyCall: held until the first listing is read */
};

static void rc_manager_iface_init (RcDBusResourceControlIface *iface);
static GDBusInterfaceVTable *rc_manager_get_vtable (GDBusInterfaceSkeleton *skeleton);

G_DEFINE_TYPE_WITH_CODE (RcManager, rc_manager, RC_DBUS_TYPE_RESOURCE_CONTROL_SKELETON,
                         G_IMPLEMENT_INTERFACE (RC_DBUS_TYPE_RESOURCE_CONTROL,
                                                rc_manager_iface_init));

static void apply_next (Request *request);

static GVariant *
apps_to_variant (GPtrArray *apps)
{
  g_auto(GVariantBuilder) builder = G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE ("aa{sv}"));

  for (guint i = 0; i < apps->len; i++)
    g_variant_builder_add_value (&builder, rc_app_to_variant (g_ptr_array_index (apps, i)));
  return g_variant_builder_end (&builder);
}

static gboolean
handle_list_apps (RcDBusResourceControl *object,
                  GDBusMethodInvocation *invocation)
{
  RcManager *self = RC_MANAGER (object);
  g_autoptr(GPtrArray) apps = rc_registry_get_apps (self->registry);

  rc_dbus_resource_control_complete_list_apps (object, invocation, apps_to_variant (apps));
  return G_DBUS_METHOD_INVOCATION_HANDLED;
}

static void
get_app_cb (GObject      *source,
            GAsyncResult *result,
            gpointer      user_data)
{
  g_autoptr(GDBusMethodInvocation) invocation = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) apps = NULL;

  apps = rc_registry_resolve_finish (RC_REGISTRY (source), result, &error);
  if (apps == NULL)
    g_dbus_method_invocation_return_gerror (invocation, error);
  else
    g_dbus_method_invocation_return_value (invocation,
                                           g_variant_new ("(@aa{sv})", apps_to_variant (apps)));
}

static gboolean
handle_get_app (RcDBusResourceControl *object,
                GDBusMethodInvocation *invocation,
                const char            *app)
{
  RcManager *self = RC_MANAGER (object);

  rc_registry_resolve_async (self->registry, app, FALSE, self->cancellable, get_app_cb,
                             g_object_ref (invocation));
  return G_DBUS_METHOD_INVOCATION_HANDLED;
}

/* ---- write requests ---------------------------------------------------- */

static void
request_free (Request *request)
{
  g_clear_pointer (&request->apps, g_ptr_array_unref);
  g_clear_pointer (&request->changed, g_ptr_array_unref);
  g_clear_object (&request->invocation);
  g_clear_object (&request->manager);
  g_free (request->app);
  g_free (request);
}

static void
request_finish (Request *request,
                GError  *error)
{
  g_autoptr(RcRequestQueue) queue = g_object_ref (request->manager->queue);
  RcQueued *queued = request->queued;

  if (error != NULL)
    g_dbus_method_invocation_return_gerror (request->invocation, error);
  else
    g_dbus_method_invocation_return_value (request->invocation, NULL);
  request_free (request);
  rc_request_queue_done (queue, queued);
}

/* The error for a failure part-way through an AppID's instances names
 * what was changed already: there is no rollback. */
static void
request_fail_on_app (Request *request,
                     GError  *error)
{
  g_autoptr(GError) full = NULL;
  g_autofree char *changed = NULL;
  RcApp *app = g_ptr_array_index (request->apps, request->next);

  if (request->changed->len == 0)
    {
      request_finish (request, error);
      return;
    }
  g_ptr_array_add (request->changed, NULL);
  changed = g_strjoinv (", ", (char **) request->changed->pdata);
  full = g_error_new (error->domain, error->code, "Changed %s; failed on %s: %s",
                      changed, app->unit, error->message);
  request_finish (request, full);
}

static gboolean
check_still_running (Request *request,
                     GError **error)
{
  for (guint i = 0; i < request->apps->len; i++)
    {
      RcApp *app = g_ptr_array_index (request->apps, i);

      if (rc_registry_lookup_unit (request->manager->registry, app->unit) != app)
        {
          g_set_error (error, RC_ERROR, RC_ERROR_NO_SUCH_APP,
                       "App unit %s stopped before it could be changed", app->unit);
          return FALSE;
        }
    }
  return TRUE;
}

static void
request_limits_for_app (Request  *request,
                        RcApp    *app,
                        RcLimits *out_limits)
{
  *out_limits = request->limits;
  /* Resetting must not fail where io is not delegated: there is nothing
   * to reset. */
  if (request->kind == OP_RESET && !rc_cgroup_is_delegated (app->control_group, "io"))
    out_limits->set &= ~(1u << RC_LIMIT_IO_WEIGHT);
}

/* Its turn in the queue has come. */
static void
request_start (RcQueued *queued,
               gpointer  user_data)
{
  Request *request = user_data;
  GError *error = NULL;

  /* the manager went away while the request waited */
  if (g_cancellable_set_error_if_cancelled (request->manager->cancellable, &error))
    {
      request_finish (request, error);
      g_error_free (error);
      return;
    }
  if (!check_still_running (request, &error))
    {
      request_finish (request, error);
      g_error_free (error);
      return;
    }

  /* Every instance is validated before anything changes. */
  if (request->kind == OP_LIMITS || request->kind == OP_RESET)
    for (guint i = 0; i < request->apps->len; i++)
      {
        RcApp *app = g_ptr_array_index (request->apps, i);
        RcLimits limits;

        request_limits_for_app (request, app, &limits);
        if (!rc_limits_check_app (&limits, app->unit, app->control_group, &error))
          {
            request_finish (request, error);
            g_error_free (error);
            return;
          }
      }
  apply_next (request);
}

static void
apply_cb (GObject      *source,
          GAsyncResult *result,
          gpointer      user_data)
{
  Request *request = user_data;
  RcManager *self = request->manager;
  RcApp *app = g_ptr_array_index (request->apps, request->next);
  g_autoptr(GError) error = NULL;
  gboolean ok;

  if (request->kind == OP_FREEZE || request->kind == OP_THAW)
    ok = rc_systemd_freeze_unit_finish (RC_SYSTEMD (source), result, &error);
  else
    ok = rc_systemd_set_unit_properties_finish (RC_SYSTEMD (source), result, &error);

  if (!ok)
    {
      request_fail_on_app (request, error);
      return;
    }

  /* The registry has the new freezer state already (RcSystemd's
   * "freezer-reached"). */
  if (request->kind == OP_FREEZE || request->kind == OP_THAW)
    rc_policy_note_freezer (self->policy, app);
  else
    rc_dbus_resource_control_emit_app_changed (RC_DBUS_RESOURCE_CONTROL (self), app->unit,
                                               rc_limits_to_app_changes (&request->sent));
  g_ptr_array_add (request->changed, g_strdup (app->unit));
  request->next++;
  apply_next (request);
}

static void
apply_next (Request *request)
{
  RcManager *self = request->manager;
  RcApp *app;

  if (request->next >= request->apps->len)
    {
      request_finish (request, NULL);
      return;
    }
  app = g_ptr_array_index (request->apps, request->next);
  g_debug ("%s: %s", g_dbus_method_invocation_get_method_name (request->invocation), app->unit);
  switch (request->kind)
    {
    case OP_FREEZE:
    case OP_THAW:
      rc_systemd_freeze_unit_async (self->systemd, app->unit, request->kind == OP_FREEZE,
                                    self->cancellable, apply_cb, request);
      break;
    case OP_LIMITS:
    case OP_RESET:
      request_limits_for_app (request, app, &request->sent);
      /* A boosted limit keeps the boost's value until the app loses it. */
      rc_policy_take_request (self->policy, app, &request->sent);
      rc_systemd_set_unit_properties_async (self->systemd, app->unit,
                                            rc_limits_to_unit_properties (&request->sent),
                                            self->cancellable, apply_cb, request);
      break;
    default:
      g_assert_not_reached ();
    }
}

/* Freezing your own shell or polkit agent, or the daemon itself, would
 * lock you out. */
static gboolean
check_not_own_unit (Request *request,
                    guint32  caller_pid,
                    GError **error)
{
  const guint32 pids[] = { caller_pid, (guint32) getpid () };

  for (guint p = 0; p < G_N_ELEMENTS (pids); p++)
    {
      g_autofree char *cgroup = rc_cgroup_of_pid (pids[p]);

      for (guint i = 0; cgroup != NULL && i < request->apps->len; i++)
        {
          RcApp *app = g_ptr_array_index (request->apps, i);

          if (rc_cgroup_path_contains (app->control_group, cgroup))
            {
              g_set_error (error, RC_ERROR, RC_ERROR_PROTECTED,
                           "%s contains %s: an app cannot be controlled through it by a "
                           "process inside it", app->unit,
                           p == 0 ? "the calling process" : "resource-controld itself");
              return FALSE;
            }
        }
    }
  return TRUE;
}

static void
default_tasks_max_cb (GObject      *source,
                      GAsyncResult *result,
                      gpointer      user_data)
{
  Request *request = user_data;
  g_autoptr(GError) error = NULL;
  guint64 tasks_max;

  if (!rc_systemd_get_default_tasks_max_finish (RC_SYSTEMD (source), result, &tasks_max, &error))
    {
      request_finish (request, error);
      return;
    }
  rc_limits_init_reset (&request->limits, tasks_max);
  rc_request_queue_ready (request->manager->queue, request->queued);
}

static void
authorized_cb (GObject      *source,
               GAsyncResult *result,
               gpointer      user_data)
{
  Request *request = user_data;
  g_autoptr(GError) error = NULL;
  guint32 caller_pid = 0;

  if (!rc_authority_check_finish (RC_AUTHORITY (source), result, &caller_pid, &error) ||
      !check_not_own_unit (request, caller_pid, &error))
    {
      request_finish (request, error);
      return;
    }
  if (request->kind == OP_RESET)
    {
      /* TasksMax goes back to the manager's default, whatever it is now. */
      rc_systemd_get_default_tasks_max_async (request->manager->systemd,
                                              request->manager->cancellable,
                                              default_tasks_max_cb, request);
      return;
    }
  rc_request_queue_ready (request->manager->queue, request->queued);
}

static void
resolved_cb (GObject      *source,
             GAsyncResult *result,
             gpointer      user_data)
{
  Request *request = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) units = NULL;

  request->apps = rc_registry_resolve_finish (RC_REGISTRY (source), result, &error);
  if (request->apps == NULL)
    {
      request_finish (request, error);
      return;
    }
  units = g_ptr_array_sized_new (request->apps->len);
  for (guint i = 0; i < request->apps->len; i++)
    g_ptr_array_add (units, ((RcApp *) g_ptr_array_index (request->apps, i))->unit);
  rc_request_queue_set_units (request->manager->queue, request->queued,
                              (const char * const *) units->pdata, units->len);
  rc_authority_check_async (request->manager->authority, request->invocation,
                            request->manager->cancellable, authorized_cb, request);
}

/* Takes the request once its arguments passed the syntax checks: resolve
 * the app (NoSuchApp, Protected), authorize, then wait for its turn. */
static void
request_submit (RcManager             *self,
                GDBusMethodInvocation *invocation,
                OpKind                 kind,
                const char            *app,
                const RcLimits        *limits)
{
  Request *request = g_new0 (Request, 1);
  const char *sender;

  request->manager = g_object_ref (self);
  request->invocation = g_object_ref (invocation);
  request->kind = kind;
  request->app = g_strdup (app);
  request->changed = g_ptr_array_new_with_free_func (g_free);
  if (limits != NULL)
    request->limits = *limits;
  sender = g_dbus_method_invocation_get_sender (invocation);
  request->queued = rc_request_queue_push (self->queue, sender != NULL ? sender : "",
                                           request_start, request);

  rc_registry_resolve_async (self->registry, app, TRUE, self->cancellable, resolved_cb, request);
}

static gboolean
reject (GDBusMethodInvocation *invocation,
        GError                *error)
{
  g_dbus_method_invocation_return_gerror (invocation, error);
  g_error_free (error);
  return G_DBUS_METHOD_INVOCATION_HANDLED;
}

static gboolean
submit_limits (RcManager             *self,
               GDBusMethodInvocation *invocation,
               const char            *app,
               const RcLimits        *limits)
{
  GError *error = NULL;

  if (!rc_unit_name_check_app_argument (app, &error) ||
      !rc_limits_validate (limits, g_get_num_processors (), &error))
    return reject (invocation, error);
  request_submit (self, invocation, OP_LIMITS, app, limits);
  return G_DBUS_METHOD_INVOCATION_HANDLED;
}

static gboolean
handle_set_weight (RcDBusResourceControl *object,
                   GDBusMethodInvocation *invocation,
                   const char            *app,
                   guint64                weight)
{
  RcLimits limits = { 0, };

  rc_limits_set (&limits, RC_LIMIT_CPU_WEIGHT, weight);
  return submit_limits (RC_MANAGER (object), invocation, app, &limits);
}

static gboolean
handle_set_memory_limit (RcDBusResourceControl *object,
                         GDBusMethodInvocation *invocation,
                         const char            *app,
                         guint64                bytes)
{
  RcLimits limits;

  rc_limits_init_memory_limit (&limits, bytes);
  return submit_limits (RC_MANAGER (object), invocation, app, &limits);
}

static gboolean
handle_set_limits (RcDBusResourceControl *object,
                   GDBusMethodInvocation *invocation,
                   const char            *app,
                   GVariant              *limits_variant,
                   GVariant              *options)
{
  RcManager *self = RC_MANAGER (object);
  GError *error = NULL;
  RcLimits limits;

  if (!rc_unit_name_check_app_argument (app, &error) ||
      !rc_limits_parse (limits_variant, options, g_get_num_processors (), &limits, &error))
    return reject (invocation, error);
  request_submit (self, invocation, OP_LIMITS, app, &limits);
  return G_DBUS_METHOD_INVOCATION_HANDLED;
}

static gboolean
submit_simple (RcManager             *self,
               GDBusMethodInvocation *invocation,
               OpKind                 kind,
               const char            *app)
{
  GError *error = NULL;

  if (!rc_unit_name_check_app_argument (app, &error))
    return reject (invocation, error);
  if ((kind == OP_FREEZE || kind == OP_THAW) &&
      !rc_dbus_resource_control_get_freeze_supported (RC_DBUS_RESOURCE_CONTROL (self)))
    return reject (invocation,
                   g_error_new (RC_ERROR, RC_ERROR_NOT_SUPPORTED,
                                "Freezing is not supported on this host: systemd can freeze "
                                "apps only on the unified cgroup hierarchy (cgroup v2)"));
  request_submit (self, invocation, kind, app, NULL);
  return G_DBUS_METHOD_INVOCATION_HANDLED;
}

static gboolean
handle_reset_limits (RcDBusResourceControl *object,
                     GDBusMethodInvocation *invocation,
                     const char            *app)
{
  return submit_simple (RC_MANAGER (object), invocation, OP_RESET, app);
}

static gboolean
handle_freeze (RcDBusResourceControl *object,
               GDBusMethodInvocation *invocation,
               const char            *app)
{
  return submit_simple (RC_MANAGER (object), invocation, OP_FREEZE, app);
}

static gboolean
handle_thaw (RcDBusResourceControl *object,
             GDBusMethodInvocation *invocation,
             const char            *app)
{
  return submit_simple (RC_MANAGER (object), invocation, OP_THAW, app);
}

/* ---- rules and the foreground ------------------------------------------ */

/* Rules and the foreground are not per-unit changes of the request queue:
 * a call is authorized and then carried out. */
typedef void (*AuthorizedFunc) (RcManager             *self,
                                GDBusMethodInvocation *invocation,
                                gpointer               data);

typedef struct {
  RcManager             *manager;
  GDBusMethodInvocation *invocation;
  AuthorizedFunc         func;
  gpointer               data;
  GDestroyNotify         data_free;
} Pending;

static void
pending_authorized_cb (GObject      *source,
                       GAsyncResult *result,
                       gpointer      user_data)
{
  Pending *pending = user_data;
  g_autoptr(GError) error = NULL;

  if (rc_authority_check_finish (RC_AUTHORITY (source), result, NULL, &error))
    pending->func (pending->manager, pending->invocation, pending->data);
  else
    g_dbus_method_invocation_return_gerror (pending->invocation, error);
  if (pending->data_free != NULL)
    pending->data_free (pending->data);
  g_object_unref (pending->invocation);
  g_object_unref (pending->manager);
  g_free (pending);
}

static void
authorize_then (RcManager             *self,
                GDBusMethodInvocation *invocation,
                AuthorizedFunc         func,
                gpointer               data,
                GDestroyNotify         data_free)
{
  Pending *pending = g_new0 (Pending, 1);

  pending->manager = g_object_ref (self);
  pending->invocation = g_object_ref (invocation);
  pending->func = func;
  pending->data = data;
  pending->data_free = data_free;
  rc_authority_check_async (self->authority, invocation, self->cancellable,
                            pending_authorized_cb, pending);
}

static void
return_edit_result (GObject      *source,
                    GAsyncResult *result,
                    gpointer      user_data)
{
  g_autoptr(GDBusMethodInvocation) invocation = user_data;
  g_autoptr(GError) error = NULL;

  if (rc_rules_edit_finish (RC_RULES (source), result, &error))
    g_dbus_method_invocation_return_value (invocation, NULL);
  else
    g_dbus_method_invocation_return_gerror (invocation, error);
}

static gboolean
handle_list_rules (RcDBusResourceControl *object,
                   GDBusMethodInvocation *invocation)
{
  RcManager *self = RC_MANAGER (object);

  rc_dbus_resource_control_complete_list_rules (object, invocation,
                                                rc_rules_to_variant (self->rules));
  return G_DBUS_METHOD_INVOCATION_HANDLED;
}

typedef struct {
  char   *app_id;
  RcRule  rule;
} RuleEdit;

static void
rule_edit_free (RuleEdit *edit)
{
  g_free (edit->app_id);
  g_free (edit);
}

/* A rule reaches the running instances at once: none may lose memory it
 * uses now (WouldKill). */
static gboolean
check_rule_for_running (RcManager *self,
                        RuleEdit  *edit,
                        GError   **error)
{
  g_autoptr(GPtrArray) apps = rc_registry_get_apps (self->registry);
  RcLimits memory = edit->rule.limits;

  memory.set &= RC_LIMITS_MEMORY_CAPS;
  for (guint i = 0; i < apps->len; i++)
    {
      RcApp *app = g_ptr_array_index (apps, i);
      g_autoptr(GError) local = NULL;

      if (!g_str_equal (app->app_id, edit->app_id) ||
          !rc_app_is_controllable_slice (app->slice) ||
          rc_limits_check_app (&memory, app->unit, app->control_group, &local))
        continue;
      g_set_error (error, RC_ERROR, RC_ERROR_WOULD_KILL,
                   "%s; the rule was not saved (stop the app first, or choose a higher limit)",
                   local->message);
      return FALSE;
    }
  return TRUE;
}

static void
set_rule_authorized (RcManager             *self,
                     GDBusMethodInvocation *invocation,
                     gpointer               data)
{
  RuleEdit *edit = data;
  GError *error = NULL;

  if (!check_rule_for_running (self, edit, &error))
    {
      reject (invocation, error);
      return;
    }
  rc_rules_set_async (self->rules, edit->app_id, &edit->rule, self->cancellable,
                      return_edit_result, g_object_ref (invocation));
}

static gboolean
handle_set_rule (RcDBusResourceControl *object,
                 GDBusMethodInvocation *invocation,
                 const char            *app_id,
                 GVariant              *limits)
{
  RcManager *self = RC_MANAGER (object);
  RuleEdit *edit = g_new0 (RuleEdit, 1);
  GError *error = NULL;

  if (!rc_app_id_check (app_id, &error) ||
      !rc_rule_parse_variant (limits, g_get_num_processors (), &edit->rule, &error))
    {
      rule_edit_free (edit);
      return reject (invocation, error);
    }
  edit->app_id = g_strdup (app_id);
  authorize_then (self, invocation, set_rule_authorized, edit, (GDestroyNotify) rule_edit_free);
  return G_DBUS_METHOD_INVOCATION_HANDLED;
}

static void
remove_rule_authorized (RcManager             *self,
                        GDBusMethodInvocation *invocation,
                        gpointer               data)
{
  rc_rules_remove_async (self->rules, data, self->cancellable, return_edit_result,
                         g_object_ref (invocation));
}

static gboolean
handle_remove_rule (RcDBusResourceControl *object,
                    GDBusMethodInvocation *invocation,
                    const char            *app_id)
{
  GError *error = NULL;

  if (!rc_app_id_check (app_id, &error))
    return reject (invocation, error);
  authorize_then (RC_MANAGER (object), invocation, remove_rule_authorized, g_strdup (app_id),
                  g_free);
  return G_DBUS_METHOD_INVOCATION_HANDLED;
}

static void
foreground_authorized (RcManager             *self,
                       GDBusMethodInvocation *invocation,
                       gpointer               data)
{
  rc_policy_set_foreground (self->policy, data);
  g_dbus_method_invocation_return_value (invocation, NULL);
}

/* A call on its way to authorize_then. */
typedef struct {
  RcManager             *manager;
  GDBusMethodInvocation *invocation;
  guint32                pid;
} Call;

static gboolean
process_exists (guint32 pid)
{
  g_autofree char *proc = g_strdup_printf ("/proc/%u", pid);

  return g_file_test (proc, G_FILE_TEST_IS_DIR);
}

static Call *
call_new (RcManager             *self,
          GDBusMethodInvocation *invocation)
{
  Call *call = g_new0 (Call, 1);

  call->manager = g_object_ref (self);
  call->invocation = g_object_ref (invocation);
  return call;
}

static void
call_free (Call *call)
{
  g_object_unref (call->manager);
  g_object_unref (call->invocation);
  g_free (call);
}
G_DEFINE_AUTOPTR_CLEANUP_FUNC (Call, call_free);

static void
foreground_resolved_cb (GObject      *source,
                        GAsyncResult *result,
                        gpointer      user_data)
{
  g_autoptr(Call) call = user_data;
  RcManager *self = call->manager;
  GDBusMethodInvocation *invocation = call->invocation;
  g_autoptr(GError) error = NULL;
  GPtrArray *apps;

  apps = rc_registry_resolve_finish (RC_REGISTRY (source), result, &error);
  if (apps == NULL)
    g_dbus_method_invocation_return_gerror (invocation, error);
  else
    authorize_then (self, invocation, foreground_authorized, apps,
                    (GDestroyNotify) g_ptr_array_unref);
}

static gboolean
handle_set_foreground_app (RcDBusResourceControl *object,
                           GDBusMethodInvocation *invocation,
                           const char            *app)
{
  RcManager *self = RC_MANAGER (object);
  GError *error = NULL;

  if (*app == '\0')
    {
      authorize_then (self, invocation, foreground_authorized, g_ptr_array_new (),
                      (GDestroyNotify) g_ptr_array_unref);
      return G_DBUS_METHOD_INVOCATION_HANDLED;
    }
  if (!rc_unit_name_check_app_argument (app, &error))
    return reject (invocation, error);
  rc_registry_resolve_async (self->registry, app, TRUE, self->cancellable,
                             foreground_resolved_cb, call_new (self, invocation));
  return G_DBUS_METHOD_INVOCATION_HANDLED;
}

static void
unit_by_pid_cb (GObject      *source,
                GAsyncResult *result,
                gpointer      user_data)
{
  g_autoptr(Call) call = user_data;
  RcManager *self = call->manager;
  GDBusMethodInvocation *invocation = call->invocation;
  g_autoptr(GError) error = NULL;
  g_autofree char *path = NULL;
  GPtrArray *apps;
  RcApp *app;

  path = rc_systemd_get_unit_by_pid_finish (RC_SYSTEMD (source), result, &error);
  if (path == NULL && !process_exists (call->pid))
    {
      g_dbus_method_invocation_return_gerror (invocation, error);
      return;
    }
  /* A process outside the apps (the shell, a terminal in the login
   * session's scope, which the user's manager does not even know) leaves
   * no app in the foreground. */
  apps = g_ptr_array_new ();
  app = path != NULL ? rc_registry_lookup_path (self->registry, path) : NULL;
  if (app != NULL && rc_app_is_controllable_slice (app->slice))
    g_ptr_array_add (apps, app);
  authorize_then (self, invocation, foreground_authorized, apps,
                  (GDestroyNotify) g_ptr_array_unref);
}

static gboolean
handle_set_foreground_process (RcDBusResourceControl *object,
                               GDBusMethodInvocation *invocation,
                               guint32                pid)
{
  RcManager *self = RC_MANAGER (object);
  Call *call;

  if (pid == 0)
    return reject (invocation,
                   g_error_new_literal (RC_ERROR, RC_ERROR_INVALID_ARGUMENT,
                                        "Process 0 is not a process: pass the process id "
                                        "of the focused window's app"));
  call = call_new (self, invocation);
  call->pid = pid;
  rc_systemd_get_unit_by_pid_async (self->systemd, pid, self->cancellable, unit_by_pid_cb, call);
  return G_DBUS_METHOD_INVOCATION_HANDLED;
}

static void
limits_applied_cb (RcPolicy  *policy,
                   RcApp     *app,
                   GVariant  *changes,
                   RcManager *self)
{
  rc_dbus_resource_control_emit_app_changed (RC_DBUS_RESOURCE_CONTROL (self), app->unit, changes);
}

/* ---- calls before the first listing ------------------------------------- */

/* The name is owned before the registry has read systemd's units (so that
 * D-Bus activation never times out); a method call that comes before the
 * first full listing waits for it, so nobody sees a partial list or a
 * NoSuchApp for an app that runs. */
typedef struct {
  GDBusConnection       *connection;
  char                  *sender;
  char                  *object_path;
  char                  *interface_name;
  char                  *method_name;
  GVariant              *parameters;
  GDBusMethodInvocation *invocation;
} EarlyCall;

static void
early_call_free (EarlyCall *call)
{
  g_object_unref (call->connection);
  g_free (call->sender);
  g_free (call->object_path);
  g_free (call->interface_name);
  g_free (call->method_name);
  g_variant_unref (call->parameters);
  g_object_unref (call->invocation);
  g_free (call);
}

static const GDBusInterfaceVTable *skeleton_vtable;   /* the generated one */
static GDBusInterfaceVTable manager_vtable;           /* the same, method_call held */

static void
method_call_when_listed (GDBusConnection       *connection,
                         const char            *sender,
                         const char            *object_path,
                         const char            *interface_name,
                         const char            *method_name,
                         GVariant              *parameters,
                         GDBusMethodInvocation *invocation,
                         gpointer               user_data)
{
  RcManager *self = RC_MANAGER (user_data);
  EarlyCall *call;

  if (self->early_calls == NULL)
    {
      skeleton_vtable->method_call (connection, sender, object_path, interface_name,
                                    method_name, parameters, invocation, user_data);
      return;
    }
  g_debug ("%s from %s waits for the first listing", method_name, sender);
  call = g_new0 (EarlyCall, 1);
  call->connection = g_object_ref (connection);
  call->sender = g_strdup (sender);
  call->object_path = g_strdup (object_path);
  call->interface_name = g_strdup (interface_name);
  call->method_name = g_strdup (method_name);
  call->parameters = g_variant_ref (parameters);
  call->invocation = g_object_ref (invocation);
  g_ptr_array_add (self->early_calls, call);
}

static void
registry_ready_cb (RcRegistry *registry,
                   RcManager  *self)
{
  g_autoptr(GPtrArray) calls = g_steal_pointer (&self->early_calls);

  for (guint i = 0; calls != NULL && i < calls->len; i++)
    {
      EarlyCall *call = g_ptr_array_index (calls, i);

      skeleton_vtable->method_call (call->connection, call->sender, call->object_path,
                                    call->interface_name, call->method_name, call->parameters,
                                    call->invocation, self);
    }
}

static GDBusInterfaceVTable *
rc_manager_get_vtable (GDBusInterfaceSkeleton *skeleton)
{
  if (skeleton_vtable == NULL)
    {
      skeleton_vtable =
        G_DBUS_INTERFACE_SKELETON_CLASS (rc_manager_parent_class)->get_vtable (skeleton);
      manager_vtable = *skeleton_vtable;
      manager_vtable.method_call = method_call_when_listed;
    }
  return &manager_vtable;
}

/* ---- registry events --------------------------------------------------- */

static void
app_added_cb (RcRegistry *registry,
              RcApp      *app,
              RcManager  *self)
{
  rc_dbus_resource_control_emit_app_added (RC_DBUS_RESOURCE_CONTROL (self), app->unit,
                                           rc_app_to_variant (app));
}

static void
app_removed_cb (RcRegistry *registry,
                RcApp      *app,
                RcManager  *self)
{
  rc_dbus_resource_control_emit_app_removed (RC_DBUS_RESOURCE_CONTROL (self), app->unit);
}

static void
app_changed_cb (RcRegistry *registry,
                RcApp      *app,
                GVariant   *changed,
                RcManager  *self)
{
  rc_dbus_resource_control_emit_app_changed (RC_DBUS_RESOURCE_CONTROL (self), app->unit, changed);
}

RcManager *
rc_manager_new (RcRegistry     *registry,
                RcSystemd      *systemd,
                RcAuthority    *authority,
                RcRules        *rules,
                RcPolicy       *policy,
                RcRequestQueue *queue)
{
  RcManager *self = g_object_new (RC_TYPE_MANAGER, NULL);

  self->registry = g_object_ref (registry);
  self->systemd = g_object_ref (systemd);
  self->authority = g_object_ref (authority);
  self->rules = g_object_ref (rules);
  self->policy = g_object_ref (policy);
  self->queue = g_object_ref (queue);
  g_signal_connect_object (policy, "limits-applied", G_CALLBACK (limits_applied_cb), self, 0);
  g_signal_connect_object (registry, "app-added", G_CALLBACK (app_added_cb), self, 0);
  g_signal_connect_object (registry, "app-removed", G_CALLBACK (app_removed_cb), self, 0);
  g_signal_connect_object (registry, "app-changed", G_CALLBACK (app_changed_cb), self, 0);
  if (!rc_registry_is_ready (registry))
    {
      self->early_calls = g_ptr_array_new_with_free_func ((GDestroyNotify) early_call_free);
      g_signal_connect_object (registry, "ready", G_CALLBACK (registry_ready_cb), self, 0);
    }

  rc_dbus_resource_control_set_version (RC_DBUS_RESOURCE_CONTROL (self), RC_VERSION);
  rc_dbus_resource_control_set_freeze_supported (RC_DBUS_RESOURCE_CONTROL (self),
                                                 rc_cgroup_freeze_supported ());
  return self;
}

static void
rc_manager_dispose (GObject *object)
{
  RcManager *self = RC_MANAGER (object);

  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->registry);
  g_clear_object (&self->systemd);
  g_clear_object (&self->authority);
  g_clear_object (&self->rules);
  g_clear_object (&self->policy);
  g_clear_object (&self->queue);
  g_clear_pointer (&self->early_calls, g_ptr_array_unref);
  g_clear_object (&self->cancellable);
  G_OBJECT_CLASS (rc_manager_parent_class)->dispose (object);
}

static void
rc_manager_class_init (RcManagerClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = rc_manager_dispose;
  G_DBUS_INTERFACE_SKELETON_CLASS (klass)->get_vtable = rc_manager_get_vtable;
}

static void
rc_manager_iface_init (RcDBusResourceControlIface *iface)
{
  iface->handle_list_apps = handle_list_apps;
  iface->handle_get_app = handle_get_app;
  iface->handle_set_weight = handle_set_weight;
  iface->handle_set_memory_limit = handle_set_memory_limit;
  iface->handle_set_limits = handle_set_limits;
  iface->handle_reset_limits = handle_reset_limits;
  iface->handle_freeze = handle_freeze;
  iface->handle_thaw = handle_thaw;
  iface->handle_list_rules = handle_list_rules;
  iface->handle_set_rule = handle_set_rule;
  iface->handle_remove_rule = handle_remove_rule;
  iface->handle_set_foreground_app = handle_set_foreground_app;
  iface->handle_set_foreground_process = handle_set_foreground_process;
}

static void
rc_manager_init (RcManager *self)
{
  self->cancellable = g_cancellable_new ();
}
