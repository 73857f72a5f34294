#!/bin/sh
# test_policy.sh — the policy API under failrun: an lf_malloc site is its caller's line (not
# libfail's), an LF_NOFAIL site is never failed, a named failpoint fails like a site and its
# error leg runs. The unit test tests/unit/test_policy.c covers the API's rules in-process.
. "$(dirname "$0")/lib.sh"
work=$(scratch)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
program="$PROGRAMS/policy"
line_of() { marker tests/programs/policy.c "SITE($1)" | cut -d: -f2; }

"$FAILRUN" run -q --json --db policy.db -- "$program" >policy.json
run_outcome() { # outcome and exit code of the run that failed the site whose function is $1, size $2
    sql policy.db "SELECT r.outcome || ' ' || r.exit_code FROM runs r JOIN sites s ON s.id = r.site
                   WHERE s.function = '$1' AND s.max_size = $2"
}
check_equal "LF_MAYFAIL: the injected failure reaches the caller's error leg" "handled 2" \
    "$(run_outcome malloc 64)"
check_equal "LF_NOFAIL: the site is never failed, so no run sees a fault there" 0 \
    "$(sql policy.db "SELECT count(*) FROM runs r JOIN sites s ON s.id = r.site
                      WHERE s.max_size = 128 AND r.outcome <> 'not-reached'")"
check_equal "LF_NOFAIL: the program's unchecked use of it never crashed" 0 \
    "$(sql policy.db "SELECT count(*) FROM runs WHERE signal <> 0")"
check_equal "LF_FAILPOINT: the failpoint is a site, and failing it runs its error leg" "handled 3" \
    "$(run_outcome failpoint 0)"
failpoint=$(sql policy.db "SELECT id FROM sites WHERE function = 'failpoint'")
"$FAILRUN" replay --db policy.db "$failpoint" >replay.out 2>replay.err
check_equal "LF_FAILPOINT: replaying its site runs the program's own error leg" \
    "3 policy: journal sync failed" "$? $(grep '^policy:' replay.err)"
program_module=$(sql policy.db "SELECT id FROM modules WHERE path = '$program'")
check_equal "lf_malloc: each site starts at the caller of the lf_ function, in the program" \
    "$program_module $program_module $program_module" \
    "$(sql policy.db "SELECT json_extract(frames, '$[0][0]') FROM sites
                      WHERE function = 'failpoint' OR max_size IN (64, 128) ORDER BY id" | tr '\n' ' ' | sed 's/ $//')"
