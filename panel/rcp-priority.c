/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "rcp-priority.h"

static const struct
{
  guint64     weight;
  const char *label;
} presets[RCP_N_PRESETS] = {
  [RCP_PRIORITY_LOW] = { 50, "Low" },
  [RCP_PRIORITY_NORMAL] = { 100, "Normal" },
  [RCP_PRIORITY_HIGH] = { 300, "High" },
};

RcpPriority
rcp_priority_from_weight (guint64 weight)
{
  for (guint i = 0; i < RCP_N_PRESETS; i++)
    if (presets[i].weight == weight)
      return (RcpPriority) i;
  return RCP_PRIORITY_CUSTOM;
}

guint64
rcp_priority_to_weight (RcpPriority priority)
{
  g_return_val_if_fail (priority < RCP_N_PRESETS, 100);
  return presets[priority].weight;
}

const char *
rcp_priority_to_label (RcpPriority priority)
{
  return priority < RCP_N_PRESETS ? presets[priority].label : "Custom";
}
