#!/bin/sh
# guest-selftests.sh — the guest side of `make check-kernel`'s third and fourth boots: the
# kernel's own selftests (tests/kernel/build-selftests.sh builds them from the same source as the
# kernel) as one suite under `failrun kernel --once-per-syscall --kmem-trace --kcov`: each
# selftest program runs alone for its sites, and the suite's first site of each system call is
# swept N = 1, 2, ... within SELFTESTS_MAX_RUNS runs (default 500; 0 for no bound). Two modes
# (@MODE@):
#   debug   the third boot, on the debug kernel (KASAN, lockdep, list debugging), with the first
#           set of selftests: the sweep, then the kernel's checkers provoked through LKDTM during
#           an armed call, each one finding with a syzbot-style title;
#   census  the fourth boot, on the plain kernel (several times faster in qemu), with both sets:
#           the sweep must make 100 system calls or more, each a site.
# The report's two tables (per system call, per kernel subsystem) and every finding, with its
# lines, are printed as "# " lines for check.sh, which judges the findings against
# tests/kernel/expected-findings.tsv. check.sh fills in @ROOT@ (failrun and libfail-kernel.so in
# the guest), @SELFTESTS@ (the selftests' folder in the guest), @VMLINUX@ and @MODE@.
root=@ROOT@
failrun="$root/build/failrun"
selftests=@SELFTESTS@
vmlinux=@VMLINUX@
mode=@MODE@
ok() { if [ "$1" = 0 ]; then echo "ok - $2"; else echo "not ok - $2"; fi; }

ip link set lo up
provoke="$root/build/tests/kernel/provoke"
# The suite: every selftest in turn, each in a scratch folder of its own, its output (and its
# TAP lines) on the suite's. busybox's sh is static, so only the selftests are preloaded.
cat >/tmp/run-selftests.sh <<EOF
for test in $(ls "$selftests" | tr '\n' ' '); do
    mkdir -p "/tmp/selftests/\$test" && cd "/tmp/selftests/\$test" && "$selftests/\$test"
    echo "selftest \$test: exit status \$?"
done
EOF
start=$(date +%s)
bound=@MAX_RUNS@
"$failrun" kernel --setup-debugfs --kmem-trace --kcov --vmlinux "$vmlinux" --once-per-syscall \
    --max-runs "$bound" -j 1 --db /tmp/selftests.db -- sh /tmp/run-selftests.sh \
    >/tmp/selftests.txt 2>/tmp/selftests.err
status=$?
echo "# failrun kernel on $(ls "$selftests" | wc -l) selftests took $(($(date +%s) - start)) s, status $status"
[ $status -le 1 ] || tail -n 15 /tmp/selftests.err | sed 's/^/# stderr: /'
[ $status -le 128 ] || dmesg | grep -E 'segfault|traps:' | tail -n 3 | sed 's/^/# dmesg: /'
grep -E '^failrun: (baseline|checking|[0-9]+ of)' /tmp/selftests.err | sed 's/^/# /'
sed -n '1,6p' /tmp/selftests.txt | sed 's/^/# /'
ok "$([ $status -le 1 ]; echo $?)" "failrun kernel swept the selftests (status $status: 1 when it found bugs)"
alone=$(sed -n 's/^  \([0-9]*\) programs* run alone for the sites .*/\1/p' /tmp/selftests.txt)
grep '^  .* re-run within the whole command' /tmp/selftests.txt | sed 's/^/# /'
# (Measured: 14 of 16 with sites; futex_wait and thread-self end otherwise alone, said why.)
ok "$([ "${alone:-0}" -ge 12 ]; echo $?)" \
    "12 or more selftests ran alone for their sites, not the whole suite per run (${alone:-0})"

# Both tables, for check.sh and the record.
sed -n '/^kernel fail-nth, per system call /,/^$/p' /tmp/selftests.txt | grep '^  ' |
    grep -v '^  system call ' >/tmp/st-table.txt
sed 's/^/# table: /' /tmp/st-table.txt
calls=$(sed -n 's/^  system calls: \([0-9]*\) with sites, .*/\1/p' /tmp/selftests.txt)
swept=$(wc -l </tmp/st-table.txt)
# (Measured: the first set 75 system calls, 69 swept; both sets 104-105, 96 swept.)
if [ "$mode" = census ]; then least_calls=100 least_swept=90; else least_calls=70 least_swept=60; fi
ok "$([ "${calls:-0}" -ge $least_calls ] && [ "$swept" -ge $least_swept ]; echo $?)" \
    "the selftests make $least_calls or more different system calls, each a site, $least_swept or more swept (${calls:-0}; $swept swept)"
sed -n '/^kernel error legs per subsystem /,/^$/p' /tmp/selftests.txt | grep '^  ' |
    grep -v '^  subsystem ' >/tmp/st-census.txt
sed 's/^/# census: /' /tmp/st-census.txt
ok "$([ "$(grep -c -E '^  (fs|net|mm|kernel|ipc)/ [|]' /tmp/st-census.txt)" -ge 4 ]; echo $?)" \
    "the census has rows for four or more of fs/ net/ mm/ kernel/ ipc/"
# Every finding's headline, for check.sh to judge (tests/kernel/expected-findings.tsv).
grep -E '^BUG [0-9]+: ' /tmp/selftests.txt | sed 's/^BUG [0-9]*: /# finding: /'
grep -c -E '^BUG [0-9]+: ' /tmp/selftests.txt | sed 's/^/# findings: /'
# Each finding's lines (the armed call, its stacks, the replay), for judging it by hand.
sed -n '/^BUG [0-9]*: /,/^  replay: /p' /tmp/selftests.txt | sed 's/^/# detail: /'
[ "$mode" = debug ] || exit 0

# The debug kernel's own checkers (KASAN, list debugging): a report of each while a call is
# armed is one finding, titled as syzbot titles it, whatever N it came with. After the sweep:
# a KASAN report taints the kernel, and the taint turns lockdep off for the rest of the boot.
# (refcount_t warns once per boot, WARN_ONCE: the unarmed baseline run would take that once.)
for provoked in "WRITE_AFTER_FREE|KASAN: use-after-free Write in lkdtm_WRITE_AFTER_FREE" \
    "CORRUPT_LIST_ADD|BUG: corrupted list in lkdtm_CORRUPT_LIST_ADD"; do
    type=${provoked%%|*}
    title=${provoked#*|}
    "$failrun" kernel --setup-debugfs -q -j 1 --db "/tmp/provoke-$type.db" -- "$provoke" "$type" >"/tmp/provoke-$type.txt" 2>&1
    status=$?
    grep '^BUG [0-9]*:' "/tmp/provoke-$type.txt" | sed "s/^/# $type: /"
    ok "$([ $status = 1 ] && [ "$(grep -c '^BUG [0-9]*:' "/tmp/provoke-$type.txt")" = 1 ] &&
          grep -q "^BUG 1: kernel: $title, during the armed call at .*provoke\.c:[0-9]* in main" "/tmp/provoke-$type.txt"; echo $?)" \
        "$type: one finding, $title"
done
