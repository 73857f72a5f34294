#!/bin/sh
# guest-kernel.sh — the guest side of `make check-kernel`'s second boot: `failrun kernel`, every
# system call trapped, on examples/relay (which mishandles a failed pipe()), on the workload
# (tests/kernel/workload.c: about seventy different system calls) and on provoke (a kernel
# warning during an armed call). check.sh fills in @ROOT@, where failrun, libfail-kernel.so and
# the programs sit in the guest (not under /tmp, which the guest mounts afresh), and @SOURCE@ and
# @WORKLOAD@, relay.c's and workload.c's paths on the host as their debug information (and so
# the report) names them, and @VMLINUX@, the kernel's vmlinux (same path in the guest). Relay's
# and the workload's campaigns run with --kmem-trace (each failure names its allocation) and
# --kcov (the kernel lines each failure alone reached). Prints "ok - " / "not ok - " lines, and
# "# " lines for the record: the tables of system calls the workload's sweep saw and failed.
root=@ROOT@
failrun="$root/build/failrun"
relay="$root/build/examples/relay"
workload="$root/build/tests/kernel/workload"
provoke="$root/build/tests/kernel/provoke"
source_file="$root/examples/relay/relay.c"
reported=@SOURCE@
workload_source=@WORKLOAD@
vmlinux=@VMLINUX@
ok() { if [ "$1" = 0 ]; then echo "ok - $2"; else echo "not ok - $2"; fi; }
# The sweep of one site: "  NAME() [via F()] at FILE:LINE [SITE]: 1 ENFILE crash, ..., 7 beyond ..."
sweep() { grep -E "^  $1\(\)( via [a-z0-9_]+\(\))? at $2:$3 " "$4" | sed 's/^[^]]*]://'; }

bug_line=$(grep -n 'BUG(pipe-unchecked)' "$source_file" | cut -d: -f1)
pipe_line=$(grep -n 'if (pipe(ends)' "$source_file" | cut -d: -f1)
pair_line=$(grep -n 'if (socketpair(' "$source_file" | cut -d: -f1)

start=$(date +%s)
"$failrun" kernel --setup-debugfs --kmem-trace --kcov --vmlinux "$vmlinux" -q -j 1 --db /tmp/relay.db -- "$relay" >/tmp/report.txt 2>/tmp/err.txt
status=$?
end=$(date +%s)
cat /tmp/report.txt
echo "# failrun kernel took $((end - start)) s"
ok "$([ $status = 1 ]; echo $?)" "failrun kernel exits 1: it found a bug (status $status)"
grep -q "^BUG 1: crash (SIGSEGV) at $reported:$bug_line in main" /tmp/report.txt
ok $? "the finding: a crash at relay.c:$bug_line, the unchecked pipe() leg"
grep -q "injected: kernel fail-nth [0-9]* in pipe2() via pipe() -> E" /tmp/report.txt
ok $? "the finding names the N that made pipe() fail, its system call and the errno it returned"

pipe_sweep=$(sweep pipe2 "$reported" "$pipe_line" /tmp/report.txt)
echo "# pipe sweep:$pipe_sweep"
ok "$([ -n "$pipe_sweep" ]; echo $?)" "the pipe2 system call of pipe() at relay.c:$pipe_line was swept"
failed=$(echo "$pipe_sweep" | tr ',' '\n' | grep -c -E ' (ENFILE|ENOMEM) ')
ok "$([ "$failed" -ge 3 ]; echo $?)" "pipe() failed for several N, each with ENFILE or ENOMEM ($failed)"
ok "$(echo "$pipe_sweep" | tr ',' '\n' | grep -E ' (ENFILE|ENOMEM) ' | grep -v -q ' crash$'; [ $? = 1 ]; echo $?)" \
    "every N that made pipe() fail crashed the program"
ok "$(echo "$pipe_sweep" | grep -q 'beyond its fault points$'; echo $?)" \
    "the pipe() sweep ended when N passed the call's fault points"
ok "$(echo "$pipe_sweep" | grep -q '^ 1 ENFILE'; echo $?)" \
    "N=1 fails pipe() with ENFILE (its file is allocated first)"
pair_sweep=$(sweep socketpair "$reported" "$pair_line" /tmp/report.txt)
echo "# socketpair sweep:$pair_sweep"
ok "$([ "$(echo "$pair_sweep" | tr ',' '\n' | grep -c -E ' E[A-Z]+ handled')" -ge 3 ]; echo $?)" \
    "socketpair() failed for several N and relay handled each"
ok "$(echo "$pair_sweep" | tr ',' '\n' | grep -q -E ' E[A-Z]+ crash'; [ $? = 1 ]; echo $?)" \
    "no socketpair() failure crashed it"
replay=$(grep '  replay: ' /tmp/report.txt | head -1 | sed 's/^  replay: failrun //')
eval "\"$failrun\" $replay" >/dev/null 2>&1
ok "$([ $? = 139 ]; echo $?)" "the finding's replay command crashes relay again"

# The workload: every system call a site, over TCP and UDP on the loopback device too.
ip link set lo up
start=$(date +%s)
"$failrun" kernel --kmem-trace --kcov --vmlinux "$vmlinux" -q -j 1 --db /tmp/workload.db -- "$workload" /tmp/workload \
    >/tmp/workload.txt 2>/tmp/workload.err
status=$?
echo "# failrun kernel on the workload took $(($(date +%s) - start)) s, status $status:"
[ $status -le 1 ] || tail -n 15 /tmp/workload.err | sed 's/^/# stderr: /'
# A crash of failrun itself: the kernel's line names the instruction (failrun[BASE+SIZE] ip).
[ $status -le 128 ] || dmesg | grep -E 'segfault|traps:' | tail -n 3 | sed 's/^/# dmesg: /'
sed -n '1,2p' /tmp/workload.txt | sed 's/^/# /'
grep '^BUG [0-9]*:' /tmp/workload.txt | sed 's/^/# /'
sed -n '/^kernel fail-nth/,/^outcomes/p' /tmp/workload.txt | grep -E '^  [a-z0-9_]+\(\)' >/tmp/sweeps.txt
grep '^outcomes:' /tmp/workload.txt | sed 's/^/# /'
ok "$([ $status -le 1 ] && [ -s /tmp/sweeps.txt ]; echo $?)" \
    "failrun kernel swept the workload (status $status: 1 when it found bugs)"
# One row per system call: its sites; those where some N made a fault point fail (the call
# failing, or the kernel absorbing it); the most fault points one of its sites had; the errnos
# the program saw.
echo "# system call | sites | sites failed | most fault points | errnos"
awk '{
    name = $1; sub(/\(.*/, "", name)
    sites[name]++
    list = $0; sub(/^[^]]*\]: /, "", list)
    n = split(list, calls, ", ")
    fired = 0; points = 0
    for (i = 1; i <= n; i++) {
        split(calls[i], word, " ")
        if (word[2] == "beyond") { points = word[1] - 1; continue }
        fired = 1; points = word[1]
        if (word[2] != "ok" && index(errnos[name], word[2]) == 0)
            errnos[name] = errnos[name] (errnos[name] == "" ? "" : " ") word[2]
    }
    failed[name] += fired
    if (points > most[name]) most[name] = points
} END {
    for (name in sites)
        printf "# %s | %d | %d | %d | %s\n", name, sites[name], failed[name], most[name],
               errnos[name] == "" ? "-" : errnos[name]
}' /tmp/sweeps.txt | sort >/tmp/table.txt
cat /tmp/table.txt
calls=$(wc -l </tmp/table.txt)
failed_calls=$(awk -F' [|] ' '$3 > 0' /tmp/table.txt | wc -l)
echo "# $calls system calls seen, $failed_calls of them with a fault point failed by some N"
ok "$([ "$calls" -ge 30 ]; echo $?)" "the sweep found sites for at least 30 different system calls ($calls)"
ok "$([ "$failed_calls" -ge 20 ]; echo $?)" \
    "at least 20 different system calls had a fault point failed ($failed_calls)"
fopen_sweep=$(grep -E "^  openat\(\) via fopen\(\) at $workload_source:[0-9]+ " /tmp/sweeps.txt | head -1)
echo "# fopen's openat:${fopen_sweep#*]:}"
ok "$(echo "$fopen_sweep" | grep -q ']: 1 E[A-Z]* '; echo $?)" \
    "the openat inside fopen is a site, and N=1 made it fail"
ok "$(grep -q -E '^  clone3\(\) via pthread_create\(\) .*: 1 E[A-Z]+ ' /tmp/sweeps.txt; echo $?)" \
    "so is pthread_create's clone3, failed at N=1"
ok "$(grep -q -E "^  vfork\(\) at $workload_source:[0-9]+ .*: 1 E[A-Z]+ " /tmp/sweeps.txt; echo $?)" \
    "and vfork, failed at N=1"

# Which kernel allocation each injected failure hit (the kmem trace): its call site, size and
# GFP flags, on an "    N=K: KIND at FUNCTION+0xOFF/0xSIZE, BYTES bytes (ALLOC), FLAGS: ..." line
# under its site's sweep; and the table per system call, with how many were too small to fail.
# KIND is the slab tracepoint's (kmalloc, kmem_cache_alloc), kmem_cache_alloc_bulk (failslab's
# kprobe: the maple tree's nodes), or page (fail_page_alloc's kprobe).
alloc_line='^    N=[0-9]+: (kmalloc|kmem_cache_alloc|kmem_cache_alloc_bulk|slab|page) at [A-Za-z0-9_.]+\+0x[0-9a-f]+/0x[0-9a-f]+, [0-9]+ bytes \([0-9]+\), [A-Za-z0-9_|]+: (too small to fail|can fail \([A-Za-z_ ]+\)) -> [A-Z0-9ok]+$'
pipe_allocs=$(awk -v at=" at $reported:$pipe_line " 'index($0, "  pipe2()") == 1 && index($0, at) { on = 1; next }
    on && /^    N=/ { print; next } { on = 0 }' /tmp/report.txt | grep -E "$alloc_line")
echo "$pipe_allocs" | sed 's/^/# relay pipe2:/'
ok "$([ "$(echo "$pipe_allocs" | grep -c .)" -ge 3 ]; echo $?)" \
    "relay's pipe() failures each name a kernel allocation: call site, size and GFP flags"
ok "$(echo "$pipe_allocs" | grep -q -E '^    N=1: kmem_cache_alloc at alloc_inode\+.*GFP_KERNEL.*: too small to fail -> ENFILE$'; echo $?)" \
    "N=1 of pipe(): the pipe inode's kmem_cache_alloc in alloc_inode, GFP_KERNEL, too small to fail -> ENFILE"
grep -E "$alloc_line" /tmp/workload.txt >/tmp/allocs.txt
fired=$(awk '{ list = $0; sub(/^[^]]*\]: /, "", list); n = split(list, calls, ", ")
    for (i = 1; i <= n; i++) { split(calls[i], word, " "); if (word[2] != "beyond") fired++ } }
    END { print fired + 0 }' /tmp/sweeps.txt)
named=$(wc -l </tmp/allocs.txt)
small=$(grep -c ': too small to fail -> ' /tmp/allocs.txt)
echo "# workload: $fired injected failures, $named with their allocation named, $small of them too small to fail"
grep -o -E 'can fail \([A-Za-z_ ]+\)' /tmp/allocs.txt | sort | uniq -c | sed 's/^/# /'
sed -E 's/^    N=[0-9]+: ([a-z_]+) at .*/\1/' /tmp/allocs.txt | sort | uniq -c | sed 's/^/# kind: /'
ok "$([ "$fired" -gt 0 ] && [ "$named" = "$fired" ]; echo $?)" \
    "every injected failure of the workload names its allocation ($named of $fired)"
grep -E ': (kmem_cache_alloc_bulk|page) at ' /tmp/allocs.txt | sed 's/^ */# /' | sort | uniq | head -12
ok "$(grep -q -E ': kmem_cache_alloc_bulk at ' /tmp/allocs.txt && grep -q -E ': page at ' /tmp/allocs.txt; echo $?)" \
    "among them bulk slab allocations and page allocations (named through the kprobes)"
# The stack a kretprobe's stacktrace trigger prints starts with the tracer's own frames (the
# trigger, the kretprobe, its return trampoline): none of them is ever named as the caller.
traced=$(cat /tmp/allocs.txt /tmp/report.txt | grep -c -E '^    N=[0-9]+: [a-z_]+ at [a-z_]*(trace|kprobe|rethook|trigger)[a-z_]*\+')
ok "$([ "$traced" = 0 ]; echo $?)" "no allocation is named by a frame of the tracer ($traced)"
ok "$([ "$small" -gt 0 ]; echo $?)" "some of them were too small to fail ($small)"
sed -n '/^kernel fail-nth, per system call /,/^$/p' /tmp/workload.txt | grep '^  ' >/tmp/kernel-table.txt
sed 's/^/# /' /tmp/kernel-table.txt
rows=$(grep -c -E '^  [a-z0-9_]+ [|] [0-9]+ [|] [0-9]+ [|] [0-9]+ [|] [0-9]+ [|] [0-9]+ [|] [0-9]+ [|] [0-9]+ [|] [0-9]+$' /tmp/kernel-table.txt)
ok "$([ "$rows" -ge 30 ]; echo $?)" "failrun report prints the per-system-call table, a row per system call ($rows)"

# The kernel's error legs (--kcov): per system call, the kernel lines its armed calls reached
# only with the fault (against the same call unfailed), and of them those only failures too
# small to fail reached.
awk -F' [|] ' '$2 ~ /^[0-9]+$/ { legs += $6; small += $7; if ($6 > 0) calls++; if ($7 + 0 > $6 + 0) bad++ }
    END { printf "%d %d %d %d\n", legs, small, calls, bad }' /tmp/kernel-table.txt >/tmp/legs.txt
read -r legs small leg_calls bad </tmp/legs.txt
echo "# kernel error-leg lines: $legs over $leg_calls system calls, $small of them only via too-small-to-fail"
ok "$([ "$leg_calls" -ge 15 ]; echo $?)" "at least 15 system calls reached kernel error-leg lines ($leg_calls)"
ok "$([ "$small" -gt 0 ] && [ "$small" -lt "$legs" ] && [ "$bad" = 0 ]; echo $?)" \
    "some of those lines only too-small-to-fail failures reached, not all ($small of $legs)"
# The census per kernel subsystem: the same legs by source folder (fs/, mm/, kernel/, ...), with
# those only too-small-to-fail failures reached and those a failure that can happen reached.
sed -n '/^kernel error legs per subsystem /,/^$/p' /tmp/workload.txt | grep '^  ' | grep -v '^  subsystem ' >/tmp/census.txt
sed 's/^/# census: /' /tmp/census.txt
census_legs=$(awk -F' [|] ' '{ legs += $2 } END { print legs + 0 }' /tmp/census.txt)
# (A line two system calls reach is one line of the census and one of each call's row.)
ok "$([ "$(grep -c -E '^  (fs|mm|kernel|net|ipc)/ [|]' /tmp/census.txt)" -ge 3 ] &&
      [ "$census_legs" -gt 0 ] && [ "$census_legs" -le "$legs" ]; echo $?)" \
    "the census splits the workload's legs by subsystem, three or more of fs/ mm/ kernel/ net/ ipc/ ($census_legs lines; $legs over the calls)"
relay_pipe=$(sed -n '/^kernel fail-nth, per system call /,/^$/p' /tmp/report.txt | grep '^  pipe2 ' | awk -F' [|] ' '{ print $6 }')
ok "$([ "${relay_pipe:-0}" -gt 0 ]; echo $?)" "relay's pipe2 failures reached kernel error-leg lines ($relay_pipe)"
"$failrun" cov --db /tmp/relay.db --json >/tmp/relay-cov.json 2>/tmp/relay-cov.err
ok $? "failrun cov reads a kernel campaign of programs built without --coverage"
# For the record: relay's kernel error-leg lines in fs/ (pipe2, socketpair, write...).
tr -d ' \n' </tmp/relay-cov.json | grep -o '"path":"[^"]*/fs/[^"]*"' | head -8 | sed 's/^/# relay leg file: /'
"$failrun" cov --db /tmp/workload.db --lcov /tmp/kernel.info --html /tmp/kernel.html >/tmp/cov.txt 2>&1
status=$?
sed -n '1,25p' /tmp/cov.txt | sed 's/^/# /'
ok "$([ $status = 0 ] && grep -q '^kernel error-leg lines' /tmp/cov.txt; echo $?)" \
    "failrun cov prints the kernel error legs of the workload's campaign"
ok "$(grep -q '^SF:.*/mm/' /tmp/kernel.info && grep -c '^DA:' /tmp/kernel.info | grep -q -v '^0$'; echo $?)" \
    "its lcov tracefile has the kernel files, mm/ among them, with their lines"
ok "$(grep -q 'id="kernel"' /tmp/kernel.html; echo $?)" "its HTML has the kernel section"
# With the kernel's source (three files of it at /ksrc): fs/pipe.c's error-leg lines in their
# text, each row's text the file's own line of that number.
"$failrun" cov --db /tmp/workload.db --kernel-source /ksrc --html /tmp/kernel-src.html >/dev/null 2>&1
sed 's/<details>/\n<details>/g' /tmp/kernel-src.html | grep '/fs/pipe\.c — ' | sed 's/<tr/\n<tr/g' |
    grep -E '^<tr class="(kept|deletable)">' |
    sed -E 's/^<tr class="[a-z]+"><td class="no">([0-9]+)<\/td><td class="count">[0-9]*<\/td><td>(.*)<\/td><td class="sites">.*/\1 \2/' |
    sed "s/&lt;/</g; s/&gt;/>/g; s/&quot;/\"/g; s/&#39;/'/g; s/&amp;/\&/g" >/tmp/pipe-legs.txt
rows=0
wrong=0
while read -r number text; do
    rows=$((rows + 1))
    line=$(sed -n "${number}p" /ksrc/fs/pipe.c | sed 's/^[[:space:]]*//; s/[[:space:]]*$//')
    [ "$line" = "$text" ] || wrong=$((wrong + 1))
done </tmp/pipe-legs.txt
head -40 /tmp/pipe-legs.txt | sed 's/^/# fs\/pipe.c leg: /'
ok "$([ "$rows" -gt 0 ] && [ "$wrong" = 0 ]; echo $?)" \
    "failrun cov --kernel-source shows fs/pipe.c's error-leg lines with their text ($rows rows, $wrong wrong)"
"$failrun" report --db /tmp/workload.db --json >/tmp/workload.json 2>/dev/null
ok "$(grep -q '"kernel_table"' /tmp/workload.json && grep -q '"too_small_to_fail": true' /tmp/workload.json \
      && grep -q '"gfp_flags"' /tmp/workload.json; echo $?)" \
    "the JSON report has the table and each allocation's GFP flags and class"

# A kernel warning while a call is armed is a finding of its own, with the kernel's log.
"$failrun" kernel -q -j 1 --db /tmp/provoke.db -- "$provoke" >/tmp/provoke.txt 2>&1
status=$?
cat /tmp/provoke.txt
ok "$([ $status = 1 ]; echo $?)" "failrun kernel exits 1 when the kernel warns during an armed call ($status)"
ok "$([ "$(grep -c '^BUG [0-9]*:' /tmp/provoke.txt)" = 1 ]; echo $?)" \
    "one finding: the warning came during the armed write, never during another armed call"
grep -q "^BUG 1: kernel: WARNING in lkdtm_WARNING, during the armed call at .*provoke\.c:[0-9]* in main" /tmp/provoke.txt
ok $? "the finding is titled as syzbot would (WARNING in lkdtm_WARNING) and located at the armed call"
grep -q "armed: kernel fail-nth [0-9]* in write(), beyond its fault points (nothing failed)" /tmp/provoke.txt
ok $? "it names the armed write, which the kernel completed without a failure"
ok "$(sed -n '/kernel log while the call was armed/,/replay:/p' /tmp/provoke.txt | grep -q 'lkdtm_WARNING+'; echo $?)" \
    "the finding carries the kernel's stack"
warnings=$(dmesg | grep -c 'WARNING: CPU')
replay=$(grep '  replay: ' /tmp/provoke.txt | head -1 | sed 's/^  replay: failrun //')
eval "\"$failrun\" $replay" >/dev/null 2>&1
ok "$([ "$(dmesg | grep -c 'WARNING: CPU')" -gt "$warnings" ]; echo $?)" \
    "the finding's replay command makes the kernel warn again"


# A program that dies inside a system call of its own (abort's tgkill, which libfail-kernel.so's
# SIGSYS handler makes for it): its stack goes on through the handler's restorer into the
# program, so each failed pipe() ends as the program's deliberate abort, never as a crash placed
# in libfail-kernel.so.
"$failrun" kernel -q -j 1 --db /tmp/abort.db -- "$provoke" ABORT >/tmp/abort.txt 2>&1
status=$?
grep '^outcomes:' /tmp/abort.txt | sed 's/^/# provoke ABORT: /'
ok "$([ $status = 0 ] && grep -q '^outcomes: .*oom-abort [1-9]' /tmp/abort.txt &&
      grep -q '^outcomes: .* crash 0,' /tmp/abort.txt && ! grep -q 'lf_dispatch' /tmp/abort.txt; echo $?)" \
    "an abort() after a failed pipe() is the program's deliberate abort, not a crash in libfail-kernel.so ($status)"

# --policy realistic: the kernel itself counts as fault points only what its allocator can fail
# (no direct reclaim; page allocations above order 3), so no failure it makes is too small to
# fail. Each failure's allocation, named from the trace and classed by failrun (kmem.c), must be
# one that can fail: the kernel's filters and failrun's classes agree, allocation by allocation.
start=$(date +%s)
"$failrun" kernel --setup-debugfs --policy realistic --kmem-trace --kcov --vmlinux "$vmlinux" -q -j 1 \
    --db /tmp/realistic.db -- "$workload" /tmp/workload >/tmp/realistic.txt 2>/tmp/realistic.err
status=$?
echo "# failrun kernel --policy realistic on the workload took $(($(date +%s) - start)) s, status $status"
[ $status -le 1 ] || tail -n 15 /tmp/realistic.err | sed 's/^/# stderr: /'
ok "$([ $status -le 1 ] && grep -q '^  policy realistic: ' /tmp/realistic.txt; echo $?)" \
    "failrun kernel --policy realistic swept the workload, and the report says the policy"
grep '^outcomes:\|runs' /tmp/realistic.txt | head -2 | sed 's/^/# /'
grep -E '^BUG [0-9]+: |^  injected: ' /tmp/realistic.txt | sed 's/^/# realistic /'
grep -E "$alloc_line" /tmp/realistic.txt >/tmp/realistic-allocs.txt
sed -E 's/^    N=[0-9]+: ([a-z_]+) at ([A-Za-z0-9_.]+)\+.*: (too small to fail|can fail \([A-Za-z_ ]+\)) -> (.*)/\2 \1: \3 -> \4/' \
    /tmp/realistic-allocs.txt | sort | uniq -c | sort -rn | head -15 | sed 's/^/# realistic failure: /'
possible=$(grep -c ': can fail (' /tmp/realistic-allocs.txt)
impossible=$(grep -c ': too small to fail -> ' /tmp/realistic-allocs.txt)
ok "$([ "$possible" -gt 0 ] && [ "$impossible" = 0 ]; echo $?)" \
    "every failure the realistic policy made is one the allocator can return ($possible), none too small to fail ($impossible)"
sed -n '/^kernel error legs per subsystem that a realistic allocator still reaches/,/^$/p' /tmp/realistic.txt |
    grep '^  ' | grep -v '^  subsystem ' >/tmp/realistic-census.txt
sed 's/^/# realistic census: /' /tmp/realistic-census.txt
ok "$([ -s /tmp/realistic-census.txt ] &&
      awk -F' [|] ' '$3 != 0 { bad = 1 } END { exit bad }' /tmp/realistic-census.txt; echo $?)" \
    "the census lists the error legs a too-small-to-fail rule keeps, none of them only via too-small-to-fail"
