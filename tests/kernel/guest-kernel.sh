#!/bin/sh
# guest-kernel.sh — the guest side of `make check-kernel`'s second boot: `failrun kernel` on
# examples/relay, which mishandles a failed pipe(). check.sh fills in @ROOT@, where failrun,
# libfail-kernel.so, relay and relay.c sit in the guest (not under /tmp, which the guest mounts
# afresh), and @SOURCE@, relay.c's path on the host as its debug information (and so the report)
# names it. Prints "ok - " / "not ok - " lines.
root=@ROOT@
failrun="$root/build/failrun"
relay="$root/build/examples/relay"
source_file="$root/examples/relay/relay.c"
reported=@SOURCE@
ok() { if [ "$1" = 0 ]; then echo "ok - $2"; else echo "not ok - $2"; fi; }

bug_line=$(grep -n 'BUG(pipe-unchecked)' "$source_file" | cut -d: -f1)
pipe_line=$(grep -n 'if (pipe(ends)' "$source_file" | cut -d: -f1)
pair_line=$(grep -n 'if (socketpair(' "$source_file" | cut -d: -f1)

start=$(date +%s)
"$failrun" kernel --setup-debugfs -q -j 1 --db /tmp/relay.db -- "$relay" >/tmp/report.txt 2>/tmp/err.txt
status=$?
end=$(date +%s)
cat /tmp/report.txt
echo "# failrun kernel took $((end - start)) s"
ok "$([ $status = 1 ]; echo $?)" "failrun kernel exits 1: it found a bug (status $status)"
grep -q "^BUG 1: crash (SIGSEGV) at $reported:$bug_line in main" /tmp/report.txt
ok $? "the finding: a crash at relay.c:$bug_line, the unchecked pipe() leg"
grep -q "injected: kernel fail-nth [0-9]* in pipe() -> E" /tmp/report.txt
ok $? "the finding names the N that made pipe() fail and the errno it returned"

# The sweeps: "  pipe() at FILE:LINE [SITE]: 1 ENFILE crash, 2 ENFILE crash, ..., 7 beyond ..."
sweep() { grep "^  $1() at $reported:$2 " /tmp/report.txt | sed 's/^[^]]*]://'; }
pipe_sweep=$(sweep pipe "$pipe_line")
echo "# pipe sweep:$pipe_sweep"
ok "$([ -n "$pipe_sweep" ]; echo $?)" "pipe() at relay.c:$pipe_line was swept"
failed=$(echo "$pipe_sweep" | tr ',' '\n' | grep -c -E ' (ENFILE|ENOMEM) ')
ok "$([ "$failed" -ge 3 ]; echo $?)" "pipe() failed for several N, each with ENFILE or ENOMEM ($failed)"
ok "$(echo "$pipe_sweep" | tr ',' '\n' | grep -E ' (ENFILE|ENOMEM) ' | grep -v -q ' crash$'; [ $? = 1 ]; echo $?)" \
    "every N that made pipe() fail crashed the program"
ok "$(echo "$pipe_sweep" | grep -q 'beyond its fault points$'; echo $?)" \
    "the pipe() sweep ended when N passed the call's fault points"
ok "$(echo "$pipe_sweep" | grep -q '^ 1 ENFILE'; echo $?)" \
    "N=1 fails pipe() with ENFILE (its file is allocated first)"
pair_sweep=$(sweep socketpair "$pair_line")
echo "# socketpair sweep:$pair_sweep"
ok "$([ "$(echo "$pair_sweep" | tr ',' '\n' | grep -c -E ' E[A-Z]+ handled')" -ge 3 ]; echo $?)" \
    "socketpair() failed for several N and relay handled each"
ok "$(echo "$pair_sweep" | tr ',' '\n' | grep -q -E ' E[A-Z]+ crash'; [ $? = 1 ]; echo $?)" \
    "no socketpair() failure crashed it"
replay=$(grep '  replay: ' /tmp/report.txt | head -1 | sed 's/^  replay: failrun //')
eval "\"$failrun\" $replay" >/dev/null 2>&1
ok "$([ $? = 139 ]; echo $?)" "the finding's replay command crashes relay again"
