#!/bin/sh
# run.sh — `make fuzz`: each fuzzer for SECONDS on its kept corpus; prints executions per
# second and in total. Fails when a fuzzer finds a crash (the input is saved in build/fuzz/).
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
seconds=${1:-25}
status=0
for name in records plan cli; do
    corpus="$root/tests/fuzz/corpus/$name"
    mkdir -p "$corpus"
    log="$root/build/fuzz/$name.log"
    leaks=1
    [ "$name" = cli ] && leaks=0 # a rejected command line leaves its partial settings behind
    (cd "$root/build/fuzz" && ASAN_OPTIONS="detect_leaks=$leaks" ./fuzz_$name \
        -max_total_time="$seconds" -max_len=8192 -detect_leaks=$leaks -print_final_stats=1 \
        "$corpus" >"$log" 2>&1)
    result=$?
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
    echo "fuzz $name: ${runs:-?} executions in ${seconds} s (${rate:-?} per second), corpus $(ls "$corpus" | wc -l) inputs"
    if [ "$result" -ne 0 ]; then
        echo "fuzz $name: FAILED, see $log"
        tail -20 "$log"
        status=1
    fi
done
exit $status
