#!/bin/sh
# test_failnth.sh — the userspace fail-nth counter follows the kernel's rules: 1-based, one-shot,
# per thread (tests/unit/test_oom.c), armed by LIBFAIL_FAIL_NTH, survives exec, a fork child and
# a spawned process start at 0. Run twice: linked with libfail.so, and with the preload on top
# (whose copy then serves every call).
. "$(dirname "$0")/lib.sh"
program="$PROGRAMS/failnth"

for how in linked preloaded; do
    if [ $how = preloaded ]; then
        run() { LD_PRELOAD="$ROOT/build/libfail-preload.so" "$@"; }
    else
        run() { "$@"; }
    fi
    # Which of three allocations failed, as "ok failed ok".
    pattern() { grep "^$1: allocation" | awk '{ printf "%s%s", sep, $4; sep = " " }'; }

    out=$(LIBFAIL_FAIL_NTH=2 run "$program" start)
    check_equal "$how: LIBFAIL_FAIL_NTH=2 arms the counter at 2" "start: counter 2" \
        "$(echo "$out" | grep counter)"
    check_equal "$how: LIBFAIL_FAIL_NTH=2 fails the 2nd allocation only (1-based, one-shot)" \
        "ok failed ok" "$(echo "$out" | pattern start)"
    check_equal "$how: LIBFAIL_FAIL_NTH is gone from the environment once read" \
        "environment: LIBFAIL_FAIL_NTH unset" \
        "$(LIBFAIL_FAIL_NTH=2 run "$program" environment)"
    out=$(LIBFAIL_FAIL_NTH=0 run "$program" start)
    check_equal "$how: LIBFAIL_FAIL_NTH=0 arms nothing" "ok ok ok" "$(echo "$out" | pattern start)"

    # Armed with 3, one allocation made: 2 left, which the exec'd image inherits.
    out=$(run "$program" exec 3)
    check_equal "$how: the counter survives exec (execl)" "start: counter 2" \
        "$(echo "$out" | grep counter)"
    check_equal "$how: after exec the inherited count fails the right call" "ok failed ok" \
        "$(echo "$out" | pattern start)"
    out=$(PATH="$PROGRAMS:$PATH" run "$program" execvp 2)
    check_equal "$how: the counter survives exec (execvp, through PATH)" "start: counter 1" \
        "$(echo "$out" | grep counter)"

    out=$(run "$program" fork 3)
    check_equal "$how: a forked child starts at 0" "child: counter 0" \
        "$(echo "$out" | grep 'child: counter')"
    check_equal "$how: none of the child's allocations fail" "ok ok ok" \
        "$(echo "$out" | pattern child)"
    check_equal "$how: the parent's counter is untouched by the child" "parent: counter 2" \
        "$(echo "$out" | grep 'parent: counter')"
    out=$(run "$program" vfork 3)
    check_equal "$how: a vfork child that execs starts at 0" "start: counter 0" \
        "$(echo "$out" | grep 'start: counter')"
    check_equal "$how: ... and the parent's counter is untouched" "parent: counter 2" \
        "$(echo "$out" | grep 'parent: counter')"
    out=$(run "$program" spawn 3)
    check_equal "$how: a process started with posix_spawn starts at 0" "start: counter 0" \
        "$(echo "$out" | grep counter)"
done

# The first allocation libfail sees may come from inside setenv, under glibc's environment lock:
# reading LIBFAIL_FAIL_NTH there must not take that lock again (it hung).
# (timeout starts env, which sets them for the program only: timeout itself would take them.)
out=$(timeout 20 env LIBFAIL_FAIL_NTH=5 \
      LD_PRELOAD="$ROOT/build/libfail-preload.so:$PROGRAMS/libsetenv.so" "$program" start)
counter=$(echo "$out" | sed -n 's/^start: counter //p')
check "LIBFAIL_FAIL_NTH with a library calling setenv first: no hang, still armed ($counter)" \
    test "${counter:-0}" -ge 1 -a "${counter:-0}" -le 5
