#!/bin/sh
# deps-kernel.sh — the Debian packages `make check-kernel` needs: the kernel source and what it
# takes to build a tiny bzImage from it (bc, flex and bison for Kconfig and the build, libelf-dev
# for objtool, xz for the compressed kernel), qemu to boot it, busybox and cpio for the initramfs,
# libc6-dev for the static helper, libcap-dev and libpopt-dev for the kernel selftests it sweeps
# (tests/kernel/build-selftests.sh; see install-packages.sh).
set -eu
exec sh "$(dirname "$0")/install-packages.sh" deps-kernel \
    linux-source-6.1 xz-utils gcc make libc6-dev bc flex bison libelf-dev \
    qemu-system-x86 busybox-static cpio libcap-dev libpopt-dev
