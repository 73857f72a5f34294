#!/bin/sh
# test_manysites.sh — a program with more sites than the near part of the preload's site index
# holds (manysites.c: 6,000 sites, 4,096 near slots): every site is seen once, and a site is found
# again at its second occurrence wherever it lives in the index.
. "$(dirname "$0")/lib.sh"
work=$(scratch)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
many="$PROGRAMS/manysites"

"$FAILRUN" run -q --max-runs 1 --db many.db -- "$many" >many.out 2>many.err
check_equal "6,000 sites with distinct stacks: the baseline records each once" 6000 \
    "$(sql many.db "SELECT count(*) FROM sites WHERE max_size = 4093")"
# The last sites seen came when the near part was full or nearly: most live in the far part.
sites=$(sql many.db "SELECT id FROM sites WHERE max_size = 4093 ORDER BY rowid DESC LIMIT 4;
                     SELECT id FROM sites WHERE max_size = 4093 ORDER BY rowid LIMIT 2 OFFSET 3000")
check_equal "six sites to replay" 6 "$(echo "$sites" | wc -l)"
found=0
for site in $sites; do
    "$FAILRUN" replay --db many.db "$site:2" -- "$many" >replay.out 2>replay.err
    [ $? = 1 ] && grep -q "failed in pass 2" replay.err && found=$((found + 1))
done
check_equal "each fails at its second occurrence, in the second pass" 6 "$found"
