/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "rc-adopt.h"
#include "rc-error.h"
#include "rc-launch-read.h"
#include "rc-proc-reader.h"
#include "rc-start-request.h"
#include "rc-unit-name.h"

#include <string.h>
#include <systemd/sd-login.h>
#include <unistd.h>

/* Rounds of moving the rest of an adopted tree, level by level. */
#define ADOPT_SWEEPS 16

/* One Adopt call, from arrival to reply. */
typedef struct {
  RcStartRequest base;
  GArray        *roots;          /* the pids named */
  GArray        *root_starts;    /* their start times (a pid reused is not them) */
  GPtrArray     *comms;          /* their comm, for messages */
  guint          checked;        /* roots checked for being a service's MainPID */
  GPtrArray     *source_cgroups; /* where they were */
  guint          sweeps;
} RcAdoptRequest;

static void
adopt_request_clear (RcStartRequest *base)
{
  RcAdoptRequest *request = (RcAdoptRequest *) base;

  g_clear_pointer (&request->roots, g_array_unref);
  g_clear_pointer (&request->root_starts, g_array_unref);
  g_clear_pointer (&request->comms, g_ptr_array_unref);
  g_clear_pointer (&request->source_cgroups, g_ptr_array_unref);
}

/* ---- after the start ---------------------------------------------------- */

static void sweep (RcAdoptRequest *request);

static void
swept_cb (GObject      *source,
          GAsyncResult *result,
          gpointer      user_data)
{
  RcAdoptRequest *request = user_data;
  g_autoptr(GError) error = NULL;

  /* A process that ended between the scan and the move fails the whole
   * call: the next round scans again. */
  if (!rc_systemd_attach_processes_finish (RC_SYSTEMD (source), result, &error))
    g_debug ("%s: moving the rest of the tree: %s", request->base.unit, error->message);
  sweep (request);
}

static gboolean
in_array (GArray *pids,
          guint32 pid)
{
  for (guint i = 0; i < pids->len; i++)
    if (g_array_index (pids, guint32, i) == pid)
      return TRUE;
  return FALSE;
}

static gboolean
is_source_cgroup (RcAdoptRequest *request,
                  const char     *cgroup)
{
  for (guint i = 0; i < request->source_cgroups->len; i++)
    if (g_str_equal (g_ptr_array_index (request->source_cgroups, i), cgroup))
      return TRUE;
  return FALSE;
}

/* The scope starts with the named processes; the processes below them
 * follow, a level each round: children still in a source cgroup whose
 * parent is in the scope now. That takes along what forked while the tree
 * moved, and never names a process that may be gone to systemd at start. */
static void
sweep (RcAdoptRequest *request)
{
  RcStartRequest *base = &request->base;
  g_autoptr(GPtrArray) all = rc_proc_list ();
  g_autoptr(GArray) left = g_array_new (FALSE, FALSE, sizeof (guint32));
  g_autofree char *suffix = g_strconcat ("/", base->unit, NULL);
  g_autoptr(GArray) inside = g_array_new (FALSE, FALSE, sizeof (guint32));

  for (guint i = 0; i < all->len; i++)
    {
      RcProc *proc = g_ptr_array_index (all, i);

      if (g_str_has_suffix (proc->cgroup, suffix))
        g_array_append_val (inside, proc->pid);
    }
  for (guint i = 0; i < all->len; i++)
    {
      RcProc *proc = g_ptr_array_index (all, i);

      if (in_array (inside, proc->ppid) && is_source_cgroup (request, proc->cgroup))
        g_array_append_val (left, proc->pid);
    }
  if (left->len == 0 || request->sweeps >= ADOPT_SWEEPS)
    {
      if (left->len > 0)
        g_message ("%s: %u processes below the adopted ones stayed where they were",
                   base->unit, left->len);
      rc_start_request_reply_when_listed (base);
      return;
    }
  request->sweeps++;
  g_debug ("%s: moving %u processes below the adopted ones", base->unit, left->len);
  rc_systemd_attach_processes_async (base->svc->systemd, base->unit,
                                     g_variant_new_fixed_array (G_VARIANT_TYPE_UINT32,
                                                                left->data, left->len,
                                                                sizeof (guint32)),
                                     base->svc->cancellable, swept_cb, request);
}

/* Is process @pid the one that was checked, by its start time? */
static gboolean
same_process (const RcProc   *proc,
              RcAdoptRequest *request,
              guint           i)
{
  return proc->start_time == g_array_index (request->root_starts, guint64, i);
}

/* systemd 252 takes scopes' processes by pid only (PIDFDs came later): if a
 * named process ended and its pid went to another process between the last
 * check and the move, that other process is in the scope now. It is said,
 * not hidden; the scope is left alone (stopping it would kill that process). */
static gboolean
check_roots_moved (RcAdoptRequest *request,
                   GError        **error)
{
  g_autofree char *suffix = g_strconcat ("/", request->base.unit, NULL);

  for (guint i = 0; i < request->roots->len; i++)
    {
      guint32 pid = g_array_index (request->roots, guint32, i);
      g_autoptr(RcProc) proc = rc_proc_read (pid);

      if (proc != NULL && !same_process (proc, request, i) &&
          g_str_has_suffix (proc->cgroup, suffix))
        {
          g_set_error (error, RC_ERROR, RC_ERROR_FAILED,
                       "Process %u ended while it was adopted, and systemd moved another "
                       "process that got its pid (%s) into %s: stop that scope if it is "
                       "not the app", pid, proc->comm, request->base.unit);
          return FALSE;
        }
    }
  return TRUE;
}

static void
started_cb (GObject      *source,
            GAsyncResult *result,
            gpointer      user_data)
{
  RcAdoptRequest *request = user_data;
  g_autoptr(GError) error = NULL;

  if (!rc_systemd_start_transient_unit_finish (RC_SYSTEMD (source), result, &error) ||
      !check_roots_moved (request, &error))
    {
      rc_start_request_fail (&request->base, g_steal_pointer (&error));
      return;
    }
  sweep (request);
}

/* ---- starting ----------------------------------------------------------- */

static GVariant *
unit_properties (RcAdoptRequest *request,
                 const RcLimits *limits)
{
  g_auto(GVariantBuilder) props = G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE ("a(sv)"));

  rc_start_request_begin_properties (&request->base, &props,
                                     g_variant_new_fixed_array (G_VARIANT_TYPE_UINT32,
                                                                request->roots->data,
                                                                request->roots->len,
                                                                sizeof (guint32)));
  /* systemd moves processes into a running unit only if it is delegated
   * ("Process migration not available on non-delegated units"), and an
   * adopted tree follows its first processes into the scope that way. */
  g_variant_builder_add (&props, "(sv)", "Delegate", g_variant_new_boolean (TRUE));
  return rc_start_request_end_properties (&props, limits);
}

static void
start (RcAdoptRequest *request)
{
  RcStartRequest *base = &request->base;
  RcLimits limits;

  if (!rc_start_request_prepare (base, &limits))
    return;
  g_debug ("Starting %s for %s", base->unit, base->app_id);
  rc_systemd_start_transient_unit_async (base->svc->systemd, base->unit,
                                         unit_properties (request, &limits), NULL,
                                         base->svc->cancellable, started_cb, request);
}

/* ---- before the start --------------------------------------------------- */

static gboolean
is_session_unit (const char *unit)
{
  g_autofree char *own = NULL;

  if (g_str_equal (unit, "init.scope") || g_str_equal (unit, "dbus.service") ||
      g_str_equal (unit, "dbus-broker.service"))
    return TRUE;
  return sd_pid_get_user_unit (getpid (), &own) >= 0 && g_str_equal (unit, own);
}

/* May @proc be moved into a new scope? */
static gboolean
check_adoptable (const RcProc *proc,
                 GError      **error)
{
  g_autofree char *unit = NULL;
  g_autoptr(RcUnitName) parsed = NULL;

  if (proc->pid == 1 || proc->kernel_thread)
    {
      g_set_error (error, RC_ERROR, RC_ERROR_PROTECTED,
                   "Process %u (%s) is %s: only processes of apps can be adopted", proc->pid,
                   proc->comm, proc->pid == 1 ? "the init system" : "a kernel thread");
      return FALSE;
    }
  if (proc->uid != getuid ())
    {
      g_set_error (error, RC_ERROR, RC_ERROR_PROTECTED,
                   "Process %u (%s) belongs to user %u: only your own processes (user %u) "
                   "can be adopted", proc->pid, proc->comm, proc->uid, getuid ());
      return FALSE;
    }
  if (proc->pid == (guint32) getpid ())
    {
      g_set_error (error, RC_ERROR, RC_ERROR_PROTECTED,
                   "Process %u is resource-controld itself", proc->pid);
      return FALSE;
    }
  if (sd_pid_get_user_unit (proc->pid, &unit) < 0)
    return TRUE;   /* outside the user's manager: a login session, for one */
  parsed = rc_unit_name_parse (unit);
  if (parsed != NULL)
    {
      g_set_error (error, RC_ERROR, RC_ERROR_PROTECTED,
                   "Process %u (%s) is in app unit %s already", proc->pid, proc->comm, unit);
      return FALSE;
    }
  /* The desktop's own services (compositor, audio, portals, the polkit
   * agent) run there: adopted, any caller could freeze them. */
  if (strstr (proc->cgroup, "/session.slice/") != NULL)
    {
      g_set_error (error, RC_ERROR, RC_ERROR_PROTECTED,
                   "Process %u (%s) runs in %s in session.slice, where the desktop's own "
                   "services run: it cannot be adopted (only processes outside session.slice "
                   "and outside app units can)", proc->pid, proc->comm, unit);
      return FALSE;
    }
  if (is_session_unit (unit))
    {
      g_set_error (error, RC_ERROR, RC_ERROR_PROTECTED,
                   "Process %u (%s) runs in %s, which the session needs: it cannot be "
                   "adopted", proc->pid, proc->comm, unit);
      return FALSE;
    }
  return TRUE;
}

/* Where the named processes are now: their children are looked for there. */
static gboolean
note_source_cgroups (RcAdoptRequest *request,
                     GError        **error)
{
  request->source_cgroups = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; i < request->roots->len; i++)
    {
      guint32 root = g_array_index (request->roots, guint32, i);
      g_autoptr(RcProc) proc = rc_proc_read (root);

      if (proc == NULL)
        {
          g_set_error (error, RC_ERROR, RC_ERROR_INVALID_ARGUMENT,
                       "Process %u ended before it could be adopted", root);
          return FALSE;
        }
      g_ptr_array_add (request->source_cgroups, g_strdup (proc->cgroup));
    }
  return TRUE;
}

/* A password dialog may have taken long enough for a pid to be reused. */
static gboolean
check_roots_again (RcAdoptRequest *request,
                   GError        **error)
{
  for (guint i = 0; i < request->roots->len; i++)
    {
      guint32 pid = g_array_index (request->roots, guint32, i);
      g_autoptr(RcProc) proc = rc_proc_read (pid);

      if (proc == NULL || !same_process (proc, request, i))
        {
          g_set_error (error, RC_ERROR, RC_ERROR_INVALID_ARGUMENT,
                       "Process %u ended before it could be adopted%s: nothing was moved", pid,
                       proc != NULL ? " (another process has its pid now)" : "");
          return FALSE;
        }
      if (!check_adoptable (proc, error))
        return FALSE;
    }
  return TRUE;
}

static void
adopt_authorized (RcStartRequest *base,
                  guint32         caller)
{
  RcAdoptRequest *request = (RcAdoptRequest *) base;
  g_autofree char *instance = NULL;
  GError *error = NULL;

  if (!check_roots_again (request, &error) || !note_source_cgroups (request, &error))
    {
      rc_start_request_fail (base, error);
      return;
    }
  instance = g_strdup_printf ("%u", g_array_index (request->roots, guint32, 0));
  base->unit = rc_unit_name_build (RC_UNIT_KIND_SCOPE, base->launcher, base->app_id, instance);
  g_debug ("Adopting %u processes and those below them into %s", request->roots->len,
           base->unit);
  start (request);
}

static void check_main_pids (RcAdoptRequest *request);

static void
main_pid_cb (GObject      *source,
             GAsyncResult *result,
             gpointer      user_data)
{
  RcAdoptRequest *request = user_data;
  guint32 pid = g_array_index (request->roots, guint32, request->checked);
  g_autoptr(GVariant) props = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *unit = NULL;
  guint32 main_pid = 0;

  props = rc_systemd_get_unit_properties_finish (RC_SYSTEMD (source), result, &error);
  if (sd_pid_get_user_unit (pid, &unit) < 0)
    unit = g_strdup ("its service");
  if (props == NULL)
    {
      rc_start_request_fail (&request->base,
                             g_error_new (RC_ERROR, RC_ERROR_FAILED,
                                          "Cannot tell whether process %u is the main process "
                                          "of %s: %s", pid, unit, error->message));
      return;
    }
  if (g_variant_lookup (props, "MainPID", "u", &main_pid) && main_pid == pid)
    {
      rc_start_request_fail (&request->base,
                             g_error_new (RC_ERROR, RC_ERROR_PROTECTED,
                                          "Process %u is the main process of %s: a service's "
                                          "own process cannot be adopted (only processes it "
                                          "started can)", pid, unit));
      return;
    }
  request->checked++;
  check_main_pids (request);
}

/* A service's main process (the MainPID systemd starts and watches) is the
 * service itself, whatever its slice: refused. Asked of systemd, root by
 * root, before the caller is authorized. */
static void
check_main_pids (RcAdoptRequest *request)
{
  static const char * const keys[] = { "MainPID", NULL };
  const RcChangeServices *svc = request->base.svc;

  for (; request->checked < request->roots->len; request->checked++)
    {
      guint32 pid = g_array_index (request->roots, guint32, request->checked);
      g_autofree char *unit = NULL;
      g_autofree char *path = NULL;

      if (sd_pid_get_user_unit (pid, &unit) < 0 || !g_str_has_suffix (unit, ".service") ||
          (path = rc_systemd_unit_path (unit)) == NULL)
        continue;
      rc_systemd_get_unit_properties_async (svc->systemd, path,
                                            "org.freedesktop.systemd1.Service", keys, NULL,
                                            svc->cancellable, main_pid_cb, request);
      return;
    }
  rc_start_request_authorize (&request->base, adopt_authorized);
}

static void
adopt_read_cb (GObject      *source,
               GAsyncResult *result,
               gpointer      user_data)
{
  RcAdoptRequest *request = user_data;

  if (rc_start_request_take_read (&request->base, result))
    check_main_pids (request);
}

void
rc_adopt_submit (const RcChangeServices *svc,
                 GDBusMethodInvocation  *invocation,
                 GVariant               *pids,
                 GVariant               *options)
{
  RcAdoptRequest *request = rc_start_request_new (sizeof (RcAdoptRequest), "Adopt",
                                                  adopt_request_clear, svc, invocation);
  RcStartRequest *base = &request->base;
  g_auto(RcLaunchOptions) parsed = { 0, };
  const guint32 *values;
  GError *error = NULL;
  gsize n;

  rc_launch_options_init (&parsed, RC_START_ADOPT);
  if (!rc_adopt_check_args (pids, options, &parsed, &error))
    {
      rc_start_request_fail (base, error);
      return;
    }
  rc_start_request_take_options (base, &parsed);
  /* Each distinct pid once: repeats are gone before anything is read. */
  values = (const guint32 *) parsed.pids->data;
  n = parsed.pids->len;
  request->roots = g_array_new (FALSE, FALSE, sizeof (guint32));
  request->root_starts = g_array_new (FALSE, FALSE, sizeof (guint64));
  request->comms = g_ptr_array_new_with_free_func (g_free);
  for (gsize i = 0; i < n; i++)
    {
      g_autoptr(RcProc) proc = values[i] != 0 ? rc_proc_read (values[i]) : NULL;

      if (proc == NULL)
        {
          rc_start_request_fail (base, g_error_new (RC_ERROR, RC_ERROR_INVALID_ARGUMENT,
                                                    "There is no process %u", values[i]));
          return;
        }
      if (!check_adoptable (proc, &error))
        {
          rc_start_request_fail (base, error);
          return;
        }
      g_array_append_val (request->roots, values[i]);
      g_array_append_val (request->root_starts, proc->start_time);
      g_ptr_array_add (request->comms, g_strdup (proc->comm));
    }
  rc_adopt_read_async (base->app_id, request->roots, request->comms, svc->cancellable,
                       adopt_read_cb, request);
}
