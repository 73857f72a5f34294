/*
 * test_kmem.c — the GFP flags of Linux 6.1 as its trace prints them, the too-small-to-fail rule
 * of its page allocator, and reading the failed allocation out of an armed call's kmem trace.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "kernel/kmem.h"

/* The values of include/linux/gfp_types.h in 6.1, written out from the header. */
#define GFP_KERNEL_6_1 0xcc0u          /* __GFP_RECLAIM | __GFP_IO | __GFP_FS */
#define GFP_KERNEL_ACCOUNT_6_1 0x400cc0u
#define GFP_ATOMIC_6_1 0xa20u          /* __GFP_HIGH | __GFP_ATOMIC | __GFP_KSWAPD_RECLAIM */
#define GFP_NOWAIT_6_1 0x800u
#define GFP_NOFS_6_1 0xc40u
#define GFP_HIGHUSER_6_1 0x100cc2u
#define ZERO_6_1 0x100u
#define NOWARN_6_1 0x2000u
#define RETRY_MAYFAIL_6_1 0x4000u
#define NOFAIL_6_1 0x8000u
#define NORETRY_6_1 0x10000u

static void test_gfp_names(void **state)
{
    (void)state;
    uint32_t gfp;
    assert_true(kmem_gfp_parse("GFP_KERNEL", &gfp));
    assert_int_equal(gfp, GFP_KERNEL_6_1);
    assert_true(kmem_gfp_parse("GFP_KERNEL_ACCOUNT|__GFP_ZERO", &gfp));
    assert_int_equal(gfp, GFP_KERNEL_ACCOUNT_6_1 | ZERO_6_1);
    assert_true(kmem_gfp_parse("GFP_ATOMIC|__GFP_NOWARN", &gfp));
    assert_int_equal(gfp, GFP_ATOMIC_6_1 | NOWARN_6_1);
    assert_true(kmem_gfp_parse("0xcc0", &gfp)); /* the kprobe's x32 */
    assert_int_equal(gfp, GFP_KERNEL_6_1);
    assert_true(kmem_gfp_parse("GFP_NOWAIT|0x1000000", &gfp)); /* bits without a name */
    assert_int_equal(gfp, GFP_NOWAIT_6_1 | 0x1000000u);
    assert_false(kmem_gfp_parse("GFP_KERNEL|__GFP_UNHEARD_OF", &gfp));
    assert_false(kmem_gfp_parse("", &gfp));
    char text[128];
    kmem_gfp_format(GFP_KERNEL_ACCOUNT_6_1 | ZERO_6_1, text, sizeof text);
    assert_string_equal(text, "GFP_KERNEL_ACCOUNT|__GFP_ZERO");
    kmem_gfp_format(GFP_HIGHUSER_6_1, text, sizeof text);
    assert_string_equal(text, "GFP_HIGHUSER");
    kmem_gfp_format(0, text, sizeof text);
    assert_string_equal(text, "0");
}

static void test_too_small_to_fail(void **state)
{
    (void)state;
    /* Direct reclaim, no NORETRY/RETRY_MAYFAIL, order <= 3: never fails on 6.1. */
    assert_null(kmem_can_fail(GFP_KERNEL_6_1, 64));
    assert_null(kmem_can_fail(GFP_KERNEL_ACCOUNT_6_1 | ZERO_6_1, 4096));
    assert_null(kmem_can_fail(GFP_NOFS_6_1, 32768));
    assert_null(kmem_can_fail(GFP_KERNEL_6_1 | NOWARN_6_1, 8192));
    /* What can really fail. */
    assert_string_equal(kmem_can_fail(GFP_KERNEL_6_1, 32769), "costly order");
    assert_string_equal(kmem_can_fail(GFP_KERNEL_6_1, 65536), "costly order");
    assert_string_equal(kmem_can_fail(GFP_ATOMIC_6_1, 64), "no direct reclaim");
    assert_string_equal(kmem_can_fail(GFP_NOWAIT_6_1, 64), "no direct reclaim");
    assert_string_equal(kmem_can_fail(GFP_KERNEL_6_1 | NORETRY_6_1, 64), "NORETRY");
    assert_string_equal(kmem_can_fail(GFP_KERNEL_6_1 | RETRY_MAYFAIL_6_1, 64), "RETRY_MAYFAIL");
    assert_string_equal(kmem_can_fail(GFP_KERNEL_6_1 | NOFAIL_6_1, 1 << 20), "NOFAIL");
}

static void test_trace_slab(void **state)
{
    (void)state;
    const char *trace =
        "# tracer: nop\n"
        "#\n"
        "        workload-93      [000] .....    12.004: kmem_cache_alloc: call_site="
        "alloc_empty_file+0x40/0xd0 ptr=ffff888003a1e600 bytes_req=192 bytes_alloc=192 "
        "gfp_flags=GFP_KERNEL node=-1 accounted=false\n"
        "        workload-93      [000] .....    12.005: kmalloc: call_site="
        "alloc_pipe_info+0x4d/0x150 ptr=0000000000000000 bytes_req=640 bytes_alloc=1024 "
        "gfp_flags=GFP_KERNEL_ACCOUNT|__GFP_ZERO node=-1 accounted=true\n";
    struct kmem_alloc alloc;
    assert_true(kmem_parse_trace(trace, &alloc));
    assert_string_equal(alloc.kind, "kmalloc");
    assert_string_equal(alloc.call_site, "alloc_pipe_info+0x4d/0x150");
    assert_int_equal(alloc.bytes_req, 640);
    assert_int_equal(alloc.bytes_alloc, 1024);
    assert_int_equal(alloc.gfp, GFP_KERNEL_ACCOUNT_6_1 | ZERO_6_1);
    assert_false(alloc.via_page);
    assert_false(kmem_parse_trace("# tracer: nop\n", &alloc));
}

static void test_trace_page(void **state)
{
    (void)state;
    const char *trace =
        "            cat-51      [000] d....     3.10: page_entry: (should_fail_alloc_page+0x0/0x20)"
        " gfp=0xcc0 order=0\n"
        "            cat-51      [000] d....     3.11: page_ret: (__alloc_pages+0x8a/0x1f0 <- "
        "should_fail_alloc_page) ret=0\n"
        "            cat-51      [000] d....     3.12: page_entry: (should_fail_alloc_page+0x0/0x20)"
        " gfp=0x2800 order=1\n"
        "            cat-51      [000] d....     3.13: page_ret: (__alloc_pages+0x8a/0x1f0 <- "
        "should_fail_alloc_page) ret=1\n"
        "            cat-51      [000] d....     3.13: <stack trace>\n"
        " => kretprobe_trace_func+0x257/0x278\n"
        " => arch_rethook_trampoline+0x2c/0x4d\n"
        " => prepare_alloc_pages.constprop.0+0x43/0x6d\n"
        " => __alloc_pages+0x8a/0x1f0\n"
        " => __get_free_pages+0x9/0x30\n"
        " => do_sys_poll+0x7b/0x4e0\n"
        " => __x64_sys_poll+0x3f/0x140\n";
    struct kmem_alloc alloc;
    assert_true(kmem_parse_trace(trace, &alloc));
    assert_string_equal(alloc.kind, "page");
    assert_string_equal(alloc.call_site, "do_sys_poll+0x7b/0x4e0");
    assert_string_equal(alloc.frames, "do_sys_poll+0x7b/0x4e0 <- __x64_sys_poll+0x3f/0x140");
    assert_int_equal(alloc.gfp, GFP_NOWAIT_6_1 | NOWARN_6_1);
    assert_int_equal(alloc.bytes_req, 8192);
    assert_string_equal(kmem_can_fail(alloc.gfp, alloc.bytes_alloc), "no direct reclaim");
}

/* A slab allocation that failed because its new slab's pages did: the slab allocation, as the
   caller asked for it. */
static void test_trace_slab_via_page(void **state)
{
    (void)state;
    const char *trace =
        "  a-1 [000] d.... 1.0: page_entry: (should_fail_alloc_page+0x0/0x20) gfp=0x400cc0 order=0\n"
        "  a-1 [000] d.... 1.0: page_ret: (__alloc_pages+0x8a/0x1f0 <- should_fail_alloc_page) ret=1\n"
        "  a-1 [000] d.... 1.0: <stack trace>\n"
        " => __alloc_pages+0x8a/0x1f0\n"
        " => allocate_slab+0x6c/0x2a0\n"
        " => ___slab_alloc+0x3a0/0x5f0\n"
        " => __kmem_cache_alloc_node+0x8d/0x150\n"
        " => seq_open+0x20/0x70\n"
        "  a-1 [000] ..... 1.0: kmem_cache_alloc: call_site=seq_open+0x20/0x70 "
        "ptr=0000000000000000 bytes_req=120 bytes_alloc=128 gfp_flags=GFP_KERNEL|__GFP_ZERO "
        "node=-1 accounted=false\n";
    struct kmem_alloc alloc;
    assert_true(kmem_parse_trace(trace, &alloc));
    assert_string_equal(alloc.kind, "kmem_cache_alloc");
    assert_string_equal(alloc.call_site, "seq_open+0x20/0x70");
    assert_true(alloc.via_page);
    assert_int_equal(alloc.bytes_req, 120);
    assert_null(kmem_can_fail(alloc.gfp, alloc.bytes_alloc));
}

/* kmem_cache_alloc_bulk has no tracepoint: failslab's failure is named by the kprobe pair on
   should_failslab, its cache's object size and the caller's flags, and the caller from the
   stack (the maple tree's node allocation under mmap, in 6.1). */
static void test_trace_slab_bulk(void **state)
{
    (void)state;
    const char *trace =
        "  w-7 [000] d.... 2.0: slab_entry: (should_failslab+0x0/0x10) size=144 gfp=0xcc0\n"
        "  w-7 [000] d.... 2.0: slab_ret: (kmem_cache_alloc+0x2c/0x1e0 <- should_failslab) ret=0\n"
        "  w-7 [000] d.... 2.1: slab_entry: (should_failslab+0x0/0x10) size=256 gfp=0xcc0\n"
        "  w-7 [000] d.... 2.1: slab_ret: (kmem_cache_alloc_bulk+0x2e/0x2a0 <- should_failslab)"
        " ret=-12\n"
        "  w-7 [000] d.... 2.1: <stack trace>\n"
        " => event_triggers_post_call+0x59/0x71\n"
        " => trace_event_buffer_commit+0x25c/0x26f\n"
        " => kretprobe_trace_func+0x257/0x278\n"
        " => kretprobe_dispatcher+0x56/0x82\n"
        " => kretprobe_rethook_handler+0x52/0x66\n"
        " => rethook_trampoline_handler+0xa2/0x11a\n"
        " => arch_rethook_trampoline_callback+0x36/0x46\n"
        " => arch_rethook_trampoline+0x2c/0x4d\n"
        " => kmem_cache_alloc_bulk+0x2e/0x2a0\n"
        " => mas_alloc_nodes+0x160/0x1f0\n"
        " => mas_preallocate+0x58/0xd0\n"
        " => mmap_region+0x3b5/0x8a0\n"
        "  w-7 [000] d.... 2.2: slab_entry: (should_failslab+0x0/0x10) size=64 gfp=0x820\n"
        "  w-7 [000] d.... 2.2: slab_ret: (kmem_cache_alloc+0x2c/0x1e0 <- should_failslab) ret=0\n";
    struct kmem_alloc alloc;
    assert_true(kmem_parse_trace(trace, &alloc));
    assert_string_equal(alloc.kind, "kmem_cache_alloc_bulk");
    assert_string_equal(alloc.call_site, "mas_alloc_nodes+0x160/0x1f0");
    assert_string_equal(alloc.frames,
                        "mas_alloc_nodes+0x160/0x1f0 <- mas_preallocate+0x58/0xd0 <- "
                        "mmap_region+0x3b5/0x8a0");
    assert_int_equal(alloc.bytes_req, 256);
    assert_int_equal(alloc.gfp, GFP_KERNEL_6_1);
    assert_false(alloc.via_page);
    assert_null(kmem_can_fail(alloc.gfp, alloc.bytes_alloc));
    /* A kmem_cache_alloc that failslab failed has its tracepoint too: that names it. */
    const char *both =
        "  w-7 [000] d.... 2.1: slab_entry: (should_failslab+0x0/0x10) size=192 gfp=0xcc0\n"
        "  w-7 [000] d.... 2.1: slab_ret: (kmem_cache_alloc+0x2c/0x1e0 <- should_failslab)"
        " ret=-12\n"
        "  w-7 [000] d.... 2.1: <stack trace>\n"
        " => kmem_cache_alloc+0x2c/0x1e0\n"
        " => __d_alloc+0x22/0x16f\n"
        "  w-7 [000] ..... 2.1: kmem_cache_alloc: call_site=__d_alloc+0x22/0x16f "
        "ptr=0000000000000000 bytes_req=192 bytes_alloc=192 gfp_flags=GFP_KERNEL node=-1 "
        "accounted=false\n";
    assert_true(kmem_parse_trace(both, &alloc));
    assert_string_equal(alloc.kind, "kmem_cache_alloc");
    assert_string_equal(alloc.call_site, "__d_alloc+0x22/0x16f");
    assert_false(alloc.via_page);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gfp_names),
        cmocka_unit_test(test_too_small_to_fail),
        cmocka_unit_test(test_trace_slab),
        cmocka_unit_test(test_trace_page),
        cmocka_unit_test(test_trace_slab_via_page),
        cmocka_unit_test(test_trace_slab_bulk),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
