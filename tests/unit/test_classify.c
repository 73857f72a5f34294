/*
 * test_classify.c — each outcome rule of classify(), and the order in which they apply.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <signal.h>

#include "verdict/boundary.h"
#include "verdict/classify.h"
#include "format/record.h"

static const struct baseline_observation clean = {.exit_code = 0, .signal = 0};

static struct observation absorbed_run(void)
{
    return (struct observation){.fault_fired = true, .stdout_same = true, .stderr_same = true,
                                .stderr_text = ""};
}

static void test_not_reached_and_hang(void **state)
{
    (void)state;
    struct observation run = absorbed_run();
    run.fault_fired = false;
    run.crash_signal = SIGSEGV; /* without our fault, whatever happened is not ours */
    assert_int_equal(classify(&run, &clean), OUTCOME_NOT_REACHED);
    run = absorbed_run();
    run.timed_out = true;
    run.signal = SIGKILL;
    assert_int_equal(classify(&run, &clean), OUTCOME_HANG);
}

static void test_crashes(void **state)
{
    (void)state;
    struct observation run = absorbed_run();
    run.crash_signal = SIGSEGV;
    assert_int_equal(classify(&run, &clean), OUTCOME_CRASH);
    run = absorbed_run();
    run.signal = SIGBUS; /* only the exit status tells */
    assert_int_equal(classify(&run, &clean), OUTCOME_CRASH);
    run = absorbed_run();
    run.crash_signal = SIGABRT;
    run.ended_in_caller = true;
    run.stderr_text = "free(): double free detected in tcache 2\n";
    assert_int_equal(classify(&run, &clean), OUTCOME_CRASH);
    run.stderr_text = "prog: prog.c:12: main: Assertion `p' failed.\n";
    assert_int_equal(classify(&run, &clean), OUTCOME_CRASH);
    run.stderr_text = ""; /* a harness hid the message: the allocator on the stack tells */
    run.in_allocator = true;
    assert_int_equal(classify(&run, &clean), OUTCOME_CRASH);
    run.in_allocator = false;
    run.ended_in_caller = false;
    assert_int_equal(classify(&run, &clean), OUTCOME_CRASH); /* abort far from the failure */
}

static void test_oom_abort(void **state)
{
    (void)state;
    struct observation run = absorbed_run();
    run.crash_signal = SIGABRT;
    run.ended_in_caller = true;
    run.stderr_text = "xmalloc: out of memory\n";
    assert_int_equal(classify(&run, &clean), OUTCOME_OOM_ABORT);
    run = absorbed_run();
    run.exit_code = 1;
    run.ended_in_caller = true;
    assert_int_equal(classify(&run, &clean), OUTCOME_OOM_ABORT);
}

static void test_handled(void **state)
{
    (void)state;
    struct observation run = absorbed_run();
    run.exit_code = 1;
    run.stderr_same = false;
    assert_int_equal(classify(&run, &clean), OUTCOME_HANDLED);
    run = absorbed_run();
    run.stderr_same = false; /* a warning, and output exactly as without the failure */
    assert_int_equal(classify(&run, &clean), OUTCOME_HANDLED);
}

static void test_silent_absorbed(void **state)
{
    (void)state;
    struct observation run = absorbed_run();
    assert_int_equal(classify(&run, &clean), OUTCOME_ABSORBED);
    run.stdout_same = false;
    assert_int_equal(classify(&run, &clean), OUTCOME_SILENT);
    /* A warning on the way to a wrong result with the baseline's status is no report: the
       regex that failed to compile, the document cut short after "out of memory". */
    run.stderr_same = false;
    run.stderr_text = "warning: regex: out of memory\n";
    assert_int_equal(classify(&run, &clean), OUTCOME_SILENT);
    run.exit_code = 1; /* reported through the status: handled */
    assert_int_equal(classify(&run, &clean), OUTCOME_HANDLED);
    struct baseline_observation failing = {.exit_code = 2};
    run = absorbed_run();
    run.exit_code = 2;
    assert_int_equal(classify(&run, &failing), OUTCOME_ABSORBED);
}

static void test_sanitizer(void **state)
{
    (void)state;
    struct observation run = absorbed_run();
    run.sanitizer = true;
    run.exit_code = 1; /* sanitizers exit 1: the report, not the status, decides */
    assert_int_equal(classify(&run, &clean), OUTCOME_SANITIZER);
    run.sanitizer_crash = true; /* ASan caught a SEGV */
    assert_int_equal(classify(&run, &clean), OUTCOME_CRASH);
    run.timed_out = true;
    assert_int_equal(classify(&run, &clean), OUTCOME_HANG);
}

/* A leak is checked only in runs that ended as the baseline did; the outcome comes first. */
static void test_leak_possible(void **state)
{
    (void)state;
    struct observation run = absorbed_run();
    assert_true(leak_possible(OUTCOME_ABSORBED, &run, &clean));
    assert_true(leak_possible(OUTCOME_SILENT, &run, &clean));
    assert_true(leak_possible(OUTCOME_HANDLED, &run, &clean)); /* a message, the same status */
    assert_false(leak_possible(OUTCOME_OOM_ABORT, &run, &clean));
    assert_false(leak_possible(OUTCOME_CRASH, &run, &clean));
    assert_false(leak_possible(OUTCOME_HANG, &run, &clean));
    assert_false(leak_possible(OUTCOME_NOT_REACHED, &run, &clean));
    run.exit_code = 1; /* an error exit leaves blocks behind on purpose */
    assert_false(leak_possible(OUTCOME_HANDLED, &run, &clean));
    struct baseline_observation failing = {.exit_code = 1};
    assert_true(leak_possible(OUTCOME_HANDLED, &run, &failing));
    for (int status = 0; status < 2; status++) {
        run.exit_code = status;
        run.stdout_same = status == 0;
        assert_int_not_equal(classify(&run, &clean), OUTCOME_LEAK);
    }
}

static void test_names(void **state)
{
    (void)state;
    for (int i = 0; i < OUTCOME_COUNT; i++)
        assert_int_equal(outcome_from_name(outcome_name(i)), i);
    assert_int_equal(outcome_from_name("segfault"), -1);
    assert_true(outcome_is_bug(OUTCOME_LEAK));
    assert_true(outcome_is_bug(OUTCOME_KERNEL)); /* the kernel's own WARN, BUG or oops */
    assert_string_equal(outcome_name(OUTCOME_KERNEL), "kernel");
    assert_false(outcome_is_bug(OUTCOME_OOM_ABORT));
    /* A crash in the caller's code outside --source: listed, never a finding. */
    assert_string_equal(outcome_name(OUTCOME_CALLER_CRASH), "caller-crash");
    assert_false(outcome_is_bug(OUTCOME_CALLER_CRASH));
}

/* The library boundary's verdict on a value, from the classes the function returned unfailed. */
static void test_api_verdicts(void **state)
{
    (void)state;
    uint64_t address = 0x7f1234567890ull, minus_one = 0xffffffffull, enomem = (uint64_t)-12;
    uint64_t pointer = boundary_classes(address), lookup = pointer | boundary_classes(0);
    /* A constructor that always returned an address: NULL reports, an address is success. */
    assert_int_equal(api_verdict(NULL, "f", pointer, 0, 0), API_REPORTED);
    assert_int_equal(api_verdict(NULL, "f", pointer, 0, address), API_SWALLOWED);
    /* A lookup or parser that returned NULL unfailed too: its NULL cannot be told apart... */
    assert_int_equal(api_verdict(NULL, "f", lookup, 0, 0), API_UNKNOWN);
    assert_int_equal(api_verdict(NULL, "f", lookup, lookup, 0), API_UNKNOWN);
    /* ...unless this call of it never returned NULL unfailed (the parse of good input). */
    assert_int_equal(api_verdict(NULL, "f", lookup, pointer, 0), API_REPORTED);
    assert_int_equal(api_verdict(NULL, "f", lookup, pointer, address), API_SWALLOWED);
    /* ...or always returned NULL there (a file the test expects to be missing). */
    assert_int_equal(api_verdict(NULL, "f", lookup, boundary_classes(0), 0), API_REPORTED);
    /* 0 on success, never negative: -1 and -ENOMEM report. */
    assert_int_equal(api_verdict(NULL, "f", boundary_classes(0), 0, minus_one), API_REPORTED);
    assert_int_equal(api_verdict(NULL, "f", boundary_classes(0), 0, enomem), API_REPORTED);
    /* 0 is all it returned unfailed: an int's success or a pointer's NULL, unknown. */
    assert_int_equal(api_verdict(NULL, "f", boundary_classes(0), 0, 0), API_UNKNOWN);
    assert_int_equal(api_verdict(NULL, "f", boundary_classes(0), boundary_classes(0), 0),
                     API_UNKNOWN);
    /* -1 also returned unfailed (another error): unknown; 0 still success. */
    uint64_t both = boundary_classes(0) | boundary_classes(minus_one);
    assert_int_equal(api_verdict(NULL, "f", both, 0, minus_one), API_UNKNOWN);
    assert_int_equal(api_verdict(NULL, "f", both, boundary_classes(0), minus_one), API_REPORTED);
    assert_int_equal(api_verdict(NULL, "f", both, both, minus_one), API_UNKNOWN);
    assert_int_equal(api_verdict(NULL, "f", both, 0, 0), API_SWALLOWED);
    /* A bool that was always true: false reports, true is success; true and false: unknown. */
    assert_int_equal(api_verdict(NULL, "f", boundary_classes(1), 0, 0), API_REPORTED);
    assert_int_equal(api_verdict(NULL, "f", boundary_classes(1), 0, 1), API_SWALLOWED);
    assert_int_equal(api_verdict(NULL, "f", boundary_classes(1) | boundary_classes(0), 0, 0),
                     API_UNKNOWN);
    /* 0 for success and a positive code for each error (libtasn1): a positive value cannot be
       told from a count by the function alone... */
    uint64_t codes = boundary_classes(0) | boundary_classes(3);
    assert_int_equal(api_verdict(NULL, "f", codes, 0, 13), API_UNKNOWN);
    assert_int_equal(api_verdict(NULL, "f", codes, codes, 13), API_UNKNOWN);
    /* ...but at a call that only ever returned 0 unfailed it is the failure's error code. */
    assert_int_equal(api_verdict(NULL, "f", codes, boundary_classes(0), 13), API_REPORTED);
    /* A count that may be 0, with -1 for an error: a positive value is success. */
    uint64_t counts = codes | boundary_classes(minus_one);
    assert_int_equal(api_verdict(NULL, "f", counts, 0, 7), API_SWALLOWED);
    /* A count that is never 0 is still success when positive, whatever the call. */
    assert_int_equal(api_verdict(NULL, "f", boundary_classes(3), boundary_classes(3), 13),
                     API_SWALLOWED);
    /* Never returned unfailed: no convention. */
    assert_int_equal(api_verdict(NULL, "f", 0, 0, 0), API_UNKNOWN);
    /* A --returns rule decides, whatever was learned. */
    assert_int_equal(api_verdict("g=null:f=zero", "f", pointer, 0, 0), API_REPORTED);
    assert_int_equal(api_verdict("f=zero", "f", boundary_classes(0), 0, minus_one), API_SWALLOWED);
    assert_int_equal(api_verdict("f=false", "f", 0, 0, 0x100), API_REPORTED); /* low byte 0 */
    assert_true(returns_rule_valid("f=negative"));
    assert_false(returns_rule_valid("f=maybe"));
    assert_false(returns_rule_valid("=null"));
    assert_string_equal(api_convention(NULL, "f", pointer), "NULL");
    assert_string_equal(api_convention("f=zero", "f", pointer), "0");
    /* Only 0 returned unfailed: no convention told (json_pack_ex, called to see it fail). */
    assert_string_equal(api_convention(NULL, "f", boundary_classes(0)),
                        "a negative int (0, all it returned unfailed, tells nothing)");
    assert_string_equal(api_convention(NULL, "f", lookup), "NULL, at a call that never returned it unfailed");
    assert_string_equal(api_convention(NULL, "f", boundary_classes(0) | boundary_classes(3)),
                        "a negative int; a positive one at a call that only returned 0 unfailed");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_not_reached_and_hang), cmocka_unit_test(test_crashes),
        cmocka_unit_test(test_oom_abort),            cmocka_unit_test(test_handled),
        cmocka_unit_test(test_silent_absorbed),      cmocka_unit_test(test_names),
        cmocka_unit_test(test_leak_possible),
        cmocka_unit_test(test_sanitizer),           cmocka_unit_test(test_api_verdicts),
    };
    return cmocka_run_group_tests_name("classify", tests, NULL, NULL);
}
