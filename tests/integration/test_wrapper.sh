#!/bin/sh
# test_wrapper.sh — sites made through an allocation wrapper are named after the wrapper's
# caller, and their leaks are told apart by that caller (tests/programs/wrapped.c): my_xmalloc
# by its name and its two callers, grab only with --wrapper grab, and my_xstrdup, which calls
# my_xmalloc, by its name and its two callers too (a wrapper of a wrapper). What a wrapper
# allocates for itself (tests/programs/debugalloc.c) is not failed, unless --fail-bookkeeping.
. "$(dirname "$0")/lib.sh"
work=$(scratch)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
program="$PROGRAMS/wrapped"

"$FAILRUN" run -q --json --db auto.db -- "$program" >auto.json
"$FAILRUN" report --db auto.db >auto.txt
leaks='[.findings[] | select(.outcome == "leak") | .location.function] | sort | join(" ")'
check_equal "wrapper by name: one leak per caller of my_xmalloc and of my_xstrdup; grab's two callers are one" \
    "copy_names copy_tags grab make_list make_pair" "$(jq -r "$leaks" auto.json)"
check_equal "a wrapper of a wrapper: the site is named after its caller, through the outer one" \
    "copy_tags at wrapped.c:$(grep -n 'char \*note = my_xstrdup' "$ROOT/tests/programs/wrapped.c" | cut -d: -f1) (through my_xstrdup)" \
    "$(jq -r '.findings[] | select(.location.function == "copy_tags") | .site_name' auto.json)"
check_equal "wrapper by name: the site is named after the caller, through the wrapper" \
    "make_pair at wrapped.c:$(grep -n 'char \*second = my_xmalloc' "$ROOT/tests/programs/wrapped.c" | cut -d: -f1) (through my_xmalloc)" \
    "$(jq -r '.findings[] | select(.location.function == "make_pair") | .site_name' auto.json)"
check "wrapper by name: the text report names it so" grep -q "(make_list at wrapped.c:[0-9]* (through my_xmalloc))" auto.txt
greet_line=$(grep -n 'char \*name = my_xmalloc' "$ROOT/tests/programs/wrapped.c" | cut -d: -f1)
check_equal "silent through a wrapper: located at the wrapper's caller, not inside the wrapper" \
    "silent greet wrapped.c:$greet_line my_xmalloc" \
    "$(jq -r '.findings[] | select(.outcome == "silent") | "\(.outcome) \(.location.function) \(.location.file | split("/") | last):\(.location.line) \(.through)"' auto.json)"
check "silent: no crash stack in the JSON (nothing crashed)" \
    test "$(jq '[.findings[] | select(.outcome == "silent") | has("crash_stack")] | any' auto.json)" = false
check "silent: the text report's headline names greet's line" \
    grep -q "^[^ ].*silent.*wrapped.c:$greet_line in greet" auto.txt
check_equal "no wrapper: grab's site keeps its own name" "grab" \
    "$(jq -r '.findings[] | select(.location.function == "grab") | .site_name' auto.json | cut -d' ' -f1)"

"$FAILRUN" run -q --json --wrapper grab --db named.db -- "$program" >named.json
check_equal "--wrapper grab: six leaks, one per caller" \
    "copy_names copy_tags fill_one fill_two make_list make_pair" "$(jq -r "$leaks" named.json)"
check_equal "--wrapper grab: named through grab" "fill_two" \
    "$(jq -r '.findings[] | select(.site_name | endswith("(through grab)")) | .location.function' named.json | sort | tail -1)"
check_equal "--wrapper: stored with the campaign" "grab" "$(sql named.db "SELECT wrappers FROM campaign")"
"$FAILRUN" run -q --db named.db -- "$program" >/dev/null 2>&1
check_equal "--wrapper dropped: another campaign, refused without --replace" 2 $?

# A wrapper's own bookkeeping (tests/programs/debugalloc.c): dbg_malloc allocates for its caller
# and logs through dbg_log, which allocates the line; dbg_log's sites get no fault run.
program="$PROGRAMS/debugalloc"
"$FAILRUN" run --json --db debug.db -- "$program" >debug.json 2>debug.err
"$FAILRUN" report --db debug.db >debug.txt
leaks='[.findings[] | select(.outcome == "leak") | .location.function] | sort | join(" ")'
check_equal "bookkeeping: dbg_log is the function that allocates for the wrapper" "dbg_log" \
    "$(jq -r '.campaign.bookkeeping_functions' debug.json)"
marked=$(sql debug.db "SELECT count(*) FROM sites WHERE bookkeeping = 'dbg_log'")
check "bookkeeping: each call of dbg_log (from dbg_malloc's and dbg_free's callers) is marked" \
    test "$marked" -ge 8
check_equal "bookkeeping: the JSON counts the marked sites" "$marked" \
    "$(jq '.campaign.bookkeeping_sites' debug.json)"
check_equal "bookkeeping: no fault run fails a marked site" 0 \
    "$(sql debug.db "SELECT count(*) FROM runs r JOIN sites s ON s.id = r.site
                     WHERE r.kind = 'fault' AND s.bookkeeping IS NOT NULL")"
check_equal "bookkeeping: no block the program asked for is marked (dbg_malloc's, refill's)" 0 \
    "$(sql debug.db "SELECT count(*) FROM sites WHERE bookkeeping IS NOT NULL
                     AND max_size IN (16, 24, 32, 40, 48, 56)")"
check_equal "bookkeeping: the program's own leaks are all found" "make_list make_pair refill" \
    "$(jq -r "$leaks" debug.json)"
source="$ROOT/tests/programs/debugalloc.c"
check_equal "a wrapper of fopen: the silent finding is named after its caller's line" \
    "show_banner at debugalloc.c:$(grep -n 'FILE \*banner = dbg_fopen' "$source" | cut -d: -f1) (through dbg_fopen)" \
    "$(jq -r '.findings[] | select(.location.function == "show_banner") | .site_name' debug.json)"
check_equal "a wrapper a library called back: named at the call into the library" \
    "show_made at debugalloc.c:$(grep -n 'maker_make(dbg_malloc' "$source" | cut -d: -f1) (through maker_make)" \
    "$(jq -r '.findings[] | select(.outcome == "silent" and .through == "maker_make")
              | .site_name' debug.json)"
check_equal "... the silent findings are those two, none for count_lines, which says why" \
    "show_banner show_made" \
    "$(jq -r '[.findings[] | select(.outcome == "silent") | .location.function] | sort | join(" ")' \
        debug.json)"
check "bookkeeping: stderr names the function and the option" \
    grep -q "allocate for the bookkeeping of an allocation wrapper (dbg_log).*--fail-bookkeeping" \
    debug.err
check "bookkeeping: the text report says how many sites were left out and why" \
    grep -q "($marked sites of allocation wrappers' own bookkeeping not failed: dbg_log;" debug.txt
"$FAILRUN" run -q --json --fail-bookkeeping --db all.db -- "$program" >all.json
check_equal "--fail-bookkeeping: the marked sites get their runs too" \
    "$(($(jq '.campaign.runs' debug.json) + marked))" "$(jq '.campaign.runs' all.json)"
check_equal "--fail-bookkeeping: nothing is marked" 0 "$(jq '.campaign.bookkeeping_sites' all.json)"
check_equal "--fail-bookkeeping: failing dbg_log's line finds nothing more" \
    "make_list make_pair refill" "$(jq -r "$leaks" all.json)"
"$FAILRUN" run -q --db all.db -- "$program" >/dev/null 2>&1
check_equal "--fail-bookkeeping dropped: another campaign, refused without --replace" 2 $?
# pool_alloc, named a wrapper, only forwards to refill: refill's sites are the program's.
"$FAILRUN" run -q --json --wrapper pool_alloc --db pool.db -- "$program" >pool.json
check_equal "a wrapper without an allocation of its own: its helper refill is not bookkeeping" \
    "dbg_log" "$(sql pool.db "SELECT group_concat(DISTINCT bookkeeping) FROM sites")"
check_equal "... and refill's two sites have their runs" 2 \
    "$(sql pool.db "SELECT count(*) FROM runs r JOIN sites s ON s.id = r.site
                    WHERE r.kind = 'fault' AND s.bookkeeping IS NULL AND s.max_size IN (48, 56)")"
