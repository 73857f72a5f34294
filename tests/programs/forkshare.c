/*
 * forkshare.c — state a fork-mode child would share with its parent (tests/integration/
 * test_fork.sh): --fork must end as re-run mode does.
 *   file PATH   reads PATH, opened with fopen (not standard input), a line at a time, keeping a
 *               copy of each; a failed copy silently drops the line (BUG(dropped-line)), so the
 *               count it prints is wrong: a child sharing the parent's open file would read the
 *               parent's lines away
 *   log FD      writes a line per step into FD, a log it was given open for reading and
 *               writing (as a harness gives its tests a log); a failed allocation reads the log
 *               back through the same stream and exits 1 when it holds exactly the steps so
 *               far, 3 when not: a child writing into the parent's file, or given a copy
 *               without the parent's lines, would not end as a re-run does
 *   ownlog PATH the same with a log it opens itself, by name (as curl's memdebug log): a failed
 *               allocation writes "failed" into it and reads it back by name (a new fopen of
 *               PATH), exiting 1 when it holds the steps so far and that line, 3 when not; at
 *               the end the log must hold exactly the four steps (exit 5 when not): a child
 *               must see its own line by name, and the parent must never see it
 *   alarm       arms a 1 s watchdog; a failed allocation waits for it, and the watchdog exits 4
 *               (a clone child does not inherit the timer; the parent's fires while it waits)
 */
#define _POSIX_C_SOURCE 200809L
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void watchdog(int signo)
{
    (void)signo;
    _exit(4);
}

/* Does the file hold exactly "step 0" .. "step N-1", then `last` (NULL: nothing)? */
static int log_holds_steps(const char *path, int steps, const char *last)
{
    FILE *log = fopen(path, "r"); /* by name */
    if (!log)
        return 0;
    char line[64];
    int good = 1, lines = 0;
    while (fgets(line, sizeof line, log)) {
        char want[64];
        if (lines < steps)
            snprintf(want, sizeof want, "step %d\n", lines);
        else
            snprintf(want, sizeof want, "%s\n", lines == steps && last ? last : "(nothing)");
        good = good && !strcmp(line, want);
        lines++;
    }
    fclose(log);
    return good && lines == steps + (last != NULL);
}

static int own_log(const char *path)
{
    FILE *log = fopen(path, "w");
    if (!log)
        return 2;
    for (int step = 0; step < 4; step++) {
        char *block = malloc(40 + 8 * (size_t)step);
        if (!block) {
            fputs("failed\n", log);
            fclose(log);
            fprintf(stderr, "out of memory at step %d\n", step);
            return log_holds_steps(path, step, "failed") ? 1 : 3;
        }
        fprintf(log, "step %d\n", step);
        fflush(log);
        free(block);
    }
    fclose(log);
    int good = log_holds_steps(path, 4, NULL);
    printf("%s\n", good ? "4 steps logged" : "the log holds something else");
    return good ? 0 : 5;
}

int main(int argc, char **argv)
{
    if (argc == 3 && !strcmp(argv[1], "ownlog"))
        return own_log(argv[2]);
    if (argc == 3 && !strcmp(argv[1], "file")) {
        FILE *in = fopen(argv[2], "r");
        if (!in)
            return 2;
        char line[256];
        int kept = 0;
        while (fgets(line, sizeof line, in)) {
            char *copy = strdup(line);
            if (!copy)
                continue; /* BUG(dropped-line): silently loses the line */
            kept++;
            free(copy);
        }
        fclose(in);
        printf("lines=%d\n", kept);
        return 0;
    }
    if (argc == 3 && !strcmp(argv[1], "log")) {
        FILE *log = fdopen(atoi(argv[2]), "w+");
        if (!log)
            return 2;
        static const size_t sizes[] = {24, 48, 96, 192};
        for (int step = 0; step < 4; step++) {
            char *block = step == 0 ? malloc(sizes[0])
                          : step == 1 ? malloc(sizes[1])
                          : step == 2 ? calloc(1, sizes[2])
                                      : malloc(sizes[3]);
            if (!block) {
                rewind(log);
                char line[64];
                int lines = 0, good = 1;
                while (fgets(line, sizeof line, log)) {
                    char want[64];
                    snprintf(want, sizeof want, "step %d\n", lines++);
                    good = good && !strcmp(line, want);
                }
                fprintf(stderr, "out of memory at step %d (log: %d lines)\n", step, lines);
                return good && lines == step ? 1 : 3;
            }
            fprintf(log, "step %d\n", step);
            fflush(log);
            free(block);
        }
        fclose(log);
        puts("4 steps");
        return 0;
    }
    if (argc == 2 && !strcmp(argv[1], "alarm")) {
        signal(SIGALRM, watchdog);
        alarm(1);
        for (int i = 0; i < 3; i++) {
            char *block = malloc(64 + (size_t)i);
            if (!block)
                pause(); /* the watchdog ends it */
            free(block);
        }
        alarm(0);
        puts("done");
        return 0;
    }
    fputs("usage: forkshare file PATH | log FD | ownlog PATH | alarm\n", stderr);
    return 2;
}
