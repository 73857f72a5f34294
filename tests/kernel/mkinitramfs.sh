#!/bin/sh
# mkinitramfs.sh — build the test VM's initramfs (an uncompressed newc cpio archive).
#
#   mkinitramfs.sh -o OUTPUT.cpio --script TEST_SCRIPT [--add HOSTPATH[=GUESTPATH]]...
#
# The archive holds: busybox (Debian's busybox-static; /init installs its applets), /init
# (vm-init.sh), /libfail-vm/vm-exit (vm_exit.c, built static here), TEST_SCRIPT as /test.sh,
# a minimal /etc (passwd, group), and each --add path. A file or folder given with --add lands at
# GUESTPATH, by default at its own absolute host path, so programs that find their files
# relative to themselves ($ORIGIN rpaths, a tool next to its library) work unchanged. Every
# dynamically linked ELF file added (folders: every executable or *.so* file in them) gets its
# shared libraries and the dynamic loader copied at the paths ldd resolves them to; /lib and
# /lib64 are symlinks to usr/lib and usr/lib64 as on Debian 12, so both spellings of a library
# path name one file. A library ldd cannot find stops the build, naming it.
set -eu
here=$(cd "$(dirname "$0")" && pwd)

fail() {
    echo "mkinitramfs: $*" >&2
    exit 2
}

output=""
script=""
adds=""
newline='
'
while [ $# -gt 0 ]; do
    case $1 in
    -o) [ $# -ge 2 ] || fail "-o needs a file"; output=$2; shift 2 ;;
    --script) [ $# -ge 2 ] || fail "--script needs a file"; script=$2; shift 2 ;;
    --add) [ $# -ge 2 ] || fail "--add needs HOSTPATH[=GUESTPATH]"; adds="$adds$2$newline"; shift 2 ;;
    *) fail "unknown argument '$1' (usage: mkinitramfs.sh -o OUT --script FILE [--add HOST[=GUEST]]...)" ;;
    esac
done
[ -n "$output" ] || fail "no -o OUTPUT given"
[ -n "$script" ] || fail "no --script TEST_SCRIPT given"
[ -r "$script" ] || fail "cannot read the test script $script"
if ! /bin/busybox --list 2>/dev/null | grep -qx sh; then
    fail "/bin/busybox is missing; run: sh tools/deps-kernel.sh (as root)"
fi

stage=$(mktemp -d "${TMPDIR:-/tmp}/libfail-initramfs.XXXXXX")
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/bin" "$stage/sbin" "$stage/usr/bin" "$stage/usr/sbin" "$stage/usr/lib" \
    "$stage/usr/lib64" "$stage/etc" "$stage/dev" "$stage/proc" "$stage/sys" "$stage/tmp" \
    "$stage/root" "$stage/libfail-vm"
ln -s usr/lib "$stage/lib"
ln -s usr/lib64 "$stage/lib64"
cp /bin/busybox "$stage/bin/busybox"
cp "$here/vm-init.sh" "$stage/init"
chmod 755 "$stage/init"
cp "$script" "$stage/test.sh"
chmod 755 "$stage/test.sh"
${CC:-cc} -static -O2 -Wall -Wextra -Werror -std=c11 -o "$stage/libfail-vm/vm-exit" \
    "$here/vm_exit.c" || fail "cannot build vm-exit statically (is libc6-dev installed?)"
echo "root:x:0:0:root:/root:/bin/sh" >"$stage/etc/passwd"
echo "root:x:0:" >"$stage/etc/group"
# The kernel opens /dev/console before /init runs; only root can make the node.
[ "$(id -u)" = 0 ] && mknod "$stage/dev/console" c 5 1

# libraries_of FILE: the absolute paths of FILE's shared libraries and loader, one a line
# (nothing for a static or non-ELF file).
libraries_of() {
    listing=$(ldd "$1" 2>/dev/null) || return 0
    missing=$(echo "$listing" | awk '$2 == "=>" && $3 == "not" { print $1 }')
    [ -z "$missing" ] || fail "$1 needs libraries ldd cannot find: $missing"
    echo "$listing" | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }'
}

# copy_in HOST GUEST: one file, dereferenced, at GUEST inside the archive.
copy_in() {
    mkdir -p "$stage$(dirname "$2")"
    cp -L "$1" "$stage$2"
}

libraries=$(mktemp)
printf %s "$adds" | while IFS= read -r spec; do
    [ -n "$spec" ] || continue
    host=${spec%%=*}
    guest=${spec#*=}
    [ -e "$host" ] || fail "--add $spec: $host does not exist"
    if [ "$guest" = "$spec" ]; then
        guest=$(cd "$(dirname "$host")" && pwd -P)/$(basename "$host")
    fi
    case $guest in /*) ;; *) fail "--add $spec: the guest path must be absolute" ;; esac
    if [ -d "$host" ]; then
        mkdir -p "$stage$guest"
        cp -a "$host/." "$stage$guest/"
        find "$host" -type f \( -perm -u+x -o -name '*.so*' \) | while IFS= read -r file; do
            libraries_of "$file"
        done >>"$libraries"
    else
        copy_in "$host" "$guest"
        libraries_of "$host" >>"$libraries"
    fi
done
sort -u "$libraries" | while IFS= read -r library; do
    [ -e "$stage$library" ] || copy_in "$library" "$library"
done
rm -f "$libraries"

mkdir -p "$(dirname "$output")"
(cd "$stage" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) >"$output.tmp"
mv "$output.tmp" "$output"
