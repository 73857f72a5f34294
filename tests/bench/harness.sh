#!/bin/sh
# harness.sh — a harness-driven suite against its own allocation-failure mode, side by side in
# one script: curl's tests/runtests.pl on TESTS (default "1 to 10"), each round running, in turn,
#   plain    runtests.pl TESTS                 (valgrind when installed, as runtests chooses)
#   torture  runtests.pl -n -t TESTS           (curl's torture mode; -n: no valgrind)
#   failrun  failrun run -- perl runtests.pl TESTS     (default options, a new database)
#   every    the same with --fail-bookkeeping  (only when BENCH_EVERY=1)
# and printing the median wall and CPU (user+sys of everything waited for: timed.c) of each,
# with failrun's ratio to torture. Not part of `make bench`: it needs a curl tree built with
# --enable-curldebug (Debian's source: apt-get source curl; ./configure --enable-curldebug
# --disable-shared ...; make; make -C tests/server; make -C tests/libtest).
#   usage: harness.sh ROOT CURL_TREE        ROUNDS=N (default 1), TESTS="1 to 10"
set -eu
root=$1
tree=$2
failrun="$root/build/failrun"
timer="$root/build/tests/bench/timed"
rounds=${ROUNDS:-1}
tests=${TESTS:-1 to 10}
[ -x "$timer" ] || { echo "harness.sh: build $timer first (make bench builds it)" >&2; exit 2; }
[ -f "$tree/tests/runtests.pl" ] || { echo "harness.sh: no $tree/tests/runtests.pl" >&2; exit 2; }
[ -x "$tree/src/curl" ] || { echo "harness.sh: build curl in $tree first" >&2; exit 2; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
modes="plain torture failrun"
[ "${BENCH_EVERY:-0}" = 1 ] && modes="$modes every"

# run MODE ROUND: one timed run in the curl tree's tests folder, "WALL CPU" appended to MODE's
# file. The campaigns' databases stay outside the tree (a start puts its folder back only when
# the campaign's files are out of it).
run() {
    cd "$tree/tests"
    # shellcheck disable=SC2086 # TESTS is a list of words
    case $1 in
    plain) "$timer" perl runtests.pl $tests ;;
    torture) "$timer" perl runtests.pl -n -t $tests ;;
    failrun) "$timer" "$failrun" run -q --db "$dir/failrun-$2.db" -- perl runtests.pl $tests ;;
    every) "$timer" "$failrun" run -q --fail-bookkeeping --db "$dir/every-$2.db" -- \
        perl runtests.pl $tests ;;
    esac >>"$dir/$1"
    cd - >/dev/null
}

median() { # file column
    sort -n -k"$2" "$1" | awk -v c="$2" '{ v[NR] = $c } END { print v[int((NR + 1) / 2)] }'
}

round=1
while [ "$round" -le "$rounds" ]; do
    for mode in $modes; do
        run "$mode" "$round"
    done
    round=$((round + 1))
done

torture_wall=$(median "$dir/torture" 1)
torture_cpu=$(median "$dir/torture" 2)
echo "curl runtests.pl $tests, median of $rounds round(s), seconds:"
printf '%-8s %9s %9s %14s %13s\n' mode wall cpu "wall/torture" "cpu/torture"
for mode in $modes; do
    wall=$(median "$dir/$mode" 1)
    cpu=$(median "$dir/$mode" 2)
    printf '%-8s %9.1f %9.1f %13.2fx %12.2fx\n' "$mode" "$wall" "$cpu" \
        "$(echo "$wall / $torture_wall" | bc -l)" "$(echo "$cpu / $torture_cpu" | bc -l)"
done
for mode in failrun every; do
    [ -f "$dir/$mode-1.db" ] || continue
    echo "$mode: $(sqlite3 "$dir/$mode-1.db" "SELECT (SELECT count(*) FROM sites WHERE bookkeeping IS
        NULL AND NOT outside_source) || ' sites (error paths included), ' || (SELECT count(*) FROM runs) || ' runs, ' ||
        (SELECT count(*) FROM findings) || ' findings'")"
done
