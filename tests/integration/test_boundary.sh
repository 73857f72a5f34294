#!/bin/sh
# test_boundary.sh — the library boundary: with a scope, each fault run records what the
# innermost call into the code under test that the fault fired in returned (LD_AUDIT,
# libfail-audit.so); each function's error convention is learned from the unfailed runs, in all
# and at each call. An error report makes the caller's other output its
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

# A scoped campaign follows the boundary by default.
"$FAILRUN" run -q --json --source shelf.c --db scoped.db -- "$program" >scoped.json
"$FAILRUN" report --db scoped.db >scoped.txt
check_equal "each fault in the library: what its call returned, the verdict, the caller's reaction" \
    "shelf_count reported reported silent
shelf_label reported reported silent
shelf_label reported reported silent
shelf_label reported reported silent
shelf_label reported caller-crash caller-crash
shelf_label reported reported silent
shelf_parse unknown silent -
shelf_parse reported reported silent
shelf_rename swallowed swallowed -
shelf_store reported handled handled
shelf_tag reported reported leak
shelf_tag reported reported leak" "$(verdicts scoped.db)"
check_equal "the findings: shelf_rename's success, shelf_tag's lost copy, the parse no convention tells" \
    "leak shelf_tag
silent shelf_parse
swallowed shelf_rename" \
    "$(jq -r '.findings[] | "\(.outcome) \(.location.function)"' scoped.json | sort)"
check "... headlined with the function and what it returned" \
    grep -q "swallowed: shelf_rename returned success (0x1) after the failure" scoped.txt

# A test that ignores the NULL shelf_label reported and waits for ever for a label (libyaml's
# test-reader, with yaml_parser_initialize's 0): the hang is the caller's reaction, no finding,
# and its error leg, the way of a process that never ends, is not extended.
"$FAILRUN" run -q --json --source shelf.c --db spin.db -- "$PROGRAMS/boundary/spin_shelf" \
    >spin.json
check_equal "a hang after shelf_label reported its failure: reported, the hang its caller's" \
    "shelf_label reported reported hang" "$(verdicts spin.db | grep '^shelf_label')"
check_equal "... no finding" 0 "$(jq '.findings | length' spin.json)"
check_equal "... and no chain on its leg" 1 "$(jq '.campaign.unexplored.hang' spin.json)"
check "... with no crash stack (nothing crashed)" test -z "$(grep 'crash stack' scoped.txt)"
check "... and no frame of the audit trampoline" \
    test -z "$(grep -E '_dl_runtime_profile|boundary_trampoline' scoped.txt scoped.json)"
check_equal "the learned conventions: a count never negative or 0, NULL, true only, 0 only" \
    "shelf_count a negative int, 0 or false
shelf_label NULL
shelf_parse NULL, at a call that never returned it unfailed
shelf_rename a negative int, 0 or false
shelf_store a negative int (0, all it returned unfailed, tells nothing)
shelf_tag a negative int (0, all it returned unfailed, tells nothing)" \
    "$(jq -r '.boundary[] | "\(.function) \(.error)"' scoped.json)"
check "the report lists the conventions and the callers' reactions" \
    grep -q "shelf_label (error: NULL, learned): reported 5, swallowed 0; caller reactions: silent 4, caller-crash 1" \
    scoped.txt
check_equal "what the library returned, as the caller saw it (-1, NULL, NULL, true, -ENOMEM, -1)" \
    "4294967295 0 0 1 4294967284 4294967295" \
    "$(sql scoped.db "SELECT group_concat(v, ' ') FROM (SELECT api, min(api_value) v FROM runs
                      WHERE api IS NOT NULL GROUP BY api ORDER BY api)")"
# Conventions are learned from runs without a fault only: a fault run writes what its calls
# returned only for the call its fault fired in (kept runs: their record files).
"$FAILRUN" run -q --json --keep-runs --source shelf.c --db kept.db -- "$program" >kept.json
baseline=$(python3 "$ROOT/tests/integration/run_records.py" kept.db "kind = 'baseline'")
faulted=$(python3 "$ROOT/tests/integration/run_records.py" kept.db "kind = 'fault'")
check "the baseline writes what the library's calls returned ($baseline)" \
    sh -c "echo '$baseline' | awk '{ exit !(\$10 > 0) }'"
check "fault runs write none of it beyond the faulted call ($faulted)" \
    sh -c "echo '$faulted' | awk '{ exit !(\$2 >= 10 && \$4 >= 10 && \$10 == 0) }'"
check_equal "... and learn the same conventions" "$(jq -c '.boundary' scoped.json)" \
    "$(jq -c '.boundary' kept.json)"
# The longjmp out of shelf_visit's callback: the later shelf_label is still seen.
check_equal "after a longjmp out of the library its next call is still seen; the callback's call is its own" 5 \
    "$(sql scoped.db "SELECT count(*) FROM runs WHERE api = 'shelf_label'")"
check_equal "... and no fault is told as shelf_visit's" 0 \
    "$(sql scoped.db "SELECT count(*) FROM runs WHERE api = 'shelf_visit'")"
# shelf_parse returns NULL for bad text: its NULL reports where the call never returned NULL
# unfailed (the parse of "7"), and cannot be told where it did (the loop over good and bad).
check_equal "shelf_parse: reported at the call of good text only, unknown at the mixed call" \
    "reported
unknown" \
    "$(sql scoped.db "SELECT api_verdict FROM runs WHERE api = 'shelf_parse' ORDER BY api_verdict")"
# The test hands shelf_label's NULL to shelf_width, which dereferences it: the test's crash.
check "a crash in a later call on the reported NULL is the caller's: no crash finding" \
    test -z "$(jq -r '.findings[] | select(.outcome == "crash")' scoped.json)"
# When shelf_tag reports -1, the test leaks its label: the caller's; when the realloc failed,
# shelf_tag lost its own copy: the library's leak, at its strdup.
check_equal "the library's own leak is a finding, at the allocation it lost; the test's is not" \
    "shelf_tag shelf.c" \
    "$(jq -r '.findings[] | select(.outcome == "leak") | "\(.location.function) \(.location.file | split("/") | last)"' scoped.json)"
check_equal "... one leak finding although both shelf_tag runs leaked the test's label" 1 \
    "$(jq '[.findings[] | select(.outcome == "leak")] | length' scoped.json)"

"$FAILRUN" run -q --boundary --source shelf.c --returns shelf_count=zero --db rule.db -- "$program" >/dev/null
check_equal "--returns shelf_count=zero: its -1 is a success value, the printed -1 a finding" \
    "shelf_count swallowed swallowed -" "$(verdicts rule.db | grep '^shelf_count')"
check "--returns: a malformed rule is refused" \
    sh -c "! '$FAILRUN' run -q --source shelf.c --returns shelf_count=maybe --db bad.db -- '$program' 2>/dev/null"

# The same library and test built with AddressSanitizer: under the audit module LeakSanitizer's
# exit scan of thread-local storage would fault (status 1 without faults); failrun turns that part
# off and keeps the dynamic linker's blocks out by its rules (libfail-audit.supp).
"$FAILRUN" run -q --json --source shelf.c --db asan.db -- "$ROOT/build/tests/asan/boundary/test_shelf" \
    >asan.json 2>asan.err
check "under ASan the baseline passes: no warning of a status or a sanitizer report without faults" \
    test -z "$(grep 'even without faults' asan.err)"
check_equal "under ASan, what each call returned and each verdict are the plain build's" \
    "$(verdicts scoped.db | cut -d' ' -f1-2)" "$(verdicts asan.db | cut -d' ' -f1-2)"
# shelf_tag's lost copy is LeakSanitizer's report there (a sanitizer finding, as every leak of an
# ASan build): while the audit sent calls through the dynamic linker's trampoline, the leak's
# stack held a frame of ld.so, and the rule for ld.so's own blocks hid it.
check_equal "under ASan, the findings of the boundary are the plain build's (the leak LeakSanitizer's)" \
    "sanitizer shelf_tag detected memory leaks
silent shelf_parse
swallowed shelf_rename" \
    "$(jq -r '.findings[] | select(.outcome != "leak") | "\(.outcome) \(.location.function)\(if .outcome == "sanitizer" then " " + .sanitizer else "" end)"' asan.json | sort)"

# With --no-boundary nothing is known of the boundary: the output the test printed after a
# reported NULL is a silent finding, the failed test merely handled (the defects of issue 20).
"$FAILRUN" run -q --json --no-boundary --source shelf.c --db plain.db -- "$program" >plain.json
check_equal "with --no-boundary: silent findings, the swallowed error only handled, the crash" \
    "crash 1
handled 2
silent 9" \
    "$(sql plain.db "SELECT outcome || ' ' || count(*) FROM runs WHERE kind = 'fault'
                     AND outcome IN ('silent', 'handled', 'crash') GROUP BY outcome ORDER BY outcome")"

# The audit changes nothing the program computes: its output and status are as without failrun.
check_equal "under the audit the program prints what it prints alone" "$("$program")" \
    "$(cat "$(sql scoped.db "SELECT dir FROM runs WHERE kind = 'baseline'")/stdout")"

# The module binds the program's calls into the library under test to the preload's trampoline
# and leaves every other call alone (the C library's strtol: its GOT slot holds strtol); out of
# the campaign's scope (a suite's driver, a fixture) the dynamic linker drops it. got_probe tells
# whether each of its two calls goes straight to its function.
probe="$PROGRAMS/boundary/got_probe"
audit="$ROOT/build/libfail-audit.so"
preload="$ROOT/build/libfail-preload.so"
check_equal "without the audit module the program's calls go straight to the library" \
    "direct direct" "$("$probe")"
check_equal "in the campaign's scope the module audits the library's, not the C library's" \
    "audited direct" "$(env LD_PRELOAD="$preload" LD_AUDIT="$audit" LIBFAIL_EXE='*' "$probe")"
check_equal "... in the default scope too (every executable outside the system's)" \
    "audited direct" "$(env LD_PRELOAD="$preload" LD_AUDIT="$audit" LIBFAIL_EXE='::::' "$probe")"
check_equal "without the preload nothing would hear of the calls: none is audited" \
    "direct direct" "$(env LD_AUDIT="$audit" LIBFAIL_EXE='*' "$probe")"
check_equal "out of the scope the dynamic linker drops the module: no trampoline" "direct direct" \
    "$(env LD_PRELOAD="$preload" LD_AUDIT="$audit" LIBFAIL_EXE='!*/got_probe' "$probe")"

# The trampoline passes every kind of argument and result the calling convention has: ten
# integers (four on the stack), twelve mixed with doubles and a float, a variable list, structs in
# two registers and through a hidden pointer, a long double on the x87 stack, and errno as the
# function set it. The probe bound lazily and at load (-z now): every function of libabi.so went
# through the trampoline (its conventions learned), and the program printed what abi.c computes.
abi_expected="ten 385
mixed 681.00
sum 5187
pair 21 55
point 4.500 1.000
block 1 102 203 304 405 506 607 708
scaled 121.5
fails -1 ENOSPC"
for abi in abi_probe abi_probe-now; do
    "$FAILRUN" run -q --source abi.c --db "$abi.db" -- "$PROGRAMS/boundary/$abi" >/dev/null 2>&1
    check_equal "$abi: through the trampoline each call got and returned what it does without it" \
        "$abi_expected" "$(cat "$(sql "$abi.db" "SELECT dir FROM runs WHERE kind = 'baseline'")/stdout")"
    check_equal "$abi: ... and every call went through it" \
        "abi_block_of abi_fails_with abi_mixed abi_pair_of abi_point_of abi_scaled abi_sum abi_ten" \
        "$(sql "$abi.db" "SELECT function FROM conventions ORDER BY function" | tr '\n' ' ' | sed 's/ $//')"
done
check_equal "abi_probe without failrun prints the same" "$abi_expected" "$("$PROGRAMS/boundary/abi_probe")"
