#!/bin/sh
# deps.sh — make sure the Debian packages libfail needs are installed (see install-packages.sh).
set -eu
# shellcheck disable=SC2046
exec sh "$(dirname "$0")/install-packages.sh" deps \
    gcc make libc6-dev pkg-config libunwind-dev libdw-dev libelf-dev libsqlite3-dev \
    g++ libcmocka-dev libjansson-dev lcov jq sqlite3 yajl-tools cmark python3 \
    python3-sarif-python-om cmake man-db binutils clang libclang-rt-14-dev libjemalloc-dev \
    libxml2-utils chromium debuginfod libasan8 parallel dpkg-dev valgrind strace
