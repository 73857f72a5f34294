/*
 * libfail.h — the public interface of libfail, the allocation-failure injector.
 *
 * Most users never include this: `failrun run -- CMD` injects failures into unmodified programs
 * through libfail-preload.so. A program linked with libfail (-lfail, `pkg-config --libs libfail`)
 * has the same interposed allocator in-process and can drive it itself: fail its own N-th
 * allocation (the kernel's fail-nth rules, per thread) and list the blocks still live since a
 * mark — what an out-of-memory loop in a unit test needs (see libfail/cmocka.h).
 */
#ifndef LIBFAIL_H
#define LIBFAIL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define LIBFAIL_VERSION "0.1.0"

/* The library's version string, e.g. "0.1.0". */
const char *lf_version(void);

/* The site signature of the caller's calling context, `depth` frames deep (1..28; 0 means the
   default of 8): the same value failrun shows as a site id, stable across runs and under ASLR. */
uint64_t lf_site_signature(unsigned depth);

/* Fail-nth, as the kernel's /proc/thread-self/fail-nth: for the calling thread, the n-th
   allocation from now fails (1 = the next one); 0 disarms. Reading back 0 means the failure
   happened (or nothing was armed); a non-zero value means fewer than n allocations followed. */
void lf_fail_nth_set(unsigned long n);
unsigned long lf_fail_nth_get(void);

/* Where the last failure armed with lf_fail_nth_set happened on this thread: the return address
   in the caller of the allocator (NULL if none yet), and the size requested. */
void *lf_last_failure(size_t *size);

/* A block still live, for leak checks. */
struct lf_block {
    void *address;
    size_t size;
    void *caller; /* return address in the function that allocated it */
};
/* Start counting live blocks (if not already) and return a mark for lf_live_since. */
unsigned long long lf_live_mark(void);
/* The blocks allocated after `mark` that are still live: fills up to `max` of them and returns
   how many there are (which may be more than max). Scans libfail's table: for tests, not for hot
   paths. */
size_t lf_live_since(unsigned long long mark, struct lf_block *blocks, size_t max);

/* Allocation through libfail's decision point even where the program's malloc is not
   interposed (a static link, another allocator): failable exactly like malloc and friends. */
void *lf_malloc(size_t size);
void *lf_calloc(size_t count, size_t size);
void *lf_realloc(void *block, size_t size);
void lf_free(void *block);

#ifdef __cplusplus
}
#endif
#endif
