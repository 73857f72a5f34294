/*
 * kmem.h — which kernel allocation an injected fail-nth failure hit, read from the kmem trace of
 * the armed call (the preload's kernel side, injector/preload/kernel.c, writes it: kmem-PID.trace
 * in the run folder), and whether today's page allocator could ever fail it ("too small to
 * fail"). Pure functions: no database.
 */
#ifndef KMEM_H
#define KMEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* GFP bits of Linux 6.1 (include/linux/gfp_types.h), the kernel the tests boot. */
#define KMEM_GFP_HIGHMEM 0x02u
#define KMEM_GFP_HIGH 0x20u
#define KMEM_GFP_IO 0x40u
#define KMEM_GFP_FS 0x80u
#define KMEM_GFP_ZERO 0x100u
#define KMEM_GFP_ATOMIC 0x200u
#define KMEM_GFP_DIRECT_RECLAIM 0x400u
#define KMEM_GFP_KSWAPD_RECLAIM 0x800u
#define KMEM_GFP_NOWARN 0x2000u
#define KMEM_GFP_RETRY_MAYFAIL 0x4000u
#define KMEM_GFP_NOFAIL 0x8000u
#define KMEM_GFP_NORETRY 0x10000u
#define KMEM_GFP_ACCOUNT 0x400000u
#define KMEM_GFP_KERNEL (KMEM_GFP_DIRECT_RECLAIM | KMEM_GFP_KSWAPD_RECLAIM | KMEM_GFP_IO | KMEM_GFP_FS)
#define KMEM_GFP_ATOMIC_MASK (KMEM_GFP_HIGH | KMEM_GFP_ATOMIC | KMEM_GFP_KSWAPD_RECLAIM)
/* PAGE_SIZE << PAGE_ALLOC_COSTLY_ORDER (3) on x86_64: larger requests may fail. */
#define KMEM_COSTLY_BYTES 32768u

/* The failed allocation of one armed call. */
struct kmem_alloc {
    char kind[24];       /* kmalloc, kmem_cache_alloc or page */
    char call_site[128]; /* function+0xOFFSET/0xSIZE of its caller */
    char frames[512];    /* page: the kernel stack above the allocator, " <- "-separated */
    uint64_t bytes_req;  /* what the caller asked for (page: PAGE_SIZE << order) */
    uint64_t bytes_alloc;
    uint32_t gfp;
    bool via_page;       /* a slab allocation that failed because its page allocation did */
};

/* "GFP_KERNEL|__GFP_ZERO", "0xcc0" or a mix: the flags; false when a name is unknown. */
bool kmem_gfp_parse(const char *text, uint32_t *gfp);
/* The flags as the kernel's trace names them ("GFP_KERNEL_ACCOUNT|__GFP_ZERO"). */
void kmem_gfp_format(uint32_t gfp, char *out, size_t size);
/* NULL when the 6.1 page allocator never returns this failure (direct reclaim allowed, neither
   NORETRY nor RETRY_MAYFAIL, at most PAGE_ALLOC_COSTLY_ORDER), else why it can fail:
   "no direct reclaim", "NORETRY", "RETRY_MAYFAIL", "costly order". NOFAIL never fails:
   "NOFAIL" marks it (fault injection skips those). */
const char *kmem_can_fail(uint32_t gfp, uint64_t bytes);
/* The failed allocation named by a kmem trace; false when it names none. */
bool kmem_parse_trace(const char *text, struct kmem_alloc *alloc);

#endif
