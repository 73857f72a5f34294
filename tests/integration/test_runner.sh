#!/bin/sh
# test_runner.sh — make check's own runner (tests/run-all.sh) tells a finished run from one that
# was stopped: an integration run killed part-way is a failure with its status, never a green
# count of the checks it got through.
. "$(dirname "$0")/lib.sh"
work=$(scratch)
trap 'rm -rf "$work"' EXIT

# A tree with run-all.sh and a stand-in for the integration runner: one passed check, then the
# behaviour under test (end normally, or be killed by SIGTERM as a CI timeout would).
tree() {
    mkdir -p "$work/$1/tests/integration"
    cp "$ROOT/tests/run-all.sh" "$work/$1/tests/run-all.sh"
    printf 'echo pass >>"$RESULTS"\n%s\n' "$2" >"$work/$1/tests/integration/run.sh"
}
tree whole 'exit 0'
tree killed 'kill -TERM $$'

sh "$work/whole/tests/run-all.sh" >"$work/whole.out" 2>&1
check_equal "a whole run: exit status 0" 0 $?
check "a whole run: its closing line counts the one check" grep -qx '1 passed, 0 failed' "$work/whole.out"

sh "$work/killed/tests/run-all.sh" >"$work/killed.out" 2>&1
status=$?
check "a run killed part-way: a non-zero exit status ($status)" test "$status" -ne 0
check "a run killed part-way: the closing line counts a failure" \
    grep -qx '1 passed, 1 failed' "$work/killed.out"
check "a run killed part-way: it says the runner ended with its status" \
    grep -q 'ended with status 143 before their own count' "$work/killed.out"
