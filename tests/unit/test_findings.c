/*
 * test_findings.c — the pieces that decide what a maintainer reads: LeakSanitizer's report parsed
 * into leaks (direct and indirect, bytes, stacks), and suppression rules matched against stacks.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "verdict/sanitizer.h"
#include "verdict/suppress.h"

static const char report[] =
    "=================================================================\n"
    "==4242==ERROR: LeakSanitizer: detected memory leaks\n"
    "\n"
    "Direct leak of 100 byte(s) in 2 object(s) allocated from:\n"
    "    #0 0x7fb636213545  (/usr/lib/x86_64-linux-gnu/libasan.so.8+0xbd545)\n"
    "    #1 0x555956cb615a  (/usr/bin/prog+0x115a)\n"
    "    #2 0x7fb636045249  (/lib/x86_64-linux-gnu/libc.so.6+0x27249)\n"
    "\n"
    "Indirect leak of 24 byte(s) in 1 object(s) allocated from:\n"
    "    #0 0x7fb636213545  (/usr/lib/x86_64-linux-gnu/libasan.so.8+0xbd545)\n"
    "    #1 0x555956cb6200  (/usr/bin/prog+0x1200)\n"
    "\n"
    "SUMMARY: AddressSanitizer: 124 byte(s) leaked in 3 allocation(s).\n";

static void test_leak_report(void **state)
{
    (void)state;
    sanitizer_leak_list leaks = {0};
    bool failed = false;
    assert_true(sanitizer_parse_leaks(report, &leaks, &failed));
    assert_false(failed);
    assert_int_equal(leaks.count, 2);
    assert_true(leaks.items[0].direct);
    assert_int_equal(leaks.items[0].bytes, 100);
    assert_int_equal(leaks.items[0].objects, 2);
    assert_int_equal(leaks.items[0].frame_count, 3);
    assert_string_equal(leaks.items[0].paths[1], "/usr/bin/prog");
    assert_int_equal(leaks.items[0].offsets[1], 0x115a + 1); /* a return address */
    assert_false(leaks.items[1].direct);
    assert_int_equal(leaks.items[1].bytes, 24);
    assert_int_equal(leaks.items[1].frame_count, 2);
    sanitizer_leaks_free(&leaks);
}

static void test_leak_report_other(void **state)
{
    (void)state;
    sanitizer_leak_list leaks = {0};
    bool failed = false;
    /* Another error report is no leak report; a scan that could not run says so. */
    assert_false(sanitizer_parse_leaks("==1==ERROR: AddressSanitizer: SEGV on unknown address\n",
                                       &leaks, &failed));
    assert_false(failed);
    assert_false(sanitizer_parse_leaks("==1==LeakSanitizer has encountered a fatal error.\n",
                                       &leaks, &failed));
    assert_true(failed);
    assert_int_equal(leaks.count, 0);
}

/* A runtime given strip_path_prefix names modules by what is left of their path (git's test-lib.sh:
   "git" for <build>/git): the module of the campaign it is the end of, a whole name first. */
static void test_shortened_module(void **state)
{
    (void)state;
    char *known[] = {"/usr/lib/x86_64-linux-gnu/libgit-helper.so", "/usr/bin/legit",
                     "/src/git-2.39.5/git", "/usr/bin/git", "/lib/x86_64-linux-gnu/libc.so.6"};
    size_t count = sizeof known / sizeof known[0];
    assert_string_equal(sanitizer_module_path("git", known, count), "/src/git-2.39.5/git");
    assert_string_equal(sanitizer_module_path("git-2.39.5/git", known, count), "/src/git-2.39.5/git");
    /* a prefix that cut a name in two: the path that ends with what is left */
    assert_string_equal(sanitizer_module_path("bin/legit", known, count), "/usr/bin/legit");
    assert_string_equal(sanitizer_module_path("egit", known, count), "/usr/bin/legit");
    /* a full path is itself, known or not; a name no module ends in stays as it is */
    assert_string_equal(sanitizer_module_path("/opt/git", known, count), "/opt/git");
    assert_string_equal(sanitizer_module_path("libz.so.1", known, count), "libz.so.1");
    assert_string_equal(sanitizer_module_path("git", NULL, 0), "git");
}

static const struct suppress_frame nss_crash[] = {
    {"fn_1a2b3", "/lib/x86_64-linux-gnu/libc.so.6", ""},
    {"getpwuid_r", "/lib/x86_64-linux-gnu/libc.so.6", "getpwent_r.c"},
    {"find_home_dir", "/usr/bin/sqlite3", "shell.c"},
};

static void test_suppression_rules(void **state)
{
    (void)state;
    char path[] = "/tmp/libfail-supp-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    const char rules[] = "# known\n\ncrash:libc.so.6!getpw*   # NSS\nleak:setlocale\n*:shell.c\n";
    assert_int_equal(write(fd, rules, strlen(rules)), (ssize_t)strlen(rules));
    close(fd);
    const char *files[] = {path, NULL};
    struct suppressions *list = suppressions_load(files, false);
    assert_int_equal(suppressions_count(list), 3);
    /* module!function glob, against any frame */
    assert_string_equal(suppressions_match(list, "crash", nss_crash, 1 + 1), "crash:libc.so.6!getpw*");
    /* the kind must match: no leak rule names getpwuid */
    assert_null(suppressions_match(list, "leak", nss_crash, 2));
    /* a source file's name, for any kind */
    assert_string_equal(suppressions_match(list, "silent", nss_crash, 3), "*:shell.c");
    const struct suppress_frame plain[] = {{"main", "/usr/bin/prog", "prog.c"}};
    assert_null(suppressions_match(list, "crash", plain, 1));
    suppressions_free(list);
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_leak_report),
        cmocka_unit_test(test_leak_report_other),
        cmocka_unit_test(test_shortened_module),
        cmocka_unit_test(test_suppression_rules),
    };
    return cmocka_run_group_tests_name("findings", tests, NULL, NULL);
}
