#!/bin/sh
# run-all.sh — every test: the cmocka unit tests given as arguments, then the integration tests.
# Prints one closing line "N passed, N failed" and fails when anything failed.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
passed=0
failed=0
for test in "$@"; do
    output=$("$test" 2>&1)
    status=$?
    echo "$output"
    p=$(echo "$output" | sed -n 's/^\[  PASSED  \] \([0-9]*\) test(s)\./\1/p')
    f=$(echo "$output" | sed -n 's/^\[  FAILED  \] \([0-9]*\) test(s), listed below:/\1/p')
    passed=$((passed + ${p:-0}))
    failed=$((failed + ${f:-0}))
    if [ "$status" -ne 0 ] && [ -z "$f" ]; then
        echo "$test: exited with status $status"
        failed=$((failed + 1))
    fi
done
results=$(mktemp)
RESULTS=$results sh "$root/tests/integration/run.sh"
status=$?
p=$(grep -c '^pass$' "$results")
f=$(grep -c '^fail$' "$results")
rm -f "$results"
passed=$((passed + p))
failed=$((failed + f))
# A run stopped from outside (a signal, a shell error) has not counted what it did not run.
if [ "$status" -ne 0 ] && [ "$f" -eq 0 ]; then
    echo "integration tests: ended with status $status before their own count"
    failed=$((failed + 1))
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
