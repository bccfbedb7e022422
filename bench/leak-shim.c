/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A deliberately leaking daemon, for bench/test-leak-check.py only: preloaded
 * (LD_PRELOAD) into resource-controld, it keeps 1 KiB more for every D-Bus
 * method call the daemon answers, the way a forgotten g_free in a handler
 * would. The blocks stay reachable from one list, so only the process's
 * memory shows the leak, which is what the load test's check watches; no
 * daemon source is changed. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include <gio/gio.h>

typedef struct Block Block;
struct Block {
  Block *next;
  char   fill[1024 - sizeof (Block *)];
};

static Block *kept;

static void
keep_one_more (void)
{
  Block *block = malloc (sizeof *block);

  if (block == NULL)
    return;
  memset (block->fill, 0xa5, sizeof block->fill);   /* touched: counted in RssAnon */
  block->next = kept;
  kept = block;
}

void
g_dbus_method_invocation_return_value (GDBusMethodInvocation *invocation,
                                       GVariant              *parameters)
{
  static void (*real) (GDBusMethodInvocation *, GVariant *);

  if (real == NULL)
    real = (void (*)(GDBusMethodInvocation *, GVariant *))dlsym (RTLD_NEXT, __func__);
  keep_one_more ();
  real (invocation, parameters);
}

void
g_dbus_method_invocation_return_gerror (GDBusMethodInvocation *invocation,
                                        const GError          *error)
{
  static void (*real) (GDBusMethodInvocation *, const GError *);

  if (real == NULL)
    real = (void (*)(GDBusMethodInvocation *, const GError *))dlsym (RTLD_NEXT, __func__);
  keep_one_more ();
  real (invocation, error);
}
