#!/bin/sh
# test_shards.sh — a campaign run as 3 shards and merged reports what one unsharded campaign
# reports; the shards' slices are disjoint; merge refuses inputs that do not belong together.
. "$(dirname "$0")/lib.sh"
work=$(scratch)
trap 'rm -rf "$work"' EXIT
cd "$ROOT" || exit 1
suite="make -s -f tests/data/suite.mk check"

"$FAILRUN" run -q --json --db "$work/whole.db" -- $suite >"$work/whole.json"
for k in 1 2 3; do
    "$FAILRUN" run -q --shard $k/3 --db "$work/shard$k.db" -- $suite >/dev/null
done
"$FAILRUN" merge "$work/shard1.db" "$work/shard2.db" "$work/shard3.db" -o "$work/all.db"
check_equal "merge: exit status 0" 0 $?
"$FAILRUN" report --json --db "$work/all.db" >"$work/all.json"

slice() { sql "$work/shard$1.db" "SELECT site FROM runs WHERE kind = 'fault' AND chain NOT LIKE '%,%' ORDER BY site"; }
check_equal "shards: the slices are disjoint and together cover every site" \
    "$(sql "$work/whole.db" "SELECT site FROM runs WHERE kind = 'fault' AND chain NOT LIKE '%,%' ORDER BY site")" \
    "$( (slice 1; slice 2; slice 3) | sort)"
check "shards: each shard ran only part of the campaign" \
    test "$(sql "$work/shard1.db" "SELECT count(*) FROM runs")" -lt "$(sql "$work/whole.db" "SELECT count(*) FROM runs")"
findings='[.findings[] | [.outcome, .signal_name, .location.file, .location.line, .runs]] | sort'
check_equal "merged: the same findings as the unsharded campaign" \
    "$(jq -c "$findings" "$work/whole.json")" "$(jq -c "$findings" "$work/all.json")"
# A site first seen on an error path is explored from the chain of the run that revealed it
# first; a shard sees only its own runs, so it may explore the same site from another chain too
# (doc/guide/distributed.md). The baseline sites' runs and the error-path sites explored
# are the same.
check_equal "merged: the same runs of baseline sites, each with the same outcome" \
    "$(sql "$work/whole.db" "SELECT plan, outcome FROM runs WHERE chain NOT LIKE '%,%' ORDER BY plan")" \
    "$(sql "$work/all.db" "SELECT plan, outcome FROM runs WHERE chain NOT LIKE '%,%' ORDER BY plan")"
check_equal "merged: the same error-path sites explored" \
    "$(sql "$work/whole.db" "SELECT DISTINCT site FROM runs WHERE chain LIKE '%,%' ORDER BY 1")" \
    "$(sql "$work/all.db" "SELECT DISTINCT site FROM runs WHERE chain LIKE '%,%' ORDER BY 1")"

"$FAILRUN" run -q --db "$work/other.db" -- "$EXAMPLES/kvtest" >/dev/null
"$FAILRUN" merge "$work/shard1.db" "$work/other.db" -o "$work/bad.db" 2>"$work/err.txt"
check_equal "merge: another command's campaign is refused with status 2" 2 $?
check "merge: ... and one line saying why" grep -q "another command" "$work/err.txt"
"$FAILRUN" merge "$work/shard1.db" -o "$work/all.db" 2>/dev/null
check_equal "merge: an existing output is never overwritten" 2 $?
check "merge: a refused merge leaves no output behind" test ! -e "$work/bad.db"

# Coverage across shards: a --coverage example as 4 shards driven by GNU parallel (as
# doc/guide/distributed.md shows), failrun cov on each shard, merged: the same findings, outcomes
# and coverage as one unsharded campaign.
cd "$work" || exit 1
program="$EXAMPLES/cov/kvtest"
"$FAILRUN" run -q --json --db cov-whole.db -- "$program" >cov-whole-run.json
"$FAILRUN" cov --json --db cov-whole.db >cov-whole.json
parallel --will-cite -j 2 \
    "'$FAILRUN' run -q --shard {}/4 --db cov-shard{}.db -- '$program' >/dev/null; '$FAILRUN' cov --db cov-shard{}.db >/dev/null" \
    ::: 1 2 3 4
check_equal "parallel: 4 shards ran, each read its coverage" "4" \
    "$(for k in 1 2 3 4; do sql cov-shard$k.db "SELECT count(*) > 0 FROM cov_runs"; done | grep -c 1)"
"$FAILRUN" merge cov-shard1.db cov-shard2.db cov-shard3.db cov-shard4.db -o cov-all.db
check_equal "merge of coverage shards: exit status 0" 0 $?
"$FAILRUN" report --json --db cov-all.db >cov-all-run.json
"$FAILRUN" cov --json --db cov-all.db >cov-all.json
check_equal "merged coverage shards: the same findings" \
    "$(jq -c "$findings" cov-whole-run.json)" "$(jq -c "$findings" cov-all-run.json)"
check_equal "merged coverage shards: the same outcomes" \
    "$(jq -c .outcomes cov-whole.json)" "$(jq -c .outcomes cov-all.json)"
# (Not gcov_files: how many data files gcov had to read, each shard its own first copies.)
check_equal "merged coverage shards: the same coverage summary (lines, branches, runs)" \
    "$(jq -c '[.lines, .branches, (.runs | del(.gcov_files))]' cov-whole.json)" \
    "$(jq -c '[.lines, .branches, (.runs | del(.gcov_files))]' cov-all.json)"
check_equal "merged coverage shards: the same classes line by line" \
    "$(jq -c .files cov-whole.json | md5sum)" "$(jq -c .files cov-all.json | md5sum)"
check_equal "merged coverage shards: the same sites credited (by id, runs, location)" \
    "$(jq -c '[.sites[] | [.id, .runs, .location]] | sort' cov-whole.json)" \
    "$(jq -c '[.sites[] | [.id, .runs, .location]] | sort' cov-all.json)"
check_equal "merged coverage shards: no gcov data left to read (failrun cov removed it)" 0 \
    "$(ls -d "$work"/cov-shard*.files/runs/*.gcov "$work"/cov-shard*.files/runs/gcov.packs \
             "$work"/cov-shard*.files/runs/*/gcov.packs 2>/dev/null | wc -l)"

# A shard whose baseline wrote other bytes than the first shard's (counts that vary from run to
# run): its runs' data files that leaned on its own baseline (stored as differences from it, or
# as its copy) are stored whole in the merged database. Here shard 2's baseline copies are
# made to look different (their hashes changed): stored whole, the counts must come out the
# same, to the line. The shard is one of 2 to 4 with runs that lean on its baseline (which ones
# do, the sites' shards and each data file's shorter encoding decide).
leaning() {
    sql "$1" "SELECT count(*) FROM cov_run_data d, (SELECT min(id) AS id FROM runs
              WHERE kind = 'baseline') b WHERE d.run != b.id AND (d.delta = 1 OR d.source = b.id)"
}
other=$(for k in 2 3 4; do [ "$(leaning cov-shard$k.db)" -gt 0 ] && echo $k; done | head -n 1)
check "a shard (of 2 to 4) has runs stored against its own baseline" test -n "$other"
shards=$(for k in 1 2 3 4; do
             if [ "$k" = "$other" ]; then echo cov-shard${k}x.db; else echo cov-shard$k.db; fi
         done)
cp cov-shard$other.db cov-shard${other}x.db
sql cov-shard${other}x.db "UPDATE cov_run_data SET hash = hash + 1
                    WHERE run = (SELECT min(id) FROM runs WHERE kind = 'baseline')"
# shellcheck disable=SC2086 # the four file names
"$FAILRUN" merge $shards -o cov-allx.db
"$FAILRUN" cov --json --db cov-allx.db --lcov cov-allx.info >cov-allx.json
"$FAILRUN" cov --json --db cov-all.db --lcov cov-all.info >/dev/null
check "a shard with another baseline: its runs' data files are stored whole" \
    test "$(sql cov-allx.db "SELECT count(*) FROM cov_line_hits")" -gt \
         "$(sql cov-all.db "SELECT count(*) FROM cov_line_hits")"
check_equal "... with the same coverage, line by line, as the unsharded campaign" \
    "$(jq -c '[.lines, .branches, .files]' cov-whole.json | md5sum)" \
    "$(jq -c '[.lines, .branches, .files]' cov-allx.json | md5sum)"
check_equal "... and the same counts summed over every run (lcov)" \
    "$(grep -v '^TN:' cov-all.info | md5sum)" "$(grep -v '^TN:' cov-allx.info | md5sum)"

# A suite in shards (a shell running wordfreq twice, the second time on a folder it cannot
# read): each shard checks the first wordfreq alone and keeps that run's coverage, the reference
# of the runs that start it alone (failrun cov reads it as run -program). The merged database
# carries one shard's reference under the program's new id, so its error legs are those of the
# unsharded campaign, main's leg after wf_load included (found only against that reference).
classic="$EXAMPLES/cov/wordfreq-classic"
printf '%s\n' "\"$classic\" the code absent <\"$ROOT/examples/wordfreq/sample.txt\"" \
    "\"$classic\" the <\"$work\"" true >suite.sh
"$FAILRUN" run -q --db wf-whole.db -- sh suite.sh >/dev/null
"$FAILRUN" cov --json --db wf-whole.db >wf-whole.json
for k in 1 2; do
    "$FAILRUN" run -q --shard $k/2 --db wf-shard$k.db -- sh suite.sh >/dev/null
    "$FAILRUN" cov --db wf-shard$k.db >/dev/null
done
# Each shard's check of the first wordfreq alone (its reason, when it does not run alone).
check_equal "suite shards: each shard runs the first wordfreq alone" "yes yes" \
    "$(for k in 1 2; do sql wf-shard$k.db "SELECT alone FROM programs WHERE id = 1"; done |
       tr '\n' ' ' | sed 's/ $//')"
"$FAILRUN" merge wf-shard1.db wf-shard2.db -o wf-all.db
"$FAILRUN" cov --json --db wf-all.db >wf-all.json
check_equal "suite shards: the merged database holds the program's run alone as its reference" \
    "$(sql wf-all.db "SELECT -id FROM programs WHERE alone = 'yes'")" \
    "$(sql wf-all.db "SELECT run FROM cov_runs WHERE run < 0 AND data_files > 0")"
# A shard that owns no run of the program never checks it alone: merged first, its unchecked
# row takes the check of a shard that made it (and that shard's run alone, the reference).
for k in 1 2 3 4 5 6 7 8; do
    "$FAILRUN" run -q --shard $k/8 --db wf-of8-$k.db -- sh suite.sh >/dev/null
done
unchecked=$(for k in 1 2 3 4 5 6 7 8; do
                [ -z "$(sql wf-of8-$k.db "SELECT alone FROM programs WHERE id = 1")" ] && echo $k
            done | head -n 1)
checked=$(for k in 1 2 3 4 5 6 7 8; do
              [ "$(sql wf-of8-$k.db "SELECT alone FROM programs WHERE id = 1")" = yes ] && echo $k
          done | head -n 1)
check "suite in 8 shards: one shard never checked the program, another did" \
    test -n "$unchecked" -a -n "$checked"
"$FAILRUN" merge wf-of8-$unchecked.db wf-of8-$checked.db -o wf-of8.db
check_equal "... merged with the unchecked one first, the program runs alone, its run alone kept" \
    "yes|1" "$(sql wf-of8.db "SELECT alone, alone_dir IS NOT NULL FROM programs ORDER BY id LIMIT 1")"
check_equal "suite shards: the same error-leg lines as the unsharded suite" \
    "$(jq -c '.lines | [.tested, .deletable, .kept]' wf-whole.json)" \
    "$(jq -c '.lines | [.tested, .deletable, .kept]' wf-all.json)"
check_equal "suite shards: main's leg after wf_load is found" "kept kept kept" \
    "$(for line in 15 16 17; do
           jq -r --argjson l $line '.files[] | select(.path | test("classic/main.c"))
               | .lines[] | select(.line == $l) | .class' wf-all.json
       done | tr '\n' ' ' | sed 's/ $//')"
