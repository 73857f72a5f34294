#!/bin/sh
# test_gcovdata.sh — failrun cov reads gcov data in process (coverage/gcovdata.c), not with
# gcov: the reader must give gcov's own numbers. The programs built with --coverage run here
# (loops, branches, a test-case runner, two object files each), their data files are written
# under a prefix as failrun's runs write them, and build/tests/gcovdata_compare checks every
# line's count, every branch's and every function's lines against `gcov --json-format -b`. A
# data file cut short (a process killed while writing it) is refused, not read as zeros.
. "$(dirname "$0")/lib.sh"
work=$(scratch)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
compare="$ROOT/build/tests/gcovdata_compare"

run() { # PREFIX COMMAND...: run it with its gcov data under PREFIX
    prefix=$1
    shift
    GCOV_PREFIX="$work/$prefix" GCOV_PREFIX_STRIP=0 "$@" >/dev/null 2>&1
}
run wordfreq "$EXAMPLES/cov/wordfreq-classic" "$ROOT/examples/wordfreq/sample.txt"
run kvtest "$EXAMPLES/cov/kvtest"
run csvstat "$EXAMPLES/cov/csvstat" <"$ROOT/examples/csvstat/sample.csv"
run testcases "$ROOT/build/tests/cov/testcases"
run plainleg "$ROOT/build/tests/cov/plainleg"
# gcov looks for the .gcno beside the data file: link each in, as failrun cov once did.
find "$work" -name '*.gcda' | while read -r data; do
    notes=${data#"$work"/*/}
    ln -sf "/${notes%.gcda}.gcno" "${data%.gcda}.gcno"
done
files=$(find "$work" -name '*.gcda' | sort)
count=$(echo "$files" | grep -c .)
check_equal "the programs wrote their data (8 object files)" 8 "$count"
# shellcheck disable=SC2086
"$compare" $files >compare.txt 2>&1
check_equal "every data file: the reader's counts are gcov's" 0 $?
check "... 8 files, with lines, branches and functions in them" \
    grep -Eq "^8 data file\(s\) equal, 0 different \([1-9][0-9]+ lines, [1-9][0-9]* branches, [1-9][0-9]* functions compared\)" compare.txt

cut=$(echo "$files" | head -n 1)
head -c 100 "$cut" >"$work/cut.gcda"
ln -sf "$(readlink "${cut%.gcda}.gcno")" "$work/cut.gcno"
"$compare" "$work/cut.gcda" >cut.txt 2>&1
check_equal "a data file cut short: refused (the checker reports it)" 1 $?
check "... saying why" grep -q "corrupted data file" cut.txt
