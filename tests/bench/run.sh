#!/bin/sh
# run.sh — `make bench`: the preload's cost per malloc/free pair, side by side in one run.
# Each configuration runs ROUNDS times, interleaved so machine noise hits all alike; the median
# nanoseconds per pair are printed with their ratio to the bare pair (no preload).
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
loop="$root/build/tests/bench/alloc_loop"
preload="$root/build/libfail-preload.so"
pairs=${PAIRS:-2000000}
rounds=${ROUNDS:-7}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

run() { # configuration name, then environment assignments
    name=$1
    shift
    rm -rf "$dir/run" && mkdir "$dir/run"
    env "$@" "$loop" "$pairs" >>"$dir/$name"
}

for round in $(seq "$rounds"); do
    run bare
    run inactive LD_PRELOAD="$preload"
    run record LD_PRELOAD="$preload" LIBFAIL_DIR="$dir/run" LIBFAIL_PLAN="mode=record" LIBFAIL_EXE='*'
    run fault LD_PRELOAD="$preload" LIBFAIL_DIR="$dir/run" LIBFAIL_EXE='*' \
        LIBFAIL_PLAN="mode=site;sites=0000000000000001:1@1+1"
done

median() { sort -n "$dir/$1" | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
base=$(median bare)
echo "per malloc/free pair, median of $rounds runs of $pairs pairs:"
for name in bare inactive record fault; do
    value=$(median "$name")
    case $name in
    bare) what="no preload" ;;
    inactive) what="preload loaded, no campaign" ;;
    record) what="record mode (baseline run)" ;;
    fault) what="fault run, away from the planned site" ;;
    esac
    awk -v n="$value" -v b="$base" -v w="$what" 'BEGIN { printf "  %-40s %8.1f ns  %6.1fx\n", w, n, n / b }'
done
