#!/bin/sh
# test_faults_io.sh — failrun run --faults io: the I/O calls of the program under test are sites
# (tests/programs/iolegs.c), each fails with its errno and stdio's error indicator, its handled
# legs are told from the one bug (an unchecked fclose losing a report), replay repeats it, the
# NOFAIL policy never exempts an I/O site, failrun cov keeps the legs an I/O failure reaches; and
# a campaign without --faults does not touch I/O at all.
. "$(dirname "$0")/lib.sh"
work=$(scratch)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
program="$PROGRAMS/iolegs"
printf '1\n2\n3\n' >numbers.txt
line_of() { marker tests/programs/iolegs.c "$1" | cut -d: -f2; }

# ---- without --faults: allocations only, the plain preload ----
"$FAILRUN" run -q --db alloc.db -- "$program" numbers.txt >alloc.out
check_equal "default campaign: no I/O call is a site" "0 alloc" \
    "$(sql alloc.db "SELECT (SELECT count(*) FROM sites WHERE kind <> 'alloc') || ' ' || faults FROM campaign")"
check_equal "default campaign: no run's plan fails I/O" 0 \
    "$(sql alloc.db "SELECT count(*) FROM runs WHERE plan LIKE '%faults=%'")"
site=$(sql alloc.db "SELECT id FROM sites LIMIT 1")
"$FAILRUN" replay --db alloc.db --print-env "$site" >alloc.env
check "default campaign: runs preload libfail-preload.so, which has no I/O interposer" \
    sh -c "grep -q '^LD_PRELOAD=.*/libfail-preload.so' alloc.env && ! grep -q preload-io alloc.env &&
           ! nm -D --defined-only '$ROOT/build/libfail-preload.so' | grep -qw fwrite"
rm -rf "$(sed -n 's/^LIBFAIL_DIR=//p' alloc.env)" # the folder --print-env made for the run

# ---- --faults alloc,io ----
"$FAILRUN" run -q --json --db io.db --faults alloc,io -- "$program" numbers.txt >io.json
check_equal "--faults alloc,io: one finding" 1 \
    "$(python3 -c 'import json,sys; print(len(json.load(sys.stdin)["findings"]))' <io.json)"
baseline_io_sites() {
    sql io.db "SELECT function FROM sites WHERE kind = 'io' AND first_run IN
               (SELECT id FROM runs WHERE kind = 'baseline') ORDER BY function" | tr '\n' ' '
}
check_equal "the program's own I/O calls are its sites, and nothing of libc's, failrun's or libfail's" \
    "close fclose fclose fclose fflush fgets fgets fopen fopen fopen fprintf fputs fsync open write " \
    "$(baseline_io_sites)"
check_equal "allocation sites stay sites" 1 \
    "$(sql io.db "SELECT count(*) > 0 FROM sites WHERE kind = 'alloc' AND function = 'malloc'")"
program_module=$(sql io.db "SELECT id FROM modules WHERE path = '$program'")
check_equal "every I/O site starts in the program (never in libfail or libc)" 0 \
    "$(sql io.db "SELECT count(*) FROM sites WHERE kind = 'io'
                  AND json_extract(frames, '\$[0][0]') <> '$program_module'")"
# Outcomes and exit statuses of the single-site runs failing FUNCTION called on the line of
# iolegs.c holding TEXT (the site's first frame, symbolised with addr2line).
outcome_at() { # FUNCTION TEXT
    sql io.db "SELECT r.outcome || ' ' || r.exit_code || ' ' || json_extract(s.frames, '\$[0][1]')
               FROM runs r JOIN sites s ON s.id = r.site
               WHERE r.kind = 'fault' AND s.function = '$1' AND r.chain NOT LIKE '%,%'" |
    while read -r outcome code offset; do
        where=$(addr2line -e "$program" "$(printf '0x%x' $((offset - 1)))")
        where=${where%% *} # "file:line (discriminator N)"
        [ "${where##*:}" = "$(line_of "$2")" ] && echo "$outcome $code"
    done | sort -u | tr '\n' ' ' | sed 's/ $//'
}
check_equal "a failed fopen of the input: its error leg, exit 2" "handled 2" \
    "$(outcome_at fopen 'fopen(argv[1], "r")')"
check_equal "a failed journal write: handled, exit 5" "handled 5" \
    "$(outcome_at write 'write(fd, text')"
check_equal "a failed fsync: the same leg" "handled 5" "$(outcome_at fsync 'fsync(fd)')"
check_equal "fgets failing sets the stream's error indicator: ferror() leg, exit 3" "handled 3" \
    "$(sql io.db "SELECT r.outcome || ' ' || r.exit_code FROM runs r JOIN sites s ON s.id = r.site
                  WHERE s.function = 'fgets' AND r.chain NOT LIKE '%,%' ORDER BY r.id LIMIT 1")"
check_equal "fputs on stdout failing: ferror(stdout) at exit, exit 11" "handled 11" \
    "$(sql io.db "SELECT r.outcome || ' ' || r.exit_code FROM runs r JOIN sites s ON s.id = r.site
                  WHERE s.function = 'fputs' AND r.chain NOT LIKE '%,%'")"
check_equal "fflush of stdout failing: its leg, exit 11" "handled 11" \
    "$(sql io.db "SELECT r.outcome || ' ' || r.exit_code FROM runs r JOIN sites s ON s.id = r.site
                  WHERE s.function = 'fflush' AND r.chain NOT LIKE '%,%'")"
check_equal "an I/O failure never counts as an out-of-memory abort" 0 \
    "$(sql io.db "SELECT count(*) FROM runs r JOIN sites s ON s.id = r.site
                  WHERE s.kind = 'io' AND r.outcome = 'oom-abort'")"
finding=$(python3 -c '
import json, sys
f = json.load(sys.stdin)["findings"][0]
print(f["outcome"], f["kind"], f["function"], f["errno"], f["location"]["line"])' <io.json)
check_equal "the bug: the unchecked fclose loses the report silently" \
    "silent io fclose EIO $(line_of 'BUG: unchecked')" "$finding"
"$FAILRUN" report --db io.db >io.txt
check "the text report names the failed call and its errno" \
    grep -q "injected: fclose failed (EIO) failing at site" io.txt
check "the text report counts the I/O sites" grep -q "sites (15 of them I/O calls)" io.txt
bug_site=$(python3 -c 'import json,sys; print(json.load(sys.stdin)["findings"][0]["site"])' <io.json)
"$FAILRUN" replay --db io.db "$bug_site" >replay.out 2>replay.err
status=$?
check_equal "replay: the program exits 0 and shows no report, the injection is named" \
    "0 0 failrun: injected: fclose failed (EIO) at site $bug_site" \
    "$status $(grep -c count replay.out) $(grep injected replay.err)"

# ---- fork mode: the same outcomes ----
single_site_outcomes() {
    sql "$1" "SELECT s.function || ' ' || r.outcome || ' ' || r.exit_code FROM runs r
              JOIN sites s ON s.id = r.site WHERE r.kind = 'fault' AND r.chain NOT LIKE '%,%'
              ORDER BY s.id"
}
"$FAILRUN" run -q --fork --db fork.db --faults alloc,io -- "$program" numbers.txt >/dev/null
check_equal "--fork --faults alloc,io: each site's outcome as in re-run mode"     "$(single_site_outcomes io.db)" "$(single_site_outcomes fork.db)"
# One child at a time (-j1): the child forked at the unchecked fclose runs on and deletes the
# report its parent then reopens, so the parent ends with status 9. Its children cannot be
# trusted then: every site is re-run, and the outcomes are still those of re-run mode.
"$FAILRUN" run -q -j1 --fork --db fork1.db --faults alloc,io -- "$program" numbers.txt \
    >/dev/null 2>fork1.err
check "--fork -j1: a fork run changed by its children's file deletions is said so" \
    grep -q "children may have changed files it used; every site is re-run" fork1.err
check_equal "--fork -j1 --faults alloc,io: each site's outcome as in re-run mode" \
    "$(single_site_outcomes io.db)" "$(single_site_outcomes fork1.db)"

# ---- --faults io only, and under --policy nofail ----
"$FAILRUN" run -q --db only.db --faults io -- "$program" numbers.txt >/dev/null
check_equal "--faults io: allocations are no sites" "0 io" \
    "$(sql only.db "SELECT (SELECT count(*) FROM sites WHERE kind = 'alloc') || ' ' || faults FROM campaign")"
"$FAILRUN" run -q --db nofail.db --faults alloc,io --policy nofail -- "$program" numbers.txt >/dev/null
check_equal "--policy nofail never exempts an I/O site: each has its run, no small allocation does" \
    "15 0" "$(sql nofail.db "SELECT (SELECT count(DISTINCT r.site) FROM runs r JOIN sites s ON s.id = r.site
                                      WHERE s.kind = 'io' AND r.chain NOT LIKE '%,%'
                                      AND s.first_run = 1) || ' ' ||
                                     (SELECT count(*) FROM runs r JOIN sites s ON s.id = r.site
                                      WHERE s.kind = 'alloc')")"

# ---- one character at a time: getchar, fgetc, getc, putchar, putc, fputc ----
# iochars.c ends with a status of its own for each call whose failure ferror() reports.
printf 'ab' >chars.txt
"$FAILRUN" run -q --json --db chars.db --faults io -- "$PROGRAMS/iochars" chars.txt <chars.txt >chars.json
check_equal "character I/O: each call is a site, failed with its errno and the stream's error indicator" \
    "fgetc EIO handled 22,fputc ENOSPC handled 26,getc EIO handled 23,getchar EIO handled 21,putc ENOSPC handled 25,putchar ENOSPC handled 24" \
    "$(jq -r '[.runs[] | select(.function | test("^(f?getc|getchar|f?putc|putchar)$"))
               | "\(.function) \(.errno) \(.outcome) \(.exit_code)"] | sort | join(",")' chars.json)"

# ---- bad options ----
"$FAILRUN" run -q --db bad.db --faults disk -- "$program" numbers.txt >/dev/null 2>bad.err
check_equal "--faults disk: a usage error naming the choices" "2 1" \
    "$? $(grep -c 'give alloc, io or alloc,io' bad.err)"

# ---- coverage: a leg an I/O failure reaches is kept ----
cov_program="$ROOT/build/tests/cov/iolegs"
"$FAILRUN" run -q --db cov.db --faults alloc,io -- "$cov_program" numbers.txt >/dev/null
"$FAILRUN" cov --db cov.db --json >cov.json
"$FAILRUN" cov --db cov.db >cov.txt
line_class() { # MARKER -> "class io"
    python3 - "$(line_of "$1")" cov.json <<'EOF'
import json, sys
line = int(sys.argv[1])
for f in json.load(open(sys.argv[2]))["files"]:
    if f["path"].endswith("iolegs.c"):
        for item in f["lines"]:
            if item["line"] == line:
                print(item["class"], "io" if item["io"] else "-")
EOF
}
check_equal "cov: the journal's error leg, reached by I/O failures only, is kept because of I/O" \
    "kept io" "$(line_class 'LEG(journal)')"
check_equal "cov: the input's open leg, reached by fopen's small allocation and by its I/O failure, is kept" \
    "kept io" "$(line_class 'LEG(open)')"
check_equal "cov: the small allocation's own leg is deletable" "deletable -" \
    "$(line_class 'LEG(alloc)')"
alloc_leg=$(line_of 'LEG(alloc)')
check "cov: the NOFAIL report lists, per file, the legs that exist only for small allocations" \
    grep -Eq "iolegs.c: $alloc_leg-$((alloc_leg + 1))\$" cov.txt
check "cov: the summary counts the legs kept by an I/O failure" \
    grep -Eq "^error-leg lines: [0-9]+ tested \(deletable [0-9]+, kept [0-9]+, of them [0-9]+ by an I/O failure\)" cov.txt

# libgcov's own writes at exit (the .gcda files of a --coverage build) are no sites: the preload
# lets them through unjudged (no unwind, no record). failrun drops what libgcov's code records
# (instrumentation), so such records are those of the baseline not among the stored sites; an I/O
# call's record has no request size.
"$FAILRUN" run -q --keep-runs --db gcovio.db --faults alloc,io -- "$cov_program" numbers.txt \
    >/dev/null
check_equal "a --coverage build's baseline records its own I/O sites and none of libgcov's" \
    "own I/O sites: yes; libgcov's: 0" "$(python3 - gcovio.db <<'EOF'
import glob, os, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
kinds = dict(db.execute("SELECT id, kind FROM sites"))
folder = db.execute("SELECT dir FROM runs WHERE kind = 'baseline'").fetchone()[0]
own, dropped = 0, 0
for path in glob.glob(os.path.join(folder, "*.rec")):
    data = open(path, "rb").read()
    for at in range(0, len(data) - 511, 512):
        if int.from_bytes(data[at + 4:at + 6], "little") != 3:  # RECORD_SITE
            continue
        signature = "%016x" % int.from_bytes(data[at + 32:at + 40], "little")
        size = int.from_bytes(data[at + 40:at + 48], "little")
        own += kinds.get(signature) == "io"
        dropped += signature not in kinds and size == 0
print("own I/O sites: %s; libgcov's: %d" % ("yes" if own else "no", dropped))
EOF
)"

# csvstat reads with getc, whose failure ends its loop as the end of input does (the column of
# interpose_io.def): the reaction is the ferror() check after the loop, and its leg is kept.
"$FAILRUN" run -q --db csv.db --faults alloc,io -- "$EXAMPLES/cov/csvstat" \
    <"$ROOT/examples/csvstat/sample.csv" >/dev/null
"$FAILRUN" cov --db csv.db --json >csv.json
ferror_leg=$(($(grep -n 'if (ferror(fp))' "$ROOT/examples/csvstat/csv.c" | cut -d: -f1) + 1))
check_equal "cov: csvstat's leg after its getc loop (a failed getc reads like the end) is kept by I/O" \
    "kept io" "$(jq -r --argjson line "$ferror_leg" '.files[] | select(.path | endswith("/csv.c"))
                 | .lines[] | select(.line == $line) | "\(.class) \(if .io then "io" else "-" end)"' csv.json)"
