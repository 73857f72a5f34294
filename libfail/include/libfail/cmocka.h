/*
 * libfail/cmocka.h — every allocation failure inside a cmocka unit test, in-process.
 *
 * LF_OOM_TEST(name) defines name_oom, a cmocka test that runs the test function `name` again
 * and again: pass 1 fails its 1st allocation, pass 2 its 2nd, ... until a pass in which no
 * allocation failed. After each pass nothing allocated during the pass may still be live; a leak
 * fails the test with the pass number N, the allocation that failed and the blocks left behind,
 * each symbolised (function, file:line, via addr2line when it is installed). A crash in a pass
 * is reported with N before cmocka reports the signal.
 *
 * The test function must tolerate failures: check the results of the code under test and clean
 * up, as a caller would. Link the test with libfail (-lfail) — or run it under
 * libfail-preload.so — so malloc and friends are interposed.
 *
 *     #include <libfail/cmocka.h>
 *     static void test_build_list(void **state) {
 *         struct list *list = list_from_csv("a,b,c");
 *         if (list) { assert_int_equal(list_length(list), 3); list_free(list); }
 *     }
 *     LF_OOM_TEST(test_build_list)
 *     int main(void) {
 *         const struct CMUnitTest tests[] = { cmocka_unit_test(test_build_list_oom) };
 *         return cmocka_run_group_tests(tests, NULL, NULL);
 *     }
 */
#ifndef LIBFAIL_CMOCKA_H
#define LIBFAIL_CMOCKA_H

#ifndef _GNU_SOURCE
#error "libfail/cmocka.h uses dladdr(3): compile with -D_GNU_SOURCE"
#endif

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dlfcn.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <libfail.h>

#define LF_OOM_MAX_LEAKS 8

/* "function at file:line (module+0xoffset)" for a return address, into out. */
static inline void lf_oom_describe(void *return_address, char *out, size_t size)
{
    Dl_info info;
    if (!return_address || !dladdr(return_address, &info) || !info.dli_fname) {
        snprintf(out, size, "%p", return_address);
        return;
    }
    unsigned long offset = (unsigned long)((char *)return_address - (char *)info.dli_fbase) - 1;
    char command[4400], function[256] = "", place[1024] = "";
    snprintf(command, sizeof command, "addr2line -f -i -e '%s' 0x%lx 2>/dev/null", info.dli_fname,
             offset);
    FILE *pipe = popen(command, "r");
    if (pipe) {
        if (fgets(function, sizeof function, pipe))
            function[strcspn(function, "\n")] = '\0';
        if (fgets(place, sizeof place, pipe))
            place[strcspn(place, "\n")] = '\0';
        pclose(pipe);
    }
    if (*function && strcmp(function, "??"))
        snprintf(out, size, "%s at %s (%s+0x%lx)", function, place, info.dli_fname, offset);
    else
        snprintf(out, size, "%s+0x%lx", info.dli_fname, offset);
}

/* The pass running now, for the crash report. */
static unsigned long lf_oom_pass;
static const char *lf_oom_name;
static struct sigaction lf_oom_previous[NSIG];

static inline void lf_oom_on_crash(int signo, siginfo_t *info, void *context)
{
    char message[1024];
    Dl_info where = {0};
    void *failed = lf_last_failure(NULL);
    bool known = failed && dladdr(failed, &where) && where.dli_fname;
    int length = snprintf(message, sizeof message,
                          "libfail: %s crashed (signal %d) in pass %lu, with allocation %lu "
                          "failing (requested at %s+0x%lx)\n", lf_oom_name, signo, lf_oom_pass,
                          lf_oom_pass, known ? where.dli_fname : "?",
                          known ? (unsigned long)((char *)failed - (char *)where.dli_fbase) - 1 : 0);
    if (length > 0 && write(2, message, (size_t)length) < 0)
        length = 0;
    /* cmocka's handler reports the signal and moves on to the next test. It has none for
       SIGABRT (glibc's double-free abort): then fail the test the way an assertion does. */
    if (lf_oom_previous[signo].sa_flags & SA_SIGINFO)
        lf_oom_previous[signo].sa_sigaction(signo, info, context);
    else if (lf_oom_previous[signo].sa_handler != SIG_DFL &&
             lf_oom_previous[signo].sa_handler != SIG_IGN)
        lf_oom_previous[signo].sa_handler(signo);
    else
        _fail(__FILE__, __LINE__);
}

/* Our handler goes in front of cmocka's for the passes. After a crash cmocka jumps out of the
   test and the handler stays installed: install it only once, so it always hands on to
   cmocka's, never to itself. */
static inline void lf_oom_guard(bool on)
{
    static const int signals[] = {SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL};
    static bool installed;
    if (on == installed)
        return;
    installed = on;
    for (size_t i = 0; i < sizeof signals / sizeof signals[0]; i++) {
        if (on) {
            struct sigaction action;
            memset(&action, 0, sizeof action);
            action.sa_sigaction = lf_oom_on_crash;
            action.sa_flags = SA_SIGINFO | SA_NODEFER; /* we may leave by longjmp */
            sigaction(signals[i], &action, &lf_oom_previous[signals[i]]);
        } else {
            sigaction(signals[i], &lf_oom_previous[signals[i]], NULL);
        }
    }
}

static inline void lf_oom_report_leaks(const char *name, unsigned long pass, size_t count,
                                       const struct lf_block *blocks, void *failed,
                                       size_t failed_size)
{
    char where[1536], text[8192];
    lf_oom_describe(failed, where, sizeof where);
    int used = snprintf(text, sizeof text,
                        "%s: pass %lu (allocation %lu failing: %zu bytes requested by %s) "
                        "leaked %zu block(s):", name, pass, pass, failed_size, where, count);
    for (size_t i = 0; i < count && i < LF_OOM_MAX_LEAKS && used > 0 && (size_t)used < sizeof text;
         i++) {
        lf_oom_describe(blocks[i].caller, where, sizeof where);
        used += snprintf(text + used, sizeof text - (size_t)used,
                         "\n    %zu bytes at %p, allocated by %s", blocks[i].size,
                         blocks[i].address, where);
    }
    fail_msg("%s", text);
}

/* Run `test` with allocation 1, 2, 3, ... failing, until a pass in which none failed. */
static inline void lf_oom_run(void **state, void (*test)(void **), const char *name)
{
    lf_oom_name = name;
    for (unsigned long pass = 1;; pass++) {
        struct lf_block blocks[LF_OOM_MAX_LEAKS];
        unsigned long long mark = lf_live_mark();
        lf_oom_pass = pass;
        lf_oom_guard(true);
        lf_fail_nth_set(pass);
        test(state);
        unsigned long left = lf_fail_nth_get();
        lf_fail_nth_set(0);
        lf_oom_guard(false);
        size_t count = lf_live_since(mark, blocks, LF_OOM_MAX_LEAKS);
        if (count) {
            size_t failed_size = 0;
            void *failed = left ? NULL : lf_last_failure(&failed_size);
            lf_oom_report_leaks(name, pass, count, blocks, failed, failed_size);
        }
        if (left) {
            print_message("[ OOM      ] %s: %lu allocation(s), each failed in turn\n", name,
                          pass - 1);
            return;
        }
    }
}

#define LF_OOM_TEST(name)                                                                          \
    static void name##_oom(void **state)                                                           \
    {                                                                                              \
        lf_oom_run(state, name, #name);                                                            \
    }

#endif
