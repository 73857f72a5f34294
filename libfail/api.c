/*
 * api.c — the public functions declared in libfail.h.
 */
#include "libfail.h"
#include "internal.h"

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
