/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "rcp-window.h"

#include "rcp-app-page.h"
#include "rcp-app-row.h"
#include "rcp-battery-page.h"
#include "rcp-rules-page.h"
#include "rcp-slices-page.h"

#define REFRESH_SECONDS 2

typedef enum
{
  SORT_BY_CPU,
  SORT_BY_NAME,
} SortMode;

struct _RcpWindow
{
  AdwApplicationWindow parent_instance;

  RcpClient        *client;
  guint             refresh_id;
  GdkSurface       *surface;        /* while realized, to follow "minimised" */
  SortMode          sort_mode;
  char             *pending_app;    /* rcp_window_show_app before the first listing */
  GtkSorter        *sorter;
  GtkSortListModel *sorted;

  GtkStack             *top_stack;  /* loading, unavailable, content */
  GtkStack             *nav_stack;  /* main, app */
  AdwViewStack         *view_stack; /* apps, battery, slices, rules */
  AdwViewSwitcherTitle *switcher_title;
  GtkWidget            *back_button;
  GtkWidget            *sort_box;
  GtkWidget            *sort_cpu;
  GtkWidget            *list_box;
  GtkWidget            *status_label;
  RcpAppPage           *app_page;
  RcpBatteryPage       *battery_page;
  RcpSlicesPage        *slices_page;
  RcpRulesPage         *rules_page;
};

G_DEFINE_TYPE (RcpWindow, rcp_window, ADW_TYPE_APPLICATION_WINDOW)

static int
compare_apps (gconstpointer a,
              gconstpointer b,
              gpointer      user_data)
{
  RcpWindow *self = user_data;
  RcpApp *app_a = (RcpApp *) a;
  RcpApp *app_b = (RcpApp *) b;

  if (self->sort_mode == SORT_BY_CPU)
    {
      double cpu_a = rcp_app_get_cpu_percent (app_a);
      double cpu_b = rcp_app_get_cpu_percent (app_b);

      /* whole percents, so that noise does not reorder the list */
      if ((int) cpu_a != (int) cpu_b)
        return (int) cpu_a > (int) cpu_b ? -1 : 1;
    }
  return g_utf8_collate (rcp_app_get_name (app_a), rcp_app_get_name (app_b));
}

/* Re-sorting rebuilds the rows (and loses keyboard focus): only when the
 * order is wrong. */
static void
resort_if_needed (RcpWindow *self)
{
  GListModel *model = G_LIST_MODEL (self->sorted);
  guint n = g_list_model_get_n_items (model);

  for (guint i = 1; i < n; i++)
    {
      g_autoptr(RcpApp) prev = g_list_model_get_item (model, i - 1);
      g_autoptr(RcpApp) next = g_list_model_get_item (model, i);

      if (compare_apps (prev, next, self) > 0)
        {
          gtk_sorter_changed (self->sorter, GTK_SORTER_CHANGE_DIFFERENT);
          return;
        }
    }
}

static void
refreshed_cb (RcpWindow *self)
{
  resort_if_needed (self);
}

static void
refresh_now (RcpWindow *self)
{
  const char *view = adw_view_stack_get_visible_child_name (self->view_stack);

  rcp_client_refresh (self->client);
  if (g_strcmp0 (gtk_stack_get_visible_child_name (self->nav_stack), "main") != 0)
    return;
  if (g_strcmp0 (view, "slices") == 0)
    rcp_slices_page_reload (self->slices_page);
  else if (g_strcmp0 (view, "battery") == 0)
    rcp_battery_page_reload (self->battery_page, FALSE);
}

static gboolean
refresh_tick_cb (gpointer user_data)
{
  refresh_now (user_data);
  return G_SOURCE_CONTINUE;
}

static gboolean
is_shown (RcpWindow *self)
{
  if (!gtk_widget_get_mapped (GTK_WIDGET (self)))
    return FALSE;
  if (self->surface != NULL && GDK_IS_TOPLEVEL (self->surface) &&
      (gdk_toplevel_get_state (GDK_TOPLEVEL (self->surface)) & GDK_TOPLEVEL_STATE_MINIMIZED) != 0)
    return FALSE;
  return TRUE;
}

/* The one place that starts and stops the refresh timer. */
static void
update_refresh (RcpWindow *self)
{
  gboolean want = is_shown (self) && rcp_client_get_available (self->client);

  if (want && self->refresh_id == 0)
    {
      g_debug ("refresh on");
      self->refresh_id = g_timeout_add_seconds (REFRESH_SECONDS, refresh_tick_cb, self);
      /* what changed while hidden */
      refresh_now (self);
    }
  else if (!want && self->refresh_id != 0)
    {
      g_debug ("refresh off");
      g_clear_handle_id (&self->refresh_id, g_source_remove);
    }
}

/* GtkStack and AdwViewStack leave their other pages in the accessibility
 * tree: a screen reader would read the "not running" page over the app list.
 * Only the visible page is presented. */
static void
present_visible_page_only (GtkWidget  *stack,
                           GParamSpec *pspec,
                           gpointer    user_data)
{
  GtkWidget *visible = GTK_IS_STACK (stack) ? gtk_stack_get_visible_child (GTK_STACK (stack))
                                            : adw_view_stack_get_visible_child (ADW_VIEW_STACK (stack));

  for (GtkWidget *child = gtk_widget_get_first_child (stack); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    gtk_accessible_update_state (GTK_ACCESSIBLE (child), GTK_ACCESSIBLE_STATE_HIDDEN, child != visible, -1);
}

static void
follow_visible_page (GtkWidget *stack)
{
  g_signal_connect (stack, "notify::visible-child", G_CALLBACK (present_visible_page_only), NULL);
  present_visible_page_only (stack, NULL, NULL);
}

static void
show_main (RcpWindow *self)
{
  gtk_stack_set_visible_child_name (self->nav_stack, "main");
  gtk_widget_set_visible (self->back_button, FALSE);
  gtk_widget_set_visible (self->sort_box, TRUE);
  adw_view_switcher_title_set_view_switcher_enabled (self->switcher_title, TRUE);
  adw_view_switcher_title_set_title (self->switcher_title, "Resource Control");
  rcp_app_page_set_app (self->app_page, NULL);
}

static void
open_app (RcpWindow *self,
          RcpApp    *app)
{
  rcp_app_page_set_app (self->app_page, app);
  gtk_stack_set_visible_child_name (self->nav_stack, "app");
  gtk_widget_set_visible (self->back_button, TRUE);
  gtk_widget_set_visible (self->sort_box, FALSE);
  adw_view_switcher_title_set_view_switcher_enabled (self->switcher_title, FALSE);
  adw_view_switcher_title_set_title (self->switcher_title, rcp_app_get_name (app));
}

static void
open_app_cb (RcpAppRow *row,
             RcpWindow *self)
{
  open_app (self, rcp_app_row_get_app (row));
}

static void
add_toast (RcpWindow *self,
           AdwToast  *toast)
{
  adw_toast_overlay_add_toast (ADW_TOAST_OVERLAY (adw_application_window_get_content (ADW_APPLICATION_WINDOW (self))),
                               toast);
}

/* From "Battery use": the ledger names apps by AppID, and one may have
 * stopped since the page asked. */
static void
open_app_id_cb (RcpBatteryPage *page,
                const char     *app_id,
                RcpWindow      *self)
{
  RcpApp *app = rcp_client_lookup_app (self->client, app_id);

  if (app != NULL)
    open_app (self, app);
  else
    add_toast (self, adw_toast_new_format ("%s is no longer running", app_id));
}

/* An AppID, or one of the units of an app. */
static RcpApp *
find_app (RcpWindow  *self,
          const char *unit_or_app_id)
{
  GListModel *apps = rcp_client_get_apps (self->client);
  RcpApp *app = rcp_client_lookup_app (self->client, unit_or_app_id);

  for (guint i = 0; app == NULL && i < g_list_model_get_n_items (apps); i++)
    {
      g_autoptr(RcpApp) item = g_list_model_get_item (apps, i);

      if (rcp_app_has_instance (item, unit_or_app_id))
        app = item;
    }
  return app;
}

static void
show_pending_app (RcpWindow *self)
{
  g_autofree char *wanted = g_steal_pointer (&self->pending_app);
  RcpApp *app;

  if (wanted == NULL)
    return;
  adw_view_stack_set_visible_child_name (self->view_stack, "apps");
  app = find_app (self, wanted);
  if (app != NULL)
    open_app (self, app);
  else
    {
      /* a toast's title is markup: the name escaped */
      g_autofree char *title = g_markup_printf_escaped ("%s is no longer running", wanted);

      show_main (self);
      add_toast (self, adw_toast_new (title));
    }
}

void
rcp_window_show_app (RcpWindow  *self,
                     const char *unit_or_app_id)
{
  g_free (self->pending_app);
  self->pending_app = g_strdup (unit_or_app_id);
  /* the daemon's listing first: it may not be read yet */
  if (rcp_client_get_available (self->client))
    show_pending_app (self);
}

static void
back_activated (GSimpleAction *action,
                GVariant      *parameter,
                gpointer       user_data)
{
  show_main (user_data);
}

static GtkWidget *
create_row (gpointer item,
            gpointer user_data)
{
  GtkWidget *row = rcp_app_row_new (item);

  g_signal_connect (row, "open", G_CALLBACK (open_app_cb), user_data);
  return row;
}

static void
apps_changed_cb (GListModel *apps,
                 guint       position,
                 guint       removed,
                 guint       added,
                 RcpWindow  *self)
{
  RcpApp *shown = rcp_app_page_get_app (self->app_page);

  /* the app of the open page stopped */
  if (shown != NULL && removed > 0 &&
      rcp_client_lookup_app (self->client, rcp_app_get_app_id (shown)) != shown)
    {
      g_autofree char *title = g_markup_printf_escaped ("%s stopped", rcp_app_get_name (shown));
      AdwToast *toast = adw_toast_new (title);

      show_main (self);
      add_toast (self, toast);
    }
}

static void
available_cb (RcpWindow *self)
{
  gboolean available = rcp_client_get_available (self->client);

  if (!available)
    show_main (self);
  gtk_stack_set_visible_child_name (self->top_stack, available ? "content" : "unavailable");
  update_refresh (self);
  if (available)
    show_pending_app (self);
}

static void
view_changed_cb (RcpWindow *self)
{
  const char *name = adw_view_stack_get_visible_child_name (self->view_stack);

  gtk_widget_set_visible (self->sort_box, g_strcmp0 (name, "apps") == 0);
  if (!rcp_client_get_available (self->client))
    return;
  if (g_strcmp0 (name, "slices") == 0)
    rcp_slices_page_reload (self->slices_page);
  else if (g_strcmp0 (name, "battery") == 0)
    rcp_battery_page_reload (self->battery_page, TRUE);
  else if (g_strcmp0 (name, "rules") == 0)
    rcp_rules_page_reload (self->rules_page);
}

static void
sort_toggled_cb (RcpWindow *self)
{
  self->sort_mode = gtk_toggle_button_get_active (GTK_TOGGLE_BUTTON (self->sort_cpu))
                    ? SORT_BY_CPU : SORT_BY_NAME;
  gtk_sorter_changed (self->sorter, GTK_SORTER_CHANGE_DIFFERENT);
}

static void
surface_state_cb (RcpWindow *self)
{
  update_refresh (self);
}

static void
rcp_window_realize (GtkWidget *widget)
{
  RcpWindow *self = RCP_WINDOW (widget);

  GTK_WIDGET_CLASS (rcp_window_parent_class)->realize (widget);
  self->surface = g_object_ref (gtk_native_get_surface (GTK_NATIVE (widget)));
  g_signal_connect_object (self->surface, "notify::state", G_CALLBACK (surface_state_cb), self,
                           G_CONNECT_SWAPPED);
}

static void
rcp_window_unrealize (GtkWidget *widget)
{
  RcpWindow *self = RCP_WINDOW (widget);

  if (self->surface != NULL)
    g_signal_handlers_disconnect_by_data (self->surface, self);
  g_clear_object (&self->surface);
  GTK_WIDGET_CLASS (rcp_window_parent_class)->unrealize (widget);
}

static void
rcp_window_map (GtkWidget *widget)
{
  GTK_WIDGET_CLASS (rcp_window_parent_class)->map (widget);
  update_refresh (RCP_WINDOW (widget));
}

static void
rcp_window_unmap (GtkWidget *widget)
{
  GTK_WIDGET_CLASS (rcp_window_parent_class)->unmap (widget);
  update_refresh (RCP_WINDOW (widget));
}

static void
rcp_window_dispose (GObject *object)
{
  RcpWindow *self = RCP_WINDOW (object);

  g_clear_handle_id (&self->refresh_id, g_source_remove);
  if (self->client != NULL)
    {
      g_signal_handlers_disconnect_by_data (self->client, self);
      g_signal_handlers_disconnect_by_data (rcp_client_get_apps (self->client), self);
    }
  g_clear_object (&self->sorted);
  g_clear_object (&self->client);
  g_clear_pointer (&self->pending_app, g_free);
  G_OBJECT_CLASS (rcp_window_parent_class)->dispose (object);
}

static void
rcp_window_class_init (RcpWindowClass *klass)
{
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  G_OBJECT_CLASS (klass)->dispose = rcp_window_dispose;
  widget_class->realize = rcp_window_realize;
  widget_class->unrealize = rcp_window_unrealize;
  widget_class->map = rcp_window_map;
  widget_class->unmap = rcp_window_unmap;
}

static GtkWidget *
scrolled (GtkWidget *child)
{
  GtkWidget *clamp = adw_clamp_new ();
  GtkWidget *sw = gtk_scrolled_window_new ();

  gtk_widget_set_margin_top (child, 18);
  gtk_widget_set_margin_bottom (child, 18);
  gtk_widget_set_margin_start (child, 12);
  gtk_widget_set_margin_end (child, 12);
  adw_clamp_set_child (ADW_CLAMP (clamp), child);
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (sw), GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (sw), clamp);
  gtk_widget_set_vexpand (sw, TRUE);
  return sw;
}

static GtkWidget *
build_apps_view (RcpWindow *self)
{
  GtkWidget *placeholder = gtk_label_new ("No apps are running");
  GtkWidget *box, *list;

  gtk_widget_add_css_class (placeholder, "dim-label");
  gtk_widget_set_margin_top (placeholder, 24);
  gtk_widget_set_margin_bottom (placeholder, 24);
  self->list_box = gtk_list_box_new ();
  gtk_list_box_set_selection_mode (GTK_LIST_BOX (self->list_box), GTK_SELECTION_NONE);
  gtk_widget_add_css_class (self->list_box, "boxed-list");
  gtk_widget_set_valign (self->list_box, GTK_ALIGN_START);
  gtk_list_box_set_placeholder (GTK_LIST_BOX (self->list_box), placeholder);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->list_box), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  "Running apps", -1);
  gtk_list_box_bind_model (GTK_LIST_BOX (self->list_box), G_LIST_MODEL (self->sorted),
                           create_row, self, NULL);
  self->status_label = gtk_label_new (NULL);
  gtk_label_set_wrap (GTK_LABEL (self->status_label), TRUE);
  gtk_label_set_xalign (GTK_LABEL (self->status_label), 0);
  gtk_widget_add_css_class (self->status_label, "dim-label");
  gtk_widget_add_css_class (self->status_label, "caption");
  gtk_widget_set_margin_start (self->status_label, 12);
  gtk_widget_set_margin_end (self->status_label, 12);
  gtk_widget_set_margin_top (self->status_label, 6);
  gtk_widget_set_margin_bottom (self->status_label, 6);
  box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  list = scrolled (self->list_box);
  gtk_widget_set_vexpand (list, TRUE);
  gtk_box_append (GTK_BOX (box), list);
  gtk_box_append (GTK_BOX (box), self->status_label);
  return box;
}

static void
status_changed_cb (RcpWindow *self)
{
  g_autofree char *text = rcp_client_dup_status (self->client);

  gtk_label_set_text (GTK_LABEL (self->status_label), text);
}

static GtkWidget *
build_header (RcpWindow *self)
{
  GtkWidget *header = adw_header_bar_new ();
  GtkWidget *sort_name;

  self->switcher_title = ADW_VIEW_SWITCHER_TITLE (adw_view_switcher_title_new ());
  adw_view_switcher_title_set_stack (self->switcher_title, self->view_stack);
  adw_view_switcher_title_set_title (self->switcher_title, "Resource Control");
  adw_header_bar_set_title_widget (ADW_HEADER_BAR (header), GTK_WIDGET (self->switcher_title));

  self->back_button = gtk_button_new_from_icon_name ("go-previous-symbolic");
  gtk_actionable_set_action_name (GTK_ACTIONABLE (self->back_button), "win.back");
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->back_button), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  "Back", -1);
  gtk_widget_set_tooltip_text (self->back_button, "Back");
  gtk_widget_set_visible (self->back_button, FALSE);
  adw_header_bar_pack_start (ADW_HEADER_BAR (header), self->back_button);

  self->sort_box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 0);
  gtk_widget_add_css_class (self->sort_box, "linked");
  self->sort_cpu = gtk_toggle_button_new_with_label ("CPU");
  sort_name = gtk_toggle_button_new_with_label ("Name");
  gtk_toggle_button_set_group (GTK_TOGGLE_BUTTON (sort_name), GTK_TOGGLE_BUTTON (self->sort_cpu));
  gtk_toggle_button_set_active (GTK_TOGGLE_BUTTON (self->sort_cpu), TRUE);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->sort_cpu), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  "Sort by CPU use", -1);
  gtk_accessible_update_property (GTK_ACCESSIBLE (sort_name), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  "Sort by name", -1);
  g_signal_connect_swapped (self->sort_cpu, "toggled", G_CALLBACK (sort_toggled_cb), self);
  gtk_box_append (GTK_BOX (self->sort_box), self->sort_cpu);
  gtk_box_append (GTK_BOX (self->sort_box), sort_name);
  adw_header_bar_pack_end (ADW_HEADER_BAR (header), self->sort_box);
  return header;
}

static GtkWidget *
with_header (GtkWidget *header,
             GtkWidget *child)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);

  gtk_box_append (GTK_BOX (box), header);
  gtk_box_append (GTK_BOX (box), child);
  return box;
}

static void
rcp_window_init (RcpWindow *self)
{
  static const GActionEntry actions[] = {
    { .name = "back", .activate = back_activated },
  };

  g_action_map_add_action_entries (G_ACTION_MAP (self), actions, G_N_ELEMENTS (actions), self);
  gtk_window_set_title (GTK_WINDOW (self), "Resource Control");
  gtk_window_set_default_size (GTK_WINDOW (self), 720, 640);
}

static void
build (RcpWindow *self)
{
  GtkWidget *overlay = adw_toast_overlay_new ();
  GtkWidget *status, *loading, *content;
  AdwViewStackPage *page;
  GtkCustomSorter *sorter;

  sorter = gtk_custom_sorter_new (compare_apps, self, NULL);
  self->sorter = GTK_SORTER (sorter);
  self->sorted = gtk_sort_list_model_new (g_object_ref (rcp_client_get_apps (self->client)),
                                          GTK_SORTER (sorter));

  self->view_stack = ADW_VIEW_STACK (adw_view_stack_new ());
  page = adw_view_stack_add_titled (self->view_stack, build_apps_view (self), "apps", "Apps");
  adw_view_stack_page_set_icon_name (page, "view-list-symbolic");
  self->battery_page = RCP_BATTERY_PAGE (rcp_battery_page_new (self->client));
  page = adw_view_stack_add_titled (self->view_stack, GTK_WIDGET (self->battery_page), "battery", "Battery use");
  adw_view_stack_page_set_icon_name (page, "battery-symbolic");
  g_signal_connect (self->battery_page, "open-app", G_CALLBACK (open_app_id_cb), self);
  self->slices_page = RCP_SLICES_PAGE (rcp_slices_page_new (self->client));
  page = adw_view_stack_add_titled (self->view_stack, GTK_WIDGET (self->slices_page), "slices", "Slices");
  adw_view_stack_page_set_icon_name (page, "view-grid-symbolic");
  self->rules_page = RCP_RULES_PAGE (rcp_rules_page_new (self->client));
  page = adw_view_stack_add_titled (self->view_stack, GTK_WIDGET (self->rules_page), "rules", "Rules");
  adw_view_stack_page_set_icon_name (page, "document-properties-symbolic");
  g_signal_connect_swapped (self->view_stack, "notify::visible-child", G_CALLBACK (view_changed_cb), self);

  self->nav_stack = GTK_STACK (gtk_stack_new ());
  gtk_stack_set_transition_type (self->nav_stack, GTK_STACK_TRANSITION_TYPE_SLIDE_LEFT_RIGHT);
  gtk_stack_add_named (self->nav_stack, GTK_WIDGET (self->view_stack), "main");
  self->app_page = RCP_APP_PAGE (rcp_app_page_new (self->client));
  gtk_stack_add_named (self->nav_stack, GTK_WIDGET (self->app_page), "app");
  gtk_widget_set_vexpand (GTK_WIDGET (self->nav_stack), TRUE);
  content = with_header (build_header (self), GTK_WIDGET (self->nav_stack));

  status = adw_status_page_new ();
  adw_status_page_set_icon_name (ADW_STATUS_PAGE (status), "dialog-warning-symbolic");
  adw_status_page_set_title (ADW_STATUS_PAGE (status), "Resource control is not running");
  adw_status_page_set_description (ADW_STATUS_PAGE (status),
                                   "resource-controld does not answer on the session bus. "
                                   "This window shows your apps again as soon as it runs.");
  gtk_widget_set_vexpand (status, TRUE);
  /* no spinner: it would keep the frame clock running while hidden */
  loading = gtk_label_new (NULL);
  gtk_widget_set_vexpand (loading, TRUE);

  self->top_stack = GTK_STACK (gtk_stack_new ());
  gtk_stack_add_named (self->top_stack, with_header (adw_header_bar_new (), loading), "loading");
  gtk_stack_add_named (self->top_stack, with_header (adw_header_bar_new (), status), "unavailable");
  gtk_stack_add_named (self->top_stack, content, "content");
  gtk_stack_set_visible_child_name (self->top_stack, "loading");
  adw_toast_overlay_set_child (ADW_TOAST_OVERLAY (overlay), GTK_WIDGET (self->top_stack));
  follow_visible_page (GTK_WIDGET (self->top_stack));
  follow_visible_page (GTK_WIDGET (self->nav_stack));
  follow_visible_page (GTK_WIDGET (self->view_stack));
  adw_application_window_set_content (ADW_APPLICATION_WINDOW (self), overlay);

  g_signal_connect_swapped (self->client, "notify::available", G_CALLBACK (available_cb), self);
  g_signal_connect_swapped (self->client, "refreshed", G_CALLBACK (refreshed_cb), self);
  g_signal_connect_swapped (self->client, "status-changed", G_CALLBACK (status_changed_cb), self);
  g_signal_connect (rcp_client_get_apps (self->client), "items-changed", G_CALLBACK (apps_changed_cb), self);
  if (rcp_client_get_available (self->client))
    available_cb (self);
}

GtkWidget *
rcp_window_new (GtkApplication *application,
                RcpClient      *client)
{
  RcpWindow *self = g_object_new (RCP_TYPE_WINDOW, "application", application, NULL);

  self->client = g_object_ref (client);
  build (self);
  return GTK_WIDGET (self);
}
