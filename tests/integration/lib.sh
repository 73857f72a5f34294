# lib.sh — helpers for the integration tests (sourced). Each `check` is one counted test.
# The caller sets RESULTS (a file); each check appends "pass" or "fail" to it.

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
FAILRUN="$ROOT/build/failrun"
PROGRAMS="$ROOT/build/tests/programs"
EXAMPLES="$ROOT/build/examples"
: "${RESULTS:=/dev/null}"

# check DESCRIPTION COMMAND... : passes when COMMAND succeeds.
check() {
    description=$1
    shift
    if "$@"; then
        echo "ok - $description"
        echo pass >>"$RESULTS"
    else
        echo "not ok - $description"
        echo fail >>"$RESULTS"
    fi
}

# check_equal DESCRIPTION EXPECTED ACTUAL
check_equal() {
    if [ "$2" = "$3" ]; then
        echo "ok - $1"
        echo pass >>"$RESULTS"
    else
        echo "not ok - $1"
        echo "    expected: $2"
        echo "    actual:   $3"
        echo fail >>"$RESULTS"
    fi
}

# A fresh folder for one campaign; removed at exit.
scratch() {
    dir=$(mktemp -d "${TMPDIR:-/tmp}/libfail-test.XXXXXX")
    echo "$dir"
}

# sql DB QUERY: one query against a campaign database, rows on stdout.
sql() {
    sqlite3 -batch -noheader "$1" "$2"
}

# The line number of the marker in a source file, as "path:line" relative to the repository.
marker() {
    file=$1
    text=$2
    line=$(grep -n -F "$text" "$ROOT/$file" | cut -d: -f1)
    echo "$file:$line"
}

# packed_keys COLLECTION: the runs whose gcov data a collection of packs holds (failrun keeps a
# run's data that way, injector/base/pack.h: a line "libfail-packs 1 KEY LENGTH" before each
# pack, the last of a key counting, LENGTH 0 a removal), a key a line, sorted.
packed_keys() {
    [ -f "$1" ] || return 0
    grep -a -o 'libfail-packs 1 [^ ]* [0-9]*' "$1" |
        awk '{ last[$3] = $4 } END { for (key in last) if (last[key] > 0) print key }' | sort
}
