#!/bin/sh
# demo.sh — run failrun on the bundled examples and print the reports (what `make demo` shows).
# failrun exits 1 when it finds bugs, which is the point of the demo; only 2 (an error) fails it.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
failrun="$root/build/failrun"
state="$root/build/demo"
rm -rf "$state"
mkdir -p "$state"

campaign() {
    name=$1
    shift
    echo
    echo "==== failrun run -- $* ===="
    "$failrun" run -q --db "$state/$name.db" -- "$@"
    status=$?
    [ "$status" -le 1 ] || exit "$status"
}

cd "$root" || exit 2
campaign kvstore build/examples/kvtest
campaign csvstat build/examples/csvstat <examples/csvstat/sample.csv
echo
echo "The databases are in build/demo/; see them again with: build/failrun report --db build/demo/kvstore.db"
