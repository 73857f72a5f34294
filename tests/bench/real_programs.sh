#!/bin/sh
# real_programs.sh — part of `make bench`: what the preload costs a real program, per run.
# Stock Debian programs (jq, sqlite3, bc: stripped, their own allocator habits) on generated
# inputs, each run bare and under libfail-preload.so in three settings, interleaved round by
# round so the machine's noise hits every setting alike:
#   idle    the preload loaded, no campaign (LD_PRELOAD only);
#   away    a fault run whose planned site is never reached (the environment `failrun run`
#           gives a fault run: LIBFAIL_DIR, a site plan with the site's first frame, scope);
#   record  a baseline run (mode=record): every site recorded.
#   scan    a leak scan's replay (leakcheck.c): record mode under libasan with its slow
#           unwinder on every allocation, libgcc's unwinder preloaded before libasan so that
#           libasan binds _Unwind_Backtrace to it;
#   scan-lu the same without libgcc's unwinder first: libasan then binds the preload's
#           libunwind, as failrun's scans did before (what preloading libgcc's saves; not
#           for sqlite3, where it takes near a minute a run).
# Prints CPU (user+sys), minor page faults and peak RSS as medians of ROUNDS runs, and each as a
# ratio to the bare run. Usage: real_programs.sh ROOT (the repository).
set -eu
root=$1
preload="$root/build/libfail-preload.so"
timer="$root/build/tests/bench/timed"
rounds=${ROUNDS:-7}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

# Inputs, generated so the benchmark needs no data files: a 350 KB JSON array, an SQL script
# that inserts, indexes and queries 20000 rows, a bc script of long arithmetic.
awk 'BEGIN {
    printf "["
    for (i = 0; i < 2500; i++) {
        printf "%s{\"id\":%d,\"name\":\"item%d\",\"tags\":[\"t%d\",\"u%d\"],\"price\":%.6f,", \
            i ? "," : "", i, i, i % 7, i % 13, (i * 7919 % 10007) / 100.0
        c = ""; for (j = 0; j < i % 20; j++) c = c "x"
        printf "\"nested\":{\"a\":%d,\"b\":[1,2,3],\"c\":\"%s\"}}", i * 3, c
    }
    print "]"
}' >"$dir/data.json"
awk 'BEGIN {
    print "CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT, v REAL);"
    print "BEGIN;"
    for (i = 0; i < 20000; i++) printf "INSERT INTO t(name, v) VALUES(%cname%d%c, %f);\n", 39, i, 39, i * 1.5
    print "COMMIT;"
    print "CREATE INDEX i1 ON t(name);"
    print "SELECT count(*), sum(v) FROM t WHERE name LIKE %cname1%%%c;"
    print "SELECT name FROM t ORDER BY v DESC LIMIT 5;"
}' | sed "s/%c/'/g; s/%%/%/g" >"$dir/script.sql"
printf 'scale=300\nx=4*a(1)\nlength(x)\ny=e(10)\nlength(y)\nfor(i=0;i<200;i++){z=sqrt(i+2)}\nz\n' \
    >"$dir/calc.bc"

programs=""
command -v jq >/dev/null && programs="$programs jq"
command -v sqlite3 >/dev/null && programs="$programs sqlite3"
command -v bc >/dev/null && programs="$programs bc"
if [ -z "$programs" ]; then
    echo "  real programs: none of jq, sqlite3, bc installed (make deps)"
    exit 0
fi

# One run of `program` in `setting`; appends "wall cpu faults rss" to $dir/program.setting.
# env(1) starts the program in every setting, so it costs each the same.
measure() {
    program=$1
    setting=$2
    rm -rf "$dir/run" && mkdir "$dir/run"
    case $setting in
    bare) set -- ;;
    idle) set -- LD_PRELOAD="$preload" ;;
    away) set -- LD_PRELOAD="$preload" LIBFAIL_DIR="$dir/run" LIBFAIL_EXE='*' LIBFAIL_MODULE= \
        "LIBFAIL_PLAN=mode=site;sites=0000000000000001:1@1+1;persistent=0;depth=8" ;;
    record) set -- LD_PRELOAD="$preload" LIBFAIL_DIR="$dir/run" LIBFAIL_EXE='*' LIBFAIL_MODULE= \
        "LIBFAIL_PLAN=mode=record;depth=8" ;;
    scan | scan-lu)
        libraries=$asan
        [ "$setting" = scan ] && libraries="$unwinder:$asan"
        set -- LD_PRELOAD="$preload:$libraries" LIBFAIL_DIR="$dir/run" LIBFAIL_EXE='*' \
            LIBFAIL_MODULE= LIBFAIL_LEAK_SCAN=1 "LIBFAIL_PLAN=mode=record;depth=8;cpu=0" \
            "ASAN_OPTIONS=detect_leaks=1:exitcode=0:verify_asan_link_order=0:fast_unwind_on_malloc=0:malloc_context_size=64:log_path=$dir/run/leaks" ;;
    esac
    case $program in
    jq) "$timer" --memory env "$@" jq . "$dir/data.json" ;;
    sqlite3) "$timer" --memory env "$@" sqlite3 :memory: <"$dir/script.sql" ;;
    bc) "$timer" --memory env "$@" bc -l "$dir/calc.bc" ;;
    esac >>"$dir/$program.$setting"
}

settings="bare idle away record"
# The leak scan's runtime and libgcc's unwinder, where Debian puts them (as leakcheck.c finds them).
asan=/usr/lib/$(gcc -print-multiarch 2>/dev/null)/libasan.so.8
unwinder=/lib/$(gcc -print-multiarch 2>/dev/null)/libgcc_s.so.1
if [ -r "$asan" ] && [ -r "$unwinder" ]; then
    settings="$settings scan scan-lu"
else
    echo "  (no leak-scan rows: $asan or $unwinder missing)"
fi
for round in $(seq "$rounds"); do
    for program in $programs; do
        for setting in $settings; do
            # sqlite3's scan-lu takes near a minute a run: left out
            [ "$program.$setting" = sqlite3.scan-lu ] || measure "$program" "$setting"
        done
    done
done

median() { # file, column
    awk -v c="$2" '{ print $c }' "$1" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}

echo "real programs, one run each, median of $rounds interleaved rounds (ratio to the bare run):"
printf '  %-8s %-7s %9s %7s %8s %7s %9s %7s\n' program setting "cpu ms" ratio faults ratio "rss KiB" ratio
for program in $programs; do
    base_cpu=$(median "$dir/$program.bare" 2)
    base_faults=$(median "$dir/$program.bare" 3)
    base_rss=$(median "$dir/$program.bare" 4)
    for setting in $settings; do
        [ -s "$dir/$program.$setting" ] || continue
        cpu=$(median "$dir/$program.$setting" 2)
        faults=$(median "$dir/$program.$setting" 3)
        rss=$(median "$dir/$program.$setting" 4)
        awk -v p="$program" -v s="$setting" -v c="$cpu" -v f="$faults" -v r="$rss" \
            -v bc="$base_cpu" -v bf="$base_faults" -v br="$base_rss" 'BEGIN {
            printf "  %-8s %-7s %9.1f %6.2fx %8d %6.2fx %9d %6.2fx\n", p, s, c * 1000, c / bc, f, f / bf, r, r / br
        }'
    done
done
