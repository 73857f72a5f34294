#!/bin/sh
# test_cov_crash.sh — crashing runs keep the coverage of every --coverage module, not only the
# executable's: covcrash (a --coverage program over the --coverage library libcovlib, neither
# linked with an export flag) crashes in every run that fails an allocation, after the
# library's error leg ran. The library's data of those runs must be read and its leg credited.
# With the library stripped (no symbol table, no exported __gcov_dump) it cannot dump: failrun
# cov must say which data file the crashing runs did not write.
. "$(dirname "$0")/lib.sh"
work=$(scratch)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
leg_line=$(grep -n 'LEG(crash)' "$ROOT/tests/programs/libcovlib.c" | cut -d: -f1)

"$FAILRUN" run -q --db crash.db -- "$PROGRAMS/covcrash" >/dev/null
check "covcrash: the fault runs crash" \
    test "$(sql crash.db "SELECT count(*) FROM runs WHERE outcome = 'crash'")" -ge 2
"$FAILRUN" cov -q --db crash.db --json >crash.json 2>crash.err
check_equal "cov: exits 0" 0 $?
check_equal "every crashing run wrote the library's data file" 0 \
    "$(sql crash.db "SELECT count(*) FROM runs r WHERE r.outcome = 'crash' AND NOT EXISTS
                     (SELECT 1 FROM cov_run_data x JOIN cov_data d ON d.id = x.data
                      WHERE x.run = r.id AND d.path LIKE '%libcovlib.so-libcovlib.gcda')")"
check "... and the executable's" \
    test "$(sql crash.db "SELECT count(DISTINCT x.run) FROM cov_run_data x
                          JOIN cov_data d ON d.id = x.data JOIN runs r ON r.id = x.run
                          WHERE r.outcome = 'crash' AND d.path LIKE '%/covcrash.gcda'")" -ge 2
check_equal "the library's error leg is credited to both crashing sites" "deletable 2" \
    "$(jq -r --argjson n "$leg_line" '.files[] | select(.path | endswith("libcovlib.c"))
           | .lines[] | select(.line == $n) | "\(.class) \(.sites | length)"' crash.json)"
check_equal "no warning about modules that did not dump" "" "$(cat crash.err)"

"$FAILRUN" run -q --db stripped.db -- "$PROGRAMS/covcrash-stripped" >/dev/null
"$FAILRUN" cov --db stripped.db --json >stripped.json 2>stripped.err
check_equal "stripped library: cov still exits 0" 0 $?
check "stripped library: the warning names the data file the crashing runs lacked" \
    grep -q "crashing runs did not write 1 data file.*libcovlib-stripped.so-libcovlib.gcda" \
    stripped.err
check_equal "stripped library: the JSON lists it, with the number of crashing runs" \
    "$(sql stripped.db "SELECT count(*) FROM runs WHERE outcome = 'crash'")" \
    "$(jq '.runs.crash_missing[] | select(.data_file | endswith("libcovlib-stripped.so-libcovlib.gcda"))
           | .runs' stripped.json)"
check_equal "stripped library: its error leg was never seen" "unreached" \
    "$(jq -r --argjson n "$leg_line" '.files[] | select(.path | endswith("libcovlib.c"))
           | .lines[] | select(.line == $n) | .class' stripped.json)"

# Inside a suite a fault run starts the program that owns the site alone: a crashing run of
# covcrash never runs kvtest, so kvtest's data files are not missing from it.
"$FAILRUN" run -q --db suite.db -- sh -c "'$PROGRAMS/covcrash'; '$EXAMPLES/cov/kvtest'" >/dev/null
check "suite: covcrash's fault runs crash, started alone" \
    test "$(sql suite.db "SELECT count(*) FROM runs WHERE outcome = 'crash' AND owner IS NOT NULL")" -ge 2
"$FAILRUN" cov --db suite.db --json >suite.json 2>suite.err
check_equal "suite: no data file named missing from the crashing runs of one program alone" \
    "0 " "$(jq '.runs.crash_missing | length' suite.json) $(grep -c 'did not write' suite.err | sed 's/^0$//')"
