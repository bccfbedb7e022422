# SPDX-License-Identifier: LGPL-2.1-or-later
#
# memory-sections.sh - VM section `memory`: memory protection that counts and the memory ladder
# (docs/design.md, "Processes and slices" and "The memory ladder"), read from the kernel's files
# (sourced by system-test.sh, after its helpers and notify-sections.sh; bench/memory-bench-guest.sh
# sources it for the workload alone).
#   - the package's system drop-ins give user.slice, user-UID.slice and user@UID.service memory.low,
#     the shipped rule gives session.slice its own, the focus boost the focused app's;
#   - swap as a desktop has it (zram, else a swap file on a guest-local loop disk), a hog in app.slice
#     allocating steadily, the focused app and its unprotected twin touching the same working set
#     (anonymous and file pages), a compositor stand-in in session.slice;
#   - with the daemon's ladder: the hog's memory.high lowered (never the focused app's), a
#     non-focused app frozen, MemoryPressureLevel and a notification, everything given back after
#     the hog lets go, and nobody but the hog killed;
#   - what the protection did: the focused app kept its working set while its twin was swapped out.

# Each 4 KiB page holds 1 KiB of random bytes and 3 KiB of zeros: zram squeezes it about 4:1, as it
# does a desktop's data (incompressible pages would fill the zram device as fast as they leave RAM).
MEM_PAGE_PY='import os
def pattern(mib):
    return bytearray((os.urandom(1024) + bytes(3072)) * 256) * mib'

# MEM_HOG_PY TARGET_MIB STOP_FILE: 8 MiB of new pages every 50 ms up to TARGET_MIB, and in each
# turn it writes to 32 MiB of what it holds, as a browser with many tabs does (pages gone to swap
# come back: the stall that memory pressure measures; data that only sat in zram would cost
# nothing); once STOP_FILE appears it lets all go and idles (the scope stays, so its files can be
# read after the ladder gives everything back)
MEM_HOG_PY="$MEM_PAGE_PY"'
import random, sys, time
target, stop = int(sys.argv[1]), sys.argv[2]
keep = []
while not os.path.exists(stop):
    if len(keep) * 8 < target:
        keep.append(pattern(8))
    for chunk in random.sample(keep, min(4, len(keep))):
        chunk[::4096] = bytes(len(chunk) // 4096)
    time.sleep(0.05)
keep = None
print("let go", time.monotonic(), flush=True)
time.sleep(100000)'

# MEM_TOUCH_PY ANON_MIB FILE LOG: a working set of ANON_MIB anonymous pages and FILE mapped (its
# page cache charged to this app: the file's cache is dropped before), every page read each 100 ms;
# LOG gets "monotonic-time touch-ms" per round (a swapped-out page is a fault, so a slow round)
MEM_TOUCH_PY="$MEM_PAGE_PY"'
import mmap, sys, time
anon = pattern(int(sys.argv[1]))
fm = None
if sys.argv[2] != "-":
    fd = os.open(sys.argv[2], os.O_RDONLY)
    fm = mmap.mmap(fd, 0, prot=mmap.PROT_READ)
log = open(sys.argv[3], "a", buffering=1)
while True:
    t0 = time.monotonic()
    anon[::4096]
    if fm is not None:
        fm[::4096]
    log.write("%.6f %.3f\n" % (t0, (time.monotonic() - t0) * 1000))
    time.sleep(0.1)'

MEM_DISK=/mnt/rc-memdisk
MEM_SWAP=none
# mem_swap_up: 1 GiB of swap on zram (as Fedora and Ubuntu desktops have it), else a swap file on
# a guest-local ext4 loop disk; sets MEM_SWAP (zram, file, none)
mem_swap_up () {
  MEM_SWAP=none
  if modprobe zram num_devices=1 2>/dev/null && [ -e /sys/block/zram0 ]; then
    swapoff /dev/zram0 2>/dev/null
    echo 1 > /sys/block/zram0/reset 2>/dev/null
    if echo 1G > /sys/block/zram0/disksize && mkswap /dev/zram0 > /dev/null && swapon /dev/zram0; then
      MEM_SWAP=zram
      return
    fi
  fi
  fallocate -l 1G "$MEM_DISK/swap" 2>/dev/null && chmod 600 "$MEM_DISK/swap" &&
    mkswap "$MEM_DISK/swap" > /dev/null && swapon "$MEM_DISK/swap" && MEM_SWAP="file"
}
mem_swap_down () {
  case "$MEM_SWAP" in
    zram) swapoff /dev/zram0 && echo 1 > /sys/block/zram0/reset ;;
    file) swapoff "$MEM_DISK/swap"; rm -f "$MEM_DISK/swap" ;;
  esac
  MEM_SWAP=none
}

# mem_disk_up: a guest-local disk (ext4 on a loop device over a file in the tmpfs overlay) holding
# the working-set files; real page cache, which reclaim drops and a touch reads again
mem_disk_up () {
  mountpoint -q "$MEM_DISK" && return 0
  mkdir -p "$MEM_DISK"
  truncate -s 1400M /var/tmp/rc-memdisk.img &&
    mkfs.ext4 -q -F -E nodiscard /var/tmp/rc-memdisk.img &&
    mount -o loop /var/tmp/rc-memdisk.img "$MEM_DISK"
}
# mem_disk_down: the disk and its image gone (the image lives in the guest's RAM)
mem_disk_down () {
  mountpoint -q "$MEM_DISK" && umount "$MEM_DISK"
  rm -f /var/tmp/rc-memdisk.img
}
# mem_file NAME MIB: a file of MIB MiB on the disk, readable by the test user, not in the page cache
mem_file () {
  python3 -c 'import os, sys
fd = os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
block = os.urandom(1 << 20)
for _ in range(int(sys.argv[2])):
    os.write(fd, block)
os.fsync(fd)
os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
os.close(fd)' "$MEM_DISK/$1" "$2"
}

# memory.stat / memory.events / memory.pressure fields; mib BYTES (empty: 0)
mib () { echo $(( ${1:-0} / MiB )); }
mstat () { awk -v k="$2" '$1 == k { print $2 }' "$1/memory.stat" 2>/dev/null; }
mevent () { awk -v k="$2" '$1 == k { print $2 }' "$1/memory.events" 2>/dev/null; }
full_total () { awk '$1 == "full" { sub("total=", "", $5); print $5 }' "$1/memory.pressure" 2>/dev/null; }
# p99 and max of a touch log's milliseconds since monotonic time T0
touch_p99 () {
  awk -v t0="$2" '$1 >= t0 { print $2 }' "$1" | sort -n |
    awk '{ a[NR] = $1 } END { if (NR == 0) { print "- -"; exit } i = int(NR * 0.99); if (i < 1) i = 1; printf "%.1f %.1f\n", a[i], a[NR] }'
}

# systemd-oomd (where installed) kills the hog once swap is 90 % full, before the ladder's steps can
# be seen: off while the workload runs, back afterwards
MEM_OOMD=
mem_oomd_off () {
  MEM_OOMD=$(systemctl is-active systemd-oomd.service 2>/dev/null)
  systemctl mask --runtime --quiet systemd-oomd.socket systemd-oomd.service 2>/dev/null
  systemctl stop systemd-oomd.socket systemd-oomd.service 2>/dev/null
}
mem_oomd_back () {
  systemctl unmask --runtime --quiet systemd-oomd.socket systemd-oomd.service 2>/dev/null
  [ "$MEM_OOMD" = active ] && systemctl start systemd-oomd.socket systemd-oomd.service 2>/dev/null
  MEM_OOMD=
}

# the workload's apps
MEM_HOG='app-gnome-org.example.BigHog-1.scope'
MEM_FOCUS='app-gnome-org.example.Editor-1.scope'      # the focused app
MEM_TWIN='app-gnome-org.example.Viewer-1.scope'       # the same working set, not focused
MEM_SESSION='rc-compositor-memory.service'            # a compositor stand-in in session.slice
MEM_STOP=/run/user/$U/rc-memory-hog-stop
# mem_workload_apps PREFIX: the focused app, its twin and the session stand-in touching their
# working sets (96 MiB anonymous + 48 MiB file each; 64 MiB for the stand-in), logging each round
# to $MEM_LOGS/PREFIXtouch-{editor,viewer,session}.log (the guest's user may not open files in the
# shared folder: the caller copies them there)
MEM_LOGS=/var/tmp/rc-memory-logs
mem_workload_apps () {
  local e=$MEM_LOGS/${1:-}touch-editor.log v=$MEM_LOGS/${1:-}touch-viewer.log s=$MEM_LOGS/${1:-}touch-session.log
  mkdir -p "$MEM_LOGS" && chown "$TUSER:" "$MEM_LOGS"
  rm -f "$MEM_STOP"
  mem_file editor.dat 48
  mem_file viewer.dat 48
  : > "$e"; : > "$v"; : > "$s"
  chmod 666 "$e" "$v" "$s"
  start_scope "$MEM_FOCUS" python3 -c "$MEM_TOUCH_PY" 96 "$MEM_DISK/editor.dat" "$e"
  start_scope "$MEM_TWIN" python3 -c "$MEM_TOUCH_PY" 96 "$MEM_DISK/viewer.dat" "$v"
  "$AU" systemd-run --user --quiet --slice=session.slice -u "$MEM_SESSION" python3 -c "$MEM_TOUCH_PY" 64 - "$s"
  wait_for 30 all_active "$MEM_FOCUS" "$MEM_TWIN" "$MEM_SESSION"
  # every working set in place: each has logged a round
  wait_for 60 sh -c "[ -s '$e' ] && [ -s '$v' ] && [ -s '$s' ]"
}
mem_hog_start () { # mem_hog_start TARGET_MIB
  start_scope "$MEM_HOG" python3 -c "$MEM_HOG_PY" "$1" "$MEM_STOP"
  wait_for 30 all_active "$MEM_HOG"
}
# the hog's target: what is free now and 640 MiB more, so that a quarter of RAM or more must go
# to swap
mem_hog_target () { awk '$1 == "MemAvailable:" { print int($2 / 1024) + 640 }' /proc/meminfo; }
mem_workload_stop () {
  usc stop -- "$MEM_HOG" "$MEM_FOCUS" "$MEM_TWIN" "$MEM_SESSION" 2>/dev/null
  usc reset-failed -- "$MEM_HOG" "$MEM_FOCUS" "$MEM_TWIN" "$MEM_SESSION" 2>/dev/null
  rm -f "$MEM_STOP"
}

ladder_prop () { cl busctl --user get-property "$RC_NAME" "$RC_PATH" "$RC_IFACE" "$1" 2>&1; }
frozen_is () { [ "$(frozen_of "$1")" = "$2" ]; }
high_of () { cat "$(cg "$1")/memory.high" 2>/dev/null; }
hog_throttled () { local h; h=$(high_of "$MEM_HOG"); [ -n "$h" ] && [ "$h" != max ]; }
some_frozen () { frozen_is "$MEM_HOG" 1 || frozen_is "$MEM_TWIN" 1; }
held_names_hog () { [[ "$(ladder_prop MemoryLadderHeld)" == *"\"$MEM_HOG\""* ]]; }
# the hog given back, or closed by the user while it was still frozen
hog_given_back () {
  ! usc is-active -q "$MEM_HOG" || { [ "$(high_of "$MEM_HOG")" = max ] && frozen_is "$MEM_HOG" 0; }
}
all_given_back () {
  hog_given_back && [ "$(high_of "$MEM_TWIN")" = max ] && frozen_is "$MEM_TWIN" 0 &&
    [ "$(ladder_prop MemoryLadderLevel)" = 's "normal"' ] && [ "$(ladder_prop MemoryLadderHeld)" = "a(ssst) 0" ]
}

sec_memory () {
  login_session
  monitor_up
  notifyd_up
  [ ! -e "$LADDER_OFF_RULES" ] || ladder_switch on
  local sys=/sys/fs/cgroup MiB256=$((256 * MiB)) MiB512=$((512 * MiB)) d u
  # 1. protection that counts: the chain above session.slice and the focused app
  check "memory drop-ins installed" "yes yes yes" "$(for d in user.slice.d user-.slice.d user@.service.d; do
    [ -f "/lib/systemd/system/$d/10-resource-control.conf" ] && echo yes || echo no; done | paste -sd' ')"
  # the package's postinst reloaded the system manager, which applied them to the running session
  check "memory.low of user.slice (drop-in)" "$MiB512" "$(cat "$sys/user.slice/memory.low")"
  check "memory.low of user-$U.slice (drop-in)" "$MiB512" "$(cat "$sys/user.slice/user-$U.slice/memory.low")"
  check "memory.low of user@$U.service (drop-in)" "$MiB512" "$(cat "$UM/memory.low")"
  check_has "user@$U.service sees the drop-in" user@.service.d/10-resource-control.conf \
    "$(systemctl show -P DropInPaths "user@$U.service")"
  wait_for 15 file_is "$UM/session.slice/memory.low" "$MiB256"
  check "memory.low of session.slice (shipped rule)" "$MiB256" "$(cat "$UM/session.slice/memory.low")"
  # without memory_recursiveprot app.slice, which has no memory.low of its own, would pass none of
  # user@'s protection down to the focused app (systemd mounts cgroup2 with it where the kernel can)
  check_has "cgroup2 mounted with memory_recursiveprot" memory_recursiveprot "$(awk '$3 == "cgroup2"' /proc/mounts)"

  note "before the workload: $(mem_avail)"
  mem_disk_up
  check "guest-local disk for the working-set files" yes "$(mountpoint -q "$MEM_DISK" && echo yes || echo no)"
  mem_swap_up
  mem_oomd_off
  note "swap: $MEM_SWAP ($(swapon --show=NAME,SIZE --noheadings | paste -sd' '))"
  check "swap as a desktop has it" yes "$([ "$MEM_SWAP" != none ] && echo yes || echo no)"
  printf '[Desktop Entry]\nType=Application\nName=Big Hog\nExec=/usr/bin/sleep 1000\n' > "$APPS_DIR/org.example.BigHog.desktop"
  chown "$TUSER:" "$APPS_DIR/org.example.BigHog.desktop"
  : > "$NOTIFY_LOG"

  mem_workload_apps ""
  call "focus on the editor" OK SetForegroundApp "$MEM_FOCUS"
  wait_for 15 file_is "$(cg "$MEM_FOCUS")/memory.low" "$MiB256"
  check "memory.low of the focused app (boost)" "$MiB256" "$(cat "$(cg "$MEM_FOCUS")/memory.low")"
  check "memory.low of its twin, not focused" 0 "$(cat "$(cg "$MEM_TWIN")/memory.low")"
  local psi0 t0 target
  psi0=$(full_total "$UM/session.slice")
  for u in "$MEM_FOCUS" "$MEM_TWIN"; do
    note "$u before the hog: anon $(mib "$(mstat "$(cg "$u")" anon)") MiB, file $(mib "$(mstat "$(cg "$u")" file)") MiB"
  done

  # 2. the hog (without the ladder in the daemon, one failed check and no waiting for its steps)
  local ladder=yes level
  level=$(ladder_prop MemoryLadderLevel)
  check_has "the daemon has the memory ladder (MemoryLadderLevel)" 's "' "$level"
  case "$level" in 's "'*) ;; *) ladder=no ;; esac
  # lw SECONDS CMD...: wait_for, only where the ladder runs
  lw () { [ "$ladder" = yes ] && wait_for "$@"; }
  target=$(mem_hog_target)
  note "hog target: $target MiB (MemAvailable + 640 MiB)"
  t0=$(now)
  mem_hog_start "$target"
  # the pressure starts once RAM is full: under emulation each new page is a slow fault, and the
  # hog fills 6-16 MiB a second (65-175 s to the first step in recent runs)
  lw 300 hog_throttled
  check "ladder: the hog's memory.high lowered" yes "$(hog_throttled && echo yes || echo no)"
  note "hog memory.high $(high_of "$MEM_HOG"), memory.current $(cat "$(cg "$MEM_HOG")/memory.current") after $(awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }') s"
  check "ladder: the focused app's memory.high untouched" max "$(high_of "$MEM_FOCUS")"
  # (the property may lag the kernel's file by a check, or name the hog again a step later)
  lw 60 held_names_hog
  check_has "ladder: MemoryLadderHeld names the hog" "\"$MEM_HOG\" \"org.example.BigHog\"" \
    "$(ladder_prop MemoryLadderHeld)"
  lw 15 monitor_has "MemoryPressureLevel ('throttling'"
  check "ladder: MemoryPressureLevel throttling seen by a client" yes \
    "$(monitor_has "MemoryPressureLevel ('throttling'" && echo yes || echo no)"
  lw 15 notified "was slowed down" "Big Hog" > /dev/null
  check_has "ladder: notification of the slowed-down hog" "summary=Big Hog was slowed down to keep the desktop responsive" \
    "$(notified "was slowed down" "Big Hog" | head -1)"
  # (a freeze needs the pressure over 30 % for a whole check after the first throttle: up to
  # two minutes more of the hog's growth under emulation)
  lw 150 some_frozen
  check "ladder: a non-focused app frozen as the pressure rose" yes "$(some_frozen && echo yes || echo no)"
  lw 30 notified "was frozen to keep the desktop responsive" "app=Resource Control" > /dev/null
  check_has "ladder: notification of a frozen app" "was frozen to keep the desktop responsive" \
    "$(notified "was frozen to keep the desktop responsive" "app=Resource Control" | head -1)"
  note "frozen: hog $(frozen_of "$MEM_HOG"), twin $(frozen_of "$MEM_TWIN"); level $(ladder_prop MemoryLadderLevel)"
  check "ladder: the focused app never frozen" 0 "$(frozen_of "$MEM_FOCUS")"
  check "ladder: the session stand-in never frozen" 0 "$(frozen_of "$MEM_SESSION")"

  # 3. what the protection did while the pressure lasted: the twin lost pages to swap, the focused
  # app kept its own (memory.low is best effort: its events counter says when it was not enough)
  local fs ts fl
  fs=$(mstat "$(cg "$MEM_FOCUS")" anon); ts=$(mstat "$(cg "$MEM_TWIN")" anon)
  note "under pressure: focused anon $(mib "$fs") MiB swap $(mib "$(cat "$(cg "$MEM_FOCUS")/memory.swap.current")") MiB file $(mib "$(mstat "$(cg "$MEM_FOCUS")" file)") MiB; twin anon $(mib "$ts") MiB swap $(mib "$(cat "$(cg "$MEM_TWIN")/memory.swap.current")") MiB file $(mib "$(mstat "$(cg "$MEM_TWIN")" file)") MiB; session.slice anon $(mib "$(mstat "$UM/session.slice" anon)") MiB"
  fl=$(mevent "$(cg "$MEM_FOCUS")" low)
  note "memory.events low: focused $fl, session.slice $(mevent "$UM/session.slice" low), twin $(mevent "$(cg "$MEM_TWIN")" low)"
  check_range "protection: the focused app's anonymous working set stays in RAM (MiB of 96)" 90 200 "$(mib "$fs")"

  # 4. the hog lets go: every step is taken back
  touch "$MEM_STOP"
  [ "$ladder" = yes ] || wait_for 30 sh -c "[ \$(cat '$(cg "$MEM_HOG")/memory.current') -lt $((64 * MiB)) ]"
  lw 60 all_given_back
  # a frozen hog cannot see that it should let go, and what it holds can keep the pressure up
  # that the ladder waits to fall: then the user closes it, as on a desktop
  if [ "$ladder" = yes ] && ! all_given_back && frozen_is "$MEM_HOG" 1; then
    note "the hog still frozen 60 s after it was told to let go: closed as a user would"
    usc stop -- "$MEM_HOG"
  fi
  lw 90 all_given_back
  check "ladder: everything given back after the hog let go (or was closed)" yes "$(all_given_back && echo yes || echo no)"
  check "ladder: the hog's memory.high back to max, or the hog closed" yes "$(hog_given_back && echo yes || echo no)"
  check "ladder: nothing frozen" "0 0" "$(frozen_of "$MEM_TWIN") $(frozen_of "$MEM_FOCUS")"
  check "ladder: MemoryLadderHeld empty" "a(ssst) 0" "$(ladder_prop MemoryLadderHeld)"
  check "ladder: MemoryLadderLevel normal" 's "normal"' "$(ladder_prop MemoryLadderLevel)"
  note "session.slice memory.pressure full total over the run: $(( $(full_total "$UM/session.slice") - psi0 )) us; $(head -1 "$UM/session.slice/memory.pressure")"
  read -r t0 fl <<< "$(touch_p99 "$MEM_LOGS/touch-editor.log" "$t0")"
  note "focused app's touch of its working set under the hog: p99 $t0 ms, max $fl ms; twin: $(touch_p99 "$MEM_LOGS/touch-viewer.log" 0)"
  # 5. the hog at most was killed
  check "no app but the hog killed (oom_kill of the others)" "0 0 0" \
    "$(for u in "$MEM_FOCUS" "$MEM_TWIN" "$MEM_SESSION"; do mevent "$(cg "$u")" oom_kill; done | paste -sd' ')"
  check "the others still run" "active active active" "$(usc is-active -- "$MEM_FOCUS" "$MEM_TWIN" "$MEM_SESSION" | paste -sd' ')"
  call "focus off" OK SetForegroundApp ""
  mem_workload_stop
  cp "$MEM_LOGS"/touch-*.log "$OUT/" 2>/dev/null
  mem_swap_down
  mem_disk_down
  mem_oomd_back
  note "after the section: $(mem_avail)"
}
