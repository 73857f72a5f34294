#!/bin/sh
# test_cov_plain.sh — failrun cov on a suite of two programs (plainsuite.sh): each fault run is
# compared with its own program's run alone, so a line the other program runs without any
# fault (the library's error setter and its public error getter, which the suite's parse test
# reaches plainly) can be an error leg of the first program's failure. Such a line is live
# code: kept (marked "plain"), never deletable; the lines only the failure reaches stay
# deletable, and each deletable range names the small allocation that reaches it, in the JSON
# and in the text report.
. "$(dirname "$0")/lib.sh"
work=$(scratch)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
program="$ROOT/build/tests/cov/plainleg"
source_file="$ROOT/tests/programs/plainleg.c"

"$FAILRUN" run -q --db plain.db -- sh "$ROOT/tests/programs/plainsuite.sh" "$program" >run.txt
check_equal "the suite's campaign finds no bug" 0 $?
check_equal "list runs alone for the site it owns (each fault run compares with it)" "yes" \
    "$(sql plain.db "SELECT alone FROM programs WHERE alone_dir IS NOT NULL")"
"$FAILRUN" cov --db plain.db --json >plain.json
check_equal "cov: exits 0" 0 $?
"$FAILRUN" cov --db plain.db >plain.txt

# "line class" of every line marked LEG(...) in the source, and as failrun cov classified it.
marked() {
    grep -n -o '/\* LEG([a-z]*) \*/' "$source_file" |
        sed 's|^\([0-9]*\):/\* LEG(\([a-z]*\)) \*/|\1 \2|; s| plain$| kept plain|'
}
classified() {
    jq -r --argjson lines "$(marked | cut -d' ' -f1 | jq -s .)" '.files[]
           | select(.path | endswith("/plainleg.c")) | .lines[] | select(.line as $l | $lines | index($l))
           | "\(.line) \(.class)\(if .plain then " plain" else "" end)"' plain.json
}
check_equal "the error setter and getter the suite runs plainly are kept (plain); list's own leg is deletable" \
    "$(marked)" "$(classified)"
check_equal "no line a run without a fault executed is deletable" 0 \
    "$(jq '[.files[].lines[] | select(.class == "deletable" and .plain)] | length' plain.json)"
check "the plain lines are still credited to the site whose failure reached them" \
    test "$(jq '[.files[].lines[] | select(.plain) | .sites | length > 0] | all' plain.json)" = true
check "the summary counts the legs kept because a run without a fault executes them" \
    grep -Eq "^error-leg lines: [0-9]+ tested \(deletable [0-9]+, kept [0-9]+, of them $(jq .lines.kept_plain plain.json) run without a fault too\)" plain.txt

# Each deletable range names the small allocations that reach it (site, file:line).
malloc_line=$(($(grep -n 'if (!copies\[i\])' "$source_file" | cut -d: -f1) - 1))
check_equal "JSON: each deletable range names its sites, here list's malloc at plainleg.c:$malloc_line" \
    "$(jq -r '.files[] | select(.path | endswith("/plainleg.c")) | .only_small_allocations[]' plain.json |
        sed "s|\$| malloc list plainleg.c:$malloc_line|")" \
    "$(jq -r '.sites as $s | .files[] | select(.path | endswith("/plainleg.c")) | .deletable[]
              | "\(.lines) \(.sites | map($s[.] | "\(.function) \(.location.function) \(.location.file | sub(".*/"; "")):\(.location.line)") | join(" "))"' plain.json)"
first_range=$(jq -r '.files[] | select(.path | endswith("/plainleg.c")) | .deletable[0].lines' plain.json)
check "text: under the file's deletable lines, each range with the allocation that reaches it" \
    grep -Eq "^    $first_range: malloc \([0-9]+ bytes\) in list at .*tests/programs/plainleg.c:$malloc_line\$" plain.txt
