/*
 * test_ktitle.c — titles of kernel bug reports: each report kind of Linux 6.1 (KASAN, WARNING,
 * lockdep, kmemleak, refcount and list checkers, faults, sleeping in atomic context) titled by its
 * kind and the first function past the reporting machinery; logs without a report give none.
 * The logs are written in the layout the kernel prints, with made-up addresses and functions
 * where the layout is what matters.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "kernel/ktitle.h"

static void assert_title(const char *log, const char *expected)
{
    char *title = kernel_report_title(log);
    assert_non_null(title);
    assert_string_equal(title, expected);
    free(title);
}

static void test_kasan(void **state)
{
    (void)state;
    assert_title("==================================================================\n"
                 "BUG: KASAN: use-after-free in pipe_write+0x3c1/0xa50\n"
                 "Write of size 8 at addr ffff888004a1c0d8 by task memfd_test/153\n"
                 "\n"
                 "CPU: 0 PID: 153 Comm: memfd_test Not tainted 6.1.0 #1\n"
                 "Call Trace:\n"
                 " <TASK>\n"
                 " dump_stack_lvl+0x45/0x5d\n"
                 " print_report+0x17a/0x47c\n"
                 " kasan_report+0xb0/0xe0\n"
                 " pipe_write+0x3c1/0xa50\n"
                 " vfs_write+0x2b5/0x5e0\n",
                 "KASAN: use-after-free Write in pipe_write");
    /* The function KASAN names is its own helper: the first caller past it. */
    assert_title("BUG: KASAN: slab-out-of-bounds in memcpy+0x20/0x60\n"
                 "Read of size 64 at addr ffff888004a1c0d8 by task t/1\n"
                 "Call Trace:\n"
                 " <TASK>\n"
                 " dump_stack_lvl+0x45/0x5d\n"
                 " kasan_report+0xb0/0xe0\n"
                 " memcpy+0x20/0x60\n"
                 " ? unrelated_stale_word+0x1/0x2\n"
                 " mqueue_read_file+0x77/0x120\n",
                 "KASAN: slab-out-of-bounds Read in mqueue_read_file");
}

static void test_warnings(void **state)
{
    (void)state;
    assert_title("lkdtm: Performing direct entry WARNING\n"
                 "------------[ cut here ]------------\n"
                 "WARNING: CPU: 0 PID: 1976 at drivers/misc/lkdtm/bugs.c:85 lkdtm_WARNING+0x8/0xb\n"
                 "Modules linked in:\n"
                 "RIP: 0010:lkdtm_WARNING+0x8/0xb\n"
                 "Call Trace:\n"
                 " <TASK>\n"
                 " direct_entry+0xa5/0xbb\n",
                 "WARNING in lkdtm_WARNING");
    /* Two runs of one bug differ in CPU, PID and offsets, never in the title. */
    char *one = kernel_report_title("WARNING: CPU: 0 PID: 12 at fs/pipe.c:10 f+0x1/0x2\n");
    char *two = kernel_report_title("WARNING: CPU: 1 PID: 977 at fs/pipe.c:10 f+0x9/0x20\n");
    assert_string_equal(one, two);
    free(one);
    free(two);
    assert_title("refcount_t: underflow; use-after-free.\n"
                 "WARNING: CPU: 0 PID: 88 at lib/refcount.c:28 refcount_warn_saturate+0xa1/0xf0\n"
                 "RIP: 0010:refcount_warn_saturate+0xa1/0xf0\n"
                 "Call Trace:\n"
                 " <TASK>\n"
                 " __refcount_sub_and_test+0x10/0x20\n"
                 " put_ipc_ns+0x30/0x90\n",
                 "WARNING: refcount bug in put_ipc_ns");
    assert_title("list_add corruption. next->prev should be prev (ffff8880), but was 0000 (next=ffff8881).\n"
                 "WARNING: CPU: 0 PID: 88 at lib/list_debug.c:30 __list_add_valid+0x70/0xa0\n"
                 "Call Trace:\n"
                 " <TASK>\n"
                 " unix_create1+0x2a0/0x3c0\n",
                 "BUG: corrupted list in unix_create1");
}

static void test_lockdep(void **state)
{
    (void)state;
    assert_title("======================================================\n"
                 "WARNING: possible circular locking dependency detected\n"
                 "6.1.0 #1 Not tainted\n"
                 "------------------------------------------------------\n"
                 "t/201 is trying to acquire lock:\n"
                 "ffff888004b3a068 (&pipe->mutex/1){+.+.}-{3:3}, at: pipe_lock+0x1a/0x30\n"
                 "\n"
                 "but task is already holding lock:\n",
                 "possible deadlock in pipe_lock");
    assert_title("=====================================\n"
                 "WARNING: bad unlock balance detected!\n"
                 "-------------------------------------\n"
                 "t/9 is trying to release lock (&mm->mmap_lock) at:\n"
                 "[<ffffffff81234567>] up_read+0x10/0x40\n"
                 "but there are no more locks to release!\n"
                 "Call Trace:\n"
                 " <TASK>\n"
                 " lock_release+0x1/0x2\n"
                 " do_madvise+0x99/0x400\n",
                 "WARNING: bad unlock balance in do_madvise");
    assert_title("BUG: sleeping function called from invalid context at mm/slab.h:712\n"
                 "in_atomic(): 1, irqs_disabled(): 0, non_block: 0, pid: 7, name: t\n"
                 "Call Trace:\n"
                 " <TASK>\n"
                 " __might_resched+0x1/0x2\n"
                 " kmem_cache_alloc+0x1/0x2\n"
                 " eventfd_ctx_fileget+0x1/0x2\n",
                 "BUG: sleeping function called from invalid context in eventfd_ctx_fileget");
}

static void test_kmemleak(void **state)
{
    (void)state;
    assert_title("unreferenced object 0xffff888003a1b000 (size 64):\n"
                 "  comm \"mq_open_tests\", pid 123, jiffies 4294893456 (age 12.345s)\n"
                 "  hex dump (first 32 bytes):\n"
                 "    00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00  ................\n"
                 "  backtrace:\n"
                 "    [<ffffffff81234567>] kmalloc_trace+0x26/0x60\n"
                 "    [<ffffffff81234568>] mqueue_alloc_inode+0x12/0x40\n"
                 "    [<ffffffff81234569>] alloc_inode+0x20/0x90\n",
                 "memory leak in mqueue_alloc_inode");
}

static void test_faults(void **state)
{
    (void)state;
    assert_title("general protection fault, probably for non-canonical address 0xdffffc0000000001: 0000 [#1] KASAN\n"
                 "CPU: 0 PID: 1 Comm: t Not tainted 6.1.0 #1\n"
                 "RIP: 0010:memfd_fcntl+0x42/0x100\n",
                 "general protection fault in memfd_fcntl");
    assert_title("BUG: kernel NULL pointer dereference, address: 0000000000000008\n"
                 "RIP: 0010:__memset+0x1/0x2\n"
                 "Call Trace:\n"
                 " <TASK>\n"
                 " futex_wait_setup+0x1/0x2\n",
                 "BUG: unable to handle kernel NULL pointer dereference in futex_wait_setup");
}

/* Titles that stay the same from run to run, and kinds the first version missed. */
static void test_stable_titles(void **state)
{
    (void)state;
    assert_title("BUG: scheduling while atomic: memfd_test/153/0x00000002\n"
                 "Call Trace:\n"
                 " <TASK>\n"
                 " schedule+0x1/0x2\n"
                 " shmem_fallocate+0x1/0x2\n",
                 "BUG: scheduling while atomic in schedule");
    assert_title("WARNING: stack recursion on stack type 4\n"
                 "Call Trace:\n"
                 " pipe_write+0x1/0x2\n",
                 "WARNING: stack recursion on stack type in pipe_write");
    /* A double free has no access line: no access word, and the next report's is not taken. */
    assert_title("BUG: KASAN: double-free in pipe_release+0x1/0x2\n"
                 "Free of addr ffff888004a1c0d8 by task t/1\n"
                 "BUG: KASAN: use-after-free in other+0x1/0x2\n"
                 "Write of size 8 at addr ffff888004a1c0d8 by task t/1\n",
                 "KASAN: double-free in pipe_release");
    /* A module's warning: the function before the module's name. */
    assert_title("WARNING: CPU: 0 PID: 7 at drivers/misc/lkdtm/bugs.c:85 lkdtm_WARNING+0x8/0xb [lkdtm]\n"
                 "Call Trace:\n"
                 " direct_entry+0xa5/0xbb [lkdtm]\n",
                 "WARNING in lkdtm_WARNING");
}

static void test_no_report(void **state)
{
    (void)state;
    assert_null(kernel_report_title(""));
    assert_null(kernel_report_title("lkdtm: Performing direct entry WARNING\nFAULT_INJECTION: forcing a failure.\n"
                                    "name failslab, interval 1, probability 0, space 0, times 1\n"));
    char culprit[64];
    assert_false(kernel_report_culprit("no stack here\n", culprit, sizeof culprit));
    assert_true(kernel_report_culprit(" ? stale+0x1/0x2\n kfree+0x1/0x2\n pipe_release+0x1/0x2\n",
                                      culprit, sizeof culprit));
    assert_string_equal(culprit, "pipe_release");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kasan),     cmocka_unit_test(test_warnings),
        cmocka_unit_test(test_lockdep),   cmocka_unit_test(test_kmemleak),
        cmocka_unit_test(test_faults),    cmocka_unit_test(test_no_report),
        cmocka_unit_test(test_stable_titles),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
