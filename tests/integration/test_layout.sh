#!/bin/sh
# test_layout.sh — one campaign, one process layout: every run of a campaign, and a second
# campaign of the same command, maps its stack, heap and code where the baseline did (no
# address-space randomisation in runs: base/spawn.c), so a program whose allocation sites follow
# its addresses (tests/programs/layout: eight calls, each allocating in one of two functions by a
# bit of its addresses) reaches the same sites in every run.
. "$(dirname "$0")/lib.sh"
work=$(scratch)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
program="$PROGRAMS/layout"

# The program does vary under the system's randomisation (when the system randomises at all).
if [ "$(cat /proc/sys/kernel/randomize_va_space 2>/dev/null)" != 0 ]; then
    for i in 1 2 3 4 5 6; do "$program"; done | sort -u >bare.txt
    check "bare runs under randomisation pick other functions from run to run" \
        test "$(wc -l <bare.txt)" -gt 1
fi

"$FAILRUN" run -q --json --db one.db -- "$program" >one.json
check_equal "one campaign: ten sites (the first block, one function for each call, stdout's buffer), a run each" \
    "10 10" "$(sql one.db "SELECT count(*) FROM sites") $(sql one.db "SELECT count(*) FROM runs WHERE kind = 'fault'")"
check_equal "every run reached the site it was to fail, in the baseline's layout" "" \
    "$(sql one.db "SELECT site FROM runs WHERE kind = 'fault' AND outcome = 'not-reached'")"
check_equal "every run reports the error and ends (handled; stdout's buffer is absorbed), no finding" \
    "absorbed 1 handled 9" \
    "$(sql one.db "SELECT outcome, count(*) FROM runs WHERE kind = 'fault' GROUP BY outcome" | tr '|\n' '  ' | sed 's/ $//')"
"$FAILRUN" run -q --json --db two.db -- "$program" >two.json
check_equal "a second campaign of the command: the same sites" \
    "$(sql one.db "SELECT id FROM sites ORDER BY id")" "$(sql two.db "SELECT id FROM sites ORDER BY id")"
baseline_output() { cat "$(sql "$1" "SELECT dir FROM runs WHERE kind = 'baseline'")/stdout"; }
check_equal "... and the same unfailed output, the same functions picked" "$(baseline_output one.db)" \
    "$(baseline_output two.db)"
