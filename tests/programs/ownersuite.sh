#!/bin/sh
# ownersuite.sh — a small test suite driver, as a project's `make check` script might be, for
# tests/integration/test_owner.sh: from the data folder it runs ownertest four ways, reading a
# file, through a pipe it checks, with a token it passes on a descriptor, and from a pipe.
# usage: sh ownersuite.sh PROGRAMS DATA   (PROGRAMS: the folder of the built ownertest)
programs=$1
cd "$2" || exit 2
status=0
"$programs/ownertest" words <words.txt >/dev/null || status=1
expected=$(printf 'alpha\nbeta\ngamma\n3 items')
[ "$("$programs/ownertest" list)" = "$expected" ] || { echo "FAIL: list" >&2; status=1; }
SUITE_TOKEN=s3cret "$programs/ownertest" token 3<token.txt >/dev/null || status=1
printf 'one\ntwo\n' | "$programs/ownertest" count >/dev/null || status=1
exit $status
