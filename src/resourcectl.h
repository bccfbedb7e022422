/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* resourcectl's commands: what the command files share with the table and
 * dispatch in resourcectl.c. Each command family lives in a file of its own
 * (resourcectl-list.c, -limits.c, -rules.c, -foreground.c, -launch.c, -processes.c, -status.c); how values are
 * shown is in resourcectl-output.c. */
#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "rc-generated.h"

/* 0 success, 1 the daemon or the bus said no, 2 the command line was wrong. */
#define EXIT_USAGE 2

/* The options of the commands that have them (resourcectl.c). */
extern gboolean opt_json;
extern gboolean opt_force;
extern gboolean opt_none;
extern char *opt_pid;
extern gboolean opt_scope;
extern gboolean opt_background;
extern char **opt_set;
extern char *opt_launcher;
extern char *opt_app_id;
extern gboolean opt_all;
extern gboolean opt_yes;

/* What one command sends: the method and its parameters (a sunk reference). */
typedef struct {
  const char *method;
  GVariant   *params;
} Request;

/* ---- showing values (resourcectl-output.c) ---------------------------- */

typedef enum {
  FORMAT_TEXT,         /* strings, pids, anything unknown */
  FORMAT_SIZE_LIMIT,   /* t bytes, G_MAXUINT64 = no limit ("max") */
  FORMAT_SIZE_USAGE,   /* t bytes, G_MAXUINT64 = not available ("-") */
  FORMAT_COUNT_LIMIT,  /* t, G_MAXUINT64 = no limit ("max") */
  FORMAT_COUNT_USAGE,  /* t, G_MAXUINT64 = not available ("-") */
  FORMAT_QUOTA,        /* u percent of one CPU, 0 = no quota ("max") */
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
GPtrArray  *rcctl_sorted_apps (GVariant *apps);
void        rcctl_print_table (GPtrArray *rows,
                               gsize      n_columns);

/* ---- limits as KEY=VALUE (resourcectl-limits.c) ----------------------- */

typedef enum {
  VALUE_NUMBER,   /* t */
  VALUE_PERCENT,  /* u, "50%" or "50"; "max" = no quota = 0 */
  VALUE_SIZE,     /* t, rc_size_parse () */
  VALUE_TASKS,    /* t, a number or "infinity" */
  VALUE_SECONDS,  /* u, a whole number of seconds */
  VALUE_WORD,     /* s, e.g. "avoid"; the daemon knows which words */
} RcctlValueKind;

typedef struct {
  const char    *key;
  RcctlValueKind kind;
  gboolean       rule_only;
} RcctlLimitKey;

/* The keys `set` accepts (SetLimits' keys) and, with the rule-only ones,
 * the keys `rule set` accepts (SetRule's). Also the order `rule list`
 * prints them in. */
extern const RcctlLimitKey rcctl_limit_keys[];
extern const gsize rcctl_n_limit_keys;

GVariant *rcctl_parse_limits (char   **args,
                              gboolean for_rule,
                              GError **error);
GVariant *rcctl_write_options (void);

/* ---- the commands: parse the arguments into a Request, print the reply - */

gboolean rcctl_parse_nothing (char **args, Request *req, GError **error);
gboolean rcctl_parse_app (char **args, Request *req, GError **error);
gboolean rcctl_parse_set_weight (char **args, Request *req, GError **error);
gboolean rcctl_parse_set_memory_limit (char **args, Request *req, GError **error);
gboolean rcctl_parse_set (char **args, Request *req, GError **error);
gboolean rcctl_parse_rule_set (char **args, Request *req, GError **error);
gboolean rcctl_parse_foreground (char **args, Request *req, GError **error);
gboolean rcctl_parse_run (char **args, Request *req, GError **error);
gboolean rcctl_parse_pid (char **args, Request *req, GError **error);
gboolean rcctl_parse_adopt (char **args, Request *req, GError **error);

int      rcctl_finish_list (GVariant *apps);
int      rcctl_finish_show (GVariant *apps);
int      rcctl_finish_rule_list (GVariant *rules);
int      rcctl_finish_unit (GVariant *unit);
int      rcctl_finish_which (GVariant *apps);
int      rcctl_finish_ps (GVariant *procs);
int      rcctl_finish_slices (GVariant *slices);
int      rcctl_run_monitor (RcDBusResourceControl *proxy);
int      rcctl_run_adopt (RcDBusResourceControl *proxy);
int      rcctl_run_status (RcDBusResourceControl *proxy);
