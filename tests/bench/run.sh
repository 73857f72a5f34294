#!/bin/sh
# run.sh — `make bench`: what libfail costs, as ratios measured side by side in one run.
#  1. per call: a malloc/free pair under the preload (idle, record mode, a fault run away from
#     its planned site) against the bare pair; ROUNDS interleaved runs, medians;
#  2. per campaign: wall and CPU time (user+sys, children included) of whole campaigns on a
#     generated program with SITES allocation sites, against one uninstrumented run;
#     the program comes in two styles: one that carries on after a failed allocation (every
#     fault run runs to the end) and one that exits at once, as most command-line tools do;
#  3. per site: symbolisation; per run: coverage ingestion (`failrun cov` on kvtest's
#     --coverage build);
#  4. per run of a real program (jq, sqlite3, bc): CPU, page faults and peak RSS bare, with the
#     preload idle, in a fault run away from its site and in record mode (real_programs.sh).
#  5. whole campaigns on real programs (jq, sqlite3, tclsh8.6, patch, bc; BENCH_PROGRAMS picks):
#     re-run and fork mode against a naive fail-the-N-th-call sweep, in total and per run
#     (campaigns.sh; ROUNDS rounds when set, else 3: its campaigns are long).
# Timings are noisy on a shared machine: compare ratios from one run, not across runs.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
loop="$root/build/tests/bench/alloc_loop"
preload="$root/build/libfail-preload.so"
failrun="$root/build/failrun"
sites_program="$root/build/tests/bench/sites"
exit_program="$root/build/tests/bench/sites-exit"
symbolise="$root/build/tests/bench/symbolise_sites"
timer="$root/build/tests/bench/timed"
pairs=${PAIRS:-2000000}
rounds=${ROUNDS:-7}
sweep_runs=${SWEEP_RUNS:-100}   # the nth sweep is cut after this many runs, then extrapolated
calls=${BENCH_CALLS:?BENCH_CALLS: allocation calls of one run of the generated program}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

median() { sort -n "$1" | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# ---- 1. per call ----

run() { # configuration name, then environment assignments
    name=$1
    shift
    rm -rf "$dir/run" && mkdir "$dir/run"
    env "$@" "$loop" "$pairs" >>"$dir/$name"
}

for round in $(seq "$rounds"); do
    run bare
    run inactive LD_PRELOAD="$preload"
    run record LD_PRELOAD="$preload" LIBFAIL_DIR="$dir/run" LIBFAIL_PLAN="mode=record" LIBFAIL_EXE='*'
    run fault LD_PRELOAD="$preload" LIBFAIL_DIR="$dir/run" LIBFAIL_EXE='*' \
        LIBFAIL_PLAN="mode=site;sites=0000000000000001:1@1+1"
done

base=$(median "$dir/bare")
echo "per malloc/free pair, median of $rounds runs of $pairs pairs:"
for name in bare inactive record fault; do
    value=$(median "$dir/$name")
    case $name in
    bare) what="no preload" ;;
    inactive) what="preload loaded, no campaign" ;;
    record) what="record mode (baseline run)" ;;
    fault) what="fault run, away from the planned site" ;;
    esac
    awk -v n="$value" -v b="$base" -v w="$what" 'BEGIN { printf "  %-40s %8.1f ns  %6.1fx\n", w, n, n / b }'
done

# ---- 2. per campaign ----

# Runs a command; appends "wall cpu" in seconds to file $1 (see timed.c).
timed() {
    out=$1
    shift
    "$timer" "$@" >>"$out"
}

# A naive fail-the-N-th-call preload's run of the program that carries on (its N-th call in the
# middle: the run goes to its end, as each re-run does): the floor of what one fault run costs.
naive="$root/build/tests/bench/naive_nth.so"
for i in 1 2 3 4 5; do
    timed "$dir/plain" "$sites_program"
    timed "$dir/plain-exit" "$exit_program"
    timed "$dir/naive" env LD_PRELOAD="$naive" NAIVE_NTH=$((calls / 2)) "$sites_program"
done
third() { awk "{ print \$$2 }" "$1" | sort -n | awk '{ v[NR] = $1 } END { print v[3] }'; }
plain_wall=$(third "$dir/plain" 1)
plain_cpu=$(third "$dir/plain" 2)

campaign() { # name, program, then failrun run options
    name=$1
    program=$2
    shift 2
    timed "$dir/$name" "$failrun" run --quiet --db "$dir/$name.db" "$@" -- "$program" || true
}
has_fork=$("$failrun" run --help 2>&1 | grep -c -- '--fork' || true)
campaign rerun1 "$sites_program" -j1
campaign rerun2 "$sites_program" -j2
campaign sweep "$sites_program" -j1 --nth-sweep --max-runs "$sweep_runs"
[ "$has_fork" = 0 ] || campaign fork1 "$sites_program" --fork -j1
campaign exit-rerun1 "$exit_program" -j1
[ "$has_fork" = 0 ] || campaign exit-fork1 "$exit_program" --fork -j1

symbolised=$("$symbolise" "$dir/rerun1.db") # "SITES FRAMES MICROSECONDS"
site_count=${symbolised%% *}
runs_of() { "$symbolise" --runs "$dir/$1.db"; }

row() { # what, wall, cpu, runs
    awk -v w="$1" -v wall="$2" -v cpu="$3" -v runs="$4" -v pw="$plain_wall" -v pc="$plain_cpu" \
        'BEGIN { printf "  %-44s %6s %9.3f s %7.1fx %9.3f s %7.1fx\n", w, runs, wall, wall / pw, cpu, cpu / pc }'
}
echo
echo "campaign on a generated program, $site_count sites, $calls allocation calls per run:"
printf '  %-44s %6s %11s %8s %11s %8s\n' "" runs wall ratio cpu ratio
row "one uninstrumented run (median of 5)" "$plain_wall" "$plain_cpu" -
row "re-run mode, -j1 (one run per site)" $(cat "$dir/rerun1") "$(runs_of rerun1)"
row "re-run mode, -j2" $(cat "$dir/rerun2") "$(runs_of rerun2)"
row "nth sweep -j1, first $sweep_runs runs" $(cat "$dir/sweep") "$(runs_of sweep)"
# The whole sweep is one run per call plus the run where the N-th call never comes.
sweep_runs_done=$(runs_of sweep)
row "nth sweep -j1, all calls (extrapolated)" \
    $(awk -v r="$sweep_runs_done" -v n="$calls" '{ f = (n + 2) / r; printf "%.2f %.2f", $1 * f, $2 * f }' \
      "$dir/sweep") "$((calls + 2))"
if [ -f "$dir/fork1" ]; then
    row "fork mode, -j1" $(cat "$dir/fork1") "$(runs_of fork1)"
else
    echo "  fork mode: not available in this build"
fi
per_run() { # campaign, naive file: re-run mode's CPU per run against one naive preload run
    awk -v runs="$(runs_of "$1")" -v naive="$(third "$2" 2)" \
        '{ printf "  re-run mode CPU per run: %.1f ms, a naive preload run %.1f ms: %.2fx\n", $2 * 1000 / runs, naive * 1000, $2 / runs / naive }' \
        "$dir/$1"
}
per_run rerun1 "$dir/naive"
echo "the same program, exiting at its first failed allocation (as most tools do):"
plain_wall=$(third "$dir/plain-exit" 1)
plain_cpu=$(third "$dir/plain-exit" 2)
row "one uninstrumented run (median of 5)" "$plain_wall" "$plain_cpu" -
row "re-run mode, -j1" $(cat "$dir/exit-rerun1") "$(runs_of exit-rerun1)"
[ ! -f "$dir/exit-fork1" ] || row "fork mode, -j1" $(cat "$dir/exit-fork1") "$(runs_of exit-fork1)"
[ ! -f "$dir/exit-fork1" ] ||
    awk -v runs="$(runs_of exit-fork1)" -v plain="$plain_cpu" \
        '{ printf "  fork mode CPU per site beyond one plain run: %.2f ms\n", ($2 - plain) * 1000 / (runs - 1) }' \
        "$dir/exit-fork1"

# ---- 3. per site and per run ----

echo
set -- $symbolised
awk -v s="$1" -v f="$2" -v us="$3" \
    'BEGIN { printf "  symbolisation: %.0f us per site (%d sites, %d frames, %.0f ms)\n", us / s, s, f, us / 1000 }'
timed "$dir/report" "$failrun" report --db "$dir/rerun1.db"
awk -v s="$site_count" '{ printf "  failrun report: %.0f ms wall, %.0f us per site (it symbolises findings only)\n", $1 * 1000, $1 * 1e6 / s }' \
    "$dir/report"

# Coverage ingestion: a campaign on kvtest's --coverage build, then `failrun cov` reading every
# run's gcov data (gcov --json-format on the data files no earlier copy answers, parsed and
# stored) and analysing it, per run.
cov_program="$root/build/examples/cov/kvtest"
if [ -x "$cov_program" ]; then
    (cd "$dir" && "$failrun" run --quiet --db "$dir/cov.db" -- "$cov_program" >/dev/null) || true
    timed "$dir/cov" "$failrun" cov --db "$dir/cov.db" >/dev/null
    cov_runs=$(sqlite3 "$dir/cov.db" "SELECT count(*) FROM cov_runs")
    awk -v r="$cov_runs" '{ printf "  coverage ingestion: %.1f ms per run (failrun cov over %d runs of kvtest --coverage, %.0f ms)\n", $1 * 1000 / r, r, $1 * 1000 }' \
        "$dir/cov"
else
    echo "  coverage ingestion: build/examples/cov/kvtest missing (make all builds it)"
fi

# ---- 4. real programs ----

echo
ROUNDS=$rounds sh "$root/tests/bench/real_programs.sh" "$root"

# ---- 5. whole campaigns on real programs ----

echo
ROUNDS=${ROUNDS:-3} sh "$root/tests/bench/campaigns.sh" "$root"
