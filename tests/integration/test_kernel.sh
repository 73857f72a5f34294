#!/bin/sh
# test_kernel.sh — `failrun kernel` on this machine, whose kernel has no fault injection: the
# checks of the kernel's settings with their messages, and the sweep's plumbing against a plain
# file standing in for /proc/thread-self/fail-nth (it counts nothing, so every armed call reads
# back its N: "beyond its fault points"). The real kernel is `make check-kernel`'s (tests/kernel).
. "$(dirname "$0")/lib.sh"
work=$(scratch)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
relay="$EXAMPLES/relay"
source_file="$ROOT/examples/relay/relay.c"

LIBFAIL_TEST_FAILNTH="$work/missing" "$FAILRUN" kernel -- "$relay" >out 2>err
check_equal "no fail-nth file: exit status 2" 2 $?
check "no fail-nth file: says the kernel lacks CONFIG_FAULT_INJECTION" \
    grep -q "built without CONFIG_FAULT_INJECTION" err

echo 0 >fail-nth
export LIBFAIL_TEST_FAILNTH="$work/fail-nth" LIBFAIL_TEST_DEBUGFS="$work/debug"
"$FAILRUN" kernel -- "$relay" >out 2>err
check_equal "no debugfs: exit status 2" 2 $?
check "no debugfs: says to mount it or pass --setup-debugfs" grep -q -- "--setup-debugfs" err

mkdir -p debug/failslab debug/fail_page_alloc
echo Y >debug/failslab/ignore-gfp-wait
echo N >debug/fail_page_alloc/ignore-gfp-wait
echo 0 >debug/fail_page_alloc/min-order
"$FAILRUN" kernel -- "$relay" >out 2>err
check_equal "failslab/ignore-gfp-wait=Y: exit status 2" 2 $?
check "ignore-gfp-wait=Y: explains that allocations that may sleep are skipped" \
    grep -q "failslab/ignore-gfp-wait is Y.*GFP_KERNEL" err
echo N >debug/failslab/ignore-gfp-wait
echo 1 >debug/fail_page_alloc/min-order
"$FAILRUN" kernel -- "$relay" >out 2>err
check_equal "min-order=1: exit status 2" 2 $?
check "min-order=1: explains that order-0 allocations are skipped" grep -q "order-0" err

echo Y >debug/failslab/ignore-gfp-wait
"$FAILRUN" kernel --setup-debugfs -q --db kernel.db -- "$relay" >report.txt 2>err
check_equal "--setup-debugfs: the campaign runs" 0 $?
check_equal "--setup-debugfs: sets ignore-gfp-wait=N, min-order=0, verbose=0" "N N 0 0 0" \
    "$(for f in failslab/ignore-gfp-wait fail_page_alloc/ignore-gfp-wait fail_page_alloc/min-order \
                failslab/verbose fail_page_alloc/verbose; do printf '%s\n' "$(cat "debug/$f")"; done |
       tr '\n' ' ' | sed 's/ $//')"

# The system-call sites are relay.c's own calls, in source order.
expected=$(sed 's|/\*.*\*/||' "$source_file" | grep -n -E '(socketpair|write|read|pipe)\(' |
    grep -v -E '^[0-9]+:\s*(/\*| \*)' |
    sed -E 's/^([0-9]+):.*\b(socketpair|write|read|pipe)\(.*/\2 \1/' | tr '\n' ' ' | sed 's/ $//')
check_equal "the sites are relay.c's socketpair, write, read, pipe and read calls, by line" \
    "$expected" \
    "$(grep -E '^  [a-z]+\(\) at ' report.txt | sed -E 's/^  ([a-z]+)\(\) at .*relay\.c:([0-9]+) .*/\1 \2/' |
       tr '\n' ' ' | sed 's/ $//')"
check_equal "each site's sweep starts at N=1; a counter that did not reach 0 ends it" \
    "5 5" "$(sql kernel.db "SELECT count(*), sum(nth = 1 AND fired = 0) FROM kernel_faults" | tr '|' ' ')"
check_equal "the armed counter is written back to 0 after each call" 0 "$(cat fail-nth)"
check_equal "an armed call is only armed: the program's output is unchanged" \
    "$(sql kernel.db "SELECT count(*) FROM runs WHERE kind = 'fault'")" \
    "$(sql kernel.db "SELECT count(*) FROM runs WHERE kind = 'fault' AND outcome = 'not-reached'")"
check "plain failrun run does not see system calls (only libfail-kernel.so wraps them)" \
    test "$("$FAILRUN" run -q --json --db plain.db -- "$relay" | jq '[.runs[] | select(.function == "pipe")] | length')" = 0
"$FAILRUN" kernel --help >help.txt
check "failrun kernel --help names the option and the kernel options it needs" \
    grep -q -- "--setup-debugfs.*" help.txt
