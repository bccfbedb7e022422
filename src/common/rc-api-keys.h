/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The keys of the public API, once for the daemon and the client: the keys
 * of an app record (ListApps, GetApp, AppAdded, AppChanged), of SetLimits and
 * of rules, and SetLimits' options. The Python tests and benchmarks have
 * the same names in tests/integration/rcnames.py. */
#pragma once

/* an app record, in the order ListApps gives them */
#define RC_KEY_UNIT                     "Unit"
#define RC_KEY_APP_ID                   "AppId"
#define RC_KEY_LAUNCHER                 "Launcher"
#define RC_KEY_NAME                     "Name"
#define RC_KEY_ICON                     "Icon"
#define RC_KEY_DESKTOP_FILE             "DesktopFile"
#define RC_KEY_SLICE                    "Slice"
#define RC_KEY_ACTIVE_STATE             "ActiveState"
#define RC_KEY_FREEZER_STATE            "FreezerState"
/* it plays or records sound: never frozen in the background */
#define RC_KEY_AUDIO                    "Audio"
#define RC_KEY_PIDS                     "Pids"
/* the limits: record keys, SetLimits keys and rule keys */
#define RC_KEY_CPU_WEIGHT               "CPUWeight"
#define RC_KEY_IO_WEIGHT                "IOWeight"
#define RC_KEY_CPU_QUOTA                "CPUQuota"
#define RC_KEY_MEMORY_LOW               "MemoryLow"
#define RC_KEY_MEMORY_HIGH              "MemoryHigh"
#define RC_KEY_MEMORY_MAX               "MemoryMax"
#define RC_KEY_TASKS_MAX                "TasksMax"
#define RC_KEY_MEMORY_MIN               "MemoryMin"
#define RC_KEY_MEMORY_SWAP_MAX          "MemorySwapMax"
/* SetLimits, Launch and rules only: systemd-oomd's, not in records (the
 * kernel's files do not show them) */
#define RC_KEY_OOM_PREFERENCE           "ManagedOOMPreference"
#define RC_KEY_OOM_PRESSURE             "ManagedOOMMemoryPressure"
#define RC_KEY_OOM_PRESSURE_LIMIT       "ManagedOOMMemoryPressureLimit"
/* usage, in records only */
#define RC_KEY_MEMORY_CURRENT           "MemoryCurrent"
#define RC_KEY_CPU_USAGE_NSEC           "CPUUsageNSec"
#define RC_KEY_TASKS_CURRENT            "TasksCurrent"
#define RC_KEY_CPU_THROTTLED_USEC       "CPUThrottledUSec"
/* what the limits do: memory.events' counters (a{st}), PSI "some" avg10
 * (d, percent); each left out when the kernel has no such file */
#define RC_KEY_MEMORY_EVENTS            "MemoryEvents"
#define RC_KEY_CPU_PRESSURE             "CPUPressure"
#define RC_KEY_MEMORY_PRESSURE          "MemoryPressure"
#define RC_KEY_IO_PRESSURE              "IOPressure"
/* the energy ledger's, only while it has a source: W over the last
 * interval, J since the instance started (d) */
#define RC_KEY_POWER                    "Power"
#define RC_KEY_ENERGY                   "Energy"
/* SetLimits only: MemoryMax and MemoryHigh as SetMemoryLimit sets them */
#define RC_KEY_MEMORY_LIMIT             "MemoryLimit"
/* rules only */
#define RC_KEY_FREEZE_WHEN_INACTIVE_SEC "FreezeWhenInactiveSec"

/* SetLimits' options */
#define RC_OPTION_FORCE                 "force"

/* Launch's and Adopt's options */
#define RC_OPTION_KIND                  "Kind"
#define RC_OPTION_LAUNCHER              "Launcher"
#define RC_OPTION_SLICE                 "Slice"
#define RC_OPTION_ENVIRONMENT           "Environment"
#define RC_OPTION_WORKING_DIRECTORY     "WorkingDirectory"
#define RC_OPTION_LIMITS                "Limits"
#define RC_OPTION_APP_ID                "AppId"
#define RC_OPTION_CALLER_PID            "CallerPid"
#define RC_KIND_SERVICE                 "service"
#define RC_KIND_SCOPE                   "scope"
#define RC_LAUNCHER_DEFAULT             "rc"
