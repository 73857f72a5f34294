#!/bin/sh
# test_unreached.sh — a campaign whose runs disturb each other (two at once sharing a lock in
# their working folder) has first runs that never reach the site the baseline reached: the
# report says so in its first lines, failrun warns and exits 1, and one run at a time does not.
. "$(dirname "$0")/lib.sh"
work=$(scratch)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1

"$FAILRUN" run --no-fork -j2 --db shared.db -- "$PROGRAMS/sharedlock" >shared.txt 2>shared.err
check_equal "two runs at once: failrun exits 1 although no run found a bug" 1 $?
check_equal "two runs at once: no finding" 0 "$(sql shared.db "SELECT count(*) FROM findings")"
unreached=$(sql shared.db "SELECT count(*) FROM runs WHERE kind = 'fault' AND outcome = 'not-reached'")
check "two runs at once: some runs never reached their site" test "$unreached" -ge 1
check "two runs at once: the report's first lines say how many and why" \
    sh -c "head -n 3 shared.txt | grep -q 'WARNING: $unreached run(s) never reached the site they were to fail'"
check "two runs at once: failrun warns on standard error" grep -q "never reached the site" shared.err
"$FAILRUN" run -q --json --no-fork -j2 --db shared2.db -- "$PROGRAMS/sharedlock" >shared2.json 2>/dev/null
check "two runs at once: JSON has the count" test "$(jq .campaign.unreached shared2.json)" -ge 1

"$FAILRUN" run -q --no-fork -j1 --db alone.db -- "$PROGRAMS/sharedlock" >alone.txt
check_equal "one run at a time: failrun exits 0" 0 $?
check_equal "one run at a time: every run reached its site" 0 \
    "$(sql alone.db "SELECT count(*) FROM runs WHERE kind = 'fault' AND outcome = 'not-reached'")"
check "one run at a time: no warning" sh -c "! grep -q WARNING alone.txt"
