/*
 * dispatch.c — every system call of the program a site, for `failrun kernel`: Linux's syscall
 * user dispatch (prctl PR_SET_SYSCALL_USER_DISPATCH, Linux 5.11+, x86_64 here) raises SIGSYS
 * for each system call a thread makes outside our own code while its selector byte says BLOCK.
 * The handler names the site (the call's number and its stack, unwound from the signal context
 * through libc into the program), arms the thread's fail-nth when the plan says so, makes the
 * call itself from a trampoline of ours with the trapped registers, reads fail-nth back, puts
 * the result in the context's rax and resumes the program.
 *
 * The selector (runtime_syscall_selector, per thread) is BLOCK while the program runs and ALLOW
 * while the handler and our own code do (own_syscalls_begin), so our system calls are never
 * trapped; one made under a runtime_guard of 1 is passed through as libfail's, not a site (an
 * interposer's real function runs under RUNTIME_GUARD_REAL_CALL: its brk is the program's). The
 * kernel lets
 * through every call made from libfail_text (the allowed range), which holds the trampolines:
 * the signal restorer that returns from the handler, the call itself, and the rt_sigreturn that
 * ends the program's own signal handlers (glibc's restorer lies outside the range: trapped).
 *
 * What the kernel does not do for us, done here:
 * - a new task starts with dispatch off: a fork child continues in this handler and turns it on
 *   again; a thread starts in the clone trampoline on its new stack, turns it on for itself
 *   (its own TLS selector) and jumps to where the program's clone would have returned; a child
 *   that shares our memory without its own TLS (posix_spawn's, vfork's) runs untrapped until
 *   it executes its program, whose own copy of this library starts over. A vfork child runs on
 *   the stack under our handler's frames: the vfork trampoline keeps a copy of them and puts
 *   it back when the parent resumes (the child has executed or exited by then);
 * - a SIGSYS the kernel forces while SIGSYS is blocked kills the process, so the program never
 *   really blocks it: the masks it sets (sigprocmask, sigaction, sigsuspend, ppoll, pselect,
 *   epoll_pwait) lose SIGSYS, and what it reads back shows what it asked for;
 * - the signal mask and the alternate stack are restored from the signal frame when the
 *   handler returns: a call that changed them has its change copied into the frame;
 * - a program that installs its own SIGSYS handler, a seccomp filter or syscall user dispatch,
 *   or asks to be traced (PTRACE_TRACEME: its tracer would be stopped by every trap's SIGSYS),
 *   gets a message, and from then on the wrappers of kernel.c (the fallback); SIG_DFL and
 *   SIG_IGN for SIGSYS are only remembered, as what the program sees;
 * - a child of clone3 with CLONE_CLEAR_SIGHAND has no handler for SIGSYS: it uses the wrappers,
 *   without a message;
 * - execve, exit and rt_sigreturn are no sites: fail-nth outlives exec, and exit never returns
 *   to read it back.
 *
 * Runs inside the target: no malloc, signals blocked in the handler except while the program's
 * call runs (with its own mask, so a blocking call still sees its signals).
 */
#include "kernel.h"

#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#if defined(__x86_64__)

#include <linux/prctl.h>
#include <sched.h>

#ifndef CLONE_CLEAR_SIGHAND
#define CLONE_CLEAR_SIGHAND 0x100000000ULL
#endif
#ifndef SYS_USER_DISPATCH
#define SYS_USER_DISPATCH 2
#endif
#define SELECTOR_ALLOW 0
#define SELECTOR_BLOCK 1
#define KERNEL_SA_RESTORER 0x04000000ul
#define SIGSYS_BIT (1ull << (SIGSYS - 1))

enum { DISPATCH_OFF, DISPATCH_ON, DISPATCH_ABANDONED };
static _Atomic int dispatch_state;

/* The kernel's struct sigaction on x86_64 (rt_sigaction's). */
struct kernel_sigaction {
    void *handler;
    unsigned long flags;
    void (*restorer)(void);
    uint64_t mask;
};

/* clone3's argument block (Linux 5.5 and later). */
struct clone3_args {
    uint64_t flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls, set_tid,
        set_tid_size, cgroup;
};

/* What a thread started by the clone trampoline needs: the program's registers at its clone
   call (the kernel gives the child the same), where to continue, and whether to trap its calls.
   Written just below the child's stack pointer; the offsets are the trampoline's. */
struct dispatch_child {
    uint64_t rip, rsp, rdi, rsi, rdx, r10, r8, r9, rbx, rbp, r12, r13, r14, r15;
    uint64_t trap;
};
_Static_assert(offsetof(struct dispatch_child, rdi) == 16 &&
                   offsetof(struct dispatch_child, r15) == 104 &&
                   offsetof(struct dispatch_child, trap) == 112,
               "the clone trampoline reads these offsets");

/* vfork, and clone sharing memory and stack: the child block, the call, and room for the stack
   from the trampoline's frame up to the program's stack pointer, which the child overwrites. */
#define VFORK_SAVE_BYTES 32768
struct vfork_area {
    struct dispatch_child child;
    uint64_t number, arguments[5];
    uint64_t high; /* the program's stack pointer: the top of what is saved */
    uint8_t save[VFORK_SAVE_BYTES];
};
_Static_assert(offsetof(struct vfork_area, number) == 120 &&
                   offsetof(struct vfork_area, arguments) == 128 &&
                   offsetof(struct vfork_area, high) == 168 &&
                   offsetof(struct vfork_area, save) == 176,
               "the vfork trampoline reads these offsets");
static struct vfork_area vfork_area;
static _Atomic bool vfork_area_busy;

/* SIGSYS as the program sees it: what it last set (or what was there when we started). */
static struct kernel_sigaction program_sigsys;
/* The program asked to block SIGSYS on this thread (it stays unblocked: see the top). */
static __thread bool program_blocks_sigsys __attribute__((tls_model("initial-exec")));

extern char __start_libfail_text[] LF_HIDDEN;
extern char __stop_libfail_text[] LF_HIDDEN;

long lf_dispatch_syscall(long number, long a1, long a2, long a3, long a4, long a5,
                         long a6) LF_HIDDEN;
long lf_dispatch_clone(long number, long a1, long a2, long a3, long a4, long a5,
                       struct dispatch_child *child) LF_HIDDEN;
long lf_dispatch_vfork(struct vfork_area *area) LF_HIDDEN;
void lf_dispatch_restorer(void) LF_HIDDEN;
void lf_dispatch_sigreturn(uintptr_t stack) LF_HIDDEN __attribute__((noreturn));
void lf_dispatch_child_start(struct dispatch_child *child) LF_HIDDEN;

/* A child's way into the program: the registers of the dispatch_child at r11, its stack, and a
   jump to where the program's call returns, with rax 0 (rcx and r11 are the kernel's to
   clobber). */
#define CONTINUE_AS_PROGRAM                                                                        \
    "  movq 16(%r11), %rdi\n"                                                                      \
    "  movq 24(%r11), %rsi\n"                                                                      \
    "  movq 32(%r11), %rdx\n"                                                                      \
    "  movq 40(%r11), %r10\n"                                                                      \
    "  movq 48(%r11), %r8\n"                                                                       \
    "  movq 56(%r11), %r9\n"                                                                       \
    "  movq 64(%r11), %rbx\n"                                                                      \
    "  movq 72(%r11), %rbp\n"                                                                      \
    "  movq 80(%r11), %r12\n"                                                                      \
    "  movq 88(%r11), %r13\n"                                                                      \
    "  movq 96(%r11), %r14\n"                                                                      \
    "  movq 104(%r11), %r15\n"                                                                     \
    "  movq 8(%r11), %rsp\n"                                                                       \
    "  movq 0(%r11), %rcx\n"                                                                       \
    "  xorl %eax, %eax\n"                                                                          \
    "  jmp *%rcx\n"

/* The trampolines, in libfail_text: the kernel never traps a call made from there. */
__asm__(".pushsection libfail_text,\"ax\",@progbits\n"
        /* long lf_dispatch_syscall(number, a1..a6): the call, as syscall(2) makes it. */
        ".p2align 4\n"
        ".hidden lf_dispatch_syscall\n"
        ".type lf_dispatch_syscall,@function\n"
        "lf_dispatch_syscall:\n"
        ".cfi_startproc\n"
        "  movq %rdi, %rax\n"
        "  movq %rsi, %rdi\n"
        "  movq %rdx, %rsi\n"
        "  movq %rcx, %rdx\n"
        "  movq %r8, %r10\n"
        "  movq %r9, %r8\n"
        "  movq 8(%rsp), %r9\n"
        "  syscall\n"
        "  ret\n"
        ".cfi_endproc\n"
        ".size lf_dispatch_syscall, .-lf_dispatch_syscall\n"
        /* long lf_dispatch_clone(number, a1..a5, child): clone or clone3 with a new stack. The
           child wakes here on that stack with rax 0: it calls lf_dispatch_child_start below
           the block, takes the program's registers from it and jumps to where the program's
           own clone would have returned (rcx and r11 are the kernel's to clobber). */
        ".p2align 4\n"
        ".hidden lf_dispatch_clone\n"
        ".type lf_dispatch_clone,@function\n"
        "lf_dispatch_clone:\n"
        ".cfi_startproc\n"
        "  pushq %r12\n"
        ".cfi_adjust_cfa_offset 8\n"
        ".cfi_rel_offset %r12, 0\n"
        "  movq 16(%rsp), %r12\n"
        "  movq %rdi, %rax\n"
        "  movq %rsi, %rdi\n"
        "  movq %rdx, %rsi\n"
        "  movq %rcx, %rdx\n"
        "  movq %r8, %r10\n"
        "  movq %r9, %r8\n"
        "  syscall\n"
        "  testq %rax, %rax\n"
        "  jz 1f\n"
        "  popq %r12\n"
        ".cfi_adjust_cfa_offset -8\n"
        ".cfi_restore %r12\n"
        "  ret\n"
        "1:\n"
        ".cfi_undefined %rip\n"
        "  movq %r12, %rsp\n"
        "  andq $-16, %rsp\n"
        "  movq %r12, %rdi\n"
        "  call lf_dispatch_child_start\n"
        "  movq %r12, %r11\n"
        CONTINUE_AS_PROGRAM
        ".cfi_endproc\n"
        ".size lf_dispatch_clone, .-lf_dispatch_clone\n"
        /* long lf_dispatch_vfork(area): the call of `area` (vfork, or clone with CLONE_VM and
           no stack). The child runs on the program's stack, below which our frames lie: save
           them first; the parent, resumed once the child has executed or exited, puts them
           back before it touches its stack. The child goes straight to the program (rax 0),
           untrapped. */
        ".p2align 4\n"
        ".hidden lf_dispatch_vfork\n"
        ".type lf_dispatch_vfork,@function\n"
        "lf_dispatch_vfork:\n"
        ".cfi_startproc\n"
        "  pushq %rbx\n"
        ".cfi_adjust_cfa_offset 8\n"
        ".cfi_rel_offset %rbx, 0\n"
        "  pushq %r12\n"
        ".cfi_adjust_cfa_offset 8\n"
        ".cfi_rel_offset %r12, 0\n"
        "  movq %rdi, %r12\n"
        "  movq %rsp, %rbx\n"
        "  leaq 176(%r12), %rdi\n"
        "  movq %rsp, %rsi\n"
        "  movq 168(%r12), %rcx\n"
        "  subq %rsp, %rcx\n"
        "  rep movsb\n"
        "  movq 120(%r12), %rax\n"
        "  movq 128(%r12), %rdi\n"
        "  movq 136(%r12), %rsi\n"
        "  movq 144(%r12), %rdx\n"
        "  movq 152(%r12), %r10\n"
        "  movq 160(%r12), %r8\n"
        "  syscall\n"
        "  testq %rax, %rax\n"
        "  jz 2f\n"
        "  movq %rbx, %rdi\n"
        "  leaq 176(%r12), %rsi\n"
        "  movq 168(%r12), %rcx\n"
        "  subq %rbx, %rcx\n"
        "  rep movsb\n"
        "  movq %rbx, %rsp\n"
        "  popq %r12\n"
        ".cfi_adjust_cfa_offset -8\n"
        ".cfi_restore %r12\n"
        "  popq %rbx\n"
        ".cfi_adjust_cfa_offset -8\n"
        ".cfi_restore %rbx\n"
        "  ret\n"
        "2:\n"
        ".cfi_undefined %rip\n"
        "  movq %r12, %r11\n"
        CONTINUE_AS_PROGRAM
        ".cfi_endproc\n"
        ".size lf_dispatch_vfork, .-lf_dispatch_vfork\n"
        /* The handler's return: rt_sigreturn, in the bytes of glibc's __restore_rt, which
           unwinders recognise as a signal frame. */
        ".p2align 4\n"
        ".hidden lf_dispatch_restorer\n"
        ".type lf_dispatch_restorer,@function\n"
        "lf_dispatch_restorer:\n"
        "  movq $15, %rax\n"
        "  syscall\n"
        "  hlt\n"
        ".size lf_dispatch_restorer, .-lf_dispatch_restorer\n"
        /* void lf_dispatch_sigreturn(stack): the program's own rt_sigreturn, trapped, made from
           here on the stack it was made on (rsp just past the frame's return address). */
        ".p2align 4\n"
        ".hidden lf_dispatch_sigreturn\n"
        ".type lf_dispatch_sigreturn,@function\n"
        "lf_dispatch_sigreturn:\n"
        "  movq %rdi, %rsp\n"
        "  movq $15, %rax\n"
        "  syscall\n"
        "  hlt\n"
        ".size lf_dispatch_sigreturn, .-lf_dispatch_sigreturn\n"
        ".popsection\n");

/* ---- turning it on and off ---- */

/* Trap this thread's calls from now on (the caller sets the selector to BLOCK when it leaves our
   code). False when the kernel cannot. */
static bool LF_TEXT enable_thread(void)
{
    runtime_syscall_selector = SELECTOR_ALLOW;
    long length = (long)(__stop_libfail_text - __start_libfail_text);
    return lf_dispatch_syscall(SYS_prctl, PR_SET_SYSCALL_USER_DISPATCH, PR_SYS_DISPATCH_ON,
                               (long)__start_libfail_text, length,
                               (long)&runtime_syscall_selector, 0) == 0;
}

static void LF_TEXT disable_thread(void)
{
    lf_dispatch_syscall(SYS_prctl, PR_SET_SYSCALL_USER_DISPATCH, PR_SYS_DISPATCH_OFF, 0, 0, 0, 0);
}

static size_t LF_TEXT append(char *out, size_t used, size_t size, const char *text)
{
    size_t length = strlen(text);
    if (used + length >= size)
        length = size - used - 1;
    memcpy(out + used, text, length);
    return used + length;
}

/* One line on standard error: why this program's system calls are no longer all trapped. */
static void LF_TEXT say_fallback(const char *why)
{
    char text[512];
    size_t used = append(text, 0, sizeof text, "libfail-kernel: ");
    used = append(text, used, sizeof text, why);
    used = append(text, used, sizeof text,
                  "; failrun kernel fails system calls in this process only at the libc "
                  "wrappers it knows (open, openat, read, write, pipe, pipe2, socket, "
                  "socketpair, epoll_create1, eventfd, mmap, fork), as with --wrappers\n");
    lf_dispatch_syscall(SYS_write, 2, (long)text, (long)used, 0, 0, 0);
}

/* The program takes over what we use: say so once, stop trapping on this thread (the others
   stop at their next trapped call), and let the wrappers work. */
static void LF_TEXT abandon(const char *why)
{
    int expected = DISPATCH_ON;
    if (atomic_compare_exchange_strong(&dispatch_state, &expected, DISPATCH_ABANDONED))
        say_fallback(why);
    disable_thread();
}

bool LF_TEXT dispatch_active(void)
{
    return atomic_load_explicit(&dispatch_state, memory_order_relaxed) == DISPATCH_ON;
}

/* ---- making the call ---- */

static long LF_TEXT set_mask(const uint64_t *mask, uint64_t *old)
{
    return lf_dispatch_syscall(SYS_rt_sigprocmask, SIG_SETMASK, (long)mask, (long)old,
                               sizeof *mask, 0, 0);
}

/* Everything but the signals a fault of our own raises (they must reach the fatal handler). */
static uint64_t LF_TEXT handler_mask(void)
{
    uint64_t mask = ~0ull;
    static const int synchronous[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP};
    for (size_t i = 0; i < sizeof synchronous / sizeof synchronous[0]; i++)
        mask &= ~(1ull << (synchronous[i] - 1));
    return mask;
}

enum child_kind { CHILD_NONE, CHILD_FORK, CHILD_VFORK };

/* A clone-like call's plan: what to really call, and for a new stack, the child's block. */
struct clone_plan {
    long number;
    long arguments[6];
    struct clone3_args copy;
    uint64_t flags;
    struct dispatch_child *child;
    bool is_clone;     /* clone, clone3, fork or vfork: rax 0 means "in the child" */
    bool vfork;        /* the child will only exec or exit: it runs untrapped */
    bool shared_stack; /* the child runs on our stack (vfork): lf_dispatch_vfork */
};

/* The program's registers at its call, for a child to continue with on `stack`. */
static void LF_TEXT fill_child(struct dispatch_child *child, const ucontext_t *uc, uint64_t stack,
                               bool trap)
{
    const greg_t *regs = uc->uc_mcontext.gregs;
    child->rip = (uint64_t)regs[REG_RIP];
    child->rsp = stack;
    child->rdi = (uint64_t)regs[REG_RDI];
    child->rsi = (uint64_t)regs[REG_RSI];
    child->rdx = (uint64_t)regs[REG_RDX];
    child->r10 = (uint64_t)regs[REG_R10];
    child->r8 = (uint64_t)regs[REG_R8];
    child->r9 = (uint64_t)regs[REG_R9];
    child->rbx = (uint64_t)regs[REG_RBX];
    child->rbp = (uint64_t)regs[REG_RBP];
    child->r12 = (uint64_t)regs[REG_R12];
    child->r13 = (uint64_t)regs[REG_R13];
    child->r14 = (uint64_t)regs[REG_R14];
    child->r15 = (uint64_t)regs[REG_R15];
    child->trap = trap;
}

static void LF_TEXT plan_clone(struct clone_plan *plan, const ucontext_t *uc, long number,
                               const long *a)
{
    memset(plan, 0, sizeof *plan);
    plan->number = number;
    memcpy(plan->arguments, a, sizeof plan->arguments);
    uint64_t stack_top;
    if (number == SYS_fork || number == SYS_vfork) {
        plan->is_clone = true;
        plan->vfork = plan->shared_stack = number == SYS_vfork;
        plan->flags = number == SYS_vfork ? CLONE_VM | CLONE_VFORK | SIGCHLD : SIGCHLD;
        return;
    }
    if (number == SYS_clone) {
        plan->flags = (uint64_t)a[0];
        stack_top = (uint64_t)a[1];
    } else if (number == SYS_clone3 && a[0] && (size_t)a[1] >= 64 &&
               (size_t)a[1] <= sizeof plan->copy) {
        memcpy(&plan->copy, (const void *)a[0], (size_t)a[1]);
        plan->flags = plan->copy.flags;
        stack_top = plan->copy.stack ? plan->copy.stack + plan->copy.stack_size : 0;
    } else {
        return; /* not a clone, or arguments the kernel will refuse: call as it is */
    }
    plan->is_clone = true;
    plan->vfork = (plan->flags & CLONE_VFORK) != 0;
    if (stack_top) {
        /* Only a thread of its own (its TLS, so its own selector) can be trapped. */
        uint64_t thread = CLONE_VM | CLONE_THREAD | CLONE_SETTLS;
        plan->child = (struct dispatch_child *)((stack_top & ~(uint64_t)15) - 256);
        fill_child(plan->child, uc, stack_top,
                   (plan->flags & (thread | CLONE_VFORK)) == thread && dispatch_active());
    } else if ((plan->flags & CLONE_VM) && !(plan->flags & (CLONE_THREAD | CLONE_SIGHAND))) {
        plan->shared_stack = true;
    }
}

/* A call whose child shares our stack, made by lf_dispatch_vfork when the area is free and big
   enough; else as a fork that still waits for the child's exec (without CLONE_VM). */
static long LF_TEXT call_shared_stack(struct clone_plan *plan, const ucontext_t *uc)
{
    uint64_t high = (uint64_t)uc->uc_mcontext.gregs[REG_RSP];
    uint64_t here = (uint64_t)__builtin_frame_address(0);
    bool expected = false;
    if (high > here && high - here + 512 <= VFORK_SAVE_BYTES &&
        atomic_compare_exchange_strong(&vfork_area_busy, &expected, true)) {
        fill_child(&vfork_area.child, uc, high, false);
        vfork_area.number = (uint64_t)plan->number;
        for (int i = 0; i < 5; i++)
            vfork_area.arguments[i] = (uint64_t)plan->arguments[i];
        vfork_area.high = high;
        long result = lf_dispatch_vfork(&vfork_area);
        atomic_store(&vfork_area_busy, false);
        return result;
    }
    uint64_t flags = plan->flags & ~(uint64_t)CLONE_VM;
    if (plan->number == SYS_clone3) {
        plan->copy.flags = flags;
        return lf_dispatch_syscall(SYS_clone3, (long)&plan->copy, plan->arguments[1], 0, 0, 0, 0);
    }
    long tls = plan->number == SYS_clone ? plan->arguments[4] : 0;
    long parent_tid = plan->number == SYS_clone ? plan->arguments[2] : 0;
    long child_tid = plan->number == SYS_clone ? plan->arguments[3] : 0;
    return lf_dispatch_syscall(SYS_clone, (long)flags, 0, parent_tid, child_tid, tls, 0);
}

/* The program's masks never block SIGSYS. `mask` points at a kernel sigset in the program's
   memory (or NULL); returns the pointer to pass: a copy without SIGSYS when it had it. */
static long LF_TEXT without_sigsys(long mask, uint64_t *copy)
{
    if (!mask || !(*(const uint64_t *)mask & SIGSYS_BIT))
        return mask;
    *copy = *(const uint64_t *)mask & ~SIGSYS_BIT;
    return (long)copy;
}

/* The arguments of calls that set a signal mask, with SIGSYS taken out (see the top). */
struct mask_copies {
    uint64_t mask;
    struct kernel_sigaction action;
    struct {
        long mask;
        long size;
    } pselect;
};

static void LF_TEXT strip_sigsys(long number, long *a, struct mask_copies *copies)
{
    switch (number) {
    case SYS_rt_sigprocmask:
        if (a[0] != SIG_UNBLOCK)
            a[1] = without_sigsys(a[1], &copies->mask);
        break;
    case SYS_rt_sigsuspend:
        a[0] = without_sigsys(a[0], &copies->mask);
        break;
    case SYS_ppoll:
        a[3] = without_sigsys(a[3], &copies->mask);
        break;
    case SYS_epoll_pwait:
#ifdef SYS_epoll_pwait2
    case SYS_epoll_pwait2:
#endif
        a[4] = without_sigsys(a[4], &copies->mask);
        break;
    case SYS_pselect6:
        if (a[5]) {
            memcpy(&copies->pselect, (const void *)a[5], sizeof copies->pselect);
            long stripped = without_sigsys(copies->pselect.mask, &copies->mask);
            if (stripped != copies->pselect.mask) {
                copies->pselect.mask = stripped;
                a[5] = (long)&copies->pselect;
            }
        }
        break;
    case SYS_rt_sigaction:
        if (a[1] && (((const struct kernel_sigaction *)a[1])->mask & SIGSYS_BIT)) {
            copies->action = *(const struct kernel_sigaction *)a[1];
            copies->action.mask &= ~SIGSYS_BIT;
            a[1] = (long)&copies->action;
        }
        break;
    }
}

/* After rt_sigprocmask: what the program believes about SIGSYS. */
static void LF_TEXT track_sigsys_block(const long *original, long result)
{
    if (result != 0)
        return;
    bool had = program_blocks_sigsys;
    const uint64_t *set = (const uint64_t *)original[1];
    if (set) {
        bool mentions = (*set & SIGSYS_BIT) != 0;
        if (original[0] == SIG_BLOCK && mentions)
            program_blocks_sigsys = true;
        else if (original[0] == SIG_UNBLOCK && mentions)
            program_blocks_sigsys = false;
        else if (original[0] == SIG_SETMASK)
            program_blocks_sigsys = mentions;
    }
    if (original[2] && had)
        *(uint64_t *)original[2] |= SIGSYS_BIT;
}

/* Make the trapped call from our trampoline with the program's signal mask, and keep what the
   signal frame would undo. *child tells a child process that continues here. */
static long LF_TEXT execute(ucontext_t *uc, long number, const long *a, enum child_kind *child)
{
    struct clone_plan plan;
    plan_clone(&plan, uc, number, a);
    struct mask_copies copies;
    strip_sigsys(number, plan.arguments, &copies);
    const long *b = plan.arguments;
    uint64_t program_mask, full = handler_mask(), after = 0;
    memcpy(&program_mask, &uc->uc_sigmask, sizeof program_mask);
    program_mask &= ~SIGSYS_BIT;
    int saved_guard = runtime_guard;
    runtime_guard = 0; /* the program's signal handlers may run meanwhile: theirs */
    set_mask(&program_mask, NULL);
    runtime_syscall_selector = SELECTOR_BLOCK;
    long result = plan.shared_stack ? call_shared_stack(&plan, uc)
                  : plan.child ? lf_dispatch_clone(plan.number, b[0], b[1], b[2], b[3], b[4], plan.child)
                               : lf_dispatch_syscall(plan.number, b[0], b[1], b[2], b[3], b[4], b[5]);
    runtime_syscall_selector = SELECTOR_ALLOW;
    set_mask(&full, &after);
    runtime_guard = saved_guard;
    *child = plan.is_clone && result == 0 ? plan.vfork ? CHILD_VFORK : CHILD_FORK : CHILD_NONE;
    if (number == SYS_rt_sigprocmask) {
        memcpy(&uc->uc_sigmask, &after, sizeof after); /* the frame's mask is the one to keep */
        track_sigsys_block(a, result);
    }
    if (number == SYS_sigaltstack && result == 0 && a[0]) {
        stack_t now;
        if (lf_dispatch_syscall(SYS_sigaltstack, 0, (long)&now, 0, 0, 0, 0) == 0)
            uc->uc_stack = now;
    }
    return result;
}

/* A thread started by the clone trampoline, on its own stack and TLS, before the program's code. */
void LF_TEXT lf_dispatch_child_start(struct dispatch_child *child)
{
    if (child->trap && enable_thread())
        runtime_syscall_selector = SELECTOR_BLOCK;
}

/* ---- SIGSYS as the program sees it ---- */

/* rt_sigaction(SIGSYS, ...): SIG_DFL and SIG_IGN are remembered (ours stays installed); a
   handler of the program's own ends the trapping. */
static long LF_TEXT program_sigsys_action(const long *a)
{
    if ((size_t)a[3] != sizeof(uint64_t))
        return -EINVAL;
    struct kernel_sigaction previous = program_sigsys;
    const struct kernel_sigaction *action = (const struct kernel_sigaction *)a[1];
    if (action) {
        if (action->handler != (void *)SIG_DFL && action->handler != (void *)SIG_IGN) {
            abandon("the program installs its own SIGSYS handler");
            long result = lf_dispatch_syscall(SYS_rt_sigaction, SIGSYS, (long)action, 0,
                                              sizeof(uint64_t), 0, 0);
            if (result != 0)
                return result;
        }
        program_sigsys = *action;
    }
    if (a[2])
        *(struct kernel_sigaction *)a[2] = previous;
    return 0;
}

/* A SIGSYS we did not cause (kill, a seccomp trap): what the program asked for. */
static void LF_TEXT forward_sigsys(int signo, siginfo_t *info, void *context)
{
    struct kernel_sigaction view = program_sigsys;
    if (view.handler == (void *)SIG_IGN)
        return;
    if (view.handler == (void *)SIG_DFL) {
        /* Die of it: the default action, pending until the handler returns. */
        struct kernel_sigaction fallback = {(void *)SIG_DFL, 0, NULL, 0};
        lf_dispatch_syscall(SYS_rt_sigaction, SIGSYS, (long)&fallback, 0, sizeof(uint64_t), 0, 0);
        lf_dispatch_syscall(SYS_tgkill, getpid(), lf_dispatch_syscall(SYS_gettid, 0, 0, 0, 0, 0, 0),
                            SIGSYS, 0, 0, 0);
        return;
    }
    if (view.flags & SA_SIGINFO)
        ((void (*)(int, siginfo_t *, void *))view.handler)(signo, info, context);
    else
        ((void (*)(int))view.handler)(signo);
}

/* Calls that would take over what we use. */
static const char *LF_TEXT takes_over(long number, const long *a)
{
    if (number == SYS_seccomp && (a[0] == 0 /* STRICT */ || a[0] == 1 /* FILTER */))
        return "the program installs a seccomp filter";
    if (number == SYS_prctl && a[0] == PR_SET_SECCOMP)
        return "the program installs a seccomp filter";
    if (number == SYS_prctl && a[0] == PR_SET_SYSCALL_USER_DISPATCH)
        return "the program uses syscall user dispatch itself";
    if (number == SYS_ptrace && a[0] == 0 /* PTRACE_TRACEME */)
        return "the program asks to be traced (PTRACE_TRACEME), and its tracer would be "
               "stopped by each trapped call's SIGSYS";
    return NULL;
}

/* No sites: exec (fail-nth outlives it), exit (never returns to read fail-nth back). */
static bool LF_TEXT is_site(long number)
{
    return number >= 0 && number < (long)(FUNCTION_SYSCALL_LIMIT - FUNCTION_SYSCALL_FIRST) &&
           number != SYS_execve && number != SYS_execveat && number != SYS_exit &&
           number != SYS_exit_group && number != SYS_restart_syscall;
}

/* ---- the handler ---- */

/* The site of the trapped call; the N to arm when it is the planned one (fd set), else 0. */
static uint64_t LF_TEXT site_of(ucontext_t *uc, long number, struct call *call, int *fd)
{
    *fd = -1;
    call->frame_count = 0;
    call->occurrence = 0;
    if (!is_site(number) || !runtime_kernel_may_be_planned((uintptr_t)uc->uc_mcontext.gregs[REG_RIP]))
        return 0;
    uintptr_t pcs[RECORD_MAX_FRAMES];
    int count = stack_capture_syscall(uc, pcs, RECORD_MAX_FRAMES);
    /* The libc (and loader, vDSO) frames, then `depth` of the program's. */
    int kept = stack_system_frames(pcs, count) + (int)runtime_depth();
    if (count > kept)
        count = kept;
    uint64_t nth = runtime_kernel_site(call, FUNCTION_SYSCALL_FIRST + (uint32_t)number, pcs, count);
    if (nth) {
        *fd = kernel_failnth_fd();
        if (*fd < 0 || !kernel_arm(*fd, nth))
            nth = 0;
    }
    return nth;
}

static void LF_TEXT dispatch_call(ucontext_t *uc, bool own)
{
    greg_t *regs = uc->uc_mcontext.gregs;
    long number = regs[REG_RAX]; /* the kernel rolled the call back: rax is its number again */
    long a[6] = {regs[REG_RDI], regs[REG_RSI], regs[REG_RDX], regs[REG_R10], regs[REG_R8],
                 regs[REG_R9]};
    enum child_kind child;
    if (!dispatch_active()) {
        disable_thread(); /* abandoned by another thread: this one stops too */
        regs[REG_RAX] = execute(uc, number, a, &child);
        return;
    }
    if (own) { /* libfail's own call, made outside a bracket of own_syscalls_begin */
        regs[REG_RAX] = execute(uc, number, a, &child);
        return;
    }
    if (number == SYS_rt_sigaction && a[0] == SIGSYS) {
        regs[REG_RAX] = program_sigsys_action(a);
        return;
    }
    const char *why = takes_over(number, a);
    if (why)
        abandon(why);
    struct call call;
    int fd = -1;
    uint64_t nth = why ? 0 : site_of(uc, number, &call, &fd);
    /* clone3's block is read only when the kernel would take it (as plan_clone). */
    bool clears_handlers = number == SYS_clone3 && a[0] && (size_t)a[1] >= 64 &&
                           (*(const uint64_t *)a[0] & CLONE_CLEAR_SIGHAND);
    long result = execute(uc, number, a, &child);
    if (child != CHILD_NONE) {
        /* A fork child, continuing in this handler: a new task starts with dispatch off. A
           vfork's child only executes a program or exits, and shares its parent's state. One
           whose handlers were reset would die of the next trap: it keeps the wrappers. */
        if (child == CHILD_FORK && clears_handlers)
            atomic_store(&dispatch_state, DISPATCH_ABANDONED);
        else if (child == CHILD_FORK && dispatch_active() && !enable_thread())
            disable_thread();
        regs[REG_RAX] = 0;
        return;
    }
    if (nth)
        kernel_disarm(&call, FUNCTION_SYSCALL_FIRST + (uint32_t)number, nth, fd,
                      result < 0 && result >= -4095, (int)-result);
    regs[REG_RAX] = result;
}

static void LF_TEXT on_sigsys(int signo, siginfo_t *info, void *context)
{
    char entry = runtime_syscall_selector;
    runtime_syscall_selector = SELECTOR_ALLOW;
    int saved_errno = errno;
    int saved_guard = runtime_guard;
    runtime_guard = 1;
    ucontext_t *uc = context;
    if (!info || info->si_code != SYS_USER_DISPATCH) {
        forward_sigsys(signo, info, context);
    } else if (info->si_syscall == SYS_rt_sigreturn) {
        /* The end of one of the program's signal handlers: return from it as it asked. */
        runtime_guard = saved_guard;
        errno = saved_errno;
        runtime_syscall_selector = entry;
        lf_dispatch_sigreturn((uintptr_t)uc->uc_mcontext.gregs[REG_RSP]);
    } else {
        dispatch_call(uc, saved_guard == 1);
    }
    runtime_guard = saved_guard;
    errno = saved_errno;
    runtime_syscall_selector = entry;
}

/* ---- start ---- */

static long LF_TEXT sigsys_action(const struct kernel_sigaction *action,
                                  struct kernel_sigaction *old)
{
    return lf_dispatch_syscall(SYS_rt_sigaction, SIGSYS, (long)action, (long)old,
                               sizeof(uint64_t), 0, 0);
}

void LF_TEXT dispatch_start(void)
{
    char selector = own_syscalls_begin();
    struct kernel_sigaction current;
    if (sigsys_action(NULL, &current) != 0) {
        own_syscalls_end(selector);
        return;
    }
    bool ours = (char *)current.handler >= __start_libfail_text &&
                (char *)current.handler < __stop_libfail_text;
    if (current.handler != (void *)SIG_DFL && current.handler != (void *)SIG_IGN && !ours) {
        say_fallback("a SIGSYS handler was installed before libfail-kernel.so started");
        own_syscalls_end(selector);
        return;
    }
    struct kernel_sigaction handler = {(void *)on_sigsys, SA_SIGINFO | KERNEL_SA_RESTORER,
                                       lf_dispatch_restorer, handler_mask()};
    if (sigsys_action(&handler, NULL) != 0) {
        own_syscalls_end(selector);
        return;
    }
    program_sigsys = current;
    uint64_t sigsys = SIGSYS_BIT, old = 0;
    lf_dispatch_syscall(SYS_rt_sigprocmask, SIG_UNBLOCK, (long)&sigsys, (long)&old, sizeof sigsys,
                        0, 0);
    program_blocks_sigsys = (old & SIGSYS_BIT) != 0;
    atomic_store(&dispatch_state, DISPATCH_ON);
    if (!enable_thread()) {
        atomic_store(&dispatch_state, DISPATCH_OFF);
        sigsys_action(&current, NULL);
        say_fallback("this kernel has no syscall user dispatch (Linux 5.11 or later, "
                     "PR_SET_SYSCALL_USER_DISPATCH)");
        own_syscalls_end(selector);
        return;
    }
    (void)selector;
    runtime_syscall_selector = SELECTOR_BLOCK; /* the program's calls are trapped from here on */
}

#else /* not x86_64: the wrappers only */

void LF_TEXT dispatch_start(void)
{
}

bool LF_TEXT dispatch_active(void)
{
    return false;
}

#endif
