#!/bin/sh
# build-kernel.sh — build (once) the small x86_64 kernel the fail-nth tests boot in qemu, and
# print the path of its bzImage as the last line of standard output.
#
#   build-kernel.sh [--debug]
#
# --debug: the debug kernel, the options of kernel-debug.config on top of kernel.config: KASAN,
# lockdep, list debugging and kmemleak (off unless booted with kmemleak=on), and what the
# kernel's selftests need. Its checkers make it about five times slower under qemu's emulation,
# so only the boot that sweeps the selftests (and provokes the checkers) uses it.
#
# This machine's own kernel has no CONFIG_FAULT_INJECTION, so the tests bring their own: Debian's
# linux-source-6.1 (/usr/src/linux-source-6.1.tar.xz), `make tinyconfig`, then the options in
# kernel.config (next to this script), `make olddefconfig`, a check that every option asked for
# as =y really is =y (olddefconfig drops options whose dependencies are missing, silently), and
# `make bzImage`.
#
# Cache: ${LIBFAIL_KERNEL_CACHE:-/var/cache/libfail-kernel}/KEY/{bzImage,config,build.log}, and
# vmlinux when the config has debug information (failrun kernel --kcov symbolises with it),
# KEY = hash of the linux-source-6.1 package version and the fragments. A cached bzImage is
# reused without touching the source. The extracted source and objects are removed after a
# successful build (set LIBFAIL_KERNEL_KEEP=1 to keep them under KEY/). Concurrent callers wait
# on a lock rather than building twice. Installs nothing: tools/deps-kernel.sh does that.
#
# Environment: LIBFAIL_KERNEL_CACHE, LIBFAIL_KERNEL_JOBS (make -j, default 2), LIBFAIL_KERNEL_KEEP.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
debug=0
case ${1:-} in
--debug) debug=1 ;;
"") ;;
*)
    echo "build-kernel: unknown argument '$1' (usage: build-kernel.sh [--debug])" >&2
    exit 2
    ;;
esac
# The configuration fragments, one after the other.
fragments() {
    cat "$here/kernel.config"
    [ "$debug" = 0 ] || cat "$here/kernel-debug.config"
}
tarball=/usr/src/linux-source-6.1.tar.xz
cache=${LIBFAIL_KERNEL_CACHE:-/var/cache/libfail-kernel}
jobs=${LIBFAIL_KERNEL_JOBS:-2}

fail() {
    echo "build-kernel: $*" >&2
    exit 2
}

version=$(dpkg-query -W -f='${Version}' linux-source-6.1 2>/dev/null) ||
    fail "linux-source-6.1 is not installed; run: sh tools/deps-kernel.sh (as root)"
[ -r "$tarball" ] || fail "$tarball is missing; reinstall linux-source-6.1"
key=$( (echo "linux-source-6.1 $version"; fragments) | sha256sum | cut -c1-16)
dir="$cache/$key"

# cached_kernel: print the cached bzImage and stop, if there is one (reading needs no lock: the
# bzImage appears by rename, complete).
cached_kernel() {
    if [ -s "$dir/bzImage" ]; then
        echo "build-kernel: cached kernel $key (linux-source-6.1 $version)" >&2
        echo "$dir/bzImage"
        exit 0
    fi
}
cached_kernel

if ! mkdir -p "$cache" 2>/dev/null || [ ! -w "$cache" ]; then
    fail "no cached kernel $key and cannot write the cache $cache; set LIBFAIL_KERNEL_CACHE to a writable folder"
fi
# One builder at a time: whoever waited here finds the finished bzImage.
exec 9>"$cache/.lock"
flock 9
cached_kernel

start=$(date +%s)
rm -rf "$dir"
mkdir -p "$dir"
src="$dir/src"
obj="$dir/obj"
log="$dir/build.log"
echo "build-kernel: building kernel $key from linux-source-6.1 $version (log: $log)" >&2

echo "build-kernel: extracting $tarball" >&2
mkdir -p "$src"
tar -xJf "$tarball" -C "$src" --strip-components=1

kmake() {
    make -C "$src" O="$obj" ARCH=x86_64 "$@" >>"$log" 2>&1 ||
        fail "make $* failed; the end of $log:$(echo; tail -n 30 "$log")"
}

kmake tinyconfig
# Apply the fragment: "CONFIG_X=y" enables, "# CONFIG_X is not set" disables.
wanted=$(fragments | sed -n 's/^CONFIG_\([A-Za-z0-9_]*\)=y$/\1/p')
unwanted=$(fragments | sed -n 's/^# CONFIG_\([A-Za-z0-9_]*\) is not set$/\1/p')
for option in $wanted; do
    "$src/scripts/config" --file "$obj/.config" --enable "$option"
done
for option in $unwanted; do
    "$src/scripts/config" --file "$obj/.config" --disable "$option"
done
kmake olddefconfig

# olddefconfig quietly turns off whatever lacks a dependency: name each one and stop.
dropped=""
for option in $wanted; do
    grep -qx "CONFIG_$option=y" "$obj/.config" || dropped="$dropped CONFIG_$option"
done
for option in $unwanted; do
    if grep -qx "CONFIG_$option=y" "$obj/.config"; then
        dropped="$dropped (still on:) CONFIG_$option"
    fi
done
[ -z "$dropped" ] ||
    fail "olddefconfig did not keep:$dropped (see $obj/.config and tests/kernel/kernel.config)"
cp "$obj/.config" "$dir/config"

echo "build-kernel: make -j$jobs bzImage" >&2
kmake -j"$jobs" bzImage
if grep -qx 'CONFIG_DEBUG_INFO=y' "$obj/.config"; then
    cp "$obj/vmlinux" "$dir/vmlinux"
fi
cp "$obj/arch/x86/boot/bzImage" "$dir/bzImage.tmp"
mv "$dir/bzImage.tmp" "$dir/bzImage"
[ "${LIBFAIL_KERNEL_KEEP:-0}" = 1 ] || rm -rf "$src" "$obj"
echo "build-kernel: kernel built in $(($(date +%s) - start)) s: $dir/bzImage" >&2
echo "$dir/bzImage"
