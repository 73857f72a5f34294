/*
 * test_source.c — the --source and --wrapper rules that need no campaign: glob matching on a
 * source path and its base name, and the joining of comma-separated, repeated arguments; and
 * when a leak is a system library's own (system_leak_frame), on stacks made of this machine's
 * libc.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dlfcn.h>
#include <link.h>
#include <locale.h>
#include <stdlib.h>

#include "store/campaign.h"
#include "store/ingest.h"
#include "symbols/source.h"
#include "symbols/symbolise.h"

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

/* The offset in libc of a point `into` bytes inside its function `symbol` (a return address). */
static uint64_t libc_offset(void *symbol, uint64_t into, const char **path)
{
    Dl_info info;
    struct link_map *map = NULL;
    assert_true(dladdr1(symbol, &info, (void **)&map, RTLD_DL_LINKMAP) && map);
    *path = info.dli_fname;
    return (uint64_t)((uintptr_t)symbol - map->l_addr) + into;
}

static struct frame_list stack_of(int count, const struct record_frame *frames)
{
    struct frame_list list = {.count = count};
    for (int i = 0; i < count; i++)
        list.frames[i] = frames[i];
    return list;
}

/* Modules: 1 libc, 2 the program, 3 libfail's preload, 4 another (not a system) library. */
static void leak_inside_a_system_library(void **state)
{
    (void)state;
    const char *libc = NULL;
    uint64_t inner_a = libc_offset((void *)setlocale, 0x30, &libc);
    uint64_t inner_b = libc_offset((void *)setlocale, 0x60, &libc);
    uint64_t entry = libc_offset((void *)newlocale, 0x30, &libc);
    uint64_t other = libc_offset((void *)qsort, 0x30, &libc);
    uint64_t ids[] = {1, 2, 3, 4};
    char *paths[] = {(char *)libc, "/usr/bin/prog", "/usr/lib/libfail-preload.so",
                     "/usr/lib/libother.so.1"};
    struct module_map map = {4, ids, paths};
    struct symboliser *symboliser = symboliser_new();
    const struct record_frame main_call = {2, 0x1234}, interposer = {3, 0x99};
    /* The program calls the library once (`entry`); inside it one function (its frames at
       inner_a and inner_b) allocates the block, through `other`, and later fails. */
    struct record_frame leaked[] = {interposer, {1, other}, {1, inner_a}, {1, entry}, main_call};
    struct record_frame injected[] = {{1, inner_b}, {1, entry}, main_call};
    struct frame_list a = stack_of(5, leaked), b = stack_of(3, injected);
    assert_int_equal(system_leak_frame(symboliser, &map, &a, &b), 2);
    /* The block allocated in the function the program called itself (getline's buffer): it
       may be the program's to free. */
    struct record_frame leaked_entry[] = {interposer, {1, inner_a}, main_call};
    struct record_frame injected_entry[] = {{1, inner_b}, main_call};
    a = stack_of(3, leaked_entry);
    b = stack_of(2, injected_entry);
    assert_int_equal(system_leak_frame(symboliser, &map, &a, &b), -1);
    /* Two calls of the program into the library: the block may have come back to it. */
    struct record_frame injected_later[] = {{1, inner_b}, {1, entry}, {2, 0x5678}};
    a = stack_of(5, leaked);
    b = stack_of(3, injected_later);
    assert_int_equal(system_leak_frame(symboliser, &map, &a, &b), -1);
    /* A library that is not a system library (its own finding, by the usual rules). */
    struct record_frame leaked_other[] = {interposer, {4, 0x10}, {4, 0x20}, {4, 0x30}, main_call};
    struct record_frame injected_other[] = {{4, 0x40}, {4, 0x30}, main_call};
    a = stack_of(5, leaked_other);
    b = stack_of(3, injected_other);
    assert_int_equal(system_leak_frame(symboliser, &map, &a, &b), -1);
    /* Different functions below the shared entry: where the failure happened the block was
       no longer in hand (it went back through the entry). */
    struct record_frame injected_elsewhere[] = {{1, other}, {1, entry}, main_call};
    a = stack_of(5, leaked);
    b = stack_of(3, injected_elsewhere);
    assert_int_equal(system_leak_frame(symboliser, &map, &a, &b), -1);
    symboliser_free(symboliser);
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
        cmocka_unit_test(leak_inside_a_system_library),
    };
    return cmocka_run_group_tests_name("source", tests, NULL, NULL);
}
