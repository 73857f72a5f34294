#!/bin/bash
# run.sh — make suites: real C libraries' own test suites (libraries.tsv), each built with
# --coverage from its Debian source package (build.sh, cached), wrapped in a failrun campaign
# and measured against one plain run of the same suite; then check.py compares the findings with
# the hand verdicts of expected.tsv and prints one table. Last line: "suites: N passed, N failed".
#
#   tests/suites/run.sh [NAME...]     only these libraries (default: every one; or SUITES="a b")
#   SUITES_MAX_RUNS=N                 bound each campaign to N fault runs (failrun --max-runs N);
#                                     without it every site is failed (expat's two programs, which
#                                     hold every test, fork at their sites and each child ends
#                                     with its test case: libfail/fork/testcase.c)
#   SUITES_CHECK_ONLY=1 run.sh        re-check the outputs of the last run, no campaigns
#   FAILRUN=PATH, SUITES_OUT=DIR      another failrun (default build/failrun; its preload beside
#                                     it), another output folder (default build/suites)
#   SUITES_SHARDED="libyaml"          the libraries also run as 4 shards under GNU parallel, each
#                                     shard's coverage read, merged (failrun merge): check.py
#                                     compares findings, outcomes and coverage with the unsharded
#                                     campaign ("" for none)
#
# Per library, in build/suites/: NAME.json (failrun's report), NAME.cov.json (failrun cov),
# NAME.err (failrun's stderr), NAME.db and NAME.files (the campaign folder, kept: a finding's
# replay command works from the build folder named in the report), stats.tsv (figures).
# The plain suite runs three times (median wall and CPU), with GCOV_PREFIX pointing into a
# scratch folder as in a campaign's runs, so it pays the same coverage dumps and leaves the cached
# build untouched. CPU seconds are user + system of everything waited for (bash `times`).
# max_runs is used inside an eval; cpu_before and cpu_after are set by children_cpu's read.
# shellcheck disable=SC2034,SC2154
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
failrun=${FAILRUN:-$root/build/failrun}
out=${SUITES_OUT:-$root/build/suites}
libraries=$here/libraries.tsv

if [ $# -eq 0 ] && [ -n "${SUITES:-}" ]; then
    # shellcheck disable=SC2086
    set -- $SUITES
fi
# bound_of NAME: the --max-runs bound of the library's campaign, "" for none.
bound_of() {
    echo "${SUITES_MAX_RUNS:-}"
}

if [ "${SUITES_CHECK_ONLY:-}" != 1 ]; then
    sh "$root/tools/install-packages.sh" suites dpkg-dev cmake g++ python3 parallel || exit 2
    [ -x "$failrun" ] || { echo "suites: build failrun first (make all)" >&2; exit 2; }
    for name in "$@"; do
        awk -F '\t' -v name="$name" '$1 == name { found = 1 } END { exit !found }' "$libraries" ||
            { echo "suites: no library $name in $libraries" >&2; exit 2; }
    done
    mkdir -p "$out"
    work=$(mktemp -d "${TMPDIR:-/tmp}/libfail-suites.XXXXXX")
    trap 'rm -rf "$work"' EXIT
    export LC_ALL=C
    # Children's CPU seconds so far (user + system) into $1, from bash's `times` (its second
    # line); not in a $(...) subshell, whose children's times start at zero.
    children_cpu() {
        times >"$work/times"
        read -r "$1" < <(awk 'NR == 2 { split($1, u, /[ms]/); split($2, s, /[ms]/);
                                        printf "%.3f\n", u[1] * 60 + u[2] + s[1] * 60 + s[2] }' "$work/times")
    }
    now() { date +%s.%N; }
    minus() { awk -v a="$2" -v b="$1" 'BEGIN { printf "%.3f", b - a }'; }
    touch "$out/stats.tsv"
    while IFS=$'\t' read -r name _ _ _ _ scope command <&3; do
        case $name in '' | '#'*) continue ;; esac
        if [ $# -gt 0 ] && ! printf '%s\n' "$@" | grep -qx "$name"; then continue; fi
        build=$(sh "$here/build.sh" "$name") || { echo "suites: $name: no build" >&2; continue; }
        version=$(cat "$build/../version")
        echo "suites: $name ($version): $command"
        bound=$(bound_of "$name")
        max_runs=()
        [ -n "$bound" ] && max_runs=(--max-runs "$bound")

        # One plain run of the suite, three times: median wall and CPU; each must pass.
        plain_status=0
        : >"$work/plain"
        for _ in 1 2 3; do
            rm -rf "$work/plain.gcov"
            children_cpu cpu_before
            wall_before=$(now)
            (cd "$build" && export GCOV_PREFIX="$work/plain.gcov" GCOV_PREFIX_STRIP=0 && eval "$command") \
                </dev/null >"$work/plain.out" 2>&1 || plain_status=$?
            wall=$(minus "$(now)" "$wall_before")
            children_cpu cpu_after
            echo "$wall $(minus "$cpu_after" "$cpu_before")" >>"$work/plain"
        done
        [ "$plain_status" = 0 ] || { echo "suites: $name: the plain suite failed (exit $plain_status):"; tail -n 20 "$work/plain.out"; }
        plain_wall=$(sort -n -k1,1 "$work/plain" | sed -n 2p | cut -d' ' -f1)
        plain_cpu=$(sort -n -k2,2 "$work/plain" | sed -n 2p | cut -d' ' -f2)

        # The campaign, from the build folder (where ctest runs), then its coverage.
        rm -rf "$out/$name.db" "$out/$name.files" "$out/$name.cov.json"
        children_cpu cpu_before
        wall_before=$(now)
        (cd "$build" && eval "exec \"\$failrun\" run -q --json -j2 --faults alloc,io --source \"\$scope\" --db \"\$out/\$name.db\" \${max_runs[@]+\"\${max_runs[@]}\"} -- $command") \
            </dev/null >"$out/$name.json" 2>"$out/$name.err"
        status=$?
        wall=$(minus "$(now)" "$wall_before")
        children_cpu cpu_after
        cpu=$(minus "$cpu_after" "$cpu_before")
        cov_before=$(now)
        "$failrun" cov --json --db "$out/$name.db" >"$out/$name.cov.json" 2>>"$out/$name.err"
        cov_status=$?
        cov_wall=$(minus "$(now)" "$cov_before")
        disk=$(du -sk "$out/$name".db* "$out/$name.files" 2>/dev/null | awk '{ k += $1 } END { print k + 0 }')
        echo "suites: $name: failrun exit $status in ${wall} s (CPU ${cpu} s), cov exit $cov_status in ${cov_wall} s, ${disk} KiB"

        grep -v "^$name	" "$out/stats.tsv" >"$work/stats.tsv"
        printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$version" "$plain_status" \
            "$plain_wall" "$plain_cpu" "$status" "$wall" "$cpu" "$cov_status" "$cov_wall" "$disk" \
            "$bound" >>"$work/stats.tsv"
        cp "$work/stats.tsv" "$out/stats.tsv"

        # The same campaign as 4 shards driven by GNU parallel, as doc/guide/distributed.md shows, merged.
        rm -rf "$out/$name".shard* "$out/$name.merged".*
        case " ${SUITES_SHARDED-libyaml} " in *" $name "*) ;; *) continue ;; esac
        # shellcheck disable=SC2016 # the shard script's own arguments, expanded when it runs
        printf 'cd "$1" && exec "$2" run -q -j1 --faults alloc,io --source %q --shard "$3"/4 --db "$4" %s -- %s\n' \
            "$scope" "${max_runs[*]}" "$command" >"$work/shard.sh"
        shard_before=$(now)
        parallel --will-cite -j 2 "bash '$work/shard.sh' '$build' '$failrun' {} '$out/$name.shard{}.db' \
                                   </dev/null >/dev/null 2>>'$out/$name.shard{}.err';
                                   '$failrun' cov --db '$out/$name.shard{}.db' >/dev/null \
                                   2>>'$out/$name.shard{}.err'" ::: 1 2 3 4
        "$failrun" merge -o "$out/$name.merged.db" "$out/$name".shard[1-4].db 2>>"$out/$name.err"
        "$failrun" report --json --db "$out/$name.merged.db" >"$out/$name.merged.json"
        "$failrun" cov --json --db "$out/$name.merged.db" >"$out/$name.merged.cov.json" 2>>"$out/$name.err"
        echo "suites: $name: 4 shards under GNU parallel, merged, in $(minus "$(now)" "$shard_before") s"
    done 3<"$libraries"
fi
exec python3 "$here/check.py" "$libraries" "$here/expected.tsv" "$out" "$@"
