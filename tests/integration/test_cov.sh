#!/bin/sh
# test_cov.sh — failrun cov on wordfreq, the example written twice: the classic version's error
# legs are classified exactly as the LEG(...) markers in its source say (deletable: the legs the
# LF_NOFAIL version removed; kept; unreached: no run ran them), a --policy nofail campaign reaches
# none of the deletable lines, and the lcov and HTML outputs hold the same figures.
. "$(dirname "$0")/lib.sh"
work=$(scratch)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
CLASSIC="$EXAMPLES/cov/wordfreq-classic"
NOFAIL="$EXAMPLES/cov/wordfreq-nofail"
TEXT="$ROOT/examples/wordfreq/sample.txt"

# "file:line class" for every line marked /* LEG(class) */ in the given sources, sorted.
markers() {
    for file in "$@"; do
        grep -n -o '/\* LEG([a-z]*) \*/' "$ROOT/examples/wordfreq/$file" |
            sed "s|^\([0-9]*\):/\* LEG(\([a-z]*\)) \*/|$file:\1 \2|"
    done | sort
}
# "file:line" of every line marked UNTAKEN, and of every line failrun cov says holds an error
# reaction (the branch after a failable call) that no run took.
untaken_markers() {
    for file in "$@"; do
        grep -n -F '/* UNTAKEN' "$ROOT/examples/wordfreq/$file" | sed "s|^\([0-9]*\):.*|$file:\1|"
    done | sort
}
untaken() {
    jq -r '.files[] | (.path | sub(".*/examples/wordfreq/"; "")) as $f | .branches[]
           | select(.class == "untaken") | "\($f):\(.line)"' "$1" | sort -u
}
# The same from failrun cov --json: every line it classified deletable, kept or unreached.
classified() {
    jq -r '.files[] | (.path | sub(".*/examples/wordfreq/"; "")) as $f | .lines[]
           | select(.class != "ordinary") | "\($f):\(.line) \(.class)"' "$1" | sort
}

# Runs in the campaign's own folder (no scratch file system), so each leaves its gcov data as
# the folder gcov writes: the checks below give it to gcov itself. From runs in memory (the
# default) failrun keeps it as one pack a run, appended to one file (packed.db below).
LIBFAIL_SCRATCH= "$FAILRUN" run -q --db all.db -- "$CLASSIC" the code absent <"$TEXT" >run.txt
check_equal "classic: the campaign finds no bug (its legs are correct)" 0 $?
"$FAILRUN" run -q --db packed.db -- "$CLASSIC" the code absent <"$TEXT" >/dev/null
kept_as() { # each fault run's gcov data: "folder", "pack" or nothing, a line per run with one
    sql "$1" "SELECT dir FROM runs WHERE kind = 'fault'" | while read -r d; do
        [ -d "$d.gcov" ] && echo folder
        packed_keys "$(dirname "$d")/gcov.packs" | grep -qx "$(basename "$d")" && echo pack
    done
}
packed_runs=$(sql packed.db "SELECT count(*) FROM runs WHERE kind = 'fault'")
check_equal "packed: every fault run kept its gcov data as a pack, none as a folder" \
    "$packed_runs 0" "$(kept_as packed.db | grep -c pack) $(kept_as packed.db | grep -c folder)"
packs_file=$(sql packed.db "SELECT dir FROM runs WHERE kind = 'fault' LIMIT 1" | xargs dirname)/gcov.packs
packs_in_file=$(grep -a -o 'libfail-packs 1 ' "$packs_file" | wc -l)
packs_of_their_own=$(ls "$(dirname "$packs_file")" | grep -c '\.gcov\.pack$')
# The baseline runs in memory too: its pack is in the same file (one more than the fault runs).
check_equal "packed: ... all in one file, one pack a run (the baseline's too), none in a file of its own" \
    "$((packed_runs + 1)) 0" "$packs_in_file $packs_of_their_own"
base_dir=$(sql packed.db "SELECT dir FROM runs WHERE kind = 'baseline'")
check_equal "packed: the baseline's gcov data is a pack beside the fault runs', not a folder" \
    "yes no" "$(packed_keys "$(dirname "$base_dir")/gcov.packs" | grep -qx "$(basename "$base_dir")" && echo yes || echo no) $([ -d "$base_dir.gcov" ] && echo yes || echo no)"
"$FAILRUN" cov --db packed.db --json >packed.json
# failrun cov removes the gcov data it stored; a copy, for the schema-5 database below, which
# a schema-5 failrun left in place.
gcov_folders=$(sql all.db "SELECT dir || '.gcov' FROM runs")
tar -cPf gcov.tar $gcov_folders 2>/dev/null
start=$(date +%s%N)
"$FAILRUN" cov --db all.db --json --lcov all.info --html all.html >all.json
check_equal "cov: exits 0" 0 $?
elapsed_ms=$(( ($(date +%s%N) - start) / 1000000 ))
check_equal "classic: exactly the marked lines are deletable, kept and unreached" \
    "$(markers classic/wordfreq.c classic/main.c)" "$(classified all.json)"
check_equal "packed: read from the packs, every line and branch has the counts and class of the folders'" \
    "$(jq -c '[.lines, .branches, .runs.baseline, .runs.fault, [.files[].lines[]]]' all.json)" \
    "$(jq -c '[.lines, .branches, .runs.baseline, .runs.fault, [.files[].lines[]]]' packed.json)"
check_equal "packed: ... and the packs removed once stored" "" "$(kept_as packed.db)"
check_equal "packed: ... their file too" "" \
    "$(sql packed.db "SELECT DISTINCT dir FROM runs" | xargs -n1 dirname | sort -u |
       while read -r f; do ls -d "$f"/gcov.packs 2>/dev/null; done)"
check_equal "classic: the error reaction no run took is the marked one" \
    "$(untaken_markers classic/wordfreq.c classic/main.c)" "$(untaken all.json)"
runs=$(sql all.db "SELECT count(*) FROM runs")
echo "# wordfreq-classic: $(jq -r '.lines | "error-leg lines tested \(.tested), deletable \(.deletable), kept \(.kept), unreached \(.unreached)"' all.json); failrun cov ${elapsed_ms} ms for $runs runs"
check "every deletable line names the sites that reached it, each NOFAIL-eligible" \
    test "$(jq '[.sites as $s | .files[].lines[] | select(.class == "deletable")
                 | (.sites | length > 0) and all(.sites[]; $s[.].eligible)] | all' all.json)" = true
check "every kept line was reached by a site the policy still fails" \
    test "$(jq '[.sites as $s | .files[].lines[] | select(.class == "kept")
                 | any(.sites[]; $s[.].eligible | not)] | all' all.json)" = true
check_equal "the 64 KiB buffer is the one site too big to be eligible" \
    "malloc 65536" "$(jq -r '.sites[] | select(.eligible | not) | select(.function == "malloc")
                              | "\(.function) \(.size)"' all.json)"
check_equal "gcov's own allocations at exit are never failed" 0 \
    "$(sql all.db "SELECT count(*) FROM runs r JOIN findings f ON f.id = r.finding")"
check_equal "gcov's own allocations are not sites of the campaign" 0 \
    "$(jq '[.sites[] | select(.location.function // "" | test("^_*gcov_"))] | length' all.json)"
check "... nor counted: the report's sites are those of wordfreq's own code" \
    grep -q "^  $(jq '[.sites[] | select(.location.file | test("examples/wordfreq/"))] | length' \
                    all.json) sites, $runs runs" run.txt
check "the summary line counts what the JSON counts" \
    grep -q "error-leg lines: $(jq '.lines.tested' all.json) tested (deletable $(jq '.lines.deletable' all.json), kept $(jq '.lines.kept' all.json)); $(jq '.lines.unreached' all.json) line(s) no run reached" \
    "$(
        "$FAILRUN" cov --db all.db >summary.txt
        echo summary.txt
    )"

# A database of schema 1 (before NOFAIL and coverage) is migrated when opened, not refused.
cp all.db old.db
sql old.db "ALTER TABLE sites DROP COLUMN nofail; ALTER TABLE sites DROP COLUMN name;
            ALTER TABLE campaign DROP COLUMN policy; ALTER TABLE campaign DROP COLUMN nofail_below;
            ALTER TABLE campaign DROP COLUMN kernel; DROP TABLE kernel_faults;
            DROP TABLE cov_runs; ALTER TABLE sites DROP COLUMN unexplored;
            ALTER TABLE runs DROP COLUMN leak_bytes; ALTER TABLE runs DROP COLUMN stdout_hash; ALTER TABLE findings DROP COLUMN bytes;
            ALTER TABLE campaign DROP COLUMN faults; ALTER TABLE sites DROP COLUMN kind;
            ALTER TABLE campaign DROP COLUMN whole_command; ALTER TABLE sites DROP COLUMN owner;
            ALTER TABLE runs DROP COLUMN owner; ALTER TABLE processes DROP COLUMN program;
            ALTER TABLE campaign DROP COLUMN source; ALTER TABLE campaign DROP COLUMN wrappers;
            ALTER TABLE sites DROP COLUMN source; ALTER TABLE sites DROP COLUMN outside_source;
            DROP TABLE programs; DROP TABLE unpreloaded; ALTER TABLE campaign DROP COLUMN returns; ALTER TABLE campaign DROP COLUMN boundary;
             DROP TABLE conventions; DROP TABLE call_conventions; ALTER TABLE runs DROP COLUMN api;
             ALTER TABLE runs DROP COLUMN api_value; ALTER TABLE runs DROP COLUMN api_errno;
             ALTER TABLE runs DROP COLUMN api_verdict; ALTER TABLE runs DROP COLUMN reaction;
             ALTER TABLE runs DROP COLUMN test_case; ALTER TABLE campaign DROP COLUMN test_cases;
             ALTER TABLE campaign DROP COLUMN fork_note; ALTER TABLE campaign DROP COLUMN kmem_trace;
             ALTER TABLE campaign DROP COLUMN kcov; ALTER TABLE campaign DROP COLUMN vmlinux;
             ALTER TABLE campaign DROP COLUMN syscall_once; ALTER TABLE campaign DROP COLUMN kernel_build_id;
             ALTER TABLE campaign DROP COLUMN every_start; ALTER TABLE runs DROP COLUMN every_start;
             ALTER TABLE campaign DROP COLUMN fail_bookkeeping; ALTER TABLE sites DROP COLUMN bookkeeping;
              PRAGMA user_version = 1;"
"$FAILRUN" report --db old.db >/dev/null
check_equal "schema 1: failrun report opens it (exit 0: no bugs)" 0 $?
check_equal "schema 1: migrated to 15, coverage tables added, sites given their kind" "15|1|0" \
    "$(sql old.db "SELECT (SELECT user_version FROM pragma_user_version),
                          (SELECT count(*) FROM sqlite_master WHERE name = 'cov_runs'),
                          (SELECT count(*) FROM sites WHERE kind <> 'alloc')")"
check_equal "failrun cov removed the gcov data it stored" "" \
    "$(for folder in $gcov_folders; do [ -e "$folder" ] && echo "$folder"; done)"
# Schema 6 keeps counts per data file: the coverage a schema-5 failrun read (cov_line_hits
# without its data column) is dropped and read again from the runs' folders (a schema-5
# failrun kept them), to the same figures.
cp all.db old5.db
sql old5.db "DROP TABLE cov_line_hits; DROP TABLE cov_data; DROP TABLE cov_run_data;
             CREATE TABLE cov_line_hits(run INTEGER NOT NULL, file INTEGER NOT NULL,
                                        line INTEGER NOT NULL, count INTEGER NOT NULL);
             ALTER TABLE campaign DROP COLUMN source; ALTER TABLE campaign DROP COLUMN wrappers;
             ALTER TABLE sites DROP COLUMN source; ALTER TABLE sites DROP COLUMN outside_source;
             ALTER TABLE programs DROP COLUMN alone_dir; DROP TABLE unpreloaded; ALTER TABLE campaign DROP COLUMN returns; ALTER TABLE campaign DROP COLUMN boundary;
             DROP TABLE conventions; DROP TABLE call_conventions; ALTER TABLE runs DROP COLUMN api;
             ALTER TABLE runs DROP COLUMN api_value; ALTER TABLE runs DROP COLUMN api_errno;
             ALTER TABLE runs DROP COLUMN api_verdict; ALTER TABLE runs DROP COLUMN reaction;
             ALTER TABLE runs DROP COLUMN test_case; ALTER TABLE campaign DROP COLUMN test_cases;
             ALTER TABLE campaign DROP COLUMN fork_note; ALTER TABLE campaign DROP COLUMN kmem_trace;
             ALTER TABLE campaign DROP COLUMN kcov; ALTER TABLE campaign DROP COLUMN vmlinux;
             ALTER TABLE campaign DROP COLUMN syscall_once; ALTER TABLE campaign DROP COLUMN kernel_build_id;
             ALTER TABLE campaign DROP COLUMN every_start; ALTER TABLE runs DROP COLUMN every_start;
             ALTER TABLE campaign DROP COLUMN fail_bookkeeping; ALTER TABLE sites DROP COLUMN bookkeeping;
             ALTER TABLE kernel_faults DROP COLUMN pid;
             PRAGMA user_version = 5;"
tar -xPf gcov.tar
"$FAILRUN" cov --db old5.db --json >old5.json
check_equal "schema 5: migrated to 15, its coverage read again with the same figures" \
    "15 $(jq -c .lines all.json)" "$(sql old5.db "PRAGMA user_version") $(jq -c .lines old5.json)"

# A campaign that never fails eligible sites: one fault run per remaining site.
"$FAILRUN" run -q --policy nofail --db nofail.db -- "$CLASSIC" the code absent <"$TEXT" >/dev/null
check_equal "--policy nofail: fault runs only at sites that are not eligible" \
    "$(jq '[.sites[] | select(.eligible | not) | select(.runs > 0)] | length' all.json)" \
    "$(sql nofail.db "SELECT count(*) FROM runs WHERE kind = 'fault'")"
"$FAILRUN" cov --db all.db --nofail-db nofail.db --json >check.json
check_equal "cov --nofail-db: passes (exit 0)" 0 $?
check_equal "the NOFAIL campaign reached none of the deletable lines" "true 0" \
    "$(jq -r '.nofail_check | "\(.ok) \(.deletable_reached | length)"' check.json)"
"$FAILRUN" cov --db all.db --nofail-db nofail.db >check.txt
check "the text report says so" grep -q "reached none of the deletable lines" check.txt
# The check can fail: a "NOFAIL" campaign whose threshold is too low to exempt the small sites
# reaches every deletable line of the analysis at the default threshold.
"$FAILRUN" run -q --policy nofail --nofail-below 1 --db loose.db -- "$CLASSIC" the code absent \
    <"$TEXT" >/dev/null
"$FAILRUN" cov --db all.db --nofail-db loose.db --json >loose.json
check_equal "cov --nofail-db: exit 1 when the campaign reached deletable lines" 1 $?
check_equal "... and it lists each deletable line it reached" "$(jq '.lines.deletable' all.json)" \
    "$(jq '.nofail_check.deletable_reached | length' loose.json)"
"$FAILRUN" cov --db all.db --nofail-db loose.db >loose.txt 2>loose.err
check "... warning that the two thresholds differ" grep -q "exempted requests up to 1 bytes" loose.err
# Every site eligible: the NOFAIL campaign fails nothing, so its check checks nothing.
"$FAILRUN" run -q --policy nofail --nofail-below 100000000 --db all-eligible.db -- "$CLASSIC" \
    the code absent <"$TEXT" >/dev/null
"$FAILRUN" cov --db all.db --nofail-below 100000000 --nofail-db all-eligible.db >vacuous.txt \
    2>vacuous.err
check "no fault run: the check says it checked nothing, not that it passed" \
    grep -q "nothing checked: no fault run" vacuous.txt

# lcov tracefile: genhtml renders it; its line counts are the JSON's.
genhtml -q -o lcov-html all.info >/dev/null 2>genhtml.err
check_equal "genhtml renders the lcov tracefile" 0 $?
check "genhtml wrote its index" test -s lcov-html/index.html
check_equal "lcov: one DA line per instrumented line" "$(jq '.lines.total' all.json)" \
    "$(grep -c '^DA:' all.info)"

# Reading: a run's data file whose bytes equal another run's copy (the baseline's, say) is not
# given to gcov; its counts are that run's. Each such file is byte for byte the copy it names,
# some exist (the runs whose failure was absorbed), and the counts summed over every run, read
# again here with gcov on every file of every run, are what the lcov tracefile says, line by
# line. (The runs' gcov data as the campaign left it: failrun cov removed it.)
tar -xPf gcov.tar
same_rows=$(sql all.db "SELECT r.dir || '.gcov' || d.path, s.dir || '.gcov' || d.path
                        FROM cov_run_data x JOIN runs r ON r.id = x.run
                        JOIN runs s ON s.id = x.source JOIN cov_data d ON d.id = x.data
                        WHERE x.source != x.run")
check "some data files were another run's, byte for byte, and left to it" test -n "$same_rows"
check "... each of them really is identical to the copy it names" sh -c '
    echo "$1" | while IFS="|" read -r copy source; do
        cmp -s "$copy" "$source" || exit 1
    done' - "$same_rows"
check "... so fewer files were read than the runs wrote" \
    test "$(jq '.runs.gcov_files' all.json)" -lt "$(jq '.runs.data_files' all.json)"
for dir in $(sql all.db "SELECT dir FROM runs WHERE state = 'done'"); do
    prefix="$dir.gcov"
    for data in $(find "$prefix" -name '*.gcda' -size +0); do
        notes=${data#"$prefix"}
        ln -sf "${notes%.gcda}.gcno" "${data%.gcda}.gcno"
        gcov --json-format --stdout "$data" 2>/dev/null
    done
done | jq -r '.files[] | select(.file | endswith("classic/wordfreq.c")) | .lines[]
              | "\(.line_number) \(.count)"' |
    awk '{ sum[$1] += $2 } END { for (line in sum) print "DA:" line "," sum[line] }' |
    sort >gcov-sums.txt
sed -n '\|^SF:.*classic/wordfreq.c$|,/^end_of_record/p' all.info | grep '^DA:' | sort >lcov-da.txt
check "lcov: every line's count is the sum of gcov's counts over all runs" \
    cmp -s gcov-sums.txt lcov-da.txt
check "... over all of wordfreq.c's lines" test "$(wc -l <lcov-da.txt)" -gt 40

# HTML: self-contained, escaped, with the same counts.
check "html: the summary counts deletable lines as the JSON does" \
    grep -q "id=\"lines-deletable\">$(jq '.lines.deletable' all.json)<" all.html
check "html: no script, no external resource" \
    sh -c '! grep -q -i -E "<script|src=|href=\"?http|@import|url\(" all.html'
check "html: source text is escaped (the <script> and & of main.c's comment)" \
    grep -q 'The HTML coverage report must show this comment escaped: &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; co.' all.html
check "html: deletable lines name their sites, symbolised" \
    grep -q 'class="deletable".*malloc([0-9]*) in wf_add at wordfreq.c:' all.html

# The LF_NOFAIL version: its NOFAIL sites are recorded as such and never failed; no line of it
# is deletable, and its remaining legs are exactly those marked kept or unreached.
if [ -x "$NOFAIL" ]; then
    "$FAILRUN" run -q --db lf.db -- "$NOFAIL" the code absent <"$TEXT" >/dev/null
    check_equal "nofail version: the campaign finds no bug" 0 $?
    nofail_calls=$(grep -c 'LF_NOFAIL)' "$ROOT/examples/wordfreq/nofail/wordfreq.c")
    check_equal "nofail version: each LF_NOFAIL call is a site flagged nofail" "$nofail_calls" \
        "$(sql lf.db "SELECT count(*) FROM sites WHERE nofail")"
    check_equal "nofail version: no run fails a NOFAIL site" 0 \
        "$(sql lf.db "SELECT count(*) FROM runs r JOIN sites s ON s.id = r.site WHERE s.nofail")"
    "$FAILRUN" cov --db lf.db --json >lf.json
    check_equal "nofail version: exactly the marked lines are kept and unreached, none deletable" \
        "$(markers nofail/wordfreq.c nofail/main.c)" "$(classified lf.json)"
    check_equal "nofail version: the error reaction no run took is the marked one" \
        "$(untaken_markers nofail/wordfreq.c nofail/main.c)" "$(untaken lf.json)"
else
    check "the LF_NOFAIL version was built (make all)" false
fi

# The page in a real browser (headless Chromium): it loads, shows the counts failrun computed,
# and logs nothing to the console. A page that does log is caught, so the check can fail.
browse() { # FILE: the DOM on stdout, Chromium's log in browse.log
    profile=$(mktemp -d "$work/chromium.XXXXXX")
    timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
        --disable-background-networking --disable-component-update --disable-sync \
        --user-data-dir="$profile" --enable-logging=stderr --v=0 --dump-dom "file://$1" \
        2>browse.log
}
console_messages() { grep -c ':CONSOLE' browse.log; }
printf '<!DOCTYPE html><title>x</title><script>console.error("control")</script>\n' >control.html
browse "$work/control.html" >/dev/null
check_equal "browser: a page that logs to the console is caught (control)" 1 "$(console_messages)"
browse "$work/all.html" >dom.html
check_equal "browser: the report loads" 0 $?
check_equal "browser: no console message" 0 "$(console_messages)"
for class in tested deletable kept unreached; do
    check_equal "browser: shows the $class line count" "$(jq ".lines.$class" all.json)" \
        "$(sed -n "s/.*id=\"lines-$class\">\([0-9]*\)<.*/\1/p" dom.html)"
done
check_equal "browser: one annotated row per deletable line" "$(jq '.lines.deletable' all.json)" \
    "$(grep -o '<tr class="deletable">' dom.html | wc -l)"
check "browser: both charts are in the page" \
    sh -c 'grep -q "id=\"share-chart\"" dom.html && grep -q "id=\"outcome-chart\"" dom.html'
check "browser: the escaped comment stays text (no script element came from the source)" \
    sh -c '! grep -q "<script" dom.html && grep -q "&lt;script&gt;alert" dom.html'

# Crashing runs keep their coverage: the preload dumps every instrumented module from its
# fatal-signal handler. kvtest has two planted crashes.
"$FAILRUN" run -q --db kv.db -- "$EXAMPLES/cov/kvtest" >/dev/null
check "kvtest: the campaign has crashing runs" \
    test "$(sql kv.db "SELECT count(*) FROM runs WHERE outcome = 'crash'")" -gt 0
"$FAILRUN" cov --db kv.db --json >kv.json
check_equal "kvtest: every crashing run left coverage data" 0 \
    "$(sql kv.db "SELECT count(*) FROM runs r WHERE r.outcome = 'crash' AND NOT EXISTS
                  (SELECT 1 FROM cov_run_data d WHERE d.run = r.id)")"
check_equal "kvtest: cov counts the runs without data" \
    "$(sql kv.db "SELECT count(*) FROM cov_runs WHERE data_files = 0")" \
    "$(jq '.runs.without_data' kv.json)"

# The policy records as stored: failpoint names (as written in the source) and NOFAIL sites.
"$FAILRUN" run -q --json --db policy.db -- "$PROGRAMS/policy" >policy.json 2>/dev/null
check_equal "failpoints: the site is stored under the name the source gives it" \
    "$(sed -n 's/.*LF_FAILPOINT("\([^"]*\)").*/\1/p' "$ROOT/tests/programs/policy.c")" \
    "$(sql policy.db "SELECT name FROM sites WHERE function = 'failpoint'")"
check_equal "LF_NOFAIL sites are flagged, and only they" \
    "$(grep -c 'LF_NOFAIL)' "$ROOT/tests/programs/policy.c")" \
    "$(sql policy.db "SELECT count(*) FROM sites WHERE nofail")"

# --fork: each child's coverage lands where failrun cov reads it, so the classes are the same.
"$FAILRUN" run -q --fork --db fork.db -- "$CLASSIC" the code absent <"$TEXT" >/dev/null
"$FAILRUN" cov --db fork.db --json >fork.json
check_equal "--fork: exactly the marked lines are deletable, kept and unreached, as in re-run mode" \
    "$(markers classic/wordfreq.c classic/main.c)" "$(classified fork.json)"
# Each data file of a run is stored the shorter way: its non-zero counts, or where they differ
# from the baseline's copy. A child forked at its site differs from the baseline in every line
# the baseline ran after that point and it did not: its own counts can be the shorter, and the
# classes above are the same either way.
check "--fork: data files the baseline also has are stored as their own counts where shorter" \
    test "$(sql fork.db "SELECT count(*) FROM cov_run_data d JOIN runs r ON r.id = d.run
                          WHERE r.kind = 'fault' AND d.source = d.run AND d.delta = 0 AND d.data IN
                          (SELECT data FROM cov_run_data x JOIN runs b ON b.id = x.run
                           WHERE b.kind = 'baseline')")" -gt 0
# An nth sweep reaches libgcov's own allocations at exit: failing them is no finding.
"$FAILRUN" run -q --nth-sweep --json --db nth.db -- "$CLASSIC" the code absent <"$TEXT" >nth.json
check_equal "--nth-sweep: no finding in gcov's runtime" 0 \
    "$(jq '[.findings[] | select(.location.function | test("gcov"))] | length' nth.json)"
# A suite: a shell runs wordfreq on the text, then on a folder it cannot read (its read fails,
# main's "cannot read the text" leg runs in the baseline). Each fault run starts the first
# wordfreq alone; compared with the whole suite's counts, main's reaction to wf_load's failure
# ran no more often than in the suite (once each), so its leg would go unseen. Compared with
# that program run alone without a fault (the owner check's run, its gcov data kept), it is
# found: the same error legs as a campaign of that program by itself (its ferror() leg, which
# the folder run ran, is ordinary here).
printf '%s\n' "\"$CLASSIC\" the code absent <\"$TEXT\"" "\"$CLASSIC\" the <\"$work\"" true >suite.sh
"$FAILRUN" run -q --db suite.db -- sh suite.sh >/dev/null
check_equal "suite: the first wordfreq runs alone (its gcov data kept), the other owns no site" \
    "yes|1|1 |0|0" \
    "$(sql suite.db "SELECT p.alone, p.alone_dir IS NOT NULL, count(r.id) > 0 FROM programs p
                     LEFT JOIN runs r ON r.owner = p.id GROUP BY p.id ORDER BY p.id" |
       tr '\n' ' ' | sed 's/ $//')"
suite_alone=$(sql suite.db "SELECT alone_dir FROM programs WHERE alone = 'yes'")
check "suite: the program's run alone left gcov data (packed: it ran in memory)" \
    sh -c "grep -a -q 'libfail-packs 1 $(basename "$suite_alone") [1-9]' '$(dirname "$suite_alone")/gcov.packs'"
"$FAILRUN" cov --db suite.db --json >suite.json
check_equal "suite: its run alone was read as the reference (run -1)" 1 \
    "$(sql suite.db "SELECT data_files > 0 FROM cov_runs WHERE run = -1")"
check "suite: ... and its gcov data removed once stored" test ! -e "$(dirname "$suite_alone")/gcov.packs"
check_equal "suite: exactly the marked error legs are deletable and kept, as alone" \
    "$(markers classic/wordfreq.c classic/main.c | grep -v unreached)" \
    "$(classified suite.json | grep -v unreached)"
# The same runs compared with the whole suite's baseline (the reference taken away): main's
# leg after wf_load, which the folder run also took, is lost.
cp suite.db suite-baseline.db
sql suite-baseline.db "DELETE FROM cov_runs WHERE run < 0; UPDATE programs SET alone_dir = NULL"
"$FAILRUN" cov --db suite-baseline.db --json >suite-baseline.json
check_equal "suite, against the whole suite's baseline: main's leg after wf_load is not found" \
    "ordinary ordinary ordinary" \
    "$(for line in 15 16 17; do
           jq -r --argjson l $line '.files[] | select(.path | test("classic/main.c"))
               | .lines[] | select(.line == $l) | .class' suite-baseline.json
       done | tr '\n' ' ' | sed 's/ $//')"

# Without the baseline's data every reached line would look like an error leg: refused.
cp all.db nobase.db
rm -rf "$(sql nobase.db "SELECT dir FROM runs WHERE kind = 'baseline'").gcov"
sql nobase.db "DELETE FROM cov_runs"
"$FAILRUN" cov --db nobase.db >/dev/null 2>nobase.err
check_equal "no baseline coverage: exit status 2" 2 $?
check "no baseline coverage: says why" grep -q "baseline run .* left no coverage data" nobase.err
