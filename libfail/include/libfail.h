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

/* ---- allocation with an explicit policy ----
   The lf_ allocators go through libfail's decision point even where the program's malloc is not
   interposed (a static link, another allocator), and say how hard to try, as the kernel's gfp
   flags do:
   - LF_MAYFAIL (0): may return NULL. A real failure first calls the registered reclaim callbacks
     and retries a few times with a short back-off.
   - LF_NOFAIL: never returns NULL. Retries, calling the reclaim callbacks and backing off, until
     it succeeds; failrun never injects a failure here (its site is reported as NOFAIL), so the
     caller needs no error leg.
   - LF_NORETRY: one attempt; on failure return NULL at once, no reclaim.
   - LF_NOWAIT: never sleep: no back-off and no reclaim callbacks (they may block).
   A MAYFAIL request that fails for real is retried three times.
   A NOFAIL request that also says NORETRY or NOWAIT still never fails: NORETRY is ignored, and
   with NOWAIT it never sleeps but still calls the reclaim callbacks, its only way to progress. */
#define LF_MAYFAIL 0u
#define LF_NOFAIL 0x1u
#define LF_NORETRY 0x2u
#define LF_NOWAIT 0x4u
void *lf_malloc(size_t size, unsigned flags);
void *lf_calloc(size_t count, size_t size, unsigned flags);
void *lf_realloc(void *block, size_t size, unsigned flags);
void lf_free(void *block);

/* A reclaim callback frees what it can (caches, pools) and returns the bytes it released; it is
   called, on the allocating thread, when an lf_ allocation fails for real. At most 16. Returns 0,
   or -1 when the table is full. Register at start-up: registration is not thread-safe against
   concurrent failures. */
typedef size_t (*lf_reclaim_fn)(size_t wanted, void *data);
int lf_reclaim_register(lf_reclaim_fn reclaim, void *data);

/* Per-thread scope, like the kernel's memalloc_noreclaim_save(): the flags given are added to
   every lf_ allocation on this thread until the matching restore. A scope can only restrict how
   hard to try (LF_NORETRY, LF_NOWAIT); it never makes a NOFAIL allocation failable. Scopes nest:
   restore with the value the save returned. */
unsigned lf_scope_save(unsigned flags);
void lf_scope_restore(unsigned saved);
/* The calling thread's current scope flags. */
unsigned lf_scope_get(void);

/* A named failpoint: a site campaigns fail like an allocation site (same signatures, plans and
   reports), for faults that are not allocations. True when this call should fail:
       if (LF_FAILPOINT("wal-fsync")) return -EIO; */
int lf_failpoint(const char *name);
#define LF_FAILPOINT(name) lf_failpoint(name)

#ifdef __cplusplus
}
#endif
#endif
