/*
 * test_oom.c — the in-process API of libfail.h and the OOM loop of libfail/cmocka.h, in a
 * program linked with libfail (no preload, no failrun).
 */
#include <libfail/cmocka.h>

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static void test_fail_nth_rules(void **state)
{
    (void)state;
    lf_fail_nth_set(1);
    errno = 0;
    void *first = malloc(16);
    assert_null(first);
    assert_int_equal(errno, ENOMEM);
    assert_int_equal(lf_fail_nth_get(), 0); /* fired */
    void *after = malloc(16);                /* one-shot */
    assert_non_null(after);
    free(after);

    lf_fail_nth_set(3);
    void *one = malloc(8), *two = calloc(1, 8);
    assert_non_null(one);
    assert_non_null(two);
    assert_int_equal(lf_fail_nth_get(), 1); /* armed still: fewer calls than N */
    assert_null(aligned_alloc(16, 64));     /* the third allocation, of any kind */
    assert_int_equal(lf_fail_nth_get(), 0);
    free(one);
    free(two);
}

static int go[2];

static void *allocate_in_thread(void *unused)
{
    (void)unused;
    char byte;
    if (read(go[0], &byte, 1) != 1) /* wait until the main thread armed its own counter */
        return NULL;
    return malloc(32);
}

static void test_fail_nth_is_per_thread(void **state)
{
    (void)state;
    pthread_t thread;
    void *theirs = NULL;
    assert_int_equal(pipe(go), 0);
    assert_int_equal(pthread_create(&thread, NULL, allocate_in_thread, NULL), 0);
    lf_fail_nth_set(1); /* armed for this thread only */
    assert_int_equal(write(go[1], "x", 1), 1);
    assert_int_equal(pthread_join(thread, &theirs), 0);
    assert_non_null(theirs); /* the other thread's allocation did not fail */
    assert_int_equal(lf_fail_nth_get(), 1); /* nor did it count here */
    assert_null(malloc(8));
    assert_int_equal(lf_fail_nth_get(), 0);
    free(theirs);
    close(go[0]);
    close(go[1]);
}

static __attribute__((noinline)) void *leaky(size_t size)
{
    return malloc(size);
}

static void test_live_since_mark(void **state)
{
    (void)state;
    void *before = malloc(10);
    unsigned long long mark = lf_live_mark();
    void *kept = leaky(100);
    void *freed = malloc(50);
    free(freed);
    struct lf_block blocks[4];
    size_t count = lf_live_since(mark, blocks, 4);
    assert_int_equal(count, 1);
    assert_ptr_equal(blocks[0].address, kept);
    assert_int_equal(blocks[0].size, 100);
    Dl_info info;
    assert_true(dladdr(blocks[0].caller, &info));
    assert_non_null(strstr(info.dli_fname, "test_oom")); /* allocated by this program */
    free(kept);
    free(before);
    assert_int_equal(lf_live_since(mark, blocks, 4), 0);
}

/* A correct function with three allocations and clean error legs. */
struct pair {
    char *left, *right;
};

static struct pair *pair_new(const char *left, const char *right)
{
    struct pair *pair = calloc(1, sizeof *pair);
    if (!pair)
        return NULL;
    pair->left = malloc(strlen(left) + 1);
    pair->right = malloc(strlen(right) + 1);
    if (!pair->left || !pair->right) {
        free(pair->left);
        free(pair->right);
        free(pair);
        return NULL;
    }
    strcpy(pair->left, left);
    strcpy(pair->right, right);
    return pair;
}

static int passes;

static void build_pair(void **state)
{
    (void)state;
    passes++;
    struct pair *pair = pair_new("key", "value");
    if (!pair)
        return; /* the failure was reported: fine */
    assert_string_equal(pair->right, "value");
    free(pair->left);
    free(pair->right);
    free(pair);
}

static void test_oom_loop_counts_passes(void **state)
{
    passes = 0;
    lf_oom_run(state, build_pair, "build_pair");
    assert_int_equal(passes, 4); /* three allocations failed in turn, then one clean pass */
}

LF_OOM_TEST(build_pair)

/* Code that allocates with lf_malloc (for programs whose malloc is not interposed). */
static int lf_passes;

static void with_lf_malloc(void **state)
{
    (void)state;
    lf_passes++;
    char *a = lf_malloc(10, LF_MAYFAIL);
    char *b = lf_calloc(2, 10, LF_MAYFAIL);
    char *c = a ? lf_realloc(a, 40, LF_MAYFAIL) : NULL;
    if (c)
        a = c;
    lf_free(a);
    lf_free(b);
}

static void test_oom_loop_with_lf_malloc(void **state)
{
    lf_passes = 0;
    lf_oom_run(state, with_lf_malloc, "with_lf_malloc");
    assert_int_equal(lf_passes, 4); /* lf_malloc, lf_calloc, lf_realloc failed in turn */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fail_nth_rules),
        cmocka_unit_test(test_fail_nth_is_per_thread),
        cmocka_unit_test(test_live_since_mark),
        cmocka_unit_test(test_oom_loop_counts_passes),
        cmocka_unit_test(build_pair_oom),
        cmocka_unit_test(test_oom_loop_with_lf_malloc),
    };
    return cmocka_run_group_tests_name("oom", tests, NULL, NULL);
}
