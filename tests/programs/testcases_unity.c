/*
 * testcases_unity.c — a suite shaped as ThrowTheSwitch Unity builds one (tests/integration/
 * test_testcases.sh): main calls UnityDefaultTestRun once per test, which runs the test inside a
 * setjmp "protect" block, a failed assertion longjmps back to it, and the verdict is printed
 * after; Unity is compiled into the test program, as cJSON's tests have it. Fork mode's children
 * end with their Unity test case (UnityDefaultTestRun is built in).
 * test_checked asserts its copy (a failed allocation fails the test), test_ignored passes either
 * way, test_last copies too and says that it ran.
 */
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static jmp_buf protect;
static int failures;

#define TEST_ASSERT_NOT_NULL(p)                                                                \
    do {                                                                                        \
        if (!(p))                                                                               \
            longjmp(protect, 1);                                                                \
    } while (0)

static char *copy(const char *text)
{
    char *p = malloc(strlen(text) + 1);
    if (p)
        strcpy(p, text);
    return p;
}

/* Unity's runner, in its shape: the test in a protected block, its verdict printed after. */
void UnityDefaultTestRun(void (*test)(void), const char *name, int line);
void UnityDefaultTestRun(void (*test)(void), const char *name, int line)
{
    volatile int failed = 0;
    if (setjmp(protect) == 0)
        test();
    else
        failed = 1;
    printf("%s:%d:%s:%s\n", __FILE__, line, name, failed ? "FAIL" : "PASS");
    fflush(stdout);
    failures += failed;
}

static void test_checked(void)
{
    char *p = copy("checked");
    TEST_ASSERT_NOT_NULL(p);
    free(p);
}

static void test_ignored(void)
{
    free(copy("ignored"));
}

static void test_last(void)
{
    free(copy("last"));
    puts("last test ran");
}

#define RUN_TEST(test) UnityDefaultTestRun(test, #test, __LINE__)

int main(void)
{
    setvbuf(stdout, NULL, _IONBF, 0); /* stdio's buffer is no site of the tests */
    RUN_TEST(test_checked);
    RUN_TEST(test_ignored);
    RUN_TEST(test_last);
    printf("%d failures\n", failures);
    return failures ? 1 : 0;
}
