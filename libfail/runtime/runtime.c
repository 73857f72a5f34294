/*
 * runtime.c — per-process state of the in-target core: its settings, its initialisation and what
 * a fork child resets, and the decision at each allocation or I/O call (record its site, and fail
 * it or not: a plan, fail-nth, fork mode). The state is `runtime` (runtime.h), defined here and
 * shared with the runtime's other files: the record file (records.c), the tables of sites and
 * live blocks (sites.c), the ends of a process image (exits.c: exits, fatal signals, hangs) and
 * failrun kernel's system-call sites (syscalls.c).
 *
 * Runs inside the target, called from allocator interposers and signal handlers:
 * - never calls malloc: tables live in anonymous mmap (MAP_NORESERVE, touched only as used);
 * - takes no locks: tables are open-addressed and claimed with compare-and-swap, so fork can never
 *   inherit a held lock; the child resets its per-process state in an atfork handler;
 * - initialises lazily from the first allocation, which may come before any constructor ran.
 */

#include "runtime.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

struct runtime_state runtime = {.record_fd = -1};

__thread int runtime_guard __attribute__((tls_model("initial-exec")));
__thread volatile char runtime_syscall_selector __attribute__((tls_model("initial-exec")));
__thread struct runtime_request runtime_request __attribute__((tls_model("initial-exec")));
_Atomic unsigned runtime_hooks;
/* lf_fail_nth_set was called in this process: every call must be looked at. */
static _Atomic bool fail_nth_used;
/* The calls left before the failure, per thread like the kernel's current->fail_nth: armed by
   PLAN_NTH for the thread that initialises libfail, or by lf_fail_nth_set(); new threads and
   fork children start at 0. */
static __thread uint64_t fail_nth __attribute__((tls_model("initial-exec")));
/* In-process use: where the last lf_fail_nth_set() failure happened (this thread). */
static __thread uintptr_t last_failure_caller __attribute__((tls_model("initial-exec")));
static __thread size_t last_failure_size __attribute__((tls_model("initial-exec")));
/* PLAN_RANDOM: the generator, per thread so threads never race on it. The thread that
   initialises libfail starts from the seed (a single-threaded program is reproducible); other
   threads start from 0. */
static __thread uint64_t random_state __attribute__((tls_model("initial-exec")));
/* Faults injected in this thread (runtime_thread_faults). */
static __thread uint32_t thread_faults __attribute__((tls_model("initial-exec")));
static _Atomic bool persistent_reported;

/* ---- scope ---- */

/* LIBFAIL_EXE: ':'-separated globs of the executables whose allocations count, "!GLOB" leaving
   one out (scope_match); empty or unset (or only separators: failrun pads it to one length,
   campaign.c) means every executable outside the system's folders. failrun decides which applies
   (see campaign.c, decide_scope). */
static bool LF_TEXT decide_scope(void)
{
    return scope_match(getenv("LIBFAIL_EXE"), runtime.exe);
}

/* ---- the baseline's system executables: recorded until the suite's own code starts ---- */

/* Without --exe a campaign's scope is decided after its baseline: every non-system executable
   when the command started one, else the command itself. Until then every process records, and
   a suite's driver (ctest, make, sh, perl), a system executable, unwound every allocation of
   the baseline and its twin only for failrun to drop the sites: ctest cost as much as all of
   jansson's test programs. With the plan's own=1 the first non-system program of the run leaves
   a file in the run folder; a system executable that finds it stops recording (at start, or
   within 64 of its calls) as it would be out of scope. */
static __thread uint32_t own_check_countdown __attribute__((tls_model("initial-exec")));

static void LF_TEXT own_marker_path(char *path)
{
    size_t length = strlen(runtime.dir);
    memcpy(path, runtime.dir, length);
    memcpy(path + length, "/own-code", sizeof "/own-code");
}

static bool LF_TEXT own_code_started(void)
{
    char path[PATH_MAX];
    own_marker_path(path);
    return access(path, F_OK) == 0;
}

static void LF_TEXT decide_own_scope(void)
{
    if (!runtime.plan.own_first || !runtime.in_scope)
        return;
    if (!path_is_system(runtime.exe)) {
        char path[PATH_MAX];
        own_marker_path(path);
        int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
        if (fd >= 0)
            close(fd);
    } else if (own_code_started()) {
        runtime.in_scope = false;
    } else {
        runtime.until_own = true;
    }
}

/* From decide(): a system executable whose run has started own code stops recording. */
static bool LF_TEXT stop_for_own_code(void)
{
    if (LF_LIKELY(!runtime.until_own) || own_check_countdown-- > 0)
        return false;
    own_check_countdown = 63;
    if (!own_code_started())
        return false;
    runtime.until_own = false;
    runtime.in_scope = false;
    atomic_store(&runtime.tracking, false);
    runtime_publish_hooks();
    return true;
}

/* ---- initialisation, fork ---- */

static void LF_TEXT copy_setting(char *out, size_t size, const char *value)
{
    size_t length = value ? strlen(value) : 0;
    if (length >= size)
        length = 0; /* too long to be a real setting: ignore rather than truncate */
    memcpy(out, value ? value : "", length);
    out[length] = '\0';
}

/* The command line tells apart processes of one executable (`kvtest --a` and `kvtest --b`), so
   failrun can compare a faulted process with the same process of the baseline. */
static uint64_t LF_TEXT command_line_hash(void)
{
    char buffer[4096];
    ssize_t length = 0;
    int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        length = read(fd, buffer, sizeof buffer);
        close(fd);
    }
    return hash_bytes(4, buffer, length > 0 ? (size_t)length : 0);
}

/* Registered first, so it runs after the program's own atexit handlers: sees every exit(),
   including a return from main and exits inside libc (error(3)). */
static void LF_TEXT on_process_exit(int status, void *unused)
{
    (void)unused;
    int saved_guard = runtime_guard;
    runtime_guard = 1;
    runtime_exit(status, EXIT_BY_EXIT);
    runtime_guard = saved_guard;
}

/* The file whose O_EXCL creation claims fault i of the run's chain. */
static void LF_TEXT claim_path(char *path, int index)
{
    size_t length = strlen(runtime.dir);
    memcpy(path, runtime.dir, length);
    memcpy(path + length, "/fault-", 7);
    length += 7;
    length += format_decimal(path + length, (uint64_t)index);
    memcpy(path + length, ".claim", sizeof ".claim");
}

/* Fast only in site mode with every site's first frame given, and only while no fault has fired
   in the run: a process started after one (a harness reacting to it) records everything. */
static void LF_TEXT decide_fast_path(void)
{
    runtime.fast = runtime.plan.mode == PLAN_SITE;
    for (int i = 0; i < runtime.plan.fault_count; i++) {
        runtime.fast = runtime.fast && runtime.plan.faults[i].has_top;
        char path[PATH_MAX];
        claim_path(path, i);
        if (access(path, F_OK) == 0)
            atomic_store(&runtime.fault_seen, true);
    }
    /* Executed by the process a fault fired in (or a child of it, a fork run's child too): the
       limit came through the exec, the handler did not. A limit the program's own harness set
       is reported alike: the process ran out of its CPU. */
    struct rlimit limit;
    if (runtime.plan.cpu_ms && getrlimit(RLIMIT_CPU, &limit) == 0 &&
        limit.rlim_cur != RLIM_INFINITY)
        runtime_install_cpu_limit_handler();
}

/* LIBFAIL_FAIL_NTH=N arms the initial thread's counter, like writing N to the kernel's
   /proc/thread-self/fail-nth; the exec wrappers (preload.c) pass a thread's counter to the image
   it executes this way, since the kernel's survives exec. Read here with getenv, which takes no
   lock: the first allocation may come from inside setenv, which holds glibc's environment lock.
   runtime_forget_environment removes it later. */
static void LF_TEXT arm_from_environment(void)
{
    const char *text = getenv("LIBFAIL_FAIL_NTH");
    uint64_t n;
    if (text && parse_decimal(text, strlen(text), &n) && n) {
        fail_nth = n;
        atomic_store(&fail_nth_used, true);
    }
}

/* From the preload's constructor, where no libc lock is held: a process this one starts
   (posix_spawn, system) is a new task and must start at 0, so the variable goes. unsetenv shifts
   environ's pointers in place and allocates nothing. */
void LF_TEXT runtime_forget_environment(void)
{
    if (getenv("LIBFAIL_FAIL_NTH"))
        unsetenv("LIBFAIL_FAIL_NTH");
}

static void LF_TEXT initialise(void)
{
    runtime.pid = getpid();
    arm_from_environment();
    /* Always: a fork child starts with its counters at 0, campaign or not. */
    pthread_atfork(unwinder_before_fork, unwinder_after_fork_parent, runtime_after_fork_child);
    const char *dir = getenv("LIBFAIL_DIR");
    const char *plan = getenv("LIBFAIL_PLAN");
    if (!dir || !*dir || strlen(dir) > PATH_MAX - 64 || plan_parse(plan, &runtime.plan) != NULL)
        return;
    if (dir[0] != '/' && getcwd(runtime.dir, sizeof runtime.dir - 1)) {
        /* Relative: anchor it now, before the program changes directory. */
        size_t length = strlen(runtime.dir);
        if (length + 1 + strlen(dir) < sizeof runtime.dir) {
            runtime.dir[length] = '/';
            copy_setting(runtime.dir + length + 1, sizeof runtime.dir - length - 1, dir);
        } else {
            copy_setting(runtime.dir, sizeof runtime.dir, dir);
        }
    } else {
        copy_setting(runtime.dir, sizeof runtime.dir, dir);
    }
    copy_setting(runtime.module_globs, sizeof runtime.module_globs, getenv("LIBFAIL_MODULE"));
    ssize_t n = readlink("/proc/self/exe", runtime.exe, sizeof runtime.exe - 1);
    runtime.exe[n > 0 ? n : 0] = '\0';
    runtime.in_scope = decide_scope();
    decide_own_scope();
    runtime.command_line = command_line_hash();
    if (runtime.plan.mode == PLAN_NTH && !fail_nth)
        fail_nth = runtime.plan.nth;
    decide_fast_path();
    random_state = runtime.plan.seed;
    if (runtime.in_scope) {
        if (!runtime_map_tables())
            runtime.in_scope = false;
        atomic_store(&runtime.tracking, runtime.in_scope);
    }
    runtime_open_record_file();
    runtime.active = true;
    exec_environment_init();
    runtime_announce_process(false);
    /* A recording run (failrun kernel's is mode=kernel without N) says how each program began. */
    if (runtime.in_scope && runtime.record_path[0] &&
        (runtime.plan.mode == PLAN_RECORD ||
         (runtime.plan.mode == PLAN_KERNEL && !runtime.plan.nth)))
        invocation_write_file(runtime.record_path, runtime.exe);
    if (runtime.in_scope) {
        module_table_set_listener(runtime_announce_module);
        uintptr_t warm_up[2]; /* let libunwind set itself up now, not in the middle of a fork */
        stack_capture(warm_up, 2);
        runtime_gcov_dump = (void (*)(void))dlsym(RTLD_DEFAULT, "__gcov_dump");
        runtime_install_signal_handlers();
    }
    if (runtime.in_scope && (runtime.plan.mode == PLAN_FORK || runtime.plan.mode == PLAN_START))
        forkmode_init(&runtime.plan);
    on_exit(on_process_exit, NULL);
}

/* Set by the preload's constructor. Under failrun's leak scan a sanitizer runtime is preloaded
   after us and allocates (through us) while it sets up its interceptors; initialising then would
   call its half-made readlink or read. LIBFAIL_LEAK_SCAN (set only for those scan runs) makes such
   early calls pass through untracked until our constructor runs. */
static _Atomic bool constructor_seen;

void LF_TEXT runtime_constructor_ran(void)
{
    atomic_store(&constructor_seen, true);
}

void LF_TEXT runtime_init(void)
{
    for (;;) {
        int phase = atomic_load_explicit(&runtime.phase, memory_order_acquire);
        if (phase == 2)
            return;
        int expected = 0;
        if (phase == 0 && atomic_compare_exchange_strong(&runtime.phase, &expected, 1)) {
            if (!environ || (!atomic_load(&constructor_seen) &&
                             getenv("LIBFAIL_LEAK_SCAN"))) {
                /* A sanitizer's .preinit_array allocates before libc has set up the environment:
                   not yet, try again at the next call. */
                atomic_store(&runtime.phase, 0);
                return;
            }
            int saved_errno = errno;
            char selector = own_syscalls_begin();
            initialise();
            own_syscalls_end(selector);
            errno = saved_errno;
            atomic_store_explicit(&runtime.phase, 2, memory_order_release);
            runtime_publish_hooks();
            return;
        }
        sched_yield(); /* another thread is initialising; it never allocates through us */
    }
}

void LF_TEXT runtime_after_fork_child(void)
{
    unwinder_after_fork_child();
    fail_nth = 0; /* the kernel's rule: a new task starts disarmed */
    live_table_after_fork_child();
    runtime.pid = getpid(); /* also when inactive: the exec wrappers tell vfork children by it */
    if (!runtime.active)
        return;
    int saved_guard = runtime_guard;
    runtime_guard = 1; /* our record file's system calls are not the program's (libfail-kernel) */
    char selector = own_syscalls_begin();
    runtime.forked = true;
    atomic_store(&persistent_reported, false);
    int fd = atomic_exchange(&runtime.record_fd, -1);
    if (fd >= 0)
        close(fd); /* the parent's file; this process gets its own */
    atomic_store(&runtime.sequence, 0);
    atomic_store(&runtime.live_reported, false);
    atomic_store(&runtime.exit_reported, false);
    /* What its parent did as a fixture, the child does too: it is in the same session, holds
       the same listening socket (a pre-forking server, a daemon's second fork). */
    uint32_t inherited = atomic_exchange(&runtime.fixture_reported, 0);
    runtime_open_record_file();
    runtime_announce_process(true);
    if (inherited)
        runtime_fixture(inherited);
    module_table_reset_after_fork();
    boundary_reset_after_fork();
    own_syscalls_end(selector);
    runtime_guard = saved_guard;
}

void LF_TEXT runtime_replan(const char *text)
{
    struct plan plan;
    if (text && plan_parse(text, &plan) == NULL) {
        runtime.plan = plan;
    } else {
        runtime.plan.mode = PLAN_SITE;
        runtime.plan.fault_count = 0;
    }
    random_state = runtime.plan.seed;
    decide_fast_path();
    runtime_publish_hooks(); /* the I/O interposers look at the plan's kinds of call only through it */
}

void LF_TEXT runtime_start(void)
{
    if (!runtime.active || !runtime.in_scope || runtime.plan.mode != PLAN_START) {
        /* A start's zygote under valgrind (forkstart.c) that cannot fork its children must not
           go on into main: the guest, its parent, is the program. */
        if (getenv("LIBFAIL_START_ZYGOTE"))
            syscall(SYS_exit_group, FORK_ZYGOTE_UNSTARTED);
        return;
    }
    int saved_errno = errno;
    char selector = own_syscalls_begin();
    static const struct start_sites sites = {runtime_site_reached, runtime_site_known};
    if (!forkmode_start(runtime.command_line, runtime.exe, runtime.dir, &sites))
        runtime_replan(NULL); /* the parent, or a start no run was planned for */
    own_syscalls_end(selector);
    errno = saved_errno;
}

void LF_TEXT runtime_repoint(const char *dir)
{
    runtime.pid = getpid();
    copy_setting(runtime.dir, sizeof runtime.dir, dir);
    runtime.plan.mode = PLAN_RECORD;
    int fd = atomic_exchange(&runtime.record_fd, -1);
    if (fd >= 0)
        close(fd); /* the parent's file */
    atomic_store(&runtime.sequence, 0);
    runtime_open_record_file();
    runtime_announce_process(runtime.forked); /* judged as the process it continues, not as a fork */
    module_table_reset_after_fork();
}

/* ---- the allocation path ---- */

bool LF_TEXT runtime_module_filter_allows(const uintptr_t *pcs, int count)
{
    if (!runtime.module_globs[0])
        return true;
    /* The caller that asked for memory: skip libc, whose strdup/fopen/getline allocate on behalf
       of their own callers. */
    struct module_info module;
    for (int i = 0; i < count; i++) {
        if (!module_find(pcs[i], &module))
            return false;
        const char *base = strrchr(module.path, '/');
        base = base ? base + 1 : module.path;
        if (starts_with(base, "libc.so") || starts_with(base, "ld-linux") ||
            starts_with(base, "linux-vdso"))
            continue;
        return glob_list_match(runtime.module_globs, module.path);
    }
    return false;
}

/* A chain's fault i fires once per run, in whichever process reaches it first: the claim is a
   file created with O_EXCL in the run folder. */
bool LF_TEXT runtime_claim_fault(int index)
{
    char path[PATH_MAX];
    claim_path(path, index);
    char selector = own_syscalls_begin();
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd >= 0)
        close(fd);
    own_syscalls_end(selector);
    return fd >= 0;
}

/* Should this call fail? *report tells whether to write a FAULT record (once per fault and
   process for a persistent target, every time otherwise). */
static bool LF_TEXT planned_failure(uint64_t signature, uint64_t occurrence, bool *report)
{
    *report = true;
    switch (runtime.plan.mode) {
    case PLAN_RANDOM:
        return random_tick(&random_state, runtime.plan.probability);
    case PLAN_SITE:
        for (int i = 0; i < runtime.plan.fault_count; i++) {
            const struct plan_fault *fault = &runtime.plan.faults[i];
            if (fault->site != signature || occurrence < fault->occurrence)
                continue;
            if (i == runtime.plan.fault_count - 1 && runtime.plan.persistent) {
                bool first = false;
                *report = atomic_compare_exchange_strong(&persistent_reported, &first, true);
                if (*report)
                    runtime_claim_fault(i); /* so processes started later know a fault fired */
                return true;
            }
            if (occurrence == fault->occurrence)
                return runtime_claim_fault(i);
        }
        return false;
    default:
        return false;
    }
}

/* A caller entry's first sighting: claim its slot and normalise its address (errno kept: the
   module table may be rebuilt). */
static uint32_t LF_TEXT caller_slot_fill(uintptr_t caller, uint64_t key)
{
    bool fresh;
    uint32_t slot = runtime_site_slot(key, &fresh);
    if (slot == UINT32_MAX)
        return slot;
    struct site_entry *entry = &runtime.sites[slot];
    if (!atomic_load_explicit(&entry->top_ready, memory_order_acquire)) {
        int saved_errno = errno;
        entry->caller = caller;
        stack_normalise(&caller, 1, &entry->top); /* racing threads write the same value */
        atomic_store_explicit(&entry->top_ready, true, memory_order_release);
        errno = saved_errno;
    }
    return slot;
}

/* The caller's entry: found by its raw return address, normalised once per process. The key is
   a bijective mix of the address (never 0, the empty slot): a caller seen before is found inline
   when it sits at its first probe of the near part or of the far one, as most do; one pushed
   further along takes caller_slot_fill's probes (tagged, so cheap) on every call. */
LF_INLINE uint32_t caller_slot(uintptr_t caller)
{
    uint64_t key = ((uint64_t)caller ^ 0x243f6a8885a308d3ull) * 0x9e3779b97f4a7c15ull;
    key = (key ^ (key >> 29)) | 2;
    uint32_t hash = (uint32_t)(key ^ (key >> 32)), tag = (uint32_t)(key >> 32);
    uint64_t slot = atomic_load_explicit(&runtime.index[hash & (SITE_NEAR_SLOTS - 1)],
                                         memory_order_acquire);
    /* A program with thousands of callers has some in the far part: their first probe there
       too, before the slow path's probes. */
    if (LF_UNLIKELY(slot != 0 && (uint32_t)(slot >> 32) != tag))
        slot = atomic_load_explicit(&runtime.index[SITE_NEAR_SLOTS + (hash & (SITE_CAPACITY - 1))],
                                    memory_order_acquire);
    uint32_t entry = (uint32_t)slot;
    if (LF_LIKELY(entry != 0 && (uint32_t)(slot >> 32) == tag &&
                  atomic_load_explicit(&runtime.sites[entry - 1].signature,
                                       memory_order_relaxed) == key &&
                  atomic_load_explicit(&runtime.sites[entry - 1].top_ready, memory_order_acquire)))
        return entry - 1;
    return caller_slot_fill(caller, key);
}

/* The fast path of a targeted run: until a fault fired, a call whose first frame is no planned
   site's first frame cannot be a planned site, so it needs no unwind and no record. */
LF_INLINE bool may_be_planned(const struct record_frame *top)
{
    if (!runtime.fast || atomic_load_explicit(&runtime.fault_seen, memory_order_relaxed))
        return true;
    for (int i = 0; i < runtime.plan.fault_count; i++)
        if (runtime.plan.faults[i].top.module == top->module &&
            runtime.plan.faults[i].top.offset == top->offset)
            return true;
    return false;
}

/* The part of runtime_before_alloc that unwinds, records and decides: errno is saved around it
   by the caller, since libunwind, the module table and the record file make system calls.
   Inlined: stack_capture skips a fixed number of our frames. */
LF_INLINE void decide(struct call *call, uint32_t function, size_t size, uintptr_t caller,
                      bool nth_armed, bool nofail)
{
    if (LF_UNLIKELY(testcase_armed))
        testcase_poll(); /* a fork child whose test case may have ended */
    if (LF_UNLIKELY(runtime.until_own) && stop_for_own_code())
        return;
    uintptr_t pcs[RECORD_MAX_FRAMES];
    int count = stack_capture(pcs, (int)runtime.plan.depth);
    if (count == 0 || !runtime_module_filter_allows(pcs, count))
        return; /* not a candidate: it does not count towards fail-nth either */
    /* Decide before anything that can be full or fail (the site table), so a counted call is
       always a failed one when its turn comes. */
    bool nth_fired = nth_armed && fail_nth_tick(&fail_nth);
    stack_normalise(pcs, count, call->frames);
    call->frame_count = count;
    call->signature = stack_signature(call->frames, count);
    bool fresh;
    uint32_t slot = runtime_site_slot(call->signature, &fresh);
    uint64_t occurrence = 1;
    if (slot != UINT32_MAX) {
        call->fresh = fresh;
        if (runtime_raise_size_class(slot, size) || fresh)
            runtime_emit_frames(RECORD_SITE, nofail ? RECORD_FLAG_NOFAIL : 0, function,
                                call->signature, size, 0, call->frames, count);
        occurrence = counter_next(&runtime.sites[slot].occurrences);
    } else {
        atomic_store(&runtime.sites_overflow, true);
    }
    bool report = true;
    call->fail = nth_fired || (!nofail && slot != UINT32_MAX &&
                               planned_failure(call->signature, occurrence, &report));
    /* Not once the image is ending: what allocates then (gcov writing its data, destructors)
       is no site failrun planned, and a child of it would run nothing of the program. */
    if (LF_UNLIKELY(runtime.plan.mode == PLAN_FORK) && call->fresh && !nofail && !call->fail &&
        !atomic_load_explicit(&runtime.exit_reported, memory_order_relaxed))
        call->fail = forkmode_site(call->signature, runtime.pid); /* true in the child */
    if (nth_fired) {
        last_failure_caller = caller;
        last_failure_size = size;
    }
    if (call->fail) {
        atomic_store(&runtime.fault_seen, true);
        runtime_request.injected = true;
        thread_faults++;
        runtime_arm_cpu_limit();
    }
    if (call->fail && report)
        runtime_emit_frames(RECORD_FAULT, 0, function, call->signature, size, occurrence,
                            call->frames, count);
    if (LF_UNLIKELY(testcase_at_fault) && call->fail) {
        testcase_at_fault = false;
        testcase_arm(runtime.dir); /* a start's child: it ends with this test case */
    }
}

void LF_TEXT runtime_before_alloc(struct call *call, uint32_t function, size_t size,
                                  uintptr_t caller)
{
    call->fresh = false;
    call->frame_count = 0;
    /* A request from the policy API: its site starts at the lf_ function's caller, and a NOFAIL
       request is never failed and, as the kernel skips __GFP_NOFAIL, never counts for fail-nth. */
    bool nofail = LF_UNLIKELY(runtime_request.caller) && (runtime_request.flags & REQUEST_NOFAIL);
    if (LF_UNLIKELY(runtime_request.caller))
        caller = runtime_request.caller;
    /* No getpid() here (a system call per allocation): a vfork child that allocates writes
       nothing anyway, runtime_emit() checks the real pid before every record. */
    if (atomic_load_explicit(&runtime.tracking, memory_order_relaxed))
        call->static_index = caller_slot(caller);
    if (!runtime.active) {
        /* In-process use (lf_fail_nth_set without failrun): fail, remember where, no records. */
        if (fail_nth && !nofail && fail_nth_tick(&fail_nth)) {
            call->fail = true;
            runtime_request.injected = true;
            last_failure_caller = caller;
            last_failure_size = size;
        }
        return;
    }
    /* failrun kernel fails system calls, not allocations: these are only counted (leaks); so
       does a plan that fails I/O calls only (faults=io). */
    if (!runtime.in_scope || (runtime.plan.mode == PLAN_KERNEL && !fail_nth))
        return;
    if (!(runtime.plan.fault_kinds & PLAN_FAULT_ALLOC) && function != FUNCTION_FAILPOINT)
        return;
    bool nth_armed = fail_nth != 0 && !nofail; /* by PLAN_NTH, or by lf_fail_nth_set */
    if (!nth_armed && call->static_index != UINT32_MAX &&
        !may_be_planned(&runtime.sites[call->static_index].top))
        return;
    int saved_errno = errno;
    decide(call, function, size, caller, nth_armed, nofail);
    errno = saved_errno;
}

/* An I/O call is a site like an allocation (no size, no policy flags, nothing to track): it
   counts for fail-nth and may fork in fork mode. runtime_publish_hooks sends calls here only in
   scope of a campaign whose plan fails I/O. */
void LF_TEXT runtime_before_io(struct call *call, uint32_t function, uintptr_t caller)
{
    call->fresh = false;
    call->frame_count = 0;
    if (!runtime.active || !runtime.in_scope || !(runtime.plan.fault_kinds & PLAN_FAULT_IO))
        return;
    if (atomic_load_explicit(&runtime.tracking, memory_order_relaxed))
        call->static_index = caller_slot(caller);
    bool nth_armed = fail_nth != 0;
    if (!nth_armed && call->static_index != UINT32_MAX &&
        !may_be_planned(&runtime.sites[call->static_index].top))
        return;
    int saved_errno = errno;
    decide(call, function, 0, caller, nth_armed, false);
    errno = saved_errno;
}

uint32_t LF_TEXT runtime_thread_faults(void)
{
    return thread_faults;
}

bool LF_TEXT runtime_learns_conventions(void)
{
    if (atomic_load_explicit(&runtime.fault_seen, memory_order_relaxed))
        return false;
    switch (runtime.plan.mode) {
    case PLAN_SITE:
        return runtime.plan.fault_count == 0;
    case PLAN_NTH:
    case PLAN_RANDOM:
        return false;
    default:
        return true;
    }
}

/* Tell the interposers what to do from now on (see runtime_hooks in internal.h). */
void LF_TEXT runtime_publish_hooks(void)
{
    unsigned hooks = atomic_load(&runtime.phase) == 2 ? RUNTIME_READY : 0;
    if (runtime.active || atomic_load(&fail_nth_used) || atomic_load(&runtime.tracking))
        hooks |= RUNTIME_DECIDE;
    if (atomic_load(&runtime.tracking))
        hooks |= RUNTIME_TRACKING;
    if (runtime.active && runtime.in_scope && (runtime.plan.fault_kinds & PLAN_FAULT_IO))
        hooks |= RUNTIME_IO;
    atomic_store(&runtime_hooks, hooks);
}

/* ---- the in-process API (libfail.h) ---- */

void LF_TEXT runtime_fail_nth_set(uint64_t n)
{
    fail_nth = n;
    if (n && !atomic_exchange(&fail_nth_used, true))
        runtime_publish_hooks();
}

uint64_t LF_TEXT runtime_fail_nth_get(void)
{
    return fail_nth;
}

/* The counter an exec on this thread carries into the new image (the kernel's fail-nth survives
   exec), or 0. A vfork child is a new task, which starts at 0, though it runs on its parent's
   memory and so sees the parent thread's counter: told apart by its pid. */
uint64_t LF_TEXT runtime_exec_counter(void)
{
    if (!fail_nth || (pid_t)syscall(SYS_getpid) != runtime.pid)
        return 0;
    return fail_nth;
}

/* A vfork child (posix_spawn's, vfork's) shares its parent's memory: it is told by its pid. */
bool LF_TEXT runtime_vfork_child(void)
{
    return (pid_t)syscall(SYS_getpid) != runtime.pid;
}

bool LF_TEXT runtime_campaign(void)
{
    return atomic_load_explicit(&runtime.phase, memory_order_acquire) == 2 && runtime.active;
}

/* Fill `copy` (room for the entries of envp plus 2) with envp, where `preload_entry` (not
   NULL) replaces entry `preload_index`, and where a non-zero counter replaces any
   LIBFAIL_FAIL_NTH entry by "LIBFAIL_FAIL_NTH=counter", written into `entry` (room for 48
   bytes) and put last. Storage is the caller's (its stack, or a mapping it removes): a vfork
   child must leave nothing behind in its parent's address space. */
void LF_TEXT runtime_exec_environment(char *const *envp, uint64_t counter, char **copy,
                                      char *entry, size_t preload_index, char *preload_entry)
{
    static const char name[] = "LIBFAIL_FAIL_NTH=";
    size_t used = 0;
    for (size_t i = 0; envp && envp[i]; i++) {
        if (counter && starts_with(envp[i], name))
            continue;
        copy[used++] = preload_entry && i == preload_index ? preload_entry : envp[i];
    }
    if (counter) {
        memcpy(entry, name, sizeof name - 1);
        entry[sizeof name - 1 + format_decimal(entry + sizeof name - 1, counter)] = '\0';
        copy[used++] = entry;
    }
    copy[used] = NULL;
}

bool LF_TEXT runtime_failpoint(const char *name, uintptr_t caller)
{
    if (runtime_guard)
        return false;
    runtime_guard = 1;
    int saved_errno = errno;
    runtime_init();
    struct call call;
    call.fail = false;
    call.static_index = UINT32_MAX;
    call.frame_count = 0;
    if (atomic_load_explicit(&runtime_hooks, memory_order_relaxed) & RUNTIME_DECIDE)
        runtime_before_alloc(&call, FUNCTION_FAILPOINT, 0, caller);
    if (call.fresh && call.frame_count)
        runtime_emit_text(RECORD_NAME, 0, call.signature, 0, name ? name : "", NULL, 0);
    errno = saved_errno;
    runtime_guard = 0;
    return call.fail;
}

uintptr_t LF_TEXT runtime_last_failure(size_t *size)
{
    if (size)
        *size = last_failure_size;
    return last_failure_caller;
}
