/* strategies.c — targets for the campaign strategies:
   explore: a bug on the error leg of another failure (only a chain of two faults reaches it);
   loop:    a bug only when the second of three allocations at one site fails (--occurrence 2);
   retry:   retries a failed allocation; only a persistent failure reaches its give-up leg. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int explore(void)
{
    char *data = malloc(32);
    if (!data) {
        char *message = malloc(64); /* a site that exists only on this error leg */
        strcpy(message, "explore: no memory for data"); /* BUG(chain) */
        puts(message);
        free(message);
        return 1;
    }
    strcpy(data, "explore: fine");
    puts(data);
    free(data);
    return 0;
}

static int loop(void)
{
    char *blocks[3];
    for (int i = 0; i < 3; i++) {
        blocks[i] = malloc(16);
        if (!blocks[i] && i == 1)
            blocks[i][0] = 'x'; /* BUG(occurrence) */
        if (!blocks[i])
            return 1;
    }
    for (int i = 0; i < 3; i++)
        free(blocks[i]);
    puts("loop: fine");
    return 0;
}

static int retry(void)
{
    char *block;
    int attempts = 0;
    while (!(block = malloc(100))) {
        if (++attempts == 50) {
            fputs("retry: giving up\n", stderr);
            return 3;
        }
    }
    free(block);
    puts("retry: fine");
    return 0;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    if (!strcmp(mode, "explore"))
        return explore();
    if (!strcmp(mode, "loop"))
        return loop();
    if (!strcmp(mode, "retry"))
        return retry();
    fputs("usage: strategies explore|loop|retry\n", stderr);
    return 2;
}
