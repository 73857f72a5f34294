/*
 * runtime.c — per-process state of the in-target core: settings, the record file, the table of
 * sites seen, the table of live blocks (for leak accounting), exits and fatal signals.
 *
 * Runs inside the target, called from allocator interposers and signal handlers:
 * - never calls malloc: tables live in anonymous mmap (MAP_NORESERVE, touched only as used);
 * - takes no locks: tables are open-addressed and claimed with compare-and-swap, so fork can never
 *   inherit a held lock; the child resets its per-process state in an atfork handler;
 * - survives programs that close every fd: the record file is re-opened when its fd is gone or now
 *   names another file (checked with fstat before each record; records are rare);
 * - initialises lazily from the first allocation, which may come before any constructor ran.
 */

#include "internal.h"
#include "live.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#if __has_include(<sys/single_threaded.h>)
#include <sys/single_threaded.h>
#endif

#define SITE_CAPACITY (1u << 18)
#define SITE_PROBES 1024 /* a nearly full table must not turn every call into a long scan */
/* The index has two parts: a near one of 4096 slots (32 KiB, eight pages) that every key tries
   first, and a far one of SITE_CAPACITY slots for a key whose near probes all hold other keys.
   Keys are never removed, so a near probe that finds its slot empty proves the key is in neither
   part. With one part, each new site touched a page of its own (1 MiB of index at random): a
   small program took some 200 more page faults, which in a virtual machine cost more than the
   records themselves, and every fork child (a start's, a test case's) took them again. */
#define SITE_NEAR_SLOTS (1u << 12)
#define SITE_NEAR_PROBES 32
#define RECORD_FD_FLOOR 900

/* One table, two kinds of entry, told apart by how their key was made:
   - a site: key = its signature; counts its calls, remembers its largest request;
   - a caller: key = a hash of the raw return address above the interposer (this process's
     address, so never written out); holds that address normalised to (module, offset), the
     "static site" live blocks are counted by, and the count. Cheap to find on every call. */
struct site_entry {
    _Atomic uint64_t signature; /* 0 = empty slot */
    _Atomic uint64_t occurrences;
    _Atomic int64_t live_blocks;
    _Atomic int64_t live_bytes;
    struct record_frame top;
    uintptr_t caller;            /* caller entries: the raw return address */
    _Atomic uint32_t size_class; /* bit length of the largest request reported so far */
    _Atomic bool top_ready;      /* caller entries: top is filled in */
} __attribute__((aligned(64))); /* one cache line: a caller's entry is read on every call */

static struct {
    _Atomic int phase; /* 0 not started, 1 initialising, 2 ready */
    bool active;       /* LIBFAIL_DIR is set: write records */
    bool in_scope;     /* this executable's allocations are recorded and may fail */
    struct plan plan;
    pid_t pid;
    char dir[PATH_MAX];
    char record_path[PATH_MAX];
    char exe[PATH_MAX];
    char module_globs[1024];
    uint64_t command_line;
    _Atomic int record_fd;
    _Atomic dev_t record_dev;
    _Atomic ino_t record_ino;
    _Atomic uint64_t sequence;
    /* Entries in the order claimed, so the ones in use fill the first pages: a fork copies, and
       the exit report reads, only those (hashed into one 16 MiB table, each of a process's sites
       was on a page of its own: a fork-mode child's report read 1,200 pages, and every fork
       copied their page tables). `index` maps a key's hash slot to its entry number + 1. */
    struct site_entry *sites;
    _Atomic uint64_t *index; /* a key's tag (its signature's high half) << 32 | entry + 1 */
    _Atomic uint32_t used_count; /* entries handed out, wasted ones included (site_slot) */
    bool live_ready; /* the live-block table (live.c) is mapped */
    _Atomic bool sites_overflow; /* a site found no slot: its records and counts are missing */
    _Atomic bool live_reported;
    _Atomic bool fault_seen; /* a planned fault fired (here, or before this process started) */
    _Atomic bool tracking;   /* live blocks are counted: in scope of a campaign, or lf_live_mark */
    _Atomic uint64_t serial; /* allocations tracked so far */
    bool fast;               /* site mode with every site's first frame known */
    bool forked;             /* this image began as a fork child */
    bool until_own;          /* a system executable recording until own code starts (own_first) */
    _Atomic bool exit_reported;
    _Atomic uint32_t fixture_reported; /* RECORD_FIXTURE_* kinds written by this image */
} state = {.record_fd = -1};

__thread int runtime_guard __attribute__((tls_model("initial-exec")));
__thread volatile char runtime_syscall_selector __attribute__((tls_model("initial-exec")));
__thread struct runtime_request runtime_request __attribute__((tls_model("initial-exec")));
_Atomic unsigned runtime_hooks;
/* lf_fail_nth_set was called in this process: every call must be looked at. */
static _Atomic bool fail_nth_used;
/* lf_live_mark was called: tracked blocks get serial numbers (see runtime_track). */
static _Atomic bool live_marked;
static void publish_hooks(void);
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

static struct sigaction previous_actions[NSIG];
/* gcov's dump function when a module exports it (linked with --coverage and
   -Wl,--undefined=__gcov_dump): it writes every module sharing that module's gcov master list;
   gcovdump.c then finds each remaining module's own dump function in its file. */
static void (*gcov_dump)(void);
static const int fatal_signals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGSYS, SIGTRAP};

/* ---- record file ---- */

static void LF_TEXT path_join(char *out, const char *dir, const char *name_part, uint64_t number)
{
    size_t length = strlen(dir);
    if (length > PATH_MAX - 64)
        length = PATH_MAX - 64;
    memcpy(out, dir, length);
    out[length++] = '/';
    length += format_decimal(out + length, (uint64_t)state.pid);
    size_t name_length = strlen(name_part);
    memcpy(out + length, name_part, name_length);
    length += name_length;
    length += format_decimal(out + length, number);
    memcpy(out + length, ".rec", 5);
}

static int LF_TEXT move_fd_high(int fd)
{
    int high = fcntl(fd, F_DUPFD_CLOEXEC, RECORD_FD_FLOOR);
    if (high < 0)
        return fd; /* a low RLIMIT_NOFILE: keep the fd we have */
    close(fd);
    return high;
}

static void LF_TEXT remember_identity(int fd)
{
    struct stat st;
    if (fstat(fd, &st) == 0) {
        atomic_store(&state.record_dev, st.st_dev);
        atomic_store(&state.record_ino, st.st_ino);
    }
}

static void LF_TEXT open_new_record_file(void)
{
    /* One file per process image: an exec keeps the pid, so number the images. */
    for (uint64_t image = 0; image < 1000; image++) {
        path_join(state.record_path, state.dir, "-", image);
        int fd = open(state.record_path, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0644);
        if (fd >= 0) {
            fd = move_fd_high(fd);
            remember_identity(fd);
            atomic_store(&state.record_fd, fd);
            return;
        }
        if (errno != EEXIST)
            return;
    }
}

static int LF_TEXT record_fd_ready(void)
{
    int fd = atomic_load(&state.record_fd);
    struct stat st;
    if (fd >= 0 && fstat(fd, &st) == 0 && st.st_dev == atomic_load(&state.record_dev) &&
        st.st_ino == atomic_load(&state.record_ino))
        return fd;
    if (!state.record_path[0])
        return -1;
    /* Closed by the program, or the number now names one of its files: open ours again. */
    int fresh = open(state.record_path, O_WRONLY | O_APPEND | O_CLOEXEC);
    if (fresh < 0)
        return -1;
    fresh = move_fd_high(fresh);
    remember_identity(fresh);
    int expected = fd;
    if (!atomic_compare_exchange_strong(&state.record_fd, &expected, fresh)) {
        close(fresh);
        return expected;
    }
    return fresh;
}

/* Seal records[0..count) (all made by this thread) and write them with one write(2): whole
   records, so a reader sees each either complete or not at all. */
static void LF_TEXT emit_records(struct record *records, size_t count)
{
    char selector = own_syscalls_begin();
    pid_t pid = getpid();
    int fd = -1;
    /* A vfork or raw clone child shares our memory (pid differs): it leaves the parent's state
       alone, but for one record: that the program it is about to execute starts without the
       preload (dash runs every command from a vfork child). That is the parent's record, in the
       parent's file: the parent started the program. */
    bool for_parent = pid != state.pid && count == 1 && records[0].type == RECORD_UNPRELOADED;
    if (pid == state.pid || for_parent) {
        uint32_t tid = (uint32_t)syscall(SYS_gettid);
        for (size_t i = 0; i < count; i++) {
            records[i].magic = RECORD_MAGIC;
            records[i].pid = (uint32_t)state.pid;
            records[i].tid = tid;
            records[i].sequence = atomic_fetch_add(&state.sequence, 1);
            records[i].checksum = record_checksum(&records[i]);
        }
        fd = record_fd_ready();
    }
    const char *bytes = (const char *)records;
    size_t done = 0, total = count * sizeof *records;
    while (fd >= 0 && done < total) {
        ssize_t n = write(fd, bytes + done, total - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        done += (size_t)n;
    }
    own_syscalls_end(selector);
}

static void LF_TEXT emit(struct record *r)
{
    emit_records(r, 1);
}

static void LF_TEXT emit_text(enum record_type type, uint32_t flags, uint64_t id, uint64_t value,
                              const char *path, const uint8_t *build_id, uint32_t build_id_length)
{
    struct record r;
    memset(&r, 0, sizeof r);
    r.type = (uint16_t)type;
    r.flags = flags;
    r.signature = id;
    r.value = value;
    r.value2 = build_id_length;
    if (build_id_length)
        memcpy(r.body.text.build_id, build_id, build_id_length);
    size_t length = strlen(path);
    if (length >= RECORD_PATH_MAX) {
        length = RECORD_PATH_MAX - 1;
        r.flags |= RECORD_FLAG_PATH_TRUNCATED;
    }
    memcpy(r.body.text.path, path, length);
    emit(&r);
}

static void LF_TEXT fill_frames(struct record *r, enum record_type type, uint32_t flags,
                                uint32_t function, uint64_t signature, uint64_t value,
                                uint64_t value2, const struct record_frame *frames, int count)
{
    memset(r, 0, sizeof *r);
    r->type = (uint16_t)type;
    r->flags = flags;
    r->function = function;
    r->signature = signature;
    r->value = value;
    r->value2 = value2;
    r->frame_count = (uint16_t)count;
    if (count > 0)
        memcpy(r->body.frames, frames, (size_t)count * sizeof *frames);
}

static void LF_TEXT emit_frames(enum record_type type, uint32_t flags, uint32_t function,
                                uint64_t signature, uint64_t value, uint64_t value2,
                                const struct record_frame *frames, int count)
{
    struct record r;
    fill_frames(&r, type, flags, function, signature, value, value2, frames, count);
    emit(&r);
}

static void LF_TEXT announce_module(const struct module_info *module)
{
    emit_text(RECORD_MODULE, 0, module->id, module->bias, module->path, module->build_id,
              module->build_id_length);
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

static void LF_TEXT announce_process(bool forked)
{
    uint32_t flags = (state.in_scope ? RECORD_FLAG_IN_SCOPE : 0) | (forked ? RECORD_FLAG_FORKED : 0);
    emit_text(RECORD_START, flags, state.command_line, (uint64_t)getppid(), state.exe, NULL, 0);
}

/* ---- scope ---- */

/* LIBFAIL_EXE: ':'-separated globs of the executables whose allocations count, "!GLOB" leaving
   one out (scope_match); empty or unset (or only separators: failrun pads it to one length,
   campaign.c) means every executable outside the system's folders. failrun decides which applies
   (see campaign.c, decide_scope). */
static bool LF_TEXT decide_scope(void)
{
    return scope_match(getenv("LIBFAIL_EXE"), state.exe);
}

/* ---- tables ---- */

/* The table updates below are atomic read-modify-writes (a locked instruction each, most of the
   cost of a tracked call) only while the process has more than one thread: glibc's malloc makes
   the same choice (SINGLE_THREAD_P), and the flag turns false before a second thread starts. */
LF_INLINE bool single_threaded(void)
{
#if __has_include(<sys/single_threaded.h>)
    return __libc_single_threaded;
#else
    return false;
#endif
}

LF_INLINE void counter_add(_Atomic int64_t *counter, int64_t value)
{
    if (single_threaded())
        atomic_store_explicit(counter,
                              atomic_load_explicit(counter, memory_order_relaxed) + value,
                              memory_order_relaxed);
    else
        atomic_fetch_add(counter, value);
}

LF_INLINE uint64_t counter_next(_Atomic uint64_t *counter)
{
    if (single_threaded()) {
        uint64_t value = atomic_load_explicit(counter, memory_order_relaxed) + 1;
        atomic_store_explicit(counter, value, memory_order_relaxed);
        return value;
    }
    return atomic_fetch_add(counter, 1) + 1;
}

/* Claim `slot` (holding `current`) for `fresh`; false when another thread took it first. */
LF_INLINE bool slot_claim(_Atomic uintptr_t *slot, uintptr_t current, uintptr_t fresh)
{
    if (single_threaded()) {
        atomic_store_explicit(slot, fresh, memory_order_relaxed);
        return true;
    }
    return atomic_compare_exchange_strong(slot, &current, fresh);
}

static void *LF_TEXT map_table(size_t bytes)
{
    void *table = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    return table == MAP_FAILED ? NULL : table;
}

static bool LF_TEXT map_tables(void)
{
    if (!state.sites)
        state.sites = map_table(SITE_CAPACITY * sizeof(struct site_entry));
    if (!state.index)
        state.index = map_table((SITE_NEAR_SLOTS + SITE_CAPACITY) * sizeof *state.index);
    if (!state.live_ready)
        state.live_ready = live_table_init();
    return state.sites && state.index && state.live_ready;
}

/* One part of the index (`mask` + 1 slots): the entry of `signature`, claimed when `insert` and
   absent. UINT32_MAX when it is absent (not inserting) or the table is full; *full when every
   probe held another key (the far part is next). An entry is filled in before the index
   publishes it. Two threads claiming one key at once each take an entry; the loser's stays with
   signature 0, which every reader skips. */
static uint32_t LF_TEXT probe_index(_Atomic uint64_t *part, uint32_t mask, uint32_t probes,
                                    uint64_t signature, bool insert, bool *fresh, bool *full)
{
    *full = false;
    /* The tag spares a probe the entry's cache line when the slot holds another key. */
    uint32_t tag = (uint32_t)(signature >> 32);
    uint32_t slot = (uint32_t)(signature ^ (signature >> 32)) & mask;
    for (uint32_t probe = 0; probe < probes; probe++, slot = (slot + 1) & mask) {
        uint64_t current = atomic_load_explicit(&part[slot], memory_order_acquire);
        if (current) {
            uint32_t held = (uint32_t)current - 1;
            if ((uint32_t)(current >> 32) == tag &&
                atomic_load_explicit(&state.sites[held].signature, memory_order_relaxed) ==
                    signature)
                return held;
            continue;
        }
        if (!insert)
            return UINT32_MAX;
        uint32_t entry = atomic_fetch_add(&state.used_count, 1);
        if (entry >= SITE_CAPACITY)
            return UINT32_MAX;
        atomic_store_explicit(&state.sites[entry].signature, signature, memory_order_relaxed);
        uint64_t expected = 0;
        if (atomic_compare_exchange_strong_explicit(&part[slot], &expected,
                                                    (uint64_t)tag << 32 | (entry + 1),
                                                    memory_order_release,
                                                    memory_order_acquire)) {
            *fresh = true;
            return entry;
        }
        atomic_store_explicit(&state.sites[entry].signature, 0, memory_order_relaxed);
        uint32_t held = (uint32_t)expected - 1;
        if ((uint32_t)(expected >> 32) == tag &&
            atomic_load_explicit(&state.sites[held].signature, memory_order_relaxed) == signature)
            return held;
    }
    *full = true;
    return UINT32_MAX;
}

/* Returns the entry of `signature`, claiming a new one (near part first, see SITE_NEAR_SLOTS);
   *fresh tells a first sighting. */
static uint32_t LF_TEXT site_slot(uint64_t signature, bool *fresh)
{
    *fresh = false;
    bool full;
    uint32_t entry = probe_index(state.index, SITE_NEAR_SLOTS - 1, SITE_NEAR_PROBES, signature,
                                 true, fresh, &full);
    if (!full)
        return entry;
    return probe_index(state.index + SITE_NEAR_SLOTS, SITE_CAPACITY - 1, SITE_PROBES, signature,
                       true, fresh, &full);
}

/* True when `size` is the largest request at the slot by a factor of two or more: worth a record,
   so failrun knows each site's largest request to within a factor of two (exact across the NOFAIL
   threshold, a power of two). */
static bool LF_TEXT raise_size_class(uint32_t slot, size_t size)
{
    uint32_t size_class = size ? (uint32_t)(64 - __builtin_clzll((unsigned long long)size)) : 0;
    uint32_t current = atomic_load(&state.sites[slot].size_class);
    while (size_class > current)
        if (atomic_compare_exchange_weak(&state.sites[slot].size_class, &current, size_class))
            return true;
    return false;
}

static void LF_TEXT report_live_blocks(void)
{
    bool expected = false;
    if (!state.sites || !atomic_compare_exchange_strong(&state.live_reported, &expected, true))
        return;
    /* RECORD_LIVE_SET_MAX sites a record, eight records a write: a process that ends with many
       sites live (every child of a fork campaign) made a 512-byte record, a write, a gettid and
       an fstat per site. */
    enum { LIVE_BATCH = 8 };
    struct record batch[LIVE_BATCH];
    size_t pending = 0;      /* full records in batch */
    struct record *r = NULL; /* batch[pending] while it is being filled */
    uint32_t used = atomic_load(&state.used_count);
    for (uint32_t i = 0; i < used && i < SITE_CAPACITY; i++) {
        /* A signature of 0: an entry a racing claim wasted, or one a thread has only just
           taken (it is still allocating, so its caller's count is not final anyway). */
        const struct site_entry *entry = &state.sites[i];
        if (!atomic_load_explicit(&entry->signature, memory_order_relaxed))
            continue;
        int64_t blocks = atomic_load(&entry->live_blocks);
        if (blocks <= 0 || !atomic_load(&entry->top_ready))
            continue;
        if (!r) {
            r = &batch[pending];
            memset(r, 0, sizeof *r);
            r->type = RECORD_LIVE_SET;
        }
        struct record_frame *triple = &r->body.frames[r->frame_count];
        triple[0] = entry->top;
        triple[1] = (struct record_frame){stack_signature(&entry->top, 1), (uint64_t)blocks};
        triple[2] = (struct record_frame){(uint64_t)atomic_load(&entry->live_bytes), 0};
        r->frame_count = (uint16_t)(r->frame_count + 3);
        if (r->frame_count == 3 * RECORD_LIVE_SET_MAX) {
            r = NULL;
            if (++pending == LIVE_BATCH) {
                emit_records(batch, pending);
                pending = 0;
            }
        }
    }
    if (r)
        pending++;
    if (pending)
        emit_records(batch, pending);
}

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
    emit_frames(RECORD_SIGNAL, addressed ? RECORD_FLAG_SIGNAL_ADDRESS : 0, 0,
                stack_signature(frames, count), (uint64_t)signo,
                addressed ? (uint64_t)(uintptr_t)info->si_addr : 0, frames, count);
    gcov_dump_modules(gcov_dump);
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

static void LF_TEXT install_signal_handlers(void)
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
    size_t length = strlen(state.dir);
    memcpy(path, state.dir, length);
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
    if (!state.plan.own_first || !state.in_scope)
        return;
    if (!path_is_system(state.exe)) {
        char path[PATH_MAX];
        own_marker_path(path);
        int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
        if (fd >= 0)
            close(fd);
    } else if (own_code_started()) {
        state.in_scope = false;
    } else {
        state.until_own = true;
    }
}

/* From decide(): a system executable whose run has started own code stops recording. */
static bool LF_TEXT stop_for_own_code(void)
{
    if (LF_LIKELY(!state.until_own) || own_check_countdown-- > 0)
        return false;
    own_check_countdown = 63;
    if (!own_code_started())
        return false;
    state.until_own = false;
    state.in_scope = false;
    atomic_store(&state.tracking, false);
    publish_hooks();
    return true;
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
    int count = state.in_scope ? stack_capture_signal(ucontext, pcs, RECORD_MAX_FRAMES) : 0;
    stack_normalise(pcs, count, frames);
    emit_frames(RECORD_SIGNAL, 0, 0, stack_signature(frames, count), (uint64_t)signo, 0, frames,
                count);
    if (state.in_scope)
        gcov_dump_modules(gcov_dump);
    kill(getpid(), SIGKILL);
}

/* The handler, unless the program has one of its own or ignores SIGXCPU (a garbage
   collector's thread signal): false then. */
static bool LF_TEXT install_cpu_limit_handler(void)
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
static void LF_TEXT arm_cpu_limit(void)
{
    if (!state.plan.cpu_ms || atomic_exchange(&cpu_limit_armed, true))
        return;
    struct rusage usage;
    struct rlimit current;
    if (getrusage(RUSAGE_SELF, &usage) != 0 || getrlimit(RLIMIT_CPU, &current) != 0)
        return;
    uint64_t used_ms = (uint64_t)(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1000 +
                       (uint64_t)(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1000;
    rlim_t soft = (rlim_t)((used_ms + state.plan.cpu_ms + 999) / 1000);
    if (current.rlim_cur != RLIM_INFINITY && current.rlim_cur <= soft)
        return;
    /* A program with a SIGXCPU handler of its own would take the limit's signal for its own:
       no limit there. */
    if (!install_cpu_limit_handler())
        return;
    /* The hard limit stays: the program may raise the soft one again. */
    struct rlimit limit = {.rlim_cur = soft, .rlim_max = current.rlim_max};
    if (current.rlim_max != RLIM_INFINITY && current.rlim_max < soft)
        limit.rlim_cur = current.rlim_max;
    setrlimit(RLIMIT_CPU, &limit);
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
    size_t length = strlen(state.dir);
    memcpy(path, state.dir, length);
    memcpy(path + length, "/fault-", 7);
    length += 7;
    length += format_decimal(path + length, (uint64_t)index);
    memcpy(path + length, ".claim", sizeof ".claim");
}

/* Fast only in site mode with every site's first frame given, and only while no fault has fired
   in the run: a process started after one (a harness reacting to it) records everything. */
static void LF_TEXT decide_fast_path(void)
{
    state.fast = state.plan.mode == PLAN_SITE;
    for (int i = 0; i < state.plan.fault_count; i++) {
        state.fast = state.fast && state.plan.faults[i].has_top;
        char path[PATH_MAX];
        claim_path(path, i);
        if (access(path, F_OK) == 0)
            atomic_store(&state.fault_seen, true);
    }
    /* Executed by the process a fault fired in (or a child of it, a fork run's child too): the
       limit came through the exec, the handler did not. A limit the program's own harness set
       is reported alike: the process ran out of its CPU. */
    struct rlimit limit;
    if (state.plan.cpu_ms && getrlimit(RLIMIT_CPU, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY)
        install_cpu_limit_handler();
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
    state.pid = getpid();
    arm_from_environment();
    /* Always: a fork child starts with its counters at 0, campaign or not. */
    pthread_atfork(unwinder_before_fork, unwinder_after_fork_parent, runtime_after_fork_child);
    const char *dir = getenv("LIBFAIL_DIR");
    const char *plan = getenv("LIBFAIL_PLAN");
    if (!dir || !*dir || strlen(dir) > PATH_MAX - 64 || plan_parse(plan, &state.plan) != NULL)
        return;
    if (dir[0] != '/' && getcwd(state.dir, sizeof state.dir - 1)) {
        /* Relative: anchor it now, before the program changes directory. */
        size_t length = strlen(state.dir);
        if (length + 1 + strlen(dir) < sizeof state.dir) {
            state.dir[length] = '/';
            copy_setting(state.dir + length + 1, sizeof state.dir - length - 1, dir);
        } else {
            copy_setting(state.dir, sizeof state.dir, dir);
        }
    } else {
        copy_setting(state.dir, sizeof state.dir, dir);
    }
    copy_setting(state.module_globs, sizeof state.module_globs, getenv("LIBFAIL_MODULE"));
    ssize_t n = readlink("/proc/self/exe", state.exe, sizeof state.exe - 1);
    state.exe[n > 0 ? n : 0] = '\0';
    state.in_scope = decide_scope();
    decide_own_scope();
    state.command_line = command_line_hash();
    if (state.plan.mode == PLAN_NTH && !fail_nth)
        fail_nth = state.plan.nth;
    decide_fast_path();
    random_state = state.plan.seed;
    if (state.in_scope) {
        if (!map_tables())
            state.in_scope = false;
        atomic_store(&state.tracking, state.in_scope);
    }
    open_new_record_file();
    state.active = true;
    exec_environment_init();
    announce_process(false);
    /* A recording run (failrun kernel's is mode=kernel without N) says how each program began. */
    if (state.in_scope && state.record_path[0] &&
        (state.plan.mode == PLAN_RECORD || (state.plan.mode == PLAN_KERNEL && !state.plan.nth)))
        invocation_write_file(state.record_path, state.exe);
    if (state.in_scope) {
        module_table_set_listener(announce_module);
        uintptr_t warm_up[2]; /* let libunwind set itself up now, not in the middle of a fork */
        stack_capture(warm_up, 2);
        gcov_dump = (void (*)(void))dlsym(RTLD_DEFAULT, "__gcov_dump");
        install_signal_handlers();
    }
    if (state.in_scope && (state.plan.mode == PLAN_FORK || state.plan.mode == PLAN_START))
        forkmode_init(&state.plan);
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
        int phase = atomic_load_explicit(&state.phase, memory_order_acquire);
        if (phase == 2)
            return;
        int expected = 0;
        if (phase == 0 && atomic_compare_exchange_strong(&state.phase, &expected, 1)) {
            if (!environ || (!atomic_load(&constructor_seen) &&
                             getenv("LIBFAIL_LEAK_SCAN"))) {
                /* A sanitizer's .preinit_array allocates before libc has set up the environment:
                   not yet, try again at the next call. */
                atomic_store(&state.phase, 0);
                return;
            }
            int saved_errno = errno;
            char selector = own_syscalls_begin();
            initialise();
            own_syscalls_end(selector);
            errno = saved_errno;
            atomic_store_explicit(&state.phase, 2, memory_order_release);
            publish_hooks();
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
    state.pid = getpid(); /* also when inactive: the exec wrappers tell vfork children by it */
    if (!state.active)
        return;
    int saved_guard = runtime_guard;
    runtime_guard = 1; /* our record file's system calls are not the program's (libfail-kernel) */
    char selector = own_syscalls_begin();
    state.forked = true;
    atomic_store(&persistent_reported, false);
    int fd = atomic_exchange(&state.record_fd, -1);
    if (fd >= 0)
        close(fd); /* the parent's file; this process gets its own */
    atomic_store(&state.sequence, 0);
    atomic_store(&state.live_reported, false);
    atomic_store(&state.exit_reported, false);
    /* What its parent did as a fixture, the child does too: it is in the same session, holds
       the same listening socket (a pre-forking server, a daemon's second fork). */
    uint32_t inherited = atomic_exchange(&state.fixture_reported, 0);
    open_new_record_file();
    announce_process(true);
    if (inherited)
        runtime_fixture(inherited);
    module_table_reset_after_fork();
    boundary_reset_after_fork();
    own_syscalls_end(selector);
    runtime_guard = saved_guard;
}

/* Has this image reached `signature` (a lookup: nothing is inserted)? */
static bool LF_TEXT site_reached(uint64_t signature)
{
    if (!state.index)
        return false;
    bool fresh, full;
    if (probe_index(state.index, SITE_NEAR_SLOTS - 1, SITE_NEAR_PROBES, signature, false, &fresh,
                    &full) != UINT32_MAX)
        return true;
    return full && probe_index(state.index + SITE_NEAR_SLOTS, SITE_CAPACITY - 1, SITE_PROBES,
                               signature, false, &fresh, &full) != UINT32_MAX;
}

void LF_TEXT runtime_replan(const char *text)
{
    struct plan plan;
    if (text && plan_parse(text, &plan) == NULL) {
        state.plan = plan;
    } else {
        state.plan.mode = PLAN_SITE;
        state.plan.fault_count = 0;
    }
    random_state = state.plan.seed;
    decide_fast_path();
    publish_hooks(); /* the I/O interposers look at the plan's kinds of call only through it */
}

void LF_TEXT runtime_start(void)
{
    if (!state.active || !state.in_scope || state.plan.mode != PLAN_START)
        return;
    int saved_errno = errno;
    char selector = own_syscalls_begin();
    if (!forkmode_start(state.command_line, state.exe, state.dir, site_reached))
        runtime_replan(NULL); /* the parent, or a start no run was planned for */
    own_syscalls_end(selector);
    errno = saved_errno;
}

void LF_TEXT runtime_repoint(const char *dir)
{
    state.pid = getpid();
    copy_setting(state.dir, sizeof state.dir, dir);
    state.plan.mode = PLAN_RECORD;
    int fd = atomic_exchange(&state.record_fd, -1);
    if (fd >= 0)
        close(fd); /* the parent's file */
    atomic_store(&state.sequence, 0);
    open_new_record_file();
    announce_process(state.forked); /* judged as the process it continues, not as a fork */
    module_table_reset_after_fork();
}

/* ---- the allocation path ---- */

static bool LF_TEXT module_filter_allows(const uintptr_t *pcs, int count)
{
    if (!state.module_globs[0])
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
        return glob_list_match(state.module_globs, module.path);
    }
    return false;
}

/* A chain's fault i fires once per run, in whichever process reaches it first: the claim is a
   file created with O_EXCL in the run folder. */
static bool LF_TEXT claim_fault(int index)
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
    switch (state.plan.mode) {
    case PLAN_RANDOM:
        return random_tick(&random_state, state.plan.probability);
    case PLAN_SITE:
        for (int i = 0; i < state.plan.fault_count; i++) {
            const struct plan_fault *fault = &state.plan.faults[i];
            if (fault->site != signature || occurrence < fault->occurrence)
                continue;
            if (i == state.plan.fault_count - 1 && state.plan.persistent) {
                bool first = false;
                *report = atomic_compare_exchange_strong(&persistent_reported, &first, true);
                if (*report)
                    claim_fault(i); /* so processes started later know a fault fired */
                return true;
            }
            if (occurrence == fault->occurrence)
                return claim_fault(i);
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
    uint32_t slot = site_slot(key, &fresh);
    if (slot == UINT32_MAX)
        return slot;
    struct site_entry *entry = &state.sites[slot];
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
    uint64_t slot = atomic_load_explicit(&state.index[hash & (SITE_NEAR_SLOTS - 1)],
                                         memory_order_acquire);
    /* A program with thousands of callers has some in the far part: their first probe there
       too, before the slow path's probes. */
    if (LF_UNLIKELY(slot != 0 && (uint32_t)(slot >> 32) != tag))
        slot = atomic_load_explicit(&state.index[SITE_NEAR_SLOTS + (hash & (SITE_CAPACITY - 1))],
                                    memory_order_acquire);
    uint32_t entry = (uint32_t)slot;
    if (LF_LIKELY(entry != 0 && (uint32_t)(slot >> 32) == tag &&
                  atomic_load_explicit(&state.sites[entry - 1].signature,
                                       memory_order_relaxed) == key &&
                  atomic_load_explicit(&state.sites[entry - 1].top_ready, memory_order_acquire)))
        return entry - 1;
    return caller_slot_fill(caller, key);
}

/* The fast path of a targeted run: until a fault fired, a call whose first frame is no planned
   site's first frame cannot be a planned site, so it needs no unwind and no record. */
LF_INLINE bool may_be_planned(const struct record_frame *top)
{
    if (!state.fast || atomic_load_explicit(&state.fault_seen, memory_order_relaxed))
        return true;
    for (int i = 0; i < state.plan.fault_count; i++)
        if (state.plan.faults[i].top.module == top->module &&
            state.plan.faults[i].top.offset == top->offset)
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
    if (LF_UNLIKELY(state.until_own) && stop_for_own_code())
        return;
    uintptr_t pcs[RECORD_MAX_FRAMES];
    int count = stack_capture(pcs, (int)state.plan.depth);
    if (count == 0 || !module_filter_allows(pcs, count))
        return; /* not a candidate: it does not count towards fail-nth either */
    /* Decide before anything that can be full or fail (the site table), so a counted call is
       always a failed one when its turn comes. */
    bool nth_fired = nth_armed && fail_nth_tick(&fail_nth);
    stack_normalise(pcs, count, call->frames);
    call->frame_count = count;
    call->signature = stack_signature(call->frames, count);
    bool fresh;
    uint32_t slot = site_slot(call->signature, &fresh);
    uint64_t occurrence = 1;
    if (slot != UINT32_MAX) {
        call->fresh = fresh;
        if (raise_size_class(slot, size) || fresh)
            emit_frames(RECORD_SITE, nofail ? RECORD_FLAG_NOFAIL : 0, function, call->signature,
                        size, 0, call->frames, count);
        occurrence = counter_next(&state.sites[slot].occurrences);
    } else {
        atomic_store(&state.sites_overflow, true);
    }
    bool report = true;
    call->fail = nth_fired || (!nofail && slot != UINT32_MAX &&
                               planned_failure(call->signature, occurrence, &report));
    /* Not once the image is ending: what allocates then (gcov writing its data, destructors)
       is no site failrun planned, and a child of it would run nothing of the program. */
    if (LF_UNLIKELY(state.plan.mode == PLAN_FORK) && call->fresh && !nofail && !call->fail &&
        !atomic_load_explicit(&state.exit_reported, memory_order_relaxed))
        call->fail = forkmode_site(call->signature, state.pid); /* true in the child */
    if (nth_fired) {
        last_failure_caller = caller;
        last_failure_size = size;
    }
    if (call->fail) {
        atomic_store(&state.fault_seen, true);
        runtime_request.injected = true;
        thread_faults++;
        arm_cpu_limit();
    }
    if (call->fail && report)
        emit_frames(RECORD_FAULT, 0, function, call->signature, size, occurrence, call->frames, count);
    if (LF_UNLIKELY(testcase_at_fault) && call->fail) {
        testcase_at_fault = false;
        testcase_arm(state.dir); /* a start's child: it ends with this test case */
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
       nothing anyway, emit() checks the real pid before every record. */
    if (atomic_load_explicit(&state.tracking, memory_order_relaxed))
        call->static_index = caller_slot(caller);
    if (!state.active) {
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
    if (!state.in_scope || (state.plan.mode == PLAN_KERNEL && !fail_nth))
        return;
    if (!(state.plan.fault_kinds & PLAN_FAULT_ALLOC) && function != FUNCTION_FAILPOINT)
        return;
    bool nth_armed = fail_nth != 0 && !nofail; /* by PLAN_NTH, or by lf_fail_nth_set */
    if (!nth_armed && call->static_index != UINT32_MAX &&
        !may_be_planned(&state.sites[call->static_index].top))
        return;
    int saved_errno = errno;
    decide(call, function, size, caller, nth_armed, nofail);
    errno = saved_errno;
}

/* An I/O call is a site like an allocation (no size, no policy flags, nothing to track): it
   counts for fail-nth and may fork in fork mode. publish_hooks sends calls here only in scope of a
   campaign whose plan fails I/O. */
void LF_TEXT runtime_before_io(struct call *call, uint32_t function, uintptr_t caller)
{
    call->fresh = false;
    call->frame_count = 0;
    if (!state.active || !state.in_scope || !(state.plan.fault_kinds & PLAN_FAULT_IO))
        return;
    if (atomic_load_explicit(&state.tracking, memory_order_relaxed))
        call->static_index = caller_slot(caller);
    bool nth_armed = fail_nth != 0;
    if (!nth_armed && call->static_index != UINT32_MAX &&
        !may_be_planned(&state.sites[call->static_index].top))
        return;
    int saved_errno = errno;
    decide(call, function, 0, caller, nth_armed, false);
    errno = saved_errno;
}

uint32_t LF_TEXT runtime_thread_faults(void)
{
    return thread_faults;
}

void LF_TEXT runtime_boundary(uint32_t flags, const char *name, uintptr_t function, uintptr_t caller,
                              uint64_t value, uint64_t value2)
{
    if (!state.active || !state.in_scope)
        return;
    struct record_frame frame;
    stack_normalise(&function, 1, &frame);
    struct record r;
    memset(&r, 0, sizeof r);
    r.type = RECORD_BOUNDARY;
    r.flags = flags;
    r.signature = frame.module;
    r.value = value;
    r.value2 = value2;
    stack_normalise(&caller, 1, &r.body.call.caller);
    size_t length = strnlen(name, RECORD_PATH_MAX - 1);
    memcpy(r.body.call.name, name, length);
    emit(&r);
}

void LF_TEXT runtime_track(const struct call *call, void *block, size_t size)
{
    if (!block || call->static_index == UINT32_MAX)
        return;
    struct site_entry *entry = &state.sites[call->static_index];
    /* Serials matter only to lf_live_since: none before lf_live_mark. */
    bool marked = atomic_load_explicit(&live_marked, memory_order_relaxed);
    if (LF_LIKELY(single_threaded())) {
        /* The common case, in plain loads and stores (see live_insert_single). */
        uint64_t serial = 0;
        if (marked) {
            serial = atomic_load_explicit(&state.serial, memory_order_relaxed) + 1;
            atomic_store_explicit(&state.serial, serial, memory_order_relaxed);
        }
        uint64_t site_and_size = ((uint64_t)call->static_index << LIVE_SIZE_BITS) |
                                 (size < LIVE_SIZE_MAX ? size : LIVE_SIZE_MAX);
        if (live_insert_single((uintptr_t)block, site_and_size, marked, serial) ||
            live_table_insert((uintptr_t)block, call->static_index, size, marked, serial)) {
            int64_t blocks = atomic_load_explicit(&entry->live_blocks, memory_order_relaxed);
            int64_t bytes = atomic_load_explicit(&entry->live_bytes, memory_order_relaxed);
            atomic_store_explicit(&entry->live_blocks, blocks + 1, memory_order_relaxed);
            atomic_store_explicit(&entry->live_bytes, bytes + (int64_t)size, memory_order_relaxed);
        }
        return;
    }
    uint64_t serial = marked ? atomic_fetch_add(&state.serial, 1) + 1 : 0;
    if (live_insert((uintptr_t)block, call->static_index, size, marked, serial)) {
        atomic_fetch_add(&entry->live_blocks, 1);
        atomic_fetch_add(&entry->live_bytes, (int64_t)size);
    }
}

void LF_TEXT runtime_untrack(void *block)
{
    if (!block || !atomic_load_explicit(&state.tracking, memory_order_relaxed))
        return;
    if (LF_LIKELY(single_threaded())) {
        uint64_t site_and_size;
        uint32_t site;
        uint64_t size;
        if (live_remove_single((uintptr_t)block, &site_and_size)) {
            site = (uint32_t)(site_and_size >> LIVE_SIZE_BITS);
            size = site_and_size & LIVE_SIZE_MAX;
        } else if (!live_remove((uintptr_t)block, &site, &size)) {
            return;
        }
        struct site_entry *entry = &state.sites[site];
        int64_t blocks = atomic_load_explicit(&entry->live_blocks, memory_order_relaxed);
        int64_t bytes = atomic_load_explicit(&entry->live_bytes, memory_order_relaxed);
        atomic_store_explicit(&entry->live_blocks, blocks - 1, memory_order_relaxed);
        atomic_store_explicit(&entry->live_bytes, bytes - (int64_t)size, memory_order_relaxed);
        return;
    }
    uint32_t site;
    uint64_t size;
    if (live_remove((uintptr_t)block, &site, &size)) {
        atomic_fetch_sub(&state.sites[site].live_blocks, 1);
        atomic_fetch_sub(&state.sites[site].live_bytes, (int64_t)size);
    }
}

/* Tell the interposers what to do from now on (see runtime_hooks in internal.h). */
static void LF_TEXT publish_hooks(void)
{
    unsigned hooks = atomic_load(&state.phase) == 2 ? RUNTIME_READY : 0;
    if (state.active || atomic_load(&fail_nth_used) || atomic_load(&state.tracking))
        hooks |= RUNTIME_DECIDE;
    if (atomic_load(&state.tracking))
        hooks |= RUNTIME_TRACKING;
    if (state.active && state.in_scope && (state.plan.fault_kinds & PLAN_FAULT_IO))
        hooks |= RUNTIME_IO;
    atomic_store(&runtime_hooks, hooks);
}

void LF_TEXT runtime_fixture(uint32_t how)
{
    if (!state.active || getpid() != state.pid)
        return; /* a vfork child about to exec: its program reports for itself */
    if (atomic_fetch_or(&state.fixture_reported, how) & how)
        return;
    char selector = own_syscalls_begin();
    struct record r;
    memset(&r, 0, sizeof r);
    r.type = RECORD_FIXTURE;
    r.flags = how;
    emit(&r);
    own_syscalls_end(selector);
}

void LF_TEXT runtime_exit(int status, enum record_exit_kind kind)
{
    if (!state.active || getpid() != state.pid)
        return;
    if (state.plan.mode == PLAN_FORK)
        forkmode_finish(); /* no child of ours outlives this image */
    bool expected = false;
    if (!atomic_compare_exchange_strong(&state.exit_reported, &expected, true))
        return;
    char selector = own_syscalls_begin(); /* the unwinder's system calls too */
    uintptr_t pcs[RECORD_MAX_FRAMES];
    struct record_frame frames[RECORD_MAX_FRAMES];
    /* A test case's end (testcase.c) is no exit the program made: no stack, so that a child
       stopped inside the next test's allocation does not read as exiting at that call. */
    int count = kind == EXIT_BY_TEST_CASE ? 0 : stack_capture(pcs, RECORD_MAX_FRAMES);
    stack_normalise(pcs, count, frames);
    uint32_t flags = (live_table_overflowed() ? RECORD_FLAG_LIVE_OVERFLOW : 0) |
                     (atomic_load(&state.sites_overflow) ? RECORD_FLAG_SITES_OVERFLOW : 0);
    emit_frames(RECORD_EXIT, flags, 0, (uint64_t)getppid(), (uint64_t)(status & 0xff),
                (uint64_t)kind, frames, count);
    /* _exit runs no atexit handlers or destructors, so this is the last moment to count live
       blocks; after exit() runtime_fini does it, once the program's atexit handlers and
       destructors have freed what they free. */
    if (kind == EXIT_BY_UNDERSCORE_EXIT)
        report_live_blocks();
    own_syscalls_end(selector);
}

void LF_TEXT runtime_dump_coverage(void)
{
    /* A fork child forgets its module table (runtime_repoint) until a lookup rebuilds it; one
       that ends before any lookup must still find every module's dump function. */
    struct module_info self;
    module_find((uintptr_t)runtime_dump_coverage, &self);
    gcov_dump_modules(gcov_dump);
}

void LF_TEXT runtime_fini(void)
{
    if (state.active && state.in_scope && getpid() == state.pid)
        report_live_blocks();
}

/* ---- the in-process API (libfail.h) ---- */

void LF_TEXT runtime_fail_nth_set(uint64_t n)
{
    fail_nth = n;
    if (n && !atomic_exchange(&fail_nth_used, true))
        publish_hooks();
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
    if (!fail_nth || (pid_t)syscall(SYS_getpid) != state.pid)
        return 0;
    return fail_nth;
}

/* A vfork child (posix_spawn's, vfork's) shares its parent's memory: it is told by its pid. */
bool LF_TEXT runtime_vfork_child(void)
{
    return (pid_t)syscall(SYS_getpid) != state.pid;
}

bool LF_TEXT runtime_campaign(void)
{
    return atomic_load_explicit(&state.phase, memory_order_acquire) == 2 && state.active;
}

void LF_TEXT runtime_note_unpreloaded(const char *program, uint32_t reason, uint64_t attempt,
                                      bool failed)
{
    emit_text(RECORD_UNPRELOADED, failed ? RECORD_FLAG_EXEC_FAILED : 0, attempt, reason, program,
              NULL, 0);
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

/* ---- failrun kernel: system-call sites ---- */

bool LF_TEXT runtime_kernel_mode(void)
{
    return atomic_load_explicit(&state.phase, memory_order_acquire) == 2 && state.active &&
           state.in_scope && state.plan.mode == PLAN_KERNEL;
}

uint64_t LF_TEXT runtime_kernel_before(struct call *call, uint32_t function, uintptr_t caller)
{
    (void)caller;
    call->frame_count = 0;
    call->occurrence = 0;
    if (!runtime_kernel_mode())
        return 0;
    int saved_errno = errno;
    uintptr_t pcs[RECORD_MAX_FRAMES];
    int count = stack_capture(pcs, (int)state.plan.depth);
    uint64_t nth = runtime_kernel_site(call, function, pcs, count);
    errno = saved_errno;
    return nth;
}

uint64_t LF_TEXT runtime_kernel_site(struct call *call, uint32_t function, const uintptr_t *pcs,
                                     int count)
{
    call->frame_count = 0;
    call->occurrence = 0;
    if (!runtime_kernel_mode() || count <= 0 || !module_filter_allows(pcs, count))
        return 0;
    int saved_errno = errno;
    uint64_t nth = 0;
    stack_normalise(pcs, count, call->frames);
    call->frame_count = count;
    call->signature = stack_signature(call->frames, count);
    if (function >= FUNCTION_SYSCALL_FIRST) {
        /* One stack can make several system calls (syscall(2) with a variable number). */
        uint64_t number = function;
        call->signature = hash_words(call->signature, &number, 1) | 1;
    }
    bool fresh;
    uint32_t slot = site_slot(call->signature, &fresh);
    if (slot != UINT32_MAX) {
        if (fresh)
            emit_frames(RECORD_SITE, 0, function, call->signature, 0, 0, call->frames, count);
        call->occurrence = counter_next(&state.sites[slot].occurrences);
        const struct plan_fault *fault = &state.plan.faults[0];
        if (state.plan.fault_count == 1 && fault->site == call->signature &&
            fault->occurrence == call->occurrence && claim_fault(0))
            nth = state.plan.nth;
    } else {
        atomic_store(&state.sites_overflow, true);
    }
    errno = saved_errno;
    return nth;
}

bool LF_TEXT runtime_kernel_may_be_planned(uintptr_t pc)
{
    if (state.plan.fault_count != 1 || !state.plan.faults[0].has_top ||
        atomic_load_explicit(&state.fault_seen, memory_order_relaxed))
        return true;
    struct record_frame top;
    stack_normalise(&pc, 1, &top);
    return top.module == state.plan.faults[0].top.module &&
           top.offset == state.plan.faults[0].top.offset;
}

unsigned LF_TEXT runtime_depth(void)
{
    return state.plan.depth ? state.plan.depth : LF_DEFAULT_DEPTH;
}

bool LF_TEXT runtime_kernel_wrappers_only(void)
{
    return state.plan.kernel_wrappers;
}

void LF_TEXT runtime_kernel_after(const struct call *call, uint32_t function, uint64_t nth,
                                  uint64_t occurrence, bool fired, bool failed, int error)
{
    uint32_t flags = (fired ? RECORD_FLAG_KERNEL_FIRED : 0) | (failed ? RECORD_FLAG_CALL_FAILED : 0) |
                     ((uint32_t)(error & 0xffff) << RECORD_FLAG_ERRNO_SHIFT);
    if (fired)
        atomic_store(&state.fault_seen, true);
    emit_frames(RECORD_FAULT, flags, function, call->signature, nth, occurrence, call->frames,
                call->frame_count);
}

/* Appends text to PREFIX-PID.SUFFIX in the run folder. */
static void LF_TEXT runtime_kernel_file(const char *prefix, const char *suffix, const char *text,
                                        size_t length)
{
    char path[PATH_MAX];
    size_t used = strlen(state.dir);
    if (!state.active || used > PATH_MAX - 64)
        return;
    memcpy(path, state.dir, used);
    path[used++] = '/';
    memcpy(path + used, prefix, strlen(prefix));
    used += strlen(prefix);
    used += format_decimal(path + used, (uint64_t)state.pid);
    memcpy(path + used, suffix, strlen(suffix) + 1);
    char selector = own_syscalls_begin();
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd >= 0) {
        for (size_t done = 0; done < length;) {
            ssize_t n = write(fd, text + done, length - done);
            if (n <= 0)
                break;
            done += (size_t)n;
        }
        close(fd);
    }
    own_syscalls_end(selector);
}

void LF_TEXT runtime_kernel_log(const char *text, size_t length)
{
    runtime_kernel_file("kernel-", ".log", text, length);
}

void LF_TEXT runtime_kernel_trace(const char *text, size_t length)
{
    runtime_kernel_file("kmem-", ".trace", text, length);
}

void LF_TEXT runtime_kernel_kcov(const uint64_t *words, size_t count)
{
    runtime_kernel_file("kcov-", ".pcs", (const char *)words, count * sizeof *words);
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
        emit_text(RECORD_NAME, 0, call.signature, 0, name ? name : "", NULL, 0);
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

/* Start counting live blocks from now on (tables are mapped on first use) and return a mark:
   blocks allocated after it have a larger serial. */
uint64_t LF_TEXT runtime_live_mark(void)
{
    int saved_guard = runtime_guard;
    runtime_guard = 1; /* initialising may allocate (pthread_atfork, on_exit), mapping the tables
                          makes system calls (not the program's, for libfail-kernel) */
    runtime_init();
    atomic_store(&live_marked, true);
    if (!atomic_load(&state.tracking)) {
        if (!map_tables()) {
            runtime_guard = saved_guard;
            return 0;
        }
        atomic_store(&state.tracking, true);
        publish_hooks();
    }
    runtime_guard = saved_guard;
    return atomic_load(&state.serial);
}

size_t LF_TEXT runtime_live_since(uint64_t mark, uintptr_t *blocks, size_t *sizes,
                                  uintptr_t *callers, size_t max)
{
    enum { BATCH = 64 };
    uint32_t sites[BATCH];
    if (!state.live_ready || !state.sites)
        return 0;
    size_t found = live_table_since(mark, blocks, sizes, sites, max < BATCH ? max : BATCH);
    for (size_t i = 0; i < found && i < max && i < BATCH; i++)
        callers[i] = state.sites[sites[i]].caller;
    return found;
}
