#!/bin/sh
# test_debian.sh — two real programs from Debian packages crash when some allocation fails:
# json_reformat (yajl-tools) and cmark. failrun must find a crash and symbolise it to a frame of
# the program or its library. Prints the campaign figures.
# cmark's own allocation wrapper aborts on purpose (oom-abort, not a bug); the crash is in its
# main, which callocs the list of input files unchecked: so cmark is given a file argument.
. "$(dirname "$0")/lib.sh"
work=$(scratch)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1

figures() {
    jq -r '"    \(.campaign.sites) sites, \(.campaign.runs) runs, \(.findings | length) findings, \(.campaign.wall_ms) ms; outcomes \(.outcomes | to_entries | map("\(.key) \(.value)") | join(", "))"' "$1"
}

start=$(date +%s%N)
"$FAILRUN" run -q --json --db yajl/campaign.db -- json_reformat <"$ROOT/tests/data/sample.json" >yajl.json
check_equal "json_reformat: failrun exits 1 (bugs found)" 1 $?
figures yajl.json
check "json_reformat: at least one crash found" \
    test "$(jq '[.findings[] | select(.outcome == "crash")] | length' yajl.json)" -ge 1
check "json_reformat: every crash is located in json_reformat or libyajl" \
    test "$(jq '[.findings[] | select(.outcome == "crash") | .location.module | test("json_reformat|libyajl") | not] | any' yajl.json)" = false
check "json_reformat: the crash is symbolised to a named yajl function" \
    test "$(jq '[.findings[].crash_stack[] | .function | select(startswith("yajl_"))] | length' yajl.json)" -ge 1

"$FAILRUN" run -q --json --db cmark/campaign.db -- cmark "$ROOT/tests/data/sample.md" >cmark.json
check_equal "cmark: failrun exits 1 (bugs found)" 1 $?
figures cmark.json
check_equal "cmark: exactly one crash, a SIGSEGV" "crash SEGV" \
    "$(jq -r '.findings[] | "\(.outcome) \(.signal_name)"' cmark.json)"
check_equal "cmark: the crash is located in the cmark program (stripped: module and offset)" \
    "/usr/bin/cmark" "$(jq -r '.findings[0].location.module' cmark.json)"
check "cmark: its deliberate aborts after a failed allocation are oom-abort, not bugs" \
    test "$(jq '.outcomes["oom-abort"]' cmark.json)" -ge 10
