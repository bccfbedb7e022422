/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* resourcectl's commands: what the command files share with the table and
 * dispatch in resourcectl.c. Each command family lives in a file of its own
 * (resourcectl-list.c, -limits.c, -rules.c, -foreground.c, -launch.c, -processes.c, -status.c,
 * -top.c, -log.c, -why.c); how values are shown is in resourcectl-output.c. */
#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "rc-generated.h"

/* 0 success, 1 the daemon or the bus said no, 2 the command line was wrong. */
#define RCCTL_EXIT_USAGE 2

/* The options of the commands that have them (resourcectl.c). */
extern gboolean rcctl_opt_json;
extern gboolean rcctl_opt_force;
extern gboolean rcctl_opt_none;
extern char *rcctl_opt_pid;
extern gboolean rcctl_opt_scope;
extern gboolean rcctl_opt_background;
extern char **rcctl_opt_set;
extern char *rcctl_opt_launcher;
extern char *rcctl_opt_app_id;
extern gboolean rcctl_opt_all;
extern gboolean rcctl_opt_yes;
/* top's options, checked by rcctl_parse_top (resourcectl-top.c). */
extern const GOptionEntry rcctl_top_options[];
/* log's options (resourcectl-log.c). */
extern const GOptionEntry rcctl_log_options[];
/* pause's options (resourcectl-why.c). */
extern const GOptionEntry rcctl_pause_options[];
/* energy's options (resourcectl-energy.c). */
extern const GOptionEntry rcctl_energy_options[];

/* What one command sends: the method and its parameters (a sunk reference). */
typedef struct {
  const char *method;
  GVariant   *params;
} RcctlRequest;

/* Prints @error (a call's, its remote name stripped) as resourcectl does;
 * returns the exit status. */
int          rcctl_report_error (GError *error);
/* In a terminal, a text polkit agent for this process, so that polkit can
 * ask for a password here; NULL when there is no terminal or agent. */
GSubprocess *rcctl_start_tty_agent (void);

/* ---- showing values (resourcectl-output.c) ---------------------------- */

typedef enum {
  RCCTL_FORMAT_TEXT,         /* strings, pids, anything unknown */
  RCCTL_FORMAT_LIMIT,        /* a limit key: common's rc_limit_format_value */
  RCCTL_FORMAT_SIZE_USAGE,   /* t bytes, G_MAXUINT64 = not available ("-") */
  RCCTL_FORMAT_COUNT_USAGE,  /* t, G_MAXUINT64 = not available ("-") */
  RCCTL_FORMAT_COUNTERS,     /* a{st}: "name=value ..." */
  RCCTL_FORMAT_PERCENT,      /* d percent */
} RcctlValueFormat;

typedef struct {
  const char      *key;
  RcctlValueFormat format;
} RcctlAppKey;

/* Every key of an app dictionary, in the order `show` prints them. */
extern const RcctlAppKey rcctl_app_keys[];
extern const gsize rcctl_n_app_keys;

gssize      rcctl_find_app_key (const char *key);
char       *rcctl_printable (const char *text);
char       *rcctl_format_value (const char *key,
                                GVariant   *value);
char       *rcctl_lookup_formatted (GVariant   *app,
                                    const char *key);
const char *rcctl_lookup_string (GVariant   *app,
                                 const char *key);
void        rcctl_null_for_max_cb (JsonObject *object,
                                   const char *member,
                                   JsonNode   *node,
                                   gpointer    user_data);
void        rcctl_print_json_node (JsonNode *root);
void        rcctl_print_json (GVariant *apps);
/* With --json, prints @records (aa{sv}) as rcctl_print_json does and
 * returns TRUE: the command has nothing more to print. */
gboolean    rcctl_print_json_if_asked (GVariant *records);
GPtrArray  *rcctl_sorted_apps (GVariant *apps);
void        rcctl_print_table (GPtrArray *rows,
                               gsize      n_columns);

/* ---- limits as KEY=VALUE (resourcectl-limits.c) ----------------------- */

GVariant *rcctl_parse_limits (char   **args,
                              gboolean for_rule,
                              GError **error);
GVariant *rcctl_write_options (void);

/* ---- the commands: parse the arguments into a RcctlRequest, print the reply - */

gboolean rcctl_parse_nothing (char **args, RcctlRequest *req, GError **error);
gboolean rcctl_parse_app (char **args, RcctlRequest *req, GError **error);
gboolean rcctl_parse_set_weight (char **args, RcctlRequest *req, GError **error);
gboolean rcctl_parse_set_memory_limit (char **args, RcctlRequest *req, GError **error);
gboolean rcctl_parse_set (char **args, RcctlRequest *req, GError **error);
gboolean rcctl_parse_rule_set (char **args, RcctlRequest *req, GError **error);
gboolean rcctl_parse_foreground (char **args, RcctlRequest *req, GError **error);
gboolean rcctl_parse_run (char **args, RcctlRequest *req, GError **error);
int      rcctl_run (const RcctlRequest *req);
gboolean rcctl_parse_pid (char **args, RcctlRequest *req, GError **error);
gboolean rcctl_parse_adopt (char **args, RcctlRequest *req, GError **error);
gboolean rcctl_parse_top (char **args, RcctlRequest *req, GError **error);
gboolean rcctl_parse_log (char **args, RcctlRequest *req, GError **error);
gboolean rcctl_parse_pause (char **args, RcctlRequest *req, GError **error);
gboolean rcctl_parse_energy (char **args, RcctlRequest *req, GError **error);

int      rcctl_finish_list (GVariant *apps);
int      rcctl_finish_show (GVariant *apps);
int      rcctl_finish_rule_list (GVariant *rules);
int      rcctl_finish_which (GVariant *apps);
int      rcctl_finish_ps (GVariant *procs);
int      rcctl_finish_slices (GVariant *slices);
int      rcctl_finish_why (GVariant *sources);
int      rcctl_run_monitor (RcDBusResourceControl *proxy);
int      rcctl_run_adopt (RcDBusResourceControl *proxy);
int      rcctl_run_status (RcDBusResourceControl *proxy);
int      rcctl_run_top (RcDBusResourceControl *proxy);
int      rcctl_run_log (RcDBusResourceControl *proxy);
int      rcctl_run_energy (RcDBusResourceControl *proxy);
