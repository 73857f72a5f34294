/*
 * unwinder.c — keep libunwind's file descriptors out of the program's way.
 *
 * libunwind checks that an address is readable, when a frame has no unwind information, by
 * writing one byte from it into a pipe of its own. It makes that pipe on its first use, with the
 * lowest free descriptors (3 and 4 in most programs), and when a read from the pipe fails it
 * closes both numbers and makes a new pipe. A shell that runs `exec 3>/dev/null` (test libraries
 * and TAP drivers use 3-9) therefore loses its descriptor 3 the next time the unwinder checks an
 * address: libunwind reads end-of-file from /dev/null, closes the shell's 3 and 4 and puts its
 * pipe there.
 *
 * So libunwind's own calls of pipe2, read, close and syscall (its write) are bound to the
 * functions below, by rewriting libunwind's GOT entries for them, before its first use. The pipe
 * then lives at UNWINDER_FD_FLOOR and above, close-on-exec; a descriptor is used as the pipe only
 * while it is still the pipe made here (same device and inode), so a program that closes every
 * descriptor or puts a file of its own on that number loses nothing: libunwind is told the
 * descriptor is bad, its close of the number is skipped, and its new pipe is moved up again. The
 * program's own calls of these functions are untouched.
 */
#include "internal.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define UNW_LOCAL_ONLY
#include <libunwind.h>

#define UNWINDER_FD_FLOOR 970

struct held_fd {
    _Atomic int fd; /* -1: none */
    _Atomic dev_t dev;
    _Atomic ino_t ino;
};
static struct held_fd held[2] = {{-1, 0, 0}, {-1, 0, 0}};

/* 0: libunwind's imports not yet bound here; 1: done (or nothing to do). */
static _Atomic int bound;

static bool LF_TEXT still_ours(const struct held_fd *entry, int fd)
{
    struct stat st;
    return fd >= 0 && atomic_load(&entry->fd) == fd && fstat(fd, &st) == 0 && S_ISFIFO(st.st_mode) &&
           st.st_dev == atomic_load(&entry->dev) && st.st_ino == atomic_load(&entry->ino);
}

static struct held_fd *LF_TEXT held_entry(int fd)
{
    for (int i = 0; i < 2; i++)
        if (fd >= 0 && atomic_load(&held[i].fd) == fd)
            return &held[i];
    return NULL;
}

static int LF_TEXT move_high(int fd)
{
    int high = fcntl(fd, F_DUPFD_CLOEXEC, UNWINDER_FD_FLOOR);
    if (high < 0)
        return fd; /* RLIMIT_NOFILE below the floor: keep the number we have */
    close(fd);
    return high;
}

static int LF_TEXT unwinder_pipe2(int fds[2], int flags)
{
    int made[2];
    if (pipe2(made, flags) != 0)
        return -1;
    for (int i = 0; i < 2; i++) {
        made[i] = move_high(made[i]);
        struct stat st;
        if (fstat(made[i], &st) == 0) {
            atomic_store(&held[i].dev, st.st_dev);
            atomic_store(&held[i].ino, st.st_ino);
        }
        atomic_store(&held[i].fd, made[i]);
        fds[i] = made[i];
    }
    return 0;
}

static ssize_t LF_TEXT unwinder_read(int fd, void *buffer, size_t count)
{
    struct held_fd *entry = held_entry(fd);
    if (entry && !still_ours(entry, fd)) {
        /* Closed or replaced by the program: libunwind makes a new pipe (its close of this
           number is skipped below). */
        errno = EBADF;
        return -1;
    }
    return read(fd, buffer, count);
}

static int LF_TEXT unwinder_close(int fd)
{
    struct held_fd *entry = held_entry(fd);
    if (entry) {
        bool ours = still_ours(entry, fd);
        atomic_store(&entry->fd, -1);
        if (!ours)
            return 0; /* the number is the program's now */
    }
    return close(fd);
}

static long LF_TEXT unwinder_syscall(long number, ...)
{
    va_list arguments;
    va_start(arguments, number);
    long a[6];
    for (int i = 0; i < 6; i++)
        a[i] = va_arg(arguments, long);
    va_end(arguments);
    if (number == SYS_write) {
        struct held_fd *entry = held_entry((int)a[0]);
        if (entry && !still_ours(entry, (int)a[0])) {
            errno = EBADF;
            return -1;
        }
    }
    return syscall(number, a[0], a[1], a[2], a[3], a[4], a[5]);
}

/* This thread's unwinds in progress (stack_capture): at most one, since a signal handler that
   allocates while this thread unwinds is not unwound (unwinder_enter). A fork from such a
   handler must not wait for the unwind it interrupted. */
static __thread int own_unwinds __attribute__((tls_model("initial-exec")));

/* libunwind blocks every signal around each of its locks and around each dl_iterate_phdr, two
   rt_sigprocmask calls each time: some 2,500 system calls for one run of a small test program
   in record mode, more than the program makes itself. The blocking keeps a signal handler that
   unwinds on the same thread from waiting for a lock its thread holds. Our own unwinds are never
   nested (unwinder_enter refuses, and the signal-context captures check unwinder_busy), so while
   this thread unwinds for us the mask is left alone; any other use of libunwind in the process
   (the program's own) gets the real call. */
/* A module of the program that links libunwind itself (a profiler whose SIGPROF handler
   unwinds, as gperftools' can): its handler may interrupt our unwind on the same thread and
   wait for the lock we hold, which only the blocked signals prevent. Then libunwind keeps its
   real sigprocmask. Found when libunwind is first bound (a later dlopen is not seen). */
static bool program_unwinds;

static int LF_TEXT unwinder_sigprocmask(int how, const sigset_t *set, sigset_t *old)
{
    if (!own_unwinds || program_unwinds)
        return sigprocmask(how, set, old);
    if (old)
        sigemptyset(old); /* restored later by another call here: also left alone */
    return 0;
}

static const struct {
    const char *name;
    void *function;
} replacements[] = {
    {"sigprocmask", (void *)unwinder_sigprocmask},
    {"pipe2", (void *)unwinder_pipe2},
    {"read", (void *)unwinder_read},
    {"close", (void *)unwinder_close},
    {"syscall", (void *)unwinder_syscall},
};

/* A dynamic entry's address: glibc relocates most of them in place, some ports do not. */
static uintptr_t LF_TEXT dynamic_address(uintptr_t base, ElfW(Addr) value)
{
    return value < base ? base + value : value;
}

static void LF_TEXT set_slot(uintptr_t slot, void *function, uintptr_t relro_start, uintptr_t relro_end)
{
    void **where = (void **)slot;
    if (*where == function)
        return;
    if (slot >= relro_start && slot < relro_end) {
        uintptr_t page = slot & ~(uintptr_t)(getpagesize() - 1);
        if (mprotect((void *)page, (size_t)getpagesize(), PROT_READ | PROT_WRITE) != 0)
            return;
        __atomic_store_n(where, function, __ATOMIC_RELEASE);
        mprotect((void *)page, (size_t)getpagesize(), PROT_READ);
        return;
    }
    __atomic_store_n(where, function, __ATOMIC_RELEASE);
}

static void LF_TEXT bind_relocations(uintptr_t base, const ElfW(Rela) *relocations, size_t size,
                                     const ElfW(Sym) *symbols, const char *strings,
                                     uintptr_t relro_start, uintptr_t relro_end)
{
    for (size_t i = 0; i < size / sizeof *relocations; i++) {
        unsigned type = (unsigned)ELF64_R_TYPE(relocations[i].r_info);
        if (type != R_X86_64_JUMP_SLOT && type != R_X86_64_GLOB_DAT)
            continue;
        const char *name = strings + symbols[ELF64_R_SYM(relocations[i].r_info)].st_name;
        for (size_t k = 0; k < sizeof replacements / sizeof *replacements; k++)
            if (!strcmp(name, replacements[k].name) &&
                !(program_unwinds && replacements[k].function == (void *)unwinder_sigprocmask))
                set_slot(base + relocations[i].r_offset, replacements[k].function, relro_start,
                         relro_end);
    }
}

static bool LF_TEXT contains(const struct dl_phdr_info *info, uintptr_t address)
{
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_LOAD && address >= info->dlpi_addr + ph->p_vaddr &&
            address < info->dlpi_addr + ph->p_vaddr + ph->p_memsz)
            return true;
    }
    return false;
}

static int LF_TEXT bind_module(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    if (!contains(info, (uintptr_t)data))
        return 0;
    /* Only a libunwind of its own: linked into the program, its imports are the program's. */
    if (!info->dlpi_name || !strstr(info->dlpi_name, "libunwind"))
        return 1;
    const ElfW(Dyn) *dynamic = NULL;
    uintptr_t relro_start = 0, relro_end = 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_DYNAMIC)
            dynamic = (const ElfW(Dyn) *)(info->dlpi_addr + ph->p_vaddr);
        else if (ph->p_type == PT_GNU_RELRO) {
            relro_start = info->dlpi_addr + ph->p_vaddr;
            relro_end = relro_start + ph->p_memsz;
        }
    }
    if (!dynamic)
        return 1;
    uintptr_t base = info->dlpi_addr;
    const ElfW(Rela) *plt = NULL, *rela = NULL;
    size_t plt_size = 0, rela_size = 0;
    const ElfW(Sym) *symbols = NULL;
    const char *strings = NULL;
    for (const ElfW(Dyn) *d = dynamic; d->d_tag != DT_NULL; d++) {
        switch (d->d_tag) {
        case DT_JMPREL: plt = (const ElfW(Rela) *)dynamic_address(base, d->d_un.d_ptr); break;
        case DT_PLTRELSZ: plt_size = d->d_un.d_val; break;
        case DT_RELA: rela = (const ElfW(Rela) *)dynamic_address(base, d->d_un.d_ptr); break;
        case DT_RELASZ: rela_size = d->d_un.d_val; break;
        case DT_SYMTAB: symbols = (const ElfW(Sym) *)dynamic_address(base, d->d_un.d_ptr); break;
        case DT_STRTAB: strings = (const char *)dynamic_address(base, d->d_un.d_ptr); break;
        default: break;
        }
    }
    if (!symbols || !strings)
        return 1;
    if (plt)
        bind_relocations(base, plt, plt_size, symbols, strings, relro_start, relro_end);
    if (rela)
        bind_relocations(base, rela, rela_size, symbols, strings, relro_start, relro_end);
    return 1;
}

/* ---- fork() while another thread unwinds ----
 * libunwind takes mutexes of its own while it steps; a program that forks while another of its
 * threads is unwinding (in our allocator) left such a mutex held in the child, whose first
 * allocation then waited for it forever (threads.c: about one campaign in twenty under load).
 * The fork waits until no thread is inside libunwind, and no thread enters it until the fork is
 * done: a count of unwinds in progress and a flag, both atomic (no lock of ours to inherit). */
static _Atomic int unwinds_in_progress;
static _Atomic bool fork_pending;
/* (own_unwinds: above, with libunwind's sigprocmask.) */

bool LF_TEXT unwinder_enter(void)
{
    if (own_unwinds)
        return false; /* a signal handler interrupted this thread's unwind, which may hold a lock */
    for (;;) {
        while (atomic_load_explicit(&fork_pending, memory_order_acquire))
            sched_yield();
        atomic_fetch_add(&unwinds_in_progress, 1);
        own_unwinds++;
        if (!atomic_load(&fork_pending))
            return true;
        own_unwinds--;
        atomic_fetch_sub(&unwinds_in_progress, 1); /* a fork began meanwhile: let it pass */
    }
}

bool LF_TEXT unwinder_busy(void)
{
    return own_unwinds != 0;
}

void LF_TEXT unwinder_leave(void)
{
    own_unwinds--;
    atomic_fetch_sub(&unwinds_in_progress, 1);
}

void LF_TEXT unwinder_before_fork(void)
{
    atomic_store(&fork_pending, true);
    while (atomic_load(&unwinds_in_progress) > own_unwinds)
        sched_yield();
}

void LF_TEXT unwinder_after_fork_parent(void)
{
    atomic_store(&fork_pending, false);
}

void LF_TEXT unwinder_after_fork_child(void)
{
    atomic_store(&unwinds_in_progress, own_unwinds); /* the only thread left */
    atomic_store(&fork_pending, false);
}

/* Does a module other than libunwind and ours need libunwind (DT_NEEDED)? Sets program_unwinds. */
static int LF_TEXT find_other_unwinder(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size, (void)data;
    if (contains(info, (uintptr_t)&unw_backtrace) || contains(info, (uintptr_t)&unwinder_bind))
        return 0;
    const ElfW(Dyn) *dynamic = NULL;
    for (int i = 0; i < info->dlpi_phnum; i++)
        if (info->dlpi_phdr[i].p_type == PT_DYNAMIC)
            dynamic = (const ElfW(Dyn) *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
    const char *strings = NULL;
    for (const ElfW(Dyn) *d = dynamic; d && d->d_tag != DT_NULL; d++)
        if (d->d_tag == DT_STRTAB)
            strings = (const char *)dynamic_address(info->dlpi_addr, d->d_un.d_ptr);
    for (const ElfW(Dyn) *d = dynamic; strings && d->d_tag != DT_NULL; d++)
        if (d->d_tag == DT_NEEDED && strstr(strings + d->d_un.d_val, "libunwind")) {
            program_unwinds = true;
            return 1;
        }
    return 0;
}

void LF_TEXT unwinder_bind(void)
{
    if (LF_LIKELY(atomic_load_explicit(&bound, memory_order_acquire)))
        return;
#if defined(__x86_64__)
    dl_iterate_phdr(find_other_unwinder, NULL);
    /* The module that holds libunwind's code: the one unw_backtrace lives in. */
    dl_iterate_phdr(bind_module, (void *)(uintptr_t)&unw_backtrace);
#endif
    atomic_store_explicit(&bound, 1, memory_order_release);
}
