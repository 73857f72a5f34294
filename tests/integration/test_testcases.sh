#!/bin/sh
# test_testcases.sh — fork mode's children end where their test case ends (libfail/fork/testcase.c):
# in a minicheck-style runner (srunner_run_all, built in; cmocka's and Unity's too) and in a suite's own loop body named by
# --test-case FUNC:int. Each site gets the outcome re-run mode gives it; no child runs a later
# test case; a test case's result decides (failed: handled, passed: absorbed, a crash stays a
# crash with the runner on its stack); the report says how the fork runs ended; coverage of the
# stopped children is written; by default a program forks where re-running it would cost more
# than FAILRUN_FORK_ABOVE_MS.
. "$(dirname "$0")/lib.sh"
work=$(scratch)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
program="$PROGRAMS/testcases"
outcomes="SELECT site, outcome, exit_code, signal FROM runs WHERE kind = 'fault' ORDER BY site"
# ends DB: how each fork run that ended with its test case ended, and its outcome.
ends() {
    sql "$1" "SELECT test_case, outcome FROM runs WHERE test_case IS NOT NULL ORDER BY test_case, outcome"
}

# Re-run mode, then fork mode, of the runner style.
"$FAILRUN" run -q --no-fork --db rerun.db -- "$program" >rerun.txt
rerun_status=$?
"$FAILRUN" run -q --fork --keep-runs --db fork.db -- "$program" >fork.txt
check_equal "runner: fork mode exits as re-run mode does" "$rerun_status" $?
check_equal "runner: every site has the outcome, status and signal of re-run mode" \
    "$(sql rerun.db "$outcomes")" "$(sql fork.db "$outcomes")"
check_equal "runner: the checked copy, the fixture and the ignored copy end with their test case" \
    "failed srunner_run_all|handled
failed srunner_run_all|handled
passed srunner_run_all|absorbed" \
    "$(ends fork.db)"
check_equal "runner: the crash is no test case's end (the child died in it)" "crash|" \
    "$(sql fork.db "SELECT outcome, test_case FROM runs WHERE signal <> 0")"
check_equal "runner: re-run mode has no test-case ends" 0 \
    "$(sql rerun.db "SELECT count(*) FROM runs WHERE test_case IS NOT NULL")"
# Every child that stopped printed nothing of the tests after its own: the last test's line is
# in none of their outputs.
late=0
for dir in $(sql fork.db "SELECT dir FROM runs WHERE test_case IS NOT NULL"); do
    grep -q "last test ran" "$dir/stdout" && late=$((late + 1))
done
check_equal "runner: no child that stopped ran the last test" 0 "$late"
# Both failures are in the first test (its fixture, its copy): the runner reports it, and the
# child ends as the next test gets to the same step.
for dir in $(sql fork.db "SELECT dir FROM runs WHERE test_case LIKE 'failed%'"); do
    check_equal "runner: a failed child printed the runner's report of its test, and nothing of later tests" \
        "FAIL: checked" "$(grep -E '^(PASS|FAIL)' "$dir/stdout")"
done
check_equal "runner: the crash stack names srunner_run_all below the test" \
    "test_unchecked srunner_run_all" \
    "$(grep -A2 "crash stack:" fork.txt | sed -n '2,3p' | awk '{ print $2 }' | tr '\n' ' ' | sed 's/ $//')"
check "runner: the report says how the fork runs ended" \
    grep -q "^  3 fork runs ended with their test case (srunner_run_all): 1 passed, 2 failed$" fork.txt

# A suite that fails without any fault (its last test always does: exit 1): a test case that
# passes is still a pass, one that fails a failure, as in re-run mode.
"$FAILRUN" run -q --no-fork --db broken-rerun.db -- "$program" broken >/dev/null
"$FAILRUN" run -q --fork --db broken.db -- "$program" broken >/dev/null
check_equal "a suite that fails by itself: every site as in re-run mode" \
    "$(sql broken-rerun.db "SELECT site, outcome FROM runs WHERE kind = 'fault' ORDER BY site")" \
    "$(sql broken.db "SELECT site, outcome FROM runs WHERE kind = 'fault' ORDER BY site")"
check_equal "a suite that fails by itself: the passed test case is absorbed, the failed ones handled" \
    "failed srunner_run_all|handled
failed srunner_run_all|handled
passed srunner_run_all|absorbed" \
    "$(ends broken.db)"

# cmocka: a test case is a step of _cmocka_run_group_tests; its int result says how it went.
"$FAILRUN" run -q --no-fork --db cmocka-rerun.db -- "$PROGRAMS/testcases_cmocka" >/dev/null
"$FAILRUN" run -q --fork --db cmocka.db -- "$PROGRAMS/testcases_cmocka" >/dev/null
check_equal "cmocka: every site as in re-run mode" \
    "$(sql cmocka-rerun.db "$outcomes")" "$(sql cmocka.db "$outcomes")"
check_equal "cmocka: the asserted copy fails its test case, the ignored one passes" \
    "failed _cmocka_run_group_tests|handled
passed _cmocka_run_group_tests|absorbed" \
    "$(ends cmocka.db)"

# Unity: main calls UnityDefaultTestRun per test; a failed assertion longjmps back into it.
"$FAILRUN" run -q --no-fork --db unity-rerun.db -- "$PROGRAMS/testcases_unity" >/dev/null
"$FAILRUN" run -q --fork --keep-runs --db unity.db -- "$PROGRAMS/testcases_unity" >/dev/null
check_equal "Unity: every site as in re-run mode" \
    "$(sql unity-rerun.db "$outcomes")" "$(sql unity.db "$outcomes")"
check_equal "Unity: the asserted copy fails its test case, the ignored one passes" \
    "failed UnityDefaultTestRun|handled
passed UnityDefaultTestRun|absorbed" \
    "$(ends unity.db)"
late=0
for dir in $(sql unity.db "SELECT dir FROM runs WHERE test_case IS NOT NULL"); do
    grep -q "last test ran" "$dir/stdout" && late=$((late + 1))
done
check_equal "Unity: no child that stopped ran the last test" 0 "$late"

# The same suite as a program a driver starts, forked at its start (FAILRUN_START_ABOVE_MS=0):
# each child arms where its fault fires and ends with that test case, as a child forked there.
driver='"$1"; exit 0'
"$FAILRUN" run -q --no-fork --db unity-start-rerun.db -- sh -c "$driver" sh "$PROGRAMS/testcases_unity" >/dev/null
FAILRUN_START_ABOVE_MS=0 "$FAILRUN" run -q --db unity-start.db -- sh -c "$driver" sh "$PROGRAMS/testcases_unity" >/dev/null
check_equal "Unity under a driver, forked at its start: every site as in re-run mode" \
    "$(sql unity-start-rerun.db "$outcomes")" "$(sql unity-start.db "$outcomes")"
check_equal "Unity under a driver: the start's children ended with their test case" \
    "failed UnityDefaultTestRun|handled
passed UnityDefaultTestRun|absorbed" \
    "$(ends unity-start.db)"
check_equal "Unity under a driver: every run was a child of the start" 0 \
    "$(sql unity-start.db "SELECT count(*) FROM runs WHERE kind = 'fault' AND dir NOT LIKE '%/fork-%-starts/%'")"

# C++: a failed allocation under `new` throws through the patched frame into the runner's catch.
"$FAILRUN" run -q --no-fork --db cxx-rerun.db -- "$PROGRAMS/testcases_cxx" >/dev/null
"$FAILRUN" run -q --fork --db cxx.db -- "$PROGRAMS/testcases_cxx" >/dev/null
check_equal "C++: a bad_alloc thrown through the test case ends as in re-run mode (no terminate)" \
    "$(sql cxx-rerun.db "SELECT outcome, exit_code, signal FROM runs WHERE kind = 'fault' ORDER BY site")" \
    "$(sql cxx.db "SELECT outcome, exit_code, signal FROM runs WHERE kind = 'fault' ORDER BY site")"
check "C++: the thrown test case failed (handled)" \
    test "$(sql cxx.db "SELECT count(*) FROM runs WHERE outcome = 'handled'")" -ge 1

# A suite's own loop body, named with --test-case: its int result is the test case's.
"$FAILRUN" run -q --no-fork --db loop-rerun.db -- "$program" loop >/dev/null
"$FAILRUN" run -q --fork --test-case run_one:int --db loop.db -- "$program" loop >loop.txt
check_equal "--test-case run_one:int: every site as in re-run mode" \
    "$(sql loop-rerun.db "$outcomes")" "$(sql loop.db "$outcomes")"
check_equal "--test-case run_one:int: run_one's result is the test case's" \
    "failed run_one|handled
failed run_one|handled
passed run_one|absorbed" \
    "$(ends loop.db)"
check_equal "--test-case is stored with the campaign" "run_one:int" \
    "$(sql loop.db "SELECT test_cases FROM campaign")"
# Without it the loop has no test case known to failrun: children run to the end, same outcomes.
"$FAILRUN" run -q --fork --db loop-whole.db -- "$program" loop >/dev/null
check_equal "loop without --test-case: children run to the process's end, same outcomes" \
    "0 $(sql loop-rerun.db "$outcomes")" \
    "$(sql loop-whole.db "SELECT count(*) FROM runs WHERE test_case IS NOT NULL") $(sql loop-whole.db "$outcomes")"
"$FAILRUN" run -q --test-case 'run one' -- "$program" >/dev/null 2>err.txt
check_equal "--test-case with a bad name is a usage error" 2 $?
check "--test-case with a bad name says what to give" grep -q "give a function name" err.txt

# The default: fork where re-running would cost more than the bound (here 1 ms, so always).
FAILRUN_FORK_ABOVE_MS=1 "$FAILRUN" run --db auto.db -- "$program" >auto.txt 2>auto.err
check_equal "default: a costly program forks, with the same outcomes" \
    "$(sql rerun.db "$outcomes")" "$(sql auto.db "$outcomes")"
check "default: stderr says that it forks and why" \
    grep -q "testcases forks at its sites: re-running it for each of its 4 sites would take about" auto.err
check "default: so does the report" grep -q "^  testcases forks at its sites:" auto.txt
"$FAILRUN" run -q --db cheap.db -- "$program" >/dev/null
check_equal "default: a cheap program is re-run (no fork run, no test-case ends)" "0 0" \
    "$(sql cheap.db "SELECT count(*) FROM runs WHERE test_case IS NOT NULL") $(sql cheap.db "SELECT count(*) FROM campaign WHERE fork_note IS NOT NULL")"

# Coverage: the children that stop write theirs; the error legs are classified as in re-run mode.
covered="$ROOT/build/tests/cov/testcases"
"$FAILRUN" run -q --no-fork --db cov-rerun.db -- "$covered" >/dev/null
"$FAILRUN" run -q --fork --db cov-fork.db -- "$covered" >/dev/null
legs() {
    "$FAILRUN" cov --json --db "$1" |
        jq -c '[.files[] | select(.path | endswith("/testcases.c")) | .lines[] | {line, class}]'
}
check_equal "cov: the fork campaign's error-leg lines are the re-run campaign's" \
    "$(legs cov-rerun.db)" "$(legs cov-fork.db)"
check_equal "cov: both marked error legs are among them" "2" \
    "$(legs cov-fork.db | jq --argjson marked "$(grep -n 'LEG' "$ROOT/tests/programs/testcases.c" |
        cut -d: -f1 | jq -s .)" '[.[] | select(.line as $l | $marked | index($l))] | length')"
