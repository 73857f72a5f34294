#!/bin/sh
# test_fixtures.sh — a suite's fixtures are not under test. A harness starts a server
# (tests/programs/fixture_server.c: it listens on a socket and serves until it is killed), runs
# the program under test against it (fixture_client.c) and stops it. By default the server is
# out of scope, and the report's scope line says so and why; --exe brings it back. A program
# that listens but ends by itself (a test that talks to itself) stays under test, and a fixture
# that daemonises (daemon.c: fork, setsid, fork) is one too.
. "$(dirname "$0")/lib.sh"
work=$(scratch)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
server="$PROGRAMS/fixture_server"
client="$PROGRAMS/fixture_client"

# harness.sh SERVER-MODE: the server in the background, the client, then the server stopped.
cat >harness.sh <<SCRIPT
#!/bin/sh
socket=\$(mktemp -u "\${TMPDIR:-/tmp}/fixture.XXXXXX")
"$server" "\$socket" \$1 &
server=\$!
tries=0
while [ ! -S "\$socket" ] && [ \$tries -lt 400 ]; do sleep 0.05; tries=\$((tries + 1)); done
"$client" "\$socket"
status=\$?
[ "\$1" = once ] || kill \$server
wait \$server 2>/dev/null
rm -f "\$socket"
exit \$status
SCRIPT
chmod +x harness.sh
check "the harness passes on its own" sh -c './harness.sh >/dev/null'

site_exes='[.sites[].exe // empty] | unique | map(split("/") | last) | join(" ")'
"$FAILRUN" run --json --db default.db -- ./harness.sh >default.json 2>default.err
check_equal "default scope: the server is a fixture, with why" \
    "$server|served a socket until it was stopped" "$(sql default.db 'SELECT exe, why FROM fixtures')"
check_equal "default scope: only the client's sites" "fixture_client" \
    "$(sql default.db 'SELECT DISTINCT exe FROM sites' | sed 's|.*/||' | sort | tr '\n' ' ' | sed 's/ $//')"
check "default scope: stderr names the fixture" grep -q "fixture of the command is not under test: fixture_server (served a socket" default.err
"$FAILRUN" report --db default.db >default.txt
check "default scope: the report's scope line names it and the way back" \
    grep -q "scope: not under test, the command's fixtures: fixture_server (served a socket until it was stopped); --exe brings one back" default.txt
check_equal "default scope: JSON campaign.fixtures" "fixture_server" \
    "$(jq -r '[.campaign.fixtures[].exe | split("/") | last] | join(" ")' default.json)"

"$FAILRUN" run -q --db back.db --exe "$server:$client" -- ./harness.sh >/dev/null 2>&1
check_equal "--exe brings the server back: sites in both" "fixture_client fixture_server" \
    "$(sql back.db 'SELECT DISTINCT exe FROM sites' | sed 's|.*/||' | sort | tr '\n' ' ' | sed 's/ $//')"
check_equal "--exe: no fixture listed" 0 "$(sql back.db 'SELECT count(*) FROM fixtures')"

"$FAILRUN" run -q --db once.db -- ./harness.sh once >/dev/null 2>&1
check_equal "a listener that ends by itself stays under test" 0 "$(sql once.db 'SELECT count(*) FROM fixtures')"
check "... and its sites are in the campaign" \
    test "$(sql once.db "SELECT count(*) FROM sites WHERE exe = '$server'")" -gt 0

"$FAILRUN" run -q --db daemon.db -- sh -c '"$1" "$2" && "$3" >/dev/null' sh \
    "$PROGRAMS/daemon" "$work/daemon.pids" "$EXAMPLES/kvtest" >/dev/null 2>&1
check "a daemonising fixture is one too" \
    test "$(sql daemon.db "SELECT count(*) FROM fixtures WHERE exe = '$PROGRAMS/daemon'")" = 1
check "... and the program under test is not" \
    test "$(sql daemon.db "SELECT count(*) FROM sites WHERE exe = '$EXAMPLES/kvtest'")" -gt 0
