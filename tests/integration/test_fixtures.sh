#!/bin/sh
# test_fixtures.sh — a suite's fixtures are not under test. A harness starts a server
# (tests/programs/fixture_server.c: it listens on a socket and serves until it is killed), runs
# the program under test against it (fixture_client.c) and stops it. By default the server is
# out of scope, and the report's scope line says so and why; --exe brings it back. A program
# that listens but ends by itself (a test that talks to itself) stays under test, and a fixture
# that daemonises (daemon.c: fork, setsid, fork) is one too.
. "$(dirname "$0")/lib.sh"
work=$(scratch)
# The sockets of servers a fault run killed stay behind: this script's pid in their names.
trap 'rm -rf "$work" "${TMPDIR:-/tmp}"/fixture.$$.*' EXIT
cd "$work" || exit 1
server="$PROGRAMS/fixture_server"
client="$PROGRAMS/fixture_client"

# harness.sh [SERVER-MODE [CLIENT-MODE]]: the server in the background, the client, then the
# server stopped.
cat >harness.sh <<SCRIPT
#!/bin/sh
socket=\$(mktemp -u "\${TMPDIR:-/tmp}/fixture.$$.XXXXXX")
"$server" "\$socket" \$1 &
server=\$!
tries=0
while [ ! -S "\$socket" ] && [ \$tries -lt 400 ]; do sleep 0.05; tries=\$((tries + 1)); done
"$client" "\$socket" \$2
status=\$?
[ "\$1" = once ] || kill \$server
wait \$server 2>/dev/null
rm -f "\$socket"
exit \$status
SCRIPT
chmod +x harness.sh
check "the harness passes on its own" sh -c './harness.sh >/dev/null'

site_exes='[.sites[].exe // empty] | unique | map(split("/") | last) | join(" ")'
"$FAILRUN" run -j2 --json --db default.db -- ./harness.sh >default.json 2>default.err
check_equal "default scope: the server is a fixture, with why" \
    "$server|served a socket until it was stopped" "$(sql default.db 'SELECT exe, why FROM fixtures')"
check_equal "default scope: only the client's sites" "fixture_client" \
    "$(sql default.db 'SELECT DISTINCT exe FROM sites' | sed 's|.*/||' | sort | tr '\n' ' ' | sed 's/ $//')"
check "default scope: stderr names the fixture" grep -q "fixture of the command is not under test: fixture_server (served a socket" default.err
check "-j2 with a fixture: its re-runs go one at a time, saying why" \
    grep -q "the command starts 1 fixture(s) (fixture_server, ...): two runs of it at once would share their ports and files. Runs go one at a time" default.err
"$FAILRUN" report --db default.db >default.txt
check "default scope: the report's scope line names it and the way back" \
    grep -q "scope: not under test, the command's fixtures: fixture_server (served a socket until it was stopped); --exe brings one back" default.txt
check "default scope: the report's scope line names what is under test, with its sites" \
    grep -q "scope: under test fixture_client ($(sql default.db 'SELECT count(*) FROM sites') sites)" default.txt
check_equal "default scope: JSON campaign.fixtures" "fixture_server" \
    "$(jq -r '[.campaign.fixtures[].exe | split("/") | last] | join(" ")' default.json)"

# Forked at its sites, the client is left to re-runs once it holds its connection: a child
# would read its parent's answer. Its sites end as in re-run mode.
outcomes="SELECT site || ' ' || outcome || ' ' || coalesce(exit_code, '') FROM runs WHERE kind = 'fault' ORDER BY site"
"$FAILRUN" run --fork -j1 --db fork.db -- ./harness.sh >/dev/null 2>fork.err
check "--fork: a site reached with the client's connection open is re-run, saying why" \
    grep -q "reached with a socket it made itself" fork.err
check_equal "--fork: every site ends as in re-run mode" \
    "$(sql default.db "$outcomes")" "$(sql fork.db "$outcomes")"

# The client does not run alone (no server then), and its argument (the socket) differs from
# run to run: its runs fork at its start inside one more
# run of the harness, the start matched by its order among the client's starts, judged against
# an unfailed child of the same start.
FAILRUN_START_ABOVE_MS=1 "$FAILRUN" run --db start.db -- ./harness.sh \
    >/dev/null 2>start.err
check "a client that needs the server forks at its start inside the harness" \
    grep -q "1 program(s) fork at their start for their" start.err
check_equal "... every site answered there" "$(sql start.db "SELECT count(*) FROM sites")" \
    "$(sql start.db "SELECT count(*) FROM runs WHERE kind = 'fault' AND dir LIKE '%-starts/%'")"
check_equal "... each ending as in re-run mode" "$(sql default.db "$outcomes")" "$(sql start.db "$outcomes")"
check_equal "... and its runs stay the command's (no owner)" 0 \
    "$(sql start.db "SELECT count(*) FROM runs WHERE owner IS NOT NULL")"

# A child that stops the server on its error leg leaves the children after it without one, and
# the unfailed run forked after them all finds no server: the start's sites are not judged there
# but re-run in the harness as in the baseline, and end as in re-run mode.
"$FAILRUN" run -j1 --db stopping.db -- ./harness.sh "" stop-on-error >/dev/null 2>&1
FAILRUN_START_ABOVE_MS=1 "$FAILRUN" run -j1 --db stopped.db -- \
    ./harness.sh "" stop-on-error >/dev/null 2>stopped.err
check "a child that stops the fixture: the start's sites are re-run, saying why" \
    grep -q "or the children changed what it depends on" stopped.err
check_equal "... and every site ends as in re-run mode, none not-reached" \
    "$(sql stopping.db "$outcomes")" "$(sql stopped.db "$outcomes")"

# A harness that stops at its first failed test, as curl's runtests does, and checks after each
# test the requests its server logged: three tests, each its own client (c1, c2, c3: sites of
# their own). In a fork run the children of a test's client send requests too, that test fails
# and the harness stops; one more run reaches the next test's start, the tests answered already
# passing unforked. Every site is answered by a child at its start, as in re-run mode.
cat >stops.sh <<SCRIPT
#!/bin/sh
socket=\$(mktemp -u "\${TMPDIR:-/tmp}/fixture.$$.XXXXXX")
log=\$(mktemp)
"$server" "\$socket" log "\$log" &
server=\$!
tries=0
while [ ! -S "\$socket" ] && [ \$tries -lt 400 ]; do sleep 0.05; tries=\$((tries + 1)); done
status=0
for test in 1 2 3; do
    "$client" "\$socket" test \$test || { status=1; break; }
    served=\$(wc -l <"\$log")
    [ "\$served" = \$test ] || { echo "test \$test: the server served \$served requests" >&2; status=1; break; }
done
kill \$server
wait \$server 2>/dev/null
rm -f "\$socket" "\$log"
exit \$status
SCRIPT
chmod +x stops.sh
check "a harness that stops at its first failed test passes on its own" sh -c './stops.sh >/dev/null'
"$FAILRUN" run -j1 --db stops-rerun.db -- ./stops.sh >/dev/null 2>&1
FAILRUN_START_ABOVE_MS=1 "$FAILRUN" run -j1 --db stops.db -- ./stops.sh \
    >/dev/null 2>stops.err
check "... its fork run stops at the first test: one more run for the next, and one more" sh -c \
    'grep -q "stopped before 2 program start(s): fork run 2 of it for them" stops.err &&
     grep -q "stopped before 1 program start(s): fork run 3 of it for them" stops.err'
check_equal "... every site answered by a child at its start" \
    "$(sql stops.db "SELECT count(*) FROM sites")" \
    "$(sql stops.db "SELECT count(*) FROM runs WHERE kind = 'fault' AND dir LIKE '%-starts%'")"
check "... the sites of all three tests" test "$(sql stops.db "SELECT count(*) FROM sites")" = 5
check_equal "... each ending as in re-run mode" "$(sql stops-rerun.db "$outcomes")" \
    "$(sql stops.db "$outcomes")"

# The same harness with its server's log in the working folder, as curl's (log/server.input):
# each start puts the folder back after its children (the log cut back to what the unfailed
# program would have found), and one fork run answers every test. The campaign's own files are
# under a hidden folder, which is never touched. FAILRUN_START_RESTORE=0: it stops at the first
# test, as with the log outside.
sed 's|^log=\$(mktemp)$|log=served.log; : >"$log"|' stops.sh >stops-here.sh
chmod +x stops-here.sh
check "stops-here.sh keeps its log in the working folder" grep -q '^log=served.log' stops-here.sh
check "... and passes on its own" sh -c './stops-here.sh >/dev/null'
FAILRUN_START_ABOVE_MS=1 "$FAILRUN" run -j1 --db .campaign/here.db -- ./stops-here.sh \
    >/dev/null 2>here.err
check "its fork run, putting folders back, runs to the end" \
    sh -c 'grep -q "forking at their start (5 sites), the working folder of 3 of them put back" here.err &&
           ! grep -q "stopped before" here.err'
check_equal "... every site answered by a child at its start" \
    "$(sql .campaign/here.db "SELECT count(*) FROM sites")" \
    "$(sql .campaign/here.db "SELECT count(*) FROM runs WHERE kind = 'fault' AND dir LIKE '%-starts%'")"
check_equal "... each ending as in re-run mode" "$(sql stops-rerun.db "$outcomes")" \
    "$(sql .campaign/here.db "$outcomes")"
check "... and the log the children grew is the harness's own again (its run passed)" \
    test "$(grep -c 'ended otherwise' here.err)" = 0
check "... the report says so" sh -c "'$FAILRUN' report --db .campaign/here.db |
    grep -q 'the working folder of 3 program start(s) put back after their children'"
FAILRUN_START_RESTORE=0 FAILRUN_START_ABOVE_MS=1 "$FAILRUN" run -j1 --db .campaign/never.db -- \
    ./stops-here.sh >/dev/null 2>never.err
check "FAILRUN_START_RESTORE=0: nothing put back, one more run per test" \
    sh -c '! grep -q "put back" never.err && grep -q "fork run 3 of it for them" never.err'
# A writer beside the tests: a long-running ticker that holds its log open and appends numbered
# lines (/usr/bin/python3: a shim on PATH may start processes of its own), or a shell loop that
# starts processes around each line (the harness's other work, as a parallel test's). The harness
# checks the ticker's lines for a gap at its end (ticker.result). A file still held open is never
# cut back, and while processes of the command start beside a start's children its folder is not
# put back at all. The check sees the processes alive when the children are done: each line is
# written between two starts of a process that lives 0.3 s, so a line written while the children
# ran is seen by the check even on a loaded machine (with only the 5 ms sleep alive, a check made
# after it ended and before the next started missed the line, and cut it away).
cat >ticker-start.part <<'PART'
: >ticking
rm -f ticker.log
if [ "$1" = python ]; then
    /usr/bin/python3 -u -c 'import os, time
i = 0
while os.path.exists("ticking"):
    i += 1
    print(i)
    time.sleep(0.005)' >>ticker.log &
else
    (i=0; while [ -e ticking ]; do
        i=$((i + 1)); sleep 0.3 & echo $i >>ticker.log; sleep 0.3 & sleep 0.001
    done; wait) &
fi
ticker=$!
PART
cat >ticker-end.part <<'PART'
rm -f ticking
wait $ticker
if awk 'NR != $1 { exit 1 }' ticker.log; then echo ok; else echo gap; fi >ticker.result
rm -f ticker.log
PART
sed -e '/^server=\$!$/r ticker-start.part' -e '/^done$/r ticker-end.part' stops-here.sh >stops-ticker.sh
chmod +x stops-ticker.sh
check "stops-ticker.sh starts its ticker and checks it" \
    sh -c 'grep -q "^ticker=" stops-ticker.sh && grep -q "ticker.result" stops-ticker.sh'
check "stops-ticker.sh passes on its own, its ticker whole (python, shell)" \
    sh -c './stops-ticker.sh python >/dev/null && grep -qx ok ticker.result &&
           ./stops-ticker.sh shell >/dev/null && grep -qx ok ticker.result'
FAILRUN_START_ABOVE_MS=1 "$FAILRUN" run -j1 --db .campaign/ticker.db -- ./stops-ticker.sh python \
    >/dev/null 2>ticker.err
# (On a loaded machine a start may see a process start beside its children and put nothing
# back, as CI's nested make check did: then the harness stops and runs again. The file whole
# and every site answered hold whatever the timing.)
check "a log another process holds open is not cut back: the folders put back, the ticker's file whole" \
    sh -c 'grep -q "forking at their start (5 sites), the working folder of 3 of them put back" ticker.err &&
           grep -qx ok ticker.result'
check_equal "... every site answered at its start" \
    "$(sql .campaign/ticker.db "SELECT count(*) FROM sites")" \
    "$(sql .campaign/ticker.db "SELECT count(*) FROM runs WHERE kind = 'fault' AND dir LIKE '%-starts%'")"
FAILRUN_START_ABOVE_MS=1 "$FAILRUN" run -j1 --db .campaign/shell-ticker.db -- ./stops-ticker.sh shell \
    >/dev/null 2>shell-ticker.err
# Whether a start sees the loop's processes depends on the machine's load (a loop stalled for as
# long as the children ran wrote nothing then, and that start's folder is put back: its test
# passes); the ticker's file is whole whatever the timing. The loop starts a process every few
# milliseconds: a start of one site forks two unfailed children and one more, some 10 ms.
check "processes started beside the children: the ticker's file whole, a start not put back (the harness stopped)" \
    sh -c 'grep -q "stopped before .* fork run 2 of it for them" shell-ticker.err && grep -qx ok ticker.result'
check_equal "... every site still answered at its start" \
    "$(sql .campaign/shell-ticker.db "SELECT count(*) FROM sites")" \
    "$(sql .campaign/shell-ticker.db "SELECT count(*) FROM runs WHERE kind = 'fault' AND dir LIKE '%-starts%'")"

# With the campaign's database in the working folder itself, nothing is put back (the walk
# would reach failrun's own files): the harness stops once per test, as before.
FAILRUN_START_ABOVE_MS=1 "$FAILRUN" run -j1 --db here-visible.db -- ./stops-here.sh \
    >/dev/null 2>visible.err
check "a database in the working folder: no folder put back, saying why; one more run per test" \
    sh -c 'grep -q "not put back after their children: outside the command.s folder, or the campaign.s files lie in them" visible.err &&
           grep -q "fork run 3 of it for them" visible.err'
check_equal "... and the campaign whole, every site answered at the start" \
    "$(sql here-visible.db "SELECT count(*) FROM sites")" \
    "$(sql here-visible.db "SELECT count(*) FROM runs WHERE kind = 'fault' AND dir LIKE '%-starts%'")"

# The client reads its line from a pipe the harness closed (printf ... | client): at its start
# the pipe is read out once into a file, which the program and each child read from the start.
sed "s|^\"$client\" \"\\\$socket\" \\\$2|printf 'hello pipe\\\\n' \| \"$client\" \"\\\$socket\" stdin|" harness.sh >piped.sh
chmod +x piped.sh
check "the client reads a pipe in piped.sh" grep -q "^printf 'hello pipe" piped.sh
check_equal "piped.sh passes on its own, the line through the server" "echo: hello pipe" "$(./piped.sh)"
"$FAILRUN" run -j1 --db piped-rerun.db -- ./piped.sh >/dev/null 2>&1
FAILRUN_START_ABOVE_MS=1 "$FAILRUN" run -j1 --db piped.db -- ./piped.sh \
    >piped.out 2>piped.err
check_equal "a piped input: every site answered at the client's start" \
    "$(sql piped.db "SELECT count(*) FROM sites")" \
    "$(sql piped.db "SELECT count(*) FROM runs WHERE kind = 'fault' AND dir LIKE '%-starts/%'")"
check_equal "... each ending as in re-run mode" "$(sql piped-rerun.db "$outcomes")" \
    "$(sql piped.db "$outcomes")"
check "... and the fork run of the harness passed (the program read the line too)" \
    sh -c '! grep -q "fork run of ./piped.sh ended otherwise" piped.err'

# A pipe whose writer is still open when the client starts (the line, then a pause) is left
# alone, unread: no child forks at that start, its sites are re-run, the program reads its line.
sed "s|^printf 'hello pipe\\\\n' \||{ printf 'hello pipe\\\\n'; sleep 1; } \||" piped.sh >open.sh
chmod +x open.sh
check "the pipe stays open a while in open.sh" grep -q "sleep 1; } |" open.sh
FAILRUN_START_ABOVE_MS=1 "$FAILRUN" run -j1 --db open.db -- ./open.sh \
    >/dev/null 2>open.err
check_equal "a pipe still open: no site answered at the start" 0 \
    "$(sql open.db "SELECT count(*) FROM runs WHERE kind = 'fault' AND dir LIKE '%-starts/%'")"
check "... because of the pipe, said on stderr" grep -q "reached with standard input a pipe" open.err
check_equal "... each ending as in re-run mode" "$(sql piped-rerun.db "$outcomes")" \
    "$(sql open.db "$outcomes")"

# A pipe the client shares with what runs after it (`{ client; cat; }`: the parent holds it
# too), the client not reading it: the pipe is not the client's alone and is left unread, and
# `cat` still gets its line (the harness checks it).
sed "s|^\"$client\" \"\\\$socket\" \\\$2|printf 'x\\\\n' \| { \"$client\" \"\\\$socket\" \&\& [ \"\\\$(cat)\" = x ]; }|" harness.sh >shared.sh
chmod +x shared.sh
check "shared.sh checks what cat reads after the client" grep -q '= x ]; }' shared.sh
check "shared.sh passes on its own" sh -c './shared.sh >/dev/null'
FAILRUN_START_ABOVE_MS=1 "$FAILRUN" run -j1 --db shared.db -- ./shared.sh >/dev/null 2>shared.err
check_equal "a pipe its parent holds too: no site answered at the start" 0 \
    "$(sql shared.db "SELECT count(*) FROM runs WHERE kind = 'fault' AND dir LIKE '%-starts/%'")"
check "... and the fork run of the harness passed (cat got its line)" \
    sh -c '! grep -q "fork run of ./shared.sh ended otherwise" shared.err'

# A site on an error leg (reached only once the answer's block failed) is failed in a chain
# (that failure, then it). The chain forks at the client's start too, in the same fork run of
# the harness: failrun judges the start's children while it waits, and gives it the chain as a
# second round (harness.count: one line per run of the harness).
"$FAILRUN" run -j1 --db leg-rerun.db -- ./harness.sh "" leg >/dev/null 2>&1
: >harness.count
FAILRUN_START_ABOVE_MS=1 "$FAILRUN" run -j1 --db leg.db -- \
    sh -c 'echo run >>harness.count; exec ./harness.sh "" leg' >/dev/null 2>leg.err
check "an error leg's site: a chain is planned" test \
    "$(sql leg.db "SELECT count(*) FROM runs WHERE chain LIKE '%,%'")" -ge 1
check "... which forks at the start in a second round, said on stderr" \
    grep -q "judged while the starts waited: .* in up to 2 round(s)" leg.err
check_equal "... in the one fork run: the harness ran twice in all" 2 "$(wc -l <harness.count)"
check_equal "... every run answered at the client's start" 0 \
    "$(sql leg.db "SELECT count(*) FROM runs WHERE kind = 'fault' AND dir NOT LIKE '%-starts%'")"
leg_outcomes="SELECT chain || ' ' || outcome FROM runs WHERE kind = 'fault' ORDER BY chain"
check_equal "... each ending as in re-run mode" "$(sql leg-rerun.db "$leg_outcomes")" \
    "$(sql leg.db "$leg_outcomes")"
# The children of a program inside the command share its live fixtures and files: they run
# one at a time, also at -j2 (the client's "overlap" notes a run that finds another running).
rm -f fixture_client.overlap fixture_client.busy
FAILRUN_START_ABOVE_MS=1 "$FAILRUN" run -j2 --db overlap.db -- ./harness.sh "" overlap \
    >/dev/null 2>overlap.err
check "the children of a start inside the command at -j2: several answered there" test \
    "$(sql overlap.db "SELECT count(*) FROM runs WHERE kind = 'fault' AND dir LIKE '%-starts%'")" -ge 2
check "... never two at once" test ! -e fixture_client.overlap
# Without rounds (FAILRUN_START_ROUNDS=0) the chain waits for one more fork run of the harness.
: >harness.count
FAILRUN_START_ROUNDS=0 FAILRUN_START_ABOVE_MS=1 "$FAILRUN" run -j1 --db leg0.db -- \
    sh -c 'echo run >>harness.count; exec ./harness.sh "" leg' >/dev/null 2>leg0.err
check "without rounds, the chain forks in one more fork run, said on stderr" \
    grep -q "run(s) of sites on the error legs of 1 program start(s): one more fork run" leg0.err
check_equal "... the harness ran three times" 3 "$(wc -l <harness.count)"
check_equal "... each ending as with rounds" "$(sql leg.db "$leg_outcomes")" \
    "$(sql leg0.db "$leg_outcomes")"

# A client whose output differs from run to run (it prints its pid): its start is unstable, the
# unfailed children of the start before and after the others differ, and its children are not
# judged against either:
# its sites go to runs of the whole harness, and nothing is a finding.
# The harness's output varies too: the fork run, which ended as the baseline, shows it, and no
# run of the harness is made for that check alone (one line in harness.count per run).
: >harness.count
FAILRUN_START_ABOVE_MS=1 "$FAILRUN" run -j1 --json --db unstable.db -- \
    sh -c 'echo run >>harness.count; exec ./harness.sh "" pid' >unstable.json 2>unstable.err
check "a start whose output varies is unstable, said on stderr" \
    grep -q "start in the fork run left its sites to re-runs: unstable" unstable.err
check_equal "... none of its sites answered at the start" 0 \
    "$(sql unstable.db "SELECT count(*) FROM runs WHERE kind = 'fault' AND dir LIKE '%-starts/%'")"
check_equal "... and no finding" 0 "$(jq '.findings | length' unstable.json)"
check "... the command's output found unstable, said once" \
    test "$(grep -c "standard output differs from run to run" unstable.err)" = 1
check_equal "... by the fork run: the baseline, the fork run and one run per site" \
    "$(($(sql unstable.db "SELECT count(*) FROM runs WHERE kind = 'fault'") + 2))" \
    "$(wc -l <harness.count)"

# A client whose error leg leaves a stale lock behind that fails every later run: a child after
# that one would end otherwise for it, not for its own fault. The unfailed child forked after all
# the others ends otherwise than the first: the start's sites go to runs of the whole harness
# (which removes the lock first, as a test's setup does), and end as in re-run mode.
sed "s|^\"$client\"|rm -f fixture_client.lock; &|" harness.sh >locking.sh
chmod +x locking.sh
check "locking.sh removes the lock first" grep -q "^rm -f fixture_client.lock" locking.sh
"$FAILRUN" run -j1 --db locking-rerun.db -- ./locking.sh "" lock >/dev/null 2>&1
FAILRUN_START_ABOVE_MS=1 "$FAILRUN" run -j1 --db locking.db -- \
    ./locking.sh "" lock >/dev/null 2>locking.err
check "children that change what the program depends on: said on stderr" \
    grep -q "or the children changed what it depends on" locking.err
check_equal "... its sites re-run in the harness, not answered at the start" 0 \
    "$(sql locking.db "SELECT count(*) FROM runs WHERE kind = 'fault' AND dir LIKE '%-starts/%'")"
check_equal "... each ending as in re-run mode" "$(sql locking-rerun.db "$outcomes")" \
    "$(sql locking.db "$outcomes")"

# The same client run by its harness under valgrind: a start's children run natively, forked by
# one native image of the program (the zygote: one fork of the guest, which costs valgrind some
# 60 ms, instead of one per child that then execs the program natively), and each site ends as
# in re-run mode, where the whole harness runs it under valgrind.
sed "s|^\"$client\"|valgrind -q --error-exitcode=99 \"$client\"|" harness.sh >valgrind.sh
chmod +x valgrind.sh
check "the client runs under valgrind in valgrind.sh" grep -q '^valgrind -q' valgrind.sh
# The client prints the descriptor its first open gets ("fds"): a child must get the same.
"$FAILRUN" run -j1 --db valgrind-rerun.db -- ./valgrind.sh "" fds >/dev/null 2>&1
FIXTURE_CLIENT_WHERE="$work/where.txt" FAILRUN_START_ABOVE_MS=1 \
    strace -f -qq -e trace=execve -e signal=none -o "$work/valgrind.trace" \
    "$FAILRUN" run -j1 --keep-runs --db valgrind-start.db -- ./valgrind.sh "" fds >/dev/null 2>&1
check_equal "under valgrind: every site answered at the client's start" \
    "$(sql valgrind-start.db "SELECT count(*) FROM sites")" \
    "$(sql valgrind-start.db "SELECT count(*) FROM runs WHERE kind = 'fault' AND dir LIKE '%-starts/%'")"
check "... more sites than one (so that an exec per child would show)" \
    test "$(sql valgrind-start.db "SELECT count(*) FROM sites")" -gt 1
# execs of the client itself (valgrind's are of valgrind): the check that it does alone what it
# did in the command, and in the fork run the zygote's; one per child and control child before.
check_equal "... the client's native image started once in the fork run, for all its children" 2 \
    "$(grep -c "execve(\"$client\".* = 0\$" valgrind.trace)"
singles=0
for dir in $(sql valgrind-start.db "SELECT dir FROM runs WHERE kind = 'fault'"); do
    [ "$(ls "$dir" | grep -c '\.rec$')" = 1 ] && singles=$((singles + 1))
done
check_equal "... each child one image, a fork of the native one (no exec of its own)" \
    "$(sql valgrind-start.db "SELECT count(*) FROM sites")" "$singles"
first=$(sed -n 's/^first descriptor //p' "$(sql valgrind-start.db "SELECT dir FROM runs WHERE kind = 'baseline'")/stdout")
same=0
for dir in $(sql valgrind-start.db "SELECT dir FROM runs WHERE kind = 'fault'"); do
    grep -qx "first descriptor $first" "$dir/stdout" && same=$((same + 1))
done
check "... the baseline's client printed its first descriptor" test -n "$first"
check_equal "... each child's first open got the descriptor the baseline's did (none left open)" \
    "$(sql valgrind-start.db "SELECT count(*) FROM sites")" "$same"
check_equal "... each ending as in re-run mode under valgrind" "$(sql valgrind-rerun.db "$outcomes")" \
    "$(sql valgrind-start.db "$outcomes")"
# The program's own run after the children is the zygote's, natively: valgrind's verdict on the
# unfailed program is the baseline's, and the fork run only lets the harness go on.
# (where.txt: one line per run of the client, "valgrind|native LIBFAIL_DIR", the folder padded
# with slashes.)
check_equal "... the baseline's client ran under valgrind" "valgrind" \
    "$(grep "/runs/1-[0-9]*/*\$" where.txt | cut -d' ' -f1 | sort -u)"
check_equal "... the fork run's own client ran once, natively, in the zygote" "native" \
    "$(grep "/command/*\$" where.txt | cut -d' ' -f1)"
# A client that ends with status 3 when it did its work: the guest must end so too, or the fork
# run ends otherwise than the baseline.
FIXTURE_CLIENT_STATUS=3 FAILRUN_START_ABOVE_MS=1 \
    "$FAILRUN" run -j1 --db valgrind-status.db -- ./valgrind.sh "" fds >/dev/null 2>status.err
check_equal "... a client ending with status 3: the harness did in the baseline" 3 \
    "$(sql valgrind-status.db "SELECT exit_code FROM runs WHERE kind = 'baseline'")"
check "... and the guest ended as the zygote did (the fork run as the baseline)" \
    sh -c '! grep -q "ended otherwise than in the baseline" status.err'
check_equal "... every site answered at the start" \
    "$(sql valgrind-status.db "SELECT count(*) FROM sites")" \
    "$(sql valgrind-status.db "SELECT count(*) FROM runs WHERE kind = 'fault' AND dir LIKE '%-starts/%'")"
FIXTURE_CLIENT_WHERE="$work/guest.txt" FAILRUN_START_NATIVE=0 FAILRUN_START_ABOVE_MS=1 \
    "$FAILRUN" run -j1 --db valgrind-guest.db -- ./valgrind.sh "" fds >/dev/null 2>&1
check_equal "FAILRUN_START_NATIVE=0: the fork run's client ran under valgrind" "valgrind" \
    "$(grep "/command/*\$" guest.txt | cut -d' ' -f1)"
check_equal "... each ending as with a native one" "$(sql valgrind-start.db "$outcomes")" \
    "$(sql valgrind-guest.db "$outcomes")"

"$FAILRUN" run -q --db back.db --exe "$server:$client" -- ./harness.sh >/dev/null 2>&1
check_equal "--exe brings the server back: sites in both" "fixture_client fixture_server" \
    "$(sql back.db 'SELECT DISTINCT exe FROM sites' | sed 's|.*/||' | sort | tr '\n' ' ' | sed 's/ $//')"
check_equal "--exe: no fixture listed" 0 "$(sql back.db 'SELECT count(*) FROM fixtures')"

"$FAILRUN" run -q --db once.db -- ./harness.sh once >/dev/null 2>&1
check_equal "a listener that ends by itself stays under test" 0 "$(sql once.db 'SELECT count(*) FROM fixtures')"
check "... and its sites are in the campaign" \
    test "$(sql once.db "SELECT count(*) FROM sites WHERE exe = '$server'")" -gt 0

"$FAILRUN" run -q --db daemon.db -- sh -c '"$1" "$2" && "$3" >/dev/null' sh \
    "$PROGRAMS/daemon" "$work/daemon.pids" "$EXAMPLES/kvtest" >/dev/null 2>&1
check "a daemonising fixture is one too" \
    test "$(sql daemon.db "SELECT count(*) FROM fixtures WHERE exe = '$PROGRAMS/daemon'")" = 1
check "... and the program under test is not" \
    test "$(sql daemon.db "SELECT count(*) FROM sites WHERE exe = '$EXAMPLES/kvtest'")" -gt 0

# A child at a start whose error leg waits for ever (the client's "hang"): it runs out of time
# after three times its start's unfailed child and 2 s more, not the whole command's limit (ten
# times a harness that sleeps 2 s after its test, and 5 s: about 27 s). Against live fixtures
# a hang may be an earlier child's doing (a server still busy with a killed child's request):
# not an answer; the run of the whole harness finds the hang.
sed 's|^exit \$status$|sleep 2; exit $status|' harness.sh >slow.sh
chmod +x slow.sh
check "slow.sh sleeps after its test" grep -q '^sleep 2; exit' slow.sh
FAILRUN_START_ABOVE_MS=1 "$FAILRUN" run -j1 --db hang.db -- ./slow.sh "" hang >/dev/null 2>hang.err
check "a child at its start that hangs: out of time within its start's own, said, re-run" \
    sh -c "grep -q \"1 child(ren) of fixture_client's start ran out of time (2\\.[0-9] s\" hang.err"
check_equal "... the hang is the re-run's" "1 0" \
    "$(sql hang.db "SELECT count(*) || ' ' || sum(dir LIKE '%-starts%') FROM runs WHERE outcome = 'hang'")"
check "... after a second try at the start, which hung too, said on stderr" \
    grep -q "1 site(s) not reached or out of time tried once more" hang.err
check_equal "... the time out said once" 1 "$(grep -c "start ran out of time" hang.err)"
# A child that hangs the first time only (the client's "hang-once": the first to reach the
# error leg leaves a file, and waits): its second try at the start answers, and no run of the
# whole harness is made for it (harness.count: one line per run of the harness).
: >harness.count
FAILRUN_START_ABOVE_MS=1 "$FAILRUN" run -j1 --db hangonce.db -- \
    sh -c 'echo run >>harness.count; exec ./slow.sh "" hang-once' >/dev/null 2>once.err
check "a child that hangs once: tried again at its start, said on stderr" \
    grep -q "1 site(s) not reached or out of time tried once more" once.err
check_equal "... where it answered: no hang, every run at the start" "0 0" \
    "$(sql hangonce.db "SELECT sum(outcome = 'hang') || ' ' || sum(dir NOT LIKE '%-starts%') FROM runs WHERE kind = 'fault'")"
check_equal "... and the harness ran twice in all" 2 "$(wc -l <harness.count)"
check "... the first try having met the hang (its file is there)" test -e fixture_client.hung
rm -f fixture_client.hung
