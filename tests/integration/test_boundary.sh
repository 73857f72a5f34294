#!/bin/sh
# test_boundary.sh — the library boundary: with a scope and --boundary, each fault run records what the outermost
# call into the code under test returned (LD_AUDIT, libfail-audit.so); each function's error
# convention is learned from the unfailed runs. An error report makes the caller's other output its
# reaction (outcome reported, not a finding); a success value after the failure makes a failed test
# the library's finding (swallowed). tests/programs/boundary: libshelf.so and its test.
. "$(dirname "$0")/lib.sh"
work=$(scratch)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
program="$PROGRAMS/boundary/test_shelf"
verdicts() {
    sql "$1" "SELECT api || ' ' || api_verdict || ' ' || outcome || ' ' || coalesce(reaction, '-')
              FROM runs WHERE api IS NOT NULL ORDER BY api, id"
}

"$FAILRUN" run -q --json --boundary --source shelf.c --db scoped.db -- "$program" >scoped.json
"$FAILRUN" report --db scoped.db >scoped.txt
check_equal "each fault in the library: what its call returned, the verdict, the caller's reaction" \
    "shelf_count reported reported silent
shelf_label reported reported silent
shelf_label reported reported silent
shelf_rename swallowed swallowed -
shelf_store reported handled handled" "$(verdicts scoped.db)"
check_equal "the one finding: shelf_rename returned success after its strdup failed" \
    "swallowed shelf_rename" \
    "$(jq -r '.findings[] | "\(.outcome) \(.location.function)"' scoped.json)"
check "... headlined with the function and what it returned" \
    grep -q "swallowed: shelf_rename returned success (0x1) after the failure" scoped.txt
check "... with no crash stack (nothing crashed)" test -z "$(grep 'crash stack' scoped.txt)"
check "... and no frame of the audit trampoline" test -z "$(grep _dl_runtime_profile scoped.txt)"
check_equal "the learned conventions: a count never negative or 0, NULL, true only, 0 only" \
    "shelf_count a negative int, 0 or false
shelf_label NULL
shelf_rename a negative int, 0 or false
shelf_store a negative int" \
    "$(jq -r '.boundary[] | "\(.function) \(.error)"' scoped.json)"
check "the report lists the conventions and the callers' reactions" \
    grep -q "shelf_label (error: NULL, learned): reported 2, swallowed 0; caller reactions: silent 2" \
    scoped.txt
check_equal "what the library returned, as the caller saw it (-1, NULL, true, -ENOMEM)" \
    "4294967295 0 1 4294967284" \
    "$(sql scoped.db "SELECT group_concat(v, ' ') FROM (SELECT api, min(api_value) v FROM runs
                      WHERE api IS NOT NULL GROUP BY api ORDER BY api)")"
# The longjmp out of shelf_visit's callback: the later shelf_label is still an outermost call.
check_equal "after a longjmp out of the library, its next call is still seen" 2 \
    "$(sql scoped.db "SELECT count(*) FROM runs WHERE api = 'shelf_label'")"

# A --returns rule overrides what was learned: shelf_count reporting by 0 makes its -1 a success.
"$FAILRUN" run -q --boundary --source shelf.c --returns shelf_count=zero --db rule.db -- "$program" >/dev/null
check_equal "--returns shelf_count=zero: its -1 is a success value, the printed -1 a finding" \
    "shelf_count swallowed swallowed -" "$(verdicts rule.db | grep '^shelf_count')"
check "--returns: a malformed rule is refused" \
    sh -c "! '$FAILRUN' run -q --source shelf.c --returns shelf_count=maybe --db bad.db -- '$program' 2>/dev/null"

# Without --boundary nothing is known of the boundary: the output the test printed after a
# reported NULL is a silent finding, the failed test merely handled (the defects of issue 20).
"$FAILRUN" run -q --json --source shelf.c --db plain.db -- "$program" >plain.json
check_equal "without the boundary: silent findings, and the swallowed error only handled" \
    "handled 2
silent 3" \
    "$(sql plain.db "SELECT outcome || ' ' || count(*) FROM runs WHERE kind = 'fault'
                     AND outcome IN ('silent', 'handled') GROUP BY outcome ORDER BY outcome")"

# The audit changes nothing the program computes: its output and status are as without failrun.
check_equal "under the audit the program prints what it prints alone" "$("$program")" \
    "$(cat "$(sql scoped.db "SELECT dir FROM runs WHERE kind = 'baseline'")/stdout")"
