/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* resource-control-panel: the settings panel of resource-control, a client
 * of resource-controld's D-Bus API on the session bus. */
#include <adwaita.h>

#include "rcp-client.h"
#include "rcp-window.h"

#define RCP_APP_ID "org.example.ResourceControl.Panel"

static const char css[] =
  ".rcp-badge { background-color: alpha(@warning_color, 0.2); color: @warning_color;"
  " border-radius: 6px; padding: 2px 8px; font-weight: bold; }";

static RcpClient *client;

static void
startup_cb (GApplication *app)
{
  g_autoptr(GtkCssProvider) provider = gtk_css_provider_new ();
  static const char *back_accels[] = { "<Alt>Left", "Escape", NULL };

  gtk_css_provider_load_from_data (provider, css, -1);
  gtk_style_context_add_provider_for_display (gdk_display_get_default (), GTK_STYLE_PROVIDER (provider),
                                              GTK_STYLE_PROVIDER_PRIORITY_APPLICATION);
  gtk_application_set_accels_for_action (GTK_APPLICATION (app), "win.back", back_accels);
  client = rcp_client_new (G_BUS_TYPE_SESSION);
}

static GtkWindow *
present_window (GApplication *app)
{
  GtkWindow *window = gtk_application_get_active_window (GTK_APPLICATION (app));

  if (window == NULL)
    window = GTK_WINDOW (rcp_window_new (GTK_APPLICATION (app), client));
  gtk_window_present (window);
  return window;
}

static void
activate_cb (GApplication *app)
{
  present_window (app);
}

/* app.show-app (s): the page of the app with this unit name or AppID; what
 * the daemon's notifications ask for (org.freedesktop.Application's
 * ActivateAction, the panel D-Bus activated when not running). */
static void
show_app_activated (GSimpleAction *action,
                    GVariant      *parameter,
                    gpointer       user_data)
{
  GtkWindow *window = present_window (user_data);

  rcp_window_show_app (RCP_WINDOW (window), g_variant_get_string (parameter, NULL));
}

/* --app UNIT_OR_APPID: app.show-app in the running panel, or in this one. */
static int
handle_local_options_cb (GApplication *app,
                         GVariantDict *options)
{
  const char *unit_or_app_id = NULL;
  g_autoptr(GError) error = NULL;

  if (!g_variant_dict_lookup (options, "app", "&s", &unit_or_app_id))
    return -1;
  if (!g_application_register (app, NULL, &error))
    {
      g_printerr ("%s\n", error->message);
      return 1;
    }
  g_action_group_activate_action (G_ACTION_GROUP (app), "show-app", g_variant_new_string (unit_or_app_id));
  /* a remote panel shows it; this one runs on to show it */
  return g_application_get_is_remote (app) ? 0 : -1;
}

static void
quit_activated (GSimpleAction *action,
                GVariant      *parameter,
                gpointer       user_data)
{
  g_application_quit (user_data);
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(AdwApplication) app = adw_application_new (RCP_APP_ID, G_APPLICATION_DEFAULT_FLAGS);
  static const GActionEntry actions[] = {
    { .name = "quit", .activate = quit_activated },
    { .name = "show-app", .activate = show_app_activated, .parameter_type = "s" },
  };
  static const GOptionEntry options[] = {
    { "app", 0, 0, G_OPTION_ARG_STRING, NULL, "Open the page of this app (a unit name or AppID)",
      "UNIT_OR_APPID" },
    { NULL },
  };
  static const char *quit_accels[] = { "<Control>q", NULL };
  int status;

  g_set_application_name ("Resource Control");
  g_action_map_add_action_entries (G_ACTION_MAP (app), actions, G_N_ELEMENTS (actions), app);
  gtk_application_set_accels_for_action (GTK_APPLICATION (app), "app.quit", quit_accels);
  g_signal_connect (app, "startup", G_CALLBACK (startup_cb), NULL);
  g_application_add_main_option_entries (G_APPLICATION (app), options);
  g_signal_connect (app, "activate", G_CALLBACK (activate_cb), NULL);
  g_signal_connect (app, "handle-local-options", G_CALLBACK (handle_local_options_cb), NULL);
  status = g_application_run (G_APPLICATION (app), argc, argv);
  g_clear_object (&client);
  return status;
}
