/*
 * test_live.c — the live-block table (libfail/live.c): its size follows the live count,
 * loses no block while threads insert and remove at once (the generations a threaded process
 * adds), survives fork in the child, and raises the overflow flag when it cannot grow.
 * Linked with libfail.a: the table's functions are called directly, on made-up block addresses
 * (the table never dereferences them), and once end to end through the interposed malloc.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "internal.h"
#include "libfail.h"

#define BASE ((uintptr_t)0x7f0000000000ull)

/* Made-up blocks: 16-byte aligned, neighbours like a heap's, each thread in its own stretch. */
static uintptr_t block_address(unsigned thread, unsigned i)
{
    return BASE + ((uintptr_t)thread << 32) + (uintptr_t)i * 48;
}

static uint32_t site_of(unsigned thread, unsigned i)
{
    return (thread * 7 + i) % 1000;
}

static uint64_t size_of(unsigned i)
{
    return 1 + i % 300;
}

static bool remove_checked(unsigned thread, unsigned i)
{
    uint32_t site;
    uint64_t size;
    return live_table_remove(block_address(thread, i), &site, &size) &&
           site == site_of(thread, i) && size == size_of(i);
}

static uint64_t slots_mapped(void)
{
    uint64_t slots, generations;
    live_table_stats(&slots, &generations);
    return slots;
}

static size_t live_count(void)
{
    uintptr_t blocks[1];
    size_t sizes[1];
    uint32_t sites[1];
    return live_table_since(0, blocks, sizes, sites, 1);
}

/* Runs in a child process, so each test starts from an empty table. */
static int in_child(void (*body)(void))
{
    pid_t pid = fork();
    if (pid == 0) {
        body();
        _exit(0);
    }
    int status;
    if (waitpid(pid, &status, 0) != pid)
        return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

#define CHILD_CHECK(condition)                                                                     \
    do {                                                                                           \
        if (!(condition))                                                                          \
            _exit(__LINE__ % 200 + 1);                                                             \
    } while (0)

static void grow_and_shrink(void)
{
    CHILD_CHECK(live_table_init());
    uint64_t initial = slots_mapped();
    for (unsigned i = 0; i < 200000; i++)
        CHILD_CHECK(live_table_insert(block_address(0, i), site_of(0, i), size_of(i), true, i + 1));
    CHILD_CHECK(live_count() == 200000);
    CHILD_CHECK(slots_mapped() >= 200000 * 4 / 3); /* grew: at most 3/4 full */
    CHILD_CHECK(slots_mapped() <= 200000 * 16 / 3); /* and no more than the live count needs */
    for (unsigned i = 0; i < 200000; i++)
        if (i % 1000)
            CHILD_CHECK(remove_checked(0, i));
    CHILD_CHECK(live_count() == 200);
    CHILD_CHECK(!remove_checked(0, 1)); /* gone already */
    /* Churn reuses the removed slots: the table does not grow. */
    uint64_t peak = slots_mapped();
    for (unsigned round = 0; round < 400; round++) {
        for (unsigned i = 0; i < 1000; i++)
            CHILD_CHECK(live_table_insert(block_address(1, round * 1000 + i), 1, 1, true, 1));
        for (unsigned i = 0; i < 1000; i++) {
            uint32_t site;
            uint64_t size;
            CHILD_CHECK(live_table_remove(block_address(1, round * 1000 + i), &site, &size));
        }
    }
    CHILD_CHECK(slots_mapped() == peak);
    CHILD_CHECK(peak > initial);
    for (unsigned i = 0; i < 200000; i += 1000)
        CHILD_CHECK(remove_checked(0, i));
    CHILD_CHECK(live_count() == 0);
    CHILD_CHECK(!live_table_overflowed());
}

static void test_grows_with_live_count(void **state)
{
    (void)state;
    assert_int_equal(in_child(grow_and_shrink), 0);
}

/* A program that allocates and frees a million blocks but holds a hundred at a time keeps the
   first table: rebuilds (when removed slots crowd it) are sized by the blocks live. */
static void churn_small(void)
{
    CHILD_CHECK(live_table_init());
    uint64_t initial = slots_mapped();
    for (unsigned i = 0; i < 100; i++)
        CHILD_CHECK(live_table_insert(block_address(0, i), site_of(0, i), size_of(i), true, 1));
    for (unsigned i = 100; i < 1000000; i++) {
        CHILD_CHECK(live_table_insert(block_address(0, i), site_of(0, i), size_of(i), true, 1));
        CHILD_CHECK(remove_checked(0, i - 100));
    }
    CHILD_CHECK(live_count() == 100);
    CHILD_CHECK(slots_mapped() == initial);
}

static void test_churn_keeps_the_table_small(void **state)
{
    (void)state;
    assert_int_equal(in_child(churn_small), 0);
}

enum { THREADS = 8, PER_THREAD = 60000 };
static pthread_barrier_t barrier;

/* Insert this thread's blocks, then remove the odd half of the next thread's (inserted at the
   same time, into whichever generation was newest). */
static void *insert_then_remove_neighbours(void *argument)
{
    unsigned thread = (unsigned)(uintptr_t)argument;
    bool ok = true;
    for (unsigned i = 0; i < PER_THREAD; i++)
        ok &= live_table_insert(block_address(thread, i), site_of(thread, i), size_of(i), true,
                                1 + i);
    pthread_barrier_wait(&barrier);
    unsigned neighbour = (thread + 1) % THREADS;
    for (unsigned i = 1; i < PER_THREAD; i += 2)
        ok &= remove_checked(neighbour, i);
    return ok ? argument : NULL;
}

static void many_threads(void)
{
    CHILD_CHECK(live_table_init());
    pthread_t threads[THREADS];
    pthread_barrier_init(&barrier, NULL, THREADS);
    for (unsigned t = 0; t < THREADS; t++)
        CHILD_CHECK(pthread_create(&threads[t], NULL, insert_then_remove_neighbours,
                                   (void *)(uintptr_t)t) == 0);
    for (unsigned t = 0; t < THREADS; t++) {
        void *result;
        CHILD_CHECK(pthread_join(threads[t], &result) == 0);
        CHILD_CHECK(result == (void *)(uintptr_t)t);
    }
    uint64_t slots, generations;
    live_table_stats(&slots, &generations);
    CHILD_CHECK(generations > 1); /* threads: it grew by generations, not by moving entries */
    CHILD_CHECK(live_count() == THREADS * PER_THREAD / 2);
    for (unsigned t = 0; t < THREADS; t++)
        for (unsigned i = 0; i < PER_THREAD; i += 2)
            CHILD_CHECK(remove_checked(t, i));
    CHILD_CHECK(live_count() == 0);
    CHILD_CHECK(!live_table_overflowed());
}

static void test_grows_under_many_threads(void **state)
{
    (void)state;
    assert_int_equal(in_child(many_threads), 0);
}

/* Threads that allocate and free for long, holding few blocks: removed slots are reused, the
   table does not add generation after generation. */
static void *churn_in_thread(void *argument)
{
    unsigned thread = (unsigned)(uintptr_t)argument;
    bool ok = true;
    for (unsigned i = 0; i < 500000; i++) {
        ok &= live_table_insert(block_address(thread, i), site_of(thread, i), size_of(i), true, 1);
        if (i >= 50)
            ok &= remove_checked(thread, i - 50);
    }
    return ok ? argument : NULL;
}

static void churn_threads(void)
{
    CHILD_CHECK(live_table_init());
    pthread_t threads[4];
    for (unsigned t = 0; t < 4; t++)
        CHILD_CHECK(pthread_create(&threads[t], NULL, churn_in_thread, (void *)(uintptr_t)t) == 0);
    for (unsigned t = 0; t < 4; t++) {
        void *result;
        CHILD_CHECK(pthread_join(threads[t], &result) == 0);
        CHILD_CHECK(result == (void *)(uintptr_t)t);
    }
    uint64_t slots, generations;
    live_table_stats(&slots, &generations);
    CHILD_CHECK(generations <= 2);
    CHILD_CHECK(live_count() == 4 * 50);
    CHILD_CHECK(!live_table_overflowed());
}

static void test_churn_under_threads_keeps_the_table_small(void **state)
{
    (void)state;
    assert_int_equal(in_child(churn_threads), 0);
}

static void survives_fork(void)
{
    CHILD_CHECK(live_table_init());
    for (unsigned i = 0; i < 50000; i++)
        CHILD_CHECK(live_table_insert(block_address(0, i), site_of(0, i), size_of(i), true, i + 1));
    pid_t pid = fork();
    if (pid == 0) {
        /* The child has the parent's blocks, can remove them and grow the table further. */
        CHILD_CHECK(live_count() == 50000);
        for (unsigned i = 0; i < 50000; i += 2)
            CHILD_CHECK(remove_checked(0, i));
        for (unsigned i = 0; i < 100000; i++)
            CHILD_CHECK(live_table_insert(block_address(2, i), 3, 4, true, 1));
        CHILD_CHECK(live_count() == 125000);
        _exit(0);
    }
    int status;
    CHILD_CHECK(waitpid(pid, &status, 0) == pid);
    CHILD_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    CHILD_CHECK(live_count() == 50000); /* the child's changes stayed in the child */
    for (unsigned i = 0; i < 50000; i++)
        CHILD_CHECK(remove_checked(0, i));
}

static void test_survives_fork_in_child(void **state)
{
    (void)state;
    assert_int_equal(in_child(survives_fork), 0);
}

/* A thread forks while others grow the table: the child must be able to grow it too (the flag
   of the thread that was building must not stay taken there). */
static _Atomic bool stop_inserting;
static void *insert_until_stopped(void *argument)
{
    unsigned thread = (unsigned)(uintptr_t)argument;
    for (unsigned i = 0; i < 400000 && !stop_inserting; i++)
        if (!live_table_insert(block_address(thread, i), 1, 1, true, 1))
            break;
    return NULL;
}

static void fork_while_growing(void)
{
    CHILD_CHECK(live_table_init());
    pthread_t threads[3];
    for (unsigned t = 0; t < 3; t++)
        CHILD_CHECK(pthread_create(&threads[t], NULL, insert_until_stopped,
                                   (void *)(uintptr_t)(t + 1)) == 0);
    for (int round = 0; round < 20; round++) {
        usleep(1000);
        pid_t pid = fork();
        if (pid == 0) {
            alarm(20);
            for (unsigned i = 0; i < 300000; i++)
                CHILD_CHECK(live_table_insert(block_address(9, i), 2, 2, true, 1));
            CHILD_CHECK(!live_table_overflowed());
            _exit(0);
        }
        int status;
        CHILD_CHECK(waitpid(pid, &status, 0) == pid);
        CHILD_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }
    stop_inserting = true;
    for (unsigned t = 0; t < 3; t++)
        pthread_join(threads[t], NULL);
}

static void test_fork_while_threads_grow(void **state)
{
    (void)state;
    assert_int_equal(in_child(fork_while_growing), 0);
}

/* No memory for a larger table: the block is not tracked, and the flag says counts are partial
   (failrun then gives no leak verdict for the process). */
static void overflow(void)
{
    CHILD_CHECK(live_table_init());
    CHILD_CHECK(!live_table_overflowed());
    struct rlimit limit = {0, 0};
    CHILD_CHECK(getrlimit(RLIMIT_AS, &limit) == 0);
    limit.rlim_cur = 0; /* every new mapping fails from here on */
    CHILD_CHECK(setrlimit(RLIMIT_AS, &limit) == 0);
    bool refused = false;
    for (unsigned i = 0; i < 100000 && !refused; i++)
        refused = !live_table_insert(block_address(0, i), 1, 1, true, 1);
    CHILD_CHECK(refused);
    CHILD_CHECK(live_table_overflowed());
    CHILD_CHECK(live_count() > 3000); /* what was tracked stays tracked */
}

static void test_overflow_is_reported(void **state)
{
    (void)state;
    assert_int_equal(in_child(overflow), 0);
}

/* End to end through the interposed malloc: lf_live_since sees exactly the blocks threads
   allocated after the mark and still hold, across the table's growth. */
static pthread_barrier_t marked;
static void *allocate_blocks(void *argument)
{
    void **blocks = argument;
    pthread_barrier_wait(&marked); /* threads exist before the mark: their own set-up is older */
    for (unsigned i = 0; i < 20000; i++)
        blocks[i] = malloc(16 + i % 64);
    for (unsigned i = 0; i < 20000; i += 2) {
        free(blocks[i]);
        blocks[i] = NULL;
    }
    return NULL;
}

static void test_live_since_counts_threads_blocks(void **state)
{
    (void)state;
    static void *blocks[4][20000];
    pthread_t threads[4];
    pthread_barrier_init(&marked, NULL, 5);
    for (int t = 0; t < 4; t++)
        assert_int_equal(pthread_create(&threads[t], NULL, allocate_blocks, blocks[t]), 0);
    unsigned long long mark = lf_live_mark();
    pthread_barrier_wait(&marked);
    for (int t = 0; t < 4; t++)
        assert_int_equal(pthread_join(threads[t], NULL), 0);
    struct lf_block found[1];
    assert_int_equal(lf_live_since(mark, found, 1), 4 * 10000);
    for (int t = 0; t < 4; t++)
        for (unsigned i = 1; i < 20000; i += 2)
            free(blocks[t][i]);
    assert_int_equal(lf_live_since(mark, found, 1), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_grows_with_live_count),
        cmocka_unit_test(test_churn_keeps_the_table_small),
        cmocka_unit_test(test_grows_under_many_threads),
        cmocka_unit_test(test_churn_under_threads_keeps_the_table_small),
        cmocka_unit_test(test_survives_fork_in_child),
        cmocka_unit_test(test_fork_while_threads_grow),
        cmocka_unit_test(test_overflow_is_reported),
        cmocka_unit_test(test_live_since_counts_threads_blocks),
    };
    return cmocka_run_group_tests_name("live", tests, NULL, NULL);
}
