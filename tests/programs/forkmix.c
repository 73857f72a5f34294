/* forkmix.c — one allocation site before a second thread starts and one while it runs: fork mode
   forks at the first and must leave the second to a re-run. Each failure names its site on
   stderr, so a test can tell which run was which. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static void *wait_for_word(void *argument)
{
    char word;
    if (read(*(int *)argument, &word, 1) != 1)
        return NULL;
    return NULL;
}

int main(void)
{
    char *before = malloc(32);
    if (!before) {
        fputs("forkmix: before: out of memory\n", stderr);
        return 1;
    }
    int fds[2];
    pthread_t thread;
    if (pipe(fds) != 0 || pthread_create(&thread, NULL, wait_for_word, &fds[0]) != 0)
        return 2;
    char *during = malloc(48);
    if (!during) {
        fputs("forkmix: during: out of memory\n", stderr);
        return 1;
    }
    if (write(fds[1], "x", 1) != 1)
        return 2;
    pthread_join(thread, NULL);
    puts("forkmix: done");
    free(during);
    free(before);
    return 0;
}
