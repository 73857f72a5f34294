#!/bin/sh
# test_scope.sh — which processes and modules a campaign fails allocations in: by default the
# user's own programs a launcher (make, sh) starts, or the command itself when it is the program
# under test; --exe and --module narrow it.
. "$(dirname "$0")/lib.sh"
work=$(scratch)
trap 'rm -rf "$work"' EXIT
cd "$ROOT" || exit 1

suite="make -s -f tests/data/suite.mk check"
"$FAILRUN" run -q --json --db "$work/suite.db" -- $suite >"$work/suite.json"
check_equal "make suite: failrun exits 1 (bugs found)" 1 $?
check_equal "make suite: sites only in the test programs, none in make or sh" \
    "$(printf '%s\n' "$EXAMPLES/csvstat" "$EXAMPLES/kvtest")" \
    "$(sql "$work/suite.db" "SELECT DISTINCT exe FROM sites ORDER BY exe")"
check_equal "make suite: the scope is every non-system program" "" \
    "$(sql "$work/suite.db" "SELECT scope FROM campaign")"
check_equal "make suite: all three planted bugs, found through make" \
    "crash crash leak" "$(jq -r '[.findings[].outcome] | sort | join(" ")' "$work/suite.json")"

"$FAILRUN" run -q --exe '*/csvstat' --db "$work/exe.db" -- $suite >/dev/null
check_equal "--exe: only the matching program's sites" "$EXAMPLES/csvstat" \
    "$(sql "$work/exe.db" "SELECT DISTINCT exe FROM sites")"

"$FAILRUN" run -q --db "$work/system.db" -- json_reformat <tests/data/sample.json >/dev/null
check_equal "a system program as the command: it alone is in scope" "$(command -v json_reformat)" \
    "$(sql "$work/system.db" "SELECT scope FROM campaign")"

"$FAILRUN" run -q --module '*libctor.so' --db "$work/module.db" -- "$PROGRAMS/early" >/dev/null
check_equal "--module: only the allocation made in the matching library" 1 \
    "$(sql "$work/module.db" "SELECT count(*) FROM sites")"

# A harness that hides its children's output and exit status: each test program is judged by
# its own exit status against the same program in the baseline.
"$FAILRUN" run -q --json --db "$work/harness.db" -- tests/data/run-tests.sh >"$work/harness.json"
findings=$(jq -r '[.findings[] | "\(.outcome) \(.signal_name // "-") \(.location.file | sub(".*/examples/"; "examples/")):\(.location.line)"] | sort | .[]' "$work/harness.json")
check_equal "hidden statuses: the three planted bugs, the double free told by its stack" \
    "$(printf '%s\n' "crash ABRT $(marker examples/kvstore/kv.c 'BUG(double-free)')" \
        "crash SEGV $(marker examples/kvstore/kv.c 'BUG(null-deref)')" \
        "leak - $(marker examples/csvstat/csv.c 'BUG(leak)')")" "$findings"
check "hidden statuses: kvtest's error exits still count as handled" \
    test "$(sql "$work/harness.db" "SELECT count(*) FROM runs r JOIN sites s ON s.id = r.site
        WHERE s.exe LIKE '%kvtest' AND r.outcome = 'handled'")" -ge 15
check_equal "hidden statuses: the command itself always exited 0 (runs that started it)" 0 \
    "$(sql "$work/harness.db" "SELECT max(exit_code) FROM runs WHERE owner IS NULL")"
check "hidden statuses: the runs of kvtest's sites started kvtest alone" \
    test "$(sql "$work/harness.db" "SELECT count(*) FROM runs r JOIN programs p ON p.id = r.owner
        WHERE p.exe LIKE '%/kvtest'")" -ge 15

# ctest: a real test driver from Debian, which runs each test in its own process.
cmake -S tests/data/ctest -B "$work/ctest" -DEXAMPLES="$EXAMPLES" \
    -DSAMPLE="$ROOT/examples/csvstat/sample.csv" >/dev/null
"$FAILRUN" run -q --json --db "$work/ctest.db" -- ctest --test-dir "$work/ctest" >"$work/ctest.json"
check_equal "ctest: sites only in the tests it runs, none in ctest, cmake or sh" \
    "$(printf '%s\n' "$EXAMPLES/csvstat" "$EXAMPLES/kvtest")" \
    "$(sql "$work/ctest.db" "SELECT DISTINCT exe FROM sites ORDER BY exe")"
check_equal "ctest: the three planted bugs" "crash crash leak" \
    "$(jq -r '[.findings[].outcome] | sort | join(" ")' "$work/ctest.json")"
