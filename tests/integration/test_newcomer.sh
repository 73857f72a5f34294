#!/bin/sh
# test_newcomer.sh — a newcomer's path: clone the repository into a temporary folder and run the
# README's two commands exactly as written (the first code block). Inside that clone's own test
# run this test does nothing (LIBFAIL_NEWCOMER is set), so it does not recurse.
. "$(dirname "$0")/lib.sh"
if [ -n "${LIBFAIL_NEWCOMER:-}" ]; then
    echo "# newcomer: inside the newcomer's clone, not repeated"
    exit 0
fi
work=$(scratch)
trap 'rm -rf "$work"' EXIT
git clone -q "$ROOT" "$work/clone" 2>"$work/clone.txt"
check "newcomer: the repository clones (committed state)" test -f "$work/clone/README.md"
cd "$work/clone" || exit 1
commands=$(awk '/^```/ { if (inside) exit; inside = 1; next } inside' README.md | sed 's/ *#.*//')
check_equal "newcomer: the README starts with the two commands" "make demo
make check" "$commands"
LIBFAIL_NEWCOMER=1 sh -c "make demo" >demo.txt 2>&1
check_equal "newcomer: make demo succeeds" 0 $?
check "newcomer: make demo prints the planted bugs by file:line" \
    sh -c "grep -q 'BUG 1: crash (SIGSEGV) at .*examples/kvstore/kv.c:' demo.txt && grep -q 'leak at .*examples/csvstat/csv.c:' demo.txt"
LIBFAIL_NEWCOMER=1 sh -c "make check" >check.txt 2>&1
check_equal "newcomer: make check succeeds" 0 $?
echo "    newcomer: $(grep -E "^[0-9]+ passed, [0-9]+ failed" check.txt | tail -1)"
# Which checks of the clone's run failed, with what they expected: without this a red nested run
# says only that something failed.
awk '/^# test_.*\.sh$/ { script = $2 } /^\[==========\] Running/ { script = "unit tests" }
     /^not ok|\[  FAILED  \]|exited with status/ { shown = 7; print "    newcomer: in " script ":" }
     shown > 0 { print "    newcomer: " $0; shown-- }' check.txt | head -80
