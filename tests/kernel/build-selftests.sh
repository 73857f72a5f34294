#!/bin/sh
# build-selftests.sh — build (once) the kernel selftests that `make check-kernel` sweeps with
# failrun kernel, from the same linux-source-6.1 the test kernel is built from, and print the
# folder of their binaries as the last line of standard output.
#
# The selection (SELFTESTS below, "FOLDER/PROGRAM" under tools/testing/selftests) exercises what
# the issue of kernel findings asks for and runs in seconds on its own: pipes and files (memfd,
# openat2, proc, mincore), memfd, POSIX and SysV message queues, AF_UNIX and inet sockets, futex,
# clone3 and pidfd, exec, sigaltstack. Left out: epoll_wakeup_test (a minute of timed waits on
# its own, hours under a sweep in qemu), the timers tests (sleeps), anything needing modules,
# hardware, FUSE or hugetlbfs. eventfd, epoll and timerfd are the workload's (workload.c).
#
# Each is built with the selftests' own Makefile (lib.mk) against the source's exported headers
# (make headers), dynamically linked so failrun's preload reaches it. Needs libcap-dev and
# libpopt-dev (tools/deps-kernel.sh installs them).
#
# Cache: ${LIBFAIL_KERNEL_CACHE:-/var/cache/libfail-kernel}/selftests-KEY/bin, KEY = hash of the
# linux-source-6.1 package version, this script and the compiler's version. Concurrent callers
# wait on the cache's lock.
set -eu
tarball=/usr/src/linux-source-6.1.tar.xz
cache=${LIBFAIL_KERNEL_CACHE:-/var/cache/libfail-kernel}
SELFTESTS="memfd/memfd_test mqueue/mq_open_tests ipc/msgque
futex/functional/futex_requeue futex/functional/futex_wait futex/functional/futex_wait_wouldblock
futex/functional/futex_waitv clone3/clone3 clone3/clone3_clear_sighand pidfd/pidfd_open_test
pidfd/pidfd_wait net/af_unix/unix_connect net/socket net/tcp_inq net/reuseport_addr_any
net/sk_bind_sendto_listen net/sk_connect_zero_addr mincore/mincore_selftest sigaltstack/sas
openat2/openat2_test proc/self proc/thread-self proc/fd-001-lookup exec/null-argv"

fail() {
    echo "build-selftests: $*" >&2
    exit 2
}

version=$(dpkg-query -W -f='${Version}' linux-source-6.1 2>/dev/null) ||
    fail "linux-source-6.1 is not installed; run: sh tools/deps-kernel.sh (as root)"
[ -r "$tarball" ] || fail "$tarball is missing; reinstall linux-source-6.1"
key=$( (echo "linux-source-6.1 $version"; cat "$0"; cc --version | head -n 1) | sha256sum | cut -c1-16)
dir="$cache/selftests-$key"
if [ -f "$dir/complete" ]; then
    echo "build-selftests: cached selftests $key" >&2
    echo "$dir/bin"
    exit 0
fi
mkdir -p "$cache" 2>/dev/null && [ -w "$cache" ] ||
    fail "cannot write the cache $cache; set LIBFAIL_KERNEL_CACHE to a writable folder"
exec 9>"$cache/.selftests.lock"
flock 9
if [ -f "$dir/complete" ]; then
    echo "$dir/bin"
    exit 0
fi
start=$(date +%s)
rm -rf "$dir"
mkdir -p "$dir/bin"
log="$dir/build.log"
src="$dir/src"
echo "build-selftests: building $(echo $SELFTESTS | wc -w) selftests from linux-source-6.1 $version (log: $log)" >&2
mkdir -p "$src"
tar -xJf "$tarball" -C "$src" --strip-components=1 >>"$log" 2>&1 || fail "cannot extract $tarball"
make -C "$src" ARCH=x86_64 headers >>"$log" 2>&1 ||
    fail "make headers failed; the end of $log:$(echo; tail -n 20 "$log")"
for test in $SELFTESTS; do
    folder=${test%/*}
    program=${test##*/}
    make -C "$src/tools/testing/selftests/$folder" "$src/tools/testing/selftests/$folder/$program" \
        >>"$log" 2>&1 ||
        fail "building the selftest $test failed; the end of $log:$(echo; tail -n 20 "$log")"
    cp "$src/tools/testing/selftests/$folder/$program" "$dir/bin/$program"
done
rm -rf "$src"
touch "$dir/complete"
echo "build-selftests: $(echo $SELFTESTS | wc -w) selftests built in $(($(date +%s) - start)) s: $dir/bin" >&2
echo "$dir/bin"
