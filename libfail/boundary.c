/*
 * boundary.c — what the code under test returned to its caller (DESIGN.md "The library boundary").
 *
 * failrun's LD_AUDIT module (injector/preload/audit.c) sees every call that the program makes
 * through its PLT into a library under test, and calls the two functions below around it, from
 * the calling thread. Only the outermost such call counts: a callback of the library that calls
 * back in is part of it. For each function the process keeps the classes of values it returned
 * (record.h, BOUNDARY_CLASS_*), and writes them when the set grows: failrun learns each
 * function's error convention from the unfailed runs. When a fault fired inside the call in this
 * thread, the call's return value and errno are written as they reached the caller.
 *
 * A longjmp out of the library never returns through the audit: the next call made from a stack
 * at or above the outermost call's entry starts afresh. Allocation-free, lock-free; errno is as
 * the library left it when the program sees it.
 */
#include "internal.h"

#include <errno.h>
#include <stdatomic.h>

#define BOUNDARY_FUNCTIONS 4096 /* a power of two */

struct boundary_function {
    _Atomic uintptr_t address; /* 0: free */
    _Atomic uint64_t classes;
};
static struct boundary_function functions[BOUNDARY_FUNCTIONS];

static __thread unsigned depth __attribute__((tls_model("initial-exec")));
static __thread uintptr_t entry_stack __attribute__((tls_model("initial-exec")));
static __thread uint32_t entry_faults __attribute__((tls_model("initial-exec")));

static struct boundary_function *LF_TEXT function_entry(uintptr_t address)
{
    uint64_t hash = (uint64_t)address * 0x9e3779b97f4a7c15ull;
    for (uint32_t probe = 0; probe < BOUNDARY_FUNCTIONS; probe++) {
        struct boundary_function *entry =
            &functions[(uint32_t)((hash >> 40) + probe) & (BOUNDARY_FUNCTIONS - 1)];
        uintptr_t seen = atomic_load_explicit(&entry->address, memory_order_acquire);
        if (seen == address)
            return entry;
        if (seen == 0) {
            uintptr_t expected = 0;
            if (atomic_compare_exchange_strong(&entry->address, &expected, address) ||
                expected == address)
                return entry;
        }
    }
    return NULL; /* full: that function's classes are not learned */
}

LF_TEXT LF_EXPORT void libfail_boundary_enter(uintptr_t stack)
{
    stack_skip_loader();
    if (depth > 0 && stack >= entry_stack)
        depth = 0; /* the outermost call was left by longjmp */
    if (depth++ == 0) {
        entry_stack = stack;
        entry_faults = runtime_thread_faults();
    }
}

LF_TEXT LF_EXPORT void libfail_boundary_exit(const char *name, uintptr_t function, uint64_t value)
{
    int saved_errno = errno;
    if (depth == 0 || --depth > 0) {
        errno = saved_errno;
        return;
    }
    uint64_t classes = boundary_classes(value);
    struct boundary_function *entry = function_entry(function);
    if (entry) {
        uint64_t before = atomic_fetch_or(&entry->classes, classes);
        if ((before | classes) != before)
            runtime_boundary(0, name, function, value, before | classes);
    }
    if (runtime_thread_faults() != entry_faults)
        runtime_boundary(RECORD_FLAG_BOUNDARY_FAULTED, name, function, value,
                         (uint64_t)(unsigned)saved_errno);
    errno = saved_errno;
}

void LF_TEXT boundary_reset_after_fork(void)
{
    /* The child writes its own record file: it tells its classes again. */
    for (uint32_t i = 0; i < BOUNDARY_FUNCTIONS; i++)
        atomic_store(&functions[i].classes, 0);
}
