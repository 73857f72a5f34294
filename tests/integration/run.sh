#!/bin/sh
# run.sh — run every integration test script (test_*.sh); each check is appended to $RESULTS.
set -u
here=$(cd "$(dirname "$0")" && pwd)
: "${RESULTS:=$(mktemp)}"
export RESULTS
for script in "$here"/test_*.sh; do
    echo "# $(basename "$script")"
    sh "$script" || { echo "not ok - $(basename "$script") stopped early"; echo fail >>"$RESULTS"; }
done
echo "# integration: $(grep -c '^pass$' "$RESULTS") passed, $(grep -c '^fail$' "$RESULTS") failed"
! grep -q '^fail$' "$RESULTS"
