#!/bin/sh
# test_install.sh — make install into a temporary DESTDIR: the files land where a user expects,
# a program builds against the installed copy with pkg-config, the installed failrun finds the
# installed preload, man pages render, and make uninstall removes it all.
. "$(dirname "$0")/lib.sh"
work=$(scratch)
trap 'rm -rf "$work"' EXIT
dest="$work/root"
prefix=/opt/libfail-test

make -s -C "$ROOT" install DESTDIR="$dest" PREFIX="$prefix" >"$work/install.txt" 2>&1
check_equal "make install: succeeds" 0 $?
for file in bin/failrun lib/libfail.so.0.1.0 lib/libfail.so.0 lib/libfail.so lib/libfail.a \
    lib/libfail/libfail-preload.so lib/libfail/libfail-preload-io.so lib/libfail/libfail-kernel.so \
    lib/libfail/libfail-audit.so lib/pkgconfig/libfail.pc include/libfail.h \
    include/libfail/cmocka.h share/man/man1/failrun.1 share/man/man3/libfail.3; do
    check "make install: $file" test -e "$dest$prefix/$file"
done
check_equal "the shared library's soname" "libfail.so.0" \
    "$(readelf -d "$dest$prefix/lib/libfail.so.0.1.0" | sed -n 's/.*SONAME.*\[\(.*\)\]/\1/p')"

cat >"$work/use.c" <<'SOURCE'
#include <libfail.h>
#include <stdio.h>
#include <stdlib.h>
int main(void)
{
    lf_fail_nth_set(1);
    void *p = malloc(10);
    printf("%s %s %lu\n", lf_version(), p ? "allocated" : "failed", lf_fail_nth_get());
    return 0;
}
SOURCE
export PKG_CONFIG_PATH="$dest$prefix/lib/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$dest"
cc -o "$work/use" "$work/use.c" $(pkg-config --cflags --libs libfail) \
    -Wl,-rpath,"$dest$prefix/lib" 2>"$work/cc.txt"
check "pkg-config: a program builds against the installed libfail" test -x "$work/use"
check_equal "the installed library fails the armed allocation" "0.1.0 failed 0" "$("$work/use")"

(cd "$work" && "$dest$prefix/bin/failrun" run -q --json -- "$EXAMPLES/kvtest" >kv.json)
check_equal "the installed failrun finds its preload in lib/libfail and the bugs" 2 \
    "$(jq '.findings | length' "$work/kv.json")"
check "man failrun renders" sh -c "man -l '$dest$prefix/share/man/man1/failrun.1' 2>/dev/null | grep -q 'FAILRUN'"
check "man libfail renders" sh -c "man -l '$dest$prefix/share/man/man3/libfail.3' 2>/dev/null | grep -q 'lf_fail_nth_set'"

make -s -C "$ROOT" uninstall DESTDIR="$dest" PREFIX="$prefix" >/dev/null 2>&1
check_equal "make uninstall: no file is left" "" "$(find "$dest" -type f -o -type l)"
