#!/bin/sh
# test_preload_chain.sh — programs a test harness starts with its own LD_PRELOAD (git's test
# library preloads libc_malloc_debug.so.0 around every test body), or without LD_PRELOAD, or
# set-user-ID: the first keep failrun's preload first in their chain and are recorded; the others
# cannot be, and stderr, `failrun report` and `failrun report --json` name them and count them.
. "$(dirname "$0")/lib.sh"
work=$(scratch)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1

hello="$PROGRAMS/libhello.so"
big=$(head -c 20000 /dev/zero | tr '\0' x) # an environment past the stack buffer (an mmap)
cat >suite.sh <<SUITE
LD_PRELOAD="$hello" "$PROGRAMS/chainorder"
BIG=$big LD_PRELOAD="$hello" "$EXAMPLES/kvtest" >/dev/null
env -i "$PROGRAMS/early"
env -u LD_PRELOAD "$PROGRAMS/exits"
env -u LD_PRELOAD "$PROGRAMS/exits"
"$PROGRAMS/spawner" other "$hello" "$PROGRAMS/closefds"
PATH="$PROGRAMS:\$PATH" "$PROGRAMS/spawner" clear realloc_fail
"$PROGRAMS/spawner" fail
SUITE
"$FAILRUN" run --json --db chain.db -- sh suite.sh >chain.json 2>chain.err
baseline=$(sql chain.db "SELECT dir FROM runs WHERE kind = 'baseline'")
check_equal "the suite passes under failrun, as without it" 0 \
    "$(sql chain.db "SELECT baseline_exit FROM campaign")"

# LD_PRELOAD replaced: ours goes first again, the other preload still loads.
check "replaced by exec: the program's sites are recorded" \
    test "$(sql chain.db "SELECT count(*) FROM sites WHERE exe LIKE '%/chainorder'")" -ge 2
check "replaced by exec: the campaign fails them" \
    test "$(sql chain.db "SELECT count(*) FROM runs r JOIN sites s ON s.id = r.site
                          WHERE s.exe LIKE '%/chainorder' AND r.outcome IS NOT NULL")" -ge 2
check_equal "replaced: the chain is libfail's preload, then the harness's" 1 \
    "$(sql chain.db "SELECT count(*) FROM programs WHERE exe LIKE '%/chainorder' AND
       instr(environment, CAST('LD_PRELOAD=$ROOT/build/libfail-preload.so:$hello' AS BLOB)) > 0")"
check_equal "replaced: the harness's preload still loads in each program" 3 \
    "$(grep -c '^libhello: loaded$' "$baseline/stderr")"
check "replaced, 20 kB environment: the program's sites are recorded" \
    test "$(sql chain.db "SELECT count(*) FROM sites WHERE exe LIKE '%/kvtest'")" -ge 10
check "replaced by posix_spawn: the program's sites are recorded" \
    test "$(sql chain.db "SELECT count(*) FROM sites WHERE exe LIKE '%/closefds'")" -ge 1

# Cleared: named on stderr after the baseline, and in both reports, with the count.
check_equal "cleared: stderr names each program, why, and how often" \
    "failrun: warning: 3 programs of the command ran without libfail's preload, so no run covers them: $PROGRAMS/early (LD_PRELOAD or LIBFAIL_* cleared; 1 time), $PROGRAMS/exits (LD_PRELOAD or LIBFAIL_* cleared; 2 times), $PROGRAMS/realloc_fail (LD_PRELOAD or LIBFAIL_* cleared; 1 time)" \
    "$(grep 'without libfail' chain.err)"
expected="$PROGRAMS/early cleared 1
$PROGRAMS/exits cleared 2
$PROGRAMS/realloc_fail cleared 1"
unpreloaded='.campaign.unpreloaded[] | "\(.program) \(.reason) \(.count)"'
check_equal "cleared: failrun run --json lists them" "$expected" "$(jq -r "$unpreloaded" chain.json)"
"$FAILRUN" report --json --db chain.db >report.json
check_equal "cleared: failrun report --json lists them" "$expected" \
    "$(jq -r "$unpreloaded" report.json)"
"$FAILRUN" report --db chain.db >report.txt
check "cleared: failrun report names them with their counts" grep -qF \
    "3 programs ran without libfail's preload, so no run covers them: $PROGRAMS/early (LD_PRELOAD or LIBFAIL_* cleared; 1 time), $PROGRAMS/exits (LD_PRELOAD or LIBFAIL_* cleared; 2 times), $PROGRAMS/realloc_fail" \
    report.txt
check_equal "a failed exec or spawn is no program run: the missing one is not listed" 0 \
    "$(jq '[.campaign.unpreloaded[] | select(.program | test("missing"))] | length' chain.json)"
check_equal "a failed exec or spawn returns what it returns without the preload" \
    "$("$PROGRAMS/spawner" fail)" "$(grep -v '^libhello' "$baseline/stdout" | grep -e execve -e posix_spawn)"

# A database of schema 8 (before the table) opens, migrated, and reports no such program.
cp chain.db old.db
sql old.db "DROP TABLE unpreloaded; ALTER TABLE campaign DROP COLUMN returns; ALTER TABLE campaign DROP COLUMN boundary;
             DROP TABLE conventions; DROP TABLE call_conventions; ALTER TABLE runs DROP COLUMN api;
             ALTER TABLE runs DROP COLUMN api_value; ALTER TABLE runs DROP COLUMN api_errno;
             ALTER TABLE runs DROP COLUMN api_verdict; ALTER TABLE runs DROP COLUMN reaction;
             ALTER TABLE runs DROP COLUMN test_case; ALTER TABLE campaign DROP COLUMN test_cases;
             ALTER TABLE campaign DROP COLUMN fork_note; ALTER TABLE campaign DROP COLUMN kmem_trace;
             ALTER TABLE campaign DROP COLUMN kcov; ALTER TABLE campaign DROP COLUMN vmlinux;
             ALTER TABLE campaign DROP COLUMN syscall_once; ALTER TABLE campaign DROP COLUMN kernel_build_id;
             ALTER TABLE campaign DROP COLUMN every_start; ALTER TABLE runs DROP COLUMN every_start;
             ALTER TABLE campaign DROP COLUMN fail_bookkeeping; ALTER TABLE sites DROP COLUMN bookkeeping;
             ALTER TABLE kernel_faults DROP COLUMN pid;
              PRAGMA user_version = 8;"
"$FAILRUN" report --json --db old.db >old.json
check_equal "schema 8: migrated to 15, nothing listed" "15 0" \
    "$(sql old.db "PRAGMA user_version") $(jq '.campaign.unpreloaded | length' old.json)"

# Set-user-ID (as root: a copy owned by nobody): the loader ignores LD_PRELOAD, even put first.
if [ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1; then
    printf '#include <stdlib.h>\nint main(void) { free(malloc(10)); return 0; }\n' >setuid.c
    cc -o plain setuid.c && cp plain setuid && chown nobody setuid && chmod 4755 setuid
    "$FAILRUN" run --json --db setuid.db -- sh -c "./plain; ./setuid; LD_PRELOAD='$hello' ./setuid" \
        >setuid.json 2>setuid.err
    check_equal "setuid: counted, with why" "$work/setuid setuid 2" \
        "$(jq -r "$unpreloaded" setuid.json)"
    check "setuid: stderr says so" grep -qF \
        "$work/setuid (set-user-ID, the loader ignores LD_PRELOAD; 2 times)" setuid.err
    check "setuid: the same program without the bit is recorded" \
        test "$(sql setuid.db "SELECT count(*) FROM sites WHERE exe = '$work/plain'")" -ge 1
else
    echo "# setuid: skipped (needs root and a user nobody)"
fi
