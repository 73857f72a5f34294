#!/bin/sh
# check.sh — `make check-kernel`: boots the fault-injection kernel in qemu and runs the fail-nth
# probe there (guest-failnth.sh). Counts the guest's "ok - " / "not ok - " lines and the VM's own
# result as checks, and ends, like `make check`, with "N passed, N failed".
# Needs `make all` and build/tests/kernel/failnth_probe (the Makefile target builds them).
set -u
. "$(dirname "$0")/../integration/lib.sh"
probe="$ROOT/build/tests/kernel/failnth_probe"
log="$ROOT/build/tests/kernel/console.log"
RESULTS=$(mktemp)
mkdir -p "$(dirname "$log")"

sh "$ROOT/tests/kernel/run-vm.sh" --add "$probe=/usr/local/bin/failnth_probe" \
    --script "$ROOT/tests/kernel/guest-failnth.sh" --log "$log"
status=$?
check_equal "the VM booted, ran the guest script and reported its exit status" 0 "$status"
grep -q '^ok - ' "$log" && grep '^ok - ' "$log" | sed 's/.*/pass/' >>"$RESULTS"
grep -q '^not ok - ' "$log" && grep '^not ok - ' "$log" | sed 's/.*/fail/' >>"$RESULTS"
check "the guest ran its checks" grep -q '^ok - ' "$log"

# Second boot: failrun kernel on examples/relay, the workload and provoke, with everything at
# its host path.
# The kernel's vmlinux (DWARF) goes along at its host path: failrun kernel --kcov symbolises
# the KCOV PCs with it in the guest.
kernel=$(sh "$ROOT/tests/kernel/build-kernel.sh" 2>/dev/null | tail -n 1)
vmlinux="$(dirname "$kernel")/vmlinux"
check "the cached test kernel has its vmlinux ($vmlinux)" test -s "$vmlinux"
# A few files of the kernel's source, at /ksrc in the guest, for failrun cov --kernel-source
# (the build's own tree is deleted once the kernel is built).
ksrc="$ROOT/build/tests/kernel/ksrc"
rm -rf "$ksrc" && mkdir -p "$ksrc"
tar -xJf /usr/src/linux-source-6.1.tar.xz -C "$ksrc" --strip-components=1 \
    linux-source-6.1/fs/pipe.c linux-source-6.1/fs/file_table.c linux-source-6.1/net/socket.c
check "the kernel source files for --kernel-source are extracted" test -s "$ksrc/fs/pipe.c"
guest_script="$ROOT/build/tests/kernel/guest-kernel.sh"
guest_root=/libfail
sed -e "s|@ROOT@|$guest_root|" -e "s|@SOURCE@|$ROOT/examples/relay/relay.c|" \
    -e "s|@WORKLOAD@|$ROOT/tests/kernel/workload.c|" -e "s|@VMLINUX@|$vmlinux|" \
    "$ROOT/tests/kernel/guest-kernel.sh" >"$guest_script"
kernel_log="$ROOT/build/tests/kernel/console-failrun.log"
sh "$ROOT/tests/kernel/run-vm.sh" --add "$ROOT/build/failrun=$guest_root/build/failrun" \
    --add "$ROOT/build/libfail-kernel.so=$guest_root/build/libfail-kernel.so" \
    --add "$ROOT/build/examples/relay=$guest_root/build/examples/relay" \
    --add "$ROOT/examples/relay/relay.c=$guest_root/examples/relay/relay.c" \
    --add "$ROOT/build/tests/kernel/workload=$guest_root/build/tests/kernel/workload" \
    --add "$ROOT/build/tests/kernel/provoke=$guest_root/build/tests/kernel/provoke" \
    --add "$vmlinux" --add "$ksrc=/ksrc" \
    --script "$guest_script" --log "$kernel_log" --timeout 1500
status=$?
check_equal "the VM ran failrun kernel and reported its exit status" 0 "$status"
grep '^ok - ' "$kernel_log" | sed 's/.*/pass/' >>"$RESULTS"
grep '^not ok - ' "$kernel_log" | sed 's/.*/fail/' >>"$RESULTS"
check "the guest ran failrun kernel's checks" grep -q '^ok - failrun kernel' "$kernel_log"

debug_kernel=$(sh "$ROOT/tests/kernel/build-kernel.sh" --debug 2>/dev/null | tail -n 1)
debug_vmlinux="$(dirname "$debug_kernel")/vmlinux"
check "the cached debug kernel has its vmlinux ($debug_vmlinux)" test -s "$debug_vmlinux"
# Third and fourth boots: the kernel's own selftests as the suite (guest-selftests.sh), each
# finding judged by hand in expected-findings.tsv: "KEY<TAB>VERDICT<TAB>WHY", KEY a text its
# headline contains. The third boots the debug kernel (KASAN, lockdep, list debugging:
# build-kernel.sh --debug; kasan_multi_shot prints every KASAN report, not only the boot's
# first) with the first set of selftests, and provokes its checkers through LKDTM; the fourth
# boots the plain kernel with both sets, for the census of 100 system calls or more.
selftests=$(sh "$ROOT/tests/kernel/build-selftests.sh" | tail -n 1)
check "the selftests are built ($selftests)" test -x "$selftests/memfd_test"
debug_set="$ROOT/build/tests/kernel/selftests-debug"
rm -rf "$debug_set" && mkdir -p "$debug_set"
while read -r program; do
    cp "$selftests/$program" "$debug_set/"
done <"$(dirname "$selftests")/debug-set"
check "the debug kernel's set of selftests is copied out ($(ls "$debug_set" | wc -l) programs)" \
    test -x "$debug_set/memfd_test"
expected="$ROOT/tests/kernel/expected-findings.tsv"
unjudged=""
# selftests_boot MODE KERNEL VMLINUX SELFTESTS LOG [RUN-VM OPTIONS...]
selftests_boot() {
    mode=$1 kind=$2 boot_vmlinux=$3 folder=$4 boot_log=$5
    shift 5
    boot_script="$ROOT/build/tests/kernel/guest-selftests-$mode.sh"
    sed -e "s|@ROOT@|$guest_root|" -e "s|@SELFTESTS@|/selftests|" -e "s|@VMLINUX@|$boot_vmlinux|" \
        -e "s|@MAX_RUNS@|${SELFTESTS_MAX_RUNS:-500}|" -e "s|@MODE@|$mode|" \
        "$ROOT/tests/kernel/guest-selftests.sh" >"$boot_script"
    sh "$ROOT/tests/kernel/run-vm.sh" --kernel "$kind" --add "$ROOT/build/failrun=$guest_root/build/failrun" \
        --add "$ROOT/build/libfail-kernel.so=$guest_root/build/libfail-kernel.so" \
        --add "$ROOT/build/tests/kernel/provoke=$guest_root/build/tests/kernel/provoke" \
        --add "$folder=/selftests" --add "$boot_vmlinux" \
        --script "$boot_script" --log "$boot_log" "$@"
    status=$?
    check_equal "$mode: the VM ran the selftests under failrun kernel and reported its exit status" 0 "$status"
    grep '^ok - ' "$boot_log" | sed 's/.*/pass/' >>"$RESULTS"
    grep '^not ok - ' "$boot_log" | sed 's/.*/fail/' >>"$RESULTS"
    check "$mode: the guest ran the selftests' checks" grep -q '^ok - failrun kernel swept the selftests' "$boot_log"
    sed -n 's/^# finding: //p' "$boot_log" >"$ROOT/build/tests/kernel/selftests-findings-$mode.txt"
    while IFS= read -r finding; do
        verdict=$(grep -v '^#' "$expected" | while IFS='	' read -r key verdict why; do
            case $finding in *"$key"*) echo "$verdict"; break ;; esac
        done)
        echo "selftests finding ($mode): $finding -> ${verdict:-NOT JUDGED}"
        [ -n "$verdict" ] || unjudged="$unjudged [$finding]"
    done <"$ROOT/build/tests/kernel/selftests-findings-$mode.txt"
}
selftests_boot debug debug "$debug_vmlinux" "$debug_set" "$ROOT/build/tests/kernel/console-selftests.log" \
    --timeout 5400 --append kasan_multi_shot
selftests_boot census plain "$vmlinux" "$selftests" "$ROOT/build/tests/kernel/console-census.log" \
    --timeout 2700
check "every finding of the selftests' sweeps is judged in expected-findings.tsv (not judged:${unjudged:- none})" \
    test -z "$unjudged"

passed=$(grep -c '^pass$' "$RESULTS")
failed=$(grep -c '^fail$' "$RESULTS")
rm -f "$RESULTS"
echo "console logs: $log $kernel_log $ROOT/build/tests/kernel/console-selftests.log $ROOT/build/tests/kernel/console-census.log"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
