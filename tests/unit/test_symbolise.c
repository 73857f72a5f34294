/*
 * test_symbolise.c — unit tests for injector/symbols/symbolise.c.
 *
 * Why the test symbolises itself: the only binary whose source lines we know for certain is
 * this one. Each expected line is captured with __LINE__ on the very line of the call whose
 * return address we look up, so the assertions track edits to this file instead of relying
 * on hard-coded numbers, and a wrong bias, an off-by-one on return addresses, or a broken
 * inline chain makes them fail. Must be built with -g (see the build line below).
 *
 *   gcc -std=c11 -D_GNU_SOURCE -g -O1 -Wall -Wextra -Werror -I injector \
 *       tests/unit/test_symbolise.c injector/symbols/symbolise.c -ldw -lelf -lcmocka
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

#include "symbols/symbolise.h"

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

/* Answers are remembered by address: each of many addresses (more than the table first holds,
   so it grows) reads back as a fresh symboliser finds it, as a return address and as a pc,
   with the max it is asked with. */
static void test_remembered_answers(void **state)
{
    struct symboliser *s = *state;
    enum { ADDRESSES = 700 };
    uintptr_t base = (uintptr_t)&plain_callee - self_bias();
    static struct symbol_frame first[ADDRESSES][2][MAX_FRAMES];
    static int counts[ADDRESSES][2];
    for (int i = 0; i < ADDRESSES; i++)
        for (int ret = 0; ret < 2; ret++)
            counts[i][ret] = symboliser_lookup(s, SELF, base + (uintptr_t)i, ret, first[i][ret],
                                               MAX_FRAMES);
    struct symboliser *fresh = symboliser_new();
    assert_non_null(fresh);
    for (int i = ADDRESSES - 1; i >= 0; i--)
        for (int ret = 0; ret < 2; ret++) {
            struct symbol_frame again[MAX_FRAMES], anew[MAX_FRAMES];
            int m = symboliser_lookup(s, SELF, base + (uintptr_t)i, ret, again, MAX_FRAMES);
            int k = symboliser_lookup(fresh, SELF, base + (uintptr_t)i, ret, anew, MAX_FRAMES);
            assert_int_equal(m, counts[i][ret]);
            assert_int_equal(k, m);
            assert_memory_equal(again, first[i][ret], (size_t)m * sizeof again[0]);
            assert_memory_equal(anew, again, (size_t)m * sizeof again[0]);
            assert_int_equal(symboliser_lookup(s, SELF, base + (uintptr_t)i, ret, again, 1), 1);
            assert_memory_equal(again, first[i][ret], sizeof again[0]);
        }
    symboliser_free(fresh);
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

/* A copy of this test binary, made by `command` (a printf format taking the source and the
 * copy's path); false when the tool is missing (binutils). The caller unlinks copy. */
static bool make_copy(const char *command_format, char *copy, size_t size)
{
    char self[4096];
    ssize_t len = readlink(SELF, self, sizeof self - 1);
    assert_true(len > 0);
    self[len] = '\0';
    snprintf(copy, size, "/tmp/test_symbolise_copy_XXXXXX");
    int fd = mkstemp(copy);
    assert_true(fd >= 0);
    close(fd);
    char command[8400];
    snprintf(command, sizeof command, command_format, self, copy);
    if (system(command) != 0) {
        unlink(copy);
        return false;
    }
    return true;
}

static void assert_fn_name(const char *name, uint64_t start)
{
    char expected[64];
    snprintf(expected, sizeof expected, "fn_%llx", (unsigned long long)start);
    assert_string_equal(name, expected);
}

/* With symbols: the name and start are the function's own, also from inside an inlined
 * frame (the function it was inlined into). */
static void test_function_identity(void **state)
{
    struct symboliser *s = *state;
    uint64_t start = 0;
    char name[256];
    uintptr_t bias = self_bias();

    assert_true(symboliser_function(s, SELF, (uintptr_t)plain_caller() - bias, true, &start,
                                    name, sizeof name));
    assert_string_equal(name, "plain_caller");
    assert_int_equal(start, (uintptr_t)&plain_caller - bias);

    assert_true(symboliser_function(s, SELF, (uintptr_t)inliner() - bias, true, &start, name,
                                    sizeof name));
    assert_string_equal(name, "inliner");
    assert_int_equal(start, (uintptr_t)&inliner - bias);

    /* Cached by range: the entry of plain_caller, looked up after its middle, agrees. */
    assert_true(symboliser_function(s, SELF, (uintptr_t)&plain_caller - bias, false, &start,
                                    name, sizeof name));
    assert_string_equal(name, "plain_caller");
    assert_int_equal(start, (uintptr_t)&plain_caller - bias);

    /* NULL outputs are allowed; a tiny buffer truncates. */
    assert_true(symboliser_function(s, SELF, (uintptr_t)&plain_callee - bias, false, NULL, NULL,
                                    0));
    char tiny[6];
    assert_true(symboliser_function(s, SELF, (uintptr_t)&plain_callee - bias, false, NULL, tiny,
                                    sizeof tiny));
    assert_string_equal(tiny, "plain");

    /* Nothing covers these. */
    assert_false(symboliser_function(s, SELF, UINT64_C(0x7fffffff0000), false, &start, name,
                                     sizeof name));
    assert_false(symboliser_function(s, "/nonexistent/libnothing.so", 0x1234, true, &start, name,
                                     sizeof name));
    assert_false(symboliser_function(s, "", 0x1234, true, &start, name, sizeof name));
    assert_false(symboliser_function(NULL, SELF, 0x1234, true, &start, name, sizeof name));
}

/* Stripped of every symbol and all DWARF: the start still equals the unstripped symbol's
 * value, from the FDE, and the name is fn_<start>, for lookups too. */
static void test_function_identity_stripped(void **state)
{
    struct symboliser *s = *state;
    char copy[64];
    if (!make_copy("strip --strip-all -o '%2$s' '%1$s' 2>/dev/null", copy, sizeof copy))
        skip();
    uintptr_t bias = self_bias();
    uintptr_t in_plain_caller = (uintptr_t)plain_caller() - bias;
    uintptr_t in_inliner = (uintptr_t)inliner() - bias;
    uint64_t start = 0;
    char name[256];

    assert_false(symboliser_has_debug_info(s, copy));
    assert_true(symboliser_function(s, copy, in_plain_caller, true, &start, name, sizeof name));
    assert_int_equal(start, (uintptr_t)&plain_caller - bias);
    assert_fn_name(name, start);

    assert_true(symboliser_function(s, copy, in_inliner, true, &start, name, sizeof name));
    assert_int_equal(start, (uintptr_t)&inliner - bias);
    assert_fn_name(name, start);

    /* The entry and the call site deduplicate to the same identity, from the cache. */
    uint64_t again = 0;
    assert_true(symboliser_function(s, copy, (uintptr_t)&inliner - bias, false, &again, NULL, 0));
    assert_int_equal(again, start);

    struct symbol_frame out[MAX_FRAMES];
    int n = symboliser_lookup(s, copy, in_plain_caller, true, out, MAX_FRAMES);
    assert_int_equal(n, 1);
    assert_fn_name(out[0].function, (uintptr_t)&plain_caller - bias);
    assert_string_equal(out[0].file, "");
    assert_int_equal(out[0].line, 0);
    assert_false(out[0].inlined);
    unlink(copy);
}

/* A sizeless symbol below a stripped function (like _init before .text) is not its name:
 * the symbol is kept only where it starts the FDE. */
static void test_sizeless_symbol_is_not_a_far_function(void **state)
{
    struct symboliser *s = *state;
    char copy[64];
    if (!make_copy("strip --strip-all -o '%2$s' '%1$s' 2>/dev/null && objcopy "
                   "--add-symbol far_away=.text:0,function,global '%2$s' 2>/dev/null",
                   copy, sizeof copy))
        skip();
    uintptr_t bias = self_bias();
    uint64_t start = 0;
    char name[256];
    assert_true(symboliser_function(s, copy, (uintptr_t)plain_caller() - bias, true, &start, name,
                                    sizeof name));
    assert_int_equal(start, (uintptr_t)&plain_caller - bias);
    assert_fn_name(name, start);

    struct symbol_frame out[MAX_FRAMES];
    symboliser_lookup(s, copy, (uintptr_t)plain_caller() - bias, true, out, MAX_FRAMES);
    assert_fn_name(out[0].function, start);
    unlink(copy);
}

/* Split debug info, found beside the file by its .gnu_debuglink: names and lines are back. */
static void test_separate_debug_file(void **state)
{
    struct symboliser *s = *state;
    char copy[64];
    if (!make_copy("cp '%1$s' '%2$s' && objcopy --only-keep-debug '%2$s' '%2$s.debug' && "
                   "strip --strip-debug --strip-unneeded '%2$s' && "
                   "cd /tmp && objcopy --add-gnu-debuglink='%2$s.debug' '%2$s'",
                   copy, sizeof copy))
        skip();
    char debug[80];
    snprintf(debug, sizeof debug, "%s.debug", copy);
    uintptr_t bias = self_bias();
    assert_true(symboliser_has_debug_info(s, copy));
    char name[256];
    uint64_t start;
    assert_true(symboliser_function(s, copy, (uintptr_t)plain_caller() - bias, true, &start, name,
                                    sizeof name));
    assert_string_equal(name, "plain_caller");
    struct symbol_frame out[MAX_FRAMES];
    int n = symboliser_lookup(s, copy, (uintptr_t)plain_caller() - bias, true, out, MAX_FRAMES);
    assert_int_equal(n, 1);
    assert_int_equal(out[0].line, plain_call_line);
    unlink(copy);
    unlink(debug);
}

static void test_has_debug_info(void **state)
{
    struct symboliser *s = *state;
    assert_true(symboliser_has_debug_info(s, SELF));
    assert_true(symboliser_has_debug_info(s, SELF)); /* cached */
    assert_false(symboliser_has_debug_info(s, "/nonexistent/libnothing.so"));
    assert_false(symboliser_has_debug_info(s, "/"));
    assert_false(symboliser_has_debug_info(s, ""));
    assert_false(symboliser_has_debug_info(NULL, SELF));
}

/* The hint names the file, its build-id, where its debug file would go and debuginfod. */
static void test_debug_hint_own_binary(void **state)
{
    (void)state;
    char copy[64];
    if (!make_copy("strip --strip-all -o '%2$s' '%1$s' 2>/dev/null", copy, sizeof copy))
        skip();
    char command[200], build_id[200] = "";
    snprintf(command, sizeof command,
             "readelf -n '%s' 2>/dev/null | sed -n 's/.*Build ID: *//p'", copy);
    FILE *p = popen(command, "r");
    assert_non_null(p);
    if (!fgets(build_id, sizeof build_id, p))
        build_id[0] = '\0';
    pclose(p);
    build_id[strcspn(build_id, "\n")] = '\0';

    char *hint = symboliser_debug_hint(copy);
    assert_non_null(hint);
    assert_null(strchr(hint, '\n'));
    assert_non_null(strstr(hint, copy));
    if (build_id[0]) {
        char expected[300];
        snprintf(expected, sizeof expected, "(build-id %s)", build_id);
        assert_non_null(strstr(hint, expected));
        snprintf(expected, sizeof expected, "/usr/lib/debug/.build-id/%.2s/%s.debug", build_id,
                 build_id + 2);
        assert_non_null(strstr(hint, expected));
    }
    assert_non_null(strstr(hint, "DEBUGINFOD_URLS"));
    assert_null(strstr(hint, "dbgsym")); /* no Debian package owns a file in /tmp */
    char *again = symboliser_debug_hint(copy); /* cached, and a fresh copy each time */
    assert_non_null(again);
    assert_string_equal(again, hint);
    assert_ptr_not_equal(again, hint);
    free(again);
    free(hint);
    unlink(copy);

    assert_null(symboliser_debug_hint("/nonexistent/libnothing.so"));
    assert_null(symboliser_debug_hint("/"));
    assert_null(symboliser_debug_hint(""));
    assert_null(symboliser_debug_hint(NULL));
}

/* On Debian: the -dbgsym package of the library's package, whichever spelling of the merged
 * /usr the path uses. Skipped without dpkg-query or libyajl2. */
static void test_debug_hint_debian_package(void **state)
{
    (void)state;
    void *lib = dlopen("libyajl.so.2", RTLD_NOW | RTLD_LOCAL);
    if (!lib || system("dpkg-query -W libyajl2 >/dev/null 2>&1") != 0)
        skip();
    struct module_find f = {.suffix = "/libyajl.so.2"};
    dl_iterate_phdr(find_module, &f);
    assert_true(f.found);
    const char *base = strrchr(f.path, '/');
    char spellings[2][4200];
    snprintf(spellings[0], sizeof spellings[0], "/lib/x86_64-linux-gnu%s", base);
    snprintf(spellings[1], sizeof spellings[1], "/usr/lib/x86_64-linux-gnu%s", base);
    for (int i = 0; i < 2; i++) {
        if (access(spellings[i], R_OK) != 0)
            continue; /* another architecture or layout */
        char *hint = symboliser_debug_hint(spellings[i]);
        assert_non_null(hint);
        assert_non_null(strstr(hint, "apt-get install libyajl2-dbgsym"));
        assert_non_null(strstr(hint, "build-id "));
        free(hint);
    }
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
        cmocka_unit_test_setup_teardown(test_remembered_answers, setup, teardown),
        cmocka_unit_test_setup_teardown(test_missing_and_non_elf, setup, teardown),
        cmocka_unit_test_setup_teardown(test_without_aranges, setup, teardown),
        cmocka_unit_test_setup_teardown(test_stripped_library, setup, teardown),
        cmocka_unit_test_setup_teardown(test_function_identity, setup, teardown),
        cmocka_unit_test_setup_teardown(test_function_identity_stripped, setup, teardown),
        cmocka_unit_test_setup_teardown(test_sizeless_symbol_is_not_a_far_function, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_separate_debug_file, setup, teardown),
        cmocka_unit_test_setup_teardown(test_has_debug_info, setup, teardown),
        cmocka_unit_test_setup_teardown(test_debug_hint_own_binary, setup, teardown),
        cmocka_unit_test_setup_teardown(test_debug_hint_debian_package, setup, teardown),
    };
    /* Hermetic: no debuginfod server is asked about this test's stripped copies. */
    unsetenv("DEBUGINFOD_URLS");
    return cmocka_run_group_tests(tests, NULL, NULL);
}
