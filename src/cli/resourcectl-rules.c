/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* resourcectl rule list, rule set and rule remove. */
#include "resourcectl.h"
#include "rc-limit-table.h"

#include <string.h>

gboolean
rcctl_parse_rule_set (char        **args,
                      RcctlRequest *req,
                      GError      **error)
{
  GVariant *limits = rcctl_parse_limits (args + 1, TRUE, error);

  if (limits == NULL)
    return FALSE;
  req->params = g_variant_ref_sink (g_variant_new ("(s@a{sv})", args[0], limits));
  return TRUE;
}

static void
null_for_max_in_rule_cb (JsonObject *object,
                         const char *member,
                         JsonNode   *node,
                         gpointer    user_data)
{
  if (JSON_NODE_HOLDS_OBJECT (node))
    json_object_foreach_member (json_node_get_object (node), rcctl_null_for_max_cb, NULL);
}

/* "KEY=VALUE ...", worded as the panel's rules page words it. */
static char *
format_rule (GVariant *rule)
{
  g_autofree char *text = rc_limit_format_rule (rule, "=", " ");

  /* Keys and values of a rules file another user may have written. */
  return *text != '\0' ? rcctl_printable (text) : g_strdup ("-");
}

static const char * const rule_columns[] = { "APP", "RULE" };
#define N_RULE_COLUMNS G_N_ELEMENTS (rule_columns)

/* @rules is ListRules' a{sa{sv}}, sorted by AppID by the daemon. */
int
rcctl_finish_rule_list (GVariant *rules)
{
  g_autoptr(GPtrArray) rows = NULL;
  GVariantIter iter;
  const char *app_id;
  GVariant *rule;

  if (rcctl_opt_json)
    {
      g_autoptr(JsonNode) root = json_gvariant_serialize (rules);

      json_object_foreach_member (json_node_get_object (root), null_for_max_in_rule_cb, NULL);
      rcctl_print_json_node (root);
      return EXIT_SUCCESS;
    }

  rows = g_ptr_array_new_with_free_func ((GDestroyNotify) g_strfreev);
  g_ptr_array_add (rows, g_strdupv ((GStrv) rule_columns));
  g_variant_iter_init (&iter, rules);
  while (g_variant_iter_loop (&iter, "{&s@a{sv}}", &app_id, &rule))
    {
      GStrv row = g_new0 (char *, N_RULE_COLUMNS + 1);

      row[0] = rcctl_printable (app_id);
      row[1] = format_rule (rule);
      g_ptr_array_add (rows, row);
    }
  rcctl_print_table (rows, N_RULE_COLUMNS);
  return EXIT_SUCCESS;
}
