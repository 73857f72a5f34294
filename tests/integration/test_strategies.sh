#!/bin/sh
# test_strategies.sh — what runs fail: exploration of error-path sites to a fixpoint (bounded by
# --max-runs), --occurrence, --persistent, --nth, --nth-sweep, --probability with --seed.
. "$(dirname "$0")/lib.sh"
work=$(scratch)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
program="$PROGRAMS/strategies"
bug_line() { marker tests/programs/strategies.c "BUG($1)" | cut -d: -f2; }

"$FAILRUN" run -q --json --db explore.db -- "$program" explore >explore.json
check "explore: exploration adds runs beyond the baseline's sites" test \
    "$(sql explore.db "SELECT count(*) FROM runs WHERE kind = 'fault'")" -gt \
    "$(sql explore.db "SELECT count(*) FROM sites WHERE first_run = 1")"
check_equal "explore: the bug on the error leg is found at its line" \
    "crash SEGV $(bug_line chain)" \
    "$(jq -r '.findings[] | "\(.outcome) \(.signal_name) \(.location.line)"' explore.json)"
check "explore: the finding names the chain of two failures that reaches it" \
    test "$(jq -r '.findings[0].chain | split(",") | length' explore.json)" = 2
replay=$(jq -r '.findings[0].replay' explore.json)
eval "$FAILRUN ${replay#failrun }" >/dev/null 2>replay.err
check_equal "explore: its replay command reproduces the crash" 139 $?
check_equal "explore: the replay reports both injected failures" 2 "$(grep -c injected replay.err)"
"$FAILRUN" run -q --max-runs 1 --db bounded.db -- "$program" explore >/dev/null
check_equal "--max-runs 1: exploration stops at the bound" 1 \
    "$(sql bounded.db "SELECT count(*) FROM runs WHERE kind = 'fault'")"

"$FAILRUN" run -q --json --db first.db -- "$program" loop >first.json
check_equal "loop: failing each site's first call finds no bug" 0 "$(jq '.findings | length' first.json)"
"$FAILRUN" run -q --json --occurrence 2 --db second.db -- "$program" loop >second.json
check_equal "--occurrence 2: the bug of the second call is found" "crash $(bug_line occurrence)" \
    "$(jq -r '.findings[] | "\(.outcome) \(.location.line)"' second.json)"

retry_outcome() { sql "$1" "SELECT outcome || ' ' || exit_code FROM runs r JOIN sites s ON s.id = r.site WHERE s.max_size = 100"; }
"$FAILRUN" run -q --db retry.db -- "$program" retry >/dev/null
check_equal "retry: one failure is absorbed by the retry" "absorbed 0" "$(retry_outcome retry.db)"
"$FAILRUN" run -q --persistent --db persistent.db -- "$program" retry >/dev/null
check_equal "--persistent: the retry gives up and reports it" "handled 3" "$(retry_outcome persistent.db)"

"$FAILRUN" run -q --json --nth-sweep --db sweep.db -- "$EXAMPLES/kvtest" >sweep.json
fired=$(sql sweep.db "SELECT count(*) FROM runs WHERE kind = 'fault' AND outcome <> 'not-reached'")
check_equal "--nth-sweep: runs for N = 1, 2, ... and one more where the N-th call never comes" \
    "$((fired + 1)) not-reached" \
    "$(sql sweep.db "SELECT count(*) FROM runs WHERE kind = 'fault'; SELECT outcome FROM runs ORDER BY id DESC LIMIT 1" | paste -sd' ')"
check "--nth-sweep: kvtest makes over 100 allocation calls" test "$fired" -gt 100
check_equal "--nth-sweep: finds both kvtest bugs" "crash crash" \
    "$(jq -r '[.findings[].outcome] | join(" ")' sweep.json)"
nth=$(sql sweep.db "SELECT plan FROM runs WHERE outcome = 'crash' AND signal = 11 ORDER BY id LIMIT 1" | sed 's/.*nth=\([0-9]*\).*/\1/')
"$FAILRUN" run -q --json --nth "$nth" --db nth.db -- "$EXAMPLES/kvtest" >nth.json
check_equal "--nth N: one run, failing the N-th call the sweep found crashing" "1 SEGV" \
    "$(jq -r '"\(.campaign.runs - 1) \(.findings[0].signal_name)"' nth.json)"

for round in 1 2; do
    "$FAILRUN" run -q --probability 0.02 --seed 7 --max-runs 12 --db random$round.db -- "$EXAMPLES/kvtest" >/dev/null
done
check_equal "--probability: --max-runs runs" 12 "$(sql random1.db "SELECT count(*) FROM runs WHERE kind = 'fault'")"
check_equal "--probability --seed: the same seeds give the same outcomes" \
    "$(sql random1.db "SELECT plan, outcome, exit_code FROM runs ORDER BY id")" \
    "$(sql random2.db "SELECT plan, outcome, exit_code FROM runs ORDER BY id")"
check "--probability: some runs failed something" \
    test "$(sql random1.db "SELECT count(*) FROM runs WHERE kind = 'fault' AND outcome <> 'not-reached'")" -ge 3
