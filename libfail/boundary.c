/*
 * boundary.c — what the code under test returned to its caller (doc/guide/outcomes.md, "Outcomes").
 *
 * failrun's LD_AUDIT module (injector/preload/audit.c) sees every call that the program makes
 * through its PLT into a library under test, and calls the two functions below around it, from
 * the calling thread. Every such call comes from code outside the code under test (the audit
 * sees only the program's own bindings), a callback of the library calling back in too: a fault
 * belongs to the innermost call open when it fired, whose value the outside code received
 * first. For each function, and each place that calls it, the process keeps the
 * classes of values it returned (record.h, BOUNDARY_CLASS_*), and writes them when the set
 * grows: failrun learns each function's error convention from the unfailed runs, and what each
 * call of it returned there (a parser that returns NULL for bad input never did at the call that
 * parses good input: there NULL reports the failure). When a fault fired inside the call in this
 * thread, the call's return value and errno are written as they reached the caller.
 *
 * A longjmp out of the library never returns through the audit: a call made from a stack at or
 * above an open call's entry shows that call was left. Allocation-free, lock-free; errno is as
 * the library left it when the program sees it.
 */
#include "internal.h"

#include <errno.h>
#include <stdatomic.h>

#define BOUNDARY_CALLS 16384 /* a power of two */

/* One function called from one place: key = a mix of both addresses (0: free). */
struct boundary_call {
    _Atomic uint64_t key;
    _Atomic uint64_t classes;
};
static struct boundary_call calls[BOUNDARY_CALLS];
/* Whether any entry was ever taken: a process the audit never reports (most are) forks without
   walking the table. */
static _Atomic bool calls_used;

#define BOUNDARY_DEPTH 16 /* calls open at once that are followed; deeper ones are counted */

/* The calls into the code under test open in this thread, outermost first. */
struct open_call {
    uintptr_t stack;  /* the stack pointer at entry: the return address's slot */
    uintptr_t caller; /* the return address */
    uint32_t faults;  /* this thread's faults at entry */
};
static __thread struct open_call open_calls[BOUNDARY_DEPTH] __attribute__((tls_model("initial-exec")));
static __thread unsigned depth __attribute__((tls_model("initial-exec")));
/* The thread's fault count already told with an inner call: its outer calls do not repeat it. */
static __thread uint32_t told_faults __attribute__((tls_model("initial-exec")));

static struct boundary_call *LF_TEXT call_entry(uintptr_t function, uintptr_t caller)
{
    uint64_t key = ((uint64_t)function * 0x9e3779b97f4a7c15ull) ^ (uint64_t)caller;
    key = key ? key : 1;
    uint64_t hash = key * 0xff51afd7ed558ccdull;
    for (uint32_t probe = 0; probe < BOUNDARY_CALLS; probe++) {
        struct boundary_call *entry = &calls[(uint32_t)((hash >> 40) + probe) & (BOUNDARY_CALLS - 1)];
        uint64_t seen = atomic_load_explicit(&entry->key, memory_order_acquire);
        if (seen == key)
            return entry;
        if (seen == 0) {
            uint64_t expected = 0;
            if (atomic_compare_exchange_strong(&entry->key, &expected, key) || expected == key) {
                atomic_store_explicit(&calls_used, true, memory_order_relaxed);
                return entry;
            }
        }
    }
    return NULL; /* full: that call's classes are not learned */
}

LF_TEXT LF_EXPORT void libfail_boundary_enter(uintptr_t stack, uintptr_t caller)
{
    stack_skip_loader();
    /* Open calls whose frames this call's stack reuses were left by longjmp. */
    while (depth > 0 && depth <= BOUNDARY_DEPTH && stack >= open_calls[depth - 1].stack)
        depth--;
    if (depth < BOUNDARY_DEPTH)
        open_calls[depth] = (struct open_call){stack, caller, runtime_thread_faults()};
    depth++;
}

LF_TEXT LF_EXPORT void libfail_boundary_exit(const char *name, uintptr_t function, uint64_t value)
{
    int saved_errno = errno;
    if (depth == 0 || --depth >= BOUNDARY_DEPTH) {
        errno = saved_errno;
        return;
    }
    const struct open_call *call = &open_calls[depth];
    uint64_t classes = boundary_classes(value);
    struct boundary_call *entry = call_entry(function, call->caller);
    if (entry) {
        uint64_t before = atomic_fetch_or(&entry->classes, classes);
        if ((before | classes) != before)
            runtime_boundary(0, name, function, call->caller, value, before | classes);
    }
    uint32_t faults = runtime_thread_faults();
    if (faults != call->faults && faults != told_faults) {
        told_faults = faults;
        runtime_boundary(RECORD_FLAG_BOUNDARY_FAULTED, name, function, call->caller, value,
                         (uint64_t)(unsigned)saved_errno);
    }
    errno = saved_errno;
}

void LF_TEXT boundary_reset_after_fork(void)
{
    /* The child writes its own record file: it tells its classes again. */
    if (!atomic_load_explicit(&calls_used, memory_order_relaxed))
        return;
    for (uint32_t i = 0; i < BOUNDARY_CALLS; i++)
        atomic_store(&calls[i].classes, 0);
}
