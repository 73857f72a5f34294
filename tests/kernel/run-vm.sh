#!/bin/sh
# run-vm.sh — run a test script as root inside a qemu VM whose kernel has fault injection.
#
#   tests/kernel/run-vm.sh [--add HOSTPATH[=GUESTPATH]]... --script GUEST_SCRIPT
#                          [--log FILE] [--timeout SECONDS] [--append KERNEL_ARGS] [--kernel plain|debug]
#
#   --add HOSTPATH[=GUESTPATH]  put a file or folder into the guest, at GUESTPATH or by default at
#                    HOSTPATH's own absolute path (so build/failrun next to build/libfail-preload.so
#                    stays next to it); the shared libraries and loader of every dynamically linked
#                    program or library added come along (ldd). Repeatable.
#   --script FILE    the test, run in the guest as /test.sh: directly if it starts with #!, else with
#                    sh (busybox: its applets are all on PATH; there is no bash). It runs as root in /,
#                    with /proc, /sys, /sys/kernel/debug (debugfs), /dev (devtmpfs) and /tmp (tmpfs)
#                    mounted, HOME=/root, TMPDIR=/tmp, LIBFAIL_VM=1. Whatever it prints appears on the
#                    console; its exit status is the result.
#   --log FILE       also write the console output (carriage returns removed) to FILE.
#   --timeout S      give up after S seconds (default 300): exit 124.
#   --append ARGS    more kernel command line (e.g. fail_page_alloc=... or init variables).
#   --kernel KIND    plain (default): the fault-injection kernel; debug: the same with KASAN,
#                    lockdep, list debugging and kmemleak (build-kernel.sh --debug).
#
# Output: the guest console (kernel started with `quiet`), then run-vm's own lines:
# "run-vm: boot time X s" (qemu start to the line /init prints just before /test.sh) and
# "run-vm: guest exit status N". Exit status: 0 iff the guest script exited 0; the guest's status
# N (1-127) when it failed; 124 on timeout; 2 when the VM could not be built or never reported a
# status (kernel panic, /init failure). The guest reports through /init's line
# "libfail-vm: /test.sh exit status N" and qemu's isa-debug-exit status (2N+1); both must agree.
#
# The kernel comes from build-kernel.sh (cached, see there: LIBFAIL_KERNEL_CACHE); the
# initramfs from mkinitramfs.sh, rebuilt every run (about a second). Needs the packages of
# tools/deps-kernel.sh.
set -eu
here=$(cd "$(dirname "$0")" && pwd)

fail() {
    echo "run-vm: $*" >&2
    exit 2
}

script=""
log=""
timeout_seconds=300
append=""
kernel_kind=plain
# One pass over the arguments, rotating them: the --add pairs are appended back to "$@" (kept
# intact, spaces and all, for mkinitramfs.sh), everything else is consumed.
remaining=$#
while [ "$remaining" -gt 0 ]; do
    [ "$remaining" -ge 2 ] || fail "'$1' needs a value (usage: run-vm.sh [--add HOST[=GUEST]]... --script FILE [--log FILE] [--timeout S] [--append ARGS] [--kernel plain|debug])"
    case $1 in
    --add) set -- "$@" --add "$2" ;;
    --script) script=$2 ;;
    --log) log=$2 ;;
    --timeout) timeout_seconds=$2 ;;
    --append) append=$2 ;;
    --kernel)
        case $2 in
        plain | debug) kernel_kind=$2 ;;
        *) fail "--kernel $2: give plain or debug" ;;
        esac
        ;;
    *) fail "unknown argument '$1' (usage: run-vm.sh [--add HOST[=GUEST]]... --script FILE [--log FILE] [--timeout S] [--append ARGS] [--kernel plain|debug])" ;;
    esac
    shift 2
    remaining=$((remaining - 2))
done
[ -n "$script" ] || fail "no --script GUEST_SCRIPT given"
command -v qemu-system-x86_64 >/dev/null ||
    fail "qemu-system-x86_64 is missing; run: sh tools/deps-kernel.sh (as root)"

if [ "$kernel_kind" = debug ]; then
    kernel=$(sh "$here/build-kernel.sh" --debug | tail -n 1) || exit 2
else
    kernel=$(sh "$here/build-kernel.sh" | tail -n 1) || exit 2
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/libfail-vm.XXXXXX")
trap 'rm -rf "$work"' EXIT
sh "$here/mkinitramfs.sh" -o "$work/initramfs.cpio" --script "$script" "$@" || exit 2
[ -n "$log" ] || log="$work/console.log"
mkdir -p "$(dirname "$log")"
: >"$log"

carriage_return=$(printf '\r')
start=$(date +%s%N)
echo "run-vm: booting (timeout ${timeout_seconds} s)"
{
    status=0
    timeout -k 10 "$timeout_seconds" qemu-system-x86_64 -accel tcg -m 1G -nographic -no-reboot \
        -nic none -fw_cfg name=etc/sercon-port,string=0 -kernel "$kernel" -initrd "$work/initramfs.cpio" \
        -append "console=ttyS0 quiet panic=-1 oops=panic $append" \
        -device isa-debug-exit,iobase=0xf4,iosize=0x04 </dev/null 2>&1 || status=$?
    echo "$status" >"$work/qemu-status"
} | while IFS= read -r line; do
    line=${line%"$carriage_return"}
    case $line in
    # -fw_cfg etc/sercon-port=0 keeps SeaBIOS off the serial console; qemu warns about the name.
    *"externally provided fw_cfg item names should be prefixed"*) continue ;;
    esac
    printf '%s\n' "$line"
    case $line in
    *"libfail-vm: running /test.sh"*)
        elapsed=$(($(date +%s%N) - start))
        printf 'run-vm: boot time %d.%02d s\n' $((elapsed / 1000000000)) $((elapsed / 10000000 % 100))
        ;;
    esac
done | tee "$log"

qemu_status=$(cat "$work/qemu-status")
reported=$(sed -n 's/^libfail-vm: \/test.sh exit status \([0-9]*\)$/\1/p' "$log" | tail -n 1)
if [ "$qemu_status" = 124 ] || [ "$qemu_status" = 137 ]; then
    echo "run-vm: the guest did not finish within ${timeout_seconds} s" | tee -a "$log"
    exit 124
fi
if [ -z "$reported" ]; then
    echo "run-vm: the guest never reported a status (qemu exit $qemu_status); see the console above" |
        tee -a "$log"
    exit 2
fi
[ "$reported" -gt 127 ] && reported=127
if [ "$qemu_status" != $((reported * 2 + 1)) ]; then
    echo "run-vm: the guest reported status $reported but qemu exited $qemu_status" | tee -a "$log"
    exit 2
fi
echo "run-vm: guest exit status $reported" | tee -a "$log"
exit "$reported"
