#!/bin/sh
# plainsuite.sh — a suite of two programs for tests/integration/test_cov_plain.sh: plainleg
# list, and plainleg parse on a malformed number, whose error message the suite checks (the
# suite's test of the library's error path, run without any fault).
# usage: sh plainsuite.sh PLAINLEG   (the plainleg built with --coverage)
program=$1
status=0
"$program" list >/dev/null || status=1
message=$("$program" parse 12x 2>&1 >/dev/null)
[ "$message" = "plainleg: 12x: not a number (22)" ] || { echo "FAIL: parse" >&2; status=1; }
exit $status
