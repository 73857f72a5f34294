/*
 * test_signature.c — site signatures are the identity of a site across runs and processes, so
 * they must not depend on where ASLR loaded the code. The test computes the signature of the same
 * calling context in itself and in two freshly exec'd copies of itself (each with its own random
 * load address) and requires all three to agree, and the load addresses to differ.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <inttypes.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "libfail.h"

static uintptr_t main_bias(void)
{
    return (uintptr_t)_r_debug.r_map->l_addr; /* the executable is the first link map entry */
}

/* Depth 1: just this call site, so the parent and the --print child (whose callers differ) must
   agree. */
static __attribute__((noinline)) uint64_t signature_here(void)
{
    return lf_site_signature(1);
}

static __attribute__((noinline)) uint64_t signature_elsewhere(void)
{
    return lf_site_signature(1);
}

/* Depth 2 tells apart two calls of the same function from different places. */
static __attribute__((noinline)) uint64_t two_deep(void)
{
    return lf_site_signature(2);
}

/* Run this program again with --print and read "signature bias" from its output. */
static void child_values(uint64_t *signature, uintptr_t *bias)
{
    char command[4200];
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    assert_true(n > 0);
    self[n] = '\0';
    snprintf(command, sizeof command, "'%s' --print", self);
    FILE *pipe = popen(command, "r");
    assert_non_null(pipe);
    assert_int_equal(fscanf(pipe, "%" SCNx64 " %" SCNxPTR, signature, bias), 2);
    assert_int_equal(pclose(pipe), 0);
}

static void test_stable_across_processes(void **state)
{
    (void)state;
    uint64_t mine = signature_here();
    uint64_t first, second;
    uintptr_t first_bias, second_bias;
    child_values(&first, &first_bias);
    child_values(&second, &second_bias);
    assert_int_equal(mine, first);
    assert_int_equal(mine, second);
    /* Without ASLR the test would prove nothing: insist that the code really moved. */
    assert_true(first_bias != second_bias || first_bias != main_bias());
}

static void test_distinct_contexts_differ(void **state)
{
    (void)state;
    assert_int_not_equal(signature_here(), signature_elsewhere());
    assert_int_equal(signature_here(), signature_here());
    uint64_t first = two_deep();
    uint64_t second = two_deep();
    assert_int_not_equal(first, second);
    uint64_t repeated[2];
    volatile int rounds = 2; /* not a constant: the loop must not be unrolled into two calls */
    for (int i = 0; i < rounds; i++)
        repeated[i] = two_deep(); /* the same call site twice: the same signature */
    assert_int_equal(repeated[0], repeated[1]);
}

static void test_version(void **state)
{
    (void)state;
    assert_string_equal(lf_version(), LIBFAIL_VERSION);
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "--print")) {
        printf("%016" PRIx64 " %" PRIxPTR "\n", signature_here(), main_bias());
        return 0;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stable_across_processes),
        cmocka_unit_test(test_distinct_contexts_differ),
        cmocka_unit_test(test_version),
    };
    return cmocka_run_group_tests_name("signature", tests, NULL, NULL);
}
