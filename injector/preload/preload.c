/*
 * preload.c — libfail-preload.so: interposes the allocator (see interpose.def) and the exits of a
 * process, and hands each call to the in-target core (libfail/runtime/runtime.c).
 *
 * Runs inside the target. Rules it keeps:
 * - it never allocates through the allocator it intercepts: the thread-local runtime_guard sends
 *   every allocation made while libfail itself is working straight to the real allocator;
 * - the real functions are found with dlsym(RTLD_NEXT), so the shim stacks on top of any allocator
 *   loaded after it; while dlsym itself allocates, a static bootstrap arena serves it;
 * - it works before constructors run: the first allocation initialises everything.
 */

#include "internal.h"

#include <dlfcn.h>
#include <errno.h>
#include <malloc.h>
#include <fcntl.h>
#include <sched.h>
#include <setjmp.h>
#include <spawn.h>
#include <stdalign.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

static __thread int resolving __attribute__((tls_model("initial-exec")));

#define INTERPOSE(name, id, type, params, args, ...) static type(*real_##name) params;
#include "format/interpose.def"
#undef INTERPOSE
static void (*real_free)(void *);
static void (*real__exit)(int);
static void (*real__Exit)(int);
static int (*real_listen)(int, int);
static pid_t (*real_setsid)(void);
static int (*real_daemon)(int, int);
typedef void (*jump_function)(struct __jmp_buf_tag *, int);
static jump_function real_longjmp, real__longjmp, real_siglongjmp, real___longjmp_chk;
typedef int (*raise_function)(void *);
typedef int (*forced_function)(void *, void *, void *);
static raise_function real__Unwind_RaiseException;
static forced_function real__Unwind_ForcedUnwind;

/* ---- bootstrap arena: serves allocations made by dlsym before the real functions are known ---- */

#define BOOTSTRAP_SIZE (256 * 1024)
static alignas(4096) char bootstrap_arena[BOOTSTRAP_SIZE];
static _Atomic size_t bootstrap_used;

static size_t LF_TEXT multiply_size(size_t count, size_t size)
{
    size_t total;
    return __builtin_mul_overflow(count, size, &total) ? SIZE_MAX : total;
}

LF_INLINE bool bootstrap_owns(const void *block)
{
    return (const char *)block >= bootstrap_arena &&
           (const char *)block < bootstrap_arena + BOOTSTRAP_SIZE;
}

static void *LF_TEXT bootstrap_alloc(size_t size, size_t alignment)
{
    if (alignment < 16)
        alignment = 16;
    for (;;) {
        size_t used = atomic_load(&bootstrap_used);
        size_t start = (used + 16 + alignment - 1) & ~(alignment - 1); /* room for the size */
        if (size > BOOTSTRAP_SIZE || start + size > BOOTSTRAP_SIZE)
            return NULL;
        if (atomic_compare_exchange_weak(&bootstrap_used, &used, start + size)) {
            memcpy(bootstrap_arena + start - sizeof(size_t), &size, sizeof size);
            return bootstrap_arena + start; /* static storage: already zero, as calloc needs */
        }
    }
}

static void *LF_TEXT bootstrap_realloc(void *block, size_t size)
{
    void *fresh = bootstrap_alloc(size, 16);
    if (fresh && block && bootstrap_owns(block)) {
        size_t old;
        memcpy(&old, (char *)block - sizeof old, sizeof old);
        memcpy(fresh, block, old < size ? old : size);
    }
    return fresh;
}

/* ---- finding the real functions ---- */

static _Atomic int resolve_phase; /* 0 not started, 1 in progress, 2 done */
/* Another copy of libfail comes first in symbol order (the preload over a program linked with
   libfail.so, or libfail.a linked into the program under the preload): that copy serves every
   call, this one only forwards, so faults and records are never counted twice. */
static bool inactive_copy;
static bool LF_TEXT another_copy_first(void);

static void LF_TEXT resolve(void)
{
    int expected = 0;
    if (atomic_load(&resolve_phase) == 2)
        return;
    if (!atomic_compare_exchange_strong(&resolve_phase, &expected, 1)) {
        /* Another thread resolves; if it is this thread (dlsym allocating), use the bootstrap. */
        while (!resolving && atomic_load(&resolve_phase) != 2)
            sched_yield();
        return;
    }
    resolving = 1;
#define INTERPOSE(name, ...) real_##name = (__typeof__(real_##name))dlsym(RTLD_NEXT, #name);
#include "format/interpose.def"
#undef INTERPOSE
    real_free = (void (*)(void *))dlsym(RTLD_NEXT, "free");
    real__exit = (void (*)(int))dlsym(RTLD_NEXT, "_exit");
    real__Exit = (void (*)(int))dlsym(RTLD_NEXT, "_Exit");
    real_listen = (int (*)(int, int))dlsym(RTLD_NEXT, "listen");
    real_setsid = (pid_t(*)(void))dlsym(RTLD_NEXT, "setsid");
    real_daemon = (int (*)(int, int))dlsym(RTLD_NEXT, "daemon");
    real_longjmp = (jump_function)dlsym(RTLD_NEXT, "longjmp");
    real__longjmp = (jump_function)dlsym(RTLD_NEXT, "_longjmp");
    real_siglongjmp = (jump_function)dlsym(RTLD_NEXT, "siglongjmp");
    real___longjmp_chk = (jump_function)dlsym(RTLD_NEXT, "__longjmp_chk");
    real__Unwind_RaiseException = (raise_function)dlsym(RTLD_NEXT, "_Unwind_RaiseException");
    real__Unwind_ForcedUnwind = (forced_function)dlsym(RTLD_NEXT, "_Unwind_ForcedUnwind");
    inactive_copy = another_copy_first();
    resolving = 0;
    atomic_store(&resolve_phase, 2);
}

/* ---- strdup and strndup: do they allocate through the interposable malloc? ---- */

static __thread int allocation_probe __attribute__((tls_model("initial-exec")));
static _Atomic int strdup_probe = -1, strndup_probe = -1; /* -1 not measured, 0 no, 1 yes */

static void LF_TEXT probe_strdup(void)
{
    free(real_strdup("probe"));
}

static void LF_TEXT probe_strndup(void)
{
    free(real_strndup("probe", 3));
}

/* Measured once per process: call the real function with the guard set (so nothing is recorded)
   and see whether any interposer of ours was entered meanwhile. */
static bool LF_TEXT goes_through_malloc(_Atomic int *known, void (*probe)(void))
{
    int result = atomic_load_explicit(known, memory_order_relaxed);
    if (LF_LIKELY(result >= 0))
        return result;
    int saved_guard = runtime_guard;
    runtime_guard = 1;
    allocation_probe = 1;
    probe();
    result = allocation_probe == 2;
    allocation_probe = 0;
    runtime_guard = saved_guard;
    atomic_store(known, result);
    return result;
}

static char *LF_TEXT bootstrap_strdup(const char *text, size_t limit)
{
    size_t length = strnlen(text, limit);
    char *copy = bootstrap_alloc(length + 1, 16);
    if (copy) {
        memcpy(copy, text, length);
        copy[length] = '\0';
    }
    return copy;
}

/* ---- the interposers, generated from the table ---- */

/* An idle shim (no campaign, no in-process use) costs one load of runtime_hooks per call. Once
   runtime_before_alloc has looked at a call, errno is as the program left it; the real function
   sets it; tracking never touches it. The real function is never tail-called while the runtime
   watches: if glibc aborts inside it (heap corruption), our frame must be on the crash stack. */
#define INTERPOSE(name, id, type, params, args, pass_through, size_expr, may_fail, result_block,    \
                  released, fail_value, fail_errno, bootstrap)                                     \
    LF_TEXT LF_EXPORT type name params                                                             \
    {                                                                                              \
        if (LF_UNLIKELY(!real_##name)) {                                                           \
            resolve();                                                                             \
            if (!real_##name)                                                                      \
                return bootstrap;                                                                  \
        }                                                                                          \
        if (LF_UNLIKELY(allocation_probe))                                                         \
            allocation_probe = 2;                                                                  \
        unsigned hooks = atomic_load_explicit(&runtime_hooks, memory_order_relaxed);               \
        if (LF_LIKELY(hooks == RUNTIME_READY) || runtime_guard || inactive_copy || (pass_through)) \
            return real_##name args;                                                               \
        runtime_guard = 1;                                                                         \
        if (LF_UNLIKELY(!(hooks & RUNTIME_READY)))                                                 \
            runtime_init();                                                                        \
        struct call call;                                                                          \
        call.fail = false;                                                                         \
        call.static_index = UINT32_MAX;                                                            \
        size_t request = (size_expr);                                                              \
        if (may_fail)                                                                              \
            runtime_before_alloc(&call, id, request, (uintptr_t)__builtin_return_address(0));      \
        if (LF_UNLIKELY(call.fail)) {                                                              \
            if (fail_errno)                                                                        \
                errno = (fail_errno);                                                              \
            runtime_guard = 0;                                                                     \
            return fail_value;                                                                     \
        }                                                                                          \
        void *released_block = (released);                                                         \
        if (released_block)                                                                        \
            runtime_untrack(released_block);                                                       \
        runtime_guard = RUNTIME_GUARD_REAL_CALL;                                                   \
        type result = real_##name args;                                                            \
        runtime_guard = 1;                                                                         \
        void *new_block = (result_block);                                                          \
        if (call.static_index != UINT32_MAX) {                                                     \
            runtime_track(&call, new_block, request);                                              \
            if (!new_block && released_block && (may_fail)) /* failed for real: still ours */     \
                runtime_track(&call, released_block, 0);                                           \
        }                                                                                          \
        runtime_guard = 0;                                                                         \
        return result;                                                                             \
    }
#include "format/interpose.def"
#undef INTERPOSE

/* Our own malloc, by a hidden name: the plain name would resolve to the first copy in scope. */
extern void *own_malloc(size_t size) __attribute__((alias("malloc"), visibility("hidden"), malloc,
                                                   nothrow, leaf, alloc_size(1)));

bool LF_TEXT preload_active(void)
{
    resolve();
    return !inactive_copy;
}

static bool LF_TEXT another_copy_first(void)
{
    void *first = dlsym(RTLD_DEFAULT, "malloc");
    return first && first != (void *)own_malloc && dlsym(RTLD_DEFAULT, "lf_version");
}

LF_TEXT LF_EXPORT void free(void *block)
{
    if (!block || bootstrap_owns(block))
        return;
    if (LF_UNLIKELY(!real_free)) {
        resolve();
        if (!real_free)
            return; /* only dlsym's own early allocations can get here: leaking them is harmless */
    }
    unsigned hooks = atomic_load_explicit(&runtime_hooks, memory_order_relaxed);
    if (LF_LIKELY(hooks == RUNTIME_READY)) {
        real_free(block); /* idle: nobody watches a crash stack, a tail call is fine */
        return;
    }
    /* runtime_untrack allocates nothing and leaves errno alone; the guard keeps a signal
       handler's allocation on this thread out of the live table while it is being changed (a
       rebuild would unmap the slot this untrack is about to write). */
    if ((hooks & RUNTIME_TRACKING) && !runtime_guard && !inactive_copy) {
        runtime_guard = 1;
        runtime_untrack(block);
        runtime_guard = 0;
    }
    real_free(block);
    /* Not a tail call: if glibc aborts inside free (a double free), this frame stays on the
       crash stack, which is how failrun tells heap corruption from a deliberate abort. */
    __asm__ volatile("" ::: "memory");
}

/* ---- process exits ----
 * exit(), a return from main and libc's own exits (error(3), xalloc_die) all run the on_exit
 * handler runtime.c registers, which sees the status. Only _exit and _Exit bypass it. */

static void LF_TEXT note_exit(int status, enum record_exit_kind kind)
{
    int saved_guard = runtime_guard;
    runtime_guard = 1;
    resolve();
    if (!inactive_copy) {
        runtime_init();
        runtime_exit(status, kind);
    }
    runtime_guard = saved_guard;
}

LF_TEXT LF_EXPORT void _exit(int status)
{
    note_exit(status, EXIT_BY_UNDERSCORE_EXIT);
    if (real__exit)
        real__exit(status);
    syscall(SYS_exit_group, status);
    __builtin_unreachable();
}

LF_TEXT LF_EXPORT void _Exit(int status)
{
    note_exit(status, EXIT_BY_UNDERSCORE_EXIT);
    if (real__Exit)
        real__Exit(status);
    syscall(SYS_exit_group, status);
    __builtin_unreachable();
}

/* ---- what a test fixture does ----
 * A server that listens, a process that leaves its session: with how it ended (failrun sees
 * that), a fixture of the suite rather than a program under test. daemon(3) calls setsid
 * inside the C library, past this interposer, so it is caught too. */

static void LF_TEXT note_fixture(uint32_t how)
{
    int saved_guard = runtime_guard;
    runtime_guard = 1;
    if (!inactive_copy) {
        runtime_init();
        runtime_fixture(how);
    }
    runtime_guard = saved_guard;
}

LF_TEXT LF_EXPORT int listen(int fd, int backlog)
{
    resolve();
    int result = real_listen ? real_listen(fd, backlog)
                             : (int)syscall(SYS_listen, fd, backlog);
    if (result == 0) {
        int saved = errno;
        note_fixture(RECORD_FIXTURE_LISTENED);
        errno = saved;
    }
    return result;
}

LF_TEXT LF_EXPORT pid_t setsid(void)
{
    resolve();
    pid_t result = real_setsid ? real_setsid() : (pid_t)syscall(SYS_setsid);
    if (result >= 0) {
        int saved = errno;
        note_fixture(RECORD_FIXTURE_SESSION);
        errno = saved;
    }
    return result;
}

LF_TEXT LF_EXPORT int daemon(int keep_folder, int keep_descriptors)
{
    resolve();
    if (!real_daemon) {
        errno = ENOSYS;
        return -1;
    }
    int result = real_daemon(keep_folder, keep_descriptors);
    if (result == 0) {
        int saved = errno;
        note_fixture(RECORD_FIXTURE_SESSION); /* in the child that goes on, the daemon */
        errno = saved;
    }
    return result;
}

/* ---- longjmp ----
 * A fork-mode child ends when its test case does (libfail/fork/testcase.c); a test runner such as
 * expat's minicheck ends a failed test by a longjmp back into the runner. Only an armed child
 * looks at the jump; everything else goes straight on. */

#define JUMP_INTERPOSER(name)                                                                  \
    LF_TEXT LF_EXPORT void name(struct __jmp_buf_tag env[1], int value)                       \
    {                                                                                          \
        if (testcase_armed && !inactive_copy)                                                  \
            testcase_longjmp(env);                                                             \
        resolve();                                                                             \
        if (real_##name)                                                                       \
            real_##name(env, value);                                                           \
        __builtin_trap(); /* no longjmp in the process: it cannot go on */                     \
    }
JUMP_INTERPOSER(longjmp)
JUMP_INTERPOSER(_longjmp)
JUMP_INTERPOSER(siglongjmp)
void __longjmp_chk(struct __jmp_buf_tag env[1], int value);
JUMP_INTERPOSER(__longjmp_chk)
#undef JUMP_INTERPOSER

/* A C++ exception (throw, rethrow) or a thread's cancellation unwinds with libgcc's unwinder,
   which cannot step through the test-case trampoline: an armed child puts the true return
   address back first and runs to its end. Declared here with opaque arguments: libgcc's
   <unwind.h> is not needed for passing them on. */
int _Unwind_RaiseException(void *exception);
LF_TEXT LF_EXPORT int _Unwind_RaiseException(void *exception)
{
    if (testcase_armed && !inactive_copy)
        testcase_disarm();
    resolve();
    return real__Unwind_RaiseException ? real__Unwind_RaiseException(exception) : 5;
}

int _Unwind_ForcedUnwind(void *exception, void *stop, void *argument);
LF_TEXT LF_EXPORT int _Unwind_ForcedUnwind(void *exception, void *stop, void *argument)
{
    if (testcase_armed && !inactive_copy)
        testcase_disarm();
    resolve();
    return real__Unwind_ForcedUnwind ? real__Unwind_ForcedUnwind(exception, stop, argument) : 5;
}

/* ---- exec and spawn ----
 * Two things travel into the program an exec or posix_spawn starts:
 * - a thread's fail-nth counter survives exec, as the kernel's does: it goes in LIBFAIL_FAIL_NTH
 *   (see runtime_exec_environment); posix_spawn starts a new task, whose counter is 0;
 * - the campaign's preload, when the caller's environment replaced LD_PRELOAD: ours goes first
 *   again, and a program that starts without it (LD_PRELOAD cleared, set-user-ID) is recorded
 *   (libfail/execenv.c).
 * glibc's execl* and execv* call execve internally, not through the PLT, so each is wrapped;
 * system() and popen() spawn with environ, which keeps what the process started with. Outside a
 * campaign, without an armed counter, every call goes straight to the real function. errno and
 * the result are the real function's. */

static struct {
    void *execve, *execvpe, *fexecve, *execveat, *posix_spawn, *posix_spawnp;
} real_execs;

/* The next definition of `name` after ours, looked up once into *slot (the exec wrappers here,
   the system-call wrappers of kernel.c). dlsym may allocate: under the guard. */
void *LF_TEXT real_function(void **slot, const char *name)
{
    void *real = atomic_load_explicit((_Atomic(void *) *)slot, memory_order_acquire);
    if (!real) {
        int saved_guard = runtime_guard;
        runtime_guard = 1;
        real = dlsym(RTLD_NEXT, name);
        runtime_guard = saved_guard;
        atomic_store_explicit((_Atomic(void *) *)slot, real, memory_order_release);
    }
    return real;
}

#define REAL_EXEC(name, type) ((type)real_function(&real_execs.name, #name))

typedef int (*execve_fn)(const char *, char *const[], char *const[]);
typedef int (*fexecve_fn)(int, char *const[], char *const[]);
typedef int (*execveat_fn)(int, const char *, char *const[], char *const[], int);
typedef int (*spawn_fn)(pid_t *, const char *, const posix_spawn_file_actions_t *,
                        const posix_spawnattr_t *, char *const[], char *const[]);

enum exec_kind { EXEC_EXECVE, EXEC_EXECVPE, EXEC_FEXECVE, EXEC_EXECVEAT, EXEC_SPAWN, EXEC_SPAWNP };

struct exec_call {
    enum exec_kind kind;
    struct exec_target target;
    char *const *argv;
    pid_t *pid; /* posix_spawn */
    const posix_spawn_file_actions_t *actions;
    const posix_spawnattr_t *attributes;
};

static int LF_TEXT call_real(const struct exec_call *c, char *const *envp)
{
    switch (c->kind) {
    case EXEC_EXECVE:
        return REAL_EXEC(execve, execve_fn)(c->target.path, c->argv, envp);
    case EXEC_EXECVPE:
        return REAL_EXEC(execvpe, execve_fn)(c->target.path, c->argv, envp);
    case EXEC_FEXECVE:
        return REAL_EXEC(fexecve, fexecve_fn)(c->target.fd, c->argv, envp);
    case EXEC_EXECVEAT:
        return REAL_EXEC(execveat, execveat_fn)(c->target.dirfd, c->target.path, c->argv, envp,
                                                c->target.flags);
    case EXEC_SPAWN:
        return REAL_EXEC(posix_spawn, spawn_fn)(c->pid, c->target.path, c->actions,
                                                c->attributes, c->argv, envp);
    case EXEC_SPAWNP:
        return REAL_EXEC(posix_spawnp, spawn_fn)(c->pid, c->target.path, c->actions,
                                                 c->attributes, c->argv, envp);
    }
    return -1;
}

/* An exec that returns has failed; posix_spawn returns an error number, 0 once it started. */
LF_INLINE bool call_failed(const struct exec_call *c, int result)
{
    return c->kind < EXEC_SPAWN || result != 0;
}

/* The new environment is built on the stack up to this size, in a mapping above it (removed
   when the call returns), except in a vfork child: a mapping it made would stay in its parent. */
#define EXEC_STACK_BYTES 16384

static int LF_TEXT exec_with(const struct exec_call *c, char *const *envp)
{
    int saved_errno = errno;
    uint64_t counter = c->kind >= EXEC_SPAWN ? 0 : runtime_exec_counter();
    struct exec_decision decision;
    exec_decide(&decision, &c->target, envp);
    errno = saved_errno;
    if (!counter && !decision.rewrite) {
        int result = call_real(c, envp);
        if (call_failed(c, result))
            exec_failed(&decision);
        return result;
    }
    size_t count = 0;
    while (envp && envp[count])
        count++;
    size_t pointers = (count + 2) * sizeof(char *);
    size_t bytes = pointers + 48 + (decision.rewrite ? decision.entry_length : 0);
    bool on_stack = bytes <= EXEC_STACK_BYTES || runtime_vfork_child();
    char *stack_buffer[on_stack ? (bytes + sizeof(char *) - 1) / sizeof(char *) : 1];
    void *mapped = NULL;
    if (!on_stack) {
        mapped = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (mapped == MAP_FAILED) { /* no room: the program gets the environment as it is */
            errno = saved_errno;
            int result = call_real(c, envp);
            if (call_failed(c, result))
                exec_failed(&decision);
            return result;
        }
    }
    char **copy = mapped ? mapped : (void *)stack_buffer;
    char *entry = (char *)copy + pointers;
    char *preload_entry = decision.rewrite ? entry + 48 : NULL;
    if (preload_entry)
        exec_preload_entry(&decision, envp, preload_entry);
    runtime_exec_environment(envp, counter, copy, entry, decision.preload_index, preload_entry);
    errno = saved_errno;
    int result = call_real(c, copy);
    if (mapped) {
        int call_errno = errno;
        munmap(mapped, bytes);
        errno = call_errno;
    }
    if (call_failed(c, result))
        exec_failed(&decision);
    return result;
}

LF_INLINE struct exec_target exec_target(const char *path, bool search, int fd, int dirfd,
                                        int flags)
{
    return (struct exec_target){.path = path, .search = search, .fd = fd, .dirfd = dirfd,
                                .flags = flags};
}

LF_TEXT LF_EXPORT int execve(const char *path, char *const argv[], char *const envp[])
{
    struct exec_call c = {.kind = EXEC_EXECVE, .target = exec_target(path, false, -1, AT_FDCWD, 0), .argv = argv};
    return exec_with(&c, envp);
}

LF_TEXT LF_EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
    struct exec_call c = {.kind = EXEC_EXECVPE, .target = exec_target(file, true, -1, AT_FDCWD, 0),
                          .argv = argv};
    return exec_with(&c, envp);
}

LF_TEXT LF_EXPORT int fexecve(int fd, char *const argv[], char *const envp[])
{
    struct exec_call c = {.kind = EXEC_FEXECVE, .target = exec_target(NULL, false, fd, AT_FDCWD, 0), .argv = argv};
    return exec_with(&c, envp);
}

LF_TEXT LF_EXPORT int execveat(int dirfd, const char *path, char *const argv[],
                               char *const envp[], int flags)
{
    struct exec_call c = {.kind = EXEC_EXECVEAT,
                          .target = exec_target(path, false, -1, dirfd, flags),
                          .argv = argv};
    return exec_with(&c, envp);
}

LF_TEXT LF_EXPORT int posix_spawn(pid_t *pid, const char *path,
                                  const posix_spawn_file_actions_t *actions,
                                  const posix_spawnattr_t *attributes, char *const argv[],
                                  char *const envp[])
{
    struct exec_call c = {.kind = EXEC_SPAWN, .target = exec_target(path, false, -1, AT_FDCWD, 0), .argv = argv,
                          .pid = pid, .actions = actions, .attributes = attributes};
    return exec_with(&c, envp);
}

LF_TEXT LF_EXPORT int posix_spawnp(pid_t *pid, const char *file,
                                   const posix_spawn_file_actions_t *actions,
                                   const posix_spawnattr_t *attributes, char *const argv[],
                                   char *const envp[])
{
    struct exec_call c = {.kind = EXEC_SPAWNP, .target = exec_target(file, true, -1, AT_FDCWD, 0),
                          .argv = argv, .pid = pid, .actions = actions, .attributes = attributes};
    return exec_with(&c, envp);
}

LF_TEXT LF_EXPORT int execv(const char *path, char *const argv[])
{
    return execve(path, argv, environ);
}

LF_TEXT LF_EXPORT int execvp(const char *file, char *const argv[])
{
    return execvpe(file, argv, environ);
}

/* execl, execlp, execle: the argument list into an array on the stack, as glibc does. */
#define EXEC_LIST(first, list_start, call)                                                         \
    do {                                                                                           \
        va_list list;                                                                              \
        va_start(list, list_start);                                                                \
        size_t count = 1; /* glibc declares the first argument nonnull */                          \
        while (va_arg(list, const char *))                                                         \
            count++;                                                                               \
        va_end(list);                                                                              \
        char *argv[count + 1];                                                                     \
        va_start(list, list_start);                                                                \
        argv[0] = (char *)(first);                                                                 \
        for (size_t i = 1; i < count; i++)                                                         \
            argv[i] = va_arg(list, char *);                                                        \
        argv[count] = NULL;                                                                        \
        va_end(list);                                                                              \
        return (call);                                                                             \
    } while (0)

LF_TEXT LF_EXPORT int execl(const char *path, const char *arg, ...)
{
    EXEC_LIST(arg, arg, execve(path, argv, environ));
}

LF_TEXT LF_EXPORT int execlp(const char *file, const char *arg, ...)
{
    EXEC_LIST(arg, arg, execvpe(file, argv, environ));
}

LF_TEXT LF_EXPORT int execle(const char *path, const char *arg, ...)
{
    /* The environment follows the list's terminating NULL. */
    va_list scan;
    va_start(scan, arg);
    while (va_arg(scan, const char *))
        ;
    char *const *envp = va_arg(scan, char *const *);
    va_end(scan);
    EXEC_LIST(arg, arg, execve(path, argv, envp));
}

/* failrun's leak scan (LIBFAIL_LEAK_SCAN) preloads AddressSanitizer's runtime after us, whose
   strdup and strndup allocate inside it: the program's copies would then be sites of their own
   rather than the malloc inside glibc's strdup that every other run sees. Take glibc's. */
static void LF_TEXT use_glibc_string_copies(void)
{
    void *libc = dlopen("libc.so.6", RTLD_NOLOAD | RTLD_LAZY);
    void *copy = libc ? dlsym(libc, "strdup") : NULL;
    void *bounded = libc ? dlsym(libc, "strndup") : NULL;
    if (!copy || !bounded)
        return;
    real_strdup = (__typeof__(real_strdup))copy;
    real_strndup = (__typeof__(real_strndup))bounded;
    atomic_store(&strdup_probe, -1); /* measure again: glibc's go through malloc */
    atomic_store(&strndup_probe, -1);
}

__attribute__((constructor)) static void LF_TEXT preload_start(void)
{
    runtime_guard = 1;
    resolve();
    if (!inactive_copy && getenv("LIBFAIL_LEAK_SCAN"))
        use_glibc_string_copies();
    if (!inactive_copy) {
        runtime_constructor_ran();
        runtime_init();
        runtime_forget_environment(); /* after the copy that reads it has */
        runtime_start(); /* PLAN_START: this program's fault runs fork here, before main */
    }
    runtime_guard = 0;
}

/* Runs after the program's atexit handlers and destructors (the preload was initialised first). */
__attribute__((destructor)) static void LF_TEXT preload_finish(void)
{
    runtime_guard = 1;
    if (!inactive_copy)
        runtime_fini();
    runtime_guard = 0;
}
