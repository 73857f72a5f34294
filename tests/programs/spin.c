/* spin.c — error legs that spend CPU. One loops forever (a hang that failrun ends by the CPU its
   fault gave the process, not by its clock); one works a fraction of a second and reports the
   error (no hang); one executes a program that loops forever (the limit passes through exec),
   one a system shell that does (out of scope: its handler records no stack), one forks a worker
   that does and aborts when it ends. `spin --loop` is the first program. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;

static void burn(double seconds)
{
    clock_t end = clock() + (clock_t)(seconds * CLOCKS_PER_SEC);
    while (clock() < end)
        sink++;
}

int main(int argc, char **argv)
{
    /* SPIN_PLANS=FILE: each run adds the plan it was given, one line (test_spin.sh reads the
       CPU limit in it). */
    const char *plans = getenv("SPIN_PLANS"), *plan = getenv("LIBFAIL_PLAN");
    int out = plans && plan ? open(plans, O_WRONLY | O_APPEND | O_CREAT, 0644) : -1;
    if (out >= 0) {
        if (write(out, plan, strlen(plan)) < 0 || write(out, "\n", 1) < 0)
            return 9;
        close(out);
    }
    if (argc > 1 && strcmp(argv[1], "--loop") == 0)
        for (;;)
            sink++;
    char *a = malloc(100); /* SPIN(loop) */
    while (!a)
        sink++; /* waits for memory, at full speed */
    char *b = malloc(200); /* SPIN(work) */
    if (!b) {
        burn(0.3);
        fputs("spin: out of memory\n", stderr);
        free(a);
        return 1;
    }
    char *c = malloc(300); /* SPIN(exec) */
    if (!c) {
        execl("/proc/self/exe", argv[0], "--loop", (char *)NULL);
        return 2;
    }
    char *d = malloc(400); /* SPIN(shell) */
    if (!d) {
        execl("/bin/sh", "sh", "-c", "while :; do :; done", (char *)NULL);
        return 3;
    }
    char *e = malloc(500); /* SPIN(child) */
    if (!e) {
        /* A worker that spins, and a parent that gives up on it: the hang is the run's. */
        pid_t worker = fork();
        if (worker == 0)
            for (;;)
                sink++;
        int status;
        waitpid(worker, &status, 0);
        abort();
    }
    puts("spin: ok");
    free(a);
    free(b);
    free(c);
    free(d);
    free(e);
    return 0;
}
