#!/bin/sh
# test_cli.sh — what a user sees when the input is wrong: one line naming the problem and the
# fix, exit status 2; help and version; and a campaign killed half-way resumes to the same result.
. "$(dirname "$0")/lib.sh"
work=$(scratch)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1

# expect_usage_error DESCRIPTION PATTERN COMMAND...
expect_usage_error() {
    description=$1
    pattern=$2
    shift 2
    "$@" >out.txt 2>err.txt
    status=$?
    check_equal "$description: exit status 2" 2 "$status"
    check "$description: one line on stderr naming it ($pattern)" \
        sh -c "test \"\$(wc -l <err.txt)\" -eq 1 && grep -q -- '$pattern' err.txt"
}

expect_usage_error "no subcommand" "failrun help" "$FAILRUN"
expect_usage_error "unknown subcommand" "not a failrun command" "$FAILRUN" frobnicate
expect_usage_error "run without a command" "no command given" "$FAILRUN" run
expect_usage_error "bad --depth" "--depth 0" "$FAILRUN" run --depth 0 -- true
expect_usage_error "bad --timeout" "--timeout" "$FAILRUN" run --timeout -3 -- true
expect_usage_error "missing program" "command not found" "$FAILRUN" run -- ./no-such-program
expect_usage_error "report without a database" "no campaign database" "$FAILRUN" report --db none.db
replay_folders() { ls -d /tmp/failrun-replay-* 2>/dev/null | sort; }
before=$(replay_folders)
expect_usage_error "replay with a bad site" "16 hex digits" "$FAILRUN" replay xyz -- true
check_equal "... leaves no folder in /tmp" "$before" "$(replay_folders)"
head -c 4096 /dev/urandom >garbage.db
expect_usage_error "a file that is not a database" "not a failrun database" \
    "$FAILRUN" report --db garbage.db
sqlite3 foreign.db "CREATE TABLE accounts(id INTEGER); INSERT INTO accounts VALUES (1);"
expect_usage_error "another program's database" "another program" "$FAILRUN" report --db foreign.db
check_equal "another program's database is left untouched" 1 \
    "$(sqlite3 foreign.db 'SELECT count(*) FROM accounts')"
cc -static -o static -x c - <<'SOURCE' 2>/dev/null
#include <stdlib.h>
int main(void) { free(malloc(10)); return 0; }
SOURCE
if [ -x static ]; then
    expect_usage_error "a statically linked program" "statically linked" "$FAILRUN" run -q -- ./static
fi

"$FAILRUN" help run >help.txt
check_equal "help run: exit status 0" 0 $?
check "help run: shows the usage and the options" grep -q -- "--timeout SEC" help.txt
"$FAILRUN" --version >version.txt
check "--version prints a version" grep -Eq '^failrun [0-9]+\.[0-9]+\.[0-9]+$' version.txt

# A campaign killed with SIGKILL part-way resumes, and ends as an uninterrupted one does.
# Each run sleeps a little in a shell first (out of scope with --exe), so the kill lands mid-way.
slow="sleep 0.05; exec $EXAMPLES/kvtest"
"$FAILRUN" run -q --json --exe '*/kvtest' --db whole.db -- sh -c "$slow" >whole.json
"$FAILRUN" run -q --exe '*/kvtest' --db killed.db -- sh -c "$slow" >/dev/null 2>&1 &
pid=$!
while [ "$(sqlite3 killed.db "SELECT count(*) FROM runs WHERE state = 'done'" 2>/dev/null || echo 0)" -lt 6 ]; do
    kill -0 "$pid" 2>/dev/null || break
done
kill -KILL "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
done_before=$(sqlite3 killed.db "SELECT count(*) FROM runs WHERE state = 'done'")
check "resume: the killed campaign had stopped part-way" \
    test "$done_before" -lt "$(sqlite3 whole.db "SELECT count(*) FROM runs")"
"$FAILRUN" run --json --exe '*/kvtest' --db killed.db -- sh -c "$slow" >resumed.json 2>resume.err
check "resume: failrun says it resumes" grep -q "resuming" resume.err
summary='[.findings[] | [.outcome, .signal_name, .site, .location.line]] | sort'
check_equal "resume: the same findings as the uninterrupted campaign" \
    "$(jq -c "$summary" whole.json)" "$(jq -c "$summary" resumed.json)"
check_equal "resume: the same outcomes" "$(jq -c .outcomes whole.json)" "$(jq -c .outcomes resumed.json)"
check_equal "resume: the planted bugs were found through the shell" 2 "$(jq '.findings | length' whole.json)"
# Found by fuzzing failrun run's command line: a count too large for the campaign's bound.
expect_usage_error "a --max-runs beyond 2^53" "--max-runs 868888" \
    "$FAILRUN" run --max-runs 86888888888888888888888888 -- true

# A finished campaign is never replaced silently by one with other options (issue: a
# `--policy nofail` run once wiped 1,463 runs): refused with one line, unless --replace.
"$FAILRUN" run -q --db keep.db -- "$EXAMPLES/kvtest" >/dev/null
runs_before=$(sqlite3 keep.db "SELECT count(*) FROM runs")
expect_usage_error "other options over a finished campaign" "another --db to keep both" \
    "$FAILRUN" run -q --policy nofail --db keep.db -- "$EXAMPLES/kvtest"
check_equal "... and the finished campaign is kept whole" "$runs_before" \
    "$(sqlite3 keep.db "SELECT count(*) FROM runs")"
"$FAILRUN" run -q --replace --policy nofail --db keep.db -- "$EXAMPLES/kvtest" >/dev/null
check_equal "--replace discards it" nofail "$(sqlite3 keep.db "SELECT policy FROM campaign")"
"$FAILRUN" run --policy nofail --db keep.db -- "$EXAMPLES/kvtest" >/dev/null 2>again.err
check "the same campaign again starts over, and says so" grep -q "replacing the finished" again.err

# A baseline that fails (a suite under valgrind exits 8) names its failing processes.
"$FAILRUN" run -q --db failing.db -- sh -c "'$PROGRAMS/findings' nonsense; exit 8" >/dev/null 2>failing.err
check "a failing baseline: the warning names the failing program and its status" \
    grep -q "exits with status 8 even without faults, with libfail or without (.*findings (status 2)" failing.err

# The report's formats (report/formats.def) are options of failrun run and failrun report alike:
# one format on standard output at a time, files besides.
expect_usage_error "two formats on standard output" "--json and --sites: give one" \
    "$FAILRUN" report --db whole.db --json --sites
"$FAILRUN" run -q --sites --junit "$PWD/sites.xml" --db whole.db --replace -- \
    "$EXAMPLES/kvtest" >sites.txt 2>/dev/null
check "failrun run --sites prints every fault run by place, as failrun report --sites does" \
    sh -c "grep -q '^[0-9]* fault run(s), by the place of the site each failed:' sites.txt &&
           \"$FAILRUN\" report --db whole.db --sites | cmp -s - sites.txt"
check "... and writes the JUnit file besides" grep -q '<testsuite' sites.xml

# failrun's own crash says it is one, with frames to report, and still dies of its signal.
"$FAILRUN" run -q --db crash.db -- sleep 5 >/dev/null 2>crash.err &
crashing=$!
sleep 1
kill -SEGV "$crashing"
wait "$crashing"
check_equal "failrun killed by SIGSEGV still ends with it" 139 $?
check "... after saying it is failrun's internal error, with its frames" \
    sh -c "grep -q '^failrun: internal error (a bug of failrun' crash.err && grep -q 'failrun(+0x' crash.err"
