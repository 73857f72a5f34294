#!/bin/sh
# reposuite.sh — a suite that creates a repository in a scratch folder it empties first and
# removes when it is done, as git's t/test-lib.sh does with its trash folder: the program that
# creates it finds the folder empty in the suite, and again on its first run alone, but not on a
# second: what its first run left is there. For tests/integration/test_owner.sh.
# usage: sh reposuite.sh PROGRAMS DIR   (PROGRAMS: the folder of the built ownertest)
programs=$1
trash=$2/trash
rm -rf "$trash"
status=0
"$programs/ownertest" init "$trash" >/dev/null || status=1
test -f "$trash/config" || status=1
"$programs/ownertest" list >/dev/null || status=1
rm -rf "$trash"
exit $status
