#!/bin/sh
# test_unreached.sh — runs that disturb each other (two at once sharing a lock in their working
# folder: tests/programs/sharedlock.c). With -j2, before the first runs side by side, two runs
# made at once are compared with the baseline (made alone); they differ where a run alone does
# not, so failrun says why and runs one at a time, and every run reaches its site. A campaign
# whose check missed it (its note forged) has first runs that never reach the site the baseline
# reached: the report says so in its first lines, failrun warns and exits 1.
# unfinish DB: its fault runs to be made again, as if the campaign had been interrupted.
unfinish() {
    sql "$1" "UPDATE runs SET state = 'planned', outcome = NULL WHERE kind = 'fault';
              UPDATE campaign SET wall_ms = NULL"
}
. "$(dirname "$0")/lib.sh"
work=$(scratch)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1

"$FAILRUN" run --no-fork -j2 --db twin.db -- "$PROGRAMS/sharedlock" >twin.txt 2>twin.err
check_equal "-j2, found before the campaign: failrun exits 0" 0 $?
check "... and says why runs go one at a time" \
    grep -q "two runs of the command at the same time disturb each other .*Runs go one at a time (-j1)" twin.err
check "... said when the fault runs were about to start, not before the baseline" \
    sh -c "grep -n 'two runs of .* at the same time, to see whether -j2' twin.err | grep -qv '^1:'"
check_equal "... the baseline reached every site (it ran alone)" 4 \
    "$(sql twin.db "SELECT count(*) FROM sites")"
check_equal "... every run reached its site" 0 \
    "$(sql twin.db "SELECT count(*) FROM runs WHERE kind = 'fault' AND outcome = 'not-reached'")"
check "... the reason is kept for a resumed campaign" \
    test "$(sql twin.db "SELECT count(*) FROM campaign_notes WHERE kind = 'jobs'")" = 1
unfinish twin.db
"$FAILRUN" run --no-fork -j2 --db twin.db -- "$PROGRAMS/sharedlock" >/dev/null 2>resumed.err
check "... and a resumed campaign goes one at a time, saying so" \
    grep -q "runs go one at a time: two runs" resumed.err
check_equal "... its runs reach their sites" 0 \
    "$(sql twin.db "SELECT count(*) FROM runs WHERE kind = 'fault' AND outcome = 'not-reached'")"

# Two at once that both fail (each finds the other's line in its scratch file, or the file gone,
# as a suite's scripts in one folder do), where one alone passes: not failrun's doing (before,
# failrun blamed itself: the run without libfail passed), and one run at a time. With
# --whole-command every run is one of the command: its baseline has a twin beside it.
cat >scratch.sh <<SCRIPT
#!/bin/sh
echo \$\$ >>scratch.tmp
"$PROGRAMS/wrapped" >/dev/null
sleep 0.5
mine=\$(cat scratch.tmp 2>/dev/null)
rm -f scratch.tmp
[ "\$mine" = \$\$ ]
SCRIPT
chmod +x scratch.sh
"$FAILRUN" run --no-fork --whole-command -j2 --db scratch.db -- ./scratch.sh >/dev/null 2>scratch.err
check "failing at once, passing alone: the campaign runs (no 'failrun broke it', status 2)" \
    test $? -ne 2
check "... and says why it runs one at a time" \
    grep -q "two runs of the command at the same time disturb each other .*Runs go one at a time" scratch.err
check_equal "... its baseline is the one made alone (status 0)" 0 \
    "$(sql scratch.db "SELECT baseline_exit FROM campaign")"
check_equal "... that run alone, not one more (one baseline message, its folder kept)" \
    "1 baseline-alone" \
    "$(grep -c 'baseline run of' scratch.err) $(sql scratch.db "SELECT dir FROM runs WHERE kind = 'baseline'" | sed 's|.*/||; s|-[0-9]*$||')"
# Inside a suite (programs re-run alone) the same script's runs take less one at a time than
# two runs of the script at once: no check, one at a time.
"$FAILRUN" run --no-fork -j2 --db scratch-owner.db -- ./scratch.sh >/dev/null 2>scratch-owner.err
check "a suite whose runs left are short: one at a time without a check, saying so" \
    sh -c "grep -q 'run(s) left take about .* ms one at a time, less than checking' scratch-owner.err &&
           ! grep -q 'at the same time, to see' scratch-owner.err"
check_equal "... its runs reach their sites" 0 \
    "$(sql scratch-owner.db "SELECT count(*) FROM runs WHERE kind = 'fault' AND outcome = 'not-reached'")"

# The baseline and fault runs made at -j1, made again at -j2 with the check's note forged as
# though two runs at once had agreed (the check found nothing, as it may for a rare disturbance).
"$FAILRUN" run -q --no-fork -j1 --db shared.db -- "$PROGRAMS/sharedlock" >/dev/null 2>&1
unfinish shared.db
sql shared.db "INSERT INTO campaign_notes(kind, text) VALUES ('jobs_checked', 'side by side')"
"$FAILRUN" run --no-fork -j2 --db shared.db -- "$PROGRAMS/sharedlock" >shared.txt 2>shared.err
check_equal "two runs at once, unchecked: failrun exits 1 although no run found a bug" 1 $?
check_equal "two runs at once: no finding" 0 "$(sql shared.db "SELECT count(*) FROM findings")"
unreached=$(sql shared.db "SELECT count(*) FROM runs WHERE kind = 'fault' AND outcome = 'not-reached'")
check "two runs at once: some runs never reached their site" test "$unreached" -ge 1
check "two runs at once: the report's first lines say how many and why" \
    sh -c "head -n 3 shared.txt | grep -q 'WARNING: $unreached run(s) never reached the site they were to fail'"
check "two runs at once: failrun warns on standard error" grep -q "never reached the site" shared.err
"$FAILRUN" report --json --db shared.db >shared.json 2>/dev/null
check "two runs at once: JSON has the count" test "$(jq .campaign.unreached shared.json)" -ge 1

"$FAILRUN" run -q --no-fork -j1 --db alone.db -- "$PROGRAMS/sharedlock" >alone.txt
check_equal "one run at a time: failrun exits 0" 0 $?
check_equal "one run at a time: every run reached its site" 0 \
    "$(sql alone.db "SELECT count(*) FROM runs WHERE kind = 'fault' AND outcome = 'not-reached'")"
check "one run at a time: no warning" sh -c "! grep -q WARNING alone.txt"

# The check costs a run of the command only where runs are left to go side by side: a campaign
# made at -j1 and resumed at -j2 is checked then; one whose sites forks answer is never.
"$FAILRUN" run -q --no-fork -j1 --db later.db -- "$PROGRAMS/sharedlock" >/dev/null 2>&1
unfinish later.db
"$FAILRUN" run --no-fork -j2 --db later.db -- "$PROGRAMS/sharedlock" >/dev/null 2>later.err
check "made at -j1, resumed at -j2: checked then, and one at a time" \
    grep -q "disturb each other .*Runs go one at a time" later.err
check_equal "... its runs reach their sites" 0 \
    "$(sql later.db "SELECT count(*) FROM runs WHERE kind = 'fault' AND outcome = 'not-reached'")"
"$FAILRUN" run --fork -j2 --db forked.db -- "$PROGRAMS/sharedlock" >/dev/null 2>forked.err
check_equal "every site answered by forks: no check, no run side by side" \
    "0 4" "$(grep -c 'at the same time' forked.err) $(sql forked.db "SELECT count(*) FROM runs WHERE kind = 'fault' AND dir LIKE '%fork%'")"
