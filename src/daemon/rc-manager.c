/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "rc-manager.h"
#include "rc-list-processes.h"
#include "rc-call-gate.h"
#include "rc-change.h"
#include "rc-cgroup.h"
#include "rc-error.h"
#include "rc-heap.h"
#include "rc-adopt.h"
#include "rc-launch.h"
#include "rc-proc-reader.h"
#include "rc-slices-bus.h"
#include "rc-limits.h"
#include "rc-unit-name.h"

#include <string.h>

struct _RcManager {
  RcDBusResourceControlSkeleton parent_instance;
  RcChangeServices              svc;          /* what change requests use; cleared at finalize */
  RcRules                      *rules;
  RcSlices                     *slices;
  RcPowerWatch                 *power_watch;
  RcCallGate                   *gate;         /* calls wait there for the first listing */
  RcFocusTracker               *focus;
};

static void rc_manager_iface_init (RcDBusResourceControlIface *iface);
static GDBusInterfaceVTable *rc_manager_get_vtable (GDBusInterfaceSkeleton *skeleton);

G_DEFINE_TYPE_WITH_CODE (RcManager, rc_manager, RC_DBUS_TYPE_RESOURCE_CONTROL_SKELETON,
                         G_IMPLEMENT_INTERFACE (RC_DBUS_TYPE_RESOURCE_CONTROL,
                                                rc_manager_iface_init));

static gboolean
handle_list_apps (RcDBusResourceControl *object,
                  GDBusMethodInvocation *invocation)
{
  RcManager *self = RC_MANAGER (object);
  g_autoptr(GPtrArray) apps = rc_registry_get_apps (self->svc.registry);

  rc_dbus_resource_control_complete_list_apps (object, invocation,
                                               rc_app_list_to_variant (apps, RC_APP_RECORD_LISTING));
  rc_heap_trim_after (apps->len);
  return G_DBUS_METHOD_INVOCATION_HANDLED;
}

/* ListApps with what the limits do: top's and the panel's listing. */
static gboolean
handle_list_app_records (RcDBusResourceControl *object,
                         GDBusMethodInvocation *invocation)
{
  RcManager *self = RC_MANAGER (object);
  g_autoptr(GPtrArray) apps = rc_registry_get_apps (self->svc.registry);

  rc_dbus_resource_control_complete_list_app_records (object, invocation,
                                                      rc_app_list_to_variant (apps, RC_APP_RECORD_FULL));
  rc_heap_trim_after (apps->len);
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
                                           g_variant_new ("(@aa{sv})",
                                                          rc_app_list_to_variant (apps, RC_APP_RECORD_FULL)));
}

static gboolean
handle_get_app (RcDBusResourceControl *object,
                GDBusMethodInvocation *invocation,
                const char            *app)
{
  RcManager *self = RC_MANAGER (object);

  rc_registry_resolve_async (self->svc.registry, app, FALSE, self->svc.cancellable, get_app_cb,
                             g_object_ref (invocation));
  return G_DBUS_METHOD_INVOCATION_HANDLED;
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
  rc_change_submit (&self->svc, invocation, RC_CHANGE_LIMITS, app, limits);
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
  rc_change_submit (&self->svc, invocation, RC_CHANGE_LIMITS, app, &limits);
  return G_DBUS_METHOD_INVOCATION_HANDLED;
}

static gboolean
submit_simple (RcManager             *self,
               GDBusMethodInvocation *invocation,
               RcChangeKind           kind,
               const char            *app)
{
  GError *error = NULL;

  if (!rc_unit_name_check_app_argument (app, &error))
    return reject (invocation, error);
  if ((kind == RC_CHANGE_FREEZE || kind == RC_CHANGE_THAW) &&
      !rc_dbus_resource_control_get_freeze_supported (RC_DBUS_RESOURCE_CONTROL (self)))
    return reject (invocation,
                   g_error_new (RC_ERROR, RC_ERROR_NOT_SUPPORTED,
                                "Freezing is not supported on this host: systemd can freeze "
                                "apps only on the unified cgroup hierarchy (cgroup v2)"));
  rc_change_submit (&self->svc, invocation, kind, app, NULL);
  return G_DBUS_METHOD_INVOCATION_HANDLED;
}

static gboolean
handle_reset_limits (RcDBusResourceControl *object,
                     GDBusMethodInvocation *invocation,
                     const char            *app)
{
  return submit_simple (RC_MANAGER (object), invocation, RC_CHANGE_RESET, app);
}

static gboolean
handle_freeze (RcDBusResourceControl *object,
               GDBusMethodInvocation *invocation,
               const char            *app)
{
  return submit_simple (RC_MANAGER (object), invocation, RC_CHANGE_FREEZE, app);
}

static gboolean
handle_thaw (RcDBusResourceControl *object,
             GDBusMethodInvocation *invocation,
             const char            *app)
{
  return submit_simple (RC_MANAGER (object), invocation, RC_CHANGE_THAW, app);
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
  rc_authority_check_async (self->svc.authority, invocation, self->svc.cancellable,
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
  char  *app_id;
  RcRule rule;
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
  g_autoptr(GPtrArray) apps = rc_registry_get_apps (self->svc.registry);
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
  rc_rules_set_async (self->rules, edit->app_id, &edit->rule, self->svc.cancellable,
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
  rc_rules_remove_async (self->rules, data, self->svc.cancellable, return_edit_result,
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
  rc_policy_set_foreground (self->svc.policy, data, "a SetForeground call");
  g_dbus_method_invocation_return_value (invocation, NULL);
}

/* A call on its way to authorize_then. */
typedef struct {
  RcManager             *manager;
  GDBusMethodInvocation *invocation;
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
  rc_registry_resolve_async (self->svc.registry, app, TRUE, self->svc.cancellable,
                             foreground_resolved_cb, call_new (self, invocation));
  return G_DBUS_METHOD_INVOCATION_HANDLED;
}

static gboolean
handle_set_foreground_process (RcDBusResourceControl *object,
                               GDBusMethodInvocation *invocation,
                               guint32                pid)
{
  RcManager *self = RC_MANAGER (object);
  g_autoptr(GError) error = NULL;
  GPtrArray *apps;
  RcApp *app;

  if (pid == 0)
    return reject (invocation,
                   g_error_new_literal (RC_ERROR, RC_ERROR_INVALID_ARGUMENT,
                                        "Process 0 is not a process: pass the process id "
                                        "of the focused window's app"));
  /* the app from the process's cgroup, as GetAppByPid finds it */
  app = rc_registry_find_pid (self->svc.registry, pid, &error);
  if (app == NULL && !process_exists (pid))
    return reject (invocation, g_steal_pointer (&error));
  /* A process outside the apps (the shell, a terminal in the login
   * session's scope, which the user's manager does not even know) leaves
   * no app in the foreground. */
  /* The apps are held across the polkit check: one may stop meanwhile. */
  apps = g_ptr_array_new_with_free_func ((GDestroyNotify) rc_app_unref);
  if (app != NULL && rc_app_is_controllable_slice (app->slice))
    g_ptr_array_add (apps, rc_app_ref (app));
  authorize_then (self, invocation, foreground_authorized, apps, (GDestroyNotify) g_ptr_array_unref);
  return G_DBUS_METHOD_INVOCATION_HANDLED;
}

static void
window_process_authorized (RcManager             *self,
                           GDBusMethodInvocation *invocation,
                           gpointer               data)
{
  if (self->focus != NULL)
    rc_focus_tracker_report_kwin (self->focus, GPOINTER_TO_UINT (data));
  g_dbus_method_invocation_return_value (invocation, NULL);
}

static gboolean
handle_set_foreground_window_process (RcDBusResourceControl *object,
                                      GDBusMethodInvocation *invocation,
                                      gint32                 pid)
{
  RcManager *self = RC_MANAGER (object);

  if (pid <= 0)
    return reject (invocation,
                   g_error_new (RC_ERROR, RC_ERROR_INVALID_ARGUMENT,
                                "Process %d is not a process: pass the process id of the "
                                "focused window (1 or more)", pid));
  /* KWin's script speaks from KWin's own connection: the compositor telling
   * its focus, as sway's socket does, needs no polkit check. */
  if (self->focus != NULL &&
      rc_focus_tracker_is_compositor (self->focus, g_dbus_method_invocation_get_sender (invocation)))
    {
      window_process_authorized (self, invocation, GUINT_TO_POINTER (pid));
      return G_DBUS_METHOD_INVOCATION_HANDLED;
    }
  authorize_then (self, invocation, window_process_authorized, GUINT_TO_POINTER (pid), NULL);
  return G_DBUS_METHOD_INVOCATION_HANDLED;
}

void
rc_manager_set_focus (RcManager      *self,
                      RcFocusTracker *focus)
{
  g_set_object (&self->focus, focus);
  g_object_bind_property (focus, "source", self, "focus-source", G_BINDING_SYNC_CREATE);
}

/* ---- processes ---------------------------------------------------------- */

static GVariant *
one_app (RcApp *app)
{
  g_auto(GVariantBuilder) builder = G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE ("aa{sv}"));

  g_variant_builder_add_value (&builder, rc_app_to_variant (app));
  return g_variant_builder_end (&builder);
}

/* No systemd round trip: the process's cgroup names its unit. */
static gboolean
handle_get_app_by_pid (RcDBusResourceControl *object,
                       GDBusMethodInvocation *invocation,
                       guint32                pid)
{
  RcManager *self = RC_MANAGER (object);
  GError *error = NULL;
  RcApp *app;

  if (pid == 0)
    return reject (invocation,
                   g_error_new_literal (RC_ERROR, RC_ERROR_INVALID_ARGUMENT,
                                        "Process 0 is not a process: pass a process id"));
  app = rc_registry_find_pid (self->svc.registry, pid, &error);
  if (app == NULL)
    return reject (invocation, error);
  rc_dbus_resource_control_complete_get_app_by_pid (object, invocation, one_app (app));
  return G_DBUS_METHOD_INVOCATION_HANDLED;
}

static void
processes_listed_cb (GObject      *source,
                     GAsyncResult *result,
                     gpointer      user_data)
{
  g_autoptr(GDBusMethodInvocation) invocation = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) procs = rc_list_processes_finish (result, &error);

  if (procs == NULL)
    g_dbus_method_invocation_return_gerror (invocation, error);
  else
    g_dbus_method_invocation_return_value (invocation, g_variant_new ("(@a(ussttt))", procs));
}

static void
list_processes_cb (GObject      *source,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  g_autoptr(GDBusMethodInvocation) invocation = user_data;
  RcManager *self = RC_MANAGER (g_dbus_method_invocation_get_user_data (invocation));
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) apps = NULL;
  g_autoptr(GPtrArray) groups = g_ptr_array_new ();

  apps = rc_registry_resolve_finish (RC_REGISTRY (source), result, &error);
  if (apps == NULL)
    {
      g_dbus_method_invocation_return_gerror (invocation, error);
      return;
    }
  for (guint i = 0; i < apps->len; i++)
    if (((RcApp *) g_ptr_array_index (apps, i))->control_group != NULL)
      g_ptr_array_add (groups, ((RcApp *) g_ptr_array_index (apps, i))->control_group);
  g_ptr_array_add (groups, NULL);
  rc_list_processes_async ((const char * const *) groups->pdata, RC_LIST_PROCESSES_MAX,
                           self->svc.cancellable,
                           processes_listed_cb, g_steal_pointer (&invocation));
}

static gboolean
handle_list_processes (RcDBusResourceControl *object,
                       GDBusMethodInvocation *invocation,
                       const char            *app)
{
  RcManager *self = RC_MANAGER (object);

  rc_registry_resolve_async (self->svc.registry, app, FALSE, self->svc.cancellable,
                             list_processes_cb, g_object_ref (invocation));
  return G_DBUS_METHOD_INVOCATION_HANDLED;
}

static gboolean
handle_launch (RcDBusResourceControl *object,
               GDBusMethodInvocation *invocation,
               const char            *app_id,
               const char * const    *uris,
               GVariant              *options)
{
  rc_launch_submit (&RC_MANAGER (object)->svc, invocation, app_id, uris, options);
  return G_DBUS_METHOD_INVOCATION_HANDLED;
}

static gboolean
handle_adopt (RcDBusResourceControl *object,
              GDBusMethodInvocation *invocation,
              GVariant              *pids,
              GVariant              *options)
{
  rc_adopt_submit (&RC_MANAGER (object)->svc, invocation, pids, options);
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

/* ---- calls before the first listing ------------------------------------ */

static const GDBusInterfaceVTable *skeleton_vtable;   /* the generated one */
static GDBusInterfaceVTable manager_vtable;           /* the same, through the gate */

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

  rc_call_gate_call (self->gate, skeleton_vtable->method_call, connection, sender, object_path,
                     interface_name, method_name, parameters, invocation, user_data);
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
  /* The apps of the first listing are not news: ListApps waits for them. */
  if (!rc_registry_is_ready (registry))
    return;
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

static void
power_changed_cb (RcPowerWatch *watch,
                  RcManager    *self)
{
  RcDBusResourceControl *object = RC_DBUS_RESOURCE_CONTROL (self);

  rc_dbus_resource_control_set_power_profile (object, rc_power_watch_get_profile (watch));
  rc_dbus_resource_control_set_on_battery (object, rc_power_watch_get_on_battery (watch));
}

RcManager *
rc_manager_new (RcRegistry     *registry,
                RcSystemd      *systemd,
                RcAuthority    *authority,
                RcRules        *rules,
                RcPolicy       *policy,
                RcRequestQueue *queue,
                RcSlices       *slices,
                RcPowerWatch   *power_watch)
{
  RcManager *self = g_object_new (RC_TYPE_MANAGER, NULL);

  self->svc.owner = G_OBJECT (self);
  self->svc.registry = g_object_ref (registry);
  self->svc.systemd = g_object_ref (systemd);
  self->svc.authority = g_object_ref (authority);
  self->rules = g_object_ref (rules);
  self->svc.policy = g_object_ref (policy);
  self->svc.queue = g_object_ref (queue);
  self->slices = g_object_ref (slices);
  self->power_watch = g_object_ref (power_watch);
  g_signal_connect_object (power_watch, "changed", G_CALLBACK (power_changed_cb), self, 0);
  power_changed_cb (power_watch, self);
  g_signal_connect_object (policy, "limits-applied", G_CALLBACK (limits_applied_cb), self, 0);
  g_signal_connect_object (registry, "app-added", G_CALLBACK (app_added_cb), self, 0);
  g_signal_connect_object (registry, "app-removed", G_CALLBACK (app_removed_cb), self, 0);
  g_signal_connect_object (registry, "app-changed", G_CALLBACK (app_changed_cb), self, 0);
  self->gate = rc_call_gate_new (registry);
  rc_policy_serve (policy, RC_DBUS_RESOURCE_CONTROL (self), authority);
  rc_slices_serve (slices, RC_DBUS_RESOURCE_CONTROL (self), authority, self->svc.cancellable);

  rc_dbus_resource_control_set_version (RC_DBUS_RESOURCE_CONTROL (self), RC_VERSION);
  rc_dbus_resource_control_set_freeze_supported (RC_DBUS_RESOURCE_CONTROL (self),
                                                 rc_cgroup_freeze_supported ());
  rc_dbus_resource_control_set_focus_source (RC_DBUS_RESOURCE_CONTROL (self), "none");
  return self;
}

static void
rc_manager_dispose (GObject *object)
{
  RcManager *self = RC_MANAGER (object);

  /* Requests on their way end as cancelled; they hold the manager, so the
   * services stay until finalize. */
  g_cancellable_cancel (self->svc.cancellable);
  g_clear_object (&self->rules);
  g_clear_object (&self->slices);
  g_clear_object (&self->power_watch);
  if (self->gate != NULL)
    g_object_run_dispose (G_OBJECT (self->gate));
  g_clear_object (&self->focus);
  rc_heap_trim_cancel ();
  G_OBJECT_CLASS (rc_manager_parent_class)->dispose (object);
}

static void
rc_manager_finalize (GObject *object)
{
  RcManager *self = RC_MANAGER (object);

  g_clear_object (&self->svc.registry);
  g_clear_object (&self->svc.systemd);
  g_clear_object (&self->svc.authority);
  g_clear_object (&self->svc.policy);
  g_clear_object (&self->svc.queue);
  g_clear_object (&self->svc.cancellable);
  g_clear_object (&self->gate);
  G_OBJECT_CLASS (rc_manager_parent_class)->finalize (object);
}

static void
rc_manager_class_init (RcManagerClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = rc_manager_dispose;
  G_OBJECT_CLASS (klass)->finalize = rc_manager_finalize;
  G_DBUS_INTERFACE_SKELETON_CLASS (klass)->get_vtable = rc_manager_get_vtable;
}

static void
rc_manager_iface_init (RcDBusResourceControlIface *iface)
{
  iface->handle_list_apps = handle_list_apps;
  iface->handle_list_app_records = handle_list_app_records;
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
  iface->handle_set_foreground_window_process = handle_set_foreground_window_process;
  iface->handle_launch = handle_launch;
  iface->handle_adopt = handle_adopt;
  iface->handle_get_app_by_pid = handle_get_app_by_pid;
  iface->handle_list_processes = handle_list_processes;
}

static void
rc_manager_init (RcManager *self)
{
  self->svc.cancellable = g_cancellable_new ();
}
