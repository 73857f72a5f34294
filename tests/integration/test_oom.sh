#!/bin/sh
# test_oom.sh — the in-process OOM loop of libfail/cmocka.h on the kvstore example's unit tests:
# it fails each allocation of each test in turn and reports, with the pass number, the crash of
# the null dereference, the double-free abort, and the leak of kv_load's error leg, which a
# whole-program campaign does not report (kvtest exits with an error right after it).
. "$(dirname "$0")/lib.sh"
work=$(scratch)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1

"$EXAMPLES/test_kv" >out.txt 2>&1
check_equal "test_kv: all three tests fail, on the planted bugs" 3 $?
check "test_kv: the null dereference is a crash in a numbered pass" \
    grep -Eq "test_put crashed \(signal 11\) in pass [0-9]+, with allocation [0-9]+ failing" out.txt
check "test_kv: the double free is an abort in a numbered pass" \
    grep -Eq "test_serialise crashed \(signal 6\) in pass [0-9]+" out.txt
leak_line=$(marker examples/kvstore/kv.c 'BUG(oom-leak)' | cut -d: -f2)
check "test_kv: the leak names its pass, the failed allocation and the leaked block's line" \
    grep -Eq "test_load: pass [0-9]+ \(allocation [0-9]+ failing: .*\) leaked 1 block\(s\)" out.txt
check "test_kv: ... allocated by kv_load at kv.c:$leak_line" \
    grep -q "allocated by kv_load at .*kv.c:$leak_line" out.txt

"$FAILRUN" run -q --json --db kv.db -- "$EXAMPLES/kvtest" >kv.json
check_equal "whole program: the campaign does not report that leak (kvtest exits with an error)" \
    0 "$(jq --arg line "$leak_line" '[.findings[] | select(.location.line == ($line | tonumber))] | length' kv.json)"

# The complete example of doc/guide/cmocka.md builds and passes, as a user would paste it.
sed -n '/<!-- example: oom-test -->/,/<!-- end example -->/p' "$ROOT/doc/guide/cmocka.md" | sed '1,2d;$d' | sed '$d' >example.c
cc -D_GNU_SOURCE -I "$ROOT/libfail/include" example.c -L "$ROOT/build" \
    -Wl,-rpath,"$ROOT/build" -l:libfail.so -lcmocka -ldl -o example 2>build.txt
check "the cmocka guide's example: compiles against libfail" test -x example
./example >example.txt 2>&1
check_equal "the cmocka guide's example: passes" 0 $?
check "the cmocka guide's example: the OOM pass ran over its one allocation" \
    grep -q "test_join: 1 allocation(s), each failed in turn" example.txt

# The same unit tests with the allocator interposed by the preload instead (LD_PRELOAD wins
# symbol lookup over the linked libfail.so, API included, so the two never disagree).
LD_PRELOAD="$ROOT/build/libfail-preload.so" "$ROOT/build/tests/test_oom" >preload.txt 2>&1
check_equal "test_oom under libfail-preload.so: passes" 0 $?
check "test_oom under libfail-preload.so: the OOM loop ran" grep -q "build_pair: 3 allocation" preload.txt
