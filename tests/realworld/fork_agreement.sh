#!/bin/bash
# fork_agreement.sh — make realworld-fork: fork mode must judge every site as re-run mode does.
#
# For every program of programs.tsv and the examples kvtest and csvstat, one re-run-mode campaign
# and one `--fork` campaign, each in a fresh copy of inputs/; agreement.py joins their runs by
# site, chain and plan and asserts the same outcome and the same finding (outcome and the
# report's `.identity`) for each, and the same findings in both reports. Then three identical
# re-run campaigns of lua5.4, gawk, xmllint and tclsh (whose run counts used to vary from campaign to campaign)
# must give the same runs and outcomes. Every campaign runs with time() fixed (fixed_clock.so
# preloaded behind failrun's own preload): libxml2 seeds its hash tables from the clock, and a
# campaign that straddled a second reached other sites. Where the modes still disagree, a second
# re-run campaign tells the program's own variation from the mode's;
# fork_exceptions.tsv lists the failing calls whose outcome no mode can get right (undefined
# behaviour that reads stack residue), each with its reason. Disagreements are printed; the last line is
# "fork-agreement: N passed, N failed".
#   tests/realworld/fork_agreement.sh [NAME...]     only these programs (and their repeats)
#   FORK_AGREEMENT_JOBS=1 fork_agreement.sh          -j of every campaign (default 2)
# Databases and reports stay in build/realworld-fork/NAME/ (rerun.db, fork.db, repeatN.db).
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
failrun=$root/build/failrun
out=$root/build/realworld-fork
programs=$here/programs.tsv
jobs=${FORK_AGREEMENT_JOBS:-2}
repeated=${FORK_AGREEMENT_REPEATED:-"lua5.4 gawk xmllint tclsh"}
# Programs whose sites move between runs of one campaign by themselves, so that no two campaigns
# are comparable site by site: named and skipped, not counted (FORK_AGREEMENT_UNSTABLE="a b").
# None now: Tcl's allocator, which refills its blocks at other calls when its environment or its
# addresses move, was one until every run got one layout (no address randomisation) and the
# environment's lengths in fork children too (base/spawn.c, libfail/fork/forkchild.c).
unstable=${FORK_AGREEMENT_UNSTABLE:-}

# shellcheck disable=SC2046
sh "$root/tools/install-packages.sh" realworld python3 jq \
    $(grep -v '^#' "$programs" | cut -f2 | sort -u) || exit 2
fixed_clock=$root/build/tests/realworld/fixed_clock.so
[ -x "$failrun" ] && [ -x "$root/build/examples/kvtest" ] && [ -f "$fixed_clock" ] ||
    { echo "fork-agreement: build failrun and the examples first (make realworld-fork)" >&2; exit 2; }
export LC_ALL=C
mkdir -p "$out"
passed=0 failed=0

wanted() { [ ${#selected[@]} -eq 0 ] || printf '%s\n' "${selected[@]}" | grep -qx "$1"; }
selected=("$@")

# campaign NAME LABEL OPTIONS COMMAND: one campaign in a fresh copy of inputs/, its database
# and report at $out/NAME/LABEL.{db,json}.
campaign() {
    local name=$1 label=$2 options=$3 command=$4
    local work=$out/$name/work-$label
    rm -rf "$work" "$out/$name/$label.db" "$out/$name/$label.files"
    mkdir -p "$work"
    cp -R "$here/inputs/." "$work/"
    # shellcheck disable=SC2086
    (cd "$work" && export LD_PRELOAD="$fixed_clock" && eval "exec \"\$failrun\" run -q --json -j$jobs $options \
        --db \"\$out/\$name/\$label.db\" -- $command") \
        </dev/null >"$out/$name/$label.json" 2>"$out/$name/$label.err"
    local status=$?
    if [ "$status" -gt 1 ]; then
        echo "  $label campaign failed (status $status): $(tail -n 1 "$out/$name/$label.err")"
        return 1
    fi
}

check() {
    if [ "$2" = 0 ]; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
}

agreement() {
    local name=$1 command=$2
    echo "fork-agreement: $name: $command"
    mkdir -p "$out/$name"
    if ! campaign "$name" rerun "" "$command" || ! campaign "$name" fork --fork "$command"; then
        check "$name" 1
        return
    fi
    local compare=(python3 "$here/agreement.py" modes "$name" "$out/$name/rerun.db"
                   "$out/$name/rerun.json" "$out/$name/fork.db" "$out/$name/fork.json")
    if "${compare[@]}" >"$out/$name/agreement.txt"; then
        cat "$out/$name/agreement.txt"
        check "$name" 0
        return
    fi
    # A disagreement: is it the mode, or does the program vary by itself? A second re-run
    # campaign is the control (agreement.py counts only what it does not share).
    campaign "$name" rerun2 "" "$command" || { check "$name" 1; return; }
    "${compare[@]}" "$out/$name/rerun2.db"
    check "$name" $?
}

repeats() {
    local name=$1 command=$2
    echo "fork-agreement: $name, three re-run campaigns"
    mkdir -p "$out/$name"
    local databases=() ok=0
    for i in 1 2 3; do
        campaign "$name" "repeat$i" "" "$command" || ok=1
        databases+=("$out/$name/repeat$i.db")
    done
    if [ "$ok" = 0 ]; then
        python3 "$here/agreement.py" repeat "$name (repeated)" "${databases[@]}"
        ok=$?
    fi
    check "$name-repeat" "$ok"
}

while IFS=$'\t' read -r name _package command <&3; do
    case $name in '' | '#'*) continue ;; esac
    wanted "$name" || continue
    case " $unstable " in
    *" $name "*) echo "$name: skipped, not counted: its sites move from run to run by themselves" ;;
    *) agreement "$name" "$command" ;;
    esac
done 3<"$programs"
if wanted kvtest; then agreement kvtest "$root/build/examples/kvtest"; fi
if wanted csvstat; then
    agreement csvstat "$root/build/examples/csvstat < $root/examples/csvstat/sample.csv"
fi
while IFS=$'\t' read -r name _package command <&3; do
    case " $repeated " in *" $name "*) ;; *) continue ;; esac
    wanted "$name" || continue
    repeats "$name" "$command"
done 3<"$programs"
echo "fork-agreement: $passed passed, $failed failed"
[ "$failed" = 0 ]
