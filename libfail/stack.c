/*
 * stack.c — site signatures: capture return addresses, normalise them to (module, offset), hash.
 *
 * Runs inside the target on every intercepted allocation. Never calls malloc or dladdr (1 µs per
 * address on libc); module lookups go through a table built with dl_iterate_phdr and published with
 * one atomic pointer store, so no lock is ever held that fork could leave behind. A rebuilt table
 * replaces the old one, which is left mapped (a thread may still read it); rebuilds only happen when
 * the set of loaded modules changed (dlopen/dlclose), so the leak is bounded by their number.
 */

#include "internal.h"

#include <elf.h>
#include <link.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#define UNW_LOCAL_ONLY
#include <libunwind.h>

#define MODULE_TABLE_CAPACITY 512

struct module_table {
    unsigned long long adds, subs; /* dl_iterate_phdr's counters when the table was built */
    int count;
    struct module_info modules[MODULE_TABLE_CAPACITY];
};

static _Atomic(struct module_table *) current_table;
static void (*module_listener)(const struct module_info *);

/* The text of a sanitizer runtime (failrun's leak scan preloads one after us): its interceptors
   stand between the program and glibc, so their frames are left out of signatures, which then
   match the runs without it. */
static _Atomic uintptr_t sanitizer_start, sanitizer_end;

LF_INLINE bool is_sanitizer_frame(uintptr_t pc)
{
    uintptr_t end = atomic_load_explicit(&sanitizer_end, memory_order_relaxed);
    return LF_UNLIKELY(end) && pc - 1 >= atomic_load_explicit(&sanitizer_start, memory_order_relaxed) &&
           pc - 1 < end;
}

/* The dynamic linker's text, once an LD_AUDIT module reports calls (boundary.c): its trampoline
   stands between the program and the library it called, so its frames are left out and a site's
   signature is the same with the audit or without it. */
static _Atomic uintptr_t loader_start, loader_end;

LF_INLINE bool is_loader_frame(uintptr_t pc)
{
    uintptr_t end = atomic_load_explicit(&loader_end, memory_order_relaxed);
    if (is_boundary_frame(pc))
        return true; /* the trampoline the audit now binds calls to (boundary.c), the same way */
    return LF_UNLIKELY(end) && pc - 1 >= atomic_load_explicit(&loader_start, memory_order_relaxed) &&
           pc - 1 < end;
}

static int LF_TEXT find_loader(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size, (void)data;
    const char *name = info->dlpi_name ? info->dlpi_name : "";
    const char *base = strrchr(name, '/');
    base = base ? base + 1 : name;
    if (strncmp(base, "ld-linux", 8) != 0)
        return 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X)) {
            atomic_store(&loader_start, info->dlpi_addr + ph->p_vaddr);
            atomic_store(&loader_end, info->dlpi_addr + ph->p_vaddr + ph->p_memsz);
        }
    }
    return 1;
}

void LF_TEXT stack_skip_loader(void)
{
    if (!atomic_load_explicit(&loader_end, memory_order_relaxed))
        dl_iterate_phdr(find_loader, NULL);
}

/* Fork mode's child replaced a return address by its test-case trampoline (testcase.c), which
   the unwinder cannot step through: when `ip` is it, the frames from there out are those the
   child found when it armed (they stay while the trampoline is on the stack). Appends them to
   pcs[count..max) and returns the new count; -1 when `ip` is no trampoline. */
static int LF_TEXT through_trampoline(uintptr_t ip, uintptr_t *pcs, int count, int max)
{
    if (LF_LIKELY(!testcase_armed) || !testcase_return_for(ip))
        return -1;
    const uintptr_t *outer = NULL;
    int outer_count = testcase_outer_frames(&outer);
    for (int k = 0; k < outer_count && count < max; k++)
        if (!is_own_frame(outer[k]) && !is_sanitizer_frame(outer[k]) && !is_loader_frame(outer[k]))
            pcs[count++] = outer[k];
    return count;
}


int LF_TEXT stack_capture(uintptr_t *pcs, int max)
{
    /* Our own frames above the caller: the interposer, runtime_before_alloc, this function (an
       I/O interposer has one more); and one below, where an allocation was made inside the real
       function an I/O interposer called (fopen's FILE): that frame is left out too, so the site
       is the same whether the I/O interposers are loaded or not. */
    enum { OWN_FRAMES = 6, SANITIZER_FRAMES = 4 };
    void *raw[RECORD_MAX_FRAMES + OWN_FRAMES + SANITIZER_FRAMES];
    bool sanitizer = atomic_load_explicit(&sanitizer_end, memory_order_relaxed) != 0;
    int wanted = max + OWN_FRAMES + (sanitizer ? SANITIZER_FRAMES : 0);
    unwinder_bind();
    if (!unwinder_enter())
        return 0; /* called from a signal handler that interrupted our unwind: not a candidate */
    int n = unw_backtrace(raw, wanted);
    unwinder_leave();
    for (int i = 0; LF_UNLIKELY(testcase_armed) && i < n; i++) {
        if (testcase_return_for((uintptr_t)raw[i])) {
            /* Fork mode's test-case trampoline: unw_backtrace guesses beyond it. The frames
               from there out are those the child found when it put the trampoline in, and they
               stay while the trampoline is on the stack (testcase.c). */
            const uintptr_t *outer = NULL;
            int outer_count = testcase_outer_frames(&outer);
            for (int k = 0; k < outer_count && i < wanted; k++)
                raw[i++] = (void *)outer[k];
            n = i;
        }
    }
    int skip = 0;
    while (skip < n && is_own_frame((uintptr_t)raw[skip]))
        skip++;
    int count = 0;
    for (int i = skip; i < n && count < max; i++)
        if (!is_sanitizer_frame((uintptr_t)raw[i]) && !is_own_frame((uintptr_t)raw[i]) &&
            !is_loader_frame((uintptr_t)raw[i]))
            pcs[count++] = (uintptr_t)raw[i];
    return count;
}

#if defined(__x86_64__)
/* Whether the code at ip is an rt_sigreturn restorer: `mov $15, %rax; syscall`, the bytes of
   glibc's __restore_rt and of libfail-kernel.so's own (injector/preload/dispatch.c). */
static bool LF_TEXT is_sigreturn(uintptr_t ip)
{
    static const unsigned char code[] = {0x48, 0xc7, 0xc0, 0x0f, 0x00, 0x00, 0x00, 0x0f, 0x05};
    struct module_info module;
    return module_find(ip, &module) && module_find(ip + sizeof code - 1, &module) &&
           memcmp((const void *)ip, code, sizeof code) == 0;
}
#endif

/* unw_step, but through a signal restorer no unwind table covers, where libunwind stops (and
   leaves the cursor moved by its frame-pointer guess): the SIGSYS handler of libfail-kernel.so
   returns through one, so a program that dies inside a system call it made (abort's tgkill)
   would end its stack in the handler. At a restorer's address the stack pointer is the
   kernel's rt_sigframe past its return address: the ucontext, whose registers are those of the
   interrupted code. */
static int LF_TEXT step(unw_cursor_t *cursor)
{
#if defined(__x86_64__)
    unw_word_t ip = 0, sp = 0;
    if (unw_get_reg(cursor, UNW_REG_IP, &ip) == 0 && unw_get_reg(cursor, UNW_REG_SP, &sp) == 0 &&
        sp && !(sp & 7) && is_sigreturn(ip))
        return unw_init_local2(cursor, (unw_context_t *)sp, UNW_INIT_SIGNAL_FRAME) == 0;
#endif
    return unw_step(cursor);
}

int LF_TEXT stack_capture_signal(void *ucontext, uintptr_t *pcs, int max)
{
    unw_cursor_t cursor;
    int count = 0;
    unwinder_bind();
    if (max < 2 || unwinder_busy())
        return 0; /* inside our unwind, which may hold libunwind's lock */
#if defined(__x86_64__)
    /* A call through a pointer that holds no code (NULL, freed or never set): the fault is at
       that address, outside every module, where no unwind table reaches. The call left its
       return address on top of the stack: frame 0 is the address, the rest unwinds from the
       caller. */
    ucontext_t *context = ucontext;
    uintptr_t pc = (uintptr_t)context->uc_mcontext.gregs[REG_RIP];
    uintptr_t sp = (uintptr_t)context->uc_mcontext.gregs[REG_RSP];
    struct module_info module;
    if (!module_find(pc, &module) && sp && !(sp & 7) && module_find(*(const uintptr_t *)sp, &module)) {
        ucontext_t caller = *context; /* on the signal stack: 64 KiB of ours, or the program's */
        caller.uc_mcontext.gregs[REG_RIP] = (greg_t)*(const uintptr_t *)sp;
        caller.uc_mcontext.gregs[REG_RSP] = (greg_t)(sp + 8);
        if (unw_init_local2(&cursor, (unw_context_t *)&caller, 0) < 0)
            return 0;
        pcs[count++] = pc + 1;
        do {
            unw_word_t ip = 0;
            if (unw_get_reg(&cursor, UNW_REG_IP, &ip) < 0 || ip == 0)
                break;
            int through = through_trampoline((uintptr_t)ip, pcs, count, max);
            if (through >= 0)
                return through;
            if (!is_loader_frame((uintptr_t)ip))
                pcs[count++] = (uintptr_t)ip;
        } while (count < max && step(&cursor) > 0);
        return count;
    }
#endif
    if (unw_init_local2(&cursor, (unw_context_t *)ucontext, UNW_INIT_SIGNAL_FRAME) < 0)
        return 0;
    bool returned = false; /* frame 0 is where a restorer returns to: a return address too */
    do {
        unw_word_t ip = 0;
        if (unw_get_reg(&cursor, UNW_REG_IP, &ip) < 0 || ip == 0)
            break;
        int through = count > 0 ? through_trampoline((uintptr_t)ip, pcs, count, max) : -1;
        if (through >= 0)
            return through;
        /* Frame 0 is the faulting instruction itself; later frames are return addresses. Store
           frame 0 as pc + 1 so every frame can be symbolised uniformly as "return address - 1". */
        if (count > 0 && is_loader_frame((uintptr_t)ip))
            continue; /* the audit's trampoline (is_loader_frame) */
        pcs[count] = count == 0 && !returned ? (uintptr_t)ip + 1 : (uintptr_t)ip;
        count++;
#if defined(__x86_64__)
        /* Every frame so far ours, up to our restorer: the signal came while libfail-kernel.so's
           SIGSYS handler made the program's system call. Those frames are left out, as our
           interposers are; the stack starts at the call the program made. */
        bool ours = count > 1;
        for (int i = 0; ours && i < count; i++)
            ours = is_own_frame(pcs[i]);
        if (ours && is_sigreturn((uintptr_t)ip)) {
            count = 0;
            returned = true;
        }
#endif
    } while (count < max && step(&cursor) > 0);
    return count;
}

/* The frames from `cursor` on into pcs[count..max), our own left out; returns the new count. */
static int LF_TEXT capture_from(unw_cursor_t *cursor, uintptr_t *pcs, int count, int max)
{
    do {
        unw_word_t ip = 0;
        if (unw_get_reg(cursor, UNW_REG_IP, &ip) < 0 || ip == 0)
            break;
        int through = through_trampoline((uintptr_t)ip, pcs, count, max);
        if (through >= 0)
            return through;
        if (!is_own_frame((uintptr_t)ip) && !is_sanitizer_frame((uintptr_t)ip) &&
            !is_loader_frame((uintptr_t)ip))
            pcs[count++] = (uintptr_t)ip;
    } while (count < max && step(cursor) > 0);
    return count;
}

int LF_TEXT stack_capture_syscall(void *ucontext, uintptr_t *pcs, int max)
{
    /* Frame 0 is the address just past the syscall instruction: like a return address, ip - 1
       lies in the calling function. Our interposers are left out, as in stack_capture. */
    unw_cursor_t cursor;
    unwinder_bind();
    if (max < 2 || unwinder_busy() ||
        unw_init_local2(&cursor, (unw_context_t *)ucontext, UNW_INIT_SIGNAL_FRAME) < 0)
        return 0;
    unw_proc_info_t info;
#if defined(__x86_64__)
    /* Without an FDE libunwind makes up a one-byte procedure at ip. */
    if (unw_get_proc_info(&cursor, &info) == 0 && info.end_ip - info.start_ip > 1)
#endif
        return capture_from(&cursor, pcs, 0, max);
#if defined(__x86_64__)
    /* No unwind information: glibc ends the FDE of clone and clone3 before their syscall
       instruction (the child's would be wrong). Both are leaves, whose return address is on
       top of the stack: go on from there, as if the function had returned. */
    ucontext_t *context = ucontext;
    unw_context_t caller;
    memcpy(&caller, context, sizeof caller);
    uintptr_t stack = (uintptr_t)context->uc_mcontext.gregs[REG_RSP];
    pcs[0] = (uintptr_t)context->uc_mcontext.gregs[REG_RIP];
    memcpy(&caller.uc_mcontext.gregs[REG_RIP], (const void *)stack, sizeof(greg_t));
    caller.uc_mcontext.gregs[REG_RSP] = (greg_t)(stack + sizeof(greg_t));
    if (unw_init_local2(&cursor, &caller, UNW_INIT_SIGNAL_FRAME) < 0)
        return 1;
    return capture_from(&cursor, pcs, 1, max);
#endif
}

/* ---- module table ---- */

static void LF_TEXT read_build_id(struct dl_phdr_info *info, struct module_info *module)
{
    module->build_id_length = 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_NOTE)
            continue;
        const char *note = (const char *)(info->dlpi_addr + ph->p_vaddr);
        const char *end = note + ph->p_memsz;
        while (note + sizeof(ElfW(Nhdr)) <= end) {
            const ElfW(Nhdr) *nh = (const ElfW(Nhdr) *)note;
            const char *name = note + sizeof *nh;
            const char *desc = name + ((nh->n_namesz + 3) & ~3u);
            if (desc + nh->n_descsz > end)
                break;
            if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 && memcmp(name, "GNU", 4) == 0) {
                uint32_t length = nh->n_descsz < RECORD_BUILD_ID_MAX ? nh->n_descsz
                                                                     : RECORD_BUILD_ID_MAX;
                memcpy(module->build_id, desc, length);
                module->build_id_length = length;
                return;
            }
            note = desc + ((nh->n_descsz + 3) & ~3u);
        }
    }
}

static void LF_TEXT copy_path(char *out, size_t size, const char *path)
{
    size_t length = strlen(path);
    if (length >= size)
        length = size - 1;
    memcpy(out, path, length);
    out[length] = '\0';
}

static int LF_TEXT add_module(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    struct module_table *table = data;
    table->adds = info->dlpi_adds;
    table->subs = info->dlpi_subs;
    if (table->count >= MODULE_TABLE_CAPACITY)
        return 0;
    struct module_info *module = &table->modules[table->count];
    uintptr_t low = UINTPTR_MAX, high = 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD)
            continue;
        uintptr_t start = info->dlpi_addr + ph->p_vaddr;
        if (start < low)
            low = start;
        if (start + ph->p_memsz > high)
            high = start + ph->p_memsz;
    }
    if (high == 0)
        return 0;
    module->start = low;
    module->end = high;
    module->bias = info->dlpi_addr;
    if (info->dlpi_name && info->dlpi_name[0]) {
        copy_path(module->path, sizeof module->path, info->dlpi_name);
    } else {
        /* The main executable has an empty name; /proc/self/exe gives its path. */
        ssize_t n = readlink("/proc/self/exe", module->path, sizeof module->path - 1);
        module->path[n > 0 ? n : 0] = '\0';
    }
    read_build_id(info, module);
    const char *base = strrchr(module->path, '/');
    base = base ? base + 1 : module->path;
    if (!strncmp(base, "libasan.so", 10) || !strncmp(base, "liblsan.so", 10)) {
        atomic_store(&sanitizer_start, low);
        atomic_store(&sanitizer_end, high);
    }
    module->id = module->build_id_length
                     ? hash_bytes(1, module->build_id, module->build_id_length)
                     : hash_bytes(2, module->path, strlen(module->path));
    table->count++;
    return 0;
}

static int LF_TEXT read_counters(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    unsigned long long *counters = data;
    counters[0] = info->dlpi_adds;
    counters[1] = info->dlpi_subs;
    return 1; /* the counters are the same for every module: stop after the first */
}

static struct module_table *LF_TEXT build_table(void)
{
    struct module_table *table = mmap(NULL, sizeof *table, PROT_READ | PROT_WRITE,
                                      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (table == MAP_FAILED)
        return NULL;
    table->count = 0;
    dl_iterate_phdr(add_module, table);
    return table;
}

static struct module_table *LF_TEXT refresh_table_now(struct module_table *old)
{
    if (old) {
        unsigned long long counters[2] = {0, 0};
        dl_iterate_phdr(read_counters, counters);
        if (counters[0] == old->adds && counters[1] == old->subs)
            return old; /* nothing was loaded or unloaded: the address is simply unknown */
    }
    struct module_table *fresh = build_table();
    if (!fresh)
        return old;
    struct module_table *expected = old;
    if (!atomic_compare_exchange_strong(&current_table, &expected, fresh)) {
        munmap(fresh, sizeof *fresh); /* another thread published first; use theirs */
        return expected;
    }
    if (module_listener)
        for (int i = 0; i < fresh->count; i++)
            module_listener(&fresh->modules[i]);
    return fresh;
}

/* The table's system calls (mmap, readlink) are ours, never a traced program's. */
static struct module_table *LF_TEXT refresh_table(struct module_table *old)
{
    char selector = own_syscalls_begin();
    struct module_table *table = refresh_table_now(old);
    own_syscalls_end(selector);
    return table;
}

LF_INLINE const struct module_info *table_find(const struct module_table *table, uintptr_t pc)
{
    if (!table)
        return NULL;
    for (int i = 0; i < table->count; i++)
        if (pc >= table->modules[i].start && pc < table->modules[i].end)
            return &table->modules[i];
    return NULL;
}

static const struct module_info *LF_TEXT module_lookup_slow(struct module_table *table, uintptr_t pc)
{
    const struct module_info *module = table_find(table, pc);
    if (module)
        return module;
    return table_find(refresh_table(table), pc);
}

/* `hint`, when not NULL, is the module of a neighbouring frame: most frames of a stack lie in
   the module of the frame before them, so it is tried before the table. */
LF_INLINE const struct module_info *module_lookup(uintptr_t pc, const struct module_info *hint)
{
    if (hint && pc >= hint->start && pc < hint->end)
        return hint;
    struct module_table *table = atomic_load_explicit(&current_table, memory_order_acquire);
    return module_lookup_slow(table, pc);
}

const struct module_info *LF_TEXT module_table_current(int *count)
{
    struct module_table *table = atomic_load_explicit(&current_table, memory_order_acquire);
    if (!table) /* no stack normalised yet (a process at its start): the modules now */
        table = refresh_table(NULL);
    *count = table ? table->count : 0;
    return table ? table->modules : NULL;
}

/* The C library, the dynamic loader and the vDSO: what stands between a program and the
   system call it asked for. */
static bool LF_TEXT is_system_module(const struct module_info *module)
{
    if (!module)
        return false;
    const char *base = strrchr(module->path, '/');
    base = base ? base + 1 : module->path;
    return path_is_system(module->path) || starts_with(base, "linux-vdso");
}

int LF_TEXT stack_system_frames(const uintptr_t *pcs, int count)
{
    const struct module_info *module = NULL;
    int frames = 0;
    while (frames < count) {
        module = module_lookup(pcs[frames], module);
        if (!is_system_module(module))
            break;
        frames++;
    }
    return frames;
}

bool LF_TEXT module_find(uintptr_t pc, struct module_info *out)
{
    const struct module_info *module = module_lookup(pc, NULL);
    if (!module)
        return false;
    *out = *module;
    return true;
}

void LF_TEXT stack_normalise(const uintptr_t *pcs, int count, struct record_frame *frames)
{
    const struct module_info *module = NULL;
    for (int i = 0; i < count; i++) {
        module = module_lookup(pcs[i], module);
        frames[i].module = module ? module->id : 0;
        frames[i].offset = module ? pcs[i] - module->bias : pcs[i];
    }
}

uint64_t LF_TEXT stack_signature(const struct record_frame *frames, int count)
{
    uint64_t h = hash_words(3, (const uint64_t *)frames, (size_t)count * 2);
    return h ? h : 1; /* 0 marks an empty slot in the site table */
}

void LF_TEXT module_table_set_listener(void (*listener)(const struct module_info *))
{
    module_listener = listener;
}

void LF_TEXT module_table_reset_after_fork(void)
{
    /* The child has its own record file, so it must announce its modules again: forget the table
       (it stays valid memory) and let the next lookup rebuild and report it. */
    atomic_store(&current_table, NULL);
}
