#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# run-in-vm.sh - boot a throw-away QEMU VM that runs the HOST's installed userspace (systemd 252 as PID 1,
# dbus, polkit, ...) from a read-only 9p view of / plus a tmpfs overlay, on pure cgroup v2, run a script
# inside it, copy results back, power off. Requires a prior setup.sh (same RC_VMDIR).
#
# usage: run-in-vm.sh [options] SCRIPT [ARGS...]      run SCRIPT (bash) in the guest, as root
#        run-in-vm.sh [options] -c 'COMMAND STRING'    run a command string (bash -c) in the guest
# options:
#   --user           run the payload as the test user, as a transient service of its user manager
#                    (systemd-run --user --wait --pipe), i.e. inside .../user@UID.service/app.slice
#   --no-user-manager  do not start the test user's systemd --user instance (faster)
#   --delegate LIST  controllers user@.service delegates (e.g. "cpu cpuset io memory pids"); default:
#                    Debian 12's stock user@.service (cpu memory pids), which the product must cope with
#   --timeout SEC    hard wall-clock limit for the whole VM (default 300); exit 124 on timeout
#   --mem MB / --smp N   guest RAM (default 2048) / vCPUs (default: host cores)
#   --out DIR        keep the run directory here (default: mktemp under $RC_VMDIR/runs, removed unless --keep)
#   --keep           keep the run directory (console.log, journal.txt, out/...)
#   --console        stream the guest serial console to stderr
#   --quiet          print the payload's output once at the end instead of streaming it
#   --with FILE      copy FILE into the guest's /mnt/vmshare too (files the payload sources); repeatable
#   --kvm            try -accel kvm (on these hosts /dev/kvm is kvm_pvm: a stock kernel crawls; default tcg)
# in the guest the payload gets: VM_TEST_USER, VM_TEST_UID, VM_OUT (a host-visible dir, world-writable: files put
# there are copied back), and the helper /mnt/vmshare/as-user CMD... (run CMD as the test user with
# XDG_RUNTIME_DIR / DBUS_SESSION_BUS_ADDRESS of its user manager; the caller's cgroup stays in system.slice).
# The guest's /tmp is an empty tmpfs: whatever the payload needs must live elsewhere on the host.
# The payload's stdout+stderr is printed on the host; the exit status of run-in-vm.sh is the payload's
# (124 = timeout, 125 = VM/harness failure).
# RC_VMDIR (default /var/tmp/resource-control-vm) holds kernel, initramfs and run folders.
set -uo pipefail
RC_VMDIR=${RC_VMDIR:-/var/tmp/resource-control-vm}
TIMEOUT=300; MEM=2048; SMP=$(nproc); USERMODE=0; USERMGR=1; OUT=; KEEP=0; CONSOLE=0; ACCEL=tcg; CMD=; DELEGATE=; LIVE=1
WITH=()
while [ $# -gt 0 ]; do
  case "$1" in
    --user) USERMODE=1;;
    --no-user-manager) USERMGR=0;;
    --timeout) TIMEOUT=$2; shift;;
    --mem) MEM=$2; shift;;
    --smp) SMP=$2; shift;;
    --out) OUT=$2; KEEP=1; shift;;
    --keep) KEEP=1;;
    --console) CONSOLE=1;;
    --quiet) LIVE=0;;
    --delegate) DELEGATE=$2; shift;;
    --with) WITH+=("$2"); shift;;
    --kvm) ACCEL=kvm;;
    -c) CMD=$2; shift; shift; break;;
    --) shift; break;;
    -*) echo "run-in-vm: unknown option $1" >&2; exit 2;;
    *) break;;
  esac
  shift
done
[ -z "$CMD" ] && [ $# -lt 1 ] && { sed -n '4,30p' "$0" >&2; exit 2; }
[ "$USERMODE" = 1 ] && USERMGR=1
KERNEL="$RC_VMDIR/kernel/vmlinuz"; INITRD="$RC_VMDIR/initramfs.img"; MODULES=$(readlink -f "$RC_VMDIR/kernel/modules")
[ -e "$KERNEL" ] && [ -e "$INITRD" ] || { echo "run-in-vm: run setup.sh first" >&2; exit 125; }

if [ -z "$OUT" ]; then mkdir -p "$RC_VMDIR/runs"; RUN=$(mktemp -d "$RC_VMDIR/runs/run.XXXXXX"); else RUN=$OUT; mkdir -p "$RUN"; fi
rm -rf "$RUN/out"; mkdir -p "$RUN/out" "$RUN/units"; chmod 1777 "$RUN/out"
if [ -n "$CMD" ]; then printf '%s\n' "$CMD" > "$RUN/payload"; else cp "$1" "$RUN/payload"; shift; fi
for f in "${WITH[@]}"; do cp "$f" "$RUN/" || exit 125; done
printf '%q ' "$@" > "$RUN/args"
# the payload gets less time than the VM, so that the journal and the result still come back
PAYLOAD_TIMEOUT=$((TIMEOUT > 180 ? TIMEOUT - 90 : TIMEOUT / 2))
printf 'USERMODE=%s\nUSERMGR=%s\nPAYLOAD_TIMEOUT=%s\n' "$USERMODE" "$USERMGR" "$PAYLOAD_TIMEOUT" > "$RUN/config"
if [ -n "$DELEGATE" ]; then
  printf '[Service]\nDelegate=%s\n' "$DELEGATE" > "$RUN/delegate.conf"
else
  rm -f "$RUN/delegate.conf"
fi

# --- executed by the initramfs (busybox sh) before switch_root; $1 = new root (tmpfs overlay over host /) ---
cat > "$RUN/preinit.sh" <<'EOF'
R=$1; U=$R/etc/systemd/system
cp /newroot/mnt/vmshare/units/* $U/
# host units that are irrelevant in the test VM
for u in apt-daily.timer apt-daily-upgrade.timer dpkg-db-backup.timer e2scrub_all.timer fstrim.timer man-db.timer \
         e2scrub_reap.service postgresql.service systemd-timesyncd.service systemd-pstore.service \
         systemd-networkd-wait-online.service; do ln -sf /dev/null $U/$u; done
# generators cost ~0.3s each under TCG: mask all but systemd-debug-generator (systemd.mask=/wants= on cmdline)
mkdir -p $R/etc/systemd/system-generators $R/etc/systemd/user-generators $R/etc/systemd/user-environment-generators
for g in $R/lib/systemd/system-generators/*; do
  case ${g##*/} in systemd-debug-generator) ;; *) ln -sf /dev/null $R/etc/systemd/system-generators/${g##*/};; esac; done
for g in $R/lib/systemd/user-generators/*; do ln -sf /dev/null $R/etc/systemd/user-generators/${g##*/}; done
ln -sf /dev/null $R/etc/systemd/user-environment-generators/90gpg-agent
# only with --delegate: more controllers for user managers than Debian's stock user@.service (cpu memory pids)
if [ -f /newroot/mnt/vmshare/delegate.conf ]; then
  mkdir -p $U/user@.service.d; cp /newroot/mnt/vmshare/delegate.conf $U/user@.service.d/90-run-in-vm-delegate.conf
fi
# the guest has no network device: keep resolv etc. untouched; clear host leftovers in the overlay view
rm -rf $R/run/* 2>/dev/null
EOF
cat > "$RUN/units/vmtest.target" <<'EOF'
[Unit]
Description=run-in-vm test target
Requires=basic.target
Wants=vmtest.service
After=basic.target
AllowIsolate=yes
EOF
cat > "$RUN/units/vmtest.service" <<'EOF'
[Unit]
Description=run-in-vm payload runner
After=basic.target dbus.socket systemd-logind.service systemd-user-sessions.service
Wants=dbus.socket systemd-logind.service systemd-user-sessions.service
SuccessAction=poweroff-immediate
FailureAction=poweroff-immediate
[Service]
Type=oneshot
ExecStart=/bin/bash /mnt/vmshare/guest-runner.sh
StandardOutput=journal+console
TimeoutStartSec=infinity
EOF
cat > "$RUN/as-user" <<'EOF'
#!/bin/bash
# run a command as the test user with its user manager's environment
. /mnt/vmshare/guest.env
exec setpriv --reuid="$VM_TEST_UID" --regid="$VM_TEST_UID" --init-groups env -i HOME="$VM_TEST_HOME" USER="$VM_TEST_USER" \
  LOGNAME="$VM_TEST_USER" PATH=/usr/local/bin:/usr/bin:/bin XDG_RUNTIME_DIR=/run/user/$VM_TEST_UID \
  DBUS_SESSION_BUS_ADDRESS=unix:path=/run/user/$VM_TEST_UID/bus VM_OUT="$VM_OUT" VM_TEST_USER="$VM_TEST_USER" \
  VM_TEST_UID="$VM_TEST_UID" "$@"
EOF
chmod 755 "$RUN/as-user"
cat > "$RUN/guest-runner.sh" <<'EOF'
#!/bin/bash
S=/mnt/vmshare; O=$S/out
. $S/config
exec 3>&1 > $O/runner.log 2>&1
t0=$(cut -d' ' -f1 /proc/uptime); echo "runner start at uptime $t0"
# test user: a new account 'rcvmtest' in the guest's overlay (the host's passwd and homes are untouched), so
# nothing of the host's own users (whatever uid 1000 is called there, its home and config) reaches the
# tests; uid 1000 when the host has no such user, else the first free uid above it
VM_TEST_USER=rcvmtest
VM_TEST_UID=1000
while getent passwd $VM_TEST_UID >/dev/null || getent group $VM_TEST_UID >/dev/null; do VM_TEST_UID=$((VM_TEST_UID + 1)); done
VM_TEST_HOME=/home/$VM_TEST_USER
getent passwd $VM_TEST_USER >/dev/null && userdel -r $VM_TEST_USER 2>/dev/null
useradd -m -d "$VM_TEST_HOME" -u $VM_TEST_UID -U -s /bin/bash $VM_TEST_USER || echo "runner: useradd $VM_TEST_USER failed"
printf 'VM_TEST_UID=%s\nVM_TEST_USER=%s\nVM_TEST_HOME=%s\nVM_OUT=%s\n' $VM_TEST_UID "$VM_TEST_USER" "$VM_TEST_HOME" $O > $S/guest.env
if [ "$USERMGR" = 1 ]; then
  systemctl start user@$VM_TEST_UID.service || echo "runner: starting user@$VM_TEST_UID.service failed"
  for i in $(seq 100); do [ -S /run/user/$VM_TEST_UID/bus ] && break; sleep 0.1; done
  echo "user manager up at uptime $(cut -d' ' -f1 /proc/uptime)"
fi
echo "payload start at uptime $(cut -d' ' -f1 /proc/uptime)"
set -f; eval "ARGS=($(cat $S/args))"; set +f
export VM_TEST_UID VM_TEST_USER VM_TEST_HOME VM_OUT=$O
if [ "$USERMODE" = 1 ]; then
  $S/as-user systemd-run --user --quiet --wait --pipe --collect -u vmtest-payload.service \
     -E VM_OUT=$O -E VM_TEST_USER -E VM_TEST_UID -E HOME=$VM_TEST_HOME -p WorkingDirectory=$VM_TEST_HOME \
     timeout -k 30 $PAYLOAD_TIMEOUT /bin/bash $S/payload "${ARGS[@]}" < /dev/null > $O/output.log 2>&1
  rc=$?
else
  (cd / && timeout -k 30 $PAYLOAD_TIMEOUT /bin/bash $S/payload "${ARGS[@]}") < /dev/null > $O/output.log 2>&1
  rc=$?
fi
echo "payload rc=$rc at uptime $(cut -d' ' -f1 /proc/uptime)"
[ $rc = 124 ] && echo "run-in-vm: payload TIMEOUT after ${PAYLOAD_TIMEOUT}s (guest side)" >> $O/output.log
journalctl -b --no-pager -o short-monotonic > $O/journal.txt 2>&1
echo $rc > $O/rc
sync
EOF

APPEND="console=ttyS0 quiet loglevel=3 panic=-1 mitigations=off systemd.unified_cgroup_hierarchy=1 cgroup_no_v1=all \
systemd.unit=vmtest.target systemd.show_status=error systemd.journald.forward_to_console=0 \
systemd.firstboot=off random.trust_cpu=on"
CPU=max
[ "$ACCEL" = kvm ] && CPU=host,-arch-capabilities
CONSOLE_LOG="$RUN/console.log"
QEMU=(qemu-system-x86_64 -accel "$ACCEL" -cpu "$CPU" -m "$MEM" -smp "$SMP" -nodefaults -no-user-config -display none
  -no-reboot -serial "file:$CONSOLE_LOG" -kernel "$KERNEL" -initrd "$INITRD" -append "$APPEND"
  -device virtio-rng-pci
  -fsdev local,id=fs0,path=/,security_model=none,readonly=on,multidevs=remap -device virtio-9p-pci,fsdev=fs0,mount_tag=hostroot
  -fsdev local,id=fs1,path="$RUN",security_model=none,multidevs=remap -device virtio-9p-pci,fsdev=fs1,mount_tag=vmshare
  -fsdev local,id=fs2,path="$MODULES",security_model=none,readonly=on -device virtio-9p-pci,fsdev=fs2,mount_tag=modules)
T0=$(date +%s.%N)
: > "$CONSOLE_LOG"
if [ "$CONSOLE" = 1 ]; then tail -n +1 -f "$CONSOLE_LOG" >&2 & TAILPID=$!; fi
timeout --kill-after=10 "$TIMEOUT" "${QEMU[@]}" < /dev/null > "$RUN/qemu.log" 2>&1 &
QPID=$!
if [ "$LIVE" = 1 ]; then
  # the guest writes output.log through 9p (cache=none): follow it until QEMU is gone
  tail -n +1 -F --pid="$QPID" "$RUN/out/output.log" 2>/dev/null
fi
wait "$QPID"
QRC=$?
[ -n "${TAILPID:-}" ] && { sleep 0.3; kill "$TAILPID" 2>/dev/null; wait "$TAILPID" 2>/dev/null; }
T1=$(date +%s.%N)
[ "$LIVE" = 0 ] && [ -f "$RUN/out/output.log" ] && cat "$RUN/out/output.log"
if [ "$QRC" = 124 ] || [ "$QRC" = 137 ]; then RC=124; echo "run-in-vm: TIMEOUT after ${TIMEOUT}s" >&2
elif [ -f "$RUN/out/rc" ]; then RC=$(cat "$RUN/out/rc")
else RC=125; echo "run-in-vm: VM ended without a result (qemu rc=$QRC)" >&2; fi
if [ "$RC" = 124 ] || [ "$RC" = 125 ]; then
  echo "--- qemu.log ---" >&2; tail -5 "$RUN/qemu.log" >&2; echo "--- console.log (tail) ---" >&2; tail -30 "$CONSOLE_LOG" >&2
fi
printf 'run-in-vm: exit status %s, wall %.1fs, run dir %s\n' "$RC" "$(echo "$T1 - $T0" | bc 2>/dev/null || awk "BEGIN{print $T1-$T0}")" \
  "$([ "$KEEP" = 1 ] && echo "$RUN" || echo '(removed; use --keep)')" >&2
[ "$KEEP" = 1 ] || rm -rf "$RUN"
exit "$RC"
