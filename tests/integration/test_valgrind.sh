#!/bin/sh
# test_valgrind.sh — a harness that runs the program under valgrind (curl's runtests does when
# valgrind is installed), and a baseline that only failrun breaks.
#   - under memcheck with --error-exitcode, libfail's own code reports nothing (its rules go
#     along in VALGRIND_OPTS), so the baseline passes;
#   - the preload still sees the guest's allocations (valgrind would otherwise send them to its
#     own malloc): the same sites, and the same findings but leaks, as without valgrind (leaks
#     under valgrind are memcheck's to report: failrun confirms a leak under libasan, which
#     cannot run inside valgrind);
#   - a command that passes without libfail and fails with it stops the campaign, saying so;
#     one that fails either way is campaigned against its failure, with a warning.
. "$(dirname "$0")/lib.sh"
work=$(scratch)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
program="$PROGRAMS/wrapped"
identities='[.findings[] | select(.outcome != "leak") | "\(.outcome) \(.location.function)"] | sort | join(",")'

"$FAILRUN" run -q --json --db plain.db -- "$program" >plain.json 2>plain.err
"$FAILRUN" run -q --json --db vg.db -- valgrind -q --error-exitcode=99 "$program" >vg.json 2>vg.err
check_equal "under memcheck: failrun exits as without valgrind (findings: 1)" 1 $?
check "under memcheck: the baseline passes (no error of libfail's own code)" \
    test "$(sql vg.db 'SELECT baseline_exit FROM campaign')" = 0
check "under memcheck: no warning about the baseline's status" sh -c "! grep -q 'exits with status' vg.err"
check_equal "under memcheck: the preload sees the guest's allocations (same sites)" \
    "$(sql plain.db 'SELECT count(*) FROM sites')" "$(sql vg.db 'SELECT count(*) FROM sites')"
check_equal "under memcheck: the same findings, leaks aside (silent greet)" "$(jq -r "$identities" plain.json)" "$(jq -r "$identities" vg.json)"

cat >broken.sh <<SCRIPT
#!/bin/sh
"$program" >/dev/null || exit 3
test -z "\$LD_PRELOAD" || { echo "refusing to run preloaded" >&2; exit 4; }
SCRIPT
chmod +x broken.sh
"$FAILRUN" run -q --db broken.db -- ./broken.sh >broken.out 2>broken.err
check_equal "broken by the preload: failrun stops (status 2)" 2 $?
check "... and says the command passes without libfail" \
    grep -q "passes without libfail but exits with status 4 under its preload" broken.err
check_equal "... and plans no fault run" 0 "$(sql broken.db "SELECT count(*) FROM runs WHERE kind = 'fault'")"

"$FAILRUN" run -q --db own.db -- sh -c "\"$program\" >/dev/null; exit 5" >own.out 2>own.err
check "failing either way: campaigned, with a warning that says so" \
    grep -q "exits with status 5 even without faults, with libfail or without" own.err
check "... and its fault runs are made" test "$(sql own.db "SELECT count(*) FROM runs WHERE kind = 'fault'")" -gt 0
