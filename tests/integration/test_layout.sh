#!/bin/sh
# test_layout.sh — the source tree keeps its layout (tests/layout/check.py): every file in a part,
# no folder over 12 .c files, no file over 900 lines (but the listed ones, which only shrink),
# dependencies between parts that point one way, in includes and in calls, and no circles between
# failrun's files.
. "$(dirname "$0")/lib.sh"

out=$(mktemp)
python3 "$ROOT/tests/layout/check.py" "$ROOT" >"$out" 2>&1
status=$?
check "the layout check passes on this tree" [ "$status" -eq 0 ]
[ "$status" -eq 0 ] || grep '^layout:' "$out" | sed 's/^/    /'
check "the check saw the parts' dependencies (the runner's command line uses the engine)" \
    grep -q '^  injector/cli -> injector/engine: ' "$out"

# The check can fail: a copy of the tree where storage includes the engine, a file is over the
# limit, a listed file grew, a subfolder of the core holds 13 .c files, a file is in no part (in a
# new folder of failrun's, and in a new subfolder of libfail/ that no table names), an object of
# storage calls into the engine, a kind of fault is told by its name, the report holds SQL (a
# statement's text, a call of SQLite), and two files call each other.
dir=$(scratch)
mkdir -p "$dir/tests/layout" "$dir/build"
cp "$ROOT/tests/layout/check.py" "$dir/tests/layout/"
cp -r "$ROOT/libfail" "$ROOT/injector" "$ROOT/coverage" "$dir/"
cp -r "$ROOT/build/obj" "$ROOT/build/pic" "$dir/build/"
printf '#include "engine/campaign_run.h"\n' >>"$dir/injector/store/ingest.c"
awk 'BEGIN { for (i = 0; i < 901; i++) print "/* line */" }' >"$dir/injector/base/long.c"
# The first file of the list of files over the limit (it may only shrink) grows by a line.
listed=$(python3 -B -c "import sys; sys.path.insert(0, '$ROOT/tests/layout'); import check;
print(next(iter(check.OVERSIZE), ''))")
[ -n "$listed" ] && echo '/* one more */' >>"$dir/$listed"
# Fork mode's folder, a folder of the core's part, gets .c files until it holds 13.
n=$(ls "$dir/libfail/fork/"*.c | wc -l)
while [ "$n" -le 12 ]; do
    echo "int one_more_$n;" >"$dir/libfail/fork/one_more_$n.c"
    n=$((n + 1))
done
mkdir -p "$dir/injector/extra" "$dir/libfail/extra"
echo 'int x;' >"$dir/injector/extra/x.c"
echo 'int y;' >"$dir/libfail/extra/y.c"
cat >"$dir/probe.c" <<'PROBE'
void execute_run(void);
void probe(void) { execute_run(); }
PROBE
cc -c -o "$dir/build/obj/injector/store/probe.o" "$dir/probe.c"
cp "$dir/probe.c" "$dir/injector/store/probe.c"
printf 'void ring_b(void);\nvoid ring_a(void) { ring_b(); }\n' >"$dir/injector/base/ring_a.c"
printf '#include <string.h>\nint is_io(const char *k) { return !strcmp(k, "io"); }\n' \
    >"$dir/injector/report/kindname.c"
printf 'int sqlite3_step(void *);\nconst char *q = "SELECT id FROM sites";\nint step(void) { return sqlite3_step(0); }\n' \
    >"$dir/injector/report/query.c"
cc -c -o "$dir/build/obj/injector/report/query.o" "$dir/injector/report/query.c"
printf 'void ring_a(void);\nvoid ring_b(void) { ring_a(); }\n' >"$dir/injector/base/ring_b.c"
for ring in ring_a ring_b; do
    cc -c -o "$dir/build/obj/injector/base/$ring.o" "$dir/injector/base/$ring.c"
done
python3 "$dir/tests/layout/check.py" "$dir" >"$out" 2>&1
check "a broken tree fails the check" [ $? -ne 0 ]
check "... an include of a higher part is named" \
    grep -q 'injector/store/ingest.c (injector/store) includes injector/engine/campaign_run.h (injector/engine)' "$out"
check "... a file over 900 lines is named" \
    grep -q 'injector/base/long.c: 901 lines, more than 900' "$out"
if [ -n "$listed" ]; then
    check "... a listed file that grew is named ($listed)" \
        grep -q "$listed: [0-9]* lines, more than" "$out"
fi
check "... a subfolder of the core with 13 .c files is named" \
    grep -q 'libfail/fork/: 13 .c files, more than 12' "$out"
check "... a file in no part is named" \
    grep -q 'injector/extra/x.c: in no part' "$out"
check "... a file in a new subfolder of libfail/ is in no part, not the core's" \
    grep -q 'libfail/extra/y.c: in no part' "$out"
check "... a call from storage up into the engine is named" \
    grep -q 'injector/store/probe.c (injector/store) uses execute_run of injector/engine/' "$out"
check "... a string compared with a kind's name outside kinds.def is named" \
    grep -q 'injector/report/kindname.c:2: compares a string with the kind name "io"' "$out"
check "... an SQL statement outside storage is named" \
    grep -q 'injector/report/query.c:2: an SQL statement (SELECT ...) outside storage' "$out"
check "... a call of SQLite outside storage is named" \
    grep -q 'injector/report/query.c (injector/report) calls sqlite3_step: only storage' "$out"
check "... two files that call each other are named" \
    grep -q 'in a circle: injector/base/ring_a.c -> injector/base/ring_b.c' "$out"
rm -rf "$dir" "$out"
