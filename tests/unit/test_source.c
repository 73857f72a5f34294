/*
 * test_source.c — the --source and --wrapper rules that need no campaign: glob matching on a
 * source path and its base name, and the joining of comma-separated, repeated arguments.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>

#include "source.h"

static void no_globs_match_everything(void **state)
{
    (void)state;
    assert_true(source_matches(NULL, "/src/a.c"));
    assert_true(source_matches("", ""));
}

static void globs_match_path_or_base_name(void **state)
{
    (void)state;
    assert_true(source_matches("kv.c", "/work/examples/kvstore/kv.c"));
    assert_false(source_matches("kv.c", "/work/examples/kvstore/kvtest.c"));
    assert_true(source_matches("*/kvstore/kv.c", "/work/examples/kvstore/kv.c"));
    assert_true(source_matches("/work/*", "/work/examples/kvstore/kv.c"));
    assert_false(source_matches("src/*", "/work/tests/test_a.c"));
    assert_true(source_matches("src/*", "/home/me/proj/src/a.c"));
    assert_true(source_matches("proj/src/*.c", "/home/me/proj/src/a.c"));
    assert_false(source_matches("roj/src/*.c", "/home/me/proj/src/a.c"));
    assert_true(source_matches("tests/*:json_*.c", "/lib/json_object.c"));
}

static void exclusions_take_out_what_they_match(void **state)
{
    (void)state;
    /* Only exclusions: everything else is in scope (json-c: library in src/, tests in src/tests/). */
    assert_true(source_matches("!tests/*", "/cache/src/json_object.c"));
    assert_false(source_matches("!tests/*", "/cache/src/tests/test1.c"));
    /* An exclusion wins over an inclusion that also matches. */
    assert_false(source_matches("src/*:!tests/*", "/cache/src/tests/test1.c"));
    assert_true(source_matches("src/*:!tests/*", "/cache/src/linkhash.c"));
    /* With an inclusion, a file neither includes nor excludes is out. */
    assert_false(source_matches("lib/*:!lib/test_*", "/cache/src/a.c"));
    assert_false(source_matches("lib/*:!lib/test_*", "/cache/lib/test_x.c"));
    assert_true(source_matches("lib/*:!lib/test_*", "/cache/lib/x.c"));
    /* An unknown file stays out, exclusions or not. */
    assert_false(source_matches("!tests/*", ""));
}

static void unknown_file_matches_no_glob(void **state)
{
    (void)state;
    assert_false(source_matches("*", ""));
    assert_false(source_matches("*", NULL));
}

static void arguments_join_comma_separated_and_repeated(void **state)
{
    (void)state;
    char *first = source_globs_add("", "a.c,b/*.c");
    assert_string_equal(first, "a.c:b/*.c");
    char *second = source_globs_add(first, "c.c");
    assert_string_equal(second, "a.c:b/*.c:c.c");
    free(first);
    free(second);
}

static void wrapper_names(void **state)
{
    (void)state;
    assert_true(wrapper_name_pattern("jsonp_malloc"));
    assert_true(wrapper_name_pattern("xmalloc"));
    assert_true(wrapper_name_pattern("kv_xstrdup"));
    assert_true(wrapper_name_pattern("cJSON_calloc"));
    assert_true(wrapper_name_pattern("my_realloc"));
    assert_false(wrapper_name_pattern("json_object_new"));
    assert_false(wrapper_name_pattern("main"));
    assert_true(wrapper_named("jsonp_malloc", "a:jsonp_malloc"));
    assert_false(wrapper_named("jsonp_malloc2", "a:jsonp_malloc"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(no_globs_match_everything),
        cmocka_unit_test(globs_match_path_or_base_name),
        cmocka_unit_test(exclusions_take_out_what_they_match),
        cmocka_unit_test(unknown_file_matches_no_glob),
        cmocka_unit_test(arguments_join_comma_separated_and_repeated),
        cmocka_unit_test(wrapper_names),
    };
    return cmocka_run_group_tests_name("source", tests, NULL, NULL);
}
