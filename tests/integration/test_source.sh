#!/bin/sh
# test_source.sh — --source: tests and library in one executable (kvtest = kv.c + kvtest.c);
# only the library's sites are failed and counted, the tests' own are recorded and left out.
. "$(dirname "$0")/lib.sh"
work=$(scratch)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1

"$FAILRUN" run -q --json --db all.db -- "$EXAMPLES/cov/kvtest" >all.json
"$FAILRUN" run -q --json --source kv.c --db src.db -- "$EXAMPLES/cov/kvtest" >src.json
"$FAILRUN" report --db src.db >src.txt
all_runs=$(sql all.db "SELECT count(*) FROM runs WHERE kind = 'fault'")
src_runs=$(sql src.db "SELECT count(*) FROM runs WHERE kind = 'fault'")
check "--source kv.c: fewer fault runs than without it (the tests allocate too)" \
    test "$src_runs" -lt "$all_runs"
check_equal "--source kv.c: every fault run fails a site of kv.c, and only there" "kv.c" \
    "$(sql src.db "SELECT DISTINCT s.source FROM runs r JOIN sites s ON s.id = r.site
                   WHERE r.kind = 'fault'" | sed 's|.*/||' | sort -u)"
outside=$(sql src.db "SELECT count(*) FROM sites WHERE outside_source")
check "--source kv.c: the sites of kvtest.c are recorded, marked outside" test "$outside" -ge 1
check_equal "--source kv.c: the outside sites are all in kvtest.c" "kvtest.c" \
    "$(sql src.db "SELECT DISTINCT source FROM sites WHERE outside_source" | sed 's|.*/||')"
check_equal "--source kv.c: the summary counts only sites in scope" \
    "$(sql src.db "SELECT count(*) FROM sites WHERE NOT outside_source AND first_run = 1")" \
    "$(jq .campaign.sites src.json)"
check_equal "--source kv.c: the report says how many sites --source left out" \
    "$outside" "$(jq .campaign.outside_source_sites src.json)"
check "--source kv.c: ... in the text report too" grep -q "$outside sites left out by --source kv.c" src.txt
check_equal "--source kv.c: no finding's injection site is outside the library" "0" \
    "$(sql src.db "SELECT count(*) FROM findings f JOIN sites s ON s.id = f.site WHERE s.outside_source")"

# The same glob as a path pattern, comma-separated with one that matches nothing.
"$FAILRUN" run -q --source '*/kvstore/kv.c,nothing.c' --db glob.db -- "$EXAMPLES/cov/kvtest" >/dev/null
check_equal "--source '*/kvstore/kv.c,nothing.c': the same sites left out" "$outside" \
    "$(sql glob.db "SELECT count(*) FROM sites WHERE outside_source")"
check_equal "--source: stored with the campaign, ':'-separated" "*/kvstore/kv.c:nothing.c" \
    "$(sql glob.db "SELECT source FROM campaign")"

# Another --source is another campaign: refused without --replace, never silently replaced.
"$FAILRUN" run -q --source kvtest.c --db src.db -- "$EXAMPLES/cov/kvtest" >/dev/null 2>err.txt
check_equal "--source changed: the finished campaign is not replaced (status 2)" 2 $?
check_equal "--source changed: its runs are still there" \
    "$(jq .campaign.runs src.json)" "$(sql src.db "SELECT count(*) FROM runs")"

# failrun cov shows only the files in scope: the campaign's --source, or its own.
"$FAILRUN" cov --json --db src.db >cov.json
check_equal "cov: the campaign's --source restricts the files shown" "kv.c" \
    "$(jq -r '.files[].path' cov.json | sed 's|.*/||' | sort -u | tr '\n' ' ' | sed 's/ $//')"
"$FAILRUN" cov --json --source 'kv*.c' --db src.db >cov-all.json
check_equal "cov --source 'kv*.c': both files" "kv.c kvtest.c" \
    "$(jq -r '.files[].path' cov-all.json | sed 's|.*/||' | sort | tr '\n' ' ' | sed 's/ $//')"
check "cov --source: fewer lines counted with the library alone" \
    test "$(jq .lines.total cov.json)" -lt "$(jq .lines.total cov-all.json)"

# A scope that matches no site's file is said, with a path the glob could be written against.
"$FAILRUN" run -q --source nomatch.c --db none.db -- "$EXAMPLES/cov/kvtest" >/dev/null 2>none.err
check "--source nomatch.c: a warning that it leaves out every site, naming a real source path" \
    grep -q "warning: --source nomatch.c leaves out all [0-9]* sites: .*kvstore/kv" none.err
