/*
 * test_policy.c — the policy API of libfail.h: LF_NOFAIL / LF_MAYFAIL / LF_NORETRY / LF_NOWAIT,
 * reclaim callbacks, per-thread scopes and named failpoints, in a program linked with libfail
 * (failures driven in-process with lf_fail_nth_set, real failures made with RLIMIT_AS).
 */
#include <libfail.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#define HUGE_REQUEST (SIZE_MAX / 4) /* fails for real, at once */
#define MAYFAIL_RETRIES 3           /* documented in libfail.h */

static int reclaim_calls;
static void *ballast; /* what the reclaim callback can give back */

static size_t count_reclaim(size_t wanted, void *data)
{
    (void)wanted;
    (void)data;
    reclaim_calls++;
    return 0;
}

static size_t free_ballast(size_t wanted, void *data)
{
    (void)wanted;
    (void)data;
    if (!ballast)
        return 0;
    free(ballast);
    ballast = NULL;
    return 64u << 20;
}

static int setup(void **state)
{
    (void)state;
    reclaim_calls = 0;
    lf_fail_nth_set(0);
    return 0;
}

static void test_nofail_is_never_injected_nor_counted(void **state)
{
    (void)state;
    lf_fail_nth_set(1);
    void *block = lf_malloc(16, LF_NOFAIL);
    assert_non_null(block);
    assert_int_equal(lf_fail_nth_get(), 1); /* as the kernel skips __GFP_NOFAIL: not counted */
    assert_null(malloc(16));                /* the next failable call takes the failure */
    assert_int_equal(lf_fail_nth_get(), 0);
    lf_free(block);
}

static void test_injected_failure_is_returned_at_once(void **state)
{
    (void)state;
    lf_fail_nth_set(1);
    assert_null(lf_malloc(16, LF_MAYFAIL));
    assert_int_equal(reclaim_calls, 0); /* injected: the caller's error leg runs, no retry */
    lf_fail_nth_set(1);
    assert_null(lf_calloc(4, 4, LF_MAYFAIL));
    char *block = lf_malloc(8, LF_MAYFAIL);
    assert_non_null(block);
    strcpy(block, "kept");
    lf_fail_nth_set(1);
    assert_null(lf_realloc(block, 4096, LF_MAYFAIL));
    assert_string_equal(block, "kept"); /* a failed realloc leaves the block alone */
    assert_int_equal(reclaim_calls, 0);
    lf_free(block);
}

static void test_real_failure_reclaims_and_retries(void **state)
{
    (void)state;
    assert_null(lf_malloc(HUGE_REQUEST, LF_MAYFAIL));
    assert_int_equal(reclaim_calls, MAYFAIL_RETRIES);
    reclaim_calls = 0;
    assert_null(lf_malloc(HUGE_REQUEST, LF_NORETRY));
    assert_int_equal(reclaim_calls, 0);
    assert_null(lf_malloc(HUGE_REQUEST, LF_NOWAIT)); /* retries, but may not reclaim or sleep */
    assert_int_equal(reclaim_calls, 0);
}

static void test_scope_restricts_and_nests(void **state)
{
    (void)state;
    unsigned outer = lf_scope_save(LF_NORETRY);
    assert_int_equal(outer, 0);
    assert_int_equal(lf_scope_get(), LF_NORETRY);
    assert_null(lf_malloc(HUGE_REQUEST, LF_MAYFAIL));
    assert_int_equal(reclaim_calls, 0);
    unsigned inner = lf_scope_save(LF_NOWAIT | LF_NOFAIL); /* a scope cannot add NOFAIL */
    assert_int_equal(inner, LF_NORETRY);
    assert_int_equal(lf_scope_get(), LF_NORETRY | LF_NOWAIT);
    lf_scope_restore(inner);
    assert_int_equal(lf_scope_get(), LF_NORETRY);
    lf_scope_restore(outer);
    assert_int_equal(lf_scope_get(), 0);
    assert_null(lf_malloc(HUGE_REQUEST, LF_MAYFAIL));
    assert_int_equal(reclaim_calls, MAYFAIL_RETRIES);
}

static void *scope_in_thread(void *unused)
{
    (void)unused;
    return (void *)(uintptr_t)lf_scope_get();
}

static void test_scope_is_per_thread(void **state)
{
    (void)state;
    unsigned saved = lf_scope_save(LF_NORETRY);
    pthread_t thread;
    void *theirs = (void *)1;
    assert_int_equal(pthread_create(&thread, NULL, scope_in_thread, NULL), 0);
    assert_int_equal(pthread_join(thread, &theirs), 0);
    assert_null(theirs);
    lf_scope_restore(saved);
}

static void test_scope_never_makes_nofail_failable(void **state)
{
    (void)state;
    unsigned saved = lf_scope_save(LF_NORETRY | LF_NOWAIT);
    lf_fail_nth_set(1);
    void *block = lf_malloc(32, LF_NOFAIL);
    assert_non_null(block);
    assert_int_equal(lf_fail_nth_get(), 1);
    lf_fail_nth_set(0);
    lf_scope_restore(saved);
    lf_free(block);
}

/* In a child limited by RLIMIT_AS: a request that cannot fit until the reclaim callback frees
   the ballast. NOFAIL waits for that (here inside a NORETRY scope); MAYFAIL without reclaim
   (NOWAIT) gives up. Returns the child's exit status. */
static int under_memory_limit(unsigned flags, bool in_noretry_scope)
{
    pid_t child = fork();
    if (child == 0) {
        FILE *statm = fopen("/proc/self/statm", "r");
        unsigned long pages = 0;
        if (!statm || fscanf(statm, "%lu", &pages) != 1)
            _exit(10);
        fclose(statm);
        rlim_t limit = (rlim_t)pages * (rlim_t)sysconf(_SC_PAGESIZE) + (96u << 20);
        struct rlimit rl = {limit, limit};
        if (setrlimit(RLIMIT_AS, &rl) != 0)
            _exit(11);
        ballast = malloc(64u << 20);
        if (!ballast)
            _exit(12);
        if (in_noretry_scope)
            lf_scope_save(LF_NORETRY);
        void *block = lf_malloc(48u << 20, flags);
        _exit(block ? 0 : 1);
    }
    int status = -1;
    waitpid(child, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 100;
}

static void test_nofail_waits_for_reclaim(void **state)
{
    (void)state;
    assert_int_equal(under_memory_limit(LF_NOFAIL, false), 0);
    assert_int_equal(under_memory_limit(LF_NOFAIL, true), 0);
    assert_int_equal(under_memory_limit(LF_NOFAIL | LF_NOWAIT, false), 0);
    /* The control: the same request that may fail and may not reclaim does fail. */
    assert_int_equal(under_memory_limit(LF_MAYFAIL | LF_NOWAIT, false), 1);
}

static void test_impossible_nofail_request_returns_null(void **state)
{
    (void)state;
    /* No allocator can ever serve these: NOFAIL must not spin forever. */
    assert_null(lf_calloc(SIZE_MAX / 2, 4, LF_NOFAIL | LF_NOWAIT));
    assert_null(lf_malloc(SIZE_MAX, LF_NOFAIL));
    assert_int_equal(reclaim_calls, 0);
}

static void test_failpoint_fails_like_an_allocation(void **state)
{
    (void)state;
    assert_false(LF_FAILPOINT("disarmed"));
    lf_fail_nth_set(2);
    assert_false(LF_FAILPOINT("first"));
    assert_int_equal(lf_fail_nth_get(), 1); /* a failpoint counts as a call */
    assert_true(LF_FAILPOINT("second"));
    assert_int_equal(lf_fail_nth_get(), 0);
    assert_false(LF_FAILPOINT("after")); /* one-shot */
}

int main(void)
{
    /* count_reclaim first, then free_ballast: both are called on every reclaim. */
    if (lf_reclaim_register(count_reclaim, NULL) != 0 || lf_reclaim_register(free_ballast, NULL) != 0)
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_nofail_is_never_injected_nor_counted, setup),
        cmocka_unit_test_setup(test_injected_failure_is_returned_at_once, setup),
        cmocka_unit_test_setup(test_real_failure_reclaims_and_retries, setup),
        cmocka_unit_test_setup(test_scope_restricts_and_nests, setup),
        cmocka_unit_test_setup(test_scope_is_per_thread, setup),
        cmocka_unit_test_setup(test_scope_never_makes_nofail_failable, setup),
        cmocka_unit_test_setup(test_nofail_waits_for_reclaim, setup),
        cmocka_unit_test_setup(test_impossible_nofail_request_returns_null, setup),
        cmocka_unit_test_setup(test_failpoint_fails_like_an_allocation, setup),
    };
    return cmocka_run_group_tests_name("policy", tests, NULL, NULL);
}
