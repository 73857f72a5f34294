/*
 * testcases.c — a suite whose test cases all run in one process, as expat's runtests runs them
 * (tests/integration/test_testcases.sh).
 *
 *   testcases            a minicheck-style runner: srunner_run_all calls each test's setup, the
 *                        test and its teardown; a failed check longjmps back into the runner
 *   testcases loop       main's loop calls run_one(i) for each test, which returns 0 when the
 *                        test passed (failrun --test-case run_one:int)
 *   testcases broken     the runner, with a last test that always fails: the suite exits 1
 *                        without any fault
 *
 * Each test copies a string (an allocation site of its own) and reacts to a failure its way:
 * test_checked fails the test, test_ignored passes anyway, test_unchecked writes through NULL.
 * test_last allocates nothing; it prints "last test ran", and a fork child that stops at the end
 * of its own test case never prints it. Exit status: the number of failed tests.
 */
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static jmp_buf env;
static char *fixture;

static char *copy(const char *text)
{
    char *p = malloc(strlen(text) + 1);
    if (p)
        strcpy(p, text);
    return p;
}

static void fail(const char *message)
{
    fprintf(stderr, "ERROR: %s\n", message);
    longjmp(env, 1);
}

static void setup(void)
{
    fixture = copy("fixture");
    if (!fixture)
        fail("no fixture"); /* LEG */
}

static void teardown(void)
{
    free(fixture);
    fixture = NULL;
}

static void test_checked(void)
{
    char *p = copy("checked");
    if (!p)
        fail("copy failed"); /* LEG */
    free(p);
}

static void test_ignored(void)
{
    char *p = copy("ignored");
    free(p); /* a NULL copy passes too */
}

static void test_unchecked(void)
{
    char *p = copy("unchecked");
    p[0] = 'U';
    free(p);
}

static void test_last(void)
{
    puts("last test ran");
}

static void test_broken(void)
{
    fail("always fails");
}

struct test {
    const char *name;
    void (*run)(void);
};
static const struct test tests[] = {
    {"checked", test_checked},
    {"ignored", test_ignored},
    {"unchecked", test_unchecked},
    {"last", test_last},
    {"broken", test_broken},
};
static int test_count = (int)(sizeof tests / sizeof tests[0]) - 1; /* "broken" on request */

/* minicheck's loop: setup, test and teardown are three calls of the runner. */
int srunner_run_all(void);
int srunner_run_all(void)
{
    int failures = 0;
    for (volatile int i = 0; i < test_count; i++) {
        if (setjmp(env)) {
            printf("FAIL: %s\n", tests[i].name);
            failures++;
            continue;
        }
        setup();
        tests[i].run();
        teardown();
        printf("PASS: %s\n", tests[i].name);
    }
    return failures;
}

/* A suite's own loop body: one whole test case, 0 when it passed. */
__attribute__((noinline)) int run_one(int i);
__attribute__((noinline)) int run_one(int i)
{
    if (setjmp(env)) {
        printf("FAIL: %s\n", tests[i].name);
        return 1;
    }
    setup();
    tests[i].run();
    teardown();
    printf("PASS: %s\n", tests[i].name);
    return 0;
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    int failures = 0;
    if (argc > 1 && !strcmp(argv[1], "broken"))
        test_count++;
    if (argc > 1 && !strcmp(argv[1], "loop")) {
        for (int i = 0; i < test_count; i++)
            failures += run_one(i);
    } else {
        failures = srunner_run_all();
    }
    printf("%d tests, %d failed\n", test_count, failures);
    return failures;
}
