#!/bin/sh
# test_fork.sh — `failrun run --fork` ends as re-run mode does (the same findings, and every site
# with the same outcome, exit status and signal) while running the command only twice instead of
# twice plus once per site; a process with a second thread falls back to re-runs; a hanging child
# is a hang; a campaign killed during its fork run resumes to the same result.
. "$(dirname "$0")/lib.sh"
work=$(scratch)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1

findings='[.findings[] | [.outcome, .signal_name, .site, .location.file, .location.line, .runs]]'
runs="SELECT site, outcome, exit_code, signal, timed_out FROM runs ORDER BY site"

# same_campaign NAME DESCRIPTION [failrun run options --] COMMAND...: a re-run campaign and a fork
# campaign of the same command (standard input from $input) agree.
same_campaign() {
    name=$1
    shift
    "$FAILRUN" run -q --json --db "$name-rerun.db" "$@" <"$input" >"$name-rerun.json"
    rerun_status=$?
    "$FAILRUN" run -q --fork --json --db "$name-fork.db" "$@" <"$input" >"$name-fork.json"
    check_equal "$name: --fork exits as re-run mode does" "$rerun_status" $?
    check_equal "$name: --fork reports the same findings, each with the same representative run" \
        "$(jq -c "$findings" "$name-rerun.json")" "$(jq -c "$findings" "$name-fork.json")"
    check_equal "$name: --fork gives every site the outcome, exit status and signal of re-run mode" \
        "$(sql "$name-rerun.db" "$runs")" "$(sql "$name-fork.db" "$runs")"
}

input=/dev/null
same_campaign kvtest "$EXAMPLES/kvtest"
# Runs execute in a scratch folder; the campaign's own folder holds only what is kept: the
# baseline and the run that represents each finding (its replay's; a finding's other runs are
# in the database only), in both modes (and no scratch folder is left behind).
for mode in rerun fork; do
    check "kvtest: --$mode: some finding has other runs than the one that represents it" \
        test "$(sql kvtest-$mode.db "SELECT count(*) FROM findings WHERE runs > 1")" -gt 0
    check_equal "kvtest: --$mode keeps the baseline and the folder of each finding's run only" \
        "$(sql kvtest-$mode.db "SELECT dir FROM runs WHERE kind = 'baseline' OR
             id IN (SELECT first_run FROM findings)" | sort -u)" \
        "$(find "$PWD/kvtest-$mode.files/runs" -mindepth 1 -maxdepth 2 -type d \
             ! -name 'fork-*' ! -name '*.gcov' | sort)"
done
# Without a scratch file system (LIBFAIL_SCRATCH empty) runs execute in the campaign's folder:
# the same outcomes, and the same folders kept.
LIBFAIL_SCRATCH= "$FAILRUN" run -q --fork --db kvtest-noscratch.db -- "$EXAMPLES/kvtest" \
    </dev/null >/dev/null 2>&1
check_equal "kvtest: without scratch, --fork gives every site the same outcome" \
    "$(sql kvtest-fork.db "$runs")" "$(sql kvtest-noscratch.db "$runs")"
check_equal "kvtest: without scratch, --fork keeps the same folders" \
    "$(cd kvtest-fork.files/runs && find . -mindepth 1 -maxdepth 2 -type d ! -name '*.gcov' |
         sed -E 's/-[0-9]+/-N/' | sort)" \
    "$(cd kvtest-noscratch.files/runs && find . -mindepth 1 -maxdepth 2 -type d ! -name '*.gcov' |
         sed -E 's/-[0-9]+/-N/' | sort)"
check_equal "kvtest: no scratch folder of these campaigns is left" "" \
    "$(ls -d /dev/shm/failrun-* 2>/dev/null | while read -r d; do
           pid=${d##*/failrun-}; kill -0 "${pid%%.*}" 2>/dev/null || echo "$d"; done)"
expected=$(printf '%s\n' "crash SEGV $(marker examples/kvstore/kv.c 'BUG(null-deref)')" \
    "crash ABRT $(marker examples/kvstore/kv.c 'BUG(double-free)')" | sort)
check_equal "kvtest: --fork finds the planted bugs at their marked lines" "$expected" \
    "$(jq -r '.findings[] | "\(.outcome) \(.signal_name) \(.location.file | sub(".*/examples/"; "examples/")):\(.location.line)"' kvtest-fork.json | sort)"
site=$(jq -r '.findings[] | select(.signal_name == "SEGV") | .site' kvtest-fork.json)
"$FAILRUN" replay --db kvtest-fork.db "$site" -- "$EXAMPLES/kvtest" >/dev/null 2>&1
check_equal "kvtest: a finding of --fork replays as a re-run (exit 128+SIGSEGV)" 139 $?

# State a clone child would share with its parent: such sites are left to re-runs.
seq 1 300 | sed 's/$/ a line of the data file/' >data.txt
same_campaign shared-file "$PROGRAMS/forkshare" file "$work/data.txt"
check "shared-file: re-run mode finds the silently dropped line" \
    test "$(jq '[.findings[] | select(.outcome == "silent")] | length' shared-file-rerun.json)" -ge 1
# A log the program was given open for writing (a harness's): each child writes into a copy of
# its own, with the parent's lines so far, so the sites are forked and end as their re-runs do
# (one run at a time: two re-runs at once would write into one log).
same_campaign log -j1 -- sh -c ': >"$2"; exec "$1" log 3 3<>"$2"' sh "$PROGRAMS/forkshare" "$work/steps.log"
check_equal "log: every site of the logging program was answered by a fork" 0 \
    "$(sql log-fork.db "SELECT count(*) FROM runs WHERE kind = 'fault' AND chain NOT LIKE '%,%' AND dir NOT LIKE '%/fork-%'")"
check "log: each failed step found its log as it was (exit 1, not 3)" \
    test "$(sql log-fork.db "SELECT count(*) FROM runs WHERE kind = 'fault' AND exit_code = 1")" -ge 4
# A log the program opens itself and reads back by name (curl's memdebug log; a report): a
# child could rename or remove it by name behind its parent, so the sites reached with it open
# are re-run, saying why, and every site ends as in re-run mode (the failed step finds its own
# "failed" line by name: exit 1, not 3; the parent ends with exactly its four steps).
same_campaign ownlog -j1 -- "$PROGRAMS/forkshare" ownlog "$work/own.log"
check "ownlog: the sites reached with the log open were re-run, saying why" \
    grep -q "reached with a file it opened for writing" ownlog-fork.json
same_campaign alarm "$PROGRAMS/forkshare" alarm
check "alarm: the watchdog ends the failed runs in re-run mode (exit 4)" \
    test "$(sql alarm-rerun.db "SELECT count(*) FROM runs WHERE kind = 'fault' AND exit_code = 4")" -ge 1

"$FAILRUN" run -q --fork -j3 --json --db kvtest-fork3.db "$EXAMPLES/kvtest" >kvtest-fork3.json
check_equal "kvtest: --fork -j3 (three children at once) gives every site the same outcome" \
    "$(sql kvtest-rerun.db "$runs")" "$(sql kvtest-fork3.db "$runs")"

input="$ROOT/examples/csvstat/sample.csv"
same_campaign csvstat "$EXAMPLES/csvstat"
check_equal "csvstat: --fork finds the planted leak at its marked line" \
    "leak $(marker examples/csvstat/csv.c 'BUG(leak)')" \
    "$(jq -r '.findings[] | "\(.outcome) \(.location.file | sub(".*/examples/"; "examples/")):\(.location.line)"' csvstat-fork.json)"

# The saving: count how often the command starts. Re-run mode starts it for the baseline, for
# two runs at once before the fault runs (-j2: do runs side by side disturb each other? they
# also show that the output is stable) and once per fault run; fork mode for the baseline and
# the fork run only (no run goes beside another: nothing to check).
input=/dev/null
counted="echo run >>$work/\$0.count; exec $EXAMPLES/kvtest"
"$FAILRUN" run -q --exe '*/kvtest' --db counted-rerun.db -- sh -c "$counted" rerun >/dev/null
"$FAILRUN" run -q --fork --exe '*/kvtest' --db counted-fork.db -- sh -c "$counted" fork >/dev/null
fault_runs=$(sql counted-rerun.db "SELECT count(*) FROM runs WHERE kind = 'fault'")
check "counted: the campaign has a fault run per site" test "$fault_runs" -ge 20
check_equal "counted: re-run mode starts the command three times plus once per site" \
    "$((3 + fault_runs))" "$(wc -l <rerun.count)"
check_equal "counted: --fork starts it twice, whatever the number of sites" 2 "$(wc -l <fork.count)"
check_equal "counted: --fork made the same number of fault runs" "$fault_runs" \
    "$(sql counted-fork.db "SELECT count(*) FROM runs WHERE kind = 'fault' AND state = 'done'")"
check_equal "counted: through a launcher too, the same outcome at every site" \
    "$(sql counted-rerun.db "$runs")" "$(sql counted-fork.db "$runs")"

# A process with a second thread cannot be forked faithfully: that site is re-run.
same_campaign forkmix --keep-runs -- "$PROGRAMS/forkmix"
run_of() { # the run folder whose standard error names the site that failed
    for dir in $(sql forkmix-fork.db "SELECT dir FROM runs WHERE kind = 'fault'"); do
        grep -q "forkmix: $1:" "$dir/stderr" 2>/dev/null && echo "$dir"
    done
}
check "forkmix: the site reached single-threaded was answered by a fork" \
    sh -c "echo '$(run_of before)' | grep -q '/fork-[0-9]*/'"
check "forkmix: the site reached with a second thread running was re-run" \
    sh -c "test -n '$(run_of during)' && ! echo '$(run_of during)' | grep -q '/fork-'"
threaded=$(sql forkmix-fork.db "SELECT count(*) FROM runs WHERE kind = 'fault' AND dir NOT LIKE '%/fork-%'")
check "forkmix: the report says why the fork run left its sites to re-runs" \
    sh -c "'$FAILRUN' report --db forkmix-fork.db | grep -qx \"  forkmix's fork run left $threaded sites\\{0,1\\} to re-runs: $threaded reached while a second thread ran\""

# A child that never ends is killed at the timeout and judged a hang, as a re-run would be.
same_campaign outcomes --timeout 2 -- "$PROGRAMS/outcomes"
check_equal "outcomes: the waiting-for-memory site hangs under --fork" \
    "hang $(marker tests/programs/outcomes.c 'OUTCOME(hang)' | cut -d: -f2)" \
    "$(jq -r '.findings[] | select(.outcome == "hang") | "hang \(.location.line)"' outcomes-fork.json)"

# Killed with SIGKILL during its fork run (held up by the hanging child), the campaign resumes to
# the result of an uninterrupted one, and no child of the killed fork run is left running.
# Its runs execute in a scratch folder of its own (LIBFAIL_SCRATCH), which the next campaign
# that looks removes, since its failrun is gone.
mkdir -p scratch
LIBFAIL_SCRATCH=$PWD/scratch "$FAILRUN" run -q --fork --timeout 3 --db killed.db -- "$PROGRAMS/outcomes" >/dev/null 2>&1 &
pid=$!
tries=0
while [ -z "$(ls -d scratch/failrun-"$pid".*/runs/fork-* 2>/dev/null)" ] && [ "$tries" -lt 100 ]; do
    sleep 0.05
    tries=$((tries + 1))
done
sleep 0.5
kill -KILL "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
sleep 0.3
check_equal "resume: no process of the killed fork run is left" "" \
    "$(ps -eo args= | grep -F "$PROGRAMS/outcomes" | grep -v grep)"
check "resume: the killed campaign had not finished" \
    test "$(sql killed.db "SELECT count(*) FROM runs WHERE state = 'planned'")" -gt 0
check "resume: the killed campaign's scratch folder is left over" \
    test -n "$(ls -d scratch/failrun-"$pid".* 2>/dev/null)"
LIBFAIL_SCRATCH=$PWD/scratch "$FAILRUN" run -q --fork --timeout 3 --json --db killed.db -- "$PROGRAMS/outcomes" >resumed.json 2>/dev/null
check_equal "resume: the scratch folders of the killed and the resumed campaign are gone" "" \
    "$(ls scratch)"
check "resume: the hang's run folder is kept in the campaign's folder" \
    test -s "$(sql killed.db "SELECT dir FROM runs WHERE outcome = 'hang'")/stdout" -o \
    -f "$(sql killed.db "SELECT dir FROM runs WHERE outcome = 'hang'")/stderr"
check_equal "resume: the same findings as the uninterrupted campaign" \
    "$(jq -c "$findings" outcomes-fork.json)" "$(jq -c "$findings" resumed.json)"
check_equal "resume: every site once, with the outcome of the uninterrupted campaign" \
    "$(sql outcomes-fork.db "$runs")" "$(sql killed.db "$runs")"
