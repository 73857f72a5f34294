#!/bin/sh
# deps-kernel.sh — the Debian packages `make check-kernel` needs: the kernel source and what it
# takes to build a tiny bzImage from it (bc, flex and bison for Kconfig and the build, libelf-dev
# for objtool, xz for the compressed kernel), qemu to boot it, busybox and cpio for the initramfs,
# libc6-dev for the static helper.
# As root: installs what is missing (apt-get). Otherwise: names the missing packages and fails.
# Quick when everything is there: only dpkg-query runs.
set -eu
packages="linux-source-6.1 xz-utils gcc make libc6-dev bc flex bison libelf-dev
qemu-system-x86 busybox-static cpio"
missing=""
for package in $packages; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" ||
        missing="$missing $package"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" = 0 ]; then
    echo "deps-kernel: installing$missing"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q >/dev/null
    # shellcheck disable=SC2086
    apt-get install -y -q --no-install-recommends $missing >/dev/null
else
    echo "deps-kernel: missing Debian packages:$missing" >&2
    echo "deps-kernel: install them with: sudo apt-get install$missing" >&2
    exit 2
fi
