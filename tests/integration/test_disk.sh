#!/bin/sh
# test_disk.sh — what a campaign leaves on disk: failrun cov removes each run's gcov data once
# stored in the database; a finding keeps the folder of the run that represents it, not of
# each of its runs; --keep-runs=SIZE keeps the others too and bounds the kept folders of runs
# without bugs, oldest first, never those of runs that found bugs, and the report says what
# it removed.
. "$(dirname "$0")/lib.sh"
work=$(scratch)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
runs=.failrun/campaign.files/runs

"$FAILRUN" run -q --keep-runs -- "$EXAMPLES/cov/kvtest" >run.txt
gcov_before=$(( $(ls -d "$runs"/*.gcov 2>/dev/null | wc -l) + $(packed_keys "$runs/gcov.packs" | wc -l) ))
check "before failrun cov: each run has its gcov data" test "$gcov_before" -gt 10
before=$(du -sk .failrun | cut -f1)
"$FAILRUN" cov --json >first.json
check_equal "failrun cov: the gcov data it stored is removed (folders and packs)" 0 \
    "$(ls -d "$runs"/*.gcov "$runs"/gcov.packs 2>/dev/null | wc -l)"
after=$(du -sk .failrun | cut -f1)
echo "# du -sk .failrun: $before KB before failrun cov, $after KB after"
# The gcov data moves into the database: packed (every run's, the baseline's too), it takes
# about what its rows take, so the folder must not grow (a tenth of slack for SQLite's pages).
check "failrun cov: the campaign folder does not grow (its gcov data moved into the database)" \
    test "$after" -le $((before + before / 10))
check_equal "failrun cov: the kept run folders stay" "$(sql .failrun/campaign.db "SELECT count(*) FROM runs")" \
    "$(ls -d "$runs"/*[0-9] | wc -l)"
"$FAILRUN" cov --json >second.json
check_equal "failrun cov again: the same coverage, from the database alone" \
    "$(jq -c '[.lines, .branches, [.files[].path]]' first.json)" \
    "$(jq -c '[.lines, .branches, [.files[].path]]' second.json)"

rm -rf .failrun
"$FAILRUN" run -q --json --keep-runs=64K -- "$EXAMPLES/cov/kvtest" >bound.json
"$FAILRUN" run -q --keep-runs=64K -- "$EXAMPLES/cov/kvtest" >bound.txt
removed=$(jq .campaign.kept_runs_removed bound.json)
check "--keep-runs=64K: older folders of runs without bugs removed" test "$removed" -gt 0
check "--keep-runs=64K: the report says so" grep -q "older folders of runs without bugs removed" bound.txt
bug_runs=$(sql .failrun/campaign.db "SELECT dir FROM runs WHERE finding IS NOT NULL")
missing=0
for dir in $bug_runs; do [ -d "$dir" ] || missing=$((missing + 1)); done
check_equal "--keep-runs=64K: every folder of a run with a bug is kept" 0 "$missing"
other=0
for dir in $(sql .failrun/campaign.db "SELECT dir FROM runs WHERE kind = 'fault' AND finding IS NULL"); do
    [ -d "$dir" ] && other=$((other + $(du -sk "$dir" | cut -f1)))
done
largest=$(du -sk "$runs"/*[0-9] | sort -n | tail -1 | cut -f1)
check "--keep-runs=64K: the kept folders of runs without bugs take at most 64 KB (+ the newest)" \
    test "$other" -le $((64 + largest))
"$FAILRUN" cov --json >bounded-cov.json
check_equal "--keep-runs=64K: the coverage of removed runs' folders is still read" \
    "$(jq -c '.lines' first.json)" "$(jq -c '.lines' bounded-cov.json)"
"$FAILRUN" run -q --keep-runs=10X -- true 2>err.txt
check_equal "--keep-runs=10X: refused with status 2" 2 $?

# One bug reached from six sites: one finding of six runs, and one folder kept, its replay's.
for keep in "" --keep-runs; do
    "$FAILRUN" run -q --db "represent$keep.db" $keep -- "$PROGRAMS/represent" >/dev/null
    kept=$(sql "represent$keep.db" "SELECT id, dir FROM runs WHERE kind = 'fault'" |
           while IFS='|' read -r id dir; do [ -d "$dir" ] && echo "$id"; done | tr '\n' ' ')
    if [ -z "$keep" ]; then
        check_equal "one bug from six sites: one finding of six runs" "1 6" \
            "$(sql represent.db "SELECT count(*), sum(runs) FROM findings" | tr '|' ' ')"
        check_equal "... the folder kept is its representative run's alone" \
            "$(sql represent.db "SELECT first_run FROM findings") " "$kept"
    else
        check_equal "... with --keep-runs, the folder of each of its runs" \
            "$(sql represent--keep-runs.db "SELECT id FROM runs WHERE finding IS NOT NULL ORDER BY id" |
               tr '\n' ' ')" "$kept"
    fi
done
