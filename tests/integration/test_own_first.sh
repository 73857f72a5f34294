#!/bin/sh
# test_own_first.sh — the baseline plan's own=1: a system executable records until a non-system
# program has started in the run (the scope is then every non-system executable, so its sites
# would be dropped), and one started after that records nothing; the non-system program records
# as ever. Driven through the preload directly: the records are what differs.
. "$(dirname "$0")/lib.sh"
work=$(scratch)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
preload="$ROOT/build/libfail-preload.so"
own="$PROGRAMS/spin"

# record DIR OWN COMMAND...: one run of COMMAND in record mode, plan key own=OWN.
record() {
    dir=$1 own_first=$2
    shift 2
    mkdir -p "$dir"
    LIBFAIL_DIR="$work/$dir" LIBFAIL_PLAN="mode=record;depth=8;own=$own_first" LIBFAIL_EXE='*' \
        LD_PRELOAD="$preload" "$@" >/dev/null 2>&1
}
# bytes EXE DIR: the size of the record files of the processes of EXE in DIR (their START
# record names the executable).
bytes() {
    total=0
    for file in "$2"/*.rec; do
        grep -q -a -F "$1" "$file" || continue
        total=$((total + $(stat -c %s "$file")))
    done
    echo "$total"
}
perl=$(readlink -f "$(command -v perl)")
driver='system($ARGV[0]); require File::Temp; require POSIX; require Getopt::Long; require File::Path;'
record all 0 perl -e "$driver" "$own"
record first 1 perl -e "$driver" "$own"
all=$(bytes "$perl" all)
first=$(bytes "$perl" first)
check "a system driver records its modules' loading when own=0 ($all bytes)" test "$all" -gt 100000
check "... and stops once the program it started ran, when own=1 ($first bytes)" \
    test "$((first * 3))" -lt "$all"
check_equal "the non-system program records the same either way" "$(bytes "$own" all)" "$(bytes "$own" first)"
check "it left the marker" test -e first/own-code
check "without own code no marker (own=0)" test ! -e all/own-code

# A system executable started after the program: out of scope from its start, so no site, no
# module record: only its start and end.
record after 1 sh -c "$own; perl -e 'require POSIX'"
check "a system executable started after own code records only its start and end" \
    test "$(bytes "$perl" after)" -le 2048
