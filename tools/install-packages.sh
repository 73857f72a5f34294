#!/bin/sh
# install-packages.sh NAME PACKAGE... — make sure these Debian packages are installed; NAME labels
# the messages (deps.sh, deps-kernel.sh). As root: installs what is missing with apt-get.
# Otherwise: names the missing packages and fails. Quick when everything is there: only
# dpkg-query runs.
set -eu
name=$1
shift
missing=""
for package in "$@"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" ||
        missing="$missing $package"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" = 0 ]; then
    echo "$name: installing$missing"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q >/dev/null
    # shellcheck disable=SC2086
    apt-get install -y -q --no-install-recommends $missing >/dev/null
else
    echo "$name: missing Debian packages:$missing" >&2
    echo "$name: install them with: sudo apt-get install$missing" >&2
    exit 2
fi
