#!/bin/sh
# build.sh NAME — fetch (once) the Debian source package of library NAME of libraries.tsv, build
# it and its test programs with --coverage (once), and print the build folder as the last line of
# standard output.
#
# Sources come from `apt-get source`: when apt knows no deb-src entry, this adds
# /etc/apt/sources.list.d/libfail-src.sources (the deb entries of debian.sources as deb-src) and
# runs apt-get update (as root). The newest source version apt knows is taken; if the mirror no
# longer serves it (security updates move), the next one down.
#
# Cache: ${LIBFAIL_SUITES_CACHE:-/var/cache/libfail-suites}/KEY/{src,build,build.log,version},
# KEY = hash of the package version, the library's build columns of libraries.tsv, this script and the
# compiler's version (gcov reads only the .gcno files of its own gcc). A complete build (the file
# KEY/complete) is reused without downloading or building anything. The folders stay where they
# were built: CMake and the .gcno files hold their absolute paths. Concurrent callers wait on a
# lock rather than building twice.
#
# The build: cmake with CFLAGS/CXXFLAGS "--coverage -O0 -g" and the executables linked with
# -Wl,--undefined=__gcov_dump,--export-dynamic-symbol=__gcov_dump, so the preload can dump the
# coverage of a run that dies of a signal (see doc/guide/coverage.md). The library itself is shared
# and built with --coverage too: libgcov's copies register with one list per process, so the
# executable's __gcov_dump writes the library's counts as well.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
cache=${LIBFAIL_SUITES_CACHE:-/var/cache/libfail-suites}
jobs=${LIBFAIL_SUITES_JOBS:-2}
name=${1:?usage: build.sh NAME}

fail() {
    echo "suites-build: $name: $*" >&2
    exit 2
}

line=$(awk -F '\t' -v name="$name" '$1 == name' "$here/libraries.tsv")
[ -n "$line" ] || fail "no such library in $here/libraries.tsv"
package=$(printf '%s\n' "$line" | cut -f2)
subdir=$(printf '%s\n' "$line" | cut -f3)
options=$(printf '%s\n' "$line" | cut -f4)
after_cmake=$(printf '%s\n' "$line" | cut -f5)
compiler=$(cc --version | head -n 1)

# has_deb_src: whether apt has any deb-src entry (one-line or deb822 format).
has_deb_src() {
    grep -Eqs '^[[:space:]]*(deb-src[[:space:]]|Types:.*deb-src)' \
        /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources
}

add_deb_src() {
    [ "$(id -u)" = 0 ] || fail "apt has no deb-src entries; as root, run this once to add them"
    [ -r /etc/apt/sources.list.d/debian.sources ] ||
        fail "no /etc/apt/sources.list.d/debian.sources to mirror as deb-src; add a deb-src line by hand"
    echo "suites-build: adding /etc/apt/sources.list.d/libfail-src.sources (deb-src) and updating" >&2
    sed 's/^Types:[[:space:]]*deb[[:space:]]*$/Types: deb-src/' /etc/apt/sources.list.d/debian.sources \
        >/etc/apt/sources.list.d/libfail-src.sources
    apt-get update -q >/dev/null || fail "apt-get update failed"
}

# versions: the source versions apt knows for the package, newest first.
versions() {
    apt-cache showsrc "$package" 2>/dev/null | sed -n 's/^Version: //p' | sort -u -r -V
}

# key_of VERSION: the cache key, from what the build depends on: the library's first five
# columns (not its source scope or suite command), this script, the compiler.
key_of() {
    (echo "$package $1"; printf '%s\n' "$line" | cut -f1-5; cat "$0"; echo "$compiler") |
        sha256sum | cut -c1-16
}

# try_cached VERSION: print the build folder and stop if that version is built.
try_cached() {
    dir="$cache/$(key_of "$1")"
    if [ -f "$dir/complete" ]; then
        echo "suites-build: $name: cached $package $1 ($dir)" >&2
        echo "$dir/build"
        exit 0
    fi
}

has_deb_src || add_deb_src
list=$(versions)
[ -n "$list" ] || { apt-get update -q >/dev/null 2>&1 || true; list=$(versions); }
[ -n "$list" ] || fail "apt knows no source package $package (apt-cache showsrc $package)"
for version in $list; do
    try_cached "$version"
done

if ! mkdir -p "$cache" 2>/dev/null || [ ! -w "$cache" ]; then
    fail "not built yet and cannot write the cache $cache; set LIBFAIL_SUITES_CACHE to a writable folder"
fi
command -v dpkg-source >/dev/null || fail "dpkg-source is missing (Debian package dpkg-dev)"
command -v cmake >/dev/null || fail "cmake is missing"
exec 9>"$cache/.lock"
flock 9

for version in $list; do
    try_cached "$version" # built by whoever held the lock
    dir="$cache/$(key_of "$version")"
    rm -rf "$dir"
    mkdir -p "$dir/download"
    log="$dir/build.log"
    echo "suites-build: $name: fetching $package $version" >&2
    if ! (cd "$dir/download" && apt-get source -q --download-only "$package=$version") >"$log" 2>&1; then
        echo "suites-build: $name: the mirror does not serve $package $version; trying an older one" >&2
        rm -rf "$dir"
        continue
    fi
    start=$(date +%s)
    dpkg-source -x "$dir/download/"*.dsc "$dir/src" >>"$log" 2>&1 ||
        fail "dpkg-source -x failed; the end of $log:$(echo; tail -n 20 "$log")"
    rm -rf "$dir/download"
    flags="--coverage -O0 -g"
    link="--coverage -Wl,--undefined=__gcov_dump,--export-dynamic-symbol=__gcov_dump"
    echo "suites-build: $name: cmake, make -j$jobs (log: $log)" >&2
    # shellcheck disable=SC2086
    cmake -S "$dir/src/$subdir" -B "$dir/build" -DCMAKE_BUILD_TYPE=Debug \
        -DCMAKE_C_FLAGS="$flags" -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_C_FLAGS_DEBUG= \
        -DCMAKE_CXX_FLAGS_DEBUG= -DCMAKE_EXE_LINKER_FLAGS="$link" $options >>"$log" 2>&1 ||
        fail "cmake failed; the end of $log:$(echo; tail -n 20 "$log")"
    if [ "$after_cmake" != - ]; then
        (cd "$dir/build" && eval "$after_cmake") >>"$log" 2>&1 || fail "after cmake: $after_cmake failed"
    fi
    cmake --build "$dir/build" -j"$jobs" >>"$log" 2>&1 ||
        fail "the build failed; the end of $log:$(echo; tail -n 20 "$log")"
    # Building compiles nothing that runs, but CMake's compiler checks may leave .gcda files.
    find "$dir/build" -name '*.gcda' -delete
    echo "$package $version" >"$dir/version"
    touch "$dir/complete"
    echo "suites-build: $name: built $package $version in $(($(date +%s) - start)) s" >&2
    echo "$dir/build"
    exit 0
done
fail "no version of $package could be downloaded (apt-get source $package; see apt's sources)"
