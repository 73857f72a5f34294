#!/bin/sh
# test_docs.sh — the documentation says what failrun does: the README is one page, its links and
# the manual's resolve, failrun(1) documents every option `failrun help` shows, and every failrun
# command line the README and the guide show names a command that exists with options it takes.
. "$(dirname "$0")/lib.sh"
work=$(scratch)
trap 'rm -rf "$work"' EXIT
cd "$ROOT" || exit 1

lines=$(wc -l <README.md)
check "the README is one page: $lines lines, at most 200" test "$lines" -le 200

# Relative links of the README and the manual's pages, resolved from the page's folder.
: >"$work/broken"
for page in README.md doc/*.md doc/guide/*.md; do
    [ -f "$page" ] || continue
    grep -oE '\]\([^)#]+' "$page" | sed 's/^](//' | grep -vE '^[a-z]+:' | while read -r target; do
        [ -e "$(dirname "$page")/$target" ] || echo "$page -> $target" >>"$work/broken"
    done
done
check "every relative link of the README and the manual resolves" test ! -s "$work/broken"
sed 's/^/    broken: /' "$work/broken"

# The reference (failrun(1)) and `failrun help`: every option of every command is documented.
commands="run report replay merge cov kernel"
for command in $commands; do
    "$FAILRUN" help "$command" | grep -oE '^  (-[a-z], )?--[a-z-]+' | grep -oE -- '--[a-z-]+' |
        sed "s/^/$command /"
done >"$work/help"
grep -oE '\\-\\-[a-z]([a-z]|\\-)*' doc/failrun.1 | sed 's/\\-/-/g' | sort -u >"$work/man"
missing=$(cut -d' ' -f2 "$work/help" | sort -u | comm -23 - "$work/man" | tr '\n' ' ')
check "failrun(1) documents every option of failrun help (missing: ${missing:-none})" \
    test -z "$missing"
check "the help of every command lists options (the check above read them)" \
    test "$(cut -d' ' -f1 "$work/help" | sort -u | wc -l)" -eq 6

# Each failrun command line shown in a code block of the README or the guide: the command exists
# and takes every option the line gives it (failrun kernel takes failrun run's too).
# Commands joined by && are taken one by one.
awk 'FNR == 1 { inside = 0 } /^```/ { inside = !inside; next }
     inside && /^(\$ )?failrun [a-z-]+( |$)/ { sub(/^\$ /, ""); n = split($0, part, / *&& */)
         for (i = 1; i <= n; i++) if (part[i] ~ /^failrun [a-z-]+( |$)/) print FILENAME ": " part[i] }' \
    README.md doc/guide/*.md >"$work/shown"
: >"$work/wrong"
while IFS= read -r shown; do
    line=${shown#*: }
    command=$(echo "$line" | awk '{ print $2 }')
    if ! echo "$commands help" | tr ' ' '\n' | grep -qx "$command"; then
        echo "$shown: no command $command" >>"$work/wrong"
        continue
    fi
    # Options before the program's own arguments (a " -- " or a "|" ends failrun's part).
    options=$(echo "$line" | sed -e 's/ -- .*//' -e 's/ *|.*//' -e 's/ *#.*//' |
              grep -oE '(^| )--[a-z][a-z-]*' | tr -d ' ')
    for option in $options; do
        grep -qx "$command $option" "$work/help" ||
            { [ "$command" = kernel ] && grep -qx "run $option" "$work/help"; } ||
            echo "$shown: $command has no $option" >>"$work/wrong"
    done
done <"$work/shown"
check "the manual shows failrun command lines ($(wc -l <"$work/shown"))" test -s "$work/shown"
check "every failrun command line shown uses a command and options that exist" \
    test ! -s "$work/wrong"
sed 's/^/    /' "$work/wrong"
