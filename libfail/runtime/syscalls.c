/*
 * syscalls.c — failrun kernel inside the target (plan mode=kernel): the call of a system-call
 * wrapper (injector/preload/kernel.c) or a trapped system call (dispatch.c) is a site like an
 * allocation's, in the runtime's table of sites; the planned call gets the N its wrapper writes
 * to the kernel's fail-nth just before it; what the armed call did is a FAULT record, and the
 * kernel's log, kmem trace and KCOV area of that call go to files beside the record file
 * (kernel-PID.log, kmem-PID.trace, kcov-PID.pcs).
 */

#include "runtime.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

/* ---- failrun kernel: system-call sites ---- */

bool LF_TEXT runtime_kernel_mode(void)
{
    return atomic_load_explicit(&runtime.phase, memory_order_acquire) == 2 && runtime.active &&
           runtime.in_scope && runtime.plan.mode == PLAN_KERNEL;
}

uint64_t LF_TEXT runtime_kernel_before(struct call *call, uint32_t function, uintptr_t caller)
{
    (void)caller;
    call->frame_count = 0;
    call->occurrence = 0;
    if (!runtime_kernel_mode())
        return 0;
    int saved_errno = errno;
    uintptr_t pcs[RECORD_MAX_FRAMES];
    int count = stack_capture(pcs, (int)runtime.plan.depth);
    uint64_t nth = runtime_kernel_site(call, function, pcs, count);
    errno = saved_errno;
    return nth;
}

uint64_t LF_TEXT runtime_kernel_site(struct call *call, uint32_t function, const uintptr_t *pcs,
                                     int count)
{
    call->frame_count = 0;
    call->occurrence = 0;
    if (!runtime_kernel_mode() || count <= 0 || !runtime_module_filter_allows(pcs, count))
        return 0;
    int saved_errno = errno;
    uint64_t nth = 0;
    stack_normalise(pcs, count, call->frames);
    call->frame_count = count;
    call->signature = stack_signature(call->frames, count);
    if (function >= FUNCTION_SYSCALL_FIRST) {
        /* One stack can make several system calls (syscall(2) with a variable number). */
        uint64_t number = function;
        call->signature = hash_words(call->signature, &number, 1) | 1;
    }
    bool fresh;
    uint32_t slot = runtime_site_slot(call->signature, &fresh);
    if (slot != UINT32_MAX) {
        if (fresh)
            runtime_emit_frames(RECORD_SITE, 0, function, call->signature, 0, 0, call->frames,
                                count);
        call->occurrence = counter_next(&runtime.sites[slot].occurrences);
        const struct plan_fault *fault = &runtime.plan.faults[0];
        if (runtime.plan.fault_count == 1 && fault->site == call->signature &&
            fault->occurrence == call->occurrence && runtime_claim_fault(0))
            nth = runtime.plan.nth;
    } else {
        atomic_store(&runtime.sites_overflow, true);
    }
    errno = saved_errno;
    return nth;
}

bool LF_TEXT runtime_kernel_may_be_planned(uintptr_t pc)
{
    if (runtime.plan.fault_count != 1 || !runtime.plan.faults[0].has_top ||
        atomic_load_explicit(&runtime.fault_seen, memory_order_relaxed))
        return true;
    struct record_frame top;
    stack_normalise(&pc, 1, &top);
    return top.module == runtime.plan.faults[0].top.module &&
           top.offset == runtime.plan.faults[0].top.offset;
}

unsigned LF_TEXT runtime_depth(void)
{
    return runtime.plan.depth ? runtime.plan.depth : LF_DEFAULT_DEPTH;
}

bool LF_TEXT runtime_kernel_wrappers_only(void)
{
    return runtime.plan.kernel_wrappers;
}

void LF_TEXT runtime_kernel_after(const struct call *call, uint32_t function, uint64_t nth,
                                  uint64_t occurrence, bool fired, bool failed, int error)
{
    uint32_t flags = (fired ? RECORD_FLAG_KERNEL_FIRED : 0) | (failed ? RECORD_FLAG_CALL_FAILED : 0) |
                     ((uint32_t)(error & 0xffff) << RECORD_FLAG_ERRNO_SHIFT);
    if (fired)
        atomic_store(&runtime.fault_seen, true);
    runtime_emit_frames(RECORD_FAULT, flags, function, call->signature, nth, occurrence,
                        call->frames, call->frame_count);
}

/* Appends text to PREFIX-PID.SUFFIX in the run folder. */
static void LF_TEXT runtime_kernel_file(const char *prefix, const char *suffix, const char *text,
                                        size_t length)
{
    char path[PATH_MAX];
    size_t used = strlen(runtime.dir);
    if (!runtime.active || used > PATH_MAX - 64)
        return;
    memcpy(path, runtime.dir, used);
    path[used++] = '/';
    memcpy(path + used, prefix, strlen(prefix));
    used += strlen(prefix);
    used += format_decimal(path + used, (uint64_t)runtime.pid);
    memcpy(path + used, suffix, strlen(suffix) + 1);
    char selector = own_syscalls_begin();
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd >= 0) {
        for (size_t done = 0; done < length;) {
            ssize_t n = write(fd, text + done, length - done);
            if (n <= 0)
                break;
            done += (size_t)n;
        }
        close(fd);
    }
    own_syscalls_end(selector);
}

void LF_TEXT runtime_kernel_log(const char *text, size_t length)
{
    runtime_kernel_file("kernel-", ".log", text, length);
}

void LF_TEXT runtime_kernel_trace(const char *text, size_t length)
{
    runtime_kernel_file("kmem-", ".trace", text, length);
}

void LF_TEXT runtime_kernel_kcov(const uint64_t *words, size_t count)
{
    runtime_kernel_file("kcov-", ".pcs", (const char *)words, count * sizeof *words);
}
