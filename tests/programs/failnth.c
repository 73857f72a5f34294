/*
 * failnth.c — the kernel's fail-nth rules, as libfail's userspace counter follows them (see
 * tests/integration/test_failnth.sh). Linked with libfail.so, run without failrun. Each mode
 * prints what it observed, one fact per line:
 *   start            the counter at main's start, then which of 3 allocations failed
 *   exec N           arm N, allocate once, exec `start` (execl): the counter survives exec
 *   execvp N         the same through execvp, which finds the program on PATH
 *   fork N           arm N, fork: the child reads 0 and none of its allocations fail
 *   spawn N          arm N, posix_spawn `start`: a new process starts at 0
 *   vfork N          arm N, vfork and exec `start`: a vfork child is a new task too
 *   environment      after LIBFAIL_FAIL_NTH armed us, is it still in the environment?
 */
#define _DEFAULT_SOURCE /* vfork */
#include <libfail.h>

#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static void report_allocations(const char *who)
{
    for (int i = 1; i <= 3; i++) {
        void *block = malloc(16);
        printf("%s: allocation %d %s\n", who, i, block ? "ok" : "failed");
        free(block);
    }
}

int main(int argc, char **argv)
{
    unsigned long at_start = lf_fail_nth_get(); /* before anything here allocates */
    const char *mode = argc > 1 ? argv[1] : "start";
    unsigned long n = argc > 2 ? strtoul(argv[2], NULL, 10) : 0;
    setvbuf(stdout, NULL, _IONBF, 0); /* no stdio buffer allocation to count */
    if (!strcmp(mode, "start")) {
        printf("start: counter %lu\n", at_start);
        report_allocations("start");
        return 0;
    }
    if (!strcmp(mode, "environment")) {
        printf("environment: LIBFAIL_FAIL_NTH %s\n", getenv("LIBFAIL_FAIL_NTH") ? "set" : "unset");
        return 0;
    }
    lf_fail_nth_set(n);
    free(malloc(8)); /* counts one */
    if (!strcmp(mode, "exec")) {
        execl("/proc/self/exe", "failnth", "start", (char *)NULL);
        perror("execl");
        return 2;
    }
    if (!strcmp(mode, "execvp")) {
        char *const args[] = {"failnth", "start", NULL};
        execvp("failnth", args);
        perror("execvp");
        return 2;
    }
    if (!strcmp(mode, "fork")) {
        pid_t child = fork();
        if (child == 0) {
            printf("child: counter %lu\n", lf_fail_nth_get());
            report_allocations("child");
            _exit(0);
        }
        int status;
        waitpid(child, &status, 0);
        printf("parent: counter %lu\n", lf_fail_nth_get());
        return 0;
    }
    if (!strcmp(mode, "vfork")) {
        pid_t child = vfork();
        if (child == 0) {
            execl("/proc/self/exe", "failnth", "start", (char *)NULL);
            _exit(2);
        }
        int status;
        waitpid(child, &status, 0);
        printf("parent: counter %lu\n", lf_fail_nth_get());
        return 0;
    }
    if (!strcmp(mode, "spawn")) {
        char *const args[] = {"failnth", "start", NULL};
        pid_t child;
        if (posix_spawn(&child, "/proc/self/exe", NULL, NULL, args, environ) != 0)
            return 2;
        int status;
        waitpid(child, &status, 0);
        return 0;
    }
    return 2;
}
