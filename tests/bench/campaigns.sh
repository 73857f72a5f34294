#!/bin/sh
# campaigns.sh — part of `make bench`: whole campaigns on real programs, against the naive way.
# Stock Debian programs (stripped, their own allocator habits) on the small inputs of
# tests/realworld/ (commands from its programs.tsv; tclsh8.6 runs tests/bench/inputs/script.tcl),
# each taken through three campaigns, interleaved round by round so the machine's noise hits
# every one alike:
#   re-run  `failrun run -j1`: one run of the command per site;
#   fork    `failrun run --fork -j1`: one run, forked at each site;
#   naive   the sweep anyone writes first: naive_nth.so fails the N-th malloc/calloc/realloc
#           call, N = 1, 2, ... until a run in which call N never comes (naive_sweep drives it).
#           Cut after NAIVE_MAX_RUNS runs; the whole sweep (calls + 1 runs, the calls counted in
#           one run of the program with naive_nth.so counting) is then extrapolated from the
#           runs done, and the table says so.
# CPU is user+sys of everything the campaign waited for (timed.c); medians of ROUNDS rounds.
# The ratios put each libfail mode against the naive sweep, in total and per run: fewer runs
# is libfail's gain, the CPU of one run its price.
# Each campaign runs in a fresh copy of the inputs with a database of its own.
#   usage: campaigns.sh ROOT         BENCH_PROGRAMS="jq bc" picks some of the programs
set -eu
root=$1
failrun="$root/build/failrun"
# shellcheck disable=SC2034 # used inside eval
timer="$root/build/tests/bench/timed"
naive="$root/build/tests/bench/naive_nth.so"
sweep="$root/build/tests/bench/naive_sweep"
rounds=${ROUNDS:-3}
naive_max=${NAIVE_MAX_RUNS:-3000}
naive_timeout=10 # seconds a naive run may take (failrun's own default is 10x the baseline + 5 s)
programs=${BENCH_PROGRAMS:-jq sqlite3 tclsh8.6 patch bc}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

# name, Debian package, command: programs.tsv's lines, and the one program it lacks.
{
    grep -v '^#' "$root/tests/realworld/programs.tsv"
    printf 'tclsh8.6\ttcl8.6\ttclsh8.6 script.tcl\n'
} >"$dir/programs.tsv"
field() { # program, field number
    awk -F '\t' -v p="$1" -v f="$2" '$1 == p { print $f; exit }' "$dir/programs.tsv"
}
packages=""
for program in $programs; do
    package=$(field "$program" 2)
    if [ -z "$package" ]; then
        echo "campaigns: no command known for $program (BENCH_PROGRAMS: jq sqlite3 tclsh8.6 patch bc)" >&2
        exit 2
    fi
    packages="$packages $package"
done
# shellcheck disable=SC2086
sh "$root/tools/install-packages.sh" bench sqlite3 $packages

# A fresh copy of the inputs for one campaign; prints its path.
scratch() {
    work="$dir/work/$1"
    rm -rf "$work" && mkdir -p "$work"
    cp -R "$root/tests/realworld/inputs/." "$root/tests/bench/inputs/." "$work/"
    echo "$work"
}

# One campaign of `program` in `mode`, round `round`: appends "wall cpu" to $dir/program.mode
# and "sites runs" (naive: "runs complete") to $dir/program.mode.counts.
campaign() {
    program=$1
    mode=$2
    round=$3
    command=$(field "$program" 3)
    work=$(scratch "$program.$mode.$round")
    db="$dir/$program.$mode.$round.db"
    case $mode in
    rerun) set -- "$failrun" run --quiet -j1 --db "$db" ;;
    fork) set -- "$failrun" run --quiet --fork -j1 --db "$db" ;;
    naive) set -- "$sweep" "$naive" "$naive_max" "$naive_timeout" "$dir/sweep.result" ;;
    esac
    # The command's own "< FILE" comes after the </dev/null given to eval, so it wins.
    (cd "$work" && eval "exec \"\$timer\" \"\$@\" -- $command") </dev/null >>"$dir/$program.$mode"
    case $mode in
    naive) cat "$dir/sweep.result" ;;
    *) sqlite3 "$db" "SELECT (SELECT count(*) FROM sites), (SELECT count(*) FROM runs)" | tr '|' ' ' ;;
    esac >>"$dir/$program.$mode.counts"
    rm -rf "$work" "$db" "${db%.db}.files"
}

modes="rerun fork naive"
for round in $(seq "$rounds"); do
    for program in $programs; do
        for mode in $modes; do
            campaign "$program" "$mode" "$round"
        done
    done
done

# Calls of one run, for a sweep that was cut: the whole sweep is one run per call plus one.
count_calls() {
    work=$(scratch "$1.count")
    command=$(field "$1" 3)
    rm -f "$dir/calls"
    (cd "$work" && eval "exec env LD_PRELOAD=\"\$naive\" NAIVE_NTH_COUNT=\"\$dir/calls\" $command") \
        </dev/null >/dev/null 2>&1 || true
    cat "$dir/calls"
}

median() { # file, column
    awk -v c="$2" '{ print $c }' "$1" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}

echo "real programs, whole campaigns at -j1, median of $rounds interleaved rounds (sites: every one"
echo "seen, error legs' included; runs: baseline and fault runs; ratios: CPU against the naive"
echo "N-th-call sweep of the same program, in total and per run):"
printf '  %-9s %-8s %6s %6s %9s %9s %10s %9s %9s\n' \
    program campaign sites runs "cpu s" "wall s" "ms cpu/run" "cpu/naive" "run/naive"
notes=""
for program in $programs; do
    naive_runs=$(median "$dir/$program.naive.counts" 1)
    naive_wall=$(median "$dir/$program.naive" 1)
    naive_cpu=$(median "$dir/$program.naive" 2)
    naive_per_run=$(awk -v c="$naive_cpu" -v r="$naive_runs" 'BEGIN { print c / r }')
    naive_label="naive"
    if [ "$(median "$dir/$program.naive.counts" 2)" = 0 ]; then
        calls=$(count_calls "$program")
        notes="$notes  * $program: naive sweep cut at $naive_runs of $((calls + 1)) runs ($calls calls); total extrapolated from the runs done\n"
        naive_label="naive*"
        scale() { awk -v t="$1" -v r="$naive_runs" -v n="$((calls + 1))" 'BEGIN { print t * n / r }'; }
        naive_wall=$(scale "$naive_wall")
        naive_cpu=$(scale "$naive_cpu")
        naive_runs=$((calls + 1))
    fi
    for mode in rerun fork; do
        awk -v p="$program" -v m="$mode" -v s="$(median "$dir/$program.$mode.counts" 1)" \
            -v r="$(median "$dir/$program.$mode.counts" 2)" -v w="$(median "$dir/$program.$mode" 1)" \
            -v c="$(median "$dir/$program.$mode" 2)" -v nc="$naive_cpu" -v nr="$naive_per_run" 'BEGIN {
            printf "  %-9s %-8s %6d %6d %9.2f %9.2f %10.2f %8.2fx %8.2fx\n",
                p, m, s, r, c, w, r ? c * 1000 / r : 0, c / nc, r ? c / r / nr : 0
        }'
    done
    awk -v p="$program" -v m="$naive_label" -v r="$naive_runs" -v w="$naive_wall" -v c="$naive_cpu" \
        -v nr="$naive_per_run" 'BEGIN {
        printf "  %-9s %-8s %6s %6d %9.2f %9.2f %10.2f\n", p, m, "-", r, c, w, nr * 1000
    }'
done
[ -z "$notes" ] || printf "%b" "$notes"
