#!/bin/sh
# test_sanitizers.sh — targets built with -fsanitize=address,undefined: the preload stacks on
# ASan's allocator, and ASan's reports on error legs (double free, leak) become findings located
# by their own stacks; ASan's strdup, which bypasses malloc, becomes a site of its own.
. "$(dirname "$0")/lib.sh"
work=$(scratch)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
asan="$ROOT/build/tests/asan"
findings() {
    jq -r '.findings[] | "\(.outcome) \(.sanitizer // .signal_name) \(.location.file | sub(".*/examples/"; "examples/")):\(.location.line)"' "$1" | sort
}

"$FAILRUN" run -q --json --db kv.db -- "$asan/kvtest" >kv.json
check_equal "asan kvtest: the baseline passes under the preload" 0 \
    "$(sql kv.db "SELECT baseline_exit FROM campaign")"
# LeakSanitizer also sees the leak of kv_load's error leg, which failrun's own accounting does
# not judge: kvtest exits with an error there, and an error exit may leave blocks live.
check_equal "asan kvtest: the null dereference, ASan's double-free report, LSan's leak" \
    "$(printf '%s\n' "crash SEGV $(marker examples/kvstore/kv.c 'BUG(null-deref)')" \
        "sanitizer attempting double-free $(marker examples/kvstore/kv.c 'BUG(double-free)')" \
        "sanitizer detected memory leaks $(marker examples/kvstore/kv.c 'BUG(oom-leak)')" | sort)" \
    "$(findings kv.json)"

"$FAILRUN" run -q --json --db csv.db -- "$asan/csvstat" <"$ROOT/examples/csvstat/sample.csv" >csv.json
check_equal "asan csvstat: LeakSanitizer's report, at the allocation that leaks" \
    "sanitizer detected memory leaks $(marker examples/csvstat/csv.c 'BUG(leak)')" "$(findings csv.json)"
check "asan csvstat: ASan's strdup (not through malloc) is interposed as a site of its own" \
    test "$(sql csv.db "SELECT count(*) FROM sites WHERE function = 'strdup'")" -ge 1
check_equal "plain csvstat: glibc's strdup goes through malloc, so it is not a site of its own" 0 \
    "$("$FAILRUN" run -q --db plain.db -- "$EXAMPLES/csvstat" <"$ROOT/examples/csvstat/sample.csv" >/dev/null; sql plain.db "SELECT count(*) FROM sites WHERE function = 'strdup'")"
