#!/bin/sh
# deps.sh — make sure the Debian packages libfail needs are installed.
# As root: installs what is missing (apt-get). Otherwise: names the missing packages and fails.
set -eu
packages="gcc make libc6-dev pkg-config libunwind-dev libdw-dev libelf-dev libsqlite3-dev
libcmocka-dev libjansson-dev lcov jq sqlite3 yajl-tools cmark python3 python3-sarif-python-om cmake
man-db binutils clang libclang-rt-14-dev libjemalloc-dev
libxml2-utils chromium"
missing=""
for package in $packages; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" ||
        missing="$missing $package"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" = 0 ]; then
    echo "deps: installing$missing"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q >/dev/null
    # shellcheck disable=SC2086
    apt-get install -y -q --no-install-recommends $missing >/dev/null
else
    echo "deps: missing Debian packages:$missing" >&2
    echo "deps: install them with: sudo apt-get install$missing" >&2
    exit 2
fi
