#!/bin/bash
# run.sh — make realworld: one failrun campaign per real Debian program of programs.tsv, each on
# its small input from inputs/, then check.py compares the findings with the hand verdicts of
# expected.tsv (precision is a tested property) and prints one table. Last line:
# "realworld: N passed, N failed".
#   tests/realworld/run.sh [NAME...]    only these programs (the check still reads all reports)
#   REALWORLD_CHECK_ONLY=1 run.sh       re-check the reports of the last run, no campaigns
# Every program runs twice, as users run it: with LC_ALL=C, and with LC_ALL=C.UTF-8 (programs
# that call setlocale take other paths there: multibyte text, locale loading). A campaign's
# label is NAME under C and NAME@C.UTF-8 under the other; REALWORLD_LOCALES="C" runs one pass.
# Reports, databases and failrun's stderr are kept in build/realworld/ (LABEL.json, LABEL.db,
# LABEL.err); each campaign runs in a fresh copy of inputs/, build/realworld/work/LABEL, which
# is kept: a finding's replay command works from there (cd build/realworld/work/LABEL, with the
# same LC_ALL).
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
    locales=${REALWORLD_LOCALES:-C C.UTF-8}
    # Children's CPU seconds so far (user + system) into $1, from bash's `times` (its second
    # line); not in a $(...) subshell, whose children's times start at zero.
    cpu_before=0 cpu_after=0
    children_cpu() {
        times >"$work/times"
        read -r "$1" < <(awk 'NR == 2 { split($1, u, /[ms]/); split($2, s, /[ms]/);
                                        printf "%.3f\n", u[1] * 60 + u[2] + s[1] * 60 + s[2] }' "$work/times")
    }
    touch "$out/cpu.tsv"
    for locale in $locales; do
        export LC_ALL=$locale
        while IFS=$'\t' read -r name package command <&3; do
            case $name in '' | '#'*) continue ;; esac
            if [ $# -gt 0 ] && ! printf '%s\n' "$@" | grep -qx "$name"; then continue; fi
            label=$name
            [ "$locale" = C ] || label=$name@$locale
            rm -rf "$out/$label.db" "$out/$label.files" "$out/work/$label"
            mkdir -p "$out/work/$label"
            cp -R "$here/inputs/." "$out/work/$label/"
            echo "realworld: $label ($package, LC_ALL=$locale): $command"
            children_cpu cpu_before
            wall_before=$(date +%s.%N)
            (cd "$out/work/$label" && export LD_PRELOAD="$fixed_clock" && eval "exec \"\$failrun\" run -q --json -j2 --db \"\$out/\$label.db\" -- $command") \
                </dev/null >"$out/$label.json" 2>"$out/$label.err"
            status=$?
            children_cpu cpu_after
            cpu=$(awk -v a="$cpu_before" -v b="$cpu_after" 'BEGIN { printf "%.2f", b - a }')
            wall=$(awk -v a="$wall_before" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
            grep -v "^$label	" "$out/cpu.tsv" >"$work/cpu.tsv"
            printf '%s\t%s\t%s\t%s\n' "$label" "$status" "$cpu" "$wall" >>"$work/cpu.tsv"
            cp "$work/cpu.tsv" "$out/cpu.tsv"
        done 3<"$programs"
    done
fi
exec python3 "$here/check.py" --locales "${REALWORLD_LOCALES:-C C.UTF-8}" "$programs" \
    "$here/expected.tsv" "$out"
