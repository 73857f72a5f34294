#!/bin/sh
# test_envlength.sh — one campaign, one environment: every run gives the program environment
# values of the same lengths (the run folder's name grows with the run's number, the plan with its
# sites; campaign.c pads both), and so does a second campaign of the same command whose database
# lies elsewhere. tests/programs/envlength prints its environment's size after sixteen sites.
. "$(dirname "$0")/lib.sh"
work=$(scratch)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
program="$PROGRAMS/envlength"

"$FAILRUN" run -q --json --db short.db -- "$program" >short.json
check_equal "seventeen sites (printf's buffer too), a run each, past run number 9" "17 18" \
    "$(sql short.db "SELECT count(*) FROM sites") $(sql short.db "SELECT count(*) FROM runs")"
check_equal "every run saw an environment of the baseline's size: all absorbed, no finding" \
    "absorbed 17 | 0" \
    "$(sql short.db "SELECT group_concat(outcome || ' ' || n) FROM (SELECT outcome, count(*) n
                     FROM runs WHERE kind = 'fault' GROUP BY outcome)") | $(jq '.findings | length' short.json)"
# A fork run adds its root (LIBFAIL_FORK); every other run holds a value of its length there.
"$FAILRUN" run -q --json --fork --db fork.db -- "$program" >fork.json
check_equal "--fork: the fork run's children saw the baseline's size too: all absorbed, no finding" \
    "absorbed 17 | 0" \
    "$(sql fork.db "SELECT group_concat(outcome || ' ' || n) FROM (SELECT outcome, count(*) n
                     FROM runs WHERE kind = 'fault' GROUP BY outcome)") | $(jq '.findings | length' fork.json)"
mkdir -p a/much/longer/folder/for/the/second/campaign
"$FAILRUN" run -q --keep-runs --db a/much/longer/folder/for/the/second/campaign/long.db \
    -- "$program" >/dev/null
"$FAILRUN" run -q --keep-runs --db again.db -- "$program" >/dev/null
baseline() { cat "$(sql "$1" "SELECT dir FROM runs WHERE kind = 'baseline'")/stdout"; }
check_equal "a second campaign, its database in a longer folder, sees the same size" \
    "$(baseline again.db)" "$(baseline a/much/longer/folder/for/the/second/campaign/long.db)"
check_equal "... and so do all its runs" 1 \
    "$(for dir in $(sql again.db "SELECT dir FROM runs"); do cat "$dir/stdout"; done | sort -u | wc -l)"
