/*
 * trapping.c — a program that does what can break a trap of every system call (syscall user
 * dispatch, failrun kernel): tests/integration/test_kernel.sh runs it with and without
 * libfail-kernel.so and compares.
 *
 *   trapping masks     blocks every signal (SIGSYS too) and makes calls, asks which are
 *                      blocked, sets and reads an alternate signal stack, ignores SIGSYS and
 *                      asks again, handles a signal on the alternate stack
 *   trapping handler   installs a SIGSYS handler of its own, then writes
 *   trapping seccomp   installs a seccomp filter (that allows everything), then writes
 *   trapping traced    forks a child that asks to be traced (PTRACE_TRACEME), stops itself and
 *                      makes calls; the parent, its tracer, prints every stop signal it sees
 *   trapping cleared   clone3 with CLONE_CLEAR_SIGHAND: the child, whose handlers are reset,
 *                      makes calls and exits 0; the parent prints how it ended
 *
 * Each prints what it saw, one line per fact, and exits 0.
 */
#include <linux/filter.h>
#include <linux/sched.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stdint.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef CLONE_CLEAR_SIGHAND
#define CLONE_CLEAR_SIGHAND 0x100000000ULL
#endif

static volatile sig_atomic_t on_alternate;

static void on_usr1(int signo)
{
    (void)signo;
    stack_t now;
    on_alternate = sigaltstack(NULL, &now) == 0 && (now.ss_flags & SS_ONSTACK);
    char byte = 'h';
    if (write(STDOUT_FILENO, &byte, 0) != 0) /* a call inside the handler */
        _exit(3);
}

static void on_sigsys(int signo)
{
    (void)signo;
}

static int masks(void)
{
    sigset_t all, now;
    sigfillset(&all);
    sigprocmask(SIG_BLOCK, &all, NULL);
    printf("all blocked: pid %s\n", getpid() > 0 ? "known" : "unknown");
    sigprocmask(SIG_BLOCK, NULL, &now);
    printf("SIGSYS blocked: %s, SIGUSR2 blocked: %s\n", sigismember(&now, SIGSYS) ? "yes" : "no",
           sigismember(&now, SIGUSR2) ? "yes" : "no");
    sigprocmask(SIG_UNBLOCK, &all, NULL);
    sigprocmask(SIG_BLOCK, NULL, &now);
    printf("after unblocking, SIGSYS blocked: %s\n", sigismember(&now, SIGSYS) ? "yes" : "no");

    static char stack_memory[1 << 16];
    stack_t alternate = {.ss_sp = stack_memory, .ss_size = sizeof stack_memory}, read_back;
    int set = sigaltstack(&alternate, NULL);
    sigaltstack(NULL, &read_back);
    printf("sigaltstack: set %d, ours %s\n", set, read_back.ss_sp == stack_memory ? "yes" : "no");
    struct sigaction action = {.sa_handler = on_usr1, .sa_flags = SA_ONSTACK};
    sigfillset(&action.sa_mask); /* SIGSYS too, while the handler runs */
    sigaction(SIGUSR1, &action, NULL);
    raise(SIGUSR1);
    printf("handler ran on the alternate stack: %s\n", on_alternate ? "yes" : "no");

    signal(SIGSYS, SIG_IGN);
    struct sigaction current;
    sigaction(SIGSYS, NULL, &current);
    printf("SIGSYS ignored: %s\n", current.sa_handler == SIG_IGN ? "yes" : "no");
    signal(SIGSYS, SIG_DFL);
    sigaction(SIGSYS, NULL, &current);
    printf("SIGSYS default: %s\n", current.sa_handler == SIG_DFL ? "yes" : "no");
    return 0;
}

static int handler(void)
{
    signal(SIGSYS, on_sigsys);
    printf("own SIGSYS handler installed\n");
    fflush(stdout);
    if (write(STDOUT_FILENO, "written after it\n", 17) != 17)
        return 1;
    return 0;
}

static int filter(void)
{
    struct sock_filter allow[] = {BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)};
    struct sock_fprog program = {.len = 1, .filter = allow};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
        prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program) != 0) {
        perror("trapping: seccomp");
        return 1;
    }
    printf("seccomp filter installed\n");
    fflush(stdout);
    if (write(STDOUT_FILENO, "written after it\n", 17) != 17)
        return 1;
    return 0;
}

/* A tracer sees a stop for every signal its tracee gets: only the SIGSTOP the child sends itself
   is expected, never a SIGSYS of a trap. */
static int traced(void)
{
    pid_t child = fork();
    if (child < 0)
        return 1;
    if (child == 0) {
        if (ptrace(PTRACE_TRACEME, 0, NULL, NULL) != 0)
            _exit(2);
        raise(SIGSTOP);
        if (getppid() <= 0 || write(STDOUT_FILENO, "", 0) != 0)
            _exit(3);
        _exit(0);
    }
    int status, stops = 0;
    while (waitpid(child, &status, 0) == child && WIFSTOPPED(status)) {
        int signo = WSTOPSIG(status);
        printf("tracee stopped by signal %d\n", signo);
        if (++stops == 20) { /* a tracer that keeps being stopped: enough said */
            kill(child, SIGKILL);
            waitpid(child, &status, 0);
            break;
        }
        /* As debuggers do: the signal goes on to the tracee, but the stop it asked for. */
        if (ptrace(PTRACE_CONT, child, NULL, (void *)(intptr_t)(signo == SIGSTOP ? 0 : signo)) != 0)
            return 1;
    }
    printf("tracee %s %d\n", WIFEXITED(status) ? "exited" : "killed by signal",
           WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
    return 0;
}

/* A child whose signal handlers are reset (SIGSYS's too) still runs and exits as it means to. */
static int cleared(void)
{
    struct clone_args args;
    memset(&args, 0, sizeof args);
    args.flags = CLONE_CLEAR_SIGHAND;
    args.exit_signal = SIGCHLD;
    long child = syscall(SYS_clone3, &args, sizeof args);
    if (child < 0) {
        printf("clone3 unsupported\n");
        return 0;
    }
    if (child == 0) {
        if (getppid() <= 0 || write(STDOUT_FILENO, "", 0) != 0)
            _exit(3);
        _exit(0);
    }
    int status;
    if (waitpid((pid_t)child, &status, 0) != child)
        return 1;
    printf("child %s %d\n", WIFEXITED(status) ? "exited" : "killed by signal",
           WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
    return 0;
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc == 2 && !strcmp(argv[1], "masks"))
        return masks();
    if (argc == 2 && !strcmp(argv[1], "handler"))
        return handler();
    if (argc == 2 && !strcmp(argv[1], "seccomp"))
        return filter();
    if (argc == 2 && !strcmp(argv[1], "traced"))
        return traced();
    if (argc == 2 && !strcmp(argv[1], "cleared"))
        return cleared();
    fprintf(stderr, "usage: trapping masks|handler|seccomp|traced|cleared\n");
    return 2;
}
