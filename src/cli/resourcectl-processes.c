/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* resourcectl which and ps: which app a process is, and an app's processes. */
#include "resourcectl.h"

#include "rc-error.h"
#include "rc-size.h"

gboolean
rcctl_parse_pid (char        **args,
                 RcctlRequest *req,
                 GError      **error)
{
  guint64 pid;

  if (!g_ascii_string_to_unsigned (args[0], 10, 1, G_MAXUINT32, &pid, NULL))
    {
      g_set_error (error, RC_ERROR, RC_ERROR_INVALID_ARGUMENT, "invalid process id \"%s\"",
                   args[0]);
      return FALSE;
    }
  req->params = g_variant_ref_sink (g_variant_new ("(u)", (guint32) pid));
  return TRUE;
}

int
rcctl_finish_which (GVariant *apps)
{
  g_autoptr(GVariant) app = NULL;

  if (rcctl_print_json_if_asked (apps))
    return EXIT_SUCCESS;
  app = g_variant_get_child_value (apps, 0);
  g_print ("%s\t%s\t%s\n", rcctl_lookup_string (app, "Unit"), rcctl_lookup_string (app, "AppId"),
           rcctl_lookup_string (app, "Name"));
  return EXIT_SUCCESS;
}

int
rcctl_finish_ps (GVariant *procs)
{
  g_autoptr(GPtrArray) rows = g_ptr_array_new_with_free_func ((GDestroyNotify) g_strfreev);
  GVariantIter iter;
  const char *comm, *cmdline;
  guint64 rss, cpu_ns, start_ns;
  guint32 pid;

  if (rcctl_opt_json)
    {
      g_autoptr(JsonBuilder) builder = json_builder_new ();
      g_autoptr(JsonNode) root = NULL;

      json_builder_begin_array (builder);
      g_variant_iter_init (&iter, procs);
      while (g_variant_iter_next (&iter, "(u&s&sttt)", &pid, &comm, &cmdline, &rss, &cpu_ns,
                                  &start_ns))
        {
          json_builder_begin_object (builder);
          json_builder_set_member_name (builder, "pid");
          json_builder_add_int_value (builder, pid);
          json_builder_set_member_name (builder, "comm");
          json_builder_add_string_value (builder, comm);
          json_builder_set_member_name (builder, "cmdline");
          json_builder_add_string_value (builder, cmdline);
          json_builder_set_member_name (builder, "rss");
          json_builder_add_int_value (builder, (gint64) rss);
          json_builder_set_member_name (builder, "cpu_ns");
          json_builder_add_int_value (builder, (gint64) cpu_ns);
          json_builder_set_member_name (builder, "start_ns");
          json_builder_add_int_value (builder, (gint64) start_ns);
          json_builder_end_object (builder);
        }
      json_builder_end_array (builder);
      root = json_builder_get_root (builder);
      rcctl_print_json_node (root);
      return EXIT_SUCCESS;
    }
  g_ptr_array_add (rows, g_strsplit ("PID RSS CPU COMMAND", " ", -1));
  g_variant_iter_init (&iter, procs);
  while (g_variant_iter_next (&iter, "(u&s&sttt)", &pid, &comm, &cmdline, &rss, &cpu_ns,
                              &start_ns))
    {
      char **row = g_new0 (char *, 5);

      row[0] = g_strdup_printf ("%u", pid);
      row[1] = rc_size_format (rss);
      row[2] = g_strdup_printf ("%.2fs", cpu_ns / 1e9);
      row[3] = rcctl_printable (*cmdline != '\0' ? cmdline : comm);
      g_ptr_array_add (rows, row);
    }
  rcctl_print_table (rows, 4);
  return EXIT_SUCCESS;
}
