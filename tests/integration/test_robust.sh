#!/bin/sh
# test_robust.sh — the preload never breaks a target: each case runs under a campaign (a
# record-mode baseline plus fault runs, bounded by a timeout) and on its own, and must end the
# same way, with no hang and no record lost. Prints the figures.
. "$(dirname "$0")/lib.sh"
work=$(scratch)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
robust="$PROGRAMS/robust"

# campaign NAME ARGS...: a bounded campaign; prints its figures.
campaign() {
    name=$1
    shift
    start=$(date +%s%N)
    timeout 300 "$FAILRUN" run -q -j1 --max-runs 2 --timeout 120 --db "$name.db" -- "$@" >/dev/null
    status=$?
    ms=$((($(date +%s%N) - start) / 1000000))
    echo "    $name: campaign of $(sql "$name.db" "SELECT count(*) FROM runs") runs in $ms ms; $(cat "$name.files/runs/"*/stdout 2>/dev/null | head -1)"
    return $status
}
no_hang_or_crash() {
    test "$(sql "$1.db" "SELECT count(*) FROM runs WHERE outcome IN ('hang', 'crash') OR timed_out")" = 0
}

# (a) 8 threads, 10^6 allocations each, blocks freed by other threads.
"$robust" threads 1000000 >plain.txt
campaign threads "$robust" threads 1000000
check "threads: the campaign completes (no hang)" test $? -le 1
check_equal "threads: the baseline ends as without the preload" "0 $(cat plain.txt)" \
    "$(sql threads.db "SELECT exit_code FROM runs WHERE kind = 'baseline'") $(cat threads.files/runs/1-*/stdout 2>/dev/null || echo '?')"
check "threads: no fault run hangs or crashes" no_hang_or_crash threads

# (b) 300 forks while 3 threads allocate; children allocate before exec.
campaign forks "$robust" forks 300
check "forks: the campaign completes" test $? -le 1
check_equal "forks: every image of every process recorded (parent + 300 forks + 300 execs)" 601 \
    "$(sql forks.db "SELECT count(*) FROM processes WHERE run = 1")"
check_equal "forks: every forked child's allocation before exec was seen" 300 \
    "$(sql forks.db "SELECT count(*) FROM processes WHERE run = 1 AND forked = 1 AND exe LIKE '%robust'")"
check "forks: no fault run hangs or crashes" no_hang_or_crash forks

# (e) an execve chain three deep, posix_spawn, vfork.
campaign chain "$robust" chain 3
check_equal "chain: four images of one pid recorded (the program and three execs)" "4 1" \
    "$(sql chain.db "SELECT count(*), count(DISTINCT pid) FROM processes WHERE run = 1 AND exe LIKE '%robust'" | tr '|' ' ')"
check_equal "chain: the posix_spawn and vfork children recorded too" 2 \
    "$(sql chain.db "SELECT count(*) FROM processes WHERE run = 1 AND exe LIKE '%true'")"
check "chain: no fault run hangs or crashes" no_hang_or_crash chain

# (f) a signal handler that allocates, interrupting a main loop that allocates.
plain=$("$robust" signals 2000000)
check "signals: the handler ran and allocated (without the preload)" \
    test "$(echo "$plain" | awk '{ print $4 }')" -gt 0
campaign signals "$robust" signals 2000000
check_equal "signals: the baseline ends as without the preload" 0 \
    "$(sql signals.db "SELECT exit_code FROM runs WHERE kind = 'baseline'")"
check "signals: no fault run hangs" test "$(sql signals.db "SELECT count(*) FROM runs WHERE outcome = 'hang'")" = 0

# (h) a program linked with another allocator (jemalloc): the preload stacks on it.
"$FAILRUN" run -q --json --db jemalloc.db -- "$ROOT/build/tests/jemalloc/kvtest" >jemalloc.json
check "jemalloc: the program really uses jemalloc" \
    sh -c "ldd '$ROOT/build/tests/jemalloc/kvtest' | grep -q libjemalloc"
check_equal "jemalloc: the null dereference is found (jemalloc does not abort on double free)" \
    "crash $(marker examples/kvstore/kv.c 'BUG(null-deref)' | cut -d: -f2)" \
    "$(jq -r '.findings[] | "\(.outcome) \(.location.line)"' jemalloc.json)"
