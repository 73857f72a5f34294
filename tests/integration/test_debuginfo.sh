#!/bin/sh
# test_debuginfo.sh — a stripped program's crash, first with no debug info anywhere, then with
# its debug file served by a real debuginfod on this machine. Without DEBUGINFOD_URLS the crash
# is named by its function's .eh_frame start (fn_<hex>, the same start as the unstripped
# symbol) and the symboliser's hint gives the build-id; with DEBUGINFOD_URLS the same campaign's
# report names kv_put at the planted line, fetched through elfutils' debuginfod client.
# (debuginfod 0.188 has no listen-address option: it listens on every interface, on a port of
# its own for the few seconds of the test; it is asked on 127.0.0.1 only.)
. "$(dirname "$0")/lib.sh"
work=$(scratch)
server=""
trap '[ -n "$server" ] && kill "$server" 2>/dev/null; rm -rf "$work"' EXIT
cd "$work" || exit 1
PROBE="$ROOT/build/tests/symbolise_probe"
for tool in debuginfod debuginfod-find objcopy strip readelf nm; do
    if ! command -v "$tool" >/dev/null; then
        check "$tool is installed (sh tools/deps.sh)" false
        exit 1
    fi
done
unset DEBUGINFOD_URLS

# kvtest with -g and a build-id, its DWARF split off into served/ (not beside the binary, where
# libdwfl would find it by name), the binary stripped of DWARF and .symtab.
mkdir served
${CC:-cc} -std=c11 -g -O0 -Wl,--build-id -o kvtest.full \
    "$ROOT/examples/kvstore/kv.c" "$ROOT/examples/kvstore/kvtest.c" &&
    objcopy --only-keep-debug kvtest.full served/kvtest.debug &&
    strip --strip-debug --strip-unneeded -o kvtest kvtest.full
check_equal "kvtest built, debug info split off" 0 $?
check "the stripped kvtest has neither DWARF nor .symtab" \
    sh -c "! readelf -S kvtest | grep -qE '\.debug_info|\.symtab'"
build_id=$(readelf -n kvtest | sed -n 's/.*Build ID: *//p')
check "kvtest has a build-id" test -n "$build_id"
# kv_put's and kv_serialise's starts as the unstripped symbol table says, without leading zeros.
start_of() { nm kvtest.full | awk -v f="$1" '$3 == f { sub(/^0+/, "", $1); print $1 }'; }
kv_put=$(start_of kv_put)
kv_serialise=$(start_of kv_serialise)
null_line=$(marker examples/kvstore/kv.c 'BUG(null-deref)' | cut -d: -f2)

# 1. No debug info anywhere: function identity from .eh_frame, and the hint.
"$FAILRUN" run -q --json --db campaign.db -- ./kvtest >plain.json
check_equal "stripped: failrun exits 1 (bugs found)" 1 $?
check_equal "stripped: the null dereference is named by kv_put's FDE start, no file:line" \
    "fn_$kv_put :0" \
    "$(jq -r '.findings[] | select(.signal_name == "SEGV") | "\(.location.function) \(.location.file):\(.location.line)"' plain.json)"
check_equal "stripped: the double free is named by kv_serialise's FDE start" "fn_$kv_serialise" \
    "$(jq -r '.findings[] | select(.signal_name == "ABRT") | .crash_stack[] | select(.module | endswith("/kvtest")) | .function' plain.json | head -n 1)"
"$FAILRUN" report --db campaign.db >plain.txt
check "stripped: the report tells how to get debug info, with the build-id" \
    grep -q "^debug info: no debug info for .*kvtest (build-id $build_id)" plain.txt
"$PROBE" ./kvtest "$kv_put" >probe.out
check "stripped: the symboliser finds no debug info" grep -qx "debug-info no" probe.out
check "stripped: the hint gives the build-id and DEBUGINFOD_URLS" \
    grep -q "^hint no debug info for ./kvtest (build-id $build_id): .*DEBUGINFOD_URLS" probe.out
check "stripped: symboliser_function gives kv_put's start" \
    grep -qx "$kv_put function fn_$kv_put $kv_put" probe.out

# 2. A real debuginfod serving served/ on a free port; ready once it answers for the build-id
# (each try with a fresh client cache: a miss is cached).
port=""
for try in 1 2 3 4 5; do
    candidate=$((20000 + $(od -An -N2 -tu2 /dev/urandom) % 40000))
    debuginfod -F "$work/served" -p "$candidate" -d "$work/debuginfod.sqlite" -c 1 -t 0 -g 0 \
        >"debuginfod.log" 2>&1 &
    server=$!
    for wait in $(seq 1 100); do
        kill -0 "$server" 2>/dev/null || break
        if DEBUGINFOD_URLS="http://127.0.0.1:$candidate" DEBUGINFOD_CACHE_PATH="$work/poll$wait" \
            DEBUGINFOD_TIMEOUT=2 debuginfod-find debuginfo "$build_id" >/dev/null 2>&1; then
            port=$candidate
            break
        fi
        sleep 0.2
    done
    [ -n "$port" ] && break
    kill "$server" 2>/dev/null
    wait "$server" 2>/dev/null
    server=""
done
check "debuginfod started and serves kvtest's debug info" test -n "$port"

# 3. The same campaign's report, now with DEBUGINFOD_URLS: kv_put at the planted line.
DEBUGINFOD_URLS="http://127.0.0.1:$port" DEBUGINFOD_CACHE_PATH="$work/cache" \
    "$FAILRUN" report --json --db campaign.db >served.json
check_equal "debuginfod: report exits 1 (bugs stored)" 1 $?
check_equal "debuginfod: the null dereference is kv_put at kv.c:$null_line" "kv_put kv.c:$null_line" \
    "$(jq -r '.findings[] | select(.signal_name == "SEGV") | "\(.location.function) \(.location.file | sub(".*/"; "")):\(.location.line)"' served.json)"
check "debuginfod: the debug file came through the client's cache" \
    test -s "cache/$build_id/debuginfo"
DEBUGINFOD_URLS="http://127.0.0.1:$port" DEBUGINFOD_CACHE_PATH="$work/cache" \
    "$PROBE" ./kvtest "$kv_put" >probe-served.out
check "debuginfod: the symboliser finds the debug info" grep -qx "debug-info yes" probe-served.out
check "debuginfod: symboliser_function names kv_put at the same start" \
    grep -qx "$kv_put function kv_put $kv_put" probe-served.out

# 4. Unset again: nothing is fetched, even with the cache filled (reports stay offline).
env -u DEBUGINFOD_URLS DEBUGINFOD_CACHE_PATH="$work/cache" \
    "$FAILRUN" report --json --db campaign.db >offline.json
check_equal "unset again: the report is back to fn_<start>" "fn_$kv_put" \
    "$(jq -r '.findings[] | select(.signal_name == "SEGV") | .location.function' offline.json)"
