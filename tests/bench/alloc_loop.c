#define _POSIX_C_SOURCE 200809L
/* alloc_loop.c — the per-call cost benchmark's target: N malloc/free pairs of varying small sizes
   from a few call sites, then prints the nanoseconds per pair (CLOCK_MONOTONIC). */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static __attribute__((noinline)) void *allocate(size_t size, int which)
{
    switch (which & 3) {
    case 0: return malloc(size);
    case 1: return malloc(size + 8);
    case 2: return malloc(size + 16);
    default: return malloc(size + 24);
    }
}

int main(int argc, char **argv)
{
    long pairs = argc > 1 ? atol(argv[1]) : 1000000;
    struct timespec start, end;
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (long i = 0; i < pairs; i++) {
        void *p = allocate((size_t)(i & 255) + 1, (int)i);
        if (!p)
            return 1;
        *(volatile char *)p = 1;
        free(p);
    }
    clock_gettime(CLOCK_MONOTONIC, &end);
    double ns = ((double)(end.tv_sec - start.tv_sec) * 1e9 + (double)(end.tv_nsec - start.tv_nsec));
    printf("%.1f\n", ns / (double)pairs);
    return 0;
}
