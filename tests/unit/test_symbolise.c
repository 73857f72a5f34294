/*
 * test_symbolise.c — unit tests for injector/symbolise.c.
 *
 * Why the test symbolises itself: the only binary whose source lines we know for certain is
 * this one. Each expected line is captured with __LINE__ on the very line of the call whose
 * return address we look up, so the assertions track edits to this file instead of relying
 * on hard-coded numbers, and a wrong bias, an off-by-one on return addresses, or a broken
 * inline chain makes them fail. Must be built with -g (see the build line below).
 *
 *   gcc -std=c11 -D_GNU_SOURCE -g -O1 -Wall -Wextra -Werror -I injector \
 *       tests/unit/test_symbolise.c injector/symbolise.c -ldw -lelf -lcmocka
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "symbolise.h"

#define SELF "/proc/self/exe"
/* noclone: a GCC clone (plain_caller.constprop.0) would still be named right by DWARF, but
 * keep the code under inspection as plain as possible. */
#ifdef __clang__
#define NOINLINE __attribute__((noinline))
#else
#define NOINLINE __attribute__((noinline, noclone))
#endif
#define MAX_FRAMES 8

/* Lines recorded at run time by the code under inspection (see the top of the file). */
static int helper_call_line;   /* inside the always_inline helper: the call to return_address */
static int inliner_call_line;  /* inside inliner: the (inlined) call to the helper */
static int plain_call_line;    /* inside plain_caller: the call to return_address */
static int noreturn_call_line; /* inside ends_in_noreturn_call: the call to jump_back */

/* Returns its own return address: an address inside whichever function called it. */
NOINLINE static void *return_address(void)
{
    return __builtin_return_address(0);
}

static const int plain_callee_line = __LINE__ + 1; /* keep right above plain_callee */
NOINLINE static int plain_callee(int x)
{
    return x * 3 + 1;
}

NOINLINE static void *plain_caller(void)
{
    void *ra = return_address(); plain_call_line = __LINE__;
    return ra;
}

static inline __attribute__((always_inline)) void *inlined_helper(void)
{
    void *ra = return_address(); helper_call_line = __LINE__;
    return ra;
}

NOINLINE static void *inliner(void)
{
    void *ra = inlined_helper(); inliner_call_line = __LINE__;
    return ra;
}

/* A call to a noreturn function is the last instruction of its caller, so the return address
 * is already past the caller's end: only "look up offset - 1" finds the call. */
static jmp_buf jump_buffer;
static void *volatile jump_back_return;

NOINLINE __attribute__((noreturn)) static void jump_back(void)
{
    jump_back_return = __builtin_return_address(0);
    longjmp(jump_buffer, 1);
}

NOINLINE static void ends_in_noreturn_call(void)
{
    noreturn_call_line = __LINE__; jump_back();
}

struct module_find {
    const char *suffix; /* NULL: the main program (the first dl_iterate_phdr entry) */
    uintptr_t bias;
    char path[4096];
    bool found;
};

static int find_module(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    struct module_find *f = data;
    if (f->suffix) {
        size_t n = strlen(info->dlpi_name), m = strlen(f->suffix);
        if (n < m || strcmp(info->dlpi_name + n - m, f->suffix) != 0)
            return 0;
        snprintf(f->path, sizeof f->path, "%s", info->dlpi_name);
    }
    f->bias = info->dlpi_addr;
    f->found = true;
    return 1;
}

static uintptr_t self_bias(void)
{
    struct module_find f = {0};
    dl_iterate_phdr(find_module, &f);
    assert_true(f.found);
    return f.bias;
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* A frame located in this very source file. */
static void assert_this_file(const struct symbol_frame *f)
{
    assert_true(f->file[0] == '/'); /* comp_dir is absolute when built normally */
    assert_true(ends_with(f->file, __FILE__));
}

static void assert_unknown(const struct symbol_frame *f)
{
    assert_string_equal(f->function, "??");
    assert_string_equal(f->file, "");
    assert_int_equal(f->line, 0);
    assert_false(f->inlined);
}

static int setup(void **state)
{
    *state = symboliser_new();
    return *state ? 0 : -1;
}

static int teardown(void **state)
{
    symboliser_free(*state);
    return 0;
}

static void test_function_address(void **state)
{
    struct symboliser *s = *state;
    struct symbol_frame out[MAX_FRAMES];
    uintptr_t offset = (uintptr_t)&plain_callee - self_bias();

    int n = symboliser_lookup(s, SELF, offset, false, out, MAX_FRAMES);
    assert_int_equal(n, 1);
    assert_string_equal(out[0].function, "plain_callee");
    assert_false(out[0].inlined);
    assert_this_file(&out[0]);
    /* The entry's row is the declarator's, the brace's or (no prologue) the body's line. */
    assert_in_range(out[0].line, plain_callee_line, plain_callee_line + 2);
    assert_int_equal(plain_callee(1), 4);
}

static void test_return_address(void **state)
{
    struct symboliser *s = *state;
    struct symbol_frame out[MAX_FRAMES];
    uintptr_t offset = (uintptr_t)plain_caller() - self_bias();

    int n = symboliser_lookup(s, SELF, offset, true, out, MAX_FRAMES);
    assert_int_equal(n, 1);
    assert_string_equal(out[0].function, "plain_caller");
    assert_int_equal(out[0].line, plain_call_line);
    assert_true(out[0].column > 0);
    assert_false(out[0].inlined);
    assert_this_file(&out[0]);

    /* Same offset, now taken as an exact pc: still inside plain_caller, the line after the
     * call or the call's own, never anything else. */
    n = symboliser_lookup(s, SELF, offset, false, out, MAX_FRAMES);
    assert_int_equal(n, 1);
    assert_string_equal(out[0].function, "plain_caller");
    assert_in_range(out[0].line, plain_call_line, plain_call_line + 1);
}

static void test_return_address_past_function_end(void **state)
{
    struct symboliser *s = *state;
    struct symbol_frame out[MAX_FRAMES];
    if (setjmp(jump_buffer) == 0)
        ends_in_noreturn_call();
    uintptr_t offset = (uintptr_t)jump_back_return - self_bias();

    int n = symboliser_lookup(s, SELF, offset, true, out, MAX_FRAMES);
    assert_int_equal(n, 1);
    assert_string_equal(out[0].function, "ends_in_noreturn_call");
    assert_int_equal(out[0].line, noreturn_call_line);
    assert_this_file(&out[0]);
}

static void test_inline_chain(void **state)
{
    struct symboliser *s = *state;
    struct symbol_frame out[MAX_FRAMES];
    uintptr_t offset = (uintptr_t)inliner() - self_bias();

    int n = symboliser_lookup(s, SELF, offset, true, out, MAX_FRAMES);
    assert_int_equal(n, 2);

    assert_string_equal(out[0].function, "inlined_helper");
    assert_true(out[0].inlined);
    assert_int_equal(out[0].line, helper_call_line);
    assert_this_file(&out[0]);

    assert_string_equal(out[1].function, "inliner");
    assert_false(out[1].inlined);
    assert_int_equal(out[1].line, inliner_call_line); /* from DW_AT_call_line */
    assert_true(out[1].column > 0);                   /* from DW_AT_call_column */
    assert_this_file(&out[1]);

    /* max caps the count and keeps the innermost frames. */
    memset(out, 0x5a, sizeof out);
    n = symboliser_lookup(s, SELF, offset, true, out, 1);
    assert_int_equal(n, 1);
    assert_string_equal(out[0].function, "inlined_helper");
    assert_int_equal((unsigned char)out[1].function[0], 0x5a); /* untouched */
}

static void test_repeated_lookups_agree(void **state)
{
    struct symboliser *s = *state;
    struct symbol_frame first[MAX_FRAMES], again[MAX_FRAMES];
    uintptr_t offset = (uintptr_t)inliner() - self_bias();

    int n = symboliser_lookup(s, SELF, offset, true, first, MAX_FRAMES);
    for (int i = 0; i < 1000; i++) {
        int m = symboliser_lookup(s, SELF, offset, true, again, MAX_FRAMES);
        assert_int_equal(m, n);
    }
    assert_memory_equal(first, again, (size_t)n * sizeof first[0]);
}

static void test_missing_and_non_elf(void **state)
{
    struct symboliser *s = *state;
    struct symbol_frame out[MAX_FRAMES];

    for (int round = 0; round < 2; round++) { /* the second round hits the failure cache */
        int n = symboliser_lookup(s, "/nonexistent/libnothing.so", 0x1234, true, out, MAX_FRAMES);
        assert_int_equal(n, 1);
        assert_unknown(&out[0]);

        n = symboliser_lookup(s, "/", 0x1234, false, out, MAX_FRAMES); /* a directory */
        assert_int_equal(n, 1);
        assert_unknown(&out[0]);
    }

    /* A FIFO must not block open(2): the alarm turns a hang into a failure. */
    char fifo[] = "/tmp/test_symbolise_fifo_XXXXXX";
    int tmp = mkstemp(fifo);
    assert_true(tmp >= 0);
    close(tmp);
    unlink(fifo);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    alarm(10);
    int n = symboliser_lookup(s, fifo, 0x10, false, out, MAX_FRAMES);
    alarm(0);
    unlink(fifo);
    assert_int_equal(n, 1);
    assert_unknown(&out[0]);

    char text[] = "/tmp/test_symbolise_XXXXXX";
    int fd = mkstemp(text);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, "not an ELF file\n", 16), 16);
    close(fd);
    n = symboliser_lookup(s, text, 0x10, false, out, MAX_FRAMES);
    unlink(text);
    assert_int_equal(n, 1);
    assert_unknown(&out[0]);

    /* An offset outside every segment of a real module. */
    n = symboliser_lookup(s, SELF, UINT64_C(0x7fffffff0000), false, out, MAX_FRAMES);
    assert_int_equal(n, 1);
    assert_string_equal(out[0].function, "??");

    n = symboliser_lookup(s, "", 0, false, out, MAX_FRAMES);
    assert_int_equal(n, 1);
    assert_unknown(&out[0]);
    assert_int_equal(symboliser_lookup(s, SELF, 0, false, out, 0), 0);
}

/* clang emits no .debug_aranges, which libdw 0.188 alone needs to map an address to its CU.
 * A copy of this binary without that section must symbolise exactly like the original.
 * Skipped where objcopy (binutils) is missing. */
static void test_without_aranges(void **state)
{
    struct symboliser *s = *state;
    char self[4096];
    ssize_t len = readlink(SELF, self, sizeof self - 1);
    assert_true(len > 0);
    self[len] = '\0';
    char copy[] = "/tmp/test_symbolise_noaranges_XXXXXX";
    int fd = mkstemp(copy);
    assert_true(fd >= 0);
    close(fd);
    char command[8400];
    snprintf(command, sizeof command, "objcopy --remove-section=.debug_aranges '%s' '%s' 2>/dev/null",
             self, copy);
    if (system(command) != 0) {
        unlink(copy);
        skip();
    }

    uintptr_t offsets[2] = {(uintptr_t)inliner() - self_bias(),
                            (uintptr_t)plain_caller() - self_bias()};
    for (int i = 0; i < 2; i++) {
        struct symbol_frame want[MAX_FRAMES], got[MAX_FRAMES];
        int n = symboliser_lookup(s, SELF, offsets[i], true, want, MAX_FRAMES);
        int m = symboliser_lookup(s, copy, offsets[i], true, got, MAX_FRAMES);
        assert_int_equal(m, n);
        assert_int_equal(got[0].line, want[0].line);
        assert_memory_equal(got, want, (size_t)n * sizeof got[0]);
    }
    unlink(copy);
}

/* A stripped Debian library: the name can only come from .dynsym. Skipped where libyajl2 is
 * not installed. */
static void test_stripped_library(void **state)
{
    struct symboliser *s = *state;
    void *lib = dlopen("libyajl.so.2", RTLD_NOW | RTLD_LOCAL);
    if (!lib)
        skip();
    void *fn = dlsym(lib, "yajl_alloc");
    assert_non_null(fn);
    struct module_find f = {.suffix = "/libyajl.so.2"};
    dl_iterate_phdr(find_module, &f);
    assert_true(f.found);

    struct symbol_frame out[MAX_FRAMES];
    uintptr_t offset = (uintptr_t)fn - f.bias;
    int n = symboliser_lookup(s, f.path, offset, false, out, MAX_FRAMES);
    assert_int_equal(n, 1);
    assert_string_equal(out[0].function, "yajl_alloc");
    assert_false(out[0].inlined);

    /* A return address a few bytes in still belongs to the same symbol. */
    n = symboliser_lookup(s, f.path, offset + 8, true, out, MAX_FRAMES);
    assert_int_equal(n, 1);
    assert_string_equal(out[0].function, "yajl_alloc");
    dlclose(lib);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_function_address, setup, teardown),
        cmocka_unit_test_setup_teardown(test_return_address, setup, teardown),
        cmocka_unit_test_setup_teardown(test_return_address_past_function_end, setup, teardown),
        cmocka_unit_test_setup_teardown(test_inline_chain, setup, teardown),
        cmocka_unit_test_setup_teardown(test_repeated_lookups_agree, setup, teardown),
        cmocka_unit_test_setup_teardown(test_missing_and_non_elf, setup, teardown),
        cmocka_unit_test_setup_teardown(test_without_aranges, setup, teardown),
        cmocka_unit_test_setup_teardown(test_stripped_library, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
