#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# One-time preparation for run-in-vm.sh (Debian 12 host, as root, non-interactive).
#  - installs what the harness and the guest need from Debian's packages: qemu-system-x86 (TCG is used:
#    /dev/kvm on these hosts cannot run a stock kernel at a usable speed), busybox-static (initramfs),
#    kmod (depmod), and the runtime the guest borrows from the host's root (polkitd, dbus-user-session,
#    libglib2.0-bin for gdbus, jq, python3, util-linux for taskset/setpriv, procps)
#  - downloads the current Debian 12 kernel package and extracts it (no install), runs depmod on the copy
#  - builds a small initramfs whose /init mounts the HOST root read-only via virtio-9p, puts a tmpfs
#    overlay on top and execs the host's /lib/systemd/systemd as PID 1 (pure cgroup v2 via the cmdline)
# Everything goes to $RC_VMDIR (default /var/tmp/resource-control-vm); the source tree is never written.
# Cheap when already done: it only rebuilds the initramfs when this script is newer than it.
set -euo pipefail
RC_VMDIR=${RC_VMDIR:-/var/tmp/resource-control-vm}
export DEBIAN_FRONTEND=noninteractive
mkdir -p "$RC_VMDIR/kernel"

need=()
command -v qemu-system-x86_64 >/dev/null || need+=(qemu-system-x86)
{ [ -x /bin/busybox ] && /bin/busybox --list | grep -x cpio >/dev/null; } || need+=(busybox-static)
command -v depmod >/dev/null || need+=(kmod)
command -v gdbus >/dev/null || need+=(libglib2.0-bin)
command -v jq >/dev/null || need+=(jq)
{ [ -x /usr/lib/polkit-1/polkitd ] && [ -x /usr/bin/pkcheck ]; } || need+=(polkitd)
[ -e /usr/lib/systemd/user/dbus.socket ] || need+=(dbus-user-session)
[ -e /usr/lib/x86_64-linux-gnu/security/pam_systemd.so ] || need+=(libpam-systemd)
[ -x /usr/bin/python3 ] || need+=(python3)
command -v taskset >/dev/null || need+=(util-linux)
command -v pgrep >/dev/null || need+=(procps)
if [ ${#need[@]} -gt 0 ]; then
  echo "setup: installing ${need[*]}"
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

# --- kernel: the dependency package of linux-image-amd64, extracted only ---
if ! ls "$RC_VMDIR"/kernel/x/boot/vmlinuz-* >/dev/null 2>&1; then
  [ -n "$(apt-cache policy linux-image-amd64 | awk '/Candidate/{print $2}')" ] || apt-get update -qq
  KPKG=$(apt-cache depends linux-image-amd64 | awk '/Depends: linux-image-/{print $2; exit}')
  (cd "$RC_VMDIR/kernel" && rm -f ./*.deb && apt-get download -q "$KPKG" 2>&1 | grep -v '^W: Download is performed unsandboxed' || true)
  dpkg -x "$RC_VMDIR"/kernel/"$KPKG"_*.deb "$RC_VMDIR/kernel/x"
  rm -f "$RC_VMDIR"/kernel/*.deb
fi
KVER=$(ls "$RC_VMDIR/kernel/x/lib/modules" | head -1)
ln -sfn "x/boot/vmlinuz-$KVER" "$RC_VMDIR/kernel/vmlinuz"
ln -sfn "x/lib/modules" "$RC_VMDIR/kernel/modules"

if [ -s "$RC_VMDIR/initramfs.img" ] && [ "$RC_VMDIR/initramfs.img" -nt "$0" ]; then
  exit 0
fi
depmod -b "$RC_VMDIR/kernel/x" "$KVER"

# --- initramfs ---
R=$(mktemp -d)
trap 'rm -rf "$R"' EXIT
mkdir -p "$R"/{bin,proc,sys,dev,mnt/lower,mnt/rw,newroot,lib/modules}
cp /bin/busybox "$R/bin/busybox"
for a in sh mount umount mkdir insmod switch_root cat echo ls sleep cp ln chmod grep poweroff; do ln -s busybox "$R/bin/$a"; done
: > "$R/modules.list"
# dependencies first, as modprobe --show-depends lists them
for m in $(for t in virtio_pci 9pnet_virtio 9p overlay virtio_rng; do
             modprobe -d "$RC_VMDIR/kernel/x" -S "$KVER" --show-depends "$t" | awk '{print $2}'; done | awk '!s[$0]++'); do
  cp "$m" "$R/lib/modules/"; basename "$m" .ko >> "$R/modules.list"
done
cat > "$R/init" <<'INIT'
#!/bin/sh
# initramfs /init: host root via 9p (ro) + tmpfs overlay, run-dir share, kernel modules share; exec host systemd.
export PATH=/bin
mount -t proc proc /proc; mount -t sysfs sys /sys; mount -t devtmpfs dev /dev
for m in $(cat /modules.list); do insmod /lib/modules/$m.ko || echo "init: insmod $m failed"; done
O=msize=512000,trans=virtio,version=9p2000.L
mount -t 9p -o ro,$O,cache=loose hostroot /mnt/lower || { echo "init: mount hostroot failed"; poweroff -f; }
mount -t tmpfs -o mode=755,size=50% tmpfs /mnt/rw; mkdir -p /mnt/rw/upper /mnt/rw/work
mount -t overlay overlay -o lowerdir=/mnt/lower,upperdir=/mnt/rw/upper,workdir=/mnt/rw/work /newroot \
  || { echo "init: overlay mount failed"; poweroff -f; }
mkdir -p /newroot/mnt/vmshare
mount -t 9p -o $O,cache=none vmshare /newroot/mnt/vmshare || echo "init: no vmshare"
mkdir -p /newroot/lib/modules; mount -t 9p -o ro,$O,cache=loose modules /newroot/lib/modules || echo "init: no modules share"
# the host root may be a container image: hide its markers, else systemd thinks it runs in a container
rm -f /newroot/.dockerenv /newroot/run/.containerenv
# a fresh /tmp: else systemd-tmpfiles ("D /tmp") deletes the host's /tmp content in the overlay view at boot (slow)
mount -t tmpfs -o mode=1777,nosuid,nodev tmpfs /newroot/tmp
[ -f /newroot/mnt/vmshare/preinit.sh ] && sh /newroot/mnt/vmshare/preinit.sh /newroot
umount /proc /sys; mount --move /dev /newroot/dev
exec switch_root /newroot /lib/systemd/systemd
INIT
chmod +x "$R/init"
(cd "$R" && find . | busybox cpio -o -H newc -R 0:0 2>/dev/null | gzip -1) > "$RC_VMDIR/initramfs.img.new"
mv "$RC_VMDIR/initramfs.img.new" "$RC_VMDIR/initramfs.img"
echo "setup: kernel $KVER, initramfs $RC_VMDIR/initramfs.img ($(stat -c %s "$RC_VMDIR/initramfs.img") bytes)"
