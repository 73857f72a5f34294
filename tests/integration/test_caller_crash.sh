#!/bin/sh
# test_caller_crash.sh — with --source, a crash in code outside the scope (a test that strcmp()s
# the NULL the library returned), or a failed assert() in the library function the test called
# directly (a check of its argument), is the caller's: outcome caller-crash, listed, not a
# finding. A crash inside the scope, an assert deeper in the library (inlined or not), a crash
# in the caller's callback that the library handed its own NULL, and a crash whose stack is
# deeper than a record holds (the library may lie below the cut) stay findings.
# callercrash = greet.c (the library) + test_greet.c (its test), one executable (-O0, and -O2).
. "$(dirname "$0")/lib.sh"
work=$(scratch)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
program="$PROGRAMS/callercrash"

"$FAILRUN" run -q --json --source greet.c --db scoped.db -- "$program" >scoped.json
"$FAILRUN" report --db scoped.db >scoped.txt
check_equal "--source greet.c: three caller crashes (strcmp and puts of NULL, greet_length's assert)" \
    3 "$(jq '.outcomes["caller-crash"]' scoped.json)"
check_equal "--source greet.c: ... listed by place, one run each" \
    "greet_length greet.c 1
main test_greet.c 1
main test_greet.c 1" \
    "$(jq -r '.caller_crashes[] | "\(.location.function) \(.location.file | sub(".*/"; "")) \(.runs)"' \
        scoped.json | sort)"
check "--source greet.c: ... in the text report too" \
    grep -q "caller crashes: the caller.s code (outside --source greet.c)" scoped.txt
check_equal "--source greet.c: the caller-crash runs keep their crash stacks" 3 \
    "$(sql scoped.db "SELECT count(*) FROM runs WHERE outcome = 'caller-crash'
                      AND crash_frames IS NOT NULL")"
check_equal "--source greet.c: what a caller-crash run allocates on its way down gets no chain" 0 \
    "$(sql scoped.db "SELECT count(*) FROM runs WHERE chain LIKE '%,%'")"
check "--source greet.c: ... and is left unexplored for that reason (__assert_fail's message)" \
    test "$(jq '.campaign.unexplored["caller-crash"] // 0' scoped.json)" -ge 1
check_equal "--source greet.c: no finding in the test's file but its callback's and the deep one's" \
    "deep_length
show_length" \
    "$(jq -r '.findings[] | select(.location.file | endswith("test_greet.c")) | .location.function' \
        scoped.json | sort)"
check_equal "--source greet.c: the library's calloc, inner assert and NULL to a callback stay findings" \
    "crash checked_length
crash deep_length
crash greet_count_vowels
crash show_length" \
    "$(jq -r '.findings[] | "\(.outcome) \(.location.function)"' scoped.json | sort)"

# With --faults io, puts is failrun's own interposer: its frame on the crash stack is no heap check.
"$FAILRUN" run -q --json --faults alloc,io --source greet.c --db io.db -- "$program" >io.json
check_equal "--faults alloc,io --source greet.c: puts of NULL inside the interposer is a caller-crash" \
    3 "$(jq '.outcomes["caller-crash"]' io.json)"
check_equal "--faults alloc,io --source greet.c: the same findings" \
    "crash checked_length
crash deep_length
crash greet_count_vowels
crash show_length" \
    "$(jq -r '.findings[] | "\(.outcome) \(.location.function)"' io.json | sort)"

# At -O2 checked_length is inlined into greet_width: its assert is still no check at the entry.
"$FAILRUN" run -q --json --source greet.c --db o2.db -- "$PROGRAMS/callercrash-O2" >o2.json
check_equal "-O2 --source greet.c: the same three caller crashes" 3 \
    "$(jq '.outcomes["caller-crash"]' o2.json)"
check_equal "-O2 --source greet.c: the inlined helper's assert is still a finding" "true" \
    "$(jq '[.findings[].crash_stack[] | select(.function == "checked_length") | .inlined] | . == [true]' \
        o2.json)"

# Without a scope there is no caller to blame: the same crashes are findings.
"$FAILRUN" run -q --json --db all.db -- "$program" >all.json
check_equal "no --source: no run is a caller-crash" 0 "$(jq '.outcomes["caller-crash"]' all.json)"
check "no --source: the test's strcmp of NULL is a crash finding in main" \
    test "$(jq '[.findings[] | select(.outcome == "crash" and .location.function == "main")] | length' \
        all.json)" -ge 1
check "no --source: greet_length's assert is a crash finding" \
    test "$(jq '[.findings[] | select(.location.function == "greet_length")] | length' all.json)" -ge 1
