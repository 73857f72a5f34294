#!/bin/sh
# test_kernel.sh — `failrun kernel` on this machine, whose kernel has no fault injection: the
# checks of the kernel's settings with their messages, and the sweep's plumbing against a plain
# file standing in for /proc/thread-self/fail-nth (it counts nothing, so every armed call reads
# back its N: "beyond its fault points"). The real kernel is `make check-kernel`'s (tests/kernel).
. "$(dirname "$0")/lib.sh"
work=$(scratch)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
relay="$EXAMPLES/relay"
source_file="$ROOT/examples/relay/relay.c"

LIBFAIL_TEST_FAILNTH="$work/missing" "$FAILRUN" kernel -- "$relay" >out 2>err
check_equal "no fail-nth file: exit status 2" 2 $?
check "no fail-nth file: says the kernel lacks CONFIG_FAULT_INJECTION" \
    grep -q "built without CONFIG_FAULT_INJECTION" err

echo 0 >fail-nth
export LIBFAIL_TEST_FAILNTH="$work/fail-nth" LIBFAIL_TEST_DEBUGFS="$work/debug"
"$FAILRUN" kernel -- "$relay" >out 2>err
check_equal "no debugfs: exit status 2" 2 $?
check "no debugfs: says to mount it or pass --setup-debugfs" grep -q -- "--setup-debugfs" err

mkdir -p debug/failslab debug/fail_page_alloc
echo Y >debug/failslab/ignore-gfp-wait
echo N >debug/fail_page_alloc/ignore-gfp-wait
echo 0 >debug/fail_page_alloc/min-order
"$FAILRUN" kernel -- "$relay" >out 2>err
check_equal "failslab/ignore-gfp-wait=Y: exit status 2" 2 $?
check "ignore-gfp-wait=Y: explains that allocations that may sleep are skipped" \
    grep -q "failslab/ignore-gfp-wait is Y.*GFP_KERNEL" err
echo N >debug/failslab/ignore-gfp-wait
echo 1 >debug/fail_page_alloc/min-order
"$FAILRUN" kernel -- "$relay" >out 2>err
check_equal "min-order=1: exit status 2" 2 $?
check "min-order=1: explains that order-0 allocations are skipped" grep -q "order-0" err

echo Y >debug/failslab/ignore-gfp-wait
# -j 1 in every campaign below: the plain file stands in for a per-thread file, and two runs at
# once would read back each other's N (one run's reset to 0 looks like the other's fault firing).
"$FAILRUN" kernel --setup-debugfs -q -j 1 --db kernel.db -- "$relay" >report.txt 2>err
check_equal "--setup-debugfs: the campaign runs" 0 $?
check_equal "--setup-debugfs: sets ignore-gfp-wait=N, min-order=0, verbose=0" "N N 0 0 0" \
    "$(for f in failslab/ignore-gfp-wait fail_page_alloc/ignore-gfp-wait fail_page_alloc/min-order \
                failslab/verbose fail_page_alloc/verbose; do printf '%s\n' "$(cat "debug/$f")"; done |
       tr '\n' ' ' | sed 's/ $//')"

# --policy realistic: the kernel counts only what its allocator can fail, which takes other
# attributes; without --setup-debugfs the defaults just set are refused, naming the three.
"$FAILRUN" kernel --policy realistic -q -j 1 --db realistic.db -- "$relay" >out 2>err
check_equal "--policy realistic on the default attributes: exit status 2" 2 $?
check "--policy realistic: names the attributes it needs" \
    grep -q "failslab/ignore-gfp-wait=Y, fail_page_alloc/ignore-gfp-wait=N and fail_page_alloc/min-order=4" err
"$FAILRUN" kernel --setup-debugfs --policy realistic -q -j 1 --db realistic.db -- "$relay" \
    >realistic.txt 2>err
check_equal "--setup-debugfs --policy realistic: the campaign runs" 0 $?
check_equal "--setup-debugfs --policy realistic: sets ignore-gfp-wait=Y for slab, N for pages, min-order=4" \
    "Y N 4" "$(for f in failslab/ignore-gfp-wait fail_page_alloc/ignore-gfp-wait \
                        fail_page_alloc/min-order; do printf '%s ' "$(cat "debug/$f")"; done | sed 's/ $//')"
check_equal "the campaign keeps its policy" realistic "$(sql realistic.db "SELECT policy FROM campaign")"
check "the report says the policy" grep -q "^  policy realistic: the kernel counted" realistic.txt
"$FAILRUN" report --json --db realistic.db >realistic.json 2>err
check_equal "the JSON report says the policy" realistic \
    "$(python3 -c 'import json,sys; print(json.load(sys.stdin)["campaign"]["policy"])' <realistic.json)"
"$FAILRUN" kernel --setup-debugfs -q -j 1 --db realistic.db -- "$relay" >out 2>err
check_equal "another policy on the same database is another campaign: refused" 2 $?
check "... naming the other options" grep -q "with other options" err
"$FAILRUN" run --policy realistic -q --db run.db -- "$relay" >out 2>err
check_equal "failrun run --policy realistic: exit status 2" 2 $?
check "... saying it is failrun kernel's" grep -q "policy realistic is failrun kernel's" err
"$FAILRUN" kernel --policy nofail -q --db run.db -- "$relay" >out 2>err
check_equal "failrun kernel --policy nofail: exit status 2" 2 $?
check "... saying it is failrun run's" grep -q "policy nofail is failrun run's" err
"$FAILRUN" kernel --setup-debugfs -q -j 1 --db kernel.db -- "$relay" >/dev/null 2>err
check_equal "the default policy sets the attributes back: N N 0" "N N 0" \
    "$(for f in failslab/ignore-gfp-wait fail_page_alloc/ignore-gfp-wait \
                fail_page_alloc/min-order; do printf '%s ' "$(cat "debug/$f")"; done | sed 's/ $//')"

# Every system call is trapped (the default): relay.c's calls and those libc makes for it, each
# named by the function relay called.
pipe_line=$(grep -n 'if (pipe(ends)' "$source_file" | cut -d: -f1)
fdopen_line=$(grep -n 'fdopen(ends' "$source_file" | cut -d: -f1)
check "pipe() is trapped as the pipe2 system call it makes, named by the function relay calls" \
    grep -q "^  pipe2() via pipe() at .*relay\.c:$pipe_line " report.txt
check "the fcntl inside fdopen is a site of its own" \
    grep -q "^  fcntl() via fdopen() at .*relay\.c:$fdopen_line " report.txt
check "a call relay makes itself is named without a via" \
    grep -q "^  socketpair() at .*relay\.c:[0-9]* " report.txt
sites=$(sql kernel.db "SELECT count(*) FROM sites")
check "trapping finds more sites than the wrapped calls (5): $sites" test "$sites" -gt 5
check_equal "each site's sweep starts at N=1; a counter that did not reach 0 ends it" \
    "$sites $sites" "$(sql kernel.db "SELECT count(*), sum(nth = 1 AND fired = 0) FROM kernel_faults" | tr '|' ' ')"
check_equal "the armed counter is written back to 0 after each call" 0 "$(cat fail-nth)"
check_equal "an armed call is only armed: the program's output is unchanged" \
    "$(sql kernel.db "SELECT count(*) FROM runs WHERE kind = 'fault'")" \
    "$(sql kernel.db "SELECT count(*) FROM runs WHERE kind = 'fault' AND outcome = 'not-reached'")"

# --wrappers: the sites are relay.c's own calls of the wrapped functions, in source order.
"$FAILRUN" kernel --wrappers -q -j 1 --db wrappers.db -- "$relay" >wrappers.txt 2>err
check_equal "--wrappers: the campaign runs" 0 $?
expected=$(sed 's|/\*.*\*/||' "$source_file" | grep -n -E '(socketpair|write|read|pipe)\(' |
    grep -v -E '^[0-9]+:\s*(/\*| \*)' |
    sed -E 's/^([0-9]+):.*\b(socketpair|write|read|pipe)\(.*/\2 \1/' | tr '\n' ' ' | sed 's/ $//')
check_equal "--wrappers: the sites are relay.c's socketpair, write, read, pipe and read calls, by line" \
    "$expected" \
    "$(grep -E '^  [a-z]+\(\) at ' wrappers.txt | sed -E 's/^  ([a-z]+)\(\) at .*relay\.c:([0-9]+) .*/\1 \2/' |
       tr '\n' ' ' | sed 's/ $//')"
check_equal "--wrappers: each site's sweep starts at N=1; a counter that did not reach 0 ends it" \
    "5 5" "$(sql wrappers.db "SELECT count(*), sum(nth = 1 AND fired = 0) FROM kernel_faults" | tr '|' ' ')"
check "--wrappers: the replayable plan says so" \
    test "$(sql wrappers.db "SELECT count(*) FROM runs WHERE kind = 'fault' AND plan LIKE '%;wrappers=1'")" = 5

# The trap is invisible to the program: the workload (threads, fork, vfork, exec, posix_spawn,
# a signal handler, sockets, IPC) and a program that blocks SIGSYS, moves its signal stack and
# ignores SIGSYS print the same with every call trapped.
workload="$ROOT/build/tests/kernel/workload"
trapping="$PROGRAMS/trapping"
trapped() {
    mkdir -p "$work/records"
    LD_PRELOAD="$ROOT/build/libfail-kernel.so" LIBFAIL_DIR="$work/records" LIBFAIL_EXE="*" \
        LIBFAIL_PLAN="mode=kernel;depth=8" "$@"
}
check_equal "the workload prints the same with every system call trapped" \
    "$("$workload" "$work/native" 2>&1; echo "status $?")" \
    "$(trapped "$workload" "$work/trapped" 2>&1; echo "status $?")"
check_equal "blocked SIGSYS, an alternate signal stack, SIGSYS ignored: the same with the trap" \
    "$("$trapping" masks 2>&1; echo "status $?")" "$(trapped "$trapping" masks 2>&1; echo "status $?")"
# Nor is any of its memory locked (as root an mlockall made mlock-random-test's own locks fail:
# they count against the RLIMIT_MEMLOCK it sets, and it expects VmLck 0 at its start).
check_equal "the program's locked memory (VmLck) is what it is without the trap" \
    "$(grep VmLck /proc/self/status)" "$(trapped grep VmLck /proc/self/status)"
for mode in handler seccomp; do
    trapped "$trapping" $mode >"$mode.out" 2>"$mode.err"
    check_equal "a program installing its own $mode: same output" \
        "$("$trapping" $mode)" "$(cat "$mode.out")"
done
check "its own SIGSYS handler: one line says the program falls back to the wrappers" \
    grep -q "^libfail-kernel: the program installs its own SIGSYS handler;.*as with --wrappers" handler.err
check "a seccomp filter: one line says so too" \
    grep -q "^libfail-kernel: the program installs a seccomp filter;.*as with --wrappers" seccomp.err
# A tracer sees every signal of its tracee as a stop, so a traced process is never trapped (the
# kernel's ptrace selftests failed on the SIGSYS stops); nor is a child whose handlers clone3
# reset (CLONE_CLEAR_SIGHAND), whom the next trap would kill.
trapped "$trapping" traced >traced.out 2>traced.err
check_equal "a child that asks to be traced: its tracer sees only the stop it asked for" \
    "$("$trapping" traced)" "$(cat traced.out)"
check "... and the traced child says it falls back to the wrappers" \
    grep -q "^libfail-kernel: the program asks to be traced (PTRACE_TRACEME).*as with --wrappers" traced.err
check_equal "a clone3 child with its signal handlers reset runs and exits 0 with the trap" \
    "$("$trapping" cleared)" "$(trapped "$trapping" cleared 2>&1)"
write_line=$(grep -n 'written after it' "$ROOT/tests/programs/trapping.c" | head -1 | cut -d: -f1)
"$FAILRUN" kernel -q -j 1 --db handler.db -- "$trapping" handler >handler.txt 2>&1
check "after the fallback the wrappers make sites: write() at trapping.c:$write_line" \
    grep -q "^  write() at .*trapping\.c:$write_line " handler.txt

# The workload's sweep: every system call a site, inside libc too.
"$FAILRUN" kernel -q -j 1 --db workload.db -- "$workload" "$work/runs" >workload.txt 2>&1
calls=$(sql workload.db "SELECT count(DISTINCT function) FROM sites")
check "the workload's sites make at least 30 different system calls ($calls)" test "$calls" -ge 30
check "the openat inside fopen is a site" grep -q "^  openat() via fopen() at .*workload\.c:" workload.txt
check "so are the clone3 of pthread_create and of posix_spawn" \
    sh -c "grep -q '^  clone3() via pthread_create() at .*workload\.c:' workload.txt &&
           grep -q '^  clone3() via posix_spawn() at .*workload\.c:' workload.txt"
child_line=$(grep -n 'the child ran' "$ROOT/tests/kernel/workload.c" | cut -d: -f1)
check "and the calls of the new thread (getrandom) and of the executed children" \
    sh -c "grep -q '^  getrandom() at .*workload\.c:' workload.txt &&
           grep -q '^  newfstatat() via printf() at .*workload\.c:$child_line ' workload.txt"
check_equal "every armed run went through: none crashed or hung" \
    "$(sql workload.db "SELECT count(*) FROM runs WHERE kind = 'fault'")" \
    "$(sql workload.db "SELECT count(*) FROM runs WHERE kind = 'fault' AND outcome = 'not-reached'")"
check "plain failrun run does not see system calls (only libfail-kernel.so wraps them)" \
    test "$("$FAILRUN" run -q --json --db plain.db -- "$relay" | jq '[.runs[] | select(.function == "pipe")] | length')" = 0
# A suite of programs (a shell starting each, as the kernel's selftests are run): each program's
# sites are swept in runs of that program alone, not of the whole suite, and every such run armed
# its call (kernel_faults has its read-back).
"$FAILRUN" kernel -q -j 1 --json --db suite.db -- \
    sh -c "'$relay'; '$workload' child one; '$workload' child two" >suite.json 2>suite.err
check_equal "a suite of two programs (one started twice): each runs alone for its sites" 2 \
    "$(jq '.campaign.programs.alone' suite.json)"
check_equal "... and every fault run armed its system call" \
    "$(sql suite.db "SELECT count(*) FROM runs WHERE kind = 'fault'")" \
    "$(sql suite.db "SELECT count(*) FROM kernel_faults k JOIN runs r ON r.id = k.run WHERE r.kind = 'fault'")"
check_equal "each armed call's thread is stored (kmemleak names leaks by it)" 0 \
    "$(sql suite.db "SELECT count(*) FROM kernel_faults WHERE pid IS NULL OR pid <= 1")"
check "... no run of the whole suite" \
    test "$(sql suite.db "SELECT count(*) FROM runs WHERE kind = 'fault' AND owner IS NULL")" = 0
# --vmlinux must be the running kernel's build (its build-id, from /sys/kernel/notes: here a
# notes file made from a program's own build-id note, which is the same format). Another build's
# is refused, naming both ids; the matching one is taken and the kernel's id kept with the
# campaign, for reports made elsewhere later.
objcopy -O binary --only-section=.note.gnu.build-id "$relay" relay.notes
objcopy -O binary --only-section=.note.gnu.build-id "$FAILRUN" other.notes
relay_id=$(readelf -n "$relay" | sed -n 's/^ *Build ID: //p')
other_id=$(readelf -n "$FAILRUN" | sed -n 's/^ *Build ID: //p')
LIBFAIL_KERNEL_NOTES="$work/other.notes" "$FAILRUN" kernel --kcov --vmlinux "$relay" -q -j 1 \
    --db mismatch.db -- "$relay" >/dev/null 2>mismatch.err
check_equal "a vmlinux of another kernel build: exit status 2" 2 $?
check "... naming both build-ids" \
    grep -q "is not the running kernel's vmlinux: its build-id is $relay_id, the kernel's $other_id" mismatch.err
export LIBFAIL_KERNEL_NOTES="$work/relay.notes"
# A campaign is its kernel build's: one left unfinished (killed: no wall time yet) is not resumed
# on another build; --replace starts it over there, with that build's id.
"$FAILRUN" kernel --wrappers -q -j 1 --max-runs 1 --db build.db -- "$relay" >/dev/null 2>&1
sqlite3 build.db "UPDATE campaign SET wall_ms = NULL"
LIBFAIL_KERNEL_NOTES="$work/other.notes" "$FAILRUN" kernel --wrappers -q -j 1 --max-runs 1 \
    --db build.db -- "$relay" >/dev/null 2>build.err
check_equal "an unfinished kernel campaign resumed on another build: exit status 2" 2 $?
check "... naming both builds" \
    grep -q "unfinished campaign made on another kernel build (build-id $relay_id; this kernel's is $other_id)" build.err
LIBFAIL_KERNEL_NOTES="$work/other.notes" "$FAILRUN" kernel --wrappers -q -j 1 --max-runs 1 \
    --replace --db build.db -- "$relay" >/dev/null 2>build.err
check_equal "... --replace starts it over on this build" "$other_id" \
    "$(sql build.db "SELECT kernel_build_id FROM campaign")"
sqlite3 build.db "UPDATE campaign SET wall_ms = NULL"
LIBFAIL_KERNEL_NOTES="$work/other.notes" "$FAILRUN" kernel --wrappers -j 1 --max-runs 1 \
    --db build.db -- "$relay" >/dev/null 2>build.err
check "... and on the same build it resumes" grep -q "resuming the unfinished campaign" build.err
# --once-per-syscall: the campaign's first site of each system call is swept, the others are
# unexplored, with that reason (the plain file answers every N: one run per swept site).
"$FAILRUN" kernel --once-per-syscall -q -j 1 --db once.db -- "$workload" "$work/once" >once.txt 2>&1
check_equal "--once-per-syscall: one run per system call" \
    "$(sql once.db "SELECT count(DISTINCT function) FROM sites")" \
    "$(sql once.db "SELECT count(*) FROM runs WHERE kind = 'fault'")"
check_equal "... each of them a different call" \
    "$(sql once.db "SELECT count(*) FROM runs WHERE kind = 'fault'")" \
    "$(sql once.db "SELECT count(DISTINCT s.function) FROM runs r JOIN sites s ON s.id = r.site WHERE r.kind = 'fault'")"
check_equal "... the other sites unexplored as same-syscall, and said so" \
    "$(sql once.db "SELECT count(*) - count(DISTINCT function) FROM sites") yes" \
    "$(sql once.db "SELECT count(*) FROM sites WHERE unexplored = 'same-syscall'") $(grep -q 'same-syscall' once.txt && echo yes)"
calls=$(sql once.db "SELECT count(DISTINCT function) FROM sites")
check "... the report counts the system calls with sites and those swept ($calls)" \
    grep -q "^  system calls: $calls with sites, $calls of them swept$" once.txt
check "... fewer runs than the full sweep" \
    test "$(sql once.db "SELECT count(*) FROM runs WHERE kind = 'fault'")" -lt \
         "$(sql workload.db "SELECT count(*) FROM runs WHERE kind = 'fault'")"
# failrun kernel's own options are campaign settings: stored, given to every run, compared when
# the same database is used again.
"$FAILRUN" kernel --wrappers --kcov --vmlinux "$relay" -q -j 1 --max-runs 2 --db options.db -- \
    sh -c "env | grep '^LIBFAIL_K' >>'$work/options.env'" >/dev/null 2>options.err
check_equal "--kcov and --vmlinux are stored with the campaign (vmlinux as an absolute path)" \
    "0|1|$relay" "$(sql options.db "SELECT kmem_trace, kcov, vmlinux FROM campaign")"
check_equal "... with the running kernel's build-id" "$relay_id" \
    "$(sql options.db "SELECT kernel_build_id FROM campaign")"
check "every run of a --kcov campaign is told so (LIBFAIL_KCOV=1), none --kmem-trace" \
    sh -c "grep -q '^LIBFAIL_KCOV=1$' options.env && ! grep -q KMEM options.env"
# The same campaign in a database of schema 11 (before these settings), unfinished, with the
# vmlinux a report kept then and a run's KCOV data: migrated, the same command resumes it.
cp options.db old11.db
sql old11.db "ALTER TABLE campaign DROP COLUMN kmem_trace; ALTER TABLE campaign DROP COLUMN kcov;
              ALTER TABLE campaign DROP COLUMN vmlinux; UPDATE campaign SET wall_ms = NULL;
              ALTER TABLE campaign DROP COLUMN syscall_once; ALTER TABLE campaign DROP COLUMN kernel_build_id;
             ALTER TABLE campaign DROP COLUMN every_start; ALTER TABLE runs DROP COLUMN every_start;
             ALTER TABLE campaign DROP COLUMN fail_bookkeeping; ALTER TABLE sites DROP COLUMN bookkeeping;
             ALTER TABLE kernel_faults DROP COLUMN pid;
              CREATE TABLE kernel_meta(key TEXT PRIMARY KEY, value TEXT);
              INSERT INTO kernel_meta VALUES ('vmlinux', '$relay');
              INSERT INTO kernel_cov VALUES ((SELECT min(id) FROM runs), x'00', 0);
              PRAGMA user_version = 11;"
"$FAILRUN" kernel --wrappers --kcov -j 1 --max-runs 2 --db old11.db -- \
    sh -c "env | grep '^LIBFAIL_K' >>'$work/options.env'" >/dev/null 2>old11.err
check_equal "schema 11: the same kernel command resumes its campaign" 0 $?
check "... saying so" grep -q "resuming the unfinished campaign" old11.err
check_equal "... with --kcov and the vmlinux it kept, as settings" "15|0|1|$relay" \
    "$(sql old11.db "SELECT (SELECT user_version FROM pragma_user_version), kmem_trace, kcov,
                            vmlinux FROM campaign")"
# Started over (a finished campaign, the same command) without --vmlinux: the vmlinux stays.
"$FAILRUN" kernel --wrappers --kcov -q -j 1 --max-runs 2 --db old11.db -- \
    sh -c "env | grep '^LIBFAIL_K' >>'$work/options.env'" >/dev/null 2>&1
check_equal "a kernel campaign started over without --vmlinux keeps the one it had" "$relay" \
    "$(sql old11.db "SELECT vmlinux FROM campaign")"
check_equal "... and none of the old runs' KCOV data (run ids start again at 1)" 0 \
    "$(sql old11.db "SELECT count(*) FROM kernel_cov")"
"$FAILRUN" kernel --wrappers --kmem-trace -q -j 1 --max-runs 2 --db options.db -- \
    sh -c "env | grep '^LIBFAIL_K' >>'$work/options.env'" >/dev/null 2>options.err
check_equal "other kernel options on the same database: refused without --replace" 2 $?
check "... naming the fix" grep -q -- "--replace" options.err
"$FAILRUN" kernel --vmlinux "$work/no-such-vmlinux" -- "$relay" >/dev/null 2>options.err
check_equal "--vmlinux of a missing file: exit status 2" 2 $?
check "... saying which" grep -q "no-such-vmlinux" options.err
"$FAILRUN" run --kcov -- "$relay" >/dev/null 2>options.err
check_equal "failrun run --kcov: exit status 2" 2 $?
check "... an unknown option of failrun run, named" \
    grep -q "unknown or ambiguous option --kcov; see \`failrun help run\`" options.err
"$FAILRUN" kernel --help >help.txt
check "failrun kernel --help names the option and the kernel options it needs" \
    grep -q -- "--setup-debugfs.*" help.txt

# failrun cov --kernel-source: each kernel error-leg line with its text, from a kernel tree given
# apart from the folder vmlinux records (the build's, gone). The legs are written into a
# campaign's tables as kernelcov.c writes them, under the path a build folder gives them.
mkdir -p ksrc/fs
awk 'BEGIN { for (i = 1; i <= 40; i++) printf "\tline_%d_of_pipe();\n", i }' >ksrc/fs/pipe.c
sqlite3 kernel.db "INSERT INTO kernel_cov_done VALUES (1, 3);
    INSERT INTO kernel_legs VALUES ('/gone/build/linux-6.1/fs/pipe.c', 10, 1, 'create_pipe_files'),
        ('/gone/build/linux-6.1/fs/pipe.c', 11, 1, 'create_pipe_files'),
        ('/gone/build/linux-6.1/fs/pipe.c', 30, 1, 'free_pipe_info');"
"$FAILRUN" cov --db kernel.db --kernel-source ksrc --json --html cov.html >cov.json 2>cov.err
check_equal "failrun cov --kernel-source: exit status 0" 0 $?
check_equal "each leg line's text is read from the tree, the build's folder stripped" \
    "$work/ksrc/fs/pipe.c|	line_10_of_pipe();|	line_30_of_pipe();" \
    "$(python3 -c 'import json,sys; f = json.load(sys.stdin)["kernel_files"][0]
print("|".join([f["source"], f["lines"][0]["text"], f["lines"][2]["text"]]))' <cov.json)"
check "the HTML shows the legs in their source, with context" grep -q 'line_8_of_pipe' cov.html
check "... and not the lines far from them" test "$(grep -c 'line_20_of_pipe' cov.html)" = 0
check "... with a gap row between two stretches" grep -q '<td class="no">⋯</td>' cov.html
check "... the leg line marked, its runs and function beside it" \
    grep -q '<tr class="kept"><td class="no">30</td><td class="count">1</td><td>	line_30_of_pipe();</td><td class="sites">free_pipe_info</td>' cov.html
"$FAILRUN" cov --db kernel.db --json >nosource.json 2>&1
check "without --kernel-source (the recorded path gone) the HTML says how to give it" \
    sh -c "'$FAILRUN' cov --db kernel.db --html nosource.html >/dev/null 2>&1 && grep -q -- '--kernel-source DIR' nosource.html"
"$FAILRUN" cov --db kernel.db --kernel-source "$work/missing" >/dev/null 2>err
check_equal "--kernel-source of a missing folder: exit status 2" 2 $?
mkdir empty
"$FAILRUN" cov --db kernel.db --kernel-source empty >/dev/null 2>err
check "--kernel-source without the campaign's files: a warning names one" \
    grep -q "holds none of the campaign's 1 kernel source files (/gone/build/linux-6.1/fs/pipe.c" err
