/*
 * api.c — the public functions declared in libfail.h. Runs inside the program: the rules of
 * internal.h apply (no allocation through the intercepted allocator, no locks).
 */
#include "libfail.h"
#include "internal.h"

#include <errno.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <time.h>

LF_EXPORT const char *lf_version(void)
{
    return LIBFAIL_VERSION;
}

LF_TEXT LF_EXPORT uint64_t lf_site_signature(unsigned depth)
{
    uintptr_t pcs[RECORD_MAX_FRAMES];
    struct record_frame frames[RECORD_MAX_FRAMES];
    if (depth == 0)
        depth = LF_DEFAULT_DEPTH;
    if (depth > RECORD_MAX_FRAMES)
        depth = RECORD_MAX_FRAMES;
    int count = stack_capture(pcs, (int)depth);
    stack_normalise(pcs, count, frames);
    return stack_signature(frames, count);
}

LF_EXPORT void lf_fail_nth_set(unsigned long n)
{
    runtime_fail_nth_set(n);
}

LF_EXPORT unsigned long lf_fail_nth_get(void)
{
    return (unsigned long)runtime_fail_nth_get();
}

LF_EXPORT void *lf_last_failure(size_t *size)
{
    return (void *)runtime_last_failure(size);
}

LF_EXPORT unsigned long long lf_live_mark(void)
{
    return runtime_live_mark();
}

LF_EXPORT size_t lf_live_since(unsigned long long mark, struct lf_block *blocks, size_t max)
{
    enum { BATCH = 64 };
    uintptr_t addresses[BATCH], callers[BATCH];
    size_t sizes[BATCH];
    size_t wanted = max < BATCH ? max : BATCH;
    size_t total = runtime_live_since(mark, addresses, sizes, callers, wanted);
    for (size_t i = 0; i < total && i < wanted; i++)
        blocks[i] = (struct lf_block){(void *)addresses[i], sizes[i], (void *)callers[i]};
    return total;
}

/* ---- allocation with a policy ----
   The interposed allocator is linked into libfail itself, so these make failable calls of it;
   runtime_request tells it the policy and the real caller (LF_TEXT keeps these frames out of
   the site, which starts at their caller), and tells us back whether a failure was injected:
   an injected failure is what the caller must handle, so it is returned at once, never retried. */

#define RECLAIM_MAX 16
#define MAYFAIL_RETRIES 3
#define BACKOFF_MAX_NS 16000000L /* 16 ms */

static struct {
    lf_reclaim_fn reclaim;
    void *data;
} reclaimers[RECLAIM_MAX];
static _Atomic int reclaimer_count;

static __thread unsigned scope_flags __attribute__((tls_model("initial-exec")));

enum policy_call { POLICY_MALLOC, POLICY_CALLOC, POLICY_REALLOC };

static void LF_TEXT reclaim(size_t wanted)
{
    int count = atomic_load(&reclaimer_count);
    for (int i = 0; i < count && i < RECLAIM_MAX; i++)
        if (reclaimers[i].reclaim)
            reclaimers[i].reclaim(wanted, reclaimers[i].data);
}

static void LF_TEXT back_off(unsigned attempt)
{
    long ns = 100000L << (attempt < 8 ? attempt : 8); /* 0.1 ms, doubling */
    struct timespec pause = {0, ns < BACKOFF_MAX_NS ? ns : BACKOFF_MAX_NS};
    nanosleep(&pause, NULL);
}

static void *LF_TEXT policy_alloc(enum policy_call kind, void *block, size_t count, size_t size,
                                  unsigned flags, uintptr_t caller)
{
    /* A scope may only restrict how hard to try; NOFAIL comes from the call itself. */
    flags |= scope_flags & (LF_NORETRY | LF_NOWAIT);
    bool nofail = flags & LF_NOFAIL;
    /* No allocator can serve these, however long it waits: NULL, as kmalloc does for
       __GFP_NOFAIL requests beyond what it can ever give. */
    size_t total = size;
    if ((kind == POLICY_CALLOC && __builtin_mul_overflow(count, size, &total)) ||
        total > PTRDIFF_MAX) {
        errno = ENOMEM;
        return NULL;
    }
    for (unsigned attempt = 0;; attempt++) {
        runtime_request = (struct runtime_request){.flags = nofail ? REQUEST_NOFAIL : 0,
                                                   .caller = caller};
        /* glibc declares the allocator `leaf`: without these barriers the compiler may assume
           the call neither reads nor writes runtime_request, and move or drop our accesses. */
        __asm__ volatile("" ::: "memory");
        void *result = kind == POLICY_MALLOC   ? malloc(size)
                       : kind == POLICY_CALLOC ? calloc(count, size)
                                               : realloc(block, size);
        __asm__ volatile("" ::: "memory");
        bool injected = runtime_request.injected;
        runtime_request = (struct runtime_request){0};
        if (result || (kind == POLICY_REALLOC && block && size == 0))
            return result;
        if (!nofail && (injected || (flags & LF_NORETRY) || attempt >= MAYFAIL_RETRIES))
            return NULL;
        int saved_errno = errno;
        /* NOWAIT: no sleeping and no reclaim (callbacks may block), except that NOFAIL must make
           progress: it still reclaims, it only never sleeps. */
        if (!(flags & LF_NOWAIT) || nofail) {
            reclaim(total);
        }
        if (flags & LF_NOWAIT)
            sched_yield();
        else
            back_off(attempt);
        errno = saved_errno;
    }
}

LF_TEXT LF_EXPORT void *lf_malloc(size_t size, unsigned flags)
{
    return policy_alloc(POLICY_MALLOC, NULL, 0, size, flags,
                        (uintptr_t)__builtin_return_address(0));
}

LF_TEXT LF_EXPORT void *lf_calloc(size_t count, size_t size, unsigned flags)
{
    return policy_alloc(POLICY_CALLOC, NULL, count, size, flags,
                        (uintptr_t)__builtin_return_address(0));
}

LF_TEXT LF_EXPORT void *lf_realloc(void *block, size_t size, unsigned flags)
{
    return policy_alloc(POLICY_REALLOC, block, 0, size, flags,
                        (uintptr_t)__builtin_return_address(0));
}

LF_EXPORT void lf_free(void *block)
{
    free(block);
}

LF_EXPORT int lf_reclaim_register(lf_reclaim_fn reclaim_fn, void *data)
{
    int slot = atomic_load(&reclaimer_count);
    if (!reclaim_fn || slot >= RECLAIM_MAX)
        return -1;
    reclaimers[slot].reclaim = reclaim_fn;
    reclaimers[slot].data = data;
    atomic_store(&reclaimer_count, slot + 1);
    return 0;
}

LF_EXPORT unsigned lf_scope_save(unsigned flags)
{
    unsigned saved = scope_flags;
    scope_flags |= flags & (LF_NORETRY | LF_NOWAIT);
    return saved;
}

LF_EXPORT void lf_scope_restore(unsigned saved)
{
    scope_flags = saved & (LF_NORETRY | LF_NOWAIT);
}

LF_EXPORT unsigned lf_scope_get(void)
{
    return scope_flags;
}

LF_TEXT LF_EXPORT int lf_failpoint(const char *name)
{
    return runtime_failpoint(name, (uintptr_t)__builtin_return_address(0));
}
