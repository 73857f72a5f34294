/*
 * testcase.c — fork mode's child ends where its test case ends, not where its process ends.
 *
 * A suite that runs all its tests in one process (expat's runtests: 5,572 sites, 2 s) would make
 * every fork child run every later test again. A test case is the unit a maintainer thinks in:
 * once the test case the fault happened in is over, what follows is the unfailed rest of the
 * suite, which the parent runs anyway.
 *
 * Where a test case is, on the child's stack, at the moment of the fork:
 * - a test-case function (one the user names: plan tests=F,G:int): its return ends the test
 *   case (with ":int", an int result of 0 says it passed);
 * - a runner (expat's minicheck `srunner_run_all`, cmocka's `_cmocka_run_group_tests`, Unity's
 *   `UnityDefaultTestRun`): each call
 *   it makes is a unit (a fixture, a test), and the test case ends when the runner makes its next
 *   call from the call site of the unit the fault happened in, i.e. when the same step of the next
 *   test begins; the teardown and the rest of the failing test run in between.
 * The innermost such frame counts. Its return address, in the stack slot the call pushed, is
 * replaced by a trampoline (x86-64 only): when the unit returns there, the child notes how it
 * ended (an int result of 0 is a pass where the runner's units return one) and either ends
 * (a test-case function) or goes back to the runner and watches, at each later interposed call,
 * whether the runner's call slot holds the unit's return address again. A longjmp that leaves the
 * unit ends the test case as failed: at once out of a test-case function; back into a runner
 * (minicheck's fail()), the runner reports the failure first and the child ends at the next test.
 *
 * At the end the child writes `testcase` in its run folder ("passed NAME" or "failed NAME"), an
 * EXIT record with status 0 or 1 (kind EXIT_BY_TEST_CASE: the live blocks of a process in the
 * middle of its suite are no leaks, so none are reported), writes its coverage, and leaves by
 * exit_group, running none of the program's exit handlers.
 *
 * Runs inside the target: no malloc (the modules' files are mapped by elfsym.c), no lock; the
 * functions are looked up once per process image, in the parent before its first fork.
 */
#include "internal.h"

#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#define UNW_LOCAL_ONLY
#include <libunwind.h>

enum unit_kind {
    UNIT_FUNCTION,     /* its return ends the test case */
    UNIT_FUNCTION_INT, /* ... and its int result is 0 when the test case passed */
    UNIT_RUNNER,       /* each call it makes is a unit */
    UNIT_RUNNER_INT,   /* ... whose int result is 0 when it passed */
};

struct runner {
    const char *name;
    enum unit_kind kind;
};

/* The runners built in: functions a stripped library still exports, or that a test program's
   own symbol table holds. Check's srunner_run_all (the same name as minicheck's) runs each test in
   a child of its own by default: its one unit is the whole run, which ends with the process. */
static const struct runner builtin_runners[] = {
    {"srunner_run_all", UNIT_RUNNER},             /* expat's minicheck */
    {"_cmocka_run_group_tests", UNIT_RUNNER_INT}, /* cmocka 1.x: setup, test, teardown */
    /* Unity: main calls it once per test; its setUp, test and tearDown are its steps, a failed
       assertion a longjmp back into it. Its next activation sits where this one did, so the
       next test's step lands in the same slot. */
    {"UnityDefaultTestRun", UNIT_RUNNER},
};
/* Not cmocka's older run_tests() API: its _run_test runs a setup, a test and a teardown as three
   calls, so its return would end the child before the test that uses what the setup failed. */
#define BUILTIN_COUNT (int)(sizeof builtin_runners / sizeof builtin_runners[0])
#define TESTS_MAX 64 /* built in and from the plan (failrun allows 60 of its own) */
#define RANGES_MAX 32

struct range {
    uintptr_t low, high;
    enum unit_kind kind;
    const char *name;
};

static struct {
    char names[PLAN_TESTS_MAX]; /* the plan's, NUL separated */
    struct runner wanted[TESTS_MAX];
    int wanted_count;
    pid_t prepared_for; /* the process image whose modules were searched */
    struct range ranges[RANGES_MAX];
    int range_count;
    /* the child's */
    char dir[PATH_MAX];
    pid_t pid;              /* the child's: a process it forks or vforks ends nothing */
    uintptr_t *slot;        /* where the unit's return address was */
    uintptr_t return_to;    /* the address it held */
    const struct range *by; /* the frame that made it a test case */
    bool returned;          /* the unit has returned (runners) */
    uintptr_t outer_sp;     /* the stack pointer of the runner's caller: a jump beyond leaves
                               the runner */
    uintptr_t outer[RECORD_MAX_FRAMES + 16]; /* return addresses from the slot's outwards */
    int outer_count;
    bool passed;            /* how it returned */
} tc;

bool testcase_armed;
bool testcase_at_fault;

void LF_TEXT testcase_configure(const struct plan *plan)
{
    for (int i = 0; i < BUILTIN_COUNT; i++)
        tc.wanted[tc.wanted_count++] = builtin_runners[i];
    size_t length = strlen(plan->tests);
    memcpy(tc.names, plan->tests, length + 1);
    for (size_t start = 0; start < length && tc.wanted_count < TESTS_MAX;) {
        char *comma = strchr(tc.names + start, ',');
        size_t end = comma ? (size_t)(comma - tc.names) : length;
        tc.names[end] = '\0';
        char *colon = strchr(tc.names + start, ':');
        enum unit_kind kind = UNIT_FUNCTION;
        if (colon) {
            *colon = '\0';
            kind = UNIT_FUNCTION_INT; /* NAME:int */
        }
        if (end > start && colon != tc.names + start)
            tc.wanted[tc.wanted_count++] = (struct runner){tc.names + start, kind};
        start = end + 1;
    }
}

void LF_TEXT testcase_prepare(void)
{
    pid_t self = (pid_t)syscall(SYS_getpid);
    if (tc.prepared_for == self || tc.wanted_count == 0)
        return;
    tc.prepared_for = self;
    tc.range_count = 0;
    struct elf_function found[TESTS_MAX];
    int count = 0;
    const struct module_info *modules = module_table_current(&count);
    for (int m = 0; m < count && tc.range_count < RANGES_MAX; m++) {
        /* The system's libraries (libc, the loader) hold no test runner. */
        if (path_is_system(modules[m].path) && !strstr(modules[m].path, "cmocka"))
            continue;
        for (int i = 0; i < tc.wanted_count; i++)
            found[i].name = tc.wanted[i].name;
        if (!elf_module_functions(&modules[m], found, tc.wanted_count))
            continue;
        for (int i = 0; i < tc.wanted_count && tc.range_count < RANGES_MAX; i++) {
            if (!found[i].value)
                continue;
            uintptr_t low = modules[m].bias + (uintptr_t)found[i].value;
            tc.ranges[tc.range_count++] = (struct range){
                low, low + (found[i].size ? (uintptr_t)found[i].size : 1), tc.wanted[i].kind,
                tc.wanted[i].name};
        }
    }
}

/* Is the runner's call that the fault is in (`step`, the frame just inside the runner) a step of
   a test? Not when the runner called libfail or the system's libraries itself (malloc, printf).
   A runner whose steps return a result (cmocka's) calls its own helpers too (a print): there one
   of the frames walked (`inner`, the innermost first) must be code outside the runner's module,
   the test's. */
static bool LF_TEXT runner_unit_is_a_step(const struct range *runner, uintptr_t step,
                                          const uintptr_t *inner, int count, uintptr_t runner_ip)
{
    struct module_info callee, home;
    if (!step || is_own_frame(step) || !module_find(step, &callee) || !module_find(runner_ip, &home))
        return false;
    if (path_is_system(callee.path) && callee.id != home.id)
        return false; /* a system library's, not the runner's own (libcmocka is one) */
    if (runner->kind != UNIT_RUNNER_INT)
        return true;
    for (int i = 0; i < count; i++) {
        struct module_info module;
        if (!is_own_frame(inner[i]) && module_find(inner[i], &module) && module.id != home.id &&
            !path_is_system(module.path))
            return true;
    }
    return false;
}

static const struct range *LF_TEXT range_of(uintptr_t pc)
{
    for (int i = 0; i < tc.range_count; i++)
        if (pc - 1 >= tc.ranges[i].low && pc - 1 < tc.ranges[i].high)
            return &tc.ranges[i];
    return NULL;
}

static void LF_TEXT write_text(const char *name, const char *text)
{
    char path[PATH_MAX + 16];
    size_t n = strlen(tc.dir);
    memcpy(path, tc.dir, n);
    path[n++] = '/';
    memcpy(path + n, name, strlen(name) + 1);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        return;
    ssize_t ignored = write(fd, text, strlen(text));
    (void)ignored;
    close(fd);
}

/* The test case is over: say how, and end the child. */
static void LF_TEXT end_child(bool passed)
{
    testcase_armed = false;
    runtime_guard = 1;
    char text[160];
    size_t n = 0;
    const char *verdict = passed ? "passed " : "failed ";
    memcpy(text, verdict, 7);
    n = 7;
    size_t name = strlen(tc.by->name);
    if (name > sizeof text - n - 2)
        name = sizeof text - n - 2;
    memcpy(text + n, tc.by->name, name);
    n += name;
    text[n++] = '\n';
    text[n] = '\0';
    write_text("testcase", text);
    runtime_exit(passed ? 0 : 1, EXIT_BY_TEST_CASE);
    runtime_dump_coverage();
    syscall(SYS_exit_group, passed ? 0 : 1);
    __builtin_unreachable();
}

#if defined(__x86_64__)
/* Where a unit returns to instead of its caller: saves the return registers (rax, rdx, xmm0,
   xmm1), asks testcase_returned where to go (it does not return when the test case is over), and
   goes there with the registers as the unit left them. The stack is 16-byte aligned on arrival (it
   was at the call), and stays so across the two pushes and 32 bytes below them. It has no unwind
   information: a stack walk that meets it takes the frames found when arming (stack.c), and a
   C++ exception puts the true return address back first (testcase_disarm). */
uintptr_t testcase_returned(uint64_t value) LF_HIDDEN;
void testcase_trampoline(void) LF_HIDDEN;
__asm__(".pushsection libfail_text,\"ax\",@progbits\n"
        ".globl testcase_trampoline\n"
        ".hidden testcase_trampoline\n"
        ".type testcase_trampoline,@function\n"
        "testcase_trampoline:\n"
        "    push %rax\n"
        "    push %rdx\n"
        "    sub $32, %rsp\n"
        "    movdqu %xmm0, (%rsp)\n"
        "    movdqu %xmm1, 16(%rsp)\n"
        "    mov %rax, %rdi\n"
        "    call testcase_returned\n"
        "    mov %rax, %r11\n"
        "    movdqu (%rsp), %xmm0\n"
        "    movdqu 16(%rsp), %xmm1\n"
        "    add $32, %rsp\n"
        "    pop %rdx\n"
        "    pop %rax\n"
        "    jmp *%r11\n"
        ".size testcase_trampoline, .-testcase_trampoline\n"
        ".popsection\n");

static bool LF_TEXT in_child(void)
{
    return (pid_t)syscall(SYS_getpid) == tc.pid;
}

uintptr_t LF_TEXT testcase_returned(uint64_t value)
{
    if (!in_child())
        return tc.return_to; /* a fork of the child's, returning through the copied stack */
    bool has_result = tc.by->kind == UNIT_FUNCTION_INT || tc.by->kind == UNIT_RUNNER_INT;
    bool passed = !has_result || (int)value == 0;
    if (tc.by->kind == UNIT_FUNCTION || tc.by->kind == UNIT_FUNCTION_INT)
        end_child(passed);
    tc.returned = true;
    tc.passed = passed;
    return tc.return_to;
}

/* The stack pointer a jmp_buf restores: glibc keeps it mangled with the thread's pointer guard
   (x86-64: xor with %fs:0x30, then rotate left by 17). */
static uintptr_t LF_TEXT jump_target(const void *env)
{
    uintptr_t mangled = ((const uintptr_t *)env)[6], guard;
    __asm__("mov %%fs:0x30, %0" : "=r"(guard));
    return ((mangled >> 17) | (mangled << 47)) ^ guard;
}

void LF_TEXT testcase_arm(const char *dir)
{
    testcase_armed = false;
    if (tc.range_count == 0)
        return;
    unwinder_bind();
    unw_context_t context;
    unw_cursor_t cursor;
    if (unw_getcontext(&context) != 0 || unw_init_local(&cursor, &context) != 0)
        return;
    /* Walk out; the frame that follows a unit (the caller of a test-case function, or the runner
       itself) holds, just below its stack pointer, the return address of the unit's call. */
    uintptr_t *slot = NULL;
    uintptr_t expected = 0;
    const struct range *by = NULL;
    const struct range *previous = NULL;
    uintptr_t inner[64]; /* the innermost frames walked (ours included) */
    int inner_count = 0;
    uintptr_t previous_ip = 0;
    for (int depth = 0; depth < 512; depth++) {
        unw_word_t ip = 0, sp = 0;
        if (unw_get_reg(&cursor, UNW_REG_IP, &ip) < 0 || ip == 0 ||
            unw_get_reg(&cursor, UNW_REG_SP, &sp) < 0)
            break;
        const struct range *here = depth ? range_of((uintptr_t)ip) : NULL;
        const struct range *match = NULL;
        if (here && (here->kind == UNIT_RUNNER || here->kind == UNIT_RUNNER_INT))
            match = here;
        else if (previous && (previous->kind == UNIT_FUNCTION || previous->kind == UNIT_FUNCTION_INT))
            match = previous;
        if (match && (match->kind == UNIT_RUNNER || match->kind == UNIT_RUNNER_INT) &&
            !runner_unit_is_a_step(match, previous_ip, inner, inner_count, (uintptr_t)ip))
            return; /* the runner's own call (a print, malloc itself): no test step */
        if (match) {
            slot = (uintptr_t *)(uintptr_t)sp - 1;
            expected = (uintptr_t)ip;
            by = match;
            /* The frames from here out, for stack captures that meet the trampoline. */
            tc.outer_count = 0;
            tc.outer_sp = UINTPTR_MAX;
            do {
                if (unw_get_reg(&cursor, UNW_REG_IP, &ip) < 0 || ip == 0)
                    break;
                if (tc.outer_count == 1 && unw_get_reg(&cursor, UNW_REG_SP, &sp) == 0)
                    tc.outer_sp = (uintptr_t)sp;
                tc.outer[tc.outer_count++] = (uintptr_t)ip;
            } while (tc.outer_count < (int)(sizeof tc.outer / sizeof tc.outer[0]) &&
                     unw_step(&cursor) > 0);
            break; /* the innermost */
        }
        previous = here;
        previous_ip = (uintptr_t)ip;
        if (inner_count < (int)(sizeof inner / sizeof inner[0]))
            inner[inner_count++] = (uintptr_t)ip;
        if (unw_step(&cursor) <= 0)
            break;
    }
    if (!by || *slot != expected)
        return; /* no test case here, or a frame we cannot trust: the child runs to its end */
    size_t length = strlen(dir);
    if (length >= sizeof tc.dir)
        return;
    memcpy(tc.dir, dir, length + 1);
    tc.slot = slot;
    tc.return_to = expected;
    tc.by = by;
    tc.returned = false;
    tc.passed = true;
    tc.pid = (pid_t)syscall(SYS_getpid);
    *slot = (uintptr_t)testcase_trampoline;
    testcase_armed = true;
}

uintptr_t LF_TEXT testcase_return_for(uintptr_t ip)
{
    return ip == (uintptr_t)testcase_trampoline ? tc.return_to : 0;
}

void LF_TEXT testcase_disarm(void)
{
    if (!in_child())
        return;
    if (!tc.returned && *tc.slot == (uintptr_t)testcase_trampoline)
        *tc.slot = tc.return_to;
    testcase_armed = false; /* the child runs to its end, as without a test case */
}

int LF_TEXT testcase_outer_frames(const uintptr_t **frames)
{
    *frames = tc.outer;
    return tc.outer_count;
}

void LF_TEXT testcase_poll(void)
{
    uintptr_t here = (uintptr_t)__builtin_frame_address(0);
    if (tc.returned && here < (uintptr_t)tc.slot && *tc.slot == tc.return_to && in_child())
        end_child(tc.passed); /* the runner called the same step of its next test */
}

void LF_TEXT testcase_longjmp(const void *env)
{
    uintptr_t target = jump_target(env);
    if (target <= (uintptr_t)tc.slot || !in_child())
        return; /* within the unit, or in a process the child started */
    /* Out of the unit: the test case failed. A runner reports it and goes on to the next test,
       where the child ends; anywhere further out, the child ends now. */
    bool runner = tc.by->kind == UNIT_RUNNER || tc.by->kind == UNIT_RUNNER_INT;
    if (!runner || target >= (uintptr_t)tc.outer_sp)
        end_child(false);
    tc.returned = true;
    tc.passed = false;
}
#else
void LF_TEXT testcase_arm(const char *dir)
{
    (void)dir;
}

uintptr_t LF_TEXT testcase_return_for(uintptr_t ip)
{
    (void)ip;
    return 0;
}

void LF_TEXT testcase_disarm(void)
{
}

int LF_TEXT testcase_outer_frames(const uintptr_t **frames)
{
    *frames = NULL;
    return 0;
}

void LF_TEXT testcase_poll(void)
{
}

void LF_TEXT testcase_longjmp(const void *env)
{
    (void)env;
}
#endif
