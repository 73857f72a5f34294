// testcases_cxx.cpp — a C++ suite whose runner catches what a test throws
// (tests/integration/test_testcases.sh): a failed allocation under `new` throws std::bad_alloc
// out of the test, through the frame whose return address fork mode's child replaced, into the
// runner's catch. The test case fails; nothing terminates. Exit status: the failed tests.
#include <cstdio>
#include <new>
#include <string>

static void test_throws()
{
    std::string *text = new std::string(64, 'x'); // operator new's malloc: a site
    delete text;
}

static void test_last()
{
    std::puts("last test ran");
}

extern "C" int srunner_run_all();
extern "C" int srunner_run_all()
{
    static void (*const tests[])() = {test_throws, test_last};
    int failures = 0;
    for (auto test : tests) {
        try {
            test();
            std::puts("PASS");
        } catch (const std::bad_alloc &) {
            std::puts("FAIL: out of memory");
            failures++;
        }
    }
    return failures;
}

int main()
{
    return srunner_run_all();
}
