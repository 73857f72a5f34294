#!/bin/busybox sh
# vm-init.sh — /init of the test VM (mkinitramfs.sh installs it). Mounts what a test needs, runs
# /test.sh, prints "libfail-vm: /test.sh exit status N" and ends qemu with that status through
# the isa-debug-exit port. PID 1 must never return: the kernel would panic, and with
# panic=-1 -no-reboot qemu would exit 0 — so run-vm.sh trusts only the status line plus the
# matching qemu exit status, and the fallback below powers off without one.
/bin/busybox mkdir -p /proc /sys /dev /tmp /root
/bin/busybox mount -t proc proc /proc
/bin/busybox --install -s
mount -t devtmpfs devtmpfs /dev
# Without a /dev/console in the archive (built by a non-root user) the kernel left us no stdio.
exec </dev/console >/dev/console 2>&1
mount -t sysfs sysfs /sys
mount -t debugfs debugfs /sys/kernel/debug
mount -t tmpfs tmpfs /tmp
export PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin HOME=/root TMPDIR=/tmp LIBFAIL_VM=1
cd /
read -r uptime _ </proc/uptime
# A line of its own: the firmware's screen-control sequences may still be on the current one.
echo
echo "libfail-vm: running /test.sh (guest uptime ${uptime} s)"
if head -c 2 /test.sh | grep -q '^#!'; then
    /test.sh
else
    sh /test.sh
fi
status=$?
echo "libfail-vm: /test.sh exit status $status"
/libfail-vm/vm-exit "$status"
echo "libfail-vm: vm-exit failed; powering off without a status"
poweroff -f
