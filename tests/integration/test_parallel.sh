#!/bin/sh
# test_parallel.sh — -j N runs several fault runs at once and ends with exactly the result of a
# one-at-a-time campaign: the same runs, outcomes and findings (each represented by its earliest
# run, whatever order the runs finished in).
. "$(dirname "$0")/lib.sh"
work=$(scratch)
trap 'rm -rf "$work"' EXIT
cd "$ROOT" || exit 1

suite="make -s -f tests/data/suite.mk check"
"$FAILRUN" run -q -j1 --json --db "$work/one.db" -- $suite >"$work/one.json"
"$FAILRUN" run -q -j3 --json --db "$work/three.db" -- $suite >"$work/three.json"
runs="SELECT site, outcome, exit_code, signal FROM runs ORDER BY site"
check "-j3: as many runs as -j1" test "$(sql "$work/one.db" "$runs" | wc -l)" -ge 30
check_equal "-j3: every run has the outcome it has with -j1" \
    "$(sql "$work/one.db" "$runs")" "$(sql "$work/three.db" "$runs")"
findings='[.findings[] | [.outcome, .site, .location.file, .location.line, .runs]]'
check_equal "-j3: the same findings, in the same order, with the same representative site" \
    "$(jq -c "$findings" "$work/one.json")" "$(jq -c "$findings" "$work/three.json")"

# Runs are concluded in the order of their ids, whatever order they finish in: a site reached on
# the error legs of two runs gets its chain from the earlier run, as with -j1 (chainorder's first
# run is slow, so with -j2 it used to finish last and lose the chain to the second).
program="$ROOT/build/tests/programs/chainorder"
chains="SELECT count(*), group_concat(chain, ' ') FROM (SELECT chain FROM runs WHERE chain LIKE '%,%' ORDER BY chain)"
"$FAILRUN" run -q -j1 --db "$work/order1.db" -- "$program" >/dev/null 2>&1
"$FAILRUN" run -q -j2 --db "$work/order2.db" -- "$program" >/dev/null 2>&1
check_equal "-j2: a site reached from two runs' error legs is chained after the same run as with -j1" \
    "$(sql "$work/order1.db" "$chains")" "$(sql "$work/order2.db" "$chains")"
check "-j1: chainorder makes exactly one chain" test "$(sql "$work/order1.db" "SELECT count(*) FROM runs WHERE chain LIKE '%,%'")" = 1
