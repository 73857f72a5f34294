/*
 * testcases_cmocka.c — a cmocka suite (tests/integration/test_testcases.sh): fork mode's children
 * end with their cmocka test case (_cmocka_run_group_tests is built in).
 * test_checked asserts its copy (a failed allocation fails the test), test_ignored passes either
 * way, test_last copies too, so the runner's next step allocates after test_ignored.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

static char *copy(const char *text)
{
    char *p = malloc(strlen(text) + 1);
    if (p)
        strcpy(p, text);
    return p;
}

static void test_checked(void **state)
{
    (void)state;
    char *p = copy("checked");
    assert_non_null(p);
    free(p);
}

static void test_ignored(void **state)
{
    (void)state;
    free(copy("ignored"));
}

static void test_last(void **state)
{
    (void)state;
    free(copy("last"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_checked),
        cmocka_unit_test(test_ignored),
        cmocka_unit_test(test_last),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
