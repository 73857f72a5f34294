/*
 * test_kv.c — unit tests of the kvstore library, each run under libfail's OOM loop
 * (libfail/cmocka.h): every allocation a test makes fails once, in turn, and the test checks
 * that the library either succeeds or reports the failure, without leaking.
 *
 * kvstore carries planted bugs (see examples/README.md), so these tests FAIL, each in its own
 * way: test_put_oom crashes (null dereference), test_serialise_oom aborts (double free) and
 * test_load_oom reports a leak that a whole-program campaign cannot judge, because kvtest exits
 * with an error right after it.
 */
#include <libfail/cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "kv.h"

static void test_put(void **state)
{
    (void)state;
    kv_t *kv = kv_new();
    if (!kv)
        return;
    if (kv_put(kv, "colour", "blue") == 0)
        assert_string_equal(kv_get(kv, "colour"), "blue");
    kv_free(kv);
}

static void test_serialise(void **state)
{
    (void)state;
    kv_t *kv = kv_new();
    if (!kv)
        return;
    unsigned long armed = lf_fail_nth_get(); /* setting up is not under test: pause the count */
    lf_fail_nth_set(0);
    kv_put(kv, "a", "1");
    kv_put(kv, "b", "2");
    size_t length = 0;
    lf_fail_nth_set(armed);
    char *text = kv_serialise(kv, &length);
    if (text)
        assert_non_null(strstr(text, "a=1"));
    free(text);
    kv_free(kv);
}

static void test_load(void **state)
{
    (void)state;
    kv_t *kv = kv_new();
    if (!kv)
        return;
    if (kv_load(kv, "a=1\nb=2\n") == 0)
        assert_string_equal(kv_get(kv, "b"), "2");
    kv_free(kv);
}

LF_OOM_TEST(test_put)
LF_OOM_TEST(test_serialise)
LF_OOM_TEST(test_load)

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_put_oom),
        cmocka_unit_test(test_serialise_oom),
        cmocka_unit_test(test_load_oom),
    };
    return cmocka_run_group_tests_name("kvstore under the OOM loop", tests, NULL, NULL);
}
