/* chainorder.c — two sites whose failures reach one new allocation site, `report`'s, through one
   error leg: only the run that is concluded first sees it as new and gets the chain that fails
   it, and that must be the same run however -j orders them. The first site's error leg is slow, so with
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
    char *second = first ? malloc(200) : NULL;
    if (!first || !second) { /* one error leg, one call of report: one site for both failures */
        if (!first)
            usleep(400 * 1000);
        report(first ? "the second buffer" : "the first buffer");
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
