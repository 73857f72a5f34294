#!/bin/sh
# guest-failnth.sh — the guest side of `make check-kernel` (run by run-vm.sh as /test.sh):
# the kernel's fail-nth rules, measured by failnth_probe. Prints TAP-style "ok - " / "not ok - "
# lines, which tests/kernel/check.sh counts.
echo "# guest kernel $(uname -r)"
for knob in /proc/thread-self/fail-nth /sys/kernel/debug/failslab /sys/kernel/debug/fail_page_alloc; do
    if [ -e "$knob" ]; then
        echo "ok - guest has $knob"
    else
        echo "not ok - guest has $knob"
    fi
done
/usr/local/bin/failnth_probe
