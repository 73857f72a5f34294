#!/bin/sh
# test_shards.sh — a campaign run as 3 shards and merged reports what one unsharded campaign
# reports; the shards' slices are disjoint; merge refuses inputs that do not belong together.
. "$(dirname "$0")/lib.sh"
work=$(scratch)
trap 'rm -rf "$work"' EXIT
cd "$ROOT" || exit 1
suite="make -s -f tests/data/suite.mk check"

"$FAILRUN" run -q --json --db "$work/whole.db" -- $suite >"$work/whole.json"
for k in 1 2 3; do
    "$FAILRUN" run -q --shard $k/3 --db "$work/shard$k.db" -- $suite >/dev/null
done
"$FAILRUN" merge "$work/shard1.db" "$work/shard2.db" "$work/shard3.db" -o "$work/all.db"
check_equal "merge: exit status 0" 0 $?
"$FAILRUN" report --json --db "$work/all.db" >"$work/all.json"

slice() { sql "$work/shard$1.db" "SELECT site FROM runs WHERE kind = 'fault' AND chain NOT LIKE '%,%' ORDER BY site"; }
check_equal "shards: the slices are disjoint and together cover every site" \
    "$(sql "$work/whole.db" "SELECT site FROM runs WHERE kind = 'fault' AND chain NOT LIKE '%,%' ORDER BY site")" \
    "$( (slice 1; slice 2; slice 3) | sort)"
check "shards: each shard ran only part of the campaign" \
    test "$(sql "$work/shard1.db" "SELECT count(*) FROM runs")" -lt "$(sql "$work/whole.db" "SELECT count(*) FROM runs")"
findings='[.findings[] | [.outcome, .signal_name, .location.file, .location.line, .runs]] | sort'
check_equal "merged: the same findings as the unsharded campaign" \
    "$(jq -c "$findings" "$work/whole.json")" "$(jq -c "$findings" "$work/all.json")"
# A site first seen on an error path is explored from the chain of the run that revealed it
# first; a shard sees only its own runs, so it may explore the same site from another chain too
# (README, Distributed campaigns). The baseline sites' runs and the error-path sites explored
# are the same.
check_equal "merged: the same runs of baseline sites, each with the same outcome" \
    "$(sql "$work/whole.db" "SELECT plan, outcome FROM runs WHERE chain NOT LIKE '%,%' ORDER BY plan")" \
    "$(sql "$work/all.db" "SELECT plan, outcome FROM runs WHERE chain NOT LIKE '%,%' ORDER BY plan")"
check_equal "merged: the same error-path sites explored" \
    "$(sql "$work/whole.db" "SELECT DISTINCT site FROM runs WHERE chain LIKE '%,%' ORDER BY 1")" \
    "$(sql "$work/all.db" "SELECT DISTINCT site FROM runs WHERE chain LIKE '%,%' ORDER BY 1")"

"$FAILRUN" run -q --db "$work/other.db" -- "$EXAMPLES/kvtest" >/dev/null
"$FAILRUN" merge "$work/shard1.db" "$work/other.db" -o "$work/bad.db" 2>"$work/err.txt"
check_equal "merge: another command's campaign is refused with status 2" 2 $?
check "merge: ... and one line saying why" grep -q "another command" "$work/err.txt"
"$FAILRUN" merge "$work/shard1.db" -o "$work/all.db" 2>/dev/null
check_equal "merge: an existing output is never overwritten" 2 $?
check "merge: a refused merge leaves no output behind" test ! -e "$work/bad.db"
