/*
 * boundary.c — what the code under test returned to its caller (doc/guide/outcomes.md, "Outcomes").
 *
 * failrun's LD_AUDIT module (injector/preload/audit.c) binds every call that the program makes
 * through its PLT into a library under test to the trampoline below, which calls
 * boundary_trampoline_enter and boundary_trampoline_exit around it, in the calling thread. Every
 * such call comes from code outside the code under test (the audit binds only the program's
 * own), a callback of the library calling back in too: a fault
 * belongs to the innermost call open when it fired, whose value the outside code received
 * first. For each function, and each place that calls it, the process keeps the
 * classes of values it returned (record.h, BOUNDARY_CLASS_*), and writes them when the set
 * grows: failrun learns each function's error convention from the unfailed runs, and what each
 * call of it returned there (a parser that returns NULL for bad input never did at the call that
 * parses good input: there NULL reports the failure); only runs without a fault teach this, so a
 * run that fails a site writes no classes. When a fault fired inside the call in this thread, the
 * call's return value and errno are written as they reached the caller.
 *
 * A longjmp out of the library never returns through the trampoline: a call made from a stack at or
 * above an open call's entry shows that call was left. Allocation-free, lock-free; errno is as
 * the library left it when the program sees it.
 */
#include "internal.h"

#include <errno.h>
#include <stdatomic.h>

/* One function called from one place: key = a mix of both addresses (0: free). A process
   learns a few dozen of them, so every key tries a near part of BOUNDARY_NEAR entries first
   (four pages) and goes to the far part only when its near probes all hold other keys: a table
   hashed over all of its 256 KiB touched a fresh page for nearly every key, and every fork child
   (a start's, a test case's) paid those page faults again. */
#define BOUNDARY_NEAR 1024   /* a power of two */
#define BOUNDARY_NEAR_PROBES 16
#define BOUNDARY_FAR 16384   /* a power of two */
struct boundary_call {
    _Atomic uint64_t key;
    _Atomic uint64_t classes;
};
static struct boundary_call near_calls[BOUNDARY_NEAR];
static struct boundary_call far_calls[BOUNDARY_FAR];
/* Whether any entry was ever taken in each part: a process the audit never reports (most are)
   forks without walking the table, and one that never overflowed its near part leaves the far
   part's pages untouched. */
static _Atomic bool near_used, far_used;

#define BOUNDARY_DEPTH 16 /* calls open at once that are followed; deeper ones are counted */

/* The calls into the code under test open in this thread, outermost first. */
struct open_call {
    uintptr_t stack;  /* the stack pointer at entry: the return address's slot */
    uintptr_t caller; /* the return address */
    uint32_t faults;  /* this thread's faults at entry */
};
static __thread struct open_call open_calls[BOUNDARY_DEPTH] __attribute__((tls_model("initial-exec")));
static __thread unsigned depth __attribute__((tls_model("initial-exec")));
/* The thread's fault count already told with an inner call: its outer calls do not repeat it. */
static __thread uint32_t told_faults __attribute__((tls_model("initial-exec")));

/* The entry of `key` in one part (`mask` + 1 entries, `probes` tried), claimed when absent;
   NULL when every probe held another key. */
static struct boundary_call *LF_TEXT probe_part(struct boundary_call *part, uint32_t mask,
                                                uint32_t probes, uint64_t key, uint64_t hash,
                                                _Atomic bool *used)
{
    for (uint32_t probe = 0; probe < probes; probe++) {
        struct boundary_call *entry = &part[(uint32_t)((hash >> 40) + probe) & mask];
        uint64_t seen = atomic_load_explicit(&entry->key, memory_order_acquire);
        if (seen == key)
            return entry;
        if (seen == 0) {
            uint64_t expected = 0;
            if (atomic_compare_exchange_strong(&entry->key, &expected, key) || expected == key) {
                atomic_store_explicit(used, true, memory_order_relaxed);
                return entry;
            }
        }
    }
    return NULL;
}

static struct boundary_call *LF_TEXT call_entry(uintptr_t function, uintptr_t caller)
{
    uint64_t key = ((uint64_t)function * 0x9e3779b97f4a7c15ull) ^ (uint64_t)caller;
    key = key ? key : 1;
    uint64_t hash = key * 0xff51afd7ed558ccdull;
    struct boundary_call *entry =
        probe_part(near_calls, BOUNDARY_NEAR - 1, BOUNDARY_NEAR_PROBES, key, hash, &near_used);
    /* Keys are never removed, so a key whose near probes are all taken is in the far part. */
    return entry ? entry
                 : probe_part(far_calls, BOUNDARY_FAR - 1, BOUNDARY_FAR, key, hash, &far_used);
    /* NULL: full, that call's classes are not learned */
}

/* ---- the trampolines the audit binds the program's calls to ----

   failrun's audit module once used the dynamic linker's PLT hooks (la_pltenter, la_pltexit),
   which send every call through every object's PLT in the process, the C library's included,
   through the linker's profiling trampoline: a suite's test programs spent a tenth of their time
   there (perf, jansson and json-c). Now the module only answers la_symbind64: for each function
   of the code under test that the program binds to, it asks libfail_boundary_bind for a stub,
   and the linker writes the stub's address into the program's GOT. Every other call goes
   straight to its function.

   A stub (one of BOUNDARY_BINDINGS, 16 bytes each) puts its number in %r11 and jumps to
   boundary_trampoline, which saves the argument registers (integer, %rax for varargs, %xmm0-7),
   tells boundary_trampoline_enter, copies 256 bytes of the caller's stack arguments below its
   frame (room for 32, as the linker's trampoline copied for la_pltexit), calls the function, keeps what
   it returned (%rax, %rdx, %xmm0, %xmm1; the x87 stack is left as it is: libfail never uses it),
   tells boundary_trampoline_exit, and returns. It is a real frame with unwind information, in
   libfail's own text: stacks walk through it, and a site's signature leaves it out as it leaves
   out every frame of libfail's (is_own_frame). Limits: wider vector registers (%ymm, %zmm) as
   arguments or results are not kept whole; more than 256 bytes of stack arguments are not
   passed. Neither occurs in the C interfaces of libraries. */
#define BOUNDARY_BINDINGS 2048
struct boundary_binding {
    uintptr_t function;
    const char *name;
};
LF_HIDDEN struct boundary_binding boundary_bindings[BOUNDARY_BINDINGS];
static _Atomic uint32_t bindings_taken;
LF_HIDDEN void boundary_trampoline_enter(uintptr_t stack);
LF_HIDDEN void boundary_trampoline_exit(uint32_t index, uint64_t value);

__asm__(".pushsection libfail_text,\"ax\",@progbits\n"
        "    .balign 16\n"
        "    .globl boundary_stubs\n"
        "    .hidden boundary_stubs\n"
        "    .type boundary_stubs, @function\n"
        "boundary_stubs:\n"
        "    .cfi_startproc\n"
        "    .set boundary_stub, 0\n"
        "    .rept 2048\n" /* BOUNDARY_BINDINGS */
        "    .balign 16\n"
        "    endbr64\n"
        "    movl $boundary_stub, %r11d\n"
        "    jmp boundary_trampoline\n"
        "    .set boundary_stub, boundary_stub + 1\n"
        "    .endr\n"
        "    .cfi_endproc\n"
        "    .size boundary_stubs, . - boundary_stubs\n"
        "    .balign 16\n"
        "    .type boundary_trampoline, @function\n"
        "boundary_trampoline:\n"
        "    .cfi_startproc\n"
        "    endbr64\n"
        "    pushq %rbp\n"
        "    .cfi_def_cfa_offset 16\n"
        "    .cfi_offset %rbp, -16\n"
        "    movq %rsp, %rbp\n"
        "    .cfi_def_cfa_register %rbp\n"
        /* 208 bytes of saved registers, then 256 of stack arguments: %rsp stays 16-aligned */
        "    subq $464, %rsp\n"
        "    movq %r11, -8(%rbp)\n"
        "    movq %rdi, -16(%rbp)\n"
        "    movq %rsi, -24(%rbp)\n"
        "    movq %rdx, -32(%rbp)\n"
        "    movq %rcx, -40(%rbp)\n"
        "    movq %r8, -48(%rbp)\n"
        "    movq %r9, -56(%rbp)\n"
        "    movq %rax, -64(%rbp)\n"
        "    movq %r10, -72(%rbp)\n"
        "    movdqu %xmm0, -96(%rbp)\n"
        "    movdqu %xmm1, -112(%rbp)\n"
        "    movdqu %xmm2, -128(%rbp)\n"
        "    movdqu %xmm3, -144(%rbp)\n"
        "    movdqu %xmm4, -160(%rbp)\n"
        "    movdqu %xmm5, -176(%rbp)\n"
        "    movdqu %xmm6, -192(%rbp)\n"
        "    movdqu %xmm7, -208(%rbp)\n"
        "    leaq 16(%rbp), %rsi\n" /* the caller's stack arguments, above its return address */
        "    movq %rsp, %rdi\n"
        "    movl $32, %ecx\n"
        "    rep movsq\n"
        "    leaq 8(%rbp), %rdi\n" /* the return address's slot */
        "    call boundary_trampoline_enter\n"
        "    movdqu -96(%rbp), %xmm0\n"
        "    movdqu -112(%rbp), %xmm1\n"
        "    movdqu -128(%rbp), %xmm2\n"
        "    movdqu -144(%rbp), %xmm3\n"
        "    movdqu -160(%rbp), %xmm4\n"
        "    movdqu -176(%rbp), %xmm5\n"
        "    movdqu -192(%rbp), %xmm6\n"
        "    movdqu -208(%rbp), %xmm7\n"
        "    movq -16(%rbp), %rdi\n"
        "    movq -24(%rbp), %rsi\n"
        "    movq -32(%rbp), %rdx\n"
        "    movq -40(%rbp), %rcx\n"
        "    movq -48(%rbp), %r8\n"
        "    movq -56(%rbp), %r9\n"
        "    movq -72(%rbp), %r10\n"
        "    movl -8(%rbp), %r11d\n"
        "    shlq $4, %r11\n"
        "    leaq boundary_bindings(%rip), %rax\n"
        "    movq (%rax,%r11), %r11\n"
        "    movq -64(%rbp), %rax\n"
        "    call *%r11\n"
        "    movq %rax, -16(%rbp)\n"
        "    movq %rdx, -24(%rbp)\n"
        "    movdqu %xmm0, -96(%rbp)\n"
        "    movdqu %xmm1, -112(%rbp)\n"
        "    movl -8(%rbp), %edi\n"
        "    movq %rax, %rsi\n"
        "    call boundary_trampoline_exit\n"
        "    movq -16(%rbp), %rax\n"
        "    movq -24(%rbp), %rdx\n"
        "    movdqu -96(%rbp), %xmm0\n"
        "    movdqu -112(%rbp), %xmm1\n"
        "    leave\n"
        "    .cfi_def_cfa %rsp, 8\n"
        "    ret\n"
        "    .cfi_endproc\n"
        "    .size boundary_trampoline, . - boundary_trampoline\n"
        "    .globl boundary_trampolines_end\n"
        "    .hidden boundary_trampolines_end\n"
        "boundary_trampolines_end:\n"
        ".popsection\n");

/* The audit module's la_symbind64: the address the program's GOT gets for `function`, the
   function of the code under test named `name` (the string stays: the object's own). A stub of
   its own; the function itself once every stub is taken (its calls are then not followed). */
LF_TEXT LF_EXPORT uintptr_t libfail_boundary_bind(uintptr_t function, const char *name)
{
    /* One stub a function: the program's GOT slots for it, lazily bound or bound at load. */
    uint32_t taken = atomic_load(&bindings_taken);
    for (uint32_t i = 0; i < taken && i < BOUNDARY_BINDINGS; i++)
        if (boundary_bindings[i].function == function)
            return (uintptr_t)boundary_stubs + 16 * (uintptr_t)i;
    if (taken >= BOUNDARY_BINDINGS)
        return function;
    uint32_t index = atomic_fetch_add(&bindings_taken, 1);
    if (index >= BOUNDARY_BINDINGS)
        return function;
    boundary_bindings[index] = (struct boundary_binding){function, name};
    return (uintptr_t)boundary_stubs + 16 * (uintptr_t)index;
}

/* Before the call: `stack` is the slot of its return address (the caller's stack as the call
   left it). */
LF_TEXT void boundary_trampoline_enter(uintptr_t stack)
{
    int saved_errno = errno; /* the function sees the errno its caller left */
    stack_skip_loader();
    /* Open calls whose frames this call's stack reuses were left by longjmp. */
    while (depth > 0 && depth <= BOUNDARY_DEPTH && stack >= open_calls[depth - 1].stack)
        depth--;
    if (depth < BOUNDARY_DEPTH)
        open_calls[depth] =
            (struct open_call){stack, *(const uintptr_t *)stack, runtime_thread_faults()};
    depth++;
    errno = saved_errno;
}

/* After it: binding `index` returned `value`. */
LF_TEXT void boundary_trampoline_exit(uint32_t index, uint64_t value)
{
    int saved_errno = errno;
    if (depth == 0 || --depth >= BOUNDARY_DEPTH) {
        errno = saved_errno;
        return;
    }
    const char *name = boundary_bindings[index].name;
    uintptr_t function = boundary_bindings[index].function;
    const struct open_call *call = &open_calls[depth];
    uint64_t classes = boundary_classes(value);
    /* A start's or a test case's fork child fails a site: what its calls return teaches nothing
       (runtime_learns_conventions), and it spares the table's pages and a record per call. */
    struct boundary_call *entry =
        runtime_learns_conventions() ? call_entry(function, call->caller) : NULL;
    if (entry) {
        uint64_t before = atomic_fetch_or(&entry->classes, classes);
        if ((before | classes) != before)
            runtime_boundary(0, name, function, call->caller, value, before | classes);
    }
    uint32_t faults = runtime_thread_faults();
    if (faults != call->faults && faults != told_faults) {
        told_faults = faults;
        runtime_boundary(RECORD_FLAG_BOUNDARY_FAULTED, name, function, call->caller, value,
                         (uint64_t)(unsigned)saved_errno);
    }
    errno = saved_errno;
}

/* Forget the classes of one part's entries; an entry with none is not written (nor its page
   copied). */
static void LF_TEXT reset_part(struct boundary_call *part, uint32_t count)
{
    for (uint32_t i = 0; i < count; i++)
        if (atomic_load_explicit(&part[i].classes, memory_order_relaxed))
            atomic_store(&part[i].classes, 0);
}

void LF_TEXT boundary_reset_after_fork(void)
{
    /* The child writes its own record file: it tells its classes again. */
    if (atomic_load_explicit(&near_used, memory_order_relaxed))
        reset_part(near_calls, BOUNDARY_NEAR);
    if (atomic_load_explicit(&far_used, memory_order_relaxed))
        reset_part(far_calls, BOUNDARY_FAR);
}
