#!/bin/sh
# test_every_start.sh — --every-start: a site that several programs of a suite reach is failed in
# each of them (each started alone), not only in its owner (the first that reached it). A bug
# that shows only where another caller's allocation fails is then found; by default it is not.
# tests/programs/everystart.c: `careful` checks copy()'s NULL, `careless` does not.
. "$(dirname "$0")/lib.sh"
work=$(scratch)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
printf '#!/bin/sh\n"%s/everystart" careful && "%s/everystart" careless\n' "$PROGRAMS" "$PROGRAMS" \
    >suite.sh
crashes() { jq -r '[.findings[] | select(.outcome == "crash")] | length' "$1"; }

"$FAILRUN" run -q --json --db owner.db -- sh suite.sh >owner.json
check_equal "by default: failrun exits 0, the shared site failed in its owner only (handled)" \
    "0 0" "$? $(crashes owner.json)"
"$FAILRUN" run -q --json --every-start --db every.db -- sh suite.sh >every.json
check_equal "--every-start: failrun exits 1, the careless program's crash found" \
    "1 1" "$? $(crashes every.json)"
check "the crash is the careless program's line (everystart.c:32)" \
    sh -c "jq -r '.findings[] | select(.outcome == \"crash\") | .location.line' every.json |
           grep -qx 32"
check_equal "one more run per site, in the other program, started alone" \
    "2|2" \
    "$(sql every.db "SELECT count(*) - $(sql owner.db "SELECT count(*) FROM runs WHERE kind = 'fault'"),
                            count(DISTINCT owner) FROM runs WHERE kind = 'fault'")"
check_equal "the report counts them" 2 "$(jq '.campaign.programs.every_start_runs' every.json)"
check "its replay starts the careless program" \
    sh -c "jq -r '.findings[] | select(.outcome == \"crash\") | .replay' every.json |
           grep -q 'everystart careless'"

# The programs fork at their start (the first runs); the added runs re-run their program alone
# (a start's children are named after their sites, so a site forks in one program only).
FAILRUN_START_ABOVE_MS=0 "$FAILRUN" run -q --json --every-start --db start.db -- sh suite.sh \
    >start.json
check_equal "fork at the start: the same crash" "1 1" "$? $(crashes start.json)"
check_equal "... the first runs forked at the start, the added ones re-run" "2|2" \
    "$(sql start.db "SELECT sum(dir LIKE '%/fork-%-starts/%'), sum(dir NOT LIKE '%/fork-%-starts/%')
                     FROM runs WHERE kind = 'fault'")"

# A campaign's setting: resuming it without the option is another campaign.
"$FAILRUN" run -q --json --db every.db -- sh suite.sh >resumed.json 2>resumed.err
check_equal "resuming an --every-start campaign without it is refused" 2 $?

# Without --every-start, a run the whole command lends to a program's start (a site the command's
# own process owns, also reached by a child that cannot run alone) stays a run: none is taken
# for one --every-start added (runs.every_start says which those are).
"$FAILRUN" run -q --json --db lent.db -- "$PROGRAMS/lentsite" >lent.json 2>lent.err
check_equal "a self-starting program: every site has its run" \
    "$(sql lent.db "SELECT count(*) FROM sites")" \
    "$(sql lent.db "SELECT count(*) FROM runs WHERE kind = 'fault'")"
check_equal "... and none is counted as --every-start's" 0 \
    "$(jq '.campaign.programs.every_start_runs' lent.json)"
