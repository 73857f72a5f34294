#!/bin/sh
# check.sh — `make check-kernel`: boots the fault-injection kernel in qemu and runs the fail-nth
# probe there (guest-failnth.sh). Counts the guest's "ok - " / "not ok - " lines and the VM's own
# result as checks, and ends, like `make check`, with "N passed, N failed".
# Needs `make all` and build/tests/kernel/failnth_probe (the Makefile target builds them).
set -u
. "$(dirname "$0")/../integration/lib.sh"
probe="$ROOT/build/tests/kernel/failnth_probe"
log="$ROOT/build/tests/kernel/console.log"
RESULTS=$(mktemp)
mkdir -p "$(dirname "$log")"

sh "$ROOT/tests/kernel/run-vm.sh" --add "$probe=/usr/local/bin/failnth_probe" \
    --script "$ROOT/tests/kernel/guest-failnth.sh" --log "$log"
status=$?
check_equal "the VM booted, ran the guest script and reported its exit status" 0 "$status"
grep -q '^ok - ' "$log" && grep '^ok - ' "$log" | sed 's/.*/pass/' >>"$RESULTS"
grep -q '^not ok - ' "$log" && grep '^not ok - ' "$log" | sed 's/.*/fail/' >>"$RESULTS"
check "the guest ran its checks" grep -q '^ok - ' "$log"

passed=$(grep -c '^pass$' "$RESULTS")
failed=$(grep -c '^fail$' "$RESULTS")
rm -f "$RESULTS"
echo "console log: $log"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
