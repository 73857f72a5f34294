/*
 * test_environment.c — the environment of a program started alone (environment.c,
 * program_environment): what it had in the baseline, without what failrun added there, plus
 * this run's values; and the helpers it rests on.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "engine/environment.h"
#include "verdict/sanitizer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The value of NAME in a NULL-terminated list, NULL when absent; *count gets how many. */
static const char *value_of(char **environment, const char *name, int *count)
{
    const char *found = NULL;
    size_t length = strlen(name);
    *count = 0;
    for (size_t i = 0; environment[i]; i++)
        if (!strncmp(environment[i], name, length) && environment[i][length] == '=') {
            found = environment[i] + length + 1;
            ++*count;
        }
    return found;
}

/* A value of ours that run_environment pads: `text`, then `pad` up to `width` characters. */
static char *padded_value(const char *text, char pad, size_t width)
{
    static char buffer[600];
    size_t length = strlen(text);
    memcpy(buffer, text, length);
    memset(buffer + length, pad, width - length);
    buffer[width] = '\0';
    return buffer;
}

static void check_value(char **environment, const char *name, const char *expected)
{
    int count;
    const char *value = value_of(environment, name, &count);
    if (!expected) {
        assert_null(value);
        return;
    }
    assert_non_null(value);
    assert_string_equal(value, expected);
    assert_int_equal(count, 1);
}

static struct campaign_settings settings(void)
{
    struct campaign_settings s = {.depth = 8, .scope = (char *)"", .module_globs = (char *)""};
    return s;
}

static void test_baseline_values_replaced(void **state)
{
    (void)state;
    setenv("LIBFAIL_PRELOAD", "/opt/libfail/libfail-preload.so", 1);
    unsetenv("ASAN_OPTIONS");
    unsetenv("UBSAN_OPTIONS");
    char *recorded[] = {
        "HOME=/home/me",
        "LD_PRELOAD=/opt/libfail/libfail-preload.so:/usr/lib/libjemalloc.so.2",
        "LIBFAIL_DIR=/tmp/campaign/runs/1-100",
        "LIBFAIL_PLAN=mode=record;depth=8",
        "LIBFAIL_EXE=*",
        "LIBFAIL_FAIL_NTH=3",
        "GCOV_PREFIX=/tmp/campaign/runs/1-100.gcov",
        "GCOV_PREFIX_STRIP=0",
        "ASAN_OPTIONS=detect_leaks=0:verify_asan_link_order=0:log_path=/tmp/campaign/runs/1-100/"
        "sanitizer:symbolize=0",
        "UBSAN_OPTIONS=print_stacktrace=1:log_path=/tmp/campaign/runs/1-100/sanitizer:symbolize=0",
        "SUITE_TOKEN=s3cret",
        "GCOV_PREFIXES=not ours",
        NULL,
    };
    struct campaign_settings s = settings();
    char **environment = program_environment(&s, recorded, "/scratch/runs/7-100", "mode=site;sites=x");
    check_value(environment, "HOME", "/home/me");
    check_value(environment, "SUITE_TOKEN", "s3cret"); /* set by the driver: kept */
    check_value(environment, "GCOV_PREFIXES", "not ours");
    /* Ours renewed for this run, the other preload kept behind ours. */
    check_value(environment, "LD_PRELOAD",
                 "/opt/libfail/libfail-preload.so:/usr/lib/libjemalloc.so.2");
    /* Padded to one length whatever the run (trailing slashes, empty plan fields). */
    check_value(environment, "LIBFAIL_DIR", padded_value("/scratch/runs/7-100", '/', RUN_DIR_WIDTH));
    check_value(environment, "LIBFAIL_PLAN", padded_value("mode=site;sites=x", ';', RUN_PLAN_WIDTH));
    check_value(environment, "LIBFAIL_EXE", padded_value("", ':', RUN_SCOPE_WIDTH));
    check_value(environment, "LIBFAIL_FAIL_NTH", NULL); /* an exec wrapper's, not this run's */
    check_value(environment, "GCOV_PREFIX",
                padded_value("/scratch/runs/7-100.gcov", '/', RUN_DIR_WIDTH + 5));
    check_value(environment, "GCOV_PREFIX_STRIP", "0");
    /* The user's sanitizer options stay; failrun's log folder is this run's. */
    char expected[800];
    snprintf(expected, sizeof expected,
             "detect_leaks=0:verify_asan_link_order=0:log_path=%s/sanitizer:symbolize=0",
             padded_value("/scratch/runs/7-100", '/', RUN_DIR_WIDTH));
    check_value(environment, "ASAN_OPTIONS", expected);
    snprintf(expected, sizeof expected, "print_stacktrace=1:log_path=%s/sanitizer:symbolize=0",
             padded_value("/scratch/runs/7-100", '/', RUN_DIR_WIDTH));
    check_value(environment, "UBSAN_OPTIONS", expected);
    /* The order of the program's own variables is kept. */
    assert_string_equal(environment[0], "HOME=/home/me");
    environment_free(environment);
}

static void test_driver_values_kept(void **state)
{
    (void)state;
    setenv("LIBFAIL_PRELOAD", "/opt/libfail/libfail-preload.so", 1);
    /* A driver that set its own sanitizer options (none of failrun's in them) and preloads
       nothing else. */
    char *recorded[] = {
        "LD_PRELOAD=/opt/libfail/libfail-preload.so",
        "ASAN_OPTIONS=halt_on_error=0",
        NULL,
    };
    struct campaign_settings s = settings();
    char **environment = program_environment(&s, recorded, "/r", "mode=record;depth=8");
    check_value(environment, "LD_PRELOAD", "/opt/libfail/libfail-preload.so");
    check_value(environment, "ASAN_OPTIONS", "halt_on_error=0");
    /* It had none: failrun's own, so reports of a sanitized build land in the run. */
    char expected[800];
    snprintf(expected, sizeof expected, "print_stacktrace=1:log_path=%s/sanitizer:symbolize=0",
             padded_value("/r", '/', RUN_DIR_WIDTH));
    check_value(environment, "UBSAN_OPTIONS", expected);
    environment_free(environment);
}

static void test_sanitizer_user_options(void **state)
{
    (void)state;
    bool ours;
    char *user = sanitizer_user_options("a=1:b=2:verify_asan_link_order=0:log_path=/x/sanitizer:"
                                        "symbolize=0", false, &ours);
    assert_true(ours);
    assert_string_equal(user, "a=1:b=2");
    free(user);
    assert_null(sanitizer_user_options("verify_asan_link_order=0:log_path=/x/sanitizer:symbolize=0",
                                       false, &ours));
    assert_true(ours);
    assert_null(sanitizer_user_options("a=1:symbolize=0", false, &ours));
    assert_false(ours);
    assert_null(sanitizer_user_options("xverify_asan_link_order=0:log_path=/x/s:symbolize=0", false,
                                       &ours));
    assert_false(ours); /* not at an option's start */
}

static void test_strings_and_titles(void **state)
{
    (void)state;
    char **list = strings_from_blob("./t\0-v\0a b\0", 11);
    assert_string_equal(list[0], "./t");
    assert_string_equal(list[1], "-v");
    assert_string_equal(list[2], "a b");
    assert_null(list[3]);
    char *title = program_title("/build/bin/test_x", list);
    assert_string_equal(title, "test_x -v 'a b'");
    free(title);
    environment_free(list);
    list = strings_from_blob(NULL, 0);
    assert_null(list[0]);
    environment_free(list);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_baseline_values_replaced),
        cmocka_unit_test(test_driver_values_kept),
        cmocka_unit_test(test_sanitizer_user_options),
        cmocka_unit_test(test_strings_and_titles),
    };
    return cmocka_run_group_tests_name("environment", tests, NULL, NULL);
}
