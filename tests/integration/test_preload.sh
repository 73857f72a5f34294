#!/bin/sh
# test_preload.sh — the preload inside awkward targets: allocation before its constructor ran,
# a program that closes every fd, _exit and exits inside libc, strdup, threads with fork, and
# signatures that stay the same from one campaign to the next (under ASLR).
. "$(dirname "$0")/lib.sh"
work=$(scratch)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1

# Sites whose caller (frame 0) is in a module whose path ends with $2.
sites_in() {
    sql "$1" "SELECT s.id FROM sites s JOIN modules m ON m.id = json_extract(s.frames, '\$[0][0]')
              WHERE m.path LIKE '%$2' ORDER BY s.id"
}
outcomes_in() {
    sql "$1" "SELECT r.outcome || ' ' || r.exit_code FROM runs r JOIN sites s ON s.id = r.site
              JOIN modules m ON m.id = json_extract(s.frames, '\$[0][0]')
              WHERE m.path LIKE '%$2' ORDER BY r.outcome, r.exit_code"
}

# (c) Allocation in a library constructor, before libfail-preload.so's constructor.
"$FAILRUN" run -q --db early.db -- "$PROGRAMS/early" >/dev/null
check_equal "early: the constructor's allocation is a site" 1 "$(sites_in early.db libctor.so | wc -l)"
check_equal "early: failing it reaches the program's error leg" "handled 1" \
    "$(outcomes_in early.db libctor.so)"

# (d) A program that closes every fd, then fills the fd table with files of its own.
"$FAILRUN" run -q --db closefds.db -- "$PROGRAMS/closefds" >/dev/null
check_equal "closefds: the sites before and after closing every fd are all recorded" 3 \
    "$(sites_in closefds.db closefds | wc -l)"
check_equal "closefds: failing each is seen (records re-opened), with the program's exit codes" \
    "$(printf 'handled 2\nhandled 3\nhandled 4')" "$(outcomes_in closefds.db closefds)"

# (e) _exit, and exit() called inside libc by error(3); strdup goes through malloc.
"$FAILRUN" run -q --db exits.db -- "$PROGRAMS/exits" _exit >/dev/null
strdup_site=$(sql exits.db "SELECT s.id FROM sites s
    JOIN modules m0 ON m0.id = json_extract(s.frames, '\$[0][0]')
    JOIN modules m1 ON m1.id = json_extract(s.frames, '\$[1][0]')
    WHERE m0.path LIKE '%/libc.so.6' AND m1.path LIKE '%/exits' AND s.function = 'malloc'")
check_equal "strdup, strndup: allocate through the interposed malloc, called from libc" 2 \
    "$(echo "$strdup_site" | wc -l)"
# Of the two, the strdup site is the one whose failure ends the program with status 4.
strdup_site=$(sql exits.db "SELECT site FROM runs WHERE exit_code = 4")
check_equal "_exit: a failure that ends in _exit(4) right at the call is oom-abort" "oom-abort 4" \
    "$(sql exits.db "SELECT outcome || ' ' || exit_code FROM runs WHERE site = '$strdup_site'")"
"$FAILRUN" run -q --db error.db -- "$PROGRAMS/exits" error >/dev/null
check_equal "error(3): exit inside libc is recorded: oom-abort with status 5" "oom-abort 5" \
    "$(sql error.db "SELECT outcome || ' ' || exit_code FROM runs WHERE site = '$strdup_site'")"

# Threads allocating while the main thread forks children that allocate.
start=$(date +%s)
"$FAILRUN" run -q --timeout 60 --db threads.db -- "$PROGRAMS/threads" >/dev/null
elapsed=$(($(date +%s) - start))
echo "    threads: campaign of $(sql threads.db "SELECT count(*) FROM runs") runs in ${elapsed} s"
check "threads: the forked child's own site is recorded" \
    test "$(sites_in threads.db threads | wc -l)" -ge 2
check_equal "threads: no run hangs or crashes" 0 \
    "$(sql threads.db "SELECT count(*) FROM runs WHERE outcome IN ('hang', 'crash')")"
check_equal "threads: every run finished" 0 \
    "$(sql threads.db "SELECT count(*) FROM runs WHERE state <> 'done'")"

# Identical signatures in two campaigns (each process under its own ASLR layout).
"$FAILRUN" run -q --db first.db -- "$EXAMPLES/kvtest" >/dev/null
"$FAILRUN" run -q --db second.db -- "$EXAMPLES/kvtest" >/dev/null
first=$(sql first.db "SELECT id FROM sites ORDER BY id")
check "signatures: a campaign finds sites" test "$(echo "$first" | wc -l)" -ge 10
check_equal "signatures: identical site ids in a second campaign" "$first" \
    "$(sql second.db "SELECT id FROM sites ORDER BY id")"
check_equal "signatures: modules are named by build-id" 0 \
    "$(sql first.db "SELECT count(*) FROM modules WHERE path LIKE '%kvtest' AND build_id = ''")"

# One site per remaining outcome: hang (bounded by --timeout), silent, oom-abort, absorbed.
"$FAILRUN" run -q --timeout 2 --json --db outcomes.db -- "$PROGRAMS/outcomes" >outcomes.json
outcome_at() { # the outcome of the run failing the site whose caller line carries the marker
    line=$(grep -n -F "OUTCOME($1)" "$ROOT/tests/programs/outcomes.c" | cut -d: -f1)
    jq -r --arg line "$line" '.findings[] | select(.injection_stack[0].line == ($line | tonumber)) | .outcome' outcomes.json
}
check_equal "hang: a failure that waits forever is a hang finding" hang "$(outcome_at hang)"
check_equal "silent: a failure that changes stdout without a word is a silent finding" silent \
    "$(outcome_at silent)"
check_equal "outcomes: exactly those two findings" 2 "$(jq '.findings | length' outcomes.json)"
check_equal "outcomes: the xmalloc abort is oom-abort and the fallback absorbed" "1 1" \
    "$(jq -r '"\(.outcomes["oom-abort"]) \(.outcomes.absorbed - 1)"' outcomes.json)"

# A target that changes directory before its children run: the run folder must still be found.
mkdir -p elsewhere
"$FAILRUN" run -q --db relative.db -- sh -c "cd elsewhere && exec '$EXAMPLES/kvtest'" >/dev/null
check_equal "chdir: the program started after a cd is the one under test, its sites recorded" \
    "$EXAMPLES/kvtest" "$(sql relative.db "SELECT DISTINCT exe FROM sites")"

# A program linked with libfail.so, run under the preload: one copy serves, faults and records
# are never counted twice.
cat >linked.c <<'SOURCE'
#include <libfail.h>
#include <stdio.h>
#include <stdlib.h>
int main(void)
{
    char pattern[7] = {0};
    for (int i = 0; i < 6; i++) {
        void *block = malloc(10 + (size_t)i);
        pattern[i] = block ? '.' : 'X';
        free(block);
    }
    puts(pattern);
    return 0;
}
SOURCE
cc -I "$ROOT/libfail/include" -o linked linked.c -L "$ROOT/build" -Wl,-rpath,"$ROOT/build" -l:libfail.so
"$FAILRUN" run -q --nth 3 --keep-runs --db linked.db -- ./linked >/dev/null
check_equal "two copies of libfail: --nth 3 fails exactly the third call" "..X..." \
    "$(cat linked.files/runs/2-*/stdout)"
check_equal "two copies of libfail: one record file per process" 1 \
    "$(ls linked.files/runs/2-*/*.rec | wc -l)"

# A signal the program inherited as ignored is not a crash when it is raised.
"$FAILRUN" run -q --json --db ignored.db -- sh -c "trap '' TRAP; exec '$PROGRAMS/ignored'" >ignored.json
check_equal "ignored SIGTRAP: no crash, the failed allocation is handled" "0 0 1" \
    "$(jq -r '"\(.findings | length) \(.outcomes.crash) \(.outcomes.handled)"' ignored.json)"

# A block whose realloc failed for real stays counted: forgetting it later is a leak.
"$FAILRUN" run -q --json --db realloc.db -- "$PROGRAMS/realloc_fail" >realloc.json
check_equal "realloc failing for real: the block stays tracked, its later leak is found" \
    "leak realloc_fail.c" \
    "$(jq -r '.findings[] | "\(.outcome) \(.location.file | sub(".*/"; ""))"' realloc.json)"
