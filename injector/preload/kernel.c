/*
 * kernel.c — the fail-nth file and the system-call wrappers of libfail-kernel.so, for `failrun
 * kernel`: the kernel's own fault injection (CONFIG_FAULT_INJECTION, /proc/thread-self/fail-nth)
 * driven site by site.
 *
 * Every system call is a site when the kernel traps them for us (syscall user dispatch:
 * dispatch.c); the wrappers below are the fallback, for kernels without it, programs that trap
 * system calls themselves, and `failrun kernel --wrappers`. While calls are trapped the wrappers
 * only pass through.
 *
 * A run's plan names one system-call site S (the stack of a libc wrapper call), its occurrence K
 * and a count N. At the K-th call at S the wrapper writes N to this thread's fail-nth, calls the
 * real function at once — nothing else in between, so the N-th fault point the kernel passes is
 * inside that system call — then reads the counter back (0: the N-th point was reached and
 * failed), writes 0 so nothing later is hit, and records what happened with the errno the
 * program saw. failrun sweeps N = 1, 2, ... until a read-back is not 0: the call had fewer than
 * N fault points.
 *
 * Only this library carries the wrappers: ordinary campaigns' preload never touches read/write.
 * Runs inside the target: the rules of libfail/internal.h apply. Our own system calls (the
 * record file, the fail-nth file) are made with runtime_guard set, and pass straight through.
 */
#include "kernel.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <stdatomic.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define FAILNTH_FD_FLOOR 950

/* This thread's /proc/thread-self/fail-nth, opened by this process (an fd inherited over fork
   still names the parent's thread). */
static __thread int failnth_fd __attribute__((tls_model("initial-exec"))) = -1;
static __thread pid_t failnth_pid __attribute__((tls_model("initial-exec")));
/* What the fd named when opened: a program that closes every fd may reuse the number. */
static __thread dev_t failnth_dev __attribute__((tls_model("initial-exec")));
static __thread ino_t failnth_ino __attribute__((tls_model("initial-exec")));

/* The file: /proc/thread-self/fail-nth, or for failrun's own tests LIBFAIL_TEST_FAILNTH (a plain
   file, which counts nothing: every armed call then reads back N, "not reached"). */
static char failnth_path[256] = "/proc/thread-self/fail-nth";

int LF_TEXT kernel_failnth_fd(void)
{
    pid_t pid = (pid_t)syscall(SYS_getpid);
    struct stat st;
    if (failnth_fd >= 0 && failnth_pid == pid && fstat(failnth_fd, &st) == 0 &&
        st.st_dev == failnth_dev && st.st_ino == failnth_ino)
        return failnth_fd;
    int fd = (int)syscall(SYS_openat, AT_FDCWD, failnth_path, O_RDWR | O_CLOEXEC);
    if (fd < 0)
        return -1;
    int high = fcntl(fd, F_DUPFD_CLOEXEC, FAILNTH_FD_FLOOR); /* away from the program's fds */
    if (high >= 0) {
        syscall(SYS_close, fd);
        fd = high;
    }
    if (fstat(fd, &st) != 0) {
        syscall(SYS_close, fd);
        return -1;
    }
    failnth_fd = fd;
    failnth_pid = pid;
    failnth_dev = st.st_dev;
    failnth_ino = st.st_ino;
    return fd;
}

static bool LF_TEXT read_back(int fd, uint64_t *value)
{
    char text[24];
    ssize_t length = pread(fd, text, sizeof text, 0);
    size_t digits = 0;
    while (length > 0 && digits < (size_t)length && text[digits] >= '0' && text[digits] <= '9')
        digits++;
    return digits > 0 && parse_decimal(text, digits, value);
}

/* ---- the kernel's log during the armed call ----
 * A WARN, BUG, oops or lockdep report the kernel prints while the call is armed is a finding of
 * its own: /dev/kmsg is opened at its end before the write of N, and what it received by the
 * read-back goes to the run folder (runtime_kernel_log) when one of its lines starts a report.
 * Root only (or CAP_SYSLOG); without it nothing is watched. */

static int kmsg_fd = -1;
static _Atomic bool kmsg_busy; /* one armed call per run: a second one at once is not watched */
static char kmsg_record[8192]; /* /dev/kmsg hands out whole records only, up to 8 KiB */
static char kmsg_log[16384];

static void LF_TEXT kmsg_watch_start(void)
{
    bool expected = false;
    if (!atomic_compare_exchange_strong(&kmsg_busy, &expected, true))
        return;
    int fd = (int)syscall(SYS_openat, AT_FDCWD, "/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd >= 0 && lseek(fd, 0, SEEK_END) < 0) {
        syscall(SYS_close, fd);
        fd = -1;
    }
    kmsg_fd = fd;
    if (fd < 0)
        atomic_store(&kmsg_busy, false);
}

/* The first lines of the kernel's reports of its own bugs. */
static bool LF_TEXT starts_report(const char *line)
{
    static const char *const starts[] = {"WARNING:", "BUG:", "kernel BUG at", "Oops",
                                         "general protection fault", "Kernel panic",
                                         "INFO: possible", "UBSAN:"};
    for (size_t i = 0; i < sizeof starts / sizeof starts[0]; i++)
        if (starts_with(line, starts[i]))
            return true;
    return false;
}

static void LF_TEXT kmsg_watch_end(void)
{
    int fd = kmsg_fd;
    if (fd < 0)
        return;
    kmsg_fd = -1;
    size_t used = 0;
    bool report = false;
    for (int records = 0; records < 1024; records++) {
        ssize_t length = read(fd, kmsg_record, sizeof kmsg_record - 1);
        if (length < 0 && errno == EPIPE)
            continue; /* records overwritten meanwhile: go on with the next */
        if (length <= 0)
            break;
        /* "PRIORITY,SEQUENCE,MICROSECONDS,FLAGS;message\n" then " KEY=value" lines. */
        kmsg_record[length] = '\0';
        char *message = memchr(kmsg_record, ';', (size_t)length);
        if (!message)
            continue;
        message++;
        char *end = strchr(message, '\n');
        size_t size = end ? (size_t)(end - message) : strlen(message);
        message[size] = '\0';
        report |= starts_report(message);
        if (used + size + 1 < sizeof kmsg_log) {
            memcpy(kmsg_log + used, message, size);
            used += size;
            kmsg_log[used++] = '\n';
        }
    }
    syscall(SYS_close, fd);
    if (report)
        runtime_kernel_log(kmsg_log, used);
    atomic_store(&kmsg_busy, false);
}

/* ---- which allocation failed: the kmem trace of the armed call ----
 * Around the armed call this thread gets a tracefs instance of its own (instances/libfail-TID:
 * its own buffer, events and pid filter, so parallel runs never see each other's events), with
 * the events that name an allocation: kmem:kmalloc and kmem:kmem_cache_alloc of a NULL pointer
 * (call site, size, GFP flags), and failrun's kprobe events, which `failrun kernel
 * --setup-debugfs --kmem-trace` defines: on should_fail_alloc_page (libfail/page_entry: GFP
 * flags and order; libfail/page_ret with the kernel stack when it said fail: the page
 * allocator's own tracepoint does not fire when fail_page_alloc fails it) and on should_failslab
 * (libfail/slab_entry: object size and GFP flags; libfail/slab_ret with the stack when it said
 * fail: kmem_cache_alloc_bulk, the maple tree's allocator under mmap, munmap, mprotect and
 * fork, has no tracepoint). When the read-back says the fault fired, the end of the instance's
 * trace goes to the run folder (runtime_kernel_trace); failrun parses it (kmem.c). Only with
 * LIBFAIL_KMEM_TRACE=1 (failrun kernel --kmem-trace); without tracefs (or root) nothing is
 * traced. One armed call at a time is traced (kmem_busy; a run arms one call). Everything here
 * is set up before N is written, with raw system calls: the wrappers of this file must not see
 * them. */

static char kmem_instance[128];
static char kmem_text[65536];
static bool kmem_wanted; /* LIBFAIL_KMEM_TRACE (failrun kernel --kmem-trace), read at start */
static _Atomic bool kmem_busy;
static __thread bool kmem_mine __attribute__((tls_model("initial-exec")));
static pid_t kmem_pid; /* the process that set the instance up: a fork or vfork child leaves it */

static size_t LF_TEXT join_path(char *out, size_t size, const char *a, const char *b)
{
    size_t first = strlen(a), second = strlen(b);
    if (first + second + 2 > size)
        return 0;
    memcpy(out, a, first);
    out[first] = '/';
    memcpy(out + first + 1, b, second + 1);
    return first + 1 + second;
}

static bool LF_TEXT kmem_write(const char *name, const char *text)
{
    char path[256];
    if (!join_path(path, sizeof path, kmem_instance, name))
        return false;
    int fd = (int)syscall(SYS_openat, AT_FDCWD, path, O_WRONLY | O_TRUNC | O_CLOEXEC);
    if (fd < 0)
        return false;
    size_t length = strlen(text);
    bool done = syscall(SYS_write, fd, text, length) == (long)length;
    syscall(SYS_close, fd);
    return done;
}

static void LF_TEXT kmem_watch_start(void)
{
    static const char *const roots[] = {"/sys/kernel/tracing/instances",
                                        "/sys/kernel/debug/tracing/instances"};
    bool expected = false;
    if (!kmem_wanted || !atomic_compare_exchange_strong(&kmem_busy, &expected, true))
        return;
    char name[32] = "libfail-";
    name[8 + format_decimal(name + 8, (uint64_t)syscall(SYS_gettid))] = '\0';
    kmem_instance[0] = '\0';
    for (size_t i = 0; i < sizeof roots / sizeof roots[0] && !kmem_instance[0]; i++) {
        if (!join_path(kmem_instance, sizeof kmem_instance, roots[i], name))
            break;
        if (syscall(SYS_mkdirat, AT_FDCWD, kmem_instance, 0700) != 0 && errno != EEXIST)
            kmem_instance[0] = '\0';
    }
    if (!kmem_instance[0]) {
        atomic_store(&kmem_busy, false);
        return;
    }
    kmem_mine = true;
    kmem_pid = (pid_t)syscall(SYS_getpid);
    char tid[24];
    tid[format_decimal(tid, (uint64_t)syscall(SYS_gettid))] = '\0';
    kmem_write("buffer_size_kb", "256");
    kmem_write("set_event_pid", tid);
    kmem_write("options/sym-offset", "1");
    kmem_write("events/kmem/kmalloc/filter", "ptr == 0");
    kmem_write("events/kmem/kmem_cache_alloc/filter", "ptr == 0");
    kmem_write("events/libfail/page_ret/trigger", "stacktrace if ret == 1");
    kmem_write("events/libfail/slab_ret/trigger", "stacktrace if ret != 0");
    kmem_write("events/kmem/kmalloc/enable", "1");
    kmem_write("events/kmem/kmem_cache_alloc/enable", "1");
    kmem_write("events/libfail/page_entry/enable", "1");
    kmem_write("events/libfail/page_ret/enable", "1");
    kmem_write("events/libfail/slab_entry/enable", "1");
    kmem_write("events/libfail/slab_ret/enable", "1");
}

/* Reads the instance's trace into kmem_text, keeping its end: the failure is near the end of
   the call, and the entry events of every allocation before it come first. */
static size_t LF_TEXT kmem_read_tail(int fd)
{
    size_t used = 0;
    for (;;) {
        if (used == sizeof kmem_text) {
            /* Keep the second half, from its first whole line. */
            size_t half = sizeof kmem_text / 2;
            const char *line = memchr(kmem_text + half, '\n', sizeof kmem_text - half);
            size_t from = line ? (size_t)(line + 1 - kmem_text) : half;
            memmove(kmem_text, kmem_text + from, sizeof kmem_text - from);
            used = sizeof kmem_text - from;
        }
        long n = syscall(SYS_read, fd, kmem_text + used, sizeof kmem_text - used);
        if (n <= 0)
            return used;
        used += (size_t)n;
    }
}

static void LF_TEXT kmem_watch_end(bool fired)
{
    /* A child of the armed fork, clone or vfork returns here too: it touches nothing (a vfork
       child shares this memory with its parent, which finishes the trace). */
    if (!kmem_mine || (pid_t)syscall(SYS_getpid) != kmem_pid)
        return;
    kmem_mine = false;
    kmem_write("tracing_on", "0");
    char path[256];
    size_t used = 0;
    int fd = fired && join_path(path, sizeof path, kmem_instance, "trace")
                 ? (int)syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC)
                 : -1;
    if (fd >= 0) {
        used = kmem_read_tail(fd);
        syscall(SYS_close, fd);
    }
    kmem_write("events/libfail/page_ret/trigger", "!stacktrace if ret == 1");
    kmem_write("events/libfail/slab_ret/trigger", "!stacktrace if ret != 0");
    syscall(SYS_unlinkat, AT_FDCWD, kmem_instance, AT_REMOVEDIR);
    kmem_instance[0] = '\0';
    if (used)
        runtime_kernel_trace(kmem_text, used);
    atomic_store(&kmem_busy, false);
}

/* ---- the kernel code the armed call ran: KCOV ----
 * With LIBFAIL_KCOV=1 (failrun kernel --kcov; a kernel with CONFIG_KCOV), the armed call runs
 * with KCOV_TRACE_PC on for this thread: the kernel writes the address of every basic block it
 * executes for the task into an area shared with us. The area (KCOV_WORDS words: the count,
 * then the PCs) is set up once per process, before N is written (KCOV_INIT_TRACE allocates in
 * the kernel); KCOV_ENABLE comes after the write of N and KCOV_DISABLE first thing after the
 * call (neither passes a fault point); the area then goes as it is to kcov-PID.pcs in the run
 * folder (runtime_kernel_kcov), whether the fault fired or not: failrun compares the two
 * (injector/kernel/kernelcov.c). One armed call at a time (kcov_busy). */

#define KCOV_INIT_TRACE _IOR('c', 1, unsigned long)
#define KCOV_ENABLE _IO('c', 100)
#define KCOV_DISABLE _IO('c', 101)
#define KCOV_TRACE_PC 0
#define KCOV_WORDS (1u << 18) /* 2 MiB: the largest calls (clone, execve) pass some 10^5 blocks */
#define KCOV_FD_FLOOR 960

static bool kcov_wanted; /* LIBFAIL_KCOV (failrun kernel --kcov), read at start */
static int kcov_fd = -1;
static uint64_t *kcov_area;
static pid_t kcov_pid; /* the process that opened kcov_fd: a fork child opens its own */
static _Atomic bool kcov_busy;
static __thread bool kcov_on __attribute__((tls_model("initial-exec")));

/* Before N is written: this process's area, opened on first use. False without one. */
static bool LF_TEXT kcov_prepare(void)
{
    bool expected = false;
    if (!kcov_wanted || !atomic_compare_exchange_strong(&kcov_busy, &expected, true))
        return false;
    pid_t pid = (pid_t)syscall(SYS_getpid);
    if (kcov_area && kcov_pid == pid)
        return true;
    if (kcov_area) { /* the parent's, inherited over fork: its kcov is the parent's */
        syscall(SYS_munmap, kcov_area, KCOV_WORDS * sizeof(uint64_t));
        syscall(SYS_close, kcov_fd);
        kcov_area = NULL;
        kcov_fd = -1;
    }
    int fd = (int)syscall(SYS_openat, AT_FDCWD, "/sys/kernel/debug/kcov", O_RDWR | O_CLOEXEC);
    if (fd >= 0) {
        int high = fcntl(fd, F_DUPFD_CLOEXEC, KCOV_FD_FLOOR);
        if (high >= 0) {
            syscall(SYS_close, fd);
            fd = high;
        }
    }
    void *area = MAP_FAILED;
    if (fd >= 0 && syscall(SYS_ioctl, fd, KCOV_INIT_TRACE, (unsigned long)KCOV_WORDS) == 0)
        area = (void *)syscall(SYS_mmap, NULL, KCOV_WORDS * sizeof(uint64_t),
                               PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (area == MAP_FAILED) {
        if (fd >= 0)
            syscall(SYS_close, fd);
        atomic_store(&kcov_busy, false);
        return false;
    }
    kcov_fd = fd;
    kcov_area = area;
    kcov_pid = pid;
    return true;
}

/* Right after N is written (or instead, when it was not: `enable` false). */
static void LF_TEXT kcov_enable(bool enable)
{
    if (enable) {
        __atomic_store_n(&kcov_area[0], 0, __ATOMIC_RELAXED);
        kcov_on = syscall(SYS_ioctl, kcov_fd, KCOV_ENABLE, KCOV_TRACE_PC) == 0;
    }
    if (!kcov_on)
        atomic_store(&kcov_busy, false);
}

/* Right after the call. */
static void LF_TEXT kcov_disable(void)
{
    if (kcov_on)
        syscall(SYS_ioctl, kcov_fd, KCOV_DISABLE, 0);
}

/* Then, with runtime_guard set: the area to the run folder. */
static void LF_TEXT kcov_save(void)
{
    if (!kcov_on)
        return;
    kcov_on = false;
    uint64_t count = __atomic_load_n(&kcov_area[0], __ATOMIC_RELAXED);
    if (count > KCOV_WORDS - 1)
        count = KCOV_WORDS - 1;
    kcov_area[0] = count;
    runtime_kernel_kcov(kcov_area, count + 1);
    atomic_store(&kcov_busy, false);
}

bool LF_TEXT kernel_arm(int fd, uint64_t nth)
{
    int saved_errno = errno;
    char text[24];
    size_t length = format_decimal(text, nth);
    kmem_watch_start();
    kmsg_watch_start();
    bool kcov = kcov_prepare();
    bool armed = pwrite(fd, text, length, 0) == (ssize_t)length;
    if (kcov)
        kcov_enable(armed);
    if (!armed) {
        kmsg_watch_end();
        kmem_watch_end(false);
    }
    errno = saved_errno;
    return armed;
}

void LF_TEXT kernel_disarm(const struct call *call, uint32_t function, uint64_t nth, int fd,
                           bool failed, int error)
{
    int saved_errno = errno;
    kcov_disable();
    uint64_t left = 1;
    bool read = read_back(fd, &left);
    pwrite(fd, "0", 1, 0);
    int saved_guard = runtime_guard;
    runtime_guard = 1;
    kmsg_watch_end();
    kmem_watch_end(read && left == 0);
    kcov_save();
    runtime_kernel_after(call, function, nth, call->occurrence, read && left == 0, failed,
                         failed ? error : 0);
    runtime_guard = saved_guard;
    errno = saved_errno;
}

/* Before a wrapped call: record the site; when it is the planned one, arm fail-nth and return N. */
static uint64_t LF_TEXT arm(struct call *call, uint32_t function, uintptr_t caller, int *fd)
{
    int saved_errno = errno;
    runtime_guard = 1;
    uint64_t nth = runtime_kernel_before(call, function, caller);
    *fd = nth ? kernel_failnth_fd() : -1;
    runtime_guard = 0;
    errno = saved_errno;
    if (!nth || *fd < 0 || !kernel_arm(*fd, nth))
        return 0;
    return nth; /* the caller makes the system call next */
}

/* After the armed call. Leaves errno as the call set it. */
static void LF_TEXT disarm(const struct call *call, uint32_t function, uint64_t nth, int fd,
                           bool failed)
{
    kernel_disarm(call, function, nth, fd, failed, errno);
}

/* The wrappers work when system calls are not trapped (dispatch.c), and not for our own. */
LF_INLINE bool wrapper_passes(void)
{
    return runtime_guard || !runtime_kernel_mode() || dispatch_active();
}

/* One wrapper: `call` is the real call, `failed` tells from `result` whether it failed. */
#define KERNEL_WRAPPER(type, name, id, params, args, failed)                                       \
    static void *real_##name;                                                                      \
    LF_TEXT LF_EXPORT type name params                                                             \
    {                                                                                              \
        type(*real) params = (type(*) params)real_function(&real_##name, #name);               \
        if (wrapper_passes())                                                                      \
            return real args;                                                                      \
        struct call call;                                                                          \
        int failnth;                                                                               \
        uint64_t nth = arm(&call, id, (uintptr_t)__builtin_return_address(0), &failnth);           \
        type result = real args;                                                                   \
        if (nth && !(id == FUNCTION_SYS_FORK && (intptr_t)result == 0)) /* not in the child */     \
            disarm(&call, id, nth, failnth, (failed));                                             \
        return result;                                                                             \
    }

#define KERNEL_INTERPOSE(name, id, type, params, args, failed)                                     \
    KERNEL_WRAPPER(type, name, id, params, args, failed)
#define KERNEL_INTERPOSE_VARIADIC(name, id) /* written out below */
#include "format/interpose_kernel.def"
#undef KERNEL_INTERPOSE
#undef KERNEL_INTERPOSE_VARIADIC

/* open and openat take a mode only with O_CREAT or O_TMPFILE. */
static int (*real_open)(const char *, int, ...);
static int (*real_openat)(int, const char *, int, ...);

static mode_t LF_TEXT open_mode(int flags, va_list list)
{
    return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE ? (mode_t)va_arg(list, int) : 0;
}

LF_TEXT LF_EXPORT int open(const char *path, int flags, ...)
{
    va_list list;
    va_start(list, flags);
    mode_t mode = open_mode(flags, list);
    va_end(list);
    int (*real)(const char *, int, ...) =
        (int (*)(const char *, int, ...))real_function((void **)&real_open, "open");
    if (wrapper_passes())
        return real(path, flags, mode);
    struct call call;
    int fd;
    uint64_t nth = arm(&call, FUNCTION_SYS_OPEN, (uintptr_t)__builtin_return_address(0), &fd);
    int result = real(path, flags, mode);
    if (nth)
        disarm(&call, FUNCTION_SYS_OPEN, nth, fd, result < 0);
    return result;
}

LF_TEXT LF_EXPORT int openat(int directory, const char *path, int flags, ...)
{
    va_list list;
    va_start(list, flags);
    mode_t mode = open_mode(flags, list);
    va_end(list);
    int (*real)(int, const char *, int, ...) =
        (int (*)(int, const char *, int, ...))real_function((void **)&real_openat, "openat");
    if (wrapper_passes())
        return real(directory, path, flags, mode);
    struct call call;
    int fd;
    uint64_t nth = arm(&call, FUNCTION_SYS_OPENAT, (uintptr_t)__builtin_return_address(0), &fd);
    int result = real(directory, path, flags, mode);
    if (nth)
        disarm(&call, FUNCTION_SYS_OPENAT, nth, fd, result < 0);
    return result;
}

extern char __start_libfail_text[] LF_HIDDEN;
extern char __stop_libfail_text[] LF_HIDDEN;

/* Read a byte of every page of our own code (the handler, the trampolines), so that its first
   use between the write to fail-nth and the system call does not fault a page in and spend the
   count there. Nothing is locked: a locked page shows in the program's VmLck and counts against
   its RLIMIT_MEMLOCK (mlock-random-test sets a 256 KiB limit, drops CAP_IPC_LOCK and expects
   VmLck 0; under an mlockall its mlock calls failed). The pages may still be dropped under
   memory pressure, as they could be under the old mlockall's MCL_ONFAULT before it locked
   them: a count then runs long, which the sweep reads as any other. */
static void LF_TEXT touch_own_code(void)
{
    uintptr_t first = (uintptr_t)__start_libfail_text & ~(uintptr_t)4095; /* its first page's */
    for (uintptr_t page = first; page < (uintptr_t)__stop_libfail_text; page += 4096)
        (void)*(volatile const char *)(page < (uintptr_t)__start_libfail_text
                                           ? (uintptr_t)__start_libfail_text
                                           : page);
}

__attribute__((constructor)) static void LF_TEXT kernel_start(void)
{
    runtime_guard = 1;
    runtime_init();
    runtime_guard = 0;
    const char *trace = getenv("LIBFAIL_KMEM_TRACE");
    kmem_wanted = trace && *trace == '1';
    const char *kcov = getenv("LIBFAIL_KCOV");
    kcov_wanted = kcov && *kcov == '1';
    const char *test_path = getenv("LIBFAIL_TEST_FAILNTH");
    if (test_path && *test_path && strlen(test_path) < sizeof failnth_path)
        memcpy(failnth_path, test_path, strlen(test_path) + 1);
    if (!runtime_kernel_mode())
        return;
    touch_own_code();
    runtime_guard = 1;
    kernel_failnth_fd(); /* the initial thread's, opened at start */
    runtime_guard = 0;
    if (!runtime_kernel_wrappers_only())
        dispatch_start();
}
