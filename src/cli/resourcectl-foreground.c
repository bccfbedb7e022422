/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* resourcectl foreground: the app the user is working with. */
#include "resourcectl.h"

#include "rc-error.h"

gboolean
rcctl_parse_foreground (char        **args,
                        RcctlRequest *req,
                        GError      **error)
{
  guint64 pid;

  if ((rcctl_opt_pid != NULL) + rcctl_opt_none + (args[0] != NULL) != 1)
    {
      g_set_error_literal (error, RC_ERROR, RC_ERROR_INVALID_ARGUMENT,
                           "foreground takes one of APP, --none or --pid PID");
      return FALSE;
    }
  if (rcctl_opt_pid != NULL)
    {
      if (!g_ascii_string_to_unsigned (rcctl_opt_pid, 10, 1, G_MAXUINT32, &pid, NULL))
        {
          g_set_error (error, RC_ERROR, RC_ERROR_INVALID_ARGUMENT,
                       "invalid process id \"%s\"", rcctl_opt_pid);
          return FALSE;
        }
      req->method = "SetForegroundProcess";
      req->params = g_variant_ref_sink (g_variant_new ("(u)", (guint32) pid));
      return TRUE;
    }
  /* "" is the API's "no app in the foreground". */
  req->params = g_variant_ref_sink (g_variant_new ("(s)", rcctl_opt_none ? "" : args[0]));
  return TRUE;
}
