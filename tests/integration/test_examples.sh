#!/bin/sh
# test_examples.sh — failrun finds exactly the planted bugs of the examples, at the marked
# file:line, and classifies their correct error legs as handled.
. "$(dirname "$0")/lib.sh"
work=$(scratch)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1

findings() { # outcome signal file:line, relative to the repository, sorted
    jq -r '.findings[] | "\(.outcome) \(.signal_name // "-") \(.location.file | sub(".*/examples/"; "examples/")):\(.location.line)"' "$1" | sort
}

"$FAILRUN" run -q --json --db kv/campaign.db -- "$EXAMPLES/kvtest" >kv.json
check_equal "kvtest: failrun exits 1 when it finds bugs" 1 $?
expected=$(printf '%s\n' "crash SEGV $(marker examples/kvstore/kv.c 'BUG(null-deref)')" \
    "crash ABRT $(marker examples/kvstore/kv.c 'BUG(double-free)')" | sort)
check_equal "kvtest: exactly the null dereference and the double free, at their lines" \
    "$expected" "$(findings kv.json)"
check "kvtest: the correct error legs are classified handled (at least 9 sites)" \
    test "$(jq '.outcomes.handled' kv.json)" -ge 9
check_equal "kvtest: every planned fault was reached" 0 "$(jq '.outcomes["not-reached"]' kv.json)"
check_equal "kvtest: no leak, hang or silent outcome" 0 \
    "$(jq '.outcomes.leak + .outcomes.hang + .outcomes.silent' kv.json)"
check "kvtest: the injection stack names the unchecked malloc's caller kv_put" \
    test "$(jq -r '[.findings[] | select(.signal_name == "SEGV") | .injection_stack[0].function][0]' kv.json)" = kv_put

site=$(jq -r '.findings[] | select(.signal_name == "SEGV") | .site' kv.json)
"$FAILRUN" replay --db kv/campaign.db "$site" -- "$EXAMPLES/kvtest" >replay.out 2>replay.err
check_equal "replay: the null dereference reproduces (exit 128+SIGSEGV)" 139 $?
check "replay: says what it injected" grep -q "injected: malloc" replay.err

"$FAILRUN" report --db kv/campaign.db >report.txt
check_equal "report: exits 1 with bugs stored" 1 $?
check "report: text names the double free's line" \
    grep -q "kv.c:$(marker examples/kvstore/kv.c 'BUG(double-free)' | cut -d: -f2) in kv_serialise" report.txt

"$FAILRUN" run -q --json --db csv/campaign.db -- "$EXAMPLES/csvstat" \
    <"$ROOT/examples/csvstat/sample.csv" >csv.json
check_equal "csvstat: failrun exits 1 when it finds bugs" 1 $?
check_equal "csvstat: exactly the leak, at the allocation that leaks" \
    "leak - $(marker examples/csvstat/csv.c 'BUG(leak)')" "$(findings csv.json)"
check "csvstat: the correct error legs are classified handled (at least 5 sites)" \
    test "$(jq '.outcomes.handled' csv.json)" -ge 5
check_equal "csvstat: no crash, hang or silent outcome" 0 \
    "$(jq '.outcomes.crash + .outcomes.hang + .outcomes.silent' csv.json)"
check "csvstat: standard input was saved and replayed to every run" \
    cmp -s csv/campaign.files/stdin "$ROOT/examples/csvstat/sample.csv"
