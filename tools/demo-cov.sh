#!/bin/sh
# demo-cov.sh — error-leg coverage of wordfreq (what `make demo-cov` shows): a campaign on the
# classic version, one under --policy nofail, failrun cov's summary with the NOFAIL check, and
# the HTML report and lcov tracefile in build/demo-cov/.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
failrun="$root/build/failrun"
state="$root/build/demo-cov"
rm -rf "$state"
mkdir -p "$state"
cd "$root" || exit 2
program=build/examples/cov/wordfreq-classic
text=examples/wordfreq/sample.txt
echo "==== failrun run -- $program the code absent < $text ===="
"$failrun" run -q --db "$state/all.db" -- "$program" the code absent <"$text" | tail -1
[ $? -le 1 ] || exit 2
echo "==== failrun run --policy nofail -- $program ... ===="
"$failrun" run -q --policy nofail --db "$state/nofail.db" -- "$program" the code absent <"$text" |
    tail -1
echo "==== failrun cov ===="
"$failrun" cov --db "$state/all.db" --nofail-db "$state/nofail.db" \
    --html "$state/wordfreq.html" --lcov "$state/wordfreq.info" || exit $?
for example in kvtest csvstat; do
    echo
    echo "==== failrun run -- build/examples/cov/$example; failrun cov ===="
    input=/dev/null
    [ "$example" = csvstat ] && input=examples/csvstat/sample.csv
    "$failrun" run -q --db "$state/$example.db" -- "build/examples/cov/$example" <"$input" |
        tail -1
    "$failrun" cov --db "$state/$example.db" --html "$state/$example.html" || exit $?
done
echo
echo "HTML report: $state/wordfreq.html (lcov tracefile: $state/wordfreq.info);"
echo "also $state/kvtest.html and $state/csvstat.html"
