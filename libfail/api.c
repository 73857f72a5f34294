/*
 * api.c — the public functions declared in libfail.h. Runs inside the program: the rules of
 * internal.h apply (no allocation through the intercepted allocator, no locks).
 */
#include "libfail.h"
#include "internal.h"

#include <stdlib.h>

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

/* The interposed allocator is linked into libfail itself, so these are failable calls of it;
   LF_TEXT keeps these frames out of the site, which starts at their caller. */
LF_TEXT LF_EXPORT void *lf_malloc(size_t size)
{
    return malloc(size);
}

LF_TEXT LF_EXPORT void *lf_calloc(size_t count, size_t size)
{
    return calloc(count, size);
}

LF_TEXT LF_EXPORT void *lf_realloc(void *block, size_t size)
{
    return realloc(block, size);
}

LF_EXPORT void lf_free(void *block)
{
    free(block);
}
