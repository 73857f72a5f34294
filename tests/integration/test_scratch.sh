#!/bin/sh
# test_scratch.sh — a campaign's scratch folder in memory (failrun-PID.XXXXXX in /dev/shm, or in
# LIBFAIL_SCRATCH) never outlives the campaign: it is removed when failrun ends on INT, TERM or
# HUP (after its runs are stopped), at its end and on an error; a folder that a KILL left is
# removed by the next campaign; a folder whose campaign still runs is never removed.
. "$(dirname "$0")/lib.sh"
work=$(scratch)
sleeper=
trap '[ -n "$sleeper" ] && kill $sleeper 2>/dev/null; rm -rf "$work"' EXIT
cd "$work" || exit 1
mkdir root
root=$work/root

# Each run sleeps in a shell first (out of scope with --exe), so a signal lands mid-campaign.
slow() { echo "sleep $1; exec $EXAMPLES/kvtest"; }

# start NAME SCRATCH SLEEP [OPTIONS...]: a campaign in the background, its pid in $pid. SCRATCH
# is LIBFAIL_SCRATCH, "-" for the default (/dev/shm). INT and HUP are reset to their default: a
# script's `cmd &` starts cmd with INT ignored, `nohup make check` ignores HUP, and failrun keeps
# ignoring a signal ignored at its start.
start() {
    name=$1 where=$2 pause=$3
    shift 3
    if [ "$where" = - ]; then
        set -- env --default-signal=INT,HUP -u LIBFAIL_SCRATCH "$FAILRUN" run -q "$@"
    else
        set -- env --default-signal=INT,HUP LIBFAIL_SCRATCH="$where" "$FAILRUN" run -q "$@"
    fi
    "$@" --exe '*/kvtest' --db "$name.db" -- sh -c "$(slow "$pause")" >"$name.out" 2>"$name.err" &
    pid=$!
}

# wait_busy DIR PID [N]: until the campaign PID has concluded N runs (2) and has a run under way
# in its scratch folder in DIR (at most 20 s); true when it has.
wait_busy() {
    tries=0
    while [ "$tries" -lt 400 ]; do
        kill -0 "$2" 2>/dev/null || return 1
        if [ "$(sql "$name.db" "SELECT count(*) FROM runs WHERE state = 'done'" 2>/dev/null || echo 0)" -ge "${3:-2}" ] &&
            [ -n "$(ls -d "$1"/failrun-"$2".*/runs/* 2>/dev/null)" ]; then
            return 0
        fi
        sleep 0.05
        tries=$((tries + 1))
    done
    return 1
}

leftovers() { ls -d "$1"/failrun-"$2".* 2>/dev/null; }
runs_left() { ps -eo args= | grep -F "$EXAMPLES/kvtest" | grep -v grep; }

# INT in /dev/shm (the default), TERM and HUP in a folder of this test.
for case in INT:2:/dev/shm TERM:15:$root HUP:1:$root; do
    sig=${case%%:*} dir=${case#*:*:} number=${case#*:}
    number=${number%%:*}
    if [ "$dir" = /dev/shm ]; then where=-; else where=$dir; fi
    if [ "$dir" = /dev/shm ] && ! [ -w /dev/shm ]; then
        echo "ok - $sig: skipped, no writable /dev/shm"
        continue
    fi
    start "$sig" "$where" 0.3 -j2
    wait_busy "$dir" "$pid"
    check "$sig: the campaign's scratch folder in $dir holds runs under way" test $? = 0
    size=$(du -sk "$dir"/failrun-"$pid".* 2>/dev/null | awk '{ s += $1 } END { print s + 0 }')
    kill -"$sig" "$pid"
    wait "$pid" 2>/dev/null
    status=$?
    check_equal "$sig: failrun ends as the signal ends a program (128+n)" \
        "$((128 + number))" "$status"
    check_equal "$sig: its scratch folder ($size KiB) is removed" "" "$(leftovers "$dir" "$pid")"
    check_equal "$sig: no process of its runs is left" "" "$(runs_left)"
    check "$sig: the campaign had not finished" \
        test "$(sql "$sig.db" "SELECT count(*) FROM runs WHERE state = 'planned'")" -gt 0
    check_equal "$sig: no run was concluded as killed by failrun (SIGKILL)" 0 \
        "$(sql "$sig.db" "SELECT count(*) FROM runs WHERE signal = 9")"
done

# The interrupted campaign resumes to the result of an uninterrupted one, and at its end its
# own scratch folder is gone too.
"$FAILRUN" run -q --json --exe '*/kvtest' --db whole.db -- sh -c "$(slow 0)" >whole.json
LIBFAIL_SCRATCH=$root "$FAILRUN" run -q -j2 --json --exe '*/kvtest' --db TERM.db -- \
    sh -c "$(slow 0.3)" >resumed.json 2>/dev/null
check_equal "resume after TERM: the same outcomes as an uninterrupted campaign" \
    "$(jq -c .outcomes whole.json)" "$(jq -c .outcomes resumed.json)"
check_equal "a campaign that ends normally leaves no scratch folder" "" "$(ls "$root")"

# An error exit (the baseline dies of a signal without any fault) removes it as well.
LIBFAIL_SCRATCH=$root "$FAILRUN" run -q --db error.db -- sh -c 'kill -SEGV $$' >/dev/null 2>&1
check_equal "error exit: failrun exits with status 2" 2 $?
check_equal "error exit: no scratch folder is left" "" "$(ls "$root")"

# A run's processes do not inherit the signals failrun blocks in its threads. The shell reads
# its own mask with builtins: around each fork (a grep it started) dash blocks every signal, and
# a child reading the shell's status then saw that mask (CI, on a loaded machine).
LIBFAIL_SCRATCH=$root "$FAILRUN" run -q --exe '*/kvtest' --db mask.db -- \
    sh -c "while read -r line; do case \$line in SigBlk*) echo \"\$line\";; esac; done \
        </proc/\$\$/status >'$work/mask.txt'; exec $EXAMPLES/kvtest" >/dev/null 2>&1
check_equal "a run starts with no signal blocked" "SigBlk:	0000000000000000" "$(cat mask.txt)"

# KILL: nothing runs in the killed failrun, so its folder stays...
start KILL "$root" 0.3 -j2
killed=$pid
wait_busy "$root" "$killed"
kill -KILL "$killed"
wait "$killed" 2>/dev/null
sleep 0.3
check "KILL: the killed campaign's scratch folder is left over" test -n "$(leftovers "$root" "$killed")"
check_equal "KILL: no process of its runs is left" "" "$(runs_left)"

# ...beside a campaign that is running (slow runs, bounded), a folder whose owner holds its lock
# though its pid means nothing here (a campaign in another pid namespace sharing the folder), and
# a folder named with the pid of a live process that is no failrun (a reused pid).
start live "$root" 1 -j1 --max-runs 8
live=$pid
wait_busy "$root" "$live" 0
check "live: a campaign is running with its scratch folder" test $? = 0
sh -c 'exit 0' &
dead=$!
wait "$dead"
mkdir "$root/failrun-$dead.locked"
flock "$root/failrun-$dead.locked" sh -c "echo \$\$ >'$work/holder.pid'; exec sleep 120" &
holder=$!
sleep 60 &
sleeper=$!
mkdir "$root/failrun-$sleeper.reused"
while ! [ -s holder.pid ]; do sleep 0.05; done
sleeper="$sleeper $(cat holder.pid)"

# The next campaign (the killed one resumed) removes only what no live campaign owns.
check "next run: (the campaign is still running before)" kill -0 "$live"
LIBFAIL_SCRATCH=$root "$FAILRUN" run -q -j2 --exe '*/kvtest' --db KILL.db -- sh -c "$(slow 0.3)" \
    >/dev/null 2>&1
check_equal "next run: the killed campaign's folder is removed" "" "$(leftovers "$root" "$killed")"
check "next run: the killed campaign was resumed to its end" \
    test "$(sql KILL.db "SELECT count(*) FROM runs WHERE state = 'planned'")" = 0
check "next run: the folder of the campaign still running is kept" \
    test -n "$(leftovers "$root" "$live")" -a -d "$(leftovers "$root" "$live")/runs"
check "next run: (that campaign was still running)" kill -0 "$live"
check "next run: a folder whose owner holds its lock is kept" test -d "$root/failrun-$dead.locked"
check_equal "next run: a folder of a pid reused by another program is removed" "" \
    "$(ls -d "$root/failrun-${sleeper%% *}.reused" 2>/dev/null)"

wait "$live"
status=$?
check "live: the running campaign was not disturbed (ends with 0 or 1)" test "$status" -le 1
check_equal "live: its runs all concluded" 0 \
    "$(sql live.db "SELECT count(*) FROM runs WHERE kind = 'fault' AND state = 'done' AND outcome IS NULL")"
check_equal "live: at its end its scratch folder is gone" "" "$(leftovers "$root" "$live")"

# Once the lock's holder is gone, the next campaign removes that folder too.
kill $sleeper 2>/dev/null
wait "$holder" 2>/dev/null
sleeper=
LIBFAIL_SCRATCH=$root "$FAILRUN" run -q --db last.db -- "$EXAMPLES/kvtest" >/dev/null 2>&1
check_equal "once its lock is free and its pid gone, the next campaign removes it" "" "$(ls "$root")"
