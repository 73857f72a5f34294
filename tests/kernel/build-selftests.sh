#!/bin/sh
# build-selftests.sh — build (once) the kernel selftests that `make check-kernel` sweeps with
# failrun kernel, from the same linux-source-6.1 the test kernel is built from, and print the
# folder of their binaries as the last line of standard output.
#
# Two sets, under tools/testing/selftests ("FOLDER/PROGRAM"), each program running in seconds on
# its own. SELFTESTS, swept on the debug kernel (the kernel's checkers: the third boot), exercises
# what the issue of kernel findings asks for: pipes and files (memfd, openat2, proc, mincore),
# memfd, POSIX and SysV message queues, AF_UNIX and inet sockets, futex, clone3 and pidfd, exec,
# sigaltstack. SELFTESTS_MORE was chosen by the system calls it adds to the first set (strace on
# the host), so that both together, swept on the plain kernel (the fourth boot: the census), make
# 100 system calls or more: splice, close_range, kcmp, ptrace, the memory calls (mremap, mlock2,
# madvise, msync), perf events, IPv6 sockets, the vDSO's fallbacks, x86's iopl and ioperm. The
# debug kernel runs each call several times slower in qemu, too slow for the second set within
# CI's time. Left out: epoll_wakeup_test (a minute of timed waits on its own, hours under a sweep
# in qemu), the timers tests (sleeps, and valid-adjtimex sets the clock the campaign times runs
# with), pidfd_poll_test and perf_events/sigtrap_threads (20-30 s each alone),
# af_unix/test_unix_oob (hangs without its signal), anything needing namespaces (the test kernel
# has none), modules, hardware, FUSE or hugetlbfs. eventfd, epoll and timerfd are the workload's
# (workload.c).
#
# Each is built with the selftests' own Makefile (lib.mk) against the source's exported headers
# (make headers), dynamically linked so failrun's preload reaches it, with -g (USERCFLAGS) so
# that a finding names its source line. Needs libcap-dev and
# libpopt-dev (tools/deps-kernel.sh installs them).
#
# Cache: ${LIBFAIL_KERNEL_CACHE:-/var/cache/libfail-kernel}/selftests-KEY/bin holds both sets, and
# selftests-KEY/debug-set the names of the first set's programs, one per line. KEY = hash of the
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
SELFTESTS_MORE="kcmp/kcmp_test core/close_range_test splice/default_file_splice_read
ptrace/get_syscall_info ptrace/peeksiginfo vm/mremap_dontunmap vm/mlock2-tests vm/madv_populate
vm/map_populate vm/mlock-random-test proc/proc-uptime-002 proc/proc-pid-vm net/ipv6_flowlabel_mgr
net/reuseport_dualstack pidfd/pidfd_getfd_test pidfd/pidfd_fdinfo_test vDSO/vdso_test_correctness
perf_events/remove_on_exec x86/iopl_64 x86/ioperm_64"

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
echo "build-selftests: building $(echo $SELFTESTS $SELFTESTS_MORE | wc -w) selftests from linux-source-6.1 $version (log: $log)" >&2
mkdir -p "$src"
tar -xJf "$tarball" -C "$src" --strip-components=1 >>"$log" 2>&1 || fail "cannot extract $tarball"
make -C "$src" ARCH=x86_64 headers >>"$log" 2>&1 ||
    fail "make headers failed; the end of $log:$(echo; tail -n 20 "$log")"
for test in $SELFTESTS $SELFTESTS_MORE; do
    folder=${test%/*}
    program=${test##*/}
    make -C "$src/tools/testing/selftests/$folder" USERCFLAGS=-g \
        "$src/tools/testing/selftests/$folder/$program" \
        >>"$log" 2>&1 ||
        fail "building the selftest $test failed; the end of $log:$(echo; tail -n 20 "$log")"
    cp "$src/tools/testing/selftests/$folder/$program" "$dir/bin/$program"
done
for test in $SELFTESTS; do
    echo "${test##*/}"
done >"$dir/debug-set"
rm -rf "$src"
touch "$dir/complete"
echo "build-selftests: $(echo $SELFTESTS $SELFTESTS_MORE | wc -w) selftests built in $(($(date +%s) - start)) s: $dir/bin" >&2
echo "$dir/bin"
