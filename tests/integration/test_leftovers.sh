#!/bin/sh
# test_leftovers.sh — no process a campaign starts outlives it (injector/base/leftover.c): a fixture
# that daemonises (fork, setsid, fork: a test server) ends with the run that started it, with
# the campaign, when failrun gets SIGINT or SIGTERM, and after SIGKILL with the next campaign.
. "$(dirname "$0")/lib.sh"
work=$(scratch)
trap 'for pid in $(cat "$work"/*.pids 2>/dev/null); do kill -9 "$pid" 2>/dev/null; done; rm -rf "$work"' EXIT
cd "$work" || exit 1

# A suite that starts a daemon, then (while the file `slow` exists) takes its time, then runs
# the program under test. Every run of the whole command starts a daemon of its own.
suite='"$1" "$2"; if [ -e slow ]; then sleep 30; fi; exec "$3"'
campaign() { # DB PIDLOG [failrun run options]
    db=$1 pids=$2
    shift 2
    "$FAILRUN" run -q --whole-command --exe '*/kvtest' --db "$db" "$@" \
        -- sh -c "$suite" sh "$PROGRAMS/daemon" "$work/$pids" "$EXAMPLES/kvtest"
}
# start DB PIDLOG: the same campaign in the background, failrun's pid in $pid (SIGINT not
# ignored, as a background job's would be); one run at a time, so the baseline runs without the
# twin that checks -j N (one daemon to count).
start() {
    env --default-signal=INT "$FAILRUN" run -q -j1 --whole-command --exe '*/kvtest' --db "$1" \
        -- sh -c "$suite" sh "$PROGRAMS/daemon" "$work/$2" "$EXAMPLES/kvtest" >/dev/null 2>&1 &
    pid=$!
}
# running PID: the process runs (a zombie, dead and waiting for its parent to reap it, does not;
# a killed campaign's daemon has init for a parent, which may be slow to reap it).
running() {
    [ -r "/proc/$1/status" ] && ! grep -q '^State:[[:space:]]*Z' "/proc/$1/status" 2>/dev/null
}
# alive PIDLOG: how many of the daemons it lists still run.
alive() {
    n=0
    for pid in $(cat "$1"); do
        running "$pid" && n=$((n + 1))
    done
    echo "$n"
}
# started PIDLOG: wait (at most 20 s) until a daemon wrote its pid.
started() {
    for _ in $(seq 200); do
        [ -s "$1" ] && return 0
        sleep 0.1
    done
    return 1
}

campaign plain.db plain.pids -j2 >/dev/null
check "a campaign whose every run starts a daemon made several runs" \
    test "$(wc -l <plain.pids)" -ge 4
check_equal "no daemon of the campaign outlives it" 0 "$(alive plain.pids)"
# One run at a time, each run first counts the daemons of earlier runs still running: each
# ended with its run, not only with the campaign.
cat >counting.sh <<'SH'
n=0
for pid in $(cat "$2" 2>/dev/null); do
    [ -r "/proc/$pid/status" ] && ! grep -q '^State:[[:space:]]*Z' "/proc/$pid/status" && n=$((n + 1))
done
echo "$n" >>"$2.counts"
"$1" "$2"
exec "$3"
SH
"$FAILRUN" run -q --whole-command --exe '*/kvtest' -j1 --db counting.db \
    -- sh counting.sh "$PROGRAMS/daemon" "$work/counting.pids" "$EXAMPLES/kvtest" >/dev/null
check "one run at a time: several runs started daemons" test "$(wc -l <counting.pids)" -ge 4
check_equal "one run at a time: no run found a daemon of an earlier run still running" 0 \
    "$(sort -u counting.pids.counts | tr '\n' ' ' | sed 's/ $//')"

# SIGINT and SIGTERM: failrun stops its runs and ends their daemons before it ends.
for signal in INT TERM; do
    touch slow
    start "$signal.db" "$signal.pids"
    check "SIG$signal: the daemon of the running baseline started" started "$signal.pids"
    kill -"$signal" "$pid"
    wait "$pid" 2>/dev/null
    check_equal "SIG$signal: no daemon outlives failrun" 0 "$(alive "$signal.pids")"
    rm -f slow
done

# SIGKILL: nothing runs in a killed failrun, so the daemon runs on; the next campaign on the
# folder ends it before its own runs, and its own daemons with it.
touch slow
start killed.db killed.pids
check "SIGKILL: the daemon of the running baseline started" started killed.pids
kill -9 "$pid"
wait "$pid" 2>/dev/null
sleep 0.2
check_equal "SIGKILL: the daemon outlives the killed failrun" 1 "$(alive killed.pids)"
first=$(head -n 1 killed.pids)
rm -f slow
campaign killed.db killed.pids >/dev/null 2>&1
check "SIGKILL: the next campaign on the folder ended the killed campaign's daemon" \
    sh -c "! { [ -r /proc/$first/status ] && ! grep -q '^State:[[:space:]]*Z' /proc/$first/status; }"
check_equal "SIGKILL: and no daemon of its own outlives it" 0 "$(alive killed.pids)"
