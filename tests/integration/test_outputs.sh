#!/bin/sh
# test_outputs.sh — JUnit XML and SARIF 2.1.0 for CI systems: well-formed, complete, and saying
# what the report says.
. "$(dirname "$0")/lib.sh"
work=$(scratch)
trap 'rm -rf "$work"' EXIT
cd "$ROOT" || exit 1
# Run from the source root, so SARIF can name files relative to it.
"$FAILRUN" run -q --json --junit "$work/junit.xml" --sarif "$work/out.sarif" --db "$work/kv.db" \
    -- build/examples/kvtest >"$work/kv.json"
cd "$work" || exit 1
check "junit: well-formed XML (xmllint)" xmllint --noout junit.xml
runs=$(sql kv.db "SELECT count(*) FROM runs WHERE kind = 'fault'")
bugs=$(sql kv.db "SELECT count(*) FROM runs WHERE finding IS NOT NULL")
check_equal "junit: one test case per fault run" "$runs" \
    "$(xmllint --xpath 'count(//testcase)' junit.xml)"
check_equal "junit: a failure for each run that found a bug" "$bugs" \
    "$(xmllint --xpath 'count(//testcase/failure)' junit.xml)"
check_equal "junit: the suite's failure count agrees" "$bugs" \
    "$(xmllint --xpath 'string(//testsuite/@failures)' junit.xml)"
check "junit: a failure names the null dereference's line" \
    grep -q "kv.c:$(marker examples/kvstore/kv.c 'BUG(null-deref)' | cut -d: -f2) in kv_put" junit.xml

check_equal "junit: each test case named by the place its site failed, as \"f at file.c:N\"" "$runs" \
    "$(xmllint --xpath '//testcase/@name' junit.xml | grep -c ' name="[a-z_]* at [a-z_]*\.c:[0-9]*')"

# report --sites: every fault run by the place of its site, with its outcome and finding.
"$FAILRUN" report --sites --db kv.db >sites.txt
check_equal "report --sites: a line per fault run" "$runs" "$(grep -c '^  [0-9a-f]\{16\} ' sites.txt)"
check "report --sites: the null dereference's site with its finding" \
    grep -q "crash  *#[0-9]*  *kv_put at kv.c:" sites.txt
check "report --sites with --json is refused" \
    sh -c "! '$FAILRUN' report --sites --json --db kv.db >/dev/null 2>&1"

check "sarif: valid against the SARIF 2.1.0 object model" /usr/bin/python3 "$ROOT/tests/integration/check_sarif.py" out.sarif
printf '{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"x","colour":"red"}}}]}' >bad.sarif
check "sarif: the checker rejects a property SARIF does not have" \
    sh -c "! /usr/bin/python3 '$ROOT/tests/integration/check_sarif.py' bad.sarif >/dev/null"
check_equal "sarif: one result per finding" "$(jq '.findings | length' kv.json)" \
    "$(jq '.runs[0].results | length' out.sarif)"
check_equal "sarif: results located at the planted lines, relative to the source root" \
    "$(printf '%s\n' "$(marker examples/kvstore/kv.c 'BUG(double-free)')" "$(marker examples/kvstore/kv.c 'BUG(null-deref)')" | sort)" \
    "$(jq -r '.runs[0].results[].locations[0].physicalLocation | "\(.artifactLocation.uri):\(.region.startLine)"' out.sarif | sort)"
check_equal "sarif: injection and crash stacks as two code flows per result" "2 2" \
    "$(jq -r '[.runs[0].results[] | .codeFlows | length] | map(tostring) | join(" ")' out.sarif)"
check_equal "sarif: a code flow ends at the innermost frame" "kv_put" \
    "$(jq -r '[.runs[0].results[] | select(.ruleId == "crash") | .codeFlows[0].threadFlows[0].locations[-1].location.logicalLocations[0].name][0]' out.sarif)"

"$FAILRUN" report --db "$work/kv.db" --junit again.xml --sarif again.sarif >/dev/null
check "report: writes the same JUnit from the database" cmp -s junit.xml again.xml
check "report: writes the same SARIF from the database" cmp -s out.sarif again.sarif
