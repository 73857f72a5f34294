#!/bin/sh
# test_spin.sh — an error leg that loops forever on the CPU is a hang, ended by the CPU limit the
# fault gave its process (plan key cpu), long before the wall-clock timeout: in a re-run, in a
# fork child, and in a program the faulted process executes. An error leg that only works a while
# is no hang.
. "$(dirname "$0")/lib.sh"
work=$(scratch)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
spin="$PROGRAMS/spin"
loop=$(marker tests/programs/spin.c 'SPIN(loop)' | cut -d: -f2)
exec_line=$(marker tests/programs/spin.c 'SPIN(exec)' | cut -d: -f2)
work_line=$(marker tests/programs/spin.c 'SPIN(work)' | cut -d: -f2)
shell_line=$(marker tests/programs/spin.c 'SPIN(shell)' | cut -d: -f2)
child_line=$(marker tests/programs/spin.c 'SPIN(child)' | cut -d: -f2)
hangs='.findings[] | select(.outcome == "hang") | "\(.location.line) \(.runs)"'
# The outcome of the run at a marked line, and whether failrun's clock ended it.
run_at() {
    site=$(jq -r ".runs[] | select(.site_name | endswith(\"spin.c:$2\")) | .site" "$1.json")
    sql "$1.db" "SELECT outcome, timed_out FROM runs WHERE kind = 'fault' AND site = '$site'"
}

# --timeout 30: were the CPU limit not there, each spinning run would end at 30 s, timed out.
for mode in rerun fork; do
    option=
    [ "$mode" = fork ] && option=--fork
    "$FAILRUN" run -q --json --timeout 30 $option --db "$mode.db" -- "$spin" >"$mode.json" 2>"$mode.err"
    check_equal "$mode: failrun exits 1 (findings)" 1 $?
    check_equal "$mode: one hang finding (the loops are all in main), at the first loop's site, of four runs" \
        "$loop 4" "$(jq -r "$hangs" "$mode.json")"
    check_equal "$mode: the loop was ended by its CPU limit, not by failrun's clock" "hang|0" \
        "$(run_at "$mode" "$loop")"
    check_equal "$mode: so was the program it executed" "hang|0" "$(run_at "$mode" "$exec_line")"
    check_equal "$mode: and a system shell it executed (out of scope)" "hang|0" "$(run_at "$mode" "$shell_line")"
    check_equal "$mode: a worker that spins is the run's hang, though its parent then aborts" "hang|0" \
        "$(run_at "$mode" "$child_line")"
    check_equal "$mode: an error leg that works 0.3 s and reports the error is no hang" "handled|0" \
        "$(run_at "$mode" "$work_line")"
done
# Inside a suite (a shell that runs it), the program's runs alone get its own limit: 5 times its
# time alone plus 0.5 s, far below the command's (5x the baseline's CPU + 2 s). Its loop is still a
# hang the limit ended, and the leg that works 0.3 s is still no hang.
SPIN_PLANS="$work/plans" "$FAILRUN" run -q --json --timeout 30 --db suite.db -- \
    sh -c '"$0"; exit 0' "$spin" >suite.json 2>suite.err
check_equal "suite: failrun exits 1 (findings)" 1 $?
check_equal "suite: the loop was ended by its CPU limit, not by failrun's clock" "hang|0" \
    "$(run_at suite "$loop")"
check_equal "suite: the leg that works 0.3 s reports the error, no hang" "handled|0" \
    "$(run_at suite "$work_line")"
alone_ms=$(sql suite.db "SELECT alone_wall_ms FROM programs WHERE alone = 'yes' AND exe LIKE '%/spin'")
campaign_ms=$(sql suite.db "SELECT 5 * CAST(text AS INTEGER) + 2000 FROM campaign_notes WHERE kind = 'baseline_cpu_ms'")
limits=$(grep -o 'cpu=[0-9]*' plans | sort -u | tr '\n' ' ')
check_equal "suite: every fault run of the program alone had its own limit, 5x its $alone_ms ms alone + 500 ms" \
    "cpu=$((5 * alone_ms + 500)) " "$limits"
check "suite: below the command's limit ($campaign_ms ms)" test "$((5 * alone_ms + 500))" -lt "$campaign_ms"

# Forking at its start inside the suite (FAILRUN_START_ABOVE_MS=0: however cheap re-running it
# is), the child whose leg loops ends at the program's own limit too: a hang found by the child,
# not a child out of its start's wall-clock time (3x the program's time + 2 s; no --timeout
# here, which would be the bound instead), re-run. The suite's shell works half a second, so
# the command's limit (5x that + 2 s) is past that time.
FAILRUN_START_ABOVE_MS=0 "$FAILRUN" run --json --db start.db -- \
    sh -c '"$0"; i=0; while [ $i -lt 300000 ]; do i=$((i + 1)); done' "$spin" >start.json 2>start.err
check "start: the program forks at its start" grep -q "forking at their start" start.err
loop_site=$(jq -r ".runs[] | select(.site_name | endswith(\"spin.c:$loop\")) | .site" start.json)
check_equal "start: the loop's child was ended by its CPU limit, and answered its site" \
    "hang|0|1" "$(sql start.db "SELECT outcome, timed_out, dir LIKE '%-starts/%' FROM runs
                                WHERE kind = 'fault' AND site = '$loop_site'")"
check_equal "start: so were the children whose executed program or worker spins: 4 hangs" \
    "4 4" "$(sql start.db "SELECT count(*), sum(dir LIKE '%-starts/%') FROM runs
                           WHERE kind = 'fault' AND outcome = 'hang'" | tr '|' ' ')"
check "start: no child ran out of time" test "$(grep -c 'ran out of time' start.err)" = 0
check_equal "start: the leg that works 0.3 s reports the error, no hang" "handled|0" \
    "$(run_at start "$work_line")"

# The limit is not part of the stored plan: a replay shows the program as it is.
check "the stored plans carry no CPU limit" \
    test "$(sql rerun.db "SELECT count(*) FROM runs WHERE plan LIKE '%cpu=%'")" = 0
check "the baseline's CPU time is kept, for a resumed campaign's limit" \
    test "$(sql rerun.db "SELECT CAST(text AS INTEGER) >= 0 FROM campaign_notes WHERE kind = 'baseline_cpu_ms'")" = 1
