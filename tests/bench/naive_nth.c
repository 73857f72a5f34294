/* naive_nth.c — the benchmark's yardstick (tests/bench/campaigns.sh), not part of libfail: the
   fault injector anyone writes in an afternoon. An LD_PRELOAD that counts malloc, calloc and
   realloc calls and makes call NAIVE_NTH (1-based) return NULL, once. No stacks, no sites, no
   records: what it costs a run is the floor a per-run injector is measured against.
     NAIVE_NTH=N           fail the N-th call (unset or 0: fail nothing);
     NAIVE_NTH_MARKER=PATH created when call N comes: a run without it means the sweep is over;
     NAIVE_NTH_COUNT=PATH  the number of calls, written at exit (a counting run).
   strdup and the like are not interposed: glibc's allocate through the interposable malloc, so
   their calls are counted there. realloc(p, 0) frees and is never failed nor counted;
   realloc(NULL, n) counts as the malloc it is.
   Resolving the real functions with dlsym(RTLD_NEXT) may itself call calloc (dlerror's buffer):
   such calls are served from a static buffer, and free ignores blocks from it. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void *(*real_malloc)(size_t);
static void *(*real_calloc)(size_t, size_t);
static void *(*real_realloc)(void *, size_t);
static void (*real_free)(void *);

static _Atomic unsigned long calls;
static unsigned long fail_at; /* 0: never */
static const char *marker;

/* What dlsym allocates while the real functions are being looked up. */
static _Alignas(16) char bootstrap[4096];
static _Atomic size_t bootstrap_used;
static _Thread_local int resolving;

static int from_bootstrap(const void *block)
{
    return (const char *)block >= bootstrap && (const char *)block < bootstrap + sizeof bootstrap;
}

static void *bootstrap_alloc(size_t size)
{
    size = (size + 15) & ~(size_t)15;
    size_t start = atomic_fetch_add(&bootstrap_used, size);
    return start + size <= sizeof bootstrap ? bootstrap + start : NULL; /* static: already zero */
}

__attribute__((constructor)) static void resolve(void)
{
    if (real_malloc || resolving)
        return;
    resolving = 1;
    real_calloc = (void *(*)(size_t, size_t))dlsym(RTLD_NEXT, "calloc");
    real_realloc = (void *(*)(void *, size_t))dlsym(RTLD_NEXT, "realloc");
    real_free = (void (*)(void *))dlsym(RTLD_NEXT, "free");
    real_malloc = (void *(*)(size_t))dlsym(RTLD_NEXT, "malloc");
    resolving = 0;
    const char *nth = getenv("NAIVE_NTH");
    fail_at = nth ? strtoul(nth, NULL, 10) : 0;
    marker = getenv("NAIVE_NTH_MARKER");
}

__attribute__((destructor)) static void write_count(void)
{
    const char *path = getenv("NAIVE_NTH_COUNT");
    if (!path)
        return;
    char text[32];
    int length = snprintf(text, sizeof text, "%lu\n", atomic_load(&calls));
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd >= 0) {
        if (write(fd, text, (size_t)length) < 0) { /* nothing to do: the sweep reads no count */
        }
        close(fd);
    }
}

/* Counts one call; true when it is the one to fail. */
static int fail_this_call(void)
{
    unsigned long call = atomic_fetch_add(&calls, 1) + 1;
    if (call != fail_at)
        return 0;
    if (marker) {
        int fd = open(marker, O_WRONLY | O_CREAT, 0600);
        if (fd >= 0)
            close(fd);
    }
    errno = ENOMEM;
    return 1;
}

void *malloc(size_t size)
{
    if (!real_malloc) {
        if (resolving)
            return bootstrap_alloc(size);
        resolve();
    }
    return fail_this_call() ? NULL : real_malloc(size);
}

void *calloc(size_t count, size_t size)
{
    if (!real_calloc) {
        if (resolving)
            return count && size > SIZE_MAX / count ? NULL : bootstrap_alloc(count * size);
        resolve();
    }
    return fail_this_call() ? NULL : real_calloc(count, size);
}

void *realloc(void *block, size_t size)
{
    if (!block)
        return malloc(size);
    if (from_bootstrap(block)) { /* a dlsym block resized: copied out, as far as it can go */
        void *copy = malloc(size);
        size_t room = (size_t)(bootstrap + sizeof bootstrap - (char *)block);
        if (copy)
            memcpy(copy, block, size < room ? size : room);
        return copy;
    }
    /* block came from the real allocator, so the real functions are resolved */
    if (size == 0)
        return real_realloc(block, size);
    return fail_this_call() ? NULL : real_realloc(block, size);
}

void free(void *block)
{
    if (!block || from_bootstrap(block))
        return;
    if (!real_free)
        resolve();
    real_free(block);
}
