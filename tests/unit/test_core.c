/*
 * test_core.c — the in-target core's pure parts: globs, number text, plans, the fail-nth rule,
 * record validation.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "internal.h"

static void test_glob(void **state)
{
    (void)state;
    assert_true(glob_match("*", "/usr/bin/make"));
    assert_true(glob_match("*/examples/*", "/work/build/examples/kvtest"));
    assert_true(glob_match("*kvtest", "/work/build/examples/kvtest"));
    assert_false(glob_match("*kvtest", "/work/build/examples/kvtest2"));
    assert_true(glob_match("kv?est", "kvtest"));
    assert_false(glob_match("kv?est", "kvest"));
    assert_true(glob_match("lib[a-c]x", "libbx"));
    assert_false(glob_match("lib[!a-c]x", "libbx"));
    assert_true(glob_match("lib[!a-c]x", "libdx"));
    assert_false(glob_match("lib[ab", "liba")); /* unterminated class never matches */
    assert_true(glob_match("a*b*c", "aXXbYYbZc"));
    assert_false(glob_match("a*b*c", "aXXbYYbZ"));
    assert_true(glob_match("", ""));
    assert_false(glob_match("", "x"));
    assert_true(glob_list_match("*/sh:*/kvtest", "/x/kvtest"));
    assert_false(glob_list_match("*/sh:*/make", "/x/kvtest"));
    assert_false(glob_list_match("", "/x/kvtest"));
}

/* A campaign's scope: globs that take, "!GLOB"s that leave out (a suite's fixtures). */
static void test_scope(void **state)
{
    (void)state;
    assert_true(scope_match("", "/x/kvtest"));          /* empty: everything of the user's */
    assert_false(scope_match("", "/usr/bin/sh"));
    assert_true(scope_match(":::", "/x/kvtest"));       /* padding only */
    assert_true(scope_match(NULL, "/x/kvtest"));
    assert_false(scope_match("!/x/server", "/x/server")); /* left out */
    assert_true(scope_match("!/x/server", "/x/client"));  /* the rest as with none */
    assert_false(scope_match("!/x/server", "/bin/sh"));
    assert_false(scope_match("!/x/server:::", "/x/server"));
    assert_true(scope_match("*/sh", "/bin/sh"));          /* a glob that takes wins over system */
    assert_false(scope_match("*/sh", "/x/kvtest"));
    assert_false(scope_match("/x/*:!/x/server", "/x/server"));
    assert_true(scope_match("/x/*:!/x/server", "/x/client"));
    assert_false(scope_match("!", "/bin/sh"));            /* a bare "!" is no entry */
    assert_true(scope_match("!", "/x/kvtest"));
}

static void test_numbers(void **state)
{
    (void)state;
    char buffer[32];
    size_t n = format_decimal(buffer, 18446744073709551615ull);
    buffer[n] = '\0';
    assert_string_equal(buffer, "18446744073709551615");
    n = format_decimal(buffer, 0);
    buffer[n] = '\0';
    assert_string_equal(buffer, "0");
    n = format_hex16(buffer, 0x1fd079984ff7963dull);
    buffer[n] = '\0';
    assert_string_equal(buffer, "1fd079984ff7963d");
    uint64_t value = 0;
    assert_true(parse_hex("1fd079984ff7963d", 16, &value));
    assert_int_equal(value, 0x1fd079984ff7963dull);
    assert_false(parse_hex("1fd07998xff7963d", 16, &value));
    assert_false(parse_hex("11112222333344445", 17, &value));
    assert_true(parse_decimal("123", 3, &value));
    assert_int_equal(value, 123);
    assert_false(parse_decimal("12a", 3, &value));
    assert_false(parse_decimal("", 0, &value));
}

static void test_plan_valid(void **state)
{
    (void)state;
    struct plan plan;
    assert_null(plan_parse("mode=record", &plan));
    assert_int_equal(plan.mode, PLAN_RECORD);
    assert_int_equal(plan.depth, LF_DEFAULT_DEPTH);
    assert_null(plan_parse("mode=site;sites=00000000000000ff:3;depth=12", &plan));
    assert_int_equal(plan.mode, PLAN_SITE);
    assert_int_equal(plan.fault_count, 1);
    assert_int_equal(plan.faults[0].site, 0xff);
    assert_int_equal(plan.faults[0].occurrence, 3);
    assert_false(plan.persistent);
    assert_int_equal(plan.depth, 12);
    assert_null(plan_parse("mode=site;sites=00000000000000aa,00000000000000bb:2;persistent=1",
                           &plan));
    assert_int_equal(plan.fault_count, 2);
    assert_int_equal(plan.faults[0].site, 0xaa);
    assert_int_equal(plan.faults[0].occurrence, 1); /* default */
    assert_int_equal(plan.faults[1].site, 0xbb);
    assert_int_equal(plan.faults[1].occurrence, 2);
    assert_true(plan.persistent);
    assert_null(plan_parse("depth=2;mode=nth;nth=7", &plan));
    assert_int_equal(plan.mode, PLAN_NTH);
    assert_int_equal(plan.nth, 7);
    assert_int_equal(plan.depth, 2);
    assert_null(plan_parse("mode=random;probability=0.25;seed=9", &plan));
    assert_int_equal(plan.mode, PLAN_RANDOM);
    assert_int_equal(plan.probability, 1ull << 30);
    assert_int_equal(plan.seed, 9);
    assert_null(plan_parse("mode=random;probability=1", &plan));
    assert_int_equal(plan.probability, 1ull << 32);
    assert_null(plan_parse("mode=fork;jobs=4;timeout=2500;depth=6", &plan));
    assert_int_equal(plan.mode, PLAN_FORK);
    assert_int_equal(plan.jobs, 4);
    assert_int_equal(plan.timeout_ms, 2500);
    assert_int_equal(plan.depth, 6);
    assert_null(plan_parse("mode=fork", &plan));
    assert_int_equal(plan.jobs, 1); /* default: one child at a time */
    assert_int_equal(plan.timeout_ms, 0);
    assert_string_equal(plan.tests, ""); /* the built-in runners only */
    assert_null(plan_parse("mode=fork;tests=run_one:int,suite_step;;;;", &plan));
    assert_string_equal(plan.tests, "run_one:int,suite_step");
    /* The kinds of call that are sites: allocations unless faults= says otherwise. */
    assert_int_equal(plan.fault_kinds, PLAN_FAULT_ALLOC);
    assert_null(plan_parse("mode=start;jobs=2;timeout=900;depth=8;faults=alloc,io", &plan));
    assert_int_equal(plan.mode, PLAN_START); /* a program's runs forked before its main */
    assert_int_equal(plan.jobs, 2);
    assert_int_equal(plan.timeout_ms, 900);
    assert_int_equal(plan.fault_kinds, PLAN_FAULT_ALLOC | PLAN_FAULT_IO);
    assert_null(plan_parse("mode=site;sites=00000000000000ff;faults=alloc,io", &plan));
    assert_int_equal(plan.fault_kinds, PLAN_FAULT_ALLOC | PLAN_FAULT_IO);
    assert_null(plan_parse("faults=io,alloc;mode=record", &plan));
    assert_int_equal(plan.fault_kinds, PLAN_FAULT_ALLOC | PLAN_FAULT_IO);
    assert_null(plan_parse("mode=nth;nth=3;faults=io", &plan));
    assert_int_equal(plan.fault_kinds, PLAN_FAULT_IO);
    assert_null(plan_parse("mode=kernel;sites=00000000000000ff:2;nth=3;depth=8", &plan));
    assert_int_equal(plan.mode, PLAN_KERNEL);
    assert_false(plan.kernel_wrappers); /* every system call trapped, unless asked */
    assert_null(plan_parse("mode=kernel;depth=8;wrappers=1", &plan));
    assert_true(plan.kernel_wrappers);
    /* The CPU a process may use once its fault fired: none unless given. */
    assert_int_equal(plan.cpu_ms, 0);
    assert_null(plan_parse("mode=site;sites=00000000000000ff;cpu=1543", &plan));
    assert_int_equal(plan.cpu_ms, 1543);
    assert_null(plan_parse("mode=record;depth=8;cpu=2000", &plan));
    assert_int_equal(plan.cpu_ms, 2000);
}

static void test_plan_invalid(void **state)
{
    (void)state;
    struct plan plan;
    const char *bad[] = {
        NULL, "", "mode=fail", "mode=site", "mode=site;sites=ff", "mode=site;sites=zz00000000000000",
        "mode=record;depth=0", "mode=record;depth=29", "mode=record;colour=red", "mode",
        "mode=site;sites=00000000000000ff:0", "mode=site;sites=00000000000000ff:x",
        "mode=site;sites=00000000000000ff,", "mode=site;sites=00000000000000ff;persistent=2",
        "mode=site;sites=1111111111111111,2222222222222222,3333333333333333,4444444444444444,"
        "5555555555555555,6666666666666666,7777777777777777,8888888888888888,9999999999999999",
        "mode=nth", "mode=nth;nth=x", "depth=8", "mode=random", "mode=random;probability=0",
        "mode=random;probability=1.5", "mode=random;probability=.", "mode=random;probability=0.1x",
        "mode=random;probability=4294967296.5", /* wrapped to 0.5 before a review caught it */
        "mode=fork;jobs=0", "mode=fork;jobs=65", "mode=starts", "mode=start;jobs=0", "mode=fork;timeout=-1", "mode=fork;timeout=",
        "mode=site;sites=00000000000000ff;cpu=", "mode=site;sites=00000000000000ff;cpu=1.5",
        "mode=record;faults=", "mode=record;faults=disk", "mode=record;faults=io,io",
        "mode=record;faults=alloc,", "mode=record;faults=,io", "mode=kernel;faults=io",
        "mode=kernel;wrappers=2", "mode=kernel;wrappers=", "mode=kernel;nth=3",
        "mode=fork;tests=", "mode=fork;tests=a b", "mode=fork;tests=f(x)",
        "mode=fork;tests=f_0123456789_0123456789_0123456789_0123456789_0123456789_0123456789_"
        "0123456789_0123456789_0123456789_0123456789_0123456789_0123456789_0123456789_0123456789_"
        "0123456789_0123456789_0123456789_0123456789_0123456789_0123456789_0123456789_0123456789_"
        "012345678901", /* 256 bytes: one more than fits */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        plan.mode = PLAN_RECORD;
        const char *error = plan_parse(bad[i], &plan);
        if (!error)
            fail_msg("accepted: %s", bad[i] ? bad[i] : "(null)");
        assert_int_equal(plan.mode, PLAN_OFF); /* a bad plan never half-applies */
    }
}

/* The same seed gives the same decisions, and the rate follows the probability. */
static void test_random(void **state)
{
    (void)state;
    uint64_t a = 42, b = 42;
    int hits = 0;
    for (int i = 0; i < 100000; i++) {
        bool first = random_tick(&a, 1ull << 30);
        assert_int_equal(first, random_tick(&b, 1ull << 30));
        hits += first;
    }
    assert_in_range(hits, 24000, 26000); /* 25 % */
    uint64_t always = 7;
    for (int i = 0; i < 1000; i++)
        assert_true(random_tick(&always, 1ull << 32));
}

/* The kernel's fail-nth rules, one by one (Documentation/fault-injection/fault-injection.rst). */
static void test_fail_nth(void **state)
{
    (void)state;
    uint64_t counter = 0;
    assert_false(fail_nth_tick(&counter)); /* 0: disarmed, nothing fails */
    assert_int_equal(counter, 0);
    counter = 1; /* 1-based: writing 1 fails the very next call */
    assert_true(fail_nth_tick(&counter));
    assert_int_equal(counter, 0); /* reading back 0 means it fired */
    assert_false(fail_nth_tick(&counter)); /* one-shot */
    counter = 3;
    assert_false(fail_nth_tick(&counter));
    assert_false(fail_nth_tick(&counter));
    assert_int_equal(counter, 1); /* fewer calls than N: still armed, non-zero */
    assert_true(fail_nth_tick(&counter));
    assert_false(fail_nth_tick(&counter));
}

static struct record valid_record(void)
{
    struct record r;
    memset(&r, 0, sizeof r);
    r.magic = RECORD_MAGIC;
    r.type = RECORD_SITE;
    r.function = FUNCTION_MALLOC;
    r.frame_count = 2;
    r.body.frames[0].module = 1;
    r.body.frames[0].offset = 0x1234;
    r.checksum = record_checksum(&r);
    return r;
}

static void test_record_check(void **state)
{
    (void)state;
    struct record r = valid_record();
    assert_null(record_check(&r));
    r.body.frames[0].offset ^= 1; /* any flipped bit breaks the checksum */
    assert_string_equal(record_check(&r), "checksum mismatch");
    r = valid_record();
    r.magic = 0;
    assert_string_equal(record_check(&r), "bad magic");
    r = valid_record();
    r.frame_count = RECORD_MAX_FRAMES + 1;
    r.checksum = record_checksum(&r);
    assert_string_equal(record_check(&r), "frame count out of range");
    r = valid_record();
    r.type = RECORD_TYPE_LIMIT;
    r.checksum = record_checksum(&r);
    assert_string_equal(record_check(&r), "unknown record type");
    r = valid_record();
    r.function = FUNCTION_LIMIT;
    r.checksum = record_checksum(&r);
    assert_string_equal(record_check(&r), "unknown function");
    r = valid_record();
    r.function = FUNCTION_SYSCALL_FIRST + 257; /* a trapped system call: openat */
    r.checksum = record_checksum(&r);
    assert_null(record_check(&r));
    r.function = FUNCTION_SYSCALL_LIMIT;
    r.checksum = record_checksum(&r);
    assert_string_equal(record_check(&r), "unknown function");
    r.function = FUNCTION_SYSCALL_FIRST - 1;
    r.checksum = record_checksum(&r);
    assert_string_equal(record_check(&r), "unknown function");
    r = valid_record();
    r.type = RECORD_MODULE;
    r.frame_count = 0;
    memset(r.body.text.path, 'a', sizeof r.body.text.path); /* no terminating NUL */
    r.checksum = record_checksum(&r);
    assert_string_equal(record_check(&r), "unterminated path");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_glob),         cmocka_unit_test(test_scope),         cmocka_unit_test(test_numbers),
        cmocka_unit_test(test_plan_valid),   cmocka_unit_test(test_plan_invalid),
        cmocka_unit_test(test_fail_nth),     cmocka_unit_test(test_record_check),
        cmocka_unit_test(test_random),
    };
    return cmocka_run_group_tests_name("core", tests, NULL, NULL);
}
