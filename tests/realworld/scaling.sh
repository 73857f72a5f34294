#!/bin/bash
# scaling.sh — CPU and wall of the whole realworld corpus (and the examples kvtest, csvstat) per
# mode and -j: one campaign per program, each in a fresh copy of inputs/, timed
# (bash's `time`: user + system of failrun and every process it waited for). A benchmark, not a test.
#   tests/realworld/scaling.sh [CONFIG...]      configs: rerun-j1 rerun-j2 fork-j1 fork-j2
# Prints "config  wall_s  user_s  sys_s  runs" per config, and per program in build/scaling/.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
failrun=$root/build/failrun
out=$root/build/scaling
export LC_ALL=C
TIMEFORMAT='%R %U %S'
mkdir -p "$out"
configs=("$@")
[ ${#configs[@]} -gt 0 ] || configs=(rerun-j1 rerun-j2 fork-j1 fork-j2)
commands() {
    grep -v '^#' "$here/programs.tsv" | cut -f1,3
    printf 'kvtest\t%s\n' "$root/build/examples/kvtest"
    printf 'csvstat\t%s < %s\n' "$root/build/examples/csvstat" "$root/examples/csvstat/sample.csv"
}
for config in "${configs[@]}"; do : >"$out/$config.tsv"; done
# Programs outer, configurations inner: load from elsewhere on the machine spreads over all.
while IFS=$'\t' read -r name command <&3; do
    [ -n "$name" ] || continue
    for config in "${configs[@]}"; do
        mode=${config%-j*} jobs=${config##*-j}
        options=-j$jobs
        [ "$mode" = fork ] && options="$options --fork"
        work=$out/work/$config/$name
        rm -rf "$work" && mkdir -p "$work" && cp -R "$here/inputs/." "$work/"
        # bash's `time`, not GNU time's -o: the file it opens for writing would be inherited by
        # the command, and fork mode does not fork a process with a file open for writing.
        { time (cd "$work" && eval "\"\$failrun\" run -q $options --db \"\$work/c.db\" -- \
            $command" </dev/null >/dev/null 2>&1); } 2>"$out/time"
        runs=$(sqlite3 "$work/c.db" "SELECT count(*) FROM runs WHERE kind = 'fault'")
        printf '%s\t%s\t%s\n' "$name" "$(tail -n 1 "$out/time" | tr ' ' '\t')" "$runs" >>"$out/$config.tsv"
        rm -rf "$work"
    done
done 3< <(commands)
for config in "${configs[@]}"; do
    awk -v c="$config" '{ w += $2; u += $3; s += $4; r += $5 }
        END { printf "%-9s wall %6.1f s  user %6.1f s  sys %6.1f s  cpu %6.1f s  runs %d\n", c, w, u, s, u + s, r }' \
        "$out/$config.tsv"
done
