#!/bin/bash
# run.sh — make realworld: one failrun campaign per real Debian program of programs.tsv, each on
# its small input from inputs/, then check.py compares the findings with the hand verdicts of
# expected.tsv (precision is a tested property) and prints one table. Last line:
# "realworld: N passed, N failed".
#   tests/realworld/run.sh [NAME...]    only these programs (the check still reads all reports)
#   REALWORLD_CHECK_ONLY=1 run.sh       re-check the reports of the last run, no campaigns
# Reports, databases and failrun's stderr are kept in build/realworld/ (NAME.json, NAME.db,
# NAME.err); each campaign runs with LC_ALL=C in a fresh copy of inputs/, build/realworld/work/NAME,
# which is kept: a finding's replay command works from there (cd build/realworld/work/NAME).
# CPU seconds are user + system of failrun and every process it waited for (bash `times`).
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
failrun=$root/build/failrun
out=$root/build/realworld
programs=$here/programs.tsv

if [ "${REALWORLD_CHECK_ONLY:-}" != 1 ]; then
    # shellcheck disable=SC2046
    sh "$root/tools/install-packages.sh" realworld python3 jq binutils libc6-dbg \
        $(grep -v '^#' "$programs" | cut -f2 | sort -u) || exit 2
    # time() fixed behind failrun's preload: libxml2 seeds its hashes from the clock, and the
    # sites a campaign reaches must not depend on the second it ran in (fixed_clock.c).
    fixed_clock=$root/build/tests/realworld/fixed_clock.so
    [ -x "$failrun" ] && [ -f "$fixed_clock" ] ||
        { echo "realworld: build failrun first (make realworld)" >&2; exit 2; }
    mkdir -p "$out/work"
    work=$(mktemp -d "${TMPDIR:-/tmp}/libfail-realworld.XXXXXX")
    trap 'rm -rf "$work"' EXIT
    export LC_ALL=C
    # Children's CPU seconds so far (user + system) into $1, from bash's `times` (its second
    # line); not in a $(...) subshell, whose children's times start at zero.
    cpu_before=0 cpu_after=0
    children_cpu() {
        times >"$work/times"
        read -r "$1" < <(awk 'NR == 2 { split($1, u, /[ms]/); split($2, s, /[ms]/);
                                        printf "%.3f\n", u[1] * 60 + u[2] + s[1] * 60 + s[2] }' "$work/times")
    }
    touch "$out/cpu.tsv"
    while IFS=$'\t' read -r name package command <&3; do
        case $name in '' | '#'*) continue ;; esac
        if [ $# -gt 0 ] && ! printf '%s\n' "$@" | grep -qx "$name"; then continue; fi
        rm -rf "$out/$name.db" "$out/$name.files" "$out/work/$name"
        mkdir -p "$out/work/$name"
        cp -R "$here/inputs/." "$out/work/$name/"
        echo "realworld: $name ($package): $command"
        children_cpu cpu_before
        wall_before=$(date +%s.%N)
        (cd "$out/work/$name" && export LD_PRELOAD="$fixed_clock" && eval "exec \"\$failrun\" run -q --json -j2 --db \"\$out/\$name.db\" -- $command") \
            </dev/null >"$out/$name.json" 2>"$out/$name.err"
        status=$?
        children_cpu cpu_after
        cpu=$(awk -v a="$cpu_before" -v b="$cpu_after" 'BEGIN { printf "%.2f", b - a }')
        wall=$(awk -v a="$wall_before" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
        grep -v "^$name	" "$out/cpu.tsv" >"$work/cpu.tsv"
        printf '%s\t%s\t%s\t%s\n' "$name" "$status" "$cpu" "$wall" >>"$work/cpu.tsv"
        cp "$work/cpu.tsv" "$out/cpu.tsv"
    done 3<"$programs"
fi
exec python3 "$here/check.py" "$programs" "$here/expected.tsv" "$out"
