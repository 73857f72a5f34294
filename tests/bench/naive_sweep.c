/* naive_sweep.c — drives the naive fail-the-N-th-call sweep of tests/bench/campaigns.sh: runs
   COMMAND under naive_nth.so with NAIVE_NTH = 1, 2, 3, ... until a run in which call N never
   comes (naive_nth.so created no marker), or MAX_RUNS runs. Writes "RUNS COMPLETE" to RESULT
   (COMPLETE 1: the sweep reached its end; 0: cut at MAX_RUNS).
   A driver in C rather than a shell loop, so that the sweep's CPU is the program's runs and not a
   shell forking for each: the yardstick must not be padded. Each run gets the driver's standard
   input rewound to its start (when it is a file), its output goes to /dev/null (nothing is
   judged), and it is killed after TIMEOUT seconds.
   usage: naive_sweep PRELOAD MAX_RUNS TIMEOUT RESULT -- COMMAND [ARGS...] */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile sig_atomic_t timed_out;

static void on_alarm(int signal_number)
{
    (void)signal_number;
    timed_out = 1;
}

/* One run failing call `nth`; the program's exit status does not matter. */
static void run_once(char **command, unsigned long nth, unsigned timeout)
{
    char value[32];
    snprintf(value, sizeof value, "%lu", nth);
    if (lseek(0, 0, SEEK_SET) < 0 && errno != ESPIPE) {
        /* not a file: nothing to rewind */
    }
    pid_t pid = fork();
    if (pid == 0) {
        setenv("NAIVE_NTH", value, 1);
        int null = open("/dev/null", O_WRONLY);
        dup2(null, 1);
        dup2(null, 2);
        execvp(command[0], command);
        _exit(127);
    }
    if (pid < 0) {
        perror("naive_sweep: fork");
        exit(2);
    }
    timed_out = 0;
    alarm(timeout);
    int status;
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR)
            return;
        if (timed_out)
            kill(pid, SIGKILL);
    }
    alarm(0);
}

int main(int argc, char **argv)
{
    if (argc < 7 || strcmp(argv[5], "--") != 0) {
        fputs("usage: naive_sweep PRELOAD MAX_RUNS TIMEOUT RESULT -- COMMAND [ARGS...]\n", stderr);
        return 2;
    }
    unsigned long max_runs = strtoul(argv[2], NULL, 10);
    unsigned timeout = (unsigned)strtoul(argv[3], NULL, 10);
    char marker[4096];
    snprintf(marker, sizeof marker, "%s.marker", argv[4]);
    setenv("LD_PRELOAD", argv[1], 1);
    setenv("NAIVE_NTH_MARKER", marker, 1);
    struct sigaction alarm_action = {.sa_handler = on_alarm}; /* no SA_RESTART: waitpid returns */
    sigaction(SIGALRM, &alarm_action, NULL);

    unsigned long runs = 0;
    int complete = 0;
    while (runs < max_runs && !complete) {
        unlink(marker);
        run_once(argv + 6, ++runs, timeout);
        complete = access(marker, F_OK) != 0; /* call N never came */
    }
    unlink(marker);
    FILE *result = fopen(argv[4], "w");
    if (!result || fprintf(result, "%lu %d\n", runs, complete) < 0 || fclose(result) != 0) {
        perror(argv[4]);
        return 2;
    }
    return 0;
}
