#!/bin/sh
# test_wrapper.sh — sites made through an allocation wrapper are named after the wrapper's
# caller, and their leaks are told apart by that caller (tests/programs/wrapped.c): my_xmalloc
# by its name and its two callers, grab only with --wrapper grab, and my_xstrdup, which calls
# my_xmalloc, by its name and its two callers too (a wrapper of a wrapper).
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
