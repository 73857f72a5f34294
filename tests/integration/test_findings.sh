#!/bin/sh
# test_findings.sh — what a maintainer reads must be right: wrong output after a warning is a
# bug, a program's own out-of-memory exit (through a panic helper above its allocation wrapper)
# is not, a leak is a block nothing points to (reachable ones are no finding), suppression
# rules hide known bugs and count them, and chains stop at a deliberate exit.
. "$(dirname "$0")/lib.sh"
work=$(scratch)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
P="$PROGRAMS/findings"

"$FAILRUN" run -q --json --db warn.db -- "$P" warn >warn.json
check_equal "a warning then wrong output with status 0: one silent finding at the allocation" \
    "silent findings.c" \
    "$(jq -r '.findings[] | "\(.outcome) \(.location.file | sub(".*/"; ""))"' warn.json)"

# Wrong output of a test program a suite runs (started alone for its fault runs) is
# deduplicated by the function that ignored the failure, whatever each run prints; the
# command's own wrong output by that output (one regex, dozens of allocations, one symptom).
"$FAILRUN" run -q --json --db pair.db -- sh -c "'$P' pair; '$P' pair >/dev/null" >pair.json
check_equal "a suite's program ignoring two failures in one function, two wrong outputs: one finding" \
    "silent 2 pair | silent 2 2" \
    "$(jq -r '[.findings[] | "\(.outcome) \(.runs) \(.location.function)"] | join(",")' pair.json) | $(sql pair.db "SELECT outcome || ' ' || count(DISTINCT stdout_hash) || ' ' || count(owner) FROM runs WHERE outcome = 'silent' GROUP BY outcome")"
"$FAILRUN" run -q --json --db pair1.db -- "$P" pair >pair1.json
check_equal "the command's own two wrong outputs: two findings, one per output" "silent 1,silent 1" \
    "$(jq -r '[.findings[] | "\(.outcome) \(.runs)"] | join(",")' pair1.json)"

"$FAILRUN" run -q --json --db panic.db -- "$P" panic >panic.json
check_equal "panic helper one frame above the wrapper: oom-abort, no finding" "0 1" \
    "$(jq -r '"\(.findings | length) \(.outcomes["oom-abort"])"' panic.json)"
check_equal "the exit path's own allocation is left unexplored, and why" "oom-abort" \
    "$(sql panic.db "SELECT group_concat(DISTINCT unexplored) FROM sites WHERE unexplored IS NOT NULL")"
check_equal "... so the campaign made one run per baseline site and no chain" 0 \
    "$(sql panic.db "SELECT count(*) FROM runs WHERE chain LIKE '%,%'")"

"$FAILRUN" report --db panic.db >panic.txt
check "the report counts the unexplored error-path sites by reason" \
    grep -q "left unexplored, by reason: oom-abort 1" panic.txt
"$FAILRUN" run -q --json --db abort.db -- "$P" abort >abort.json
check_equal "abort() from the panic helper: oom-abort, no crash" "0 1 0" \
    "$(jq -r '"\(.findings | length) \(.outcomes["oom-abort"]) \(.outcomes.crash)"' abort.json)"

# A library's public allocator three layers above malloc that panics (Tcl_Alloc -> Tcl_Panic
# "unable to alloc"): its designed out-of-memory abort, judged by the function's name.
"$FAILRUN" run -q --json --db layered.db -- "$P" layered >layered.json
check_equal "abort() in the library's public allocator, three layers up: oom-abort, no crash" \
    "0 1 0" "$(jq -r '"\(.findings | length) \(.outcomes["oom-abort"]) \(.outcomes.crash)"' layered.json)"

# Under a UTF-8 locale setlocale(LC_ALL, "") reaches glibc 2.36's leak in _nl_find_locale: the
# block is allocated, the allocation fails and the block is lost, all inside the C library. It
# is the library's finding, headlined there, and the default suppressions hide it.
if locale -a 2>/dev/null | grep -qix 'c.utf-\{0,1\}8'; then
    LC_ALL=C.UTF-8 "$FAILRUN" run -q --json --db locale.db --no-default-suppressions -- "$P" locale \
        >locale.json
    check_equal "setlocale's leak inside glibc: the C library's, reached from the program's main" \
        "leak true libc.so.6 main" \
        "$(jq -r '.findings[] | "\(.outcome) \(.system_library) \(.identity | sub("!.*"; "")) \(.location.function)"' locale.json)"
    check "... its identity names the library's function, then the program's" \
        test "$(jq -r '.findings[0].identity' locale.json | grep -c '^libc\.so\.6![^<]*<-findings!main$')" = 1
    "$FAILRUN" report --db locale.db --no-default-suppressions >locale.txt
    check "... and the text report says so" grep -q "^BUG 1: leak in libc.so.6 (system library): " locale.txt
    "$FAILRUN" report --db locale.db --json >locale-default.json
    check_equal "the default suppressions hide it" "0 1 leak:libc.so.6!" \
        "$(jq -r '"\(.findings | length) \(.suppressed) \(.suppressed_findings[0].suppressed_by | sub("!.*"; "!"))"' locale-default.json)"
else
    echo "# no C.UTF-8 locale: the setlocale leak is not checked"
fi

"$FAILRUN" run -q --json --db reachable.db -- "$P" reachable >reachable.json
check_equal "a block kept reachable from a global: no leak, though more blocks stayed live" \
    "0 0" "$(jq -r '"\(.findings | length) \(.leaks.runs)"' reachable.json)"

"$FAILRUN" run -q --json --db lost.db -- "$P" lost >lost.json
check_equal "a block nothing points to: one leak, 48 bytes, at its allocation" \
    "leak 48 findings.c" \
    "$(jq -r '.findings[] | "\(.outcome) \(.bytes) \(.location.file | sub(".*/"; ""))"' lost.json)"
check_equal "the leaking runs' outcome is judged first (absorbed), the leak apart" "absorbed" \
    "$(jq -r '[.runs[] | select(.finding != null) | .outcome] | unique | join(" ")' lost.json)"

# A program's own LeakSanitizer options must not shorten the names of its modules: git's
# test-lib.sh exports LSAN_OPTIONS=strip_path_prefix=<its build folder>/, and the leak scan then
# named the program "findings", a file no symboliser finds: "leak at findings+0x... in ??".
# The command itself, a program a suite runs (started alone), and a suite that prepends its own
# options to what it was given, as test-lib.sh does.
leak_where='.findings[] | "\(.outcome) \(.location.function) \(.location.module | sub(".*/"; "")) \(.location.file | sub(".*/"; ""))"'
LSAN_OPTIONS="strip_path_prefix=$PROGRAMS/" "$FAILRUN" run -q --json --db strip.db -- "$P" lost >strip.json
check_equal "strip_path_prefix in LSAN_OPTIONS: the leak is still named (keeps in findings.c)" \
    "leak keeps findings findings.c" "$(jq -r "$leak_where" strip.json)"
"$FAILRUN" run -q --json --db strip-suite.db -- sh -c \
    "LSAN_OPTIONS=strip_path_prefix=$PROGRAMS/ '$P' lost; '$P' reachable" >strip-suite.json
check_equal "... in a program a suite runs with it" \
    "leak keeps findings findings.c" "$(jq -r "$leak_where" strip-suite.json)"
"$FAILRUN" run -q --json --whole-command --db strip-prepend.db -- sh -c \
    "LSAN_OPTIONS=strip_path_prefix=$PROGRAMS/\${LSAN_OPTIONS:+:\$LSAN_OPTIONS} '$P' lost" >strip-prepend.json
check_equal "... and in a suite that puts it before the options it was given" \
    "leak keeps findings findings.c" "$(jq -r "$leak_where" strip-prepend.json)"
"$FAILRUN" report --db strip-suite.db >strip-suite.txt
check "the text report's headline names the function and line" \
    grep -q "^BUG 1: leak at .*findings.c:[0-9]* in keeps$" strip-suite.txt

"$FAILRUN" run -q --json --db stream.db -- "$P" stream >stream.json
check_equal "a NULL stream given to fputs: the crash is the program's, at the line that passed it" \
    "crash SEGV false $(marker tests/programs/findings.c 'BUG(stream)' | cut -d: -f2)" \
    "$(jq -r '.findings[] | "\(.outcome) \(.signal_name) \(.system_library) \(.location.line)"' stream.json)"
check "... and its crash stack starts inside the C library" \
    test "$(jq -r '.findings[0].crash_stack[0].module' stream.json | sed 's|.*/||')" = libc.so.6

# A call through a function pointer that two failures leave holding no code (NULL, 0x10): the
# preload unwinds from the call's return address; one finding, at the line that called.
"$FAILRUN" run -q --json --db nocode.db -- "$P" nocode >nocode.json
"$FAILRUN" report --db nocode.db >nocode.txt 2>/dev/null
check_equal "a call through a pointer to no code: one crash finding, at the caller's line, both runs" \
    "crash SEGV nocode $(marker tests/programs/findings.c 'CALL(nocode)' | cut -d: -f2) 2" \
    "$(jq -r '.findings[] | "\(.outcome) \(.signal_name) \(.location.function) \(.location.line) \(.runs)"' nocode.json)"
check_equal "... its crash stack: the address called, then the caller and main" "0 nocode main" \
    "$(jq -r '.findings[0] | "\(.non_code_address) \(.crash_stack[1].function) \(.crash_stack[2].function)"' nocode.json)"
check "... and the report says no code was there" \
    grep -q "#0  no code at 0x0: called through a pointer that holds none" nocode.txt

# Suppressions: a rule hides the finding, the report counts it, exit status 0.
printf '# kv_put is known\ncrash:kv_put\n' >kv.supp
"$FAILRUN" run -q --json --db kv.db --suppressions kv.supp -- "$EXAMPLES/kvtest" >kv.json
check_equal "a suppressed finding is listed apart and counted" "crash:kv_put 1" \
    "$(jq -r '"\(.suppressed_findings[0].suppressed_by) \(.suppressed)"' kv.json)"
check "... and is not among the findings" \
    test "$(jq '[.findings[] | select(.location.function == "kv_put")] | length' kv.json)" = 0
"$FAILRUN" report --db kv.db --suppressions kv.supp >kv.txt
check "failrun report says suppressed: 1" grep -q "suppressed: 1" kv.txt
printf 'crash kv_put\n' >bad.supp
"$FAILRUN" report --db kv.db --suppressions bad.supp >/dev/null 2>bad.txt
check_equal "a line that is not a rule: exit 2" 2 $?
check "... naming the file and line" grep -q "bad.supp:1: " bad.txt

# The README's gdb recipe: `env $(failrun replay --print-env SITE -- CMD) CMD` arms the fault
# (the warn mode's failure empties its result line), and the records land in the folder named.
site=$(jq -r '.findings[0].site' warn.json)
"$FAILRUN" replay --db warn.db --print-env "$site:1" -- "$P" warn >env.txt 2>env.err
check "replay --print-env: no line env would split, and no warning" \
    sh -c "! grep -q '[[:space:]]' env.txt && ! grep -q warning env.err"
# shellcheck disable=SC2046
env $(cat env.txt) "$P" warn >armed.out 2>/dev/null
check_equal "replay --print-env: the printed environment arms the fault" "" "$(cat armed.out)"
check "replay --print-env: the run's records are in the folder it names" \
    sh -c "ls \"$(sed -n 's/^LIBFAIL_DIR=//p' env.txt)\"/*.rec >/dev/null"
rm -rf "$(sed -n 's/^LIBFAIL_DIR=//p' env.txt)"

# One function compiled into two modules: the library, and a test program that #includes its
# .c from tests/ (DWARF names that copy tests/../lib/copy.c, as cJSON's tests do). Its bug is
# one finding, reported under the normalised path.
mkdir -p dup/lib dup/tests
cat >dup/lib/copy.c <<'SOURCE'
#include <stdlib.h>
char *copy_first(const char *text)
{
    char *copy = malloc(16);
    copy[0] = text[0]; /* unchecked */
    copy[1] = '\0';
    return copy;
}
SOURCE
printf '#include "../lib/copy.c"\nint main(void) { free(copy_first("a")); return 0; }\n' \
    >dup/tests/direct.c
printf '#include <stdlib.h>\nchar *copy_first(const char *);\nint main(void) { free(copy_first("a")); return 0; }\n' \
    >dup/tests/linked.c
(cd dup && cc -g -O0 -fPIC -shared -o libcopy.so lib/copy.c) &&
    (cd dup/tests && cc -g -O0 -o direct direct.c && cc -g -O0 -o linked linked.c -L.. -lcopy \
        -Wl,-rpath,"$work/dup")
check_equal "the test programs build" 0 $?
(cd dup/tests && "$FAILRUN" run -q --json --db "$work/dup.db" -- sh -c './direct; ./linked') >dup.json
check_equal "a bug in a function compiled into two modules: one finding, seen in both" \
    "1 crash copy_first 2" \
    "$(jq -r '"\(.findings | length) \(.findings[0].outcome) \(.findings[0].location.function) \(.findings[0].runs)"' dup.json)"
check_equal "... reported at lib/copy.c, never at tests/../lib/copy.c" \
    "$work/dup/lib/copy.c" \
    "$(jq -r '[.findings[].location.file, .findings[].injection_stack[].file] | unique
              | map(select(test("copy")))[]' dup.json)"
