/*
 * exits.c — how a process image ends, and what it records then: an exit (exit(), a return from
 * main, _exit: an EXIT record with its stack, then the blocks still live), a fatal signal (a
 * SIGNAL record with the crash stack, then the signal handed on to whoever had it), or a hang
 * that spins after a planned fault (the plan's CPU limit: a SIGNAL record of SIGXCPU, then
 * SIGKILL). A crash or a hang runs no destructor: both write the coverage of every loaded module
 * first (gcovdump.c), as an exit would have. (The on_exit handler that sees exit() is registered
 * at initialisation, runtime.c.)
 *
 * The handlers run with the guard set, on an alternate stack, and allocate nothing.
 */

#include "runtime.h"

#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static struct sigaction previous_actions[NSIG];
/* gcov's dump function when a module exports it (linked with --coverage and
   -Wl,--undefined=__gcov_dump): it writes every module sharing that module's gcov master list;
   gcovdump.c then finds each remaining module's own dump function in its file. */
void (*runtime_gcov_dump)(void);
static const int fatal_signals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGSYS, SIGTRAP};

/* ---- fatal signals ---- */

static void LF_TEXT on_fatal_signal(int signo, siginfo_t *info, void *ucontext)
{
    int saved_errno = errno;
    int saved_guard = runtime_guard;
    runtime_guard = 1;
    char selector = own_syscalls_begin();
    uintptr_t pcs[RECORD_MAX_FRAMES];
    struct record_frame frames[RECORD_MAX_FRAMES];
    int count = stack_capture_signal(ucontext, pcs, RECORD_MAX_FRAMES);
    stack_normalise(pcs, count, frames);
    /* A fault the kernel raised tells the address it could not access (a NULL dereference:
       NULL plus a field's offset). */
    bool addressed = info && info->si_code > 0 && (signo == SIGSEGV || signo == SIGBUS);
    runtime_emit_frames(RECORD_SIGNAL, addressed ? RECORD_FLAG_SIGNAL_ADDRESS : 0, 0,
                        stack_signature(frames, count), (uint64_t)signo,
                        addressed ? (uint64_t)(uintptr_t)info->si_addr : 0, frames, count);
    gcov_dump_modules(runtime_gcov_dump);
    /* Hand the signal to whoever had it before us (usually the default action: die). A fault
       the kernel raised recurs when the instruction runs again, with its genuine siginfo (a
       sanitizer's handler reads si_addr); a sent signal is raised again, pending until we
       return. */
    sigaction(signo, &previous_actions[signo], NULL);
    bool synchronous = info && info->si_code > 0 && signo != SIGABRT && signo != SIGTRAP;
    if (!synchronous)
        raise(signo);
    own_syscalls_end(selector);
    runtime_guard = saved_guard;
    errno = saved_errno;
}

void LF_TEXT runtime_install_signal_handlers(void)
{
    size_t stack_size = 64 * 1024;
    void *stack = mmap(NULL, stack_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (stack != MAP_FAILED) {
        stack_t alternate = {.ss_sp = stack, .ss_size = stack_size, .ss_flags = 0};
        stack_t old;
        /* Keep the program's own alternate stack if it set one already. */
        if (sigaltstack(NULL, &old) == 0 && (old.ss_flags & SS_DISABLE))
            sigaltstack(&alternate, NULL);
    }
    for (size_t i = 0; i < sizeof fatal_signals / sizeof fatal_signals[0]; i++) {
        struct sigaction action;
        memset(&action, 0, sizeof action);
        action.sa_sigaction = on_fatal_signal;
        action.sa_flags = SA_SIGINFO | SA_ONSTACK;
        sigemptyset(&action.sa_mask);
        struct sigaction current;
        if (sigaction(fatal_signals[i], NULL, &current) == 0 && current.sa_handler == SIG_IGN)
            continue; /* ignored (inherited across exec): raising it is no crash */
        sigaction(fatal_signals[i], &action, &previous_actions[fatal_signals[i]]);
    }
}

/* ---- hangs that spin: a CPU limit once a planned fault fired ---- */

/* A run that loops forever after its failure (a reader retrying a buffer that never comes) used
   to cost the whole wall-clock timeout, 10 times the baseline plus 5 s, on a machine where CPU
   time is the only thing it spends. The plan's cpu=MS gives the process a planned fault fired
   in MS more milliseconds of CPU (RLIMIT_CPU, counted by the kernel, blind to the machine's
   load): the kernel sends SIGXCPU once they are used, and the handler records where the process
   was (a RECORD_SIGNAL of SIGXCPU, which failrun reads as a hang), writes its coverage and ends
   it with SIGKILL. A process that blocks SIGXCPU, or one blocked in a system call (no CPU used),
   waits for the wall-clock timeout as before. Children inherit the limit with their own CPU
   count from zero. */
static _Atomic bool cpu_limit_armed;

static void LF_TEXT on_cpu_limit(int signo, siginfo_t *info, void *ucontext)
{
    (void)info;
    runtime_guard = 1;
    own_syscalls_begin();
    uintptr_t pcs[RECORD_MAX_FRAMES];
    struct record_frame frames[RECORD_MAX_FRAMES];
    /* Out of scope (a system program the faulted process executed) the unwinder was never set
       up, and setting it up here could allocate: the record says only that it ran out. */
    int count = runtime.in_scope ? stack_capture_signal(ucontext, pcs, RECORD_MAX_FRAMES) : 0;
    stack_normalise(pcs, count, frames);
    runtime_emit_frames(RECORD_SIGNAL, 0, 0, stack_signature(frames, count), (uint64_t)signo, 0,
                        frames, count);
    if (runtime.in_scope)
        gcov_dump_modules(runtime_gcov_dump);
    kill(getpid(), SIGKILL);
}

/* The handler, unless the program has one of its own or ignores SIGXCPU (a garbage
   collector's thread signal): false then. */
bool LF_TEXT runtime_install_cpu_limit_handler(void)
{
    struct sigaction current;
    if (sigaction(SIGXCPU, NULL, &current) != 0)
        return false;
    if ((current.sa_flags & SA_SIGINFO) && current.sa_sigaction == on_cpu_limit)
        return true;
    if (current.sa_handler != SIG_DFL)
        return false;
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_sigaction = on_cpu_limit;
    action.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigfillset(&action.sa_mask);
    return sigaction(SIGXCPU, &action, NULL) == 0;
}

/* Where a planned fault fires: once per process. Never raises a limit the program set lower. */
void LF_TEXT runtime_arm_cpu_limit(void)
{
    if (!runtime.plan.cpu_ms || atomic_exchange(&cpu_limit_armed, true))
        return;
    struct rusage usage;
    struct rlimit current;
    if (getrusage(RUSAGE_SELF, &usage) != 0 || getrlimit(RLIMIT_CPU, &current) != 0)
        return;
    uint64_t used_ms = (uint64_t)(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1000 +
                       (uint64_t)(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1000;
    rlim_t soft = (rlim_t)((used_ms + runtime.plan.cpu_ms + 999) / 1000);
    if (current.rlim_cur != RLIM_INFINITY && current.rlim_cur <= soft)
        return;
    /* A program with a SIGXCPU handler of its own would take the limit's signal for its own:
       no limit there. */
    if (!runtime_install_cpu_limit_handler())
        return;
    /* The hard limit stays: the program may raise the soft one again. */
    struct rlimit limit = {.rlim_cur = soft, .rlim_max = current.rlim_max};
    if (current.rlim_max != RLIM_INFINITY && current.rlim_max < soft)
        limit.rlim_cur = current.rlim_max;
    setrlimit(RLIMIT_CPU, &limit);
    /* RLIMIT_CPU counts whole seconds, so a limit of 0.6 s cost up to 1.6 s. A timer on the
       process's CPU clock sends the same signal at the millisecond; the rlimit stays for what
       the timer does not reach (a fork of this process, or the image after an exec, keeps the
       rlimit and loses the timer). Raw system calls: nothing allocated, no librt. */
    struct sigevent event;
    memset(&event, 0, sizeof event);
    event.sigev_notify = SIGEV_SIGNAL;
    event.sigev_signo = SIGXCPU;
    int timer;
    if (syscall(SYS_timer_create, CLOCK_PROCESS_CPUTIME_ID, &event, &timer) == 0) {
        struct itimerspec when = {
            .it_value = {.tv_sec = (time_t)(runtime.plan.cpu_ms / 1000),
                         .tv_nsec = (long)(runtime.plan.cpu_ms % 1000) * 1000000}};
        syscall(SYS_timer_settime, timer, 0, &when, NULL);
    }
}

/* ---- exits ---- */

void LF_TEXT runtime_exit(int status, enum record_exit_kind kind)
{
    if (!runtime.active || getpid() != runtime.pid)
        return;
    if (runtime.plan.mode == PLAN_FORK)
        forkmode_finish(); /* no child of ours outlives this image */
    bool expected = false;
    if (!atomic_compare_exchange_strong(&runtime.exit_reported, &expected, true))
        return;
    char selector = own_syscalls_begin(); /* the unwinder's system calls too */
    uintptr_t pcs[RECORD_MAX_FRAMES];
    struct record_frame frames[RECORD_MAX_FRAMES];
    /* A test case's end (testcase.c) is no exit the program made: no stack, so that a child
       stopped inside the next test's allocation does not read as exiting at that call. */
    int count = kind == EXIT_BY_TEST_CASE ? 0 : stack_capture(pcs, RECORD_MAX_FRAMES);
    stack_normalise(pcs, count, frames);
    uint32_t flags = (live_table_overflowed() ? RECORD_FLAG_LIVE_OVERFLOW : 0) |
                     (atomic_load(&runtime.sites_overflow) ? RECORD_FLAG_SITES_OVERFLOW : 0);
    runtime_emit_frames(RECORD_EXIT, flags, 0, (uint64_t)getppid(), (uint64_t)(status & 0xff),
                        (uint64_t)kind, frames, count);
    /* _exit runs no atexit handlers or destructors, so this is the last moment to count live
       blocks; after exit() runtime_fini does it, once the program's atexit handlers and
       destructors have freed what they free. */
    if (kind == EXIT_BY_UNDERSCORE_EXIT)
        runtime_report_live_blocks();
    own_syscalls_end(selector);
}

void LF_TEXT runtime_dump_coverage(void)
{
    /* A fork child forgets its module table (runtime_repoint) until a lookup rebuilds it; one
       that ends before any lookup must still find every module's dump function. */
    struct module_info self;
    module_find((uintptr_t)runtime_dump_coverage, &self);
    gcov_dump_modules(runtime_gcov_dump);
}

void LF_TEXT runtime_fini(void)
{
    if (runtime.active && runtime.in_scope && getpid() == runtime.pid)
        runtime_report_live_blocks();
}
