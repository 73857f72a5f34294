/* chainorder.c — two sites whose error legs reach one new allocation, `report`, through the same
   functions (so one exploration key): only one of them may get the chain that fails it, and it
   must be the same one however -j orders the runs. The first site's error leg is slow, so with
   -j2 its run finishes after the second's. Each failure is absorbed (exit 0): chains follow. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static void report(const char *what)
{
    char *message = malloc(64); /* reached only on error legs */
    if (!message)
        return;
    snprintf(message, 64, "chainorder: no memory for %s\n", what);
    fputs(message, stderr);
    free(message);
}

static int load(void)
{
    char *first = malloc(100);
    if (!first) {
        usleep(400 * 1000);
        report("the first buffer");
        return -1;
    }
    char *second = malloc(200);
    if (!second) {
        report("the second buffer");
        free(first);
        return -1;
    }
    free(first);
    free(second);
    return 0;
}

int main(void)
{
    load(); /* a failure is reported and survived */
    puts("done");
    return 0;
}
