#!/bin/sh
# test_owner.sh — inside a suite, a fault run starts only the program that owns the site, alone,
# when alone it does what it did in the suite: the same outcomes as re-running the whole command,
# plus the wrong output of a test program that its driver never compares (silent); programs that
# cannot run alone (a descriptor from the driver, standard input a pipe) keep the whole command
# and the report says why; replay commands name the program and its folder; a killed campaign
# resumes without checking a program twice; --fork forks each such program alone.
. "$(dirname "$0")/lib.sh"
work=$(scratch)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1

mkdir data
printf 'hello world\nfrom a file\n' >data/words.txt
printf 's3cret\n' >data/token.txt
suite="sh $ROOT/tests/programs/ownersuite.sh $PROGRAMS $work/data"
source_file=tests/programs/ownertest.c

"$FAILRUN" run -q --json --db owner.db -- $suite >owner.json
check_equal "owner mode: failrun exits 1 (bugs found)" 1 $?
"$FAILRUN" run -q --json --whole-command --db whole.db -- $suite >whole.json
check_equal "--whole-command: failrun exits 1 (bugs found)" 1 $?

# The four test programs as the driver started them, in order: words (a file on standard
# input), list (output to the driver's pipe), token (a descriptor from the driver), count
# (standard input a pipe).
check_equal "the driver's four programs are recorded, with what their standard input was" \
    "$(printf '%s\n' "file|$work/data/words.txt|$work/data" "null|/dev/null|$work/data" \
        "null|/dev/null|$work/data" "pipe||$work/data")" \
    "$(sql owner.db "SELECT stdin_kind, stdin, cwd FROM programs ORDER BY id")"
check_equal "words and list reproduce alone; token and count do not, each with its reason" \
    "$(printf '%s\n' yes yes "alone it ends with status 2, in the command with status 0" \
        "its standard input is a pipe")" \
    "$(sql owner.db "SELECT alone FROM programs ORDER BY id")"
check_equal "each program's arguments and environment as at exec (the driver's SUITE_TOKEN)" \
    "$(printf '%s\n' "1|0" "1|0" "1|1" "1|0")" \
    "$(sql owner.db "SELECT instr(argv, CAST('$PROGRAMS/ownertest' || char(0) AS BLOB)) = 1,
        instr(environment, CAST(char(0) || 'SUITE_TOKEN=s3cret' || char(0) AS BLOB)) > 0
        FROM programs ORDER BY id")"
check_equal "no program is the command's own process" 0 "$(sql owner.db "SELECT sum(top) FROM programs")"

# Owner runs start the program alone: their processes are that program and nothing else (no sh).
check "owner runs were made (words and list)" \
    test "$(sql owner.db "SELECT count(*) FROM runs WHERE owner IS NOT NULL")" -ge 6
check_equal "an owner run's processes are only its program" 0 \
    "$(sql owner.db "SELECT count(*) FROM processes p JOIN runs r ON r.id = p.run
        WHERE r.owner IS NOT NULL AND p.exe <> (SELECT exe FROM programs WHERE id = r.owner)")"
check_equal "the chain through list's error leg started list alone too" \
    "$(sql owner.db "SELECT id FROM programs WHERE alone = 'yes' ORDER BY id LIMIT 1 OFFSET 1")" \
    "$(sql owner.db "SELECT group_concat(owner) FROM runs WHERE chain LIKE '%,%'")"
check_equal "every run of a site of words or list started it alone" 0 \
    "$(sql owner.db "SELECT count(*) FROM runs r JOIN sites s ON s.id = r.site
        JOIN programs p ON p.id = s.owner WHERE p.alone = 'yes' AND r.owner IS NULL")"
check_equal "every run of a site of token or count re-ran the whole command (through sh)" "" \
    "$(sql owner.db "SELECT r.id FROM runs r JOIN sites s ON s.id = r.site
        JOIN programs p ON p.id = s.owner WHERE p.alone <> 'yes' AND (r.owner IS NOT NULL
        OR NOT EXISTS (SELECT 1 FROM processes q WHERE q.run = r.id AND q.exe LIKE '%/dash'))")"

# The same runs, the same outcomes, except where owner mode sees a test program's output that
# the driver swallows (words) or reads without passing it on (list): those runs are silent.
check_equal "owner mode plans the runs of --whole-command" \
    "$(sql whole.db "SELECT chain FROM runs WHERE kind = 'fault' ORDER BY chain")" \
    "$(sql owner.db "SELECT chain FROM runs WHERE kind = 'fault' ORDER BY chain")"
check_equal "every outcome as with --whole-command, but two runs found silent" \
    "$(printf '%s\n' "silent absorbed" "silent handled")" \
    "$(sql owner.db "ATTACH 'whole.db' AS w; SELECT o.outcome || ' ' || x.outcome FROM runs o
        JOIN w.runs x ON x.chain = o.chain WHERE o.kind = 'fault' AND o.outcome <> x.outcome
        ORDER BY 1")"
location='.findings[] | "\(.outcome) \(.location.file | sub(".*/tests/"; "tests/")):\(.location.line)"'
check_equal "--whole-command finds the crash only" \
    "crash $(marker $source_file 'BUG(crash)')" "$(jq -r "$location" whole.json | LC_ALL=C sort)"
check_equal "owner mode also finds the dropped byte and the missing summary line, silent" \
    "$(printf '%s\n' "crash $(marker $source_file 'BUG(crash)')" \
        "silent $(marker $source_file 'OWNER(silent)')" \
        "silent $(marker $source_file 'BUG(silent-short)')" | LC_ALL=C sort)" \
    "$(jq -r "$location" owner.json | LC_ALL=C sort)"

# The report says which programs stayed within the whole command, and why.
"$FAILRUN" report --db owner.db >report.txt
check "the report counts the programs run alone" grep -qx "  2 programs run alone for the sites they own" report.txt
check "the report names the programs re-run within the whole command, and why" grep -qxF \
    "  2 programs re-run within the whole command: ownertest token: alone it ends with status 2, in the command with status 0; ownertest count: its standard input is a pipe" \
    report.txt
check_equal "the JSON report lists them too" "ownertest token|ownertest count" \
    "$(jq -r '[.campaign.programs.whole_command[].program] | join("|")' owner.json)"

# Replay names the program, its folder and its input, and reproduces the finding.
replay=$(jq -r '.findings[] | select(.outcome == "crash") | .replay' owner.json)
check_equal "the crash's replay names the program, its folder and the database by its full path" \
    "failrun replay --db $work/owner.db --cwd $work/data $(jq -r '.findings[] | select(.outcome == "crash") | .site' owner.json):1 -- $PROGRAMS/ownertest list < /dev/null" \
    "$replay"
eval "\"$FAILRUN\" ${replay#failrun }" >/dev/null 2>replay.err
check_equal "the crash's replay crashes the program again (SIGSEGV)" 139 $?
replay=$(jq -r '.findings[] | select(.outcome == "silent" and (.replay | test("words"))) | .replay' owner.json)
check "the dropped byte's replay gives the program its input file" \
    sh -c "printf '%s' '$replay' | grep -q -- '-- $PROGRAMS/ownertest words < $work/data/words.txt\$'"
eval "\"$FAILRUN\" ${replay#failrun }" >replay.out 2>replay.err
check_equal "the dropped byte's replay prints the word without its first letter" "ELLO" "$(head -n 1 replay.out)"
check "replay says it gives the program its environment from the campaign" \
    grep -q "with the environment the campaign's command gave it" replay.err
# Run from another folder the replay still finds the campaign (its --db is absolute); without
# the campaign it says why the plan may not be reached.
(cd / && eval "\"$FAILRUN\" ${replay#failrun }" >/dev/null 2>"$work/elsewhere.err")
check "a replay run from another folder finds the campaign's environment" \
    grep -q "with the environment the campaign's command gave it" elsewhere.err
(cd / && "$FAILRUN" replay 0123456789abcdef:1 -- "$PROGRAMS/ownertest" list </dev/null >/dev/null 2>"$work/nodb.err")
check "with no campaign found a replay that fails nothing says the recorded environment is missing" \
    grep -q "no campaign at .failrun/campaign.db, so the environment" nodb.err

# Killed part-way (each start of ownertest slowed down), the campaign resumes: no program is
# checked again, and it ends as the uninterrupted one did.
export OWNERTEST_SLEEP_MS=40
"$FAILRUN" run -q -j1 --json --db slow.db -- $suite >slow.json
"$FAILRUN" run -j1 --db killed.db -- $suite >/dev/null 2>killed.err &
pid=$!
while [ "$(sqlite3 killed.db "SELECT count(*) FROM runs WHERE state = 'done' AND owner IS NOT NULL" 2>/dev/null || echo 0)" -lt 3 ]; do
    kill -0 "$pid" 2>/dev/null || break
done
kill -KILL "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
check "resume: the killed campaign had checked its programs and stopped part-way" \
    test "$(sql killed.db "SELECT count(*) FROM runs WHERE state = 'planned'")" -gt 0 -a \
    "$(sql killed.db "SELECT count(*) FROM programs WHERE alone IS NOT NULL")" = 4
"$FAILRUN" run -j1 --json --db killed.db -- $suite >resumed.json 2>resumed.err
check "resume: failrun says it resumes" grep -q "resuming" resumed.err
check "resume: no program is checked again" sh -c '! grep -q "checking that" resumed.err'
check "the uninterrupted campaign checked them" grep -q "checking that 4 program(s)" killed.err
summary='[.findings[] | [.outcome, .site, .location.line, (.replay | sub("--db [^ ]* "; ""))]] | sort'
check_equal "resume: the same findings as the uninterrupted campaign" \
    "$(jq -c "$summary" slow.json)" "$(jq -c "$summary" resumed.json)"
check_equal "resume: the same outcomes" "$(jq -c .outcomes slow.json)" "$(jq -c .outcomes resumed.json)"
unset OWNERTEST_SLEEP_MS

# --fork: each program that runs alone has a fork run of its own, alone (under ctest, whose log
# file every test inherits open for writing, the command's fork run can fork no test program); its
# children are judged as its owner runs. The command's fork run answers the rest: count reads a
# pipe, so its sites are re-run. The same outcome for every run as owner mode without --fork.
"$FAILRUN" run --fork --json --db fork.db -- $suite >fork.json 2>fork.err
check_equal "--fork: failrun exits 1 (bugs found)" 1 $?
check "--fork: words and list fork alone" grep -q "fork runs of 2 program(s) alone" fork.err
check_equal "--fork: every first run of words and list was a child of its program's fork run" 0 \
    "$(sql fork.db "SELECT count(*) FROM runs WHERE owner IS NOT NULL AND chain NOT LIKE '%,%'
        AND dir NOT LIKE '%/fork-%-program%'")"
check_equal "--fork: the same findings as owner mode" "$(jq -r "$location" owner.json | LC_ALL=C sort)" \
    "$(jq -r "$location" fork.json | LC_ALL=C sort)"
check_equal "--fork: every run with the outcome of owner mode" \
    "$(sql owner.db "SELECT chain, outcome, owner IS NOT NULL FROM runs WHERE kind = 'fault' ORDER BY chain")" \
    "$(sql fork.db "SELECT chain, outcome, owner IS NOT NULL FROM runs WHERE kind = 'fault' ORDER BY chain")"
check_equal "--fork: the runs of words and list were answered by their fork runs, the program's processes only" \
    "0|$(sql owner.db "SELECT count(*) FROM runs WHERE owner IS NOT NULL")" \
    "$(sql fork.db "SELECT count(DISTINCT p.exe) - 1, count(DISTINCT r.id) FROM runs r JOIN processes p ON p.run = r.id
        WHERE r.owner IS NOT NULL")"

# Fork at the start: the programs that run alone fork their runs before main, inside one more
# run of the command (FAILRUN_START_ABOVE_MS=0: whatever re-running them alone would cost; by
# default where that would take seconds). The driver leaves a log open for writing in every
# program, as ctest does: each child writes into a copy of its own, and the log stays the
# driver's. The same outcome for every run as owner mode.
FAILRUN_START_IN_COMMAND=0 FAILRUN_START_ABOVE_MS=0 "$FAILRUN" run --json --keep-runs --db start.db \
    -- sh -c "exec 4>>'$work/driver.log'; exec $suite" >start.json 2>start.err
check_equal "start: failrun exits 1 (bugs found)" 1 $?
check "start: failrun says which programs fork at their start" \
    grep -q "2 program(s) fork at their start for their" start.err
check_equal "start: every first run of words and list was a child of their start" 0 \
    "$(sql start.db "SELECT count(*) FROM runs WHERE owner IS NOT NULL AND chain NOT LIKE '%,%'
        AND dir NOT LIKE '%/fork-%-starts/%'")"
check "start: such runs were made" \
    test "$(sql start.db "SELECT count(*) FROM runs WHERE dir LIKE '%/fork-%-starts/%'")" -ge 6
check_equal "start: the same findings as owner mode" "$(jq -r "$location" owner.json | LC_ALL=C sort)" \
    "$(jq -r "$location" start.json | LC_ALL=C sort)"
check_equal "start: every run with the outcome of owner mode" \
    "$(sql owner.db "SELECT chain, outcome, owner IS NOT NULL FROM runs WHERE kind = 'fault' ORDER BY chain")" \
    "$(sql start.db "SELECT chain, outcome, owner IS NOT NULL FROM runs WHERE kind = 'fault' ORDER BY chain")"
check_equal "start: nothing of the children reached the driver's log" 0 "$(wc -c <driver.log)"
# The start file tells the start the sites its program reached in the baseline: a child records
# only the sites it reaches that are new (a record, and system calls, per site saved in each).
children=$(python3 "$ROOT/tests/integration/run_records.py" start.db "dir LIKE '%/fork-%-starts/%'")
check "start: the kept children each failed their site ($children)" \
    sh -c "echo '$children' | awk '{ exit !(\$2 >= 6 && \$4 == \$2) }'"
check "start: no child recorded a site the baseline reached ($children)" \
    sh -c "echo '$children' | grep -q ' known-sites 0 '"
# I/O sites too: a start's child fails its write or read as the program alone does.
"$FAILRUN" run -q --no-fork --faults alloc,io --db owner-io.db -- $suite >/dev/null
FAILRUN_START_IN_COMMAND=0 FAILRUN_START_ABOVE_MS=0 "$FAILRUN" run -q --faults alloc,io \
    --db start-io.db -- $suite >/dev/null
check "start, --faults alloc,io: I/O sites were failed in children of the starts" \
    test "$(sql start-io.db "SELECT count(*) FROM runs r JOIN sites s ON s.id = r.site
        WHERE s.kind = 'io' AND r.dir LIKE '%/fork-%-starts/%' AND r.outcome <> 'not-reached'")" -ge 1
check_equal "start, --faults alloc,io: every run with the outcome of owner mode" \
    "$(sql owner-io.db "SELECT chain, outcome FROM runs WHERE kind = 'fault' ORDER BY chain")" \
    "$(sql start-io.db "SELECT chain, outcome FROM runs WHERE kind = 'fault' ORDER BY chain")"
check "start: the report says the programs forked at their start" \
    sh -c "jq -r '.campaign.forks.notes[]' start.json | grep -q 'fork at their start'"

# By default the programs that do not run alone fork at their start inside the command too: token
# (a descriptor from the driver) and count (a pipe the driver closed: read out once into a file).
# Each child is judged against an unfailed run of the same start, as words is alone: count's
# getline failing reads as the end of its input, and it prints a wrong count that the driver
# throws away, silent as words's is. Every other run ends as in owner mode.
FAILRUN_START_ABOVE_MS=0 "$FAILRUN" run --json --db inside.db -- $suite >inside.json 2>inside.err
check "inside: the four programs fork at their start" \
    grep -q "4 program(s) fork at their start for their" inside.err
check_equal "inside: owner mode's findings, and count's getline leg silent" \
    "$( (jq -r "$location" owner.json; echo "silent $source_file:149") | LC_ALL=C sort)" \
    "$(jq -r "$location" inside.json | LC_ALL=C sort)"
counted=$(jq -r '.findings[] | select(.location.line == 149) | .site' inside.json)
check "inside: count's getline site is known" test -n "$counted"
check_equal "inside: every run with the outcome of owner mode, count's getline site silent" \
    "$(sql owner.db "SELECT chain, outcome FROM runs WHERE kind = 'fault' ORDER BY chain" |
        sed "s/^$counted:1|absorbed\$/$counted:1|silent/")" \
    "$(sql inside.db "SELECT chain, outcome FROM runs WHERE kind = 'fault' ORDER BY chain")"

# A database of schema 4 (before programs were recorded) is migrated, through 5, 6 and 7, to 8: its
# campaign resumes, every run within the whole command as it was planned.
"$FAILRUN" run -q --db old.db -- $suite >/dev/null
sqlite3 old.db "UPDATE runs SET state = 'planned', outcome = NULL WHERE id > 3; UPDATE runs SET owner = NULL;
    UPDATE campaign SET wall_ms = NULL; DROP TABLE programs;
    CREATE TABLE p AS SELECT run, pid, exe, command_line, forked, exit_code, signal FROM processes;
    DROP TABLE processes; ALTER TABLE p RENAME TO processes;
    ALTER TABLE runs DROP COLUMN owner; ALTER TABLE sites DROP COLUMN owner;
    ALTER TABLE campaign DROP COLUMN source; ALTER TABLE campaign DROP COLUMN wrappers;
    ALTER TABLE sites DROP COLUMN source; ALTER TABLE sites DROP COLUMN outside_source;
    ALTER TABLE campaign DROP COLUMN whole_command; DROP TABLE unpreloaded; ALTER TABLE campaign DROP COLUMN returns; ALTER TABLE campaign DROP COLUMN boundary;
             DROP TABLE conventions; DROP TABLE call_conventions; ALTER TABLE runs DROP COLUMN api;
             ALTER TABLE runs DROP COLUMN api_value; ALTER TABLE runs DROP COLUMN api_errno;
             ALTER TABLE runs DROP COLUMN api_verdict; ALTER TABLE runs DROP COLUMN reaction;
             ALTER TABLE runs DROP COLUMN test_case; ALTER TABLE campaign DROP COLUMN test_cases;
             ALTER TABLE campaign DROP COLUMN fork_note; ALTER TABLE campaign DROP COLUMN kmem_trace;
             ALTER TABLE campaign DROP COLUMN kcov; ALTER TABLE campaign DROP COLUMN vmlinux;
             ALTER TABLE campaign DROP COLUMN syscall_once; ALTER TABLE campaign DROP COLUMN kernel_build_id;
             ALTER TABLE campaign DROP COLUMN every_start; ALTER TABLE runs DROP COLUMN every_start;
             ALTER TABLE campaign DROP COLUMN fail_bookkeeping; ALTER TABLE sites DROP COLUMN bookkeeping;
             ALTER TABLE kernel_faults DROP COLUMN pid;
              PRAGMA user_version = 4;"
"$FAILRUN" run -q --json --db old.db -- $suite >old.json
check_equal "schema 4: the database is migrated to 15" 15 "$(sql old.db "PRAGMA user_version")"
check_equal "schema 4: the resumed campaign ends with the runs it had planned, in the whole command" \
    "0|$(sql whole.db "SELECT count(*) FROM runs")" \
    "$(sql old.db "SELECT count(owner), count(*) FROM runs")"

# A program that finds what its own earlier run left (issue 26: git's test-lib.sh empties its
# trash folder, `git init` creates a repository there, the suite removes it at its end). Its
# first run alone finds the folder empty, as in the suite; the second finds the repository and
# takes another path. Before, only its exit was compared on the second run (its other output
# was taken for instability), the check passed, and every fault run found the repository: the
# sites of a fresh repository were not-reached. Now each run alone must reach every site the
# program reached in the suite, and a program that does not is re-run within the whole command.
# -j1: two runs of the whole command at once would share its folder (the suite's, as git's).
mkdir repo
repo_suite="sh $ROOT/tests/programs/reposuite.sh $PROGRAMS $work/repo"
"$FAILRUN" run -q -j1 --json --db repo.db -- $repo_suite >repo.json
check_equal "a suite creating a repository: failrun exits 1 (list's crash)" 1 $?
init=$(sql repo.db "SELECT id FROM programs WHERE instr(argv, CAST('init' AS BLOB)) > 0")
check "the program creating the repository is re-run within the whole command, and why" \
    sh -c "sqlite3 repo.db \"SELECT alone FROM programs WHERE id = $init\" |
        grep -qx 'alone a second time it reaches [0-9]* of its [0-9]* sites: it finds what its first run left'"
check_equal "the program that does alone what it did in the suite still runs alone" "yes" \
    "$(sql repo.db "SELECT alone FROM programs WHERE instr(argv, CAST('list' AS BLOB)) > 0")"
check_equal "its sites are every site it reached in the suite that has runs" \
    "$(sql repo.db "SELECT count(*) FROM program_sites WHERE program = $init AND site IN (SELECT site FROM runs)")" \
    "$(sql repo.db "SELECT alone FROM programs WHERE id = $init" | sed 's/.* of its \([0-9]*\) sites.*/\1/')"
check_equal "no fault run misses its site" 0 \
    "$(sql repo.db "SELECT count(*) FROM runs WHERE kind = 'fault' AND outcome = 'not-reached'")"
check_equal "the runs of its sites re-ran the whole command" 0 \
    "$(sql repo.db "SELECT count(*) FROM runs r JOIN sites s ON s.id = r.site WHERE s.owner = $init
        AND r.owner IS NOT NULL")"
check "the site only a new repository reaches failed, the program said so (handled)" \
    test "$(sql repo.db "SELECT count(*) FROM runs r JOIN sites s ON s.id = r.site
        WHERE s.owner = $init AND r.outcome = 'handled'")" -ge 2
"$FAILRUN" report --db repo.db >repo.txt
check "the report says it is re-run within the whole command, and why" grep -qF \
    "  1 program re-run within the whole command: ownertest init $work/repo/trash: alone a second time it reaches" \
    repo.txt

# A suite that makes its scratch folder inside the run's folder (json-c's testsubdir under
# LIBFAIL_DIR) and runs its test program there. The baseline runs in the scratch file system
# and is then kept in the campaign's folder: the program's working folder is recorded where the
# baseline is kept, so its start in the fork run finds it inside that run's own folder ("@/...")
# and every site is answered by a child, none left to re-runs.
# A second program reads its standard input from a file the suite put there, through a link
# (the standard input is recorded as the file it opened).
FAILRUN_START_ABOVE_MS=0 "$FAILRUN" run --json --db subdir.db -- sh -c \
    "mkdir -p \"\${LIBFAIL_DIR:-\$PWD}/sub\" && cd \"\${LIBFAIL_DIR:-\$PWD}/sub\" &&
     $PROGRAMS/ownertest list >/dev/null && cp '$work/data/words.txt' words.txt &&
     ln -s words.txt link && $PROGRAMS/ownertest words <\"\$PWD/link\" >/dev/null" \
    >subdir.json 2>subdir.err
check_equal "subdir: the programs' working folder is inside the baseline's kept folder" 2 \
    "$(sql subdir.db "SELECT count(*) FROM programs p, runs r WHERE r.kind = 'baseline'
        AND p.cwd = r.dir || '/sub'")"
check "subdir: its start forked the runs of all its sites" \
    grep -Eq "(^|: )([1-9][0-9]*) of \\2 sites answered by forks" subdir.err
check_equal "subdir: no start left its sites to re-runs" "" \
    "$(grep "left its sites to re-runs" subdir.err)"
subdir_base=$(sql subdir.db "SELECT dir FROM runs WHERE kind = 'baseline'")
check_equal "subdir: the input file inside it is recorded where the baseline is kept" \
    "$subdir_base/sub/words.txt" "$(sql subdir.db "SELECT stdin FROM programs WHERE stdin_kind = 'file'")"
check "subdir: the kept baseline holds the suite's link" test -L "$subdir_base/sub/link"
check_equal "subdir: both programs do alone what they did" "yes yes" \
    "$(sql subdir.db "SELECT alone FROM programs ORDER BY id" | tr '\n' ' ' | sed 's/ $//')"
